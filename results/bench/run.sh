#!/usr/bin/env bash
# Throughput of scent beside a plain colly crawler and the raw-fetch limit,
# on the whole WebKB replay. Run from the repository root:
#
#     bash results/bench/run.sh [ARCHIVE] [RUNS]
#
# ARCHIVE defaults to ../shared/corpus/webkb.tgz, RUNS to 3. One scent
# replay serves the archive on loopback (port $BENCH_PORT, default 18457)
# for every run (the script stops if another program holds the port);
# each round runs, in this order,
#
#   scent-bfs      scent crawl --strategy bfs (whole replay, robots off,
#                  no delay, no per-host limit, 16 workers, a new database)
#   base-bfs       with BENCH_BASE=BINARY: the same crawl by another scent
#                  binary (an older build), so that both are compared in
#                  one run
#   colly-bfs      results/bench/collybfs: colly's FIFO queue, 16 threads
#   raw-fetch      results/bench/rawfetch: a bare net/http client fetching
#                  the URLs scent-bfs fetched in round 1, 16 at a time
#   scent-focused  the default focused crawl (topic course) with the same
#                  fetch settings
#
# so the programs alternate and share the machine's noise. Every run is
# timed with /usr/bin/time -v (wall time, peak RSS). The model is trained
# once before the rounds (not timed). Per-run lines go to
# out/bench/runs.tsv; the table of medians and the machine's load are
# written to results/bench/README.md (with $BENCH_NOTE, if set, as its
# first paragraph).
set -euo pipefail
archive=${1:-../shared/corpus/webkb.tgz}
runs=${2:-3}
port=${BENCH_PORT:-18457}
workers=16
out=out/bench
mkdir -p "$out"
go build -o "$out/scent" ./cmd/scent
# $BENCH_BASE, if set, is another scent binary (an older build) whose bfs
# crawl runs right after this tree's in every round (base-bfs).
if [ -n "${BENCH_BASE:-}" ]; then
	cp "$BENCH_BASE" "$out/scent-base"
fi
go build -o "$out/collybfs" ./results/bench/collybfs
go build -o "$out/rawfetch" ./results/bench/rawfetch

. results/replay.sh
start_replay bench "set BENCH_PORT" "$out/scent" "$archive" "$port" "$out"
proxy="http://127.0.0.1:$port"
"$out/scent" seeds "$archive" --topic course -o "$out/seeds.txt"
fetchflags=(--proxy "$proxy" --ignore-robots --delay 0 --host-parallelism 0 --workers "$workers" --max-pages 0 --quiet)
rm -f "$out/model.json"
"$out/scent" train --seeds "$out/seeds.txt" --model "$out/model.json" --proxy "$proxy" --ignore-robots --delay 0 --host-parallelism 0 >"$out/train.log" 2>&1

# timed NAME CMD...: runs CMD under /usr/bin/time -v and appends
# NAME, wall seconds, peak RSS in KB, fetches, the load average, the
# CPU seconds (user + system) and the pages fetched successfully to
# runs.tsv. The fetches are read by the function named fetches_NAME, the
# pages by pages_NAME where there is one ("-" where not: colly and the
# raw fetch keep no pages).
timed() {
	name=$1
	shift
	/usr/bin/time -v -o "$out/$name.time" "$@" >"$out/$name.out" 2>"$out/$name.err"
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s}' "$out/$name.time")
	rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$out/$name.time")
	cpu=$(awk -F': ' '/(User|System) time \(seconds\)/ {s += $2} END {print s}' "$out/$name.time")
	n=$("fetches_${name//-/_}")
	pg=-
	if declare -F "pages_${name//-/_}" >/dev/null; then
		pg=$("pages_${name//-/_}")
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$wall" "$rss" "$n" "$(cut -d' ' -f1-3 /proc/loadavg)" "$cpu" "$pg" | tee -a "$out/runs.tsv"
}
fetches_scent_bfs() { sqlite3 "$out/bfs.db" "SELECT COUNT(*) FROM pages"; }
fetches_base_bfs() { sqlite3 "$out/base.db" "SELECT COUNT(*) FROM pages"; }
fetches_scent_focused() { sqlite3 "$out/focused.db" "SELECT COUNT(*) FROM pages"; }
pages_scent_bfs() { sqlite3 "$out/bfs.db" "SELECT COUNT(*) FROM pages WHERE failure = ''"; }
pages_base_bfs() { sqlite3 "$out/base.db" "SELECT COUNT(*) FROM pages WHERE failure = ''"; }
pages_scent_focused() { sqlite3 "$out/focused.db" "SELECT COUNT(*) FROM pages WHERE failure = ''"; }
fetches_colly_bfs() { cut -d' ' -f1 "$out/colly-bfs.out"; }
fetches_raw_fetch() { cut -d' ' -f1 "$out/raw-fetch.out"; }

