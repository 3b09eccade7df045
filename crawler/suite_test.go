package crawler_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/crawler/crawlertest"
	"github.com/scent-crawler/scent/urlnorm"
)

func TestSuite_memStore(t *testing.T) {
	crawlertest.Run(t, func(*testing.T) crawlertest.Store { return crawlertest.NewMemStore() })
}

func TestSuite_sqlite(t *testing.T) {
	crawlertest.Run(t, func(t *testing.T) crawlertest.Store { return openStore(t) })
}

// TestMemStore_EachLink: the reference store reads links back as the
// SQLite and PostgreSQL stores do (internal/storetest checks those).
func TestMemStore_EachLink(t *testing.T) {
	ctx := context.Background()
	s := crawlertest.NewMemStore()
	u := func(p string) urlnorm.URL { return urlnorm.MustParse("http://a.test" + p) }
	topics := []string{"a", "b"}
	st, err := s.OpenCrawl(ctx, crawler.CrawlSpec{Name: "x", Strategy: crawler.StrategyLink, Stacks: topics, Topics: topics, Seeds: []urlnorm.URL{u("/")}})
	if err != nil {
		t.Fatal(err)
	}
	p := &crawler.Page{URL: u("/"), FinalURL: u("/home"), Topic: "a", Status: 200,
		Links: []crawler.Link{{Target: u("/x"), Anchor: "x", Context: "a x", Scores: []float64{0.5, 0.25}}, {Target: u("/y")}}}
	if err := s.Commit(ctx, st.ID, []*crawler.Page{p}, nil); err != nil {
		t.Fatal(err)
	}
	var got []crawler.PageLink
	if err := s.EachLink(ctx, st.ID, func(l *crawler.PageLink) error { got = append(got, *l); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []crawler.PageLink{{Link: p.Links[0], Parent: u("/home"), Topics: topics}, {Link: p.Links[1], Parent: u("/home"), Topics: topics}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("links read back as\n%+v\nwant\n%+v", got, want)
	}
}
