package postgres

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/internal/pgtest"
	"github.com/scent-crawler/scent/urlnorm"
)

// TestStore_Crawl_Elapsed: Crawl finds a crawl by name or the latest one,
// with its strategy and topics, and Elapsed spans its first and last
// fetch.
func TestStore_Crawl_Elapsed(t *testing.T) {
	ctx := context.Background()
	s := openURL(t, pgtest.URL(t), Options{})
	if _, err := s.Crawl(ctx, ""); !errors.Is(err, ErrNoCrawl) {
		t.Fatalf("Crawl of an empty database = %v, want ErrNoCrawl", err)
	}
	a, err := s.OpenCrawl(ctx, crawler.CrawlSpec{Name: "a", Strategy: crawler.StrategyLink, Stacks: []string{"course"}, Topics: []string{"course"}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.OpenCrawl(ctx, crawler.CrawlSpec{Name: "b", Strategy: crawler.StrategyBFS, Stacks: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2024, 3, 4, 9, 0, 0, 0, time.UTC)
	pages := []*crawler.Page{
		{URL: urlnorm.MustParse("http://a.test/1"), Status: 200, FetchedAt: t0, Text: "one"},
		{URL: urlnorm.MustParse("http://a.test/2"), Status: 404, FetchedAt: t0.Add(90 * time.Second), Failure: "http 404"},
	}
	if err := s.Commit(ctx, a.ID, pages, nil); err != nil {
		t.Fatal(err)
	}
	c, err := s.Crawl(ctx, "a")
	if err != nil || c.ID != a.ID || c.Name != "a" || c.Strategy != string(crawler.StrategyLink) ||
		!slices.Equal(c.Topics, []string{"course"}) || !slices.Equal(c.Stacks, []string{"course"}) || c.CreatedAt.IsZero() {
		t.Errorf("Crawl(a) = %+v, %v", c, err)
	}
	if latest, err := s.Crawl(ctx, ""); err != nil || latest.Name != "b" || len(latest.Topics) != 0 {
		t.Errorf("Crawl(\"\") = %+v, %v; want b, the latest, without topics", latest, err)
	}
	if _, err := s.Crawl(ctx, "nope"); !errors.Is(err, ErrNoCrawl) {
		t.Errorf("Crawl(nope) = %v, want ErrNoCrawl", err)
	}
	if el, n, err := s.Elapsed(ctx, a.ID); err != nil || el != 90*time.Second || n != 2 {
		t.Errorf("Elapsed(a) = %v, %d, %v; want 1m30s over 2 fetches", el, n, err)
	}
	if el, n, err := s.Elapsed(ctx, b.ID); err != nil || el != 0 || n != 0 {
		t.Errorf("Elapsed(b) = %v, %d, %v; want nothing fetched", el, n, err)
	}
}
