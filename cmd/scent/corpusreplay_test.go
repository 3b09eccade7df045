package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/internal/sharedtest"
	"github.com/scent-crawler/scent/replay"
	"github.com/scent-crawler/scent/webkb"
)

// courseReplay serves the real corpus on loopback until the test ends,
// logging every request, and writes the course seed file (scent seeds)
// into a folder of the test; it returns the replay's address, the seed
// file and the log. Corpus tests skip when ../shared or -short says so.
func courseReplay(t *testing.T) (addr, seeds string, log *syncBuffer) {
	t.Helper()
	archive := sharedtest.Path(t, "corpus/webkb.tgz")
	if testing.Short() {
		t.Skip("corpus test skipped in -short mode")
	}
	a, err := webkb.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	log = new(syncBuffer)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	srv, err := replay.ServeWith(ctx, a, "127.0.0.1:0", replay.ServeOptions{Log: log})
	if err != nil {
		t.Fatal(err)
	}
	seeds = filepath.Join(t.TempDir(), "course.txt")
	if _, err := runScent(t, "seeds", archive, "--topic", "course", "-o", seeds); err != nil {
		t.Fatal(err)
	}
	return srv.Addr(), seeds, log
}

// askedCounts counts the requests of each URL in a replay's log.
func askedCounts(log string) map[string]int {
	asked := make(map[string]int)
	for _, line := range strings.Split(log, "\n") {
		if f := strings.Fields(line); len(f) >= 2 {
			asked[f[1]]++
		}
	}
	return asked
}
