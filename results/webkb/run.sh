#!/bin/sh
# Reproduces results/webkb (and results/webkb-tunnel, results/webkb-sections)
# from the repository root, with the corpus at ../shared/corpus/webkb.tgz.
set -e
go build -o /tmp/scent ./cmd/scent
grid() {
	out=$1
	shift
	/usr/bin/time -f "%e s wall, %M KB peak RSS" /tmp/scent experiment ../shared/corpus/webkb.tgz --out "$out" \
		--topic course --topic faculty \
		--strategy bfs,page,link,link+backlinks --frontier stack,best-first \
		--k 50,100,200,500,1000,2000,5000 --window 5,10,20 --budget 1000 --preset paper "$@"
}
grid results/webkb
grid results/webkb-tunnel --tunnel
grid results/webkb-sections --tunnel --sections --promote
