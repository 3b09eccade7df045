#!/usr/bin/env bash
# The defaults on WebKB under other names: every label and group renamed,
# so that no setting, default or rule can know the collection by its names
# (the training group then is found as the one group that is not a site).
# Two copies are crawled: "renamed", where WebKB's "other" keeps its name,
# and "no-other", where it is renamed too, so that no page is labelled
# "other" (the link model's negatives are then every page of the training
# group not labelled with the topic). The new names sort in WebKB's order
# of precedence (course, faculty, student, staff, project, department), so
# the 17 URLs stored under two labels keep the label they have in WebKB.
# Run from the repository root:
#
#     bash results/learn/renamed.sh [../shared/corpus/webkb.tgz]
#
# Each topic is crawled at 8, 12, 16, 20 and 24 workers, 2,000 pages,
# without the baselines; the headline lines go to
# results/learn/renamed/lines.txt. About five minutes.
set -euo pipefail
archive=${1:-../shared/corpus/webkb.tgz}
go build -o out/scent ./cmd/scent
mkdir -p results/learn/renamed
lines=results/learn/renamed/lines.txt
: > "$lines"

# copy DIR OTHER: unpacks the collection into DIR with every label and
# group renamed, and "other" named OTHER.
copy() {
	local dir=$1 other=$2
	rm -rf "$dir"
	mkdir -p "$dir"
	tar xzf "$archive" -C "$dir"
	local from to
	for pair in course:class faculty:docent student:learner staff:personnel project:research department:school "other:$other"; do
		from=${pair%%:*} to=${pair#*:}
		[ "$from" = "$to" ] || mv "$dir/$from" "$dir/$to"
		for g in cornell:ames texas:bend washington:cody wisconsin:dover misc:elsewhere; do
			if [ -d "$dir/$to/${g%%:*}" ]; then mv "$dir/$to/${g%%:*}" "$dir/$to/${g#*:}"; fi
		done
	done
}

copy out/renamed/renamed other
copy out/renamed/no-other unlabelled
for variant in renamed no-other; do
	for topic in class docent learner personnel research; do
		for w in 8 12 16 20 24; do
			out/scent experiment "out/renamed/$variant" --topic "$topic" --budget 2000 --baseline=false --workers "$w" \
				--out "out/renamed/runs/$variant-$topic-$w" 2>/dev/null | grep '^link' | sed "s/^/$variant W=$w: /" | tee -a "$lines"
		done
	done
done
