#!/usr/bin/env bash
# Pages per second of one focused crawl shared by 1, 2, 4 and 8 scent
# processes on one PostgreSQL server, beside one process on SQLite, with
# the replay answering every request after a fixed delay.
#
# usage: results/pgscale/run.sh SCENT PGHOST:PORT PROXY MODEL SEEDS OUT [BUDGET WORKERS]
#   SCENT    the scent binary
#   PGHOST:PORT  a PostgreSQL server where user scent may create databases
#   PROXY    a scent replay, e.g. http://127.0.0.1:18080 (started with --delay 50ms)
#   MODEL    a model file (scent train), so that no run trains
#   SEEDS    the seed file (scent seeds … --topic course)
#   OUT      a directory for the logs and SQLite files
# Each process fetches --workers pages at once; the crawl stops at BUDGET
# successful pages in all. A line per run: store, processes, pages, seconds
# (wall, first start to last exit), pages/s, then the database's counters.
# PROCS (default "1 2 4 8") chooses the PostgreSQL runs; NO_SQLITE=1 skips
# the SQLite one.
set -euo pipefail
scent=$1 pg=$2 proxy=$3 model=$4 seeds=$5 out=$6 budget=${7:-1000} workers=${8:-2}
mkdir -p "$out"
common=(--seeds "$seeds" --model "$model" --proxy "$proxy" --delay 0 --host-parallelism 0
	--workers "$workers" --max-pages "$budget" --quiet --crawl scale)

run() { # store procs db
	local store=$1 n=$2 db=$3 start end i
	start=$(date +%s.%N)
	for i in $(seq "$n"); do
		"$scent" crawl "${common[@]}" --db "$db" >"$out/$store-$n-$i.log" 2>&1 &
	done
	wait
	end=$(date +%s.%N)
	echo "$start $end"
}

if [ -z "${NO_SQLITE:-}" ]; then
# One process on SQLite.
rm -f "$out/sqlite.db"*
read -r start end < <(run sqlite 1 "$out/sqlite.db")
pages=$(sqlite3 "$out/sqlite.db" "SELECT count(*) FROM pages WHERE failure = ''" 2>/dev/null ||
	grep -o '[0-9]* pages fetched in all' "$out/sqlite-1-1.log" | grep -o '^[0-9]*')
awk -v p="$pages" -v s="$start" -v e="$end" 'BEGIN { printf "sqlite      1  %5d pages  %6.1f s  %6.1f pages/s\n", p, e - s, p / (e - s) }'
fi

for n in ${PROCS:-1 2 4 8}; do
	name=scale_$n
	psql -qAt "postgres://scent@$pg/postgres" -c "DROP DATABASE IF EXISTS $name" -c "CREATE DATABASE $name"
	url="postgres://scent@$pg/$name?sslmode=disable"
	psql -qAt "$url" -c "SELECT pg_stat_reset()" >/dev/null
	# What the crawl's connections are doing, sampled every 50 ms.
	(while :; do
		psql -qAt "$url" -c "SELECT state, COALESCE(wait_event_type || ':' || wait_event, 'cpu') FROM pg_stat_activity
			WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'" 2>/dev/null
		sleep 0.05
	done >"$out/activity-$n.txt") &
	sampler=$!
	read -r start end < <(run postgres "$n" "$url")
	kill "$sampler"
	stats=$(psql -qAt -F ' ' "$url" -c "SELECT xact_commit, xact_rollback, deadlocks, blks_hit, blks_read, tup_inserted, tup_updated, tup_deleted FROM pg_stat_database WHERE datname = current_database()")
	pages=$(psql -qAt "$url" -c "SELECT count(*) FROM pages WHERE failure = ''")
	twice=$(psql -qAt "$url" -c "SELECT count(*) - count(DISTINCT url) FROM pages")
	awk -v n="$n" -v p="$pages" -v s="$start" -v e="$end" -v st="$stats" -v tw="$twice" 'BEGIN {
		split(st, a, " ")
		printf "postgres    %d  %5d pages  %6.1f s  %6.1f pages/s  commits %d (%.0f/s) rollbacks %d deadlocks %d  rows ins %d upd %d del %d  URLs stored twice %d\n",
			n, p, e - s, p / (e - s), a[1], a[1] / (e - s), a[2], a[3], a[6], a[7], a[8], tw }'
	echo "            busy connections sampled: $(sort "$out/activity-$n.txt" | uniq -c | sort -rn | head -5 | awk '{ printf "%s %s; ", $1, $2 }')"
done
