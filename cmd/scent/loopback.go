package main

import (
	"context"
	"strings"
	"time"

	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/replay"
)

// shellJoin quotes args for a POSIX shell.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if i == 0 {
			a = "scent"
		}
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
		}) < 0 {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

// replayOnLoopback serves the collection at path on a free loopback port
// until stop is called, and returns the fetch settings of an experiment
// through it: the replay as proxy, politeness off.
func replayOnLoopback(ctx context.Context, path string) (a *replay.Archive, ff fetchFlags, stop func(), err error) {
	a, err = replay.Open(path)
	if err != nil {
		return nil, ff, nil, err
	}
	sctx, cancel := context.WithCancel(ctx)
	srv, err := replay.Serve(sctx, a, "127.0.0.1:0")
	if err != nil {
		cancel()
		return nil, ff, nil, err
	}
	ff = fetchFlags{proxy: "http://" + srv.Addr(), userAgent: fetch.DefaultUserAgent, timeout: 20 * time.Second,
		maxBody: 10 << 20, retries: 2, types: []string{"text/html", "application/xhtml+xml"}}
	return a, ff, cancel, nil
}
