package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/crawler/crawlertest"
	"github.com/scent-crawler/scent/internal/pgtest"
	"github.com/scent-crawler/scent/postgres"
)

// storeChainCrawl stores in the database at db a crawl named name of the
// n pages of site, fetched eight days ago: each is due for a revisit (a
// week, the interval of a page never checked, has passed) and has
// changed since (its body's hash is not the one stored).
func storeChainCrawl(t *testing.T, db, name string, site *crawlertest.ChainSite, n int) {
	t.Helper()
	ctx := context.Background()
	s, err := postgres.Open(ctx, db, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.OpenCrawl(ctx, crawler.CrawlSpec{Name: name, Strategy: crawler.StrategyBFS, Stacks: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(-8 * 24 * time.Hour)
	pages := make([]*crawler.Page, n)
	for i := range pages {
		pages[i] = &crawler.Page{URL: site.URL(fmt.Sprintf("/p%d", i)), Status: 200, FetchedAt: at, ContentType: "text/html",
			ContentHash: fmt.Sprintf("crawled %d", i), Title: fmt.Sprintf("page %d", i),
			Text: strings.Repeat(fmt.Sprintf("word%d ", i), 3) + "as crawled, number " + fmt.Sprint(i*7919)}
	}
	if err := s.Commit(ctx, st.ID, pages, nil); err != nil {
		t.Fatal(err)
	}
}

// checksByPage returns the change-log rows of each page of the crawl
// named name, by URL.
func checksByPage(t *testing.T, db, name string) map[string]int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT p.url, count(c.id) FROM pages p LEFT JOIN change_log c ON c.page_id = p.id
		WHERE p.crawl_id = (SELECT id FROM crawls WHERE name = $1) GROUP BY p.url`, name)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var u string
		var k int
		if err := rows.Scan(&u, &k); err != nil {
			t.Fatal(err)
		}
		out[u] = k
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// startRevisit starts scent revisit on the database at db with args,
// at full speed (no delay, no retries) and quiet, four pages at a time.
func startRevisit(t *testing.T, db string, args ...string) *process {
	t.Helper()
	return startProcess(t, scentBinary(t), append([]string{"revisit", "--db", db, "--delay", "0", "--host-parallelism", "0",
		"--workers", "4", "--retries", "0", "--quiet"}, args...)...)
}

// downWhenHeld stops srv (fast: sessions ended) once site holds a
// request of p, which is then mid-run, and lets the site answer again.
func downWhenHeld(t *testing.T, srv *pgtest.Server, site *crawlertest.ChainSite, p *process) {
	t.Helper()
	p.await(t, "the site held a request", func() bool { return site.Held() > 0 })
	if err := srv.Down(); err != nil {
		t.Fatal(err)
	}
	site.Release()
}

// crawlChecks counts the change-log rows of the crawl named name; -1
// when the server does not answer.
func crawlChecks(db, name string) int {
	return queryInt(db, `SELECT count(*) FROM change_log c JOIN pages p ON p.id = c.page_id JOIN crawls k ON k.id = p.crawl_id
		WHERE k.name = '`+name+`'`)
}

// TestRevisit_postgresRestart: scent revisit --watch of a crawl kept on
// PostgreSQL, whose server is stopped (fast: sessions ended) while the
// scheduler is checking the pages and started again once the command
// said it lost it, waits for it and goes on: every page is checked, its
// check recorded once for each request the site saw (none lost, none
// twice), with its new version and next due time; Ctrl-C then ends it
// with exit status 0. A revisit whose server stays away past
// --max-outage 1s exits 3 with the error of the other commands, having
// recorded no check that was not asked of the site. The site answers a
// third of the pages and holds the rest until the server is down, so
// the outage comes mid-run however loaded the machine.
func TestRevisit_postgresRestart(t *testing.T) {
	srv := pgtest.Private(t)
	ctx := context.Background()
	db, err := srv.NewDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const n = 30
	site := crawlertest.NewChainSite(t, crawlertest.Chain{N: n})
	storeChainCrawl(t, db, "watched", site, n)
	goneSite := crawlertest.NewChainSite(t, crawlertest.Chain{N: n})
	storeChainCrawl(t, db, "gone", goneSite, n)

	site.HoldAfter(n / 3)
	p := startRevisit(t, db, "--crawl", "watched", "--watch", "--policy", "groups", "--max-outage", "30s")
	downWhenHeld(t, srv, site, p)
	p.await(t, "the server said lost", func() bool { return p.says("database server lost") })
	if err := srv.Up(); err != nil {
		t.Fatal(err)
	}
	p.await(t, "every page checked", func() bool { return crawlChecks(db, "watched") >= n })
	p.cmd.Process.Signal(os.Interrupt)
	if err := p.wait(t, 60*time.Second); err != nil {
		t.Fatalf("revisit --watch across a restart, stopped by Ctrl-C: %v\n%s", err, &p.out)
	}
	out := &p.out
	for _, w := range []string{"database server lost", "reconnecting for up to 30s", "database server back after",
		fmt.Sprintf(`revisit --watch "watched": %d pages checked: %[1]d changed`, n)} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("revisit --watch across a restart does not say %q:\n%s", w, out)
		}
	}
	checks := checksByPage(t, db, "watched")
	for i := range n {
		path := fmt.Sprintf("/p%d", i)
		if c, h := checks[site.URL(path).String()], site.Hits(path); c != 1 || h != 1 {
			t.Errorf("%s: %d checks recorded for %d requests, want 1 of each", path, c, h)
		}
	}
	if got := queryInt(db, `SELECT count(*) FROM page_versions WHERE version = 2`); got != n {
		t.Errorf("%d new versions stored, want %d", got, n)
	}
	if got := queryInt(db, `SELECT count(*) FROM refresh_schedule`); got != n {
		t.Errorf("%d pages scheduled, want %d", got, n)
	}

	// Away past --max-outage.
	goneSite.HoldAfter(n / 3)
	p = startRevisit(t, db, "--crawl", "gone", "--max-outage", "1s")
	downWhenHeld(t, srv, goneSite, p)
	err = p.wait(t, 60*time.Second)
	out = &p.out
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitUnreachable {
		t.Errorf("revisit with the server gone: %v, want exit status %d\n%s", err, exitUnreachable, out)
	}
	for _, w := range []string{"database server lost", "reconnecting for up to 1s",
		"lost the database server: no connection for", "run the same command again once the server is back"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("revisit with the server gone does not say %q:\n%s", w, out)
		}
	}
	if err := srv.Up(); err != nil {
		t.Fatal(err)
	}
	recorded := 0
	for u, c := range checksByPage(t, db, "gone") {
		path := strings.TrimPrefix(u, goneSite.Server.URL)
		if h := goneSite.Hits(path); c > h || c > 1 {
			t.Errorf("%s: %d checks recorded for %d requests; want at most one, and none not asked", path, c, h)
		}
		recorded += c
	}
	if recorded >= n {
		t.Errorf("%d checks recorded with the server gone, want fewer than the %d pages", recorded, n)
	}
	t.Logf("with the server gone: %d checks recorded of %d pages", recorded, n)
}

// TestRevisit_postgresWatchOutage: scent revisit --watch --max-outage
// 10s of a crawl kept on PostgreSQL rides out a server stopped mid-run
// and started again within the bound, and goes on checking; stopped
// again, for longer than the bound, it exits with status 3 and the
// error of the other commands, as a crawl does. The site answers a
// third of the pages and holds the next until the server is down, then
// two thirds, so each outage comes mid-batch however loaded the
// machine. Every page answered before the second stop (two thirds of
// them: the first outage lost none) has its check, its new version and
// its next due time recorded once; the pages answered after it have
// none; no page was requested twice.
func TestRevisit_postgresWatchOutage(t *testing.T) {
	srv := pgtest.Private(t)
	ctx := context.Background()
	db, err := srv.NewDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const n = 30 // checked four at a time: n/3 and 2n/3 fall within a batch and at its end
	site := crawlertest.NewChainSite(t, crawlertest.Chain{N: n})
	storeChainCrawl(t, db, "watched", site, n)

	site.HoldAfter(n / 3)
	p := startRevisit(t, db, "--crawl", "watched", "--watch", "--policy", "groups", "--max-outage", "10s")
	downWhenHeld(t, srv, site, p)
	// The batch held waits for the server; the next batches are not
	// asked for before it is recorded.
	site.HoldAfter(2 * n / 3)
	p.await(t, "the server said lost", func() bool { return p.says("database server lost") })
	start := time.Now()
	if err := srv.Up(); err != nil {
		t.Fatal(err)
	}
	t.Logf("server started again in %s", time.Since(start).Round(time.Millisecond))
	p.await(t, "two thirds of the pages checked, the next held", func() bool {
		return site.Held() > 0 && crawlChecks(db, "watched") == 2*n/3
	})
	if !p.says("database server back after") {
		t.Errorf("revisit --watch went on without saying the server is back:\n%s", &p.out)
	}

	// Away past --max-outage.
	if err := srv.Down(); err != nil {
		t.Fatal(err)
	}
	site.Release()
	err = p.wait(t, 60*time.Second)
	out := p.out.String()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitUnreachable {
		t.Errorf("revisit --watch with the server gone: %v, want exit status %d\n%s", err, exitUnreachable, out)
	}
	if l, b := strings.Count(out, "database server lost"), strings.Count(out, "database server back after"); l != 2 || b != 1 {
		t.Errorf("revisit --watch tells %d losses and %d returns of the server, want 2 and 1:\n%s", l, b, out)
	}
	for _, w := range []string{"reconnecting for up to 10s", "lost the database server: no connection for",
		"run the same command again once the server is back", fmt.Sprintf(`revisit --watch "watched": %d pages checked`, 2*n/3)} {
		if !strings.Contains(out, w) {
			t.Errorf("revisit --watch with the server gone does not say %q:\n%s", w, out)
		}
	}
	if err := srv.Up(); err != nil {
		t.Fatal(err)
	}
	checks := checksByPage(t, db, "watched")
	recorded := 0
	for i := range n {
		path := fmt.Sprintf("/p%d", i)
		c, h := checks[site.URL(path).String()], site.Hits(path)
		if c > 1 || h > 1 || c > h {
			t.Errorf("%s: %d checks recorded for %d requests; want at most one of each, and no check not asked", path, c, h)
		}
		recorded += c
	}
	if recorded != 2*n/3 {
		t.Errorf("%d checks recorded, want the %d answered before the server stopped for good", recorded, 2*n/3)
	}
	if got := queryInt(db, `SELECT count(*) FROM page_versions WHERE version = 2`); got != recorded {
		t.Errorf("%d new versions stored, want %d: one for each check", got, recorded)
	}
	if got := queryInt(db, `SELECT count(*) FROM refresh_schedule r WHERE EXISTS (SELECT FROM change_log c WHERE c.page_id = r.page_id)`); got != recorded ||
		queryInt(db, `SELECT count(*) FROM refresh_schedule`) != recorded {
		t.Errorf("%d pages checked and scheduled, %d scheduled; want %d of each: a check and its next due time together",
			got, queryInt(db, `SELECT count(*) FROM refresh_schedule`), recorded)
	}
	t.Logf("revisit --watch:\n%s", out)
}
