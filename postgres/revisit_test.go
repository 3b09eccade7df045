package postgres

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/internal/pgtest"
	"github.com/scent-crawler/scent/revisit"
	"github.com/scent-crawler/scent/urlnorm"
)

// TestStore_RecordCheck_twoProcesses: two processes that found the same
// change of a page at once store it once: the page's row lock orders
// them, and the second one's version no longer follows the latest.
func TestStore_RecordCheck_twoProcesses(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	a := openURL(t, url, Options{})
	b := openURL(t, url, Options{})
	st, err := a.OpenCrawl(ctx, crawler.CrawlSpec{Name: "c", Strategy: crawler.StrategyBFS, Stacks: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
	u := urlnorm.MustParse("http://a.test/p")
	t0 := time.Date(2024, 3, 4, 9, 0, 0, 0, time.UTC)
	if err := a.Commit(ctx, st.ID, []*crawler.Page{{URL: u, Status: 200, FetchedAt: t0, ContentHash: "h1", Text: "old text"}}, nil); err != nil {
		t.Fatal(err)
	}
	ps, err := a.RevisitPages(ctx, st.ID, 0, 10)
	if err != nil || len(ps) != 1 {
		t.Fatalf("RevisitPages = %v, %v", ps, err)
	}
	id := ps[0].ID
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, s := range []*Store{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			at := t0.Add(time.Duration(i+1) * time.Hour)
			errs[i] = s.RecordCheck(ctx, &revisit.Check{PageID: id, URL: u, CheckedAt: at, Status: 200, Changed: true, Version: 2,
				New: &revisit.Version{Number: 2, FetchedAt: at, Status: 200, ContentHash: "h2", Text: "new text"}})
		}()
	}
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("RecordCheck errors %v and %v; want one to succeed", errs[0], errs[1])
	}
	vs, err := a.PageVersions(ctx, id)
	if err != nil || len(vs) != 2 || vs[0].Text != "old text" || vs[1].Text != "new text" {
		t.Errorf("versions %+v, %v; want the crawled one and one new", vs, err)
	}
	n := 0
	if err := b.EachCheck(ctx, st.ID, func(*revisit.Check) error { n++; return nil }); err != nil || n != 1 {
		t.Errorf("%d change-log rows (%v), want the one check stored", n, err)
	}
	if _, err := a.VersionText(ctx, id, 3); !errors.Is(err, ErrNoVersion) {
		t.Errorf("VersionText(3) = %v, want ErrNoVersion", err)
	}
}
