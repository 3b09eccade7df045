#!/usr/bin/env bash
# Reproduces results/learn/groups/by-workers.md: the default crawler
# trained on each university's labelled pages (--group) for every topic,
# as groups.sh, at the five worker counts the main table uses (8, 12, 16,
# 20, 24), because one run is one draw of a chaotic process (README, "How
# much one run says"). Run from the repository root:
#
#     bash results/learn/groups-workers.sh [../shared/corpus/webkb.tgz]
#
# Each experiment writes its full output under out/learn-groups-w/NAME-W;
# its headline line goes to results/learn/groups/by-workers.txt and the
# table of pages to 75 % of the held-out targets, per worker count, with
# their mean and breadth-first's (half), to
# results/learn/groups/by-workers.md.
set -euo pipefail
archive=${1:-../shared/corpus/webkb.tgz}
go build -o out/scent ./cmd/scent
txt=results/learn/groups/by-workers.txt
md=results/learn/groups/by-workers.md
: > "$txt"
{
	echo "| training group, topic | W=8 | 12 | 16 | 20 | 24 | mean | breadth-first (half) | mean within half |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
} > "$md"
for group in cornell texas washington wisconsin; do
	for topic in course faculty student project staff; do
		row="| $group $topic"
		sum=0 n=0 bfs=
		for w in 8 12 16 20 24; do
			name=$group-$topic-$w
			line=$(out/scent experiment "$archive" --group "$group" --topic "$topic" --budget 4000 --workers "$w" \
				--out "out/learn-groups-w/$name" | grep '^link ')
			echo "$name: $line" >> "$txt"
			# "pages to 25/50/75 %: a/b/c, breadth-first x/y/z, ..."
			p75=$(sed -E 's#.*pages to 25/50/75 %: [^/]*/[^/]*/([^,]*), breadth-first [^/]*/[^/]*/([^,]*),.*#\1#' <<<"$line")
			bfs=$(sed -E 's#.*pages to 25/50/75 %: [^/]*/[^/]*/([^,]*), breadth-first [^/]*/[^/]*/([^,]*),.*#\2#' <<<"$line")
			row="$row | $p75"
			if [[ $p75 =~ ^[0-9]+$ ]]; then sum=$((sum + p75)); n=$((n + 1)); fi
		done
		if [ "$n" -eq 5 ]; then mean=$((sum / 5)); else mean="– ($n of 5)"; fi
		within=no
		if [ "$n" -eq 5 ] && [[ $bfs =~ ^[0-9]+$ ]] && [ $((2 * mean)) -le "$bfs" ]; then within=yes; fi
		echo "$row | $mean | $bfs ($((bfs / 2))) | $within |" >> "$md"
	done
done
cat "$md"
