package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

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

// TestStore_EachCheck_inFlight: change-log ids come from a sequence,
// handed out as checks are inserted, not as they commit. A check holds
// the lower id uncommitted while a check with a higher id commits; an
// EachCheck started then waits for the first to commit and gives both,
// in id order, but not a check recorded while it runs (its fn records
// one): the log as of one moment, whatever its batches.
func TestStore_EachCheck_inFlight(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	s := openURL(t, url, Options{})
	st, err := s.OpenCrawl(ctx, crawler.CrawlSpec{Name: "c", Strategy: crawler.StrategyBFS, Stacks: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2024, 3, 4, 9, 0, 0, 0, time.UTC)
	var crawled []*crawler.Page
	for i := range 3 {
		crawled = append(crawled, &crawler.Page{URL: urlnorm.MustParse(fmt.Sprintf("http://a.test/%d", i)), Status: 200, FetchedAt: t0,
			ContentHash: fmt.Sprint(i), Text: fmt.Sprintf("page %d", i)})
	}
	if err := s.Commit(ctx, st.ID, crawled, nil); err != nil {
		t.Fatal(err)
	}
	ps, err := s.RevisitPages(ctx, st.ID, 0, 3)
	if err != nil || len(ps) != 3 {
		t.Fatalf("RevisitPages = %v, %v", ps, err)
	}
	check := func(i int) *revisit.Check {
		return &revisit.Check{PageID: ps[i].ID, URL: ps[i].URL, CheckedAt: t0.Add(time.Duration(i+1) * time.Hour), Status: 304, Version: 1}
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var cache int
	if err := conn.QueryRow(ctx, `SELECT cache_size FROM pg_sequences WHERE sequencename = 'change_log_id_seq'`).Scan(&cache); err != nil || cache != 1 {
		t.Errorf("change_log's sequence caches %d ids (%v), want 1: ids handed out in order across sessions", cache, err)
	}

	// The check of page 0 is inserted and held uncommitted; that of
	// page 1 commits.
	inserted, release := make(chan struct{}), make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- s.inTx(ctx, func(tx pgx.Tx) error {
			if err := recordCheck(ctx, tx, check(0)); err != nil {
				return err
			}
			close(inserted)
			<-release
			return nil
		})
	}()
	<-inserted
	if err := s.RecordCheck(ctx, check(1)); err != nil {
		t.Fatal(err)
	}
	type result struct {
		pages []int64
		err   error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		r.err = s.EachCheck(ctx, st.ID, func(c *revisit.Check) error {
			r.pages = append(r.pages, c.PageID)
			if len(r.pages) == 1 {
				return s.RecordCheck(ctx, check(2))
			}
			return nil
		})
		done <- r
	}()
	// EachCheck waits for an advisory lock, or ended without waiting.
	var r result
	ended := false
	for deadline := time.Now().Add(30 * time.Second); !ended; time.Sleep(5 * time.Millisecond) {
		select {
		case r = <-done:
			ended = true
			continue
		default:
		}
		var waiting int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
			AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("EachCheck neither ended nor waited for the check in flight in 30s")
		}
	}
	close(release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	if !ended {
		r = <-done
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	want := []int64{ps[0].ID, ps[1].ID}
	if !slices.Equal(r.pages, want) {
		t.Errorf("EachCheck gave the checks of pages %v, want %v: the one in flight as it started, then the one committed", r.pages, want)
	}
	rows, err := conn.Query(ctx, `SELECT page_id FROM change_log ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	order, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{ps[0].ID, ps[1].ID, ps[2].ID}; !slices.Equal(order, want) {
		t.Errorf("change log by id: pages %v, want %v", order, want)
	}
}

// lostLog is a store's log that also tells the test, on lost, when the
// store says it lost the server (buffered: a line said before the test
// waits is kept).
type lostLog struct {
	syncBuffer
	lost chan struct{}
}

func newLostLog() *lostLog { return &lostLog{lost: make(chan struct{}, 1)} }

func (l *lostLog) Write(p []byte) (int, error) {
	n, err := l.syncBuffer.Write(p)
	if strings.Contains(string(p), "database server lost") {
		select {
		case l.lost <- struct{}{}:
		default:
		}
	}
	return n, err
}

// TestStore_revisitServerRestart: the revisit side of the store waits
// for a server stopped (fast: sessions ended) and started again, as the
// crawl's operations do. Checks recorded while the server goes down —
// one of them committed with its COMMIT's answer lost as the server
// stops, the others started while it is down — are each recorded once,
// with their new versions and schedules. A read of the change log cut
// between two batches goes on after the last check it gave: every check
// once, in order. The scheduler's and revisit's reads started while the
// server is down wait for it and answer in full. A store whose
// MaxOutage passes first fails its check with ErrServerLost, recording
// nothing. The server is started again each time only once the store
// said it lost it, so each outage is met however loaded the machine.
func TestStore_revisitServerRestart(t *testing.T) {
	ctx := context.Background()
	srv := pgtest.Private(t)
	url, err := srv.NewDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	log := newLostLog()
	s := openURL(t, url, Options{MaxOutage: 30 * time.Second, Log: log})
	st, err := s.OpenCrawl(ctx, crawler.CrawlSpec{Name: "c", Strategy: crawler.StrategyBFS, Stacks: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
	const n = 60
	t0 := time.Date(2024, 3, 4, 9, 0, 0, 0, time.UTC)
	var crawled []*crawler.Page
	for i := range n {
		crawled = append(crawled, &crawler.Page{URL: urlnorm.MustParse(fmt.Sprintf("http://a.test/%d", i)), Status: 200, FetchedAt: t0,
			ContentHash: fmt.Sprintf("old%d", i), Text: strings.Repeat(fmt.Sprintf("word%d ", i), 3) + "page number " + fmt.Sprint(i*7919)})
	}
	if err := s.Commit(ctx, st.ID, crawled, nil); err != nil {
		t.Fatal(err)
	}
	ps, err := s.RevisitPages(ctx, st.ID, 0, n)
	if err != nil || len(ps) != n {
		t.Fatalf("RevisitPages = %d pages, %v; want %d", len(ps), err, n)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	count := func(query string) int {
		t.Helper()
		var k int
		if err := conn.QueryRow(ctx, query).Scan(&k); err != nil {
			t.Fatal(err)
		}
		return k
	}
	// upWhenLost starts the server again once the store said it lost it.
	up := make(chan error, 1)
	upWhenLost := func() {
		go func() {
			<-log.lost
			up <- srv.Up()
		}()
	}
	outages := 0
	told := func(what string) {
		t.Helper()
		if err := <-up; err != nil {
			t.Fatal(err)
		}
		conn.Close(ctx)
		if conn, err = pgx.Connect(ctx, url); err != nil {
			t.Fatal(err)
		}
		outages++
		if l, b := strings.Count(log.String(), "database server lost"), strings.Count(log.String(), "database server back"); l != outages || b != outages {
			t.Errorf("%s: the log tells %d losses and %d returns of the server, want %d of each:\n%s", what, l, b, outages, log.String())
		}
	}

	// Every page changed; odd pages are checked by the scheduler
	// (RecordScheduledCheck), even ones by a revisit (RecordCheck).
	checkedAt := t0.Add(time.Hour)
	record := func(s *Store, i int) error {
		p := ps[i]
		c := &revisit.Check{PageID: p.ID, URL: p.URL, CheckedAt: checkedAt, Status: 200, Size: 100, Changed: true, Version: 2,
			New: &revisit.Version{Number: 2, FetchedAt: checkedAt, Status: 200, Size: 100, ContentHash: fmt.Sprintf("new%d", i),
				Text: fmt.Sprintf("new text of page %d", i)}}
		if i%2 == 1 {
			return s.RecordScheduledCheck(ctx, c, revisit.Due{Next: checkedAt.Add(7 * 24 * time.Hour), Rate: 1, Group: "G1", Hour: 12})
		}
		return s.RecordCheck(ctx, c)
	}
	for i := range n / 3 {
		if err := record(s, i); err != nil {
			t.Fatal(err)
		}
	}
	// The next check commits; the server stops before its answer comes.
	down := make(chan error, 1)
	s.mu.Lock()
	s.afterCommit = func() error {
		down <- srv.Down()
		return fmt.Errorf("commit: %w", io.ErrUnexpectedEOF)
	}
	s.mu.Unlock()
	errs := make([]error, n)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		errs[n/3] = record(s, n/3)
	}()
	if err := <-down; err != nil {
		t.Fatal(err)
	}
	// The others start while the server is down, four at once.
	next := make(chan int)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = record(s, i)
			}
		}()
	}
	upWhenLost()
	for i := n/3 + 1; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	told("checks recorded")
	for i, err := range errs {
		if err != nil {
			t.Errorf("check of page %d across the restart: %v", i, err)
		}
	}
	if got := count(`SELECT count(*) FROM change_log`); got != n {
		t.Errorf("%d change-log rows, want %d: each check once", got, n)
	}
	if got := count(`SELECT count(DISTINCT page_id) FROM change_log`); got != n {
		t.Errorf("%d pages checked, want %d", got, n)
	}
	if got := count(`SELECT count(*) FROM page_versions WHERE version = 2 AND text LIKE 'new text%'`); got != n {
		t.Errorf("%d new versions, want %d", got, n)
	}
	if got := count(`SELECT count(*) FROM page_versions`); got != 2*n {
		t.Errorf("%d versions, want %d: the crawled one and the new one of each page", got, 2*n)
	}
	if got := count(`SELECT count(*) FROM refresh_schedule`); got != n/2 {
		t.Errorf("%d pages scheduled, want %d", got, n/2)
	}

	// More checks than a batch of EachCheck, one second apart after the
	// first ones; the server stops when the 10th is given.
	const more = 3 * checkBatch
	if _, err := conn.Exec(ctx, `INSERT INTO change_log(page_id, checked_at, url, status, fetched_size, update_size, changed, version, failure)
		SELECT p.id, $2::timestamptz + i * interval '1 second', p.url, 304, 0, 0, false, 2, ''
		FROM generate_series(1, $3) i JOIN pages p ON p.crawl_id = $1 AND p.url = 'http://a.test/' || (i % 60) ORDER BY i`,
		st.ID, checkedAt.Add(time.Hour), more); err != nil {
		t.Fatal(err)
	}
	var got []revisit.Check
	err = s.EachCheck(ctx, st.ID, func(c *revisit.Check) error {
		got = append(got, *c)
		if len(got) == 10 {
			if err := srv.Down(); err != nil {
				t.Fatal(err)
			}
			upWhenLost()
		}
		return nil
	})
	if err != nil {
		t.Fatalf("EachCheck across a restart: %v", err)
	}
	told("EachCheck")
	seen := map[[2]int64]bool{}
	for i, c := range got {
		seen[[2]int64{c.PageID, c.CheckedAt.UnixMicro()}] = true
		if i > 0 && c.CheckedAt.Before(got[i-1].CheckedAt) {
			t.Errorf("EachCheck gave the check of %v after that of %v", c.CheckedAt, got[i-1].CheckedAt)
			break
		}
	}
	if len(got) != n+more || len(seen) != n+more {
		t.Errorf("EachCheck across a restart gave %d checks, %d different; want %d, each once", len(got), len(seen), n+more)
	}

	// Reads started while the server is down; meanwhile a store that
	// waits only 300ms gives up on its check.
	gone := openURL(t, url, Options{MaxOutage: 300 * time.Millisecond})
	if err := srv.Down(); err != nil {
		t.Fatal(err)
	}
	reads := map[string]func() error{
		"FindCrawl": func() error {
			if id, name, err := s.FindCrawl(ctx, "c"); err != nil || id != st.ID || name != "c" {
				return fmt.Errorf("%d, %q, %v; want %d, c", id, name, err, st.ID)
			}
			return nil
		},
		"RevisitPages": func() error {
			ps, err := s.RevisitPages(ctx, st.ID, 0, 2*n)
			if err != nil || len(ps) != n {
				return fmt.Errorf("%d pages, %v; want %d", len(ps), err, n)
			}
			for i, p := range ps {
				if p.Version != 2 || p.ContentHash != fmt.Sprintf("new%d", i) || !p.CheckedAt.After(checkedAt) {
					return fmt.Errorf("page %d: %+v; want version 2, its new hash, checked after the first check", i, p)
				}
			}
			return nil
		},
		"VersionText": func() error {
			if text, err := s.VersionText(ctx, ps[7].ID, 2); err != nil || text != "new text of page 7" {
				return fmt.Errorf("%q, %v", text, err)
			}
			return nil
		},
		"PageVersions": func() error {
			vs, err := s.PageVersions(ctx, ps[8].ID)
			if err != nil || len(vs) != 2 || vs[0].ContentHash != "old8" || vs[1].ContentHash != "new8" {
				return fmt.Errorf("%+v, %v; want the crawled version and the new one", vs, err)
			}
			return nil
		},
		"EachCheck": func() error {
			k := 0
			if err := s.EachCheck(ctx, st.ID, func(*revisit.Check) error { k++; return nil }); err != nil || k != n+more {
				return fmt.Errorf("%d checks, %v; want %d", k, err, n+more)
			}
			return nil
		},
		"Schedule": func() error {
			sched, err := s.Schedule(ctx, st.ID)
			if err != nil || len(sched) != n/2 || sched[ps[1].ID].Group != "G1" {
				return fmt.Errorf("%d pages, %v; want %d", len(sched), err, n/2)
			}
			return nil
		},
		"ChecksSince": func() error {
			if k, err := s.ChecksSince(ctx, st.ID, checkedAt); err != nil || k != n+more {
				return fmt.Errorf("%d, %v; want %d", k, err, n+more)
			}
			return nil
		},
	}
	readErrs := make(map[string]error, len(reads))
	var mu sync.Mutex
	for name, read := range reads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := read()
			mu.Lock()
			readErrs[name] = err
			mu.Unlock()
		}()
	}
	err = gone.RecordCheck(ctx, &revisit.Check{PageID: ps[0].ID, URL: ps[0].URL, CheckedAt: checkedAt.Add(24 * time.Hour), Status: 304, Version: 2})
	if !errors.Is(err, ErrServerLost) {
		t.Errorf("check on a store whose MaxOutage passed: %v, want ErrServerLost", err)
	}
	upWhenLost()
	wg.Wait()
	told("reads")
	for name, err := range readErrs {
		if err != nil {
			t.Errorf("%s while the server restarts: %v", name, err)
		}
	}
	if got := count(`SELECT count(*) FROM change_log`); got != n+more {
		t.Errorf("%d change-log rows after the check that gave up, want %d: none recorded", got, n+more)
	}
}

// TestStore_LeaseRevisit: one process at a time revisits a crawl; the
// lease is free again once released, or once its process's session ends.
func TestStore_LeaseRevisit(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	a, b := openURL(t, url, Options{}), openURL(t, url, Options{})
	release, err := a.LeaseRevisit(ctx, 7, "c")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.LeaseRevisit(ctx, 7, "c"); !errors.Is(err, ErrRevisitBusy) {
		t.Fatalf("a second revisit of crawl 7: error %v, want ErrRevisitBusy", err)
	}
	other, err := b.LeaseRevisit(ctx, 8, "d")
	if err != nil {
		t.Fatalf("a revisit of another crawl: %v", err)
	}
	other()
	release()
	again, err := b.LeaseRevisit(ctx, 7, "c")
	if err != nil {
		t.Fatalf("revisit once the first released it: %v", err)
	}
	// A process that dies: its session ends, and its lease with it.
	again()
	c := openURL(t, url, Options{})
	dead, err := c.LeaseRevisit(ctx, 7, "c")
	if err != nil {
		t.Fatal(err)
	}
	defer dead()
	if _, err := a.pool.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND pid <> pg_backend_pid()`); err != nil {
		t.Fatal(err)
	}
	// The session ends shortly after pg_terminate_backend returns.
	for i := 0; ; i++ {
		rel, err := a.LeaseRevisit(ctx, 7, "c")
		if err == nil {
			rel()
			break
		}
		if !errors.Is(err, ErrRevisitBusy) || i == 100 {
			t.Fatalf("revisit once the holder's session ended: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
