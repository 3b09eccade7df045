package webkb

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/scent-crawler/scent/internal/collectiontest"
	"github.com/scent-crawler/scent/replay"
	"github.com/scent-crawler/scent/urlnorm"
)

// openSite opens collectiontest's site with the WebKB options.
func openSite(t *testing.T) *replay.Archive {
	t.Helper()
	a, err := Open(collectiontest.WriteSiteDir(t))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func urlStrings(us []urlnorm.URL) []string {
	out := make([]string, 0, len(us))
	for _, u := range us {
		out = append(out, u.String())
	}
	return out
}

func TestDepartmentSeeds(t *testing.T) {
	got, err := DepartmentSeeds(openSite(t))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"http://a.test/", "http://b.test/", "http://c.test/", "http://d.test/"}
	if !slices.Equal(urlStrings(got), want) {
		t.Errorf("DepartmentSeeds = %q, want %q", urlStrings(got), want)
	}

	dir := t.TempDir()
	for _, name := range []string{"department/cornell/http:^^a.test^", "department/misc/http:^^w.test^"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("<html></html>"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if seeds, err := DepartmentSeeds(a); !errors.Is(err, ErrNoSeed) || seeds != nil {
		t.Errorf("DepartmentSeeds without texas = %v, %v; want ErrNoSeed", seeds, err)
	}
}
