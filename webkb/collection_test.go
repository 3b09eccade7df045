package webkb

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/internal/collectiontest"
	"github.com/scent-crawler/scent/internal/sharedtest"
	"github.com/scent-crawler/scent/replay"
	"github.com/scent-crawler/scent/urlnorm"
)

// openDir opens the collection in dir with the WebKB options.
func openDir(t *testing.T, dir string) *replay.Archive {
	t.Helper()
	a, err := Open(dir)
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

func TestSiteSeeds(t *testing.T) {
	got, err := SiteSeeds(openDir(t, collectiontest.WriteSiteDir(t)))
	if err != nil {
		t.Fatal(err)
	}
	// The four department sites; misc's pages lie on several hosts, and
	// the one home page among them (m.test:8080) holds one of them.
	want := []string{"http://a.test/", "http://b.test/", "http://c.test/", "http://d.test/"}
	if !slices.Equal(urlStrings(got), want) {
		t.Errorf("SiteSeeds = %q, want %q", urlStrings(got), want)
	}
}

// writeCollection writes files (name in the stored layout → body) as a
// folder and opens it with no WebKB option: labels and groups by name.
func writeCollection(t *testing.T, files map[string]string) *replay.Archive {
	t.Helper()
	a, err := replay.Open(collectiontest.WritePages(t, files), replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// SiteSeeds knows no collection's names: a group is a site by where its
// pages lie.
func TestSiteSeeds_anyCollection(t *testing.T) {
	a := writeCollection(t, map[string]string{
		// north: all on n.test, with its home page.
		"shop/north/http:^^n.test^":         "home",
		"recipe/north/http:^^n.test^a.html": "a",
		"recipe/north/http:^^n.test^b.html": "b",
		"other/north/http:^^x.test^":        "a page elsewhere",
		// south: three of four pages on s.test, whose home page is
		// labelled "other"; t.test's home page holds only one.
		"other/south/http:^^s.test^":        "home",
		"recipe/south/http:^^s.test^c.html": "c",
		"review/south/http:^^s.test^d.html": "d",
		"other/south/http:^^t.test^":        "t home",
		// web: one page per host, home pages among them.
		"recipe/web/http:^^u.test^":      "u",
		"recipe/web/http:^^v.test^":      "v",
		"other/web/http:^^w.test^z.html": "z",
		// east: most of its pages on e.test, which has no home page.
		"recipe/east/http:^^e.test^1.html": "1",
		"recipe/east/http:^^e.test^2.html": "2",
		"other/east/http:^^f.test^":        "f home",
	})
	got, err := SiteSeeds(a)
	if err != nil {
		t.Fatal(err)
	}
	// web: u.test holds one page of three (ties go to the first by name);
	// east: f.test holds one of three.
	want := []string{"http://n.test/", "http://s.test/"}
	if !slices.Equal(urlStrings(got), want) {
		t.Errorf("SiteSeeds = %q, want %q", urlStrings(got), want)
	}

	none := writeCollection(t, map[string]string{
		"recipe/web/http:^^u.test^a.html": "a",
		"other/web/http:^^v.test^":        "v",
		"other/web/http:^^w.test^":        "w",
	})
	if seeds, err := SiteSeeds(none); !errors.Is(err, ErrNoSeed) || seeds != nil {
		t.Errorf("SiteSeeds of a collection without a site = %v, %v; want ErrNoSeed", seeds, err)
	}
}

// Group's default is the one group that is not a site, whatever its
// name; a group given is checked; with no such group, or several, the
// error names the groups.
func TestGroup(t *testing.T) {
	a := openDir(t, collectiontest.Write(t))
	if g, err := Group(a, ""); err != nil || g != "misc" {
		t.Errorf(`Group(WebKB's layout, "") = %q, %v; want misc, the group that is not a site`, g, err)
	}
	if g, err := Group(a, "texas"); err != nil || g != "texas" {
		t.Errorf("Group(texas) = %q, %v; want texas", g, err)
	}
	if _, err := Group(a, "pool"); err == nil || !strings.Contains(err.Error(), `no group "pool"`) {
		t.Errorf("Group(pool) = %v; want no group pool", err)
	}
	if g, err := Group(openDir(t, collectiontest.WriteOther(t)), ""); err != nil || g != "pool" {
		t.Errorf(`Group(another collection, "") = %q, %v; want pool`, g, err)
	}

	sites := writeCollection(t, map[string]string{
		"recipe/north/http:^^n.test^":      "n",
		"recipe/south/http:^^s.test^":      "s",
		"other/south/http:^^s.test^a.html": "a",
	})
	if _, err := Group(sites, ""); err == nil || !strings.Contains(err.Error(), "--group") || !strings.Contains(err.Error(), "north, south") || !strings.Contains(err.Error(), "every group is a site") {
		t.Errorf(`Group("") with every group a site = %v; want --group and the groups`, err)
	}
	two := writeCollection(t, map[string]string{
		"recipe/north/http:^^n.test^":  "n",
		"recipe/web/http:^^u.test^a":   "u",
		"other/web/http:^^v.test^b":    "v",
		"recipe/pool/http:^^w.test^c":  "w",
		"review/pool/http:^^x.test^d":  "x",
		"other/north/http:^^n.test^a/": "a",
	})
	if _, err := Group(two, ""); err == nil || !strings.Contains(err.Error(), "several groups are not sites (pool, web)") {
		t.Errorf(`Group("") with two groups that are not sites = %v; want them named`, err)
	}
}

// On the real collection the sites are the four department groups and
// their seeds the department home pages (the corpus's own account of its
// natural seeds): per group, the page labelled department with the
// shortest URL.
func TestSiteSeeds_corpus(t *testing.T) {
	p := sharedtest.Locate("corpus/webkb.tgz")
	if p == "" {
		t.Skip("corpus ../shared/corpus/webkb.tgz beside the module root is absent")
	}
	if testing.Short() {
		t.Skip("corpus test skipped in -short mode")
	}
	a, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := SiteSeeds(a)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, g := range []string{"cornell", "texas", "washington", "wisconsin"} {
		best := ""
		for _, l := range a.Labels() {
			s := l.URL.String()
			if l.Label == "department" && l.Group == g && (best == "" || len(s) < len(best) || len(s) == len(best) && s < best) {
				best = s
			}
		}
		want = append(want, best)
	}
	if !slices.Equal(urlStrings(got), want) {
		t.Errorf("SiteSeeds = %q, want the department home pages %q", urlStrings(got), want)
	}
}
