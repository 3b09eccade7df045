package experiment

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/replay"
	"github.com/scent-crawler/scent/urlnorm"
	"github.com/scent-crawler/scent/webkb"
)

// loopbackLog, when not nil, gets a line per request the replay answers
// (replay.ServeOptions.Log); tests count requests with it.
var loopbackLog io.Writer

// serve serves o's collection on loopback until stop is called
// (replayOnLoopback), settles the group and negatives o leaves to the
// collection (resolve) and parses o's start URLs (nil: the collection's
// sites).
func (o *Spec) serve(ctx context.Context, progress io.Writer) (a *replay.Archive, fc fetch.Config, starts []urlnorm.URL, stop func(), err error) {
	a, fc, stop, err = replayOnLoopback(ctx, o.Archive)
	if err != nil {
		return nil, fc, nil, nil, err
	}
	if err = o.resolve(a, progress); err == nil {
		starts, err = ParseSeeds(o.Seeds)
	}
	if err != nil {
		stop()
		return nil, fc, nil, nil, err
	}
	return a, fc, starts, stop, nil
}

// replayOnLoopback serves the collection at path on a free loopback port
// until stop is called, and returns the fetch settings of an experiment
// through it: the replay as proxy, politeness off.
func replayOnLoopback(ctx context.Context, path string) (a *replay.Archive, fc fetch.Config, stop func(), err error) {
	a, err = webkb.Open(path)
	if err != nil {
		return nil, fc, nil, err
	}
	sctx, cancel := context.WithCancel(ctx)
	srv, err := replay.ServeWith(sctx, a, "127.0.0.1:0", replay.ServeOptions{Log: loopbackLog})
	if err != nil {
		cancel()
		return nil, fc, nil, err
	}
	fc = fetch.Config{Proxy: "http://" + srv.Addr(), UserAgent: fetch.DefaultUserAgent, Timeout: 20 * time.Second,
		MaxBodyBytes: 10 << 20, Retries: 2, ContentTypes: []string{"text/html", "application/xhtml+xml"},
		Logf: func(format string, args ...any) { fmt.Fprintf(os.Stderr, "\n"+format+"\n", args...) }}
	return a, fc, cancel, nil
}
