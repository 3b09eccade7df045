package revisit_test

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/scent-crawler/scent/change"
	"github.com/scent-crawler/scent/revisit"
)

func TestRun_sitemapLastMod(t *testing.T) {
	ctx := context.Background()
	fx := newFixture(t, map[string]sitePage{
		"/":  {words: "index"},
		"/a": {words: aWords1},
		"/b": {words: bWords1},
	})
	// The crawl's sitemap dates /a a day before the crawl fetched it and
	// /b half an hour after.
	db := fx.store.DB()
	res, err := db.Exec(`INSERT INTO sitemaps(crawl_id, page_id, url, status, is_index, entries, failure) VALUES (?, ?, ?, 200, 0, 2, '')`,
		fx.crawl, fx.pageID(t, "/"), fx.site.url("/sitemap.xml"))
	if err != nil {
		t.Fatal(err)
	}
	smID, _ := res.LastInsertId()
	for path, lm := range map[string]time.Time{"/a": fx.t0.Add(-24 * time.Hour), "/b": fx.t0.Add(30 * time.Minute)} {
		if _, err := db.Exec(`INSERT INTO sitemap_urls(sitemap_id, url, lastmod) VALUES (?, ?, ?)`,
			smID, fx.site.url(path), lm.UTC().Format(time.RFC3339Nano)); err != nil {
			t.Fatal(err)
		}
	}
	now := fx.t0.Add(time.Hour)
	for _, tc := range []struct {
		trust    bool
		wantReqs string
		notDue   int
	}{
		{false, "", 3},  // all fetched an hour ago, younger than 2 h
		{true, "/b", 2}, // /b changed after its fetch, says the sitemap; /a did not
	} {
		sum, err := revisit.Run(ctx, revisit.Config{Crawl: fx.crawl, OlderThan: 2 * time.Hour, SitemapLastMod: tc.trust,
			Costs: change.DefaultCosts(), Workers: 1, Now: func() time.Time { return now }}, fx.store, fx.f)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for p := range fx.site.takeRequests() {
			got = append(got, p)
		}
		sort.Strings(got)
		if strings.Join(got, " ") != tc.wantReqs || sum.NotDue != tc.notDue {
			t.Errorf("trust=%v: requests %v, %d not due; want %q and %d", tc.trust, got, sum.NotDue, tc.wantReqs, tc.notDue)
		}
	}
}
