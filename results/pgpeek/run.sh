#!/usr/bin/env bash
# Wall time of a guessing lockstep crawl (--lockstep, --speculate by
# default) on PostgreSQL, built before and after a change, alternating,
# with the after build's crawl without guessing (--speculate=false) beside
# them; a fresh database for every run.
#
# usage: results/pgpeek/run.sh BEFORE AFTER PGHOST:PORT PROXY MODEL SEEDS OUT [ROUNDS]
#   BEFORE, AFTER  scent binaries
#   PGHOST:PORT    a PostgreSQL server where user scent may create databases
#   PROXY          a scent replay, e.g. http://127.0.0.1:18090
#   MODEL          a model file (scent train), so that no run trains
#   SEEDS          the seed file (scent seeds … --topic course)
#   OUT            a directory for the logs and exports
#   ROUNDS         times each build runs (default 3)
# A line per run: name, wall seconds, successful pages, fetches, pages/s,
# the crawl process's CPU seconds (user + system), the load average when
# it started, and a hash of its export without fetched_at: runs that
# fetched the same URLs in the same order, with the same records, share it.
set -euo pipefail
before=$1 after=$2 pg=$3 proxy=$4 model=$5 seeds=$6 out=$7 rounds=${8:-3}
mkdir -p "$out"

run() { # name binary [crawl flags…]
	local name=$1 bin=$2 url load start end pages fetches sum
	shift 2
	psql -qAt "postgres://scent@$pg/postgres" -c "DROP DATABASE IF EXISTS $name" -c "CREATE DATABASE $name" 2>/dev/null
	url="postgres://scent@$pg/$name?sslmode=disable"
	load=$(cut -d' ' -f1 /proc/loadavg)
	start=$(date +%s.%N)
	/usr/bin/time -f "%U %S" -o "$out/$name.cpu" "$bin" crawl --seeds "$seeds" --model "$model" --proxy "$proxy" \
		--delay 0 --host-parallelism 0 --workers 16 --max-pages 2000 --lockstep --quiet --db "$url" "$@" >"$out/$name.log" 2>&1
	end=$(date +%s.%N)
	"$bin" export --db "$url" --out "$out/$name.jsonl"
	pages=$(psql -qAt "$url" -c "SELECT count(*) FROM pages WHERE failure = ''")
	fetches=$(psql -qAt "$url" -c "SELECT count(*) FROM pages")
	sum=$(jq -c 'del(.fetched_at)' "$out/$name.jsonl" | sha256sum | cut -c1-12)
	awk -v n="$name" -v p="$pages" -v f="$fetches" -v s="$start" -v e="$end" -v l="$load" -v h="$sum" -v c="$(cat "$out/$name.cpu")" 'BEGIN {
		split(c, a, " ")
		printf "%-9s %6.2f s  %d pages  %d fetches  %5.1f pages/s  cpu %5.1f s  load %s  export %s\n", n, e - s, p, f, p / (e - s), a[1] + a[2], l, h }'
}

for i in $(seq "$rounds"); do
	run "before_$i" "$before"
	run "after_$i" "$after"
	run "plain_$i" "$after" --speculate=false
done
