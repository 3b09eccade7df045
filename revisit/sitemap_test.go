package revisit_test

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/scent-crawler/scent/change"
	"github.com/scent-crawler/scent/revisit"
	"github.com/scent-crawler/scent/revisit/revisittest"
	"github.com/scent-crawler/scent/sqlite"
)

// TestRun_sitemapLastMod runs on SQLite, the store that keeps the
// sitemaps a crawl read.
func TestRun_sitemapLastMod(t *testing.T) {
	ctx := context.Background()
	site := revisittest.NewSite(t, map[string]revisittest.SitePage{
		"/":  {Words: "index"},
		"/a": {Words: "alpha beta gamma delta"},
		"/b": {Words: "one two three four five six"},
	})
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "scent.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	t0 := time.Date(2024, 3, 4, 9, 0, 0, 0, time.UTC)
	crawl := revisittest.Crawl(t, st, site, "site", t0, 1)
	pageID := func(path string) int64 {
		var id int64
		if err := st.DB().QueryRow(`SELECT p.id FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url = ?`, site.URL(path).String()).Scan(&id); err != nil {
			t.Fatalf("page %s: %v", path, err)
		}
		return id
	}

	// The crawl's sitemap dates /a a day before the crawl fetched it and
	// /b half an hour after.
	db := st.DB()
	res, err := db.Exec(`INSERT INTO sitemaps(crawl_id, page_id, url, status, is_index, entries, failure) VALUES (?, ?, ?, 200, 0, 2, '')`,
		crawl, pageID("/"), site.URL("/sitemap.xml").String())
	if err != nil {
		t.Fatal(err)
	}
	smID, _ := res.LastInsertId()
	for path, lm := range map[string]time.Time{"/a": t0.Add(-24 * time.Hour), "/b": t0.Add(30 * time.Minute)} {
		if _, err := db.Exec(`INSERT INTO sitemap_urls(sitemap_id, url, lastmod) VALUES (?, ?, ?)`,
			smID, site.URL(path).String(), lm.UTC().Format(time.RFC3339Nano)); err != nil {
			t.Fatal(err)
		}
	}
	now := t0.Add(time.Hour)
	for _, tc := range []struct {
		trust    bool
		wantReqs string
		notDue   int
	}{
		{false, "", 3},  // all fetched an hour ago, younger than 2 h
		{true, "/b", 2}, // /b changed after its fetch, says the sitemap; /a did not
	} {
		sum, err := revisit.Run(ctx, revisit.Config{Crawl: crawl, OlderThan: 2 * time.Hour, SitemapLastMod: tc.trust,
			Costs: change.DefaultCosts(), Workers: 1, Now: func() time.Time { return now }}, st, revisittest.NewFetcher(t))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for p := range site.TakeRequests() {
			got = append(got, p)
		}
		sort.Strings(got)
		if strings.Join(got, " ") != tc.wantReqs || sum.NotDue != tc.notDue {
			t.Errorf("trust=%v: requests %v, %d not due; want %q and %d", tc.trust, got, sum.NotDue, tc.wantReqs, tc.notDue)
		}
	}
}
