# Sourced by the scripts of results/ that crawl a replay:
#
#     start_replay NAME HINT SCENT ARCHIVE PORT OUT [REPLAY FLAGS…]
#
# starts SCENT replay ARCHIVE on 127.0.0.1:PORT in the background (its
# log and pid file in OUT), stops it when the script exits, and stops the
# script, printing "NAME: … (HINT)" and the log, unless this replay is the
# one listening: another program on the port would answer every request
# instead, and not the same way.
start_replay() {
	local name=$1 hint=$2 scent=$3 archive=$4 port=$5 out=$6
	shift 6
	rm -f "$out/replay.pid"
	"$scent" replay "$archive" --listen "127.0.0.1:$port" --pid-file "$out/replay.pid" "$@" >"$out/replay.log" 2>&1 &
	replay=$!
	trap "kill $replay 2>/dev/null || true" EXIT
	for _ in $(seq 100); do
		[ -s "$out/replay.pid" ] && break
		kill -0 "$replay" 2>/dev/null || break
		sleep 0.2
	done
	if ! kill -0 "$replay" 2>/dev/null || [ "$(cat "$out/replay.pid" 2>/dev/null)" != "$replay" ]; then
		echo "$name: the replay did not start on 127.0.0.1:$port ($hint):" >&2
		cat "$out/replay.log" >&2
		exit 1
	fi
}
