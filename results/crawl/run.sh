#!/usr/bin/env bash
# Reproduces results/crawl: the focused-crawl experiments on the WebKB corpus
# replayed on loopback. Run from the repository root:
#
#     bash results/crawl/run.sh [../shared/corpus/webkb.tgz]
#
# Each experiment writes its full output (including pages.jsonl, which holds
# corpus URLs and is therefore not committed) under out/crawl/NAME; the
# report and the exact command are copied into results/crawl/NAME.
set -euo pipefail
archive=${1:-../shared/corpus/webkb.tgz}
go build -o out/scent ./cmd/scent
# Where the topics' pages sit and which pages link to them.
for topic in course faculty; do
	out/scent layout "$archive" --topic "$topic" > "results/crawl/layout-$topic.txt"
done
# These are studies of the paper's crawler and its variants: every run
# starts from --preset paper (no link learner, no sections, examples
# fetched like any page, one model); results/learn has the default crawler.
run() {
	name=$1; shift
	${TIMED:-} out/scent experiment "$archive" --out "out/crawl/$name" --folds 0 --preset paper "$@"
	mkdir -p "results/crawl/$name"
	cp "out/crawl/$name/report.json" "out/crawl/$name/report.md" "out/crawl/$name/command" "results/crawl/$name/"
}
for topic in course faculty; do
	for strategy in bfs page link; do
		run "$topic-$strategy" --topic "$topic" --strategy "$strategy" --budget 1000
	done
done
run "course+faculty-link" --topic course,faculty --strategy link --budget 2000
# Tunnelling through off-topic links when a stack runs empty (--tunnel).
for topic in course faculty; do
	run "$topic-link-tunnel" --topic "$topic" --strategy link --budget 1000 --tunnel
done
run "course+faculty-link-tunnel" --topic course,faculty --strategy link --budget 2000 --tunnel
# Backlink features from a 1,000-page breadth-first discovery crawl of the
# examples' sites; also at K = 2000, n = 20, the best faculty cell of the
# results/webkb grid.
for topic in course faculty; do
	run "$topic-link+backlinks" --topic "$topic" --strategy link+backlinks --budget 1000
	run "$topic-link+backlinks-k2000-n20" --topic "$topic" --strategy link+backlinks --budget 1000 --k 2000 --window 20
done
run "course+faculty-link+backlinks-k2000-n20" --topic course,faculty --strategy link+backlinks --budget 2000 --k 2000 --window 20
# The ceiling of link scoring: links scored by their target's label.
for topic in course faculty; do
	run "$topic-oracle" --topic "$topic" --strategy link --budget 1000 --oracle
	run "$topic-oracle-tunnel" --topic "$topic" --strategy link --budget 1000 --oracle --tunnel
done
# What knowing every hub (a page that links to a page of the topic) is
# worth: links to hubs score 1, with the model's scores for the rest, and
# with the oracle's.
for topic in course faculty; do
	run "$topic-hub-oracle-tunnel-sections-promote" --topic "$topic" --strategy link --budget 1000 --tunnel --sections --promote --hub-oracle
	run "$topic-oracles-tunnel" --topic "$topic" --strategy link --budget 1000 --tunnel --oracle --hub-oracle
done
run "course-oracles-best-first-tunnel" --topic course --strategy link --budget 1000 --tunnel --oracle --hub-oracle --frontier best-first
# Tunnelling with promotion: a page's reserve links move to the stack once
# most pages fetched through its links are on-topic (--promote).
promoted() {
	for topic in course faculty; do
		run "$topic-link-tunnel-promote" --topic "$topic" --strategy link --budget 1000 --tunnel --promote
		run "$topic-link+backlinks-tunnel-promote" --topic "$topic" --strategy link+backlinks --budget 1000 --tunnel --promote
	done
	run "course+faculty-link+backlinks-tunnel-promote" --topic course,faculty --strategy link+backlinks --budget 2000 --tunnel --promote
}
promoted
# Compound documents: an on-topic directory index page's own pages (the
# course's homework and notes) wait until the reserve is spent
# (--sections).
for topic in course faculty; do
	run "$topic-link-tunnel-sections" --topic "$topic" --strategy link --budget 1000 --tunnel --sections
	run "$topic-link-tunnel-sections-promote" --topic "$topic" --strategy link --budget 1000 --tunnel --sections --promote
	run "$topic-link+backlinks-tunnel-sections-promote" --topic "$topic" --strategy link+backlinks --budget 1000 --tunnel --sections --promote
	run "$topic-link-sections" --topic "$topic" --strategy link --budget 1000 --sections
	run "$topic-oracle-tunnel-sections" --topic "$topic" --strategy link --budget 1000 --oracle --tunnel --sections
