package linkgraph_test

import (
	"slices"
	"testing"

	"github.com/scent-crawler/scent/linkgraph"
	"github.com/scent-crawler/scent/urlnorm"
	"github.com/scent-crawler/scent/webkb"
)

func mustURLs(t *testing.T, raw ...string) []urlnorm.URL {
	t.Helper()
	var out []urlnorm.URL
	for _, s := range raw {
		u, err := urlnorm.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, u)
	}
	return out
}

func TestMissedBy(t *testing.T) {
	a := openSite(t)
	seeds, err := webkb.SiteSeeds(a)
	if err != nil {
		t.Fatal(err)
	}
	// Only the seeds: /courses/ is linked from the department page, cs1
	// only from /courses/ and from Bob's page (linked from /people/),
	// neither fetched. The page outside the seeds' reach and the URL
	// outside the collection do not count.
	fetched := append(slices.Clone(seeds), mustURLs(t, "http://m.test/~y", "http://nowhere.test/")...)
	m := linkgraph.MissedBy(a, seeds, "course", fetched)
	if m.Fetched != 4 || m.Found != 0 || m.Missed != 2 || m.Linked != 1 {
		t.Fatalf("seeds only: fetched %d, found %d, missed %d, linked %d; want 4, 0, 2, 1", m.Fetched, m.Found, m.Missed, m.Linked)
	}
	if !slices.Equal(m.Depth, []int{0, 1, 1}) {
		t.Errorf("depth of the missed = %v, want [0 1 1]", m.Depth)
	}
	if want := []linkgraph.GroupFound{{Group: "cornell", Pages: 2}}; !slices.Equal(m.Groups, want) {
		t.Errorf("groups = %+v, want %+v", m.Groups, want)
	}
	want := []linkgraph.Behind{
		{URL: "http://a.test/courses/", Label: "course", Depth: 1, Parents: 1, Hidden: 1},
		{URL: "http://a.test/people/bob.html", Label: "student", Depth: 2, Parents: 0, Hidden: 1},
	}
	if !slices.Equal(m.Behind, want) || !slices.Equal(m.BehindTop, []int{1, 1}) {
		t.Errorf("behind = %+v, top %v; want %+v, [1 1]", m.Behind, m.BehindTop, want)
	}

	// With /courses/: cs1 is missed but linked.
	m = linkgraph.MissedBy(a, seeds, "course", append(slices.Clone(seeds), mustURLs(t, "http://a.test/courses/")...))
	if m.Found != 1 || m.Missed != 1 || m.Linked != 1 || len(m.Behind) != 0 || !slices.Equal(m.Groups, []linkgraph.GroupFound{{"cornell", 2, 1}}) {
		t.Errorf("with /courses/: %+v; want 1 found, 1 missed and linked, nothing behind", m)
	}

	// Everything BFS fetches, by the URLs it was asked for (cs1 as
	// /courses/cs1/index.html, an alias).
	all := slices.Clone(seeds)
	for _, p := range linkgraph.BFS(a, seeds, nil) {
		all = append(all, p.URL)
	}
	all = append(all, mustURLs(t, "http://a.test/courses/cs1/index.html")...)
	m = linkgraph.MissedBy(a, seeds, "course", all)
	if m.Found != 2 || m.Missed != 0 || m.Fetched != 9 {
		t.Errorf("all reached: %+v; want 9 fetched, 2 found, none missed", m)
	}
}

// TestMissedBy_corpus checks the misses of the first 1,000 pages
// of a breadth-first crawl of the real collection against the layout.
func TestMissedBy_corpus(t *testing.T) {
	a := openCorpus(t)
	seeds, err := webkb.SiteSeeds(a)
	if err != nil {
		t.Fatal(err)
	}
	order := linkgraph.BFS(a, seeds, nil)
	var fetched []urlnorm.URL
	found := 0
	label := make(map[urlnorm.URL]string)
	for _, l := range a.Labels() {
		label[l.URL] = l.Label
	}
	for _, p := range order[:1000] {
		fetched = append(fetched, p.URL)
		if label[p.URL] == "course" {
			found++
		}
	}
	m := linkgraph.MissedBy(a, seeds, "course", fetched)
	l := linkgraph.TopicLayout(a, seeds, "course")
	sum := 0
	for _, d := range m.Depth {
		sum += d
	}
	if m.Fetched != 1000 || m.Found != found || m.Found+m.Missed != l.TopicPages || sum != m.Missed {
		t.Errorf("fetched %d, found %d (want %d), missed %d (depths sum to %d) of %d", m.Fetched, m.Found, found, m.Missed, sum, l.TopicPages)
	}
	pages, inGroups := 0, 0
	for i, gf := range m.Groups {
		pages += gf.Pages
		inGroups += gf.Found
		if gf.Found > gf.Pages || i > 0 && gf.Group <= m.Groups[i-1].Group {
			t.Errorf("groups %+v", m.Groups)
		}
	}
	if pages != l.TopicPages || inGroups != m.Found || len(m.Groups) != 5 {
		t.Errorf("groups %+v: %d pages, %d found; want 5 groups, %d and %d", m.Groups, pages, inGroups, l.TopicPages, m.Found)
	}
	hidden := m.Missed - m.Linked
	if m.Linked <= 0 || hidden <= 0 || len(m.Behind) != 10 {
		t.Fatalf("linked %d, hidden %d, %d pages behind; want some of each and 10 behind", m.Linked, hidden, len(m.Behind))
	}
	for i, b := range m.Behind {
		if b.Hidden < 1 || i > 0 && b.Hidden > m.Behind[i-1].Hidden || b.Depth < 1 {
			t.Errorf("behind %d: %+v", i, b)
		}
		if i > 0 && m.BehindTop[i] < m.BehindTop[i-1] || m.BehindTop[i] > hidden {
			t.Errorf("hidden behind the top pages: %v of %d", m.BehindTop, hidden)
		}
	}
	// A breadth-first crawl leaves the deep pages: every missed page is
	// at least as deep as the deepest it fetched but one.
	if m.Depth[0]+m.Depth[1] != 0 {
		t.Errorf("a breadth-first crawl of 1,000 pages missed pages one link from the seeds: %v", m.Depth)
	}
}
