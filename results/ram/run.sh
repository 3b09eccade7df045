#!/usr/bin/env bash
# How scent's memory grows with the size of a crawl. Run from the
# repository root:
#
#     bash results/ram/run.sh [SIZES…]
#
# SIZES are crawl budgets in pages, 5000 20000 60000 by default.
# results/ram/farm serves an endless web of a million hosts on loopback
# (port $RAM_PORT, default 18600; the script stops if another program
# holds it), with a topic, course, that the seed file written to
# out/ram/seeds.txt teaches by examples from the farm. Each size is one
# default crawl of a new database through the farm (scent crawl with no
# strategy flag: the learner and its rescores, sections, the survey,
# sitemaps, robots.txt, near-duplicates; no delay, no per-host limit),
# run under /usr/bin/time -v (peak RSS). Every 5 seconds the script
# reads the crawl's metrics (--metrics-addr 127.0.0.1:$RAM_METRICS_PORT,
# default 18601): pages stored, resident memory, the Go heap in use and
# the heap goal (go_memstats_next_gc_bytes: 1.5 × the heap live at the
# last collection, under scent's GOGC=50). The samples go to
# out/ram/SIZE.tsv, the table and the samples of the largest crawl to
# results/ram/README.md (with $RAM_NOTE, if set, as its first
# paragraph). RAM_SCENT=BINARY measures that scent binary instead of a
# build of this tree; RAM_FARM_FLAGS are passed to the farm (--big N:
# one page in N of 1 to 9 MB), RAM_CRAWL_FLAGS to each scent crawl (e.g.
# --site-norm).
set -euo pipefail
sizes=("$@")
if [ ${#sizes[@]} = 0 ]; then
	sizes=(5000 20000 60000)
fi
port=${RAM_PORT:-18600}
mport=${RAM_METRICS_PORT:-18601}
out=out/ram
mkdir -p "$out"
if [ -n "${RAM_SCENT:-}" ]; then
	cp "$RAM_SCENT" "$out/scent"
else
	go build -o "$out/scent" ./cmd/scent
fi
go build -o "$out/farm" ./results/ram/farm

if curl -s -o /dev/null "http://127.0.0.1:$port/"; then
	echo "ram: a program already answers on 127.0.0.1:$port (set RAM_PORT)" >&2
	exit 1
fi
# shellcheck disable=SC2086
"$out/farm" --listen "127.0.0.1:$port" ${RAM_FARM_FLAGS:-} >"$out/farm.log" 2>&1 &
farm=$!
trap "kill $farm 2>/dev/null || true" EXIT
for _ in $(seq 50); do
	curl -s -o /dev/null -x "http://127.0.0.1:$port" http://h0.farm.test/ && break
	sleep 0.2
done

{
	echo "# The farm's topic: pages about a course, examples and negatives from ex.farm.test."
	echo "seed http://h0.farm.test/"
	echo "seed http://h1.farm.test/c/1.html"
	echo "seed http://h2.farm.test/p/2.html"
	for i in $(seq 8); do echo "course http://ex.farm.test/c/e$i.html"; done
	for i in $(seq 8); do echo "other http://ex.farm.test/p/o$i.html"; done
} >"$out/seeds.txt"

# metric NAME FILE: the value of an unlabelled metric in a scrape.
metric() { awk -v n="$1" '$1 == n {printf "%.0f", $2}' "$2"; }

: >"$out/runs.tsv"
for n in "${sizes[@]}"; do
	rm -f "$out/$n".db*
	/usr/bin/time -v -o "$out/$n.time" "$out/scent" crawl --seeds "$out/seeds.txt" --db "$out/$n.db" \
		--proxy "http://127.0.0.1:$port" --delay 0 --host-parallelism 0 --max-pages "$n" \
		--metrics-addr "127.0.0.1:$mport" --quiet ${RAM_CRAWL_FLAGS:-} >"$out/$n.out" 2>"$out/$n.err" &
	crawl=$!
	start=$(date +%s)
	: >"$out/$n.tsv"
	while kill -0 "$crawl" 2>/dev/null; do
		sleep 5
		curl -s -o "$out/scrape" "http://127.0.0.1:$mport/metrics" || continue
		printf '%s\t%s\t%s\t%s\t%s\n' $(($(date +%s) - start)) "$(metric scent_pages_stored_total "$out/scrape")" \
			"$(metric process_resident_memory_bytes "$out/scrape")" "$(metric go_memstats_heap_inuse_bytes "$out/scrape")" \
			"$(metric go_memstats_next_gc_bytes "$out/scrape")" >>"$out/$n.tsv"
	done
	wait "$crawl"
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {k = split($2, t, ":"); s = 0; for (i = 1; i <= k; i++) s = s * 60 + t[i]; print s}' "$out/$n.time")
	rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$out/$n.time")
	pages=$(sqlite3 "$out/$n.db" "SELECT COUNT(*) FROM pages WHERE failure = ''")
	fetches=$(sqlite3 "$out/$n.db" "SELECT COUNT(*) FROM pages")
	hosts=$(sqlite3 "$out/$n.db" "SELECT COUNT(DISTINCT u.host) FROM pages p JOIN urls u ON u.id = p.url_id")
	known=$(sqlite3 "$out/$n.db" "SELECT COUNT(*) FROM hosts")
	db=$(du -bc "$out/$n".db* | tail -1 | cut -f1)
	# Over the last half of the run: the highest resident memory and
	# heap goal sampled, and the lowest heap goal (the live heap at its
	# smallest).
	last=$(awk -F'\t' -v n="$n" '$2 >= n / 2 {if ($3 > r) r = $3; if ($5 > g) g = $5; if (m == "" || $5 < m) m = $5} END {printf "%d\t%d\t%d", r, g, m}' "$out/$n.tsv")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$pages" "$fetches" "$hosts" "$known" "$wall" "$rss" "$db" "$last" "$(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/runs.tsv"
done

largest=${sizes[${#sizes[@]} - 1]}
{
	if [ -n "${RAM_NOTE:-}" ]; then
		printf '%s\n\n' "$RAM_NOTE"
	fi
	cat <<HEAD
# Memory of a crawl as it grows

Produced by \`$([ -n "${RAM_SCENT:-}" ] && echo "RAM_SCENT=$RAM_SCENT ")$([ -n "${RAM_FARM_FLAGS:-}" ] && echo "RAM_FARM_FLAGS='$RAM_FARM_FLAGS' ")$([ -n "${RAM_CRAWL_FLAGS:-}" ] && echo "RAM_CRAWL_FLAGS='$RAM_CRAWL_FLAGS' ")bash results/ram/run.sh ${sizes[*]}\`
(commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!results/ram/README.md' || echo ", with uncommitted changes")$([ -n "${RAM_SCENT:-}" ] && echo "; the scent measured is \$RAM_SCENT")), $(date -u +%Y-%m-%d) on
$(nproc) cores shared with other work ($(uname -m), $(go env GOVERSION)).
The default crawl (\`scent crawl --seeds out/ram/seeds.txt --db D
--proxy … --delay 0 --host-parallelism 0 --max-pages N\`) of the endless
web of \`results/ram/farm\`, one new database a size. Peak RSS from
\`/usr/bin/time -v\`; over the second half of each crawl, sampled every
5 s from its metrics: the most resident memory, and the highest and
lowest heap goal (1.5 × the Go heap live at the last collection).

| pages | fetches | hosts fetched | hosts known | wall s | peak RSS MB | RSS MB, 2nd half | heap goal MB, 2nd half | database MB |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
HEAD
	awk -F'\t' '{printf "| %d | %d | %d | %d | %d | %.0f | %.0f | %.0f to %.0f | %.0f |\n", $2, $3, $4, $5, $6, $7 / 1024, $9 / 1048576, $11 / 1048576, $10 / 1048576, $8 / 1e6}' "$out/runs.tsv"
	cat <<TAIL

The crawl of $largest pages, one sample in ten (seconds, pages stored,
resident memory, Go heap in use, heap goal; MB):

\`\`\`
$(awk -F'\t' 'NR % 10 == 1 {printf "%5d %6d %5.0f %5.0f %5.0f\n", $1, $2, $3 / 1048576, $4 / 1048576, $5 / 1048576}' "$out/$largest.tsv")
\`\`\`

Every run (pages asked, pages stored, fetches, hosts fetched, hosts
known, wall s, peak RSS KB, database bytes, over the second half the
most RSS, the highest and the lowest heap goal in bytes, load average
1/5/15 min when it ended):

\`\`\`
$(cat "$out/runs.tsv")
\`\`\`
TAIL
} >results/ram/README.md
cat results/ram/README.md