: >"$out/runs.tsv"
for round in $(seq "$runs"); do
	rm -f "$out"/bfs.db* "$out"/focused.db* "$out"/base.db*
	timed scent-bfs "$out/scent" crawl --seeds "$out/seeds.txt" --model "$out/model.json" --db "$out/bfs.db" --strategy bfs "${fetchflags[@]}"
	if [ -n "${BENCH_BASE:-}" ]; then
		timed base-bfs "$out/scent-base" crawl --seeds "$out/seeds.txt" --model "$out/model.json" --db "$out/base.db" --strategy bfs "${fetchflags[@]}"
	fi
	if [ "$round" = 1 ]; then
		sqlite3 "$out/bfs.db" "SELECT u.url FROM pages p JOIN urls u ON u.id = p.url_id ORDER BY p.ord" >"$out/urls.txt"
	fi
	timed colly-bfs "$out/collybfs" --seeds "$out/seeds.txt" --proxy "$proxy" --workers "$workers"
	timed raw-fetch sh -c "\"$out/rawfetch\" --proxy $proxy --workers $workers < \"$out/urls.txt\""
	timed scent-focused "$out/scent" crawl --seeds "$out/seeds.txt" --model "$out/model.json" --db "$out/focused.db" "${fetchflags[@]}"
done
sqlite3 "$out/bfs.db" "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC" >"$out/bfs-dbstat.txt"
dbbytes=$(sqlite3 "$out/bfs.db" "SELECT SUM(pgsize) FROM dbstat")
dbpages=$(sqlite3 "$out/bfs.db" "SELECT COUNT(*) FROM pages WHERE failure = ''")

# The table: medians over the rounds of wall time, pages per second and
# peak RSS, and each program's wall time as a multiple of colly's and its
# pages per second as a share of the raw fetch's.
{
	if [ -n "${BENCH_NOTE:-}" ]; then
		printf '%s\n\n' "$BENCH_NOTE"
	fi
	cat <<HEAD
# Throughput: scent beside colly and the raw-fetch limit

Produced by \`$([ -n "${BENCH_BASE:-}" ] && echo "BENCH_BASE=$BENCH_BASE ")bash results/bench/run.sh $archive $runs\`
(commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!results/bench/README.md' || echo ", with uncommitted changes")), $(date -u +%Y-%m-%d) on
$(nproc) cores shared with other work ($(uname -m), $(go env GOVERSION)).
The whole WebKB replay (\`scent replay\` on loopback), robots.txt off, no
delay, no per-host limit, $workers workers each, $runs rounds alternating
scent-bfs,$([ -n "${BENCH_BASE:-}" ] && echo " base-bfs (the scent binary \$BENCH_BASE),") colly-bfs, raw-fetch,
scent-focused. Medians of the rounds (CPU: user + system seconds);
fetches count every URL requested, failures (404) included.

| program | fetches | pages | wall s | fetches/s | pages/s | × colly wall | % of raw fetches/s | CPU s | peak RSS MB |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
HEAD
	awk -F'\t' '
		{ w[$1] = w[$1] " " $2; r[$1] = r[$1] " " $3; f[$1] = $4; c[$1] = c[$1] " " $6; g[$1] = $7; names[$1] = 1; load = load sprintf(" %s", $5) }
		function median(s,   a, n, i, j, t) {
			n = split(s, a, " ")
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		}
		END {
			cw = median(w["colly-bfs"]); rps = f["raw-fetch"] / median(w["raw-fetch"])
			split("scent-bfs base-bfs colly-bfs raw-fetch scent-focused", order, " ")
			for (i = 1; i <= 5; i++) {
				k = order[i]; if (!(k in names)) continue
				mw = median(w[k]); ps = f[k] / mw
				pages = g[k] == "-" || g[k] == "" ? "–" : g[k]
				pps = pages == "–" ? "–" : sprintf("%.0f", g[k] / mw)
				printf "| %s | %d | %s | %.1f | %.0f | %s | %.2f | %.0f %% | %.2f | %.0f |\n", k, f[k], pages, mw, ps, pps, mw / cw, 100 * ps / rps, median(c[k]), median(r[k]) / 1024
			}
		}' "$out/runs.tsv"
	sf=$(awk -F'\t' '$1 == "scent-focused" {print $4 / $2}' "$out/runs.tsv" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
	sb=$(awk -F'\t' '$1 == "scent-bfs" {print $4 / $2}' "$out/runs.tsv" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
	pf=$(awk -F'\t' '$1 == "scent-focused" {print $7 / $2}' "$out/runs.tsv" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
	pb=$(awk -F'\t' '$1 == "scent-bfs" {print $7 / $2}' "$out/runs.tsv" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
	cat <<TAIL

The focused crawl fetches $(awk -v a="$sf" -v b="$sb" 'BEGIN {printf "%.2f", a / b}') × bfs's fetches per second
and stores $(awk -v a="$pf" -v b="$pb" 'BEGIN {printf "%.2f", a / b}') × its pages per second, successful pages
(medians per run; both crawls run until their frontier is empty, and
the focused one leaves more of the replay's dead links alone). The store of the last bfs crawl holds
$dbpages pages in $dbbytes bytes of SQLite pages, $(awk -v a="$dbbytes" -v b="$dbpages" 'BEGIN {printf "%.0f", a / b}') bytes a stored page
(\`sqlite3 DB "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"\`,
largest first):

\`\`\`
$(head -12 "$out/bfs-dbstat.txt")
\`\`\`

Every run (name, wall s, peak RSS KB, fetches, load average 1/5/15 min
when it ended, CPU s):

\`\`\`
$(cat "$out/runs.tsv")
\`\`\`
TAIL
} >results/bench/README.md
cat results/bench/README.md
