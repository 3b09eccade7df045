package sqlite

import (
	"context"
	"testing"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/urlnorm"
)

func TestStore_Commit_identicalBodiesWithoutText(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	u := func(p string) urlnorm.URL { return urlnorm.MustParse("http://h.test" + p) }
	st, err := s.OpenCrawl(ctx, crawler.CrawlSpec{Name: "x", Strategy: crawler.StrategyBFS, Stacks: []string{""}, Seeds: []urlnorm.URL{u("/")}})
	if err != nil {
		t.Fatal(err)
	}
	frames := func(p string) *crawler.Page {
		return &crawler.Page{URL: u(p), FinalURL: u(p), Status: 200, ContentHash: "ab12"}
	}
	if err := s.Commit(ctx, st.ID, []*crawler.Page{frames("/dir/"), frames("/dir/index.html")}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, st.ID, []*crawler.Page{frames("/other")}, nil); err != nil {
		t.Fatal(err)
	}
	stats, err := s.FetchStats(ctx, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	if stats.IdenticalOriginals != 0 || stats.Pages != 3 {
		t.Errorf("%+v: want 3 pages, no group of identical originals", stats)
	}
	var orig string
	s.DB().QueryRow(`SELECT ou.url FROM pages p JOIN urls u ON u.id = p.url_id JOIN pages o ON o.id = p.duplicate_of JOIN urls ou ON ou.id = o.url_id WHERE u.url = ?`, u("/other").String()).Scan(&orig)
	if orig != u("/dir/").String() {
		t.Errorf("original of /other: %q, want the earliest page with the same bytes", orig)
	}
}
