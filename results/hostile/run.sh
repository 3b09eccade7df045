#!/usr/bin/env bash
# What one hostile page costs a crawl. Run from the repository root:
#
#     bash results/hostile/run.sh
#
# results/hostile/server serves, on loopback (port $HOSTILE_PORT, default
# 18777), pages a hostile or broken server could send (its doc.go lists
# them) beside a few small pages about web crawling, the examples of the
# seed file written to out/hostile/seeds.txt. For each page the script
# runs one default crawl of a new database from that page alone, one page
# long (scent crawl --max-pages 1), under /usr/bin/time (peak RSS), and
# reads the page back (scent export): its size and its failure, if any;
# then a crawl of 16 workers through 32 pages of 9 MB (/large). The
# table goes to results/hostile/README.md. HOSTILE_SCENT=BINARY
# measures that scent binary instead of a build of this tree.
set -euo pipefail
port=${HOSTILE_PORT:-18777}
out=out/hostile
mkdir -p "$out"
scent=${HOSTILE_SCENT:-}
if [ -z "$scent" ]; then
	go build -o "$out/scent" ./cmd/scent
	scent=$out/scent
fi
go build -o "$out/server" ./results/hostile/server
if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
	echo "port $port is taken: set HOSTILE_PORT" >&2
	exit 1
fi
"$out/server" --listen "127.0.0.1:$port" 2>"$out/server.log" &
server=$!
trap 'kill $server 2>/dev/null' EXIT
for _ in $(seq 50); do
	(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
	sleep 0.2
done
base=http://127.0.0.1:$port
{
	for i in 0 1 2 3 4 5; do echo "crawling $base/c$i"; done
	for i in 0 1 2 3 4 5; do echo "other $base/o$i"; done
} >"$out/examples.txt"
rows=""
for page in small giantword manywords manylinks nested attrs comment script longurl gzipbomb bigheader; do
	{ echo "seed $base/$page"; cat "$out/examples.txt"; } >"$out/seeds.txt"
	rm -f "$out/$page.db" "$out/$page.db"-* "$out/$page.db".*
	/usr/bin/time -f %M -o "$out/$page.rss" "$scent" crawl --seeds "$out/seeds.txt" --db "$out/$page.db" \
		--max-pages 1 --delay 0 --host-parallelism 0 >"$out/$page.log" 2>&1
	line=$("$scent" export --db "$out/$page.db" --format jsonl | head -1)
	size=$(grep -o '"size":[0-9]*' <<<"$line" | cut -d: -f2 || true)
	failure=$(sed -n 's/.*"failure":"\(\([^"\\]\|\\.\)*\)".*/\1/p' <<<"$line" | sed 's/\\"//g' | cut -c1-70)
	rss=$(($(tail -1 "$out/$page.rss") / 1024))
	rows+="| /$page | ${size:-0} | ${failure:-–} | $rss |"$'\n'
	echo "/$page: ${size:-0} bytes, ${failure:-stored}, peak RSS $rss MB"
done
# Many large pages at once: /large links to 48 pages of 9 MB; a crawl of
# 16 workers fetches and reads 16 of them at a time.
{ echo "seed $base/large"; cat "$out/examples.txt"; } >"$out/seeds.txt"
rm -f "$out/large.db" "$out/large.db"-* "$out/large.db".*
/usr/bin/time -f %M -o "$out/large.rss" "$scent" crawl --seeds "$out/seeds.txt" --db "$out/large.db" \
	--max-pages 33 --workers 16 --delay 0 --host-parallelism 0 >"$out/large.log" 2>&1
large=$("$scent" export --db "$out/large.db" --format jsonl | grep -c '"size":9[0-9]\{6\}[,}]' || true)
large_rss=$(($(tail -1 "$out/large.rss") / 1024))
echo "/large: $large pages of 9 MB stored by 16 workers, peak RSS $large_rss MB"
cat >results/hostile/README.md <<END
# One hostile page

\`bash results/hostile/run.sh\` crawls each page of
\`results/hostile/server\` alone (\`scent crawl --max-pages 1\`, the
default settings, training included) and measures the process's peak
RSS; \`/small\` is the baseline. Size is the body stored (0 for a page
that failed).

| page | size (bytes) | failure | peak RSS (MB) |
| --- | ---: | --- | ---: |
$rows
Many at once: a default crawl of 16 workers from \`/large\`, which links
to 48 pages of 9 MB of ordinary paragraphs (\`--max-pages 33 --workers
16\`), stored $large of them and peaked at $large_rss MB.
END
