#!/usr/bin/env bash
# Kill -9 at several points of a bfs crawl of the whole WebKB replay, then
# resume it, and compare the fetched URLs with an uninterrupted crawl's.
# Run from the repository root after results/bench/run.sh (it reuses its
# seeds and model in out/bench):
#
#     bash results/bench/killresume.sh [ARCHIVE] [PAGES…]
#
# PAGES are the stored fetches at which each crawl is killed (default
# 3000 12000 30000). It prints, per kill point, the fetches before the
# kill, the resumed run's summary and whether the set of fetched URLs is
# the uninterrupted crawl's; it exits 1 on a difference.
set -euo pipefail
archive=${1:-../shared/corpus/webkb.tgz}
shift || true
points=${*:-3000 12000 30000}
port=${BENCH_PORT:-18458}
out=out/bench
go build -o "$out/scent" ./cmd/scent
rm -f "$out/kr-replay.pid"
"$out/scent" replay "$archive" --listen "127.0.0.1:$port" --pid-file "$out/kr-replay.pid" >"$out/kr-replay.log" 2>&1 &
replay=$!
trap 'kill $replay 2>/dev/null || true' EXIT
for _ in $(seq 100); do
	[ -s "$out/kr-replay.pid" ] && break
	sleep 0.2
done
if ! kill -0 $replay 2>/dev/null || [ "$(cat "$out/kr-replay.pid" 2>/dev/null)" != "$replay" ]; then
	echo "killresume: the replay did not start on 127.0.0.1:$port (set BENCH_PORT)" >&2
	exit 1
fi
flags=(--seeds "$out/seeds.txt" --model "$out/model.json" --strategy bfs --proxy "http://127.0.0.1:$port"
	--ignore-robots --delay 0 --host-parallelism 0 --workers 16 --max-pages 0 --quiet)
crawl() { "$out/scent" crawl --db "$1" "${flags[@]}"; }
fetched() { sqlite3 "$1" "SELECT COUNT(*) FROM pages" 2>/dev/null || echo 0; }
rm -f "$out"/kr-full.db*
crawl "$out/kr-full.db" >/dev/null 2>&1
sqlite3 "$out/kr-full.db" "SELECT u.url FROM pages p JOIN urls u ON u.id = p.url_id ORDER BY u.url" >"$out/kr-full.txt"
status=0
for k in $points; do
	db="$out/kr-$k.db"
	rm -f "$db"*
	# The binary itself in the background, so that $! is its process.
	"$out/scent" crawl --db "$db" "${flags[@]}" >/dev/null 2>&1 &
	pid=$!
	while [ "$(fetched "$db")" -lt "$k" ] && kill -0 $pid 2>/dev/null; do
		sleep 0.2
	done
	kill -9 $pid 2>/dev/null || true
	wait $pid 2>/dev/null || true
	echo "killed at $(fetched "$db") fetches"
	crawl "$db" 2>&1 | tail -1
	sqlite3 "$db" "SELECT u.url FROM pages p JOIN urls u ON u.id = p.url_id ORDER BY u.url" >"$out/kr-$k.txt"
	if cmp -s "$out/kr-$k.txt" "$out/kr-full.txt"; then
		echo "same $(wc -l <"$out/kr-full.txt") URLs as the uninterrupted crawl"
	else
		echo "DIFFERENT from the uninterrupted crawl"
		status=1
	fi
done
exit $status
