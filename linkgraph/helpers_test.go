package linkgraph_test

import (
	"sync"
	"testing"

	"github.com/scent-crawler/scent/internal/collectiontest"
	"github.com/scent-crawler/scent/internal/sharedtest"
	"github.com/scent-crawler/scent/replay"
	"github.com/scent-crawler/scent/webkb"
)

// openSite opens collectiontest's site from a folder, with WebKB's label
// and group precedence (the site uses WebKB's labels and groups).
func openSite(t testing.TB) *replay.Archive {
	t.Helper()
	a, err := webkb.Open(collectiontest.WriteSiteDir(t))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

var corpus struct {
	once sync.Once
	a    *replay.Archive
	err  error
}

// openCorpus loads the real collection once per test binary, or skips
// (also in -short mode: loading and walking 8,282 pages takes seconds).
func openCorpus(t testing.TB) *replay.Archive {
	t.Helper()
	p := sharedtest.Locate("corpus/webkb.tgz")
	if p == "" {
		t.Skip("corpus ../shared/corpus/webkb.tgz beside the module root is absent")
	}
	if testing.Short() {
		t.Skip("corpus test skipped in -short mode")
	}
	corpus.once.Do(func() { corpus.a, corpus.err = webkb.Open(p) })
	if corpus.err != nil {
		t.Fatal(corpus.err)
	}
	return corpus.a
}
