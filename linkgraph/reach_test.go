package linkgraph_test

import (
	"slices"
	"testing"

	"github.com/scent-crawler/scent/linkgraph"
	"github.com/scent-crawler/scent/replay"
	"github.com/scent-crawler/scent/urlnorm"
	"github.com/scent-crawler/scent/webkb"
)

func TestBFS(t *testing.T) {
	a := openSite(t)
	seeds, err := webkb.SiteSeeds(a)
	if err != nil {
		t.Fatal(err)
	}
	pageURLs := func(ps []*replay.Page) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.URL.String())
		}
		return out
	}
	parsed := []string{
		"http://a.test/", "http://b.test/", "http://c.test/", "http://d.test/",
		"http://a.test/people/index.html", "http://a.test/notes.txt", "http://a.test/people/bob.html",
		"http://a.test/courses/", "http://a.test/courses/cs1/",
	}
	if got := pageURLs(linkgraph.BFS(a, seeds, nil)); !slices.Equal(got, parsed) {
		t.Errorf("BFS(Links) = %q\nwant %q", got, parsed)
	}
	raw := slices.Insert(slices.Clone(parsed), 5, "http://a.test/hidden.html")
	if got := pageURLs(linkgraph.BFS(a, seeds, (*replay.Page).RawLinks)); !slices.Equal(got, raw) {
		t.Errorf("BFS(RawLinks) = %q\nwant %q", got, raw)
	}
	reach := linkgraph.Reachable(a, seeds)
	if len(reach) != len(parsed) {
		t.Errorf("Reachable has %d URLs, want %d", len(reach), len(parsed))
	}
	for _, u := range parsed {
		if !reach[urlnorm.MustParse(u)] {
			t.Errorf("Reachable lacks %s", u)
		}
	}
	if reach[urlnorm.MustParse("http://a.test/moved")] {
		t.Error("Reachable counts a stored redirect")
	}
	if got := linkgraph.BFS(a, nil, nil); len(got) != 0 {
		t.Errorf("BFS(nil) = %d pages", len(got))
	}
}

func TestCorpus_Reachable(t *testing.T) {
	a := openCorpus(t)
	seeds, err := webkb.SiteSeeds(a)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"www.cs.cornell.edu", "www.cs.utexas.edu", "www.cs.washington.edu", "www.cs.wisc.edu"}
	for i, s := range seeds {
		if s.Host() != want[i] || s.Path() != "/" {
			t.Errorf("seed %d = %s, want the home page of %s", i, s, want[i])
		}
	}

	total := map[string]int{}
	for _, l := range a.Labels() {
		total[l.Label]++
	}
	for _, ex := range []struct {
		name  string
		links func(*replay.Page) []urlnorm.URL
	}{{"parser links", nil}, {"raw links", (*replay.Page).RawLinks}} {
		order := linkgraph.BFS(a, seeds, ex.links)
		per := map[string]int{}
		first := map[string]int{}
		for i, p := range order {
			per[p.Label]++
			if i < 1000 {
				first[p.Label]++
			}
		}
		t.Logf("%s: %d pages reachable from the department pages", ex.name, len(order))
		for _, l := range webkb.Labels {
			t.Logf("%s: %-10s reachable %4d of %4d; in the first 1000 BFS fetches %4d (%.0f%% of reachable)",
				ex.name, l, per[l], total[l], first[l], 100*float64(first[l])/float64(max(per[l], 1)))
		}
		// README: within its first 1,000 fetches a BFS reaches about half
		// of the reachable course pages and a fifth of the faculty pages.
		if f := float64(first["course"]) / float64(per["course"]); f < 0.4 || f > 0.6 {
			t.Errorf("%s: %.2f of the reachable course pages in the first 1000, want about half", ex.name, f)
		}
		if f := float64(first["faculty"]) / float64(per["faculty"]); f < 0.15 || f > 0.25 {
			t.Errorf("%s: %.2f of the reachable faculty pages in the first 1000, want about a fifth", ex.name, f)
		}
		if len(order) < 4300 || len(order) > 4900 {
			t.Errorf("%s: %d pages reachable, want about 4,500–4,700", ex.name, len(order))
		}
	}
	reach := linkgraph.Reachable(a, seeds)
	if n := len(linkgraph.BFS(a, seeds, nil)); len(reach) != n {
		t.Errorf("Reachable has %d URLs, BFS %d pages", len(reach), n)
	}
}
