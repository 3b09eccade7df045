#!/usr/bin/env bash
# Held-out recall of one focused crawl shared by 1 and by 4 scent
# processes on one PostgreSQL server, a few runs each, with the replay
# answering every request after a fixed delay.
#
# usage: results/pgscale/heldout.sh SCENT PGHOST:PORT PROXY MODEL SEEDS LABELS OUT [BUDGET WORKERS RUNS]
#   SCENT    the scent binary
#   PGHOST:PORT  a PostgreSQL server where user scent may create databases
#   PROXY    a scent replay, e.g. http://127.0.0.1:18080 (started with --delay 50ms)
#   MODEL    a model file (scent train), so that no run trains; the pages
#            it learnt from are MODEL without .json plus .trained.txt, as
#            scent train writes them, and are no recall targets
#   SEEDS    the seed file (scent seeds … --topic course)
#   LABELS   the labels file (scent labels)
#   OUT      a directory for the logs and reports
# Each process fetches --workers pages at once without lockstep (a worker
# fetches whenever it is free, so no run repeats another exactly); the
# crawl stops at BUDGET successful pages in all. Every run gets a fresh
# database, heldout_PROCS_RUN, kept afterwards. A line per run: processes,
# run, pages, seconds (wall, first start to last exit), pages/s, fetches
# (failed ones included) and fetches/s, held-out targets, found and recall
# at BUDGET (scent report --db postgres://…
# --labels LABELS --trained …). PROCS (default "1 4") chooses the numbers
# of processes; NO_REPORT=1 only crawls, REPORT_ONLY=1 measures the
# databases of an earlier call (their times from OUT) without crawling.
set -euo pipefail
scent=$1 pg=$2 proxy=$3 model=$4 seeds=$5 labels=$6 out=$7 budget=${8:-1000} workers=${9:-2} runs=${10:-3}
trained=${model%.json}.trained.txt
mkdir -p "$out"
: >"$out/runs.txt"
common=(--seeds "$seeds" --model "$model" --proxy "$proxy" --delay 0 --host-parallelism 0
	--workers "$workers" --max-pages "$budget" --lockstep=false --quiet --crawl heldout)

for n in ${PROCS:-1 4}; do
	for r in $(seq "$runs"); do
		name=heldout_${n}_$r
		url="postgres://scent@$pg/$name?sslmode=disable"
		if [ -z "${REPORT_ONLY:-}" ]; then
			psql -qAt "postgres://scent@$pg/postgres" -c "DROP DATABASE IF EXISTS $name" -c "CREATE DATABASE $name"
			start=$(date +%s.%N)
			for i in $(seq "$n"); do
				"$scent" crawl "${common[@]}" --db "$url" >"$out/crawl-$n-$r-$i.log" 2>&1 &
			done
			wait
			end=$(date +%s.%N)
			echo "$start $end" >"$out/time-$n-$r.txt"
		fi
		[ -n "${NO_REPORT:-}" ] && continue
		read -r start end <"$out/time-$n-$r.txt"
		"$scent" report --db "$url" --crawl heldout --labels "$labels" --trained "$trained" --format json >"$out/report-$n-$r.json"
		jq -r --argjson b "$budget" '[.pages, .fetches, (.topics[0].targets), ((.topics[0].recall_at // []) | map(select(.pages == $b)) | .[0] // {found: -1, recall: -1} | .found, .recall)] | @tsv' \
			"$out/report-$n-$r.json" | awk -v n="$n" -v r="$r" -v s="$start" -v e="$end" -v b="$budget" -F'\t' '{
			printf "postgres  %d processes  run %d  %5d pages  %6.1f s  %5.1f pages/s  %5d fetches  %5.1f fetches/s  held-out targets %d  found @%d %d  recall %.3f\n",
				n, r, $1, e - s, $1 / (e - s), $2, $2 / (e - s), $3, b, $4, $5 }' | tee -a "$out/runs.txt"
	done
done
# Per number of processes: mean, sample standard deviation and range of
# pages/s, fetches/s and recall at BUDGET over the runs.
[ -n "${NO_REPORT:-}" ] && exit 0
awk '{ n = $2; rate[n, ++k[n]] = $10; frate[n, k[n]] = $14; rec[n, k[n]] = $NF }
	function stats(a, n, m,   i, s, ss, lo, hi) {
		for (i = 1; i <= m; i++) { s += a[n, i]; lo = (i == 1 || a[n, i] < lo) ? a[n, i] : lo; hi = (i == 1 || a[n, i] > hi) ? a[n, i] : hi }
		for (i = 1; i <= m; i++) ss += (a[n, i] - s / m) ^ 2
		return sprintf("mean %.3f sd %.3f range %.3f–%.3f", s / m, m > 1 ? sqrt(ss / (m - 1)) : 0, lo, hi) }
	END { for (n in k) printf "%s processes, %d runs: pages/s %s; fetches/s %s; recall %s\n", n, k[n],
		stats(rate, n, k[n]), stats(frate, n, k[n]), stats(rec, n, k[n]) }' "$out/runs.txt" | sort -n