done
# How many pages of these crawls lie inside the course pages found before
# them (what --sections keeps off the stack).
for name in course-link-tunnel course-link-tunnel-sections course-link-tunnel-promote course-link-tunnel-sections-promote; do
	printf '%s: ' "$name"
	awk -v topic=course -f results/crawl/inside.awk "out/crawl/$name/labels.tsv" "out/crawl/$name/pages.jsonl"
done > results/crawl/inside-course.txt
# Twice the budget for one topic.
run "course-link-tunnel-sections-promote-2000" --topic course --strategy link --budget 2000 --tunnel --sections --promote
# What the course crawls missed and what stood before it: how deep the
# missed pages are, whether a fetched page linked to them, and the
# unfetched pages that link to the most of the others (counts and labels
# only).
for name in course-bfs course-link-tunnel-sections-promote course-link-tunnel-sections-promote-2000 \
	course-hub-oracle-tunnel-sections-promote course-oracles-tunnel; do
	printf '== %s\n' "$name"
	out/scent layout "$archive" --topic course --db "out/crawl/$name/scent.db" | sed -n '/^the crawl fetched/,$p'
done > results/crawl/missed-course.txt
run "course+faculty-link-tunnel-sections-promote" --topic course,faculty --strategy link --budget 2000 --tunnel --sections --promote
run "course+faculty-link+backlinks-tunnel-sections-promote" --topic course,faculty --strategy link+backlinks --budget 2000 --tunnel --sections --promote
# The model's options, one at a time, with tunnelling.
for topic in course faculty; do
	run "$topic-tunnel-k300" --topic "$topic" --strategy link --budget 1000 --tunnel --k 300
	run "$topic-tunnel-k3000" --topic "$topic" --strategy link --budget 1000 --tunnel --k 3000
	run "$topic-tunnel-window5" --topic "$topic" --strategy link --budget 1000 --tunnel --window 5
	run "$topic-tunnel-window20" --topic "$topic" --strategy link --budget 1000 --tunnel --window 20
	run "$topic-tunnel-threshold0.5" --topic "$topic" --strategy link --budget 1000 --tunnel --threshold 0.5
	run "$topic-tunnel-threshold0.9" --topic "$topic" --strategy link --budget 1000 --tunnel --threshold 0.9
	run "$topic-tunnel-windows+links" --topic "$topic" --strategy link --budget 1000 --tunnel --documents windows+links
	run "$topic-tunnel-url-tokens" --topic "$topic" --strategy link --budget 1000 --tunnel --url-tokens
	run "$topic-link-pages" --topic "$topic" --strategy link --budget 1000 --documents pages
done
# Speed: the whole reachable set (no budget), through the replay proxy.
# Peak RSS of the whole process goes to peak-rss.txt.
: > results/crawl/peak-rss.txt
for s in bfs link; do
	TIMED="/usr/bin/time -a -o results/crawl/peak-rss.txt -f speed-$s:%MKB" run "speed-$s" --topic course --strategy "$s" --budget 0
done
# Side-by-side charts of the strategies, per topic. Each crawl is scored on
# its own held-out targets (the trained.txt beside its database), beside the
# breadth-first crawl of the same budget.
for topic in course faculty; do
	dbs=""
	for s in bfs page link link-tunnel link+backlinks link-tunnel-sections-promote; do
		dbs="$dbs --db out/crawl/$topic-$s/scent.db --crawl experiment"
	done
	out/scent report $dbs --labels "out/crawl/$topic-bfs/labels.tsv" --targets all-labels \
		--bfs "out/crawl/$topic-bfs/scent.db" --topics "$topic" --format html -o "results/crawl/$topic.html"
	out/scent report $dbs --labels "out/crawl/$topic-bfs/labels.tsv" --targets all-labels \
		--bfs "out/crawl/$topic-bfs/scent.db" --topics "$topic" --format csv -o "results/crawl/$topic.csv"
done
