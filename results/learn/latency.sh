#!/usr/bin/env bash
# Pages per second of the learning crawl beside breadth-first's against a
# server that answers every request after DELAY, as a distant one would
# (results/learn/README.md, "Speed and memory"). Run from the repository
# root:
#
#     bash results/learn/latency.sh [ARCHIVE] [DELAY] [PORT]
#
# ARCHIVE defaults to ../shared/corpus/webkb.tgz, DELAY to 50ms, PORT to
# 18993. One scent replay answers after DELAY; per topic (course,
# faculty) the model is trained once (scent train, not timed), then three
# crawls of 4,000 pages run at once, so that they share the machine's
# noise: breadth-first (--strategy bfs), the default crawl (the link
# learner, fetching whenever a worker is free) and the default crawl in
# lockstep (--lockstep). Each line of out/latency/lines.txt gives the
# crawl's pages and fetches per second, its ratio to breadth-first's
# pages per second, its peak RSS (/usr/bin/time -v) and its pages to 75 %
# of the held-out targets (scent report).
#
# With SWEEP=1 it then runs, per topic, the default crawl of 2,000 pages at
# 8, 16 and 24 workers, free and in lockstep (three at a time, with the
# model trained above), into out/latency/sweep.txt: pages per second,
# pages to 75 % of the held-out targets and recall at 1,000 pages.
set -euo pipefail
archive=${1:-../shared/corpus/webkb.tgz}
delay=${2:-50ms}
port=${3:-18993}
out=out/latency
mkdir -p "$out"
rm -f "$out"/*.db "$out"/*.db-* "$out"/*.db.model.json "$out"/*.db.model.page.json "$out"/lines.txt
go build -o "$out/scent" ./cmd/scent
. results/replay.sh
start_replay latency "give another PORT" "$out/scent" "$archive" "$port" "$out" --delay "$delay"
"$out/scent" labels "$archive" >"$out/labels.tsv"
flags=(--proxy "http://127.0.0.1:$port" --delay 0 --host-parallelism 0 --max-pages 4000 --quiet)
for topic in course faculty; do
	"$out/scent" seeds "$archive" --topic "$topic" -o "$out/$topic.txt" >/dev/null
	"$out/scent" train --seeds "$out/$topic.txt" --model "$out/$topic.model.json" --proxy "http://127.0.0.1:$port" --delay 0 --host-parallelism 0 >"$out/$topic.train.log" 2>&1
	run() {
		local name=$1
		shift
		/usr/bin/time -v -o "$out/$topic-$name.time" "$out/scent" crawl --seeds "$out/$topic.txt" --model "$out/$topic.model.json" \
			--db "$out/$topic-$name.db" "${flags[@]}" "$@" >"$out/$topic-$name.log" 2>&1
	}
	run bfs --strategy bfs &
	p1=$!
	run default &
	p2=$!
	run lockstep --lockstep &
	p3=$!
	wait $p1 $p2 $p3
	rate() { sed -n 's/.* \([0-9.]*\) pages\/s, \([0-9.]*\) fetches\/s$/\1 \2/p' "$out/$topic-$1.log" | tail -1; }
	bfs=$(rate bfs | cut -d' ' -f1)
	for name in bfs default lockstep; do
		db=$out/$topic-$name.db
		read -r pps fps <<<"$(rate "$name")"
		rss=$(sed -n 's/.*Maximum resident set size (kbytes): *//p' "$out/$topic-$name.time")
		p75=$("$out/scent" report --db "$db" --labels "$out/labels.tsv" --seeds "$out/$topic.txt" | grep '^| this crawl' | awk -F'|' '{print $(NF-1)}' | sed 's/^ *//; s/ *$//')
		printf '%s\t%s\t%s pages/s\t%s fetches/s\t%s × bfs\t%d MB\tpages to 75 %%: %s\n' "$topic" "$name" "$pps" "$fps" \
			"$(awk -v a="$pps" -v b="$bfs" 'BEGIN {printf "%.2f", a / b}')" $((rss / 1024)) "$p75" | tee -a "$out/lines.txt"
	done
done
[ "${SWEEP:-}" = 1 ] || exit 0
rm -f "$out/sweep.txt"
for topic in course faculty; do
	for mode in free lockstep; do
		lock=()
		[ "$mode" = lockstep ] && lock=(--lockstep)
		pids=()
		for w in 8 16 24; do
			db=$out/$topic-$mode-$w.db
			rm -f "$db" "$db"-*
			"$out/scent" crawl --seeds "$out/$topic.txt" --model "$out/$topic.model.json" --db "$db" "${flags[@]}" \
				--max-pages 2000 --workers "$w" "${lock[@]}" >"$out/$topic-$mode-$w.log" 2>&1 &
			pids+=($!)
		done
		wait "${pids[@]}" # not the replay's
		for w in 8 16 24; do
			db=$out/$topic-$mode-$w.db
			pps=$(sed -n 's/.* \([0-9.]*\) pages\/s, [0-9.]* fetches\/s$/\1/p' "$out/$topic-$mode-$w.log" | tail -1)
			row=$("$out/scent" report --db "$db" --labels "$out/labels.tsv" --seeds "$out/$topic.txt" | grep '^| this crawl')
			p75=$(awk -F'|' '{print $(NF-1)}' <<<"$row" | sed 's/^ *//; s/ *$//')
			r1000=$(awk -F'|' '{print $6}' <<<"$row" | sed 's/^ *//; s/ *$//')
			printf '%s\t%s\tW=%s\t%s pages/s\tpages to 75 %%: %s\trecall @1000: %s\n' "$topic" "$mode" "$w" "$pps" "$p75" "$r1000" | tee -a "$out/sweep.txt"
		done
	done
done
