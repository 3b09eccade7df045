#!/usr/bin/env bash
# Reproduces the stop-and-resume figures of results/learn/README.md ("A
# stopped crawl resumed"): the default focused crawl of WebKB's course
# pages (scent crawl on the replay, 4,000 pages), in lockstep so that
# the crawls compared fetch the same pages up to the stop, run once without a stop
# and once for each stop (200 to 1,000 pages, then the same command
# with the budget at 4,000), each scored on held-out targets. Run from the
# repository root:
#
#     bash results/learn/resume.sh [../shared/corpus/webkb.tgz] [PORT]
#
# Everything goes to out/resume; the report line of each crawl (its
# recall at 250 to 4,000 pages and the pages, and fetches, to 25, 50 and
# 75 % of the held-out targets) is printed and kept in out/resume/lines.txt.
# With SCENT=BINARY the crawls are that build's (a variant of
# results/learn/tried), in out/resume-BINARY's name.
set -euo pipefail
archive=${1:-../shared/corpus/webkb.tgz}
port=${2:-18992}
out=out/resume${SCENT:+-$(basename "$SCENT")}
mkdir -p "$out"
rm -f "$out"/*.db "$out"/*.db-* "$out"/*.db.model.json "$out"/*.db.model.page.json "$out"/lines.txt
if [ -n "${SCENT:-}" ]; then
	cp "$SCENT" "$out/scent"
else
	go build -o "$out/scent" ./cmd/scent
fi
. results/replay.sh
start_replay resume "give another PORT" "$out/scent" "$archive" "$port" "$out"
"$out/scent" seeds "$archive" --topic course -o "$out/course.txt"
"$out/scent" labels "$archive" >"$out/labels.tsv"
flags=(--seeds "$out/course.txt" --proxy "http://127.0.0.1:$port" --delay 0 --host-parallelism 0 --lockstep --quiet)
line() {
	"$out/scent" report --db "$1" --labels "$out/labels.tsv" --seeds "$out/course.txt" | grep '^| this crawl' | sed "s/this crawl/$2/" | tee -a "$out/lines.txt"
}
"$out/scent" crawl "${flags[@]}" --max-pages 4000 --db "$out/whole.db" >"$out/crawl.log" 2>&1
line "$out/whole.db" "no stop"
for stop in 200 300 400 500 600 700 800 1000; do
	"$out/scent" crawl "${flags[@]}" --max-pages "$stop" --db "$out/stop$stop.db" >>"$out/crawl.log" 2>&1
	"$out/scent" crawl "${flags[@]}" --max-pages 4000 --db "$out/stop$stop.db" >>"$out/crawl.log" 2>&1
	line "$out/stop$stop.db" "stopped at $stop"
done
