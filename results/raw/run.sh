#!/bin/sh
# Cost of keeping raw responses (scent crawl --raw, the default) on the
# WebKB replay: five pairs of focused crawls of 2,000 pages, raw on and
# off back to back, with the wall-clock rate and the CPU seconds of the
# crawl process; then the size of what is stored, and a 1,000-page crawl
# written as WARC and read by warcio.
# Run from the module root: sh results/raw/run.sh (needs ../shared and,
# for the last step, SCENT_WARCIO=…/node_modules/.bin/warcio).
set -eu
out=${OUT:-/tmp/scent-raw}
mkdir -p "$out"
go build -o "$out/scent" ./cmd/scent
S="$out/scent"
"$S" replay ../shared/corpus/webkb.tgz --listen 127.0.0.1:18931 >"$out/replay.log" 2>&1 &
replay=$!
trap 'kill $replay' EXIT
sleep 3
"$S" seeds ../shared/corpus/webkb.tgz --topic course -o "$out/course.txt"
P="--proxy http://127.0.0.1:18931 --delay 0 --host-parallelism 0 --quiet --seeds $out/course.txt"
"$S" crawl $P --db "$out/warm.db" --max-pages 100 >/dev/null 2>&1   # trains the model once
for round in 1 2 3 4 5; do
	for raw in true false; do
		db="$out/c$round-$raw.db"; rm -f "$db"*
		/usr/bin/time -f "%U %S" -o "$out/time" "$S" crawl $P --db "$db" --max-pages 2000 --strategy link \
			--model "$out/warm.db.model.json" --tunnel --raw=$raw >"$out/crawl.txt" 2>&1
		echo "$round raw=$raw $(tail -1 "$out/crawl.txt" | grep -o '[0-9.]* pages/s') cpu $(cat "$out/time") db $(stat -c %s "$db")"
	done
done
sqlite3 "$out/c1-true.db" "SELECT COUNT(DISTINCT page_id), COUNT(*), SUM(response_size), SUM(length(request)+length(response)) FROM raw_exchanges" 2>/dev/null || true
rm -rf "$out/w1000" "$out/w1000.db"*
"$S" crawl $P --db "$out/w1000.db" --max-pages 1000 --strategy link --model "$out/warm.db.model.json" --tunnel --warc "$out/w1000"
if [ -n "${SCENT_WARCIO:-}" ]; then
	"$SCENT_WARCIO" index "$out"/w1000/*.warc.gz | wc -l
	"$SCENT_WARCIO" cdx-index "$out"/w1000/*.warc.gz | wc -l
fi
