#!/usr/bin/env bash
# Reproduces results/learn: the default crawler (the link learner) and the
# paper's crawler (--preset paper) on WebKB, scored on held-out targets,
# for the two topics its settings were chosen on (course, faculty) and
# three that nobody chose them for (student, project, staff). Run from the
# repository root:
#
#     bash results/learn/run.sh [../shared/corpus/webkb.tgz]
#
# Each experiment writes its full output under out/learn/NAME; the report
# and the exact command are copied into results/learn/NAME, and the
# headline line of each run into results/learn/summary.txt.
set -euo pipefail
archive=${1:-../shared/corpus/webkb.tgz}
go build -o out/scent ./cmd/scent
: > results/learn/summary.txt
run() {
	name=$1; shift
	out/scent experiment "$archive" --out "out/learn/$name" --budget 2000 "$@" |
		sed "s/^/$name: /" | tee -a results/learn/summary.txt
	mkdir -p "results/learn/$name"
	cp "out/learn/$name/report.json" "out/learn/$name/report.md" "out/learn/$name/command" "results/learn/$name/"
}
for topic in course faculty student project staff; do
	run "$topic-default" --topic "$topic"
	run "$topic-paper" --topic "$topic" --preset paper
done
run "course+faculty-default" --topic course,faculty
