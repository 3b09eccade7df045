package sharedtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Locate returns the path of rel (e.g. "corpus/webkb.tgz") inside the
// shared folder beside the module root, or "" when it is absent.
func Locate(rel string) string {
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
	p := filepath.Join(dir, "..", "shared", rel)
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// Path is Locate for tests: it skips t, saying why, when rel is absent.
func Path(t testing.TB, rel string) string {
	t.Helper()
	p := Locate(rel)
	if p == "" {
		t.Skipf("../shared/%s beside the module root is absent: skipping", rel)
	}
	return p
}
