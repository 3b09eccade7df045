package replay

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

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
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	p := filepath.Join(dir, "..", "shared", "corpus", "webkb.tgz")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

var corpus struct {
	once sync.Once
	a    *Archive
	err  error
}

// openCorpus loads the real collection once per test binary, or skips.
func openCorpus(t testing.TB) *Archive {
	t.Helper()
	p := corpusPath()
	if p == "" {
		t.Skip("corpus ../shared/corpus/webkb.tgz beside the module root is absent")
	}
	corpus.once.Do(func() { corpus.a, corpus.err = Open(p) })
	if corpus.err != nil {
		t.Fatal(corpus.err)
	}
	return corpus.a
}
