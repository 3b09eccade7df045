package sqlite

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/urlnorm"
)

func TestStore_Backlinks(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	st, err := s.OpenCrawl(ctx, crawler.CrawlSpec{Name: "x", Strategy: crawler.StrategyBFS, Stacks: []string{""}, Seeds: []urlnorm.URL{u("/")}})
	if err != nil {
		t.Fatal(err)
	}
	pages := []*crawler.Page{
		{URL: u("/"), FinalURL: u("/"), FetchedAt: time.Now(), Links: []crawler.Link{
			{Target: u("/course"), Anchor: "cs 101", Context: "courses offered cs 101 intro"},
			{Target: u("/other"), Anchor: "news", Context: "campus news"},
		}},
		{URL: u("/list"), FinalURL: u("/list"), FetchedAt: time.Now(), Links: []crawler.Link{
			{Target: u("/course"), Anchor: "cs101", Context: "fall cs101 home page"},
		}},
	}
	if err := s.Commit(ctx, st.ID, pages, nil); err != nil {
		t.Fatal(err)
	}
	got, err := s.Backlinks(ctx, []urlnorm.URL{u("/course"), u("/none")}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("backlinks = %+v, want the 2 links to /course", got)
	}
	var ctxs []string
	for _, b := range got {
		if b.Target != u("/course") {
			t.Errorf("target %s", b.Target)
		}
		ctxs = append(ctxs, strings.Join(b.Context, " "))
	}
	if !strings.Contains(strings.Join(ctxs, "|"), "courses offered cs 101 intro") {
		t.Errorf("contexts = %v", ctxs)
	}
	if got, _ := s.Backlinks(ctx, []urlnorm.URL{u("/course")}, 1); len(got) != 1 {
		t.Errorf("limit 1 gave %d backlinks", len(got))
	}
}
