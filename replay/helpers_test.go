package replay

import (
	"sync"
	"testing"

	"github.com/scent-crawler/scent/internal/sharedtest"

	"github.com/scent-crawler/scent/urlnorm"
)

func mustParse(t testing.TB, raw string) urlnorm.URL {
	t.Helper()
	u, err := urlnorm.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// corpusPath returns ../shared/corpus/webkb.tgz beside the module root, or
// "" when it is absent.
func corpusPath() string {
	return sharedtest.Locate("corpus/webkb.tgz")
}

var corpus struct {
	once sync.Once
	a    *Archive
	err  error
}

// openCorpus loads the real collection once per test binary, or skips
// (also in -short mode: loading and walking 8,282 pages takes seconds).
func openCorpus(t testing.TB) *Archive {
	t.Helper()
	p := corpusPath()
	if p == "" {
		t.Skip("corpus ../shared/corpus/webkb.tgz beside the module root is absent")
	}
	if testing.Short() {
		t.Skip("corpus test skipped in -short mode")
	}
	corpus.once.Do(func() { corpus.a, corpus.err = Open(p, testOptions) })
	if corpus.err != nil {
		t.Fatal(corpus.err)
	}
	return corpus.a
}
