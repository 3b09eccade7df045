package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

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
	var texts []string
	if err := s.EachPageText(ctx, a.ID, func(p *crawler.Page) error {
		texts = append(texts, p.URL.String()+" "+p.Text)
		return nil
	}); err != nil || !slices.Equal(texts, []string{"http://a.test/1 one", "http://a.test/2 "}) {
		t.Errorf("EachPageText(a) = %q, %v; want each page with its text", texts, err)
	}
	if err := s.EachPage(ctx, a.ID, func(p *crawler.Page) error {
		if p.Text != "" {
			t.Errorf("EachPage gave %s with its text", p.URL)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if state, err := s.LearnerState(ctx, a.ID); err != nil || state != nil {
		t.Errorf("LearnerState before any save = %q, %v; want none", state, err)
	}
	if err := s.SaveLearner(ctx, a.ID, []byte(`{"format":"x"}`)); err != nil {
		t.Fatal(err)
	}
	if state, err := s.LearnerState(ctx, a.ID); err != nil || string(state) != `{"format":"x"}` {
		t.Errorf("LearnerState = %q, %v; want the state saved", state, err)
	}
	if el, n, err := s.Elapsed(ctx, a.ID); err != nil || el != 90*time.Second || n != 2 {
		t.Errorf("Elapsed(a) = %v, %d, %v; want 1m30s over 2 fetches", el, n, err)
	}
	if el, n, err := s.Elapsed(ctx, b.ID); err != nil || el != 0 || n != 0 {
		t.Errorf("Elapsed(b) = %v, %d, %v; want nothing fetched", el, n, err)
	}
}

// bigCrawl stores a crawl of n pages straight into the database at url,
// each with a title and a link anchor of size bytes (compressed in the
// table, whole on the wire), so that reading it back takes more than the
// sockets hold: a server stopped midway cuts the read. Page 1 speaks of
// pangolins. It returns the crawl's id.
func bigCrawl(t *testing.T, url string, n, size int) int64 {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var id int64
	if err := conn.QueryRow(ctx, `INSERT INTO crawls(name, strategy, stacks, topics, config, fetched, succeeded)
		VALUES ('big', 'bfs', '[""]', '[]', '{}', $1, $1) RETURNING id`, n).Scan(&id); err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(ctx, `WITH u AS (
			INSERT INTO urls(crawl_id, url, host, state)
			SELECT $1, 'http://big.test/' || i, 'big.test', 2 FROM generate_series(1, $2) i RETURNING id, url)
		INSERT INTO pages(crawl_id, ord, url_id, url, final_url, topic, depth, status, fetched_at, duration_ms, size,
			content_type, etag, modified, content_hash, title, text, failure, links, search)
		SELECT $1, substr(url, 17)::bigint, id, url, url, '', 1, 200, now(), 1, 100, 'text/html', '', '', '', repeat('t', $3), '', '',
			jsonb_build_array(jsonb_build_object('t', url || '/next', 'a', repeat('a', $3))),
			CASE WHEN url = 'http://big.test/1' THEN to_tsvector('english', 'pangolins of the big crawl') END
		FROM u`, id, n, size)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestStore_readServerRestart: a read of a crawl's pages (EachPage) and
// of its links (EachLink) cut by a server stopped midway (fast: sessions
// ended) waits for it, started again 0.5s later, and goes on after the
// last page it gave: every page once, in order. Crawl and Search,
// started while the server is down, wait for it too; a Crawl answered
// "no such crawl" ends the outage, and the next one is told again. A
// server away past MaxOutage ends a read with ErrServerLost, no page
// given twice.
func TestStore_readServerRestart(t *testing.T) {
	ctx := context.Background()
	srv := pgtest.Private(t)
	url, err := srv.NewDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	openURL(t, url, Options{}).Close() // the schema
	const n = 3000
	crawl := bigCrawl(t, url, n, 8<<10) // 48 MB on the wire, pages and links
	var log strings.Builder             // written by the reading goroutine only
	r := openURL(t, url, Options{MaxOutage: 30 * time.Second, Log: &log})

	// restartAt stops the server when the read has given its 10th row,
	// while the server is still sending the rest, and starts it again
	// 0.5s later.
	up := make(chan error, 1)
	restartAt := func(i int) {
		if i != 10 {
			return
		}
		if err := srv.Down(); err != nil {
			t.Fatal(err)
		}
		go func() {
			time.Sleep(500 * time.Millisecond)
			up <- srv.Up()
		}()
	}
	checkOrders := func(what string, orders []int) {
		t.Helper()
		if len(orders) != n {
			t.Errorf("%s: %d rows given, want %d", what, len(orders), n)
		}
		for i, o := range orders {
			if o != i+1 {
				t.Errorf("%s: row %d is page %d, want %d (each page once, in order)", what, i, o, i+1)
				break
			}
		}
		if !strings.Contains(log.String(), "database server lost") || !strings.Contains(log.String(), "database server back") {
			t.Errorf("%s: the read was not cut, or the log does not say so:\n%s", what, log.String())
		}
		log.Reset()
	}

	var orders []int
	err = r.EachPage(ctx, crawl, func(p *crawler.Page) error {
		orders = append(orders, p.Order)
		restartAt(len(orders))
		return nil
	})
	if err != nil {
		t.Fatalf("EachPage across a restart: %v", err)
	}
	if err := <-up; err != nil {
		t.Fatal(err)
	}
	checkOrders("EachPage", orders)

	orders = nil
	err = r.EachLink(ctx, crawl, func(l *crawler.PageLink) error {
		var i int
		fmt.Sscanf(l.Parent.Path(), "/%d", &i)
		orders = append(orders, i)
		restartAt(len(orders))
		return nil
	})
	if err != nil {
		t.Fatalf("EachLink across a restart: %v", err)
	}
	if err := <-up; err != nil {
		t.Fatal(err)
	}
	checkOrders("EachLink", orders)

	// Reads started while the server is down wait for it: one answered
	// with an error (no such crawl) too, and that answer ends the
	// outage, so the next one is told again.
	restart := func() {
		if err := srv.Down(); err != nil {
			t.Fatal(err)
		}
		go func() {
			time.Sleep(500 * time.Millisecond)
			up <- srv.Up()
		}()
	}
	told := func(what string) {
		t.Helper()
		if err := <-up; err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(log.String(), "database server lost") || !strings.Contains(log.String(), "database server back") {
			t.Errorf("%s did not wait for the server, or the log does not say so:\n%s", what, log.String())
		}
		log.Reset()
	}
	restart()
	if _, err := r.Crawl(ctx, "nope"); !errors.Is(err, ErrNoCrawl) {
		t.Errorf("Crawl(nope) while the server restarts: %v, want ErrNoCrawl", err)
	}
	told("Crawl(nope)")
	restart()
	if hits, err := r.Search(ctx, "pangolin", 10); err != nil || len(hits) != 1 || hits[0].URL != "http://big.test/1" {
		t.Errorf("Search while the server restarts: %+v, %v; want page 1", hits, err)
	}
	told("Search")
	if c, err := r.Crawl(ctx, "big"); err != nil || c.ID != crawl {
		t.Errorf("Crawl after the restart: %+v, %v", c, err)
	}
	if l, err := r.Learnt(ctx, crawl); err != nil || len(l) != 0 {
		t.Errorf("Learnt after the restart: %v, %v", l, err)
	}

	// Away for good: the read ends with ErrServerLost, having given the
	// pages it read before, each once.
	gone := openURL(t, url, Options{MaxOutage: time.Second})
	orders = nil
	err = gone.EachPage(ctx, crawl, func(p *crawler.Page) error {
		orders = append(orders, p.Order)
		if len(orders) == 10 {
			if err := srv.Down(); err != nil {
				t.Fatal(err)
			}
		}
		return nil
	})
	if !errors.Is(err, ErrServerLost) {
		t.Errorf("EachPage with the server gone: %v, want ErrServerLost", err)
	}
	if len(orders) >= n || !slices.IsSorted(orders) || len(slices.Compact(slices.Clone(orders))) != len(orders) {
		t.Errorf("EachPage with the server gone gave %d pages (of %d), sorted %v: want fewer, each once", len(orders), n, slices.IsSorted(orders))
	}
	if err := srv.Up(); err != nil { // for the stores' Close
		t.Fatal(err)
	}
}
