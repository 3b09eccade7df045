#!/usr/bin/env bash
# The default crawler trained as a user trains it: a seed file of a dozen
# examples of the topic and ten negatives, not a collection's hundreds of
# labelled pages. Run from the repository root:
#
#     bash results/learn/few.sh [ARCHIVE] [EXAMPLES] [NEGATIVES] [DRAWS]
#
# ARCHIVE defaults to ../shared/corpus/webkb.tgz, EXAMPLES to 12,
# NEGATIVES to 10, DRAWS to 3. For each topic (course, faculty, student,
# project, staff) and draw d, the seed file holds the collection's site
# seeds, EXAMPLES pages of the topic and NEGATIVES pages labelled "other",
# drawn from the training group by GNU shuf with a random source made of
# d (the same pages at every run). Then:
#
#     scent train --seeds F --model M $TRAIN_FLAGS     (defaults unless set)
#     scent crawl --seeds F --model M --lockstep --max-pages 2000
#     scent report --labels L --trained M.trained.txt --bfs BFS --topics T
#
# against one replay of ARCHIVE on 127.0.0.1:$FEW_PORT (default 18473),
# where BFS is one breadth-first crawl of the whole replay from the same
# seeds. The report's held-out targets are the topic's labelled pages on
# the hosts crawled that the model did not learn from (its 22 pages), so
# recall is over pages some of which no crawl from these seeds reaches;
# breadth-first is scored on the same targets. Each run's line goes to
# $FEW_SUMMARY (default results/learn/few/summary.txt): topic, draw, then
# recall at 250, 500, 1000 and 2000 pages and pages to 25 % for the
# crawl, then for breadth-first. The models of every earlier version:
#
#     TRAIN_FLAGS="--min-chi2 0" FEW_SUMMARY=results/learn/few/summary-min-chi2-0.txt bash results/learn/few.sh
set -euo pipefail
archive=${1:-../shared/corpus/webkb.tgz}
examples=${2:-12}
negatives=${3:-10}
draws=${4:-3}
port=${FEW_PORT:-18473}
summary=${FEW_SUMMARY:-results/learn/few/summary.txt}
out=out/few
mkdir -p "$out" "$(dirname "$summary")"
go build -o "$out/scent" ./cmd/scent
scent=$out/scent
. results/replay.sh
start_replay few "set FEW_PORT" "$scent" "$archive" "$port" "$out"
fetch=(--proxy "http://127.0.0.1:$port" --ignore-robots --delay 0 --host-parallelism 0)

"$scent" labels "$archive" >"$out/labels.tsv" 2>/dev/null
"$scent" seeds "$archive" --topic course -o "$out/all.txt" 2>/dev/null
grep '^seed' "$out/all.txt" >"$out/starts.txt"
if [ ! -s "$out/bfs.db" ]; then
	"$scent" crawl --seeds "$out/starts.txt" --db "$out/bfs.db" --strategy bfs --max-pages 0 --quiet "${fetch[@]}"
fi

# rows DIR TOPIC: the recall columns of the report's held-out table, the
# crawl's row then breadth-first's.
rows() {
	"$scent" report --db "$1/crawl.db" --labels "$out/labels.tsv" --trained "$1/model.trained.txt" --bfs "$out/bfs.db" --topics "$2" |
		awk -F'|' '/^\| (this crawl|breadth-first)/ {gsub(/ /, "", $4); gsub(/ /, "", $5); gsub(/ /, "", $6); gsub(/ /, "", $7); split($8, p, " "); printf "\t%s\t%s\t%s\t%s\t%s", $4, $5, $6, $7, p[1]}'
}

: >"$summary"
for topic in course faculty student project staff; do
	"$scent" seeds "$archive" --topic "$topic" -o "$out/$topic-all.txt" 2>/dev/null
	for d in $(seq "$draws"); do
		dir=$out/$topic-$d
		rm -rf "$dir"
		mkdir -p "$dir"
		{
			cat "$out/starts.txt"
			awk -v t="$topic" '$1 == t' "$out/$topic-all.txt" | shuf -n "$examples" --random-source=<(yes "$d")
			awk '$1 == "other"' "$out/$topic-all.txt" | shuf -n "$negatives" --random-source=<(yes "$d")
		} >"$dir/seeds.txt"
		# shellcheck disable=SC2086 # TRAIN_FLAGS is a list of flags
		"$scent" train --seeds "$dir/seeds.txt" --model "$dir/model.json" ${TRAIN_FLAGS:-} "${fetch[@]}" >"$dir/train.log" 2>&1
		"$scent" crawl --seeds "$dir/seeds.txt" --model "$dir/model.json" --db "$dir/crawl.db" --lockstep --max-pages 2000 --quiet "${fetch[@]}" >"$dir/crawl.log" 2>&1
		printf '%s\t%s%s\n' "$topic" "$d" "$(rows "$dir" "$topic")" | tee -a "$summary"
	done
done
