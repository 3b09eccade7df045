package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/crawler/crawlertest"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/internal/pgtest"
	"github.com/scent-crawler/scent/urlnorm"
)

// syncBuffer is a log written from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// chain is a site of n pages, page i linking to i+1, 2i+1 and 3i+2
// (all reachable from /p0), each answering after delay.
func chain(n int, delay time.Duration) crawlertest.Chain {
	return crawlertest.Chain{N: n, Delay: delay,
		Links: func(i int) []int { return []int{i + 1, 2*i + 1, 3*i + 2} },
		Text:  func(i int) string { return fmt.Sprintf("page number %d of the chain, %d", i, i*7919) }}
}

// checkCounts fails t unless the crawl's stored counters agree with its
// rows: pages fetched and succeeded, URLs waiting in all and per host.
func checkCounts(t *testing.T, ctx context.Context, conn *pgx.Conn, crawl int64) {
	t.Helper()
	var fetched, succeeded, waiting, pages, ok, state0, hostWaiting, hostState0 int64
	err := conn.QueryRow(ctx, `SELECT c.fetched, c.succeeded, c.waiting,
			(SELECT count(*) FROM pages WHERE crawl_id = c.id),
			(SELECT count(*) FROM pages WHERE crawl_id = c.id AND failure = ''),
			(SELECT count(*) FROM urls WHERE crawl_id = c.id AND state = 0),
			(SELECT COALESCE(sum(waiting), 0) FROM hosts WHERE crawl_id = c.id),
			(SELECT count(*) FROM hosts h WHERE h.crawl_id = c.id
				AND h.waiting <> (SELECT count(*) FROM urls u WHERE u.crawl_id = c.id AND u.host = h.host AND u.state = 0))
		FROM crawls c WHERE c.id = $1`, crawl).Scan(&fetched, &succeeded, &waiting, &pages, &ok, &state0, &hostWaiting, &hostState0)
	if err != nil {
		t.Fatal(err)
	}
	if fetched != pages || succeeded != ok {
		t.Errorf("crawls.fetched %d, succeeded %d; the pages stored: %d, %d without failure", fetched, succeeded, pages, ok)
	}
	if waiting != state0 || hostWaiting != state0 || hostState0 != 0 {
		t.Errorf("crawls.waiting %d, sum of hosts.waiting %d (%d hosts off); URLs waiting: %d", waiting, hostWaiting, hostState0, state0)
	}
}

// TestStore_serverRestart: two processes crawl a site of 150 pages on a
// server that is shut down (fast: sessions ended, 57P01) midway and
// started again 1.5s later, past the crawl's lease expiry. Both crawls
// reconnect and end normally, every page is stored once, and the
// counters agree with the rows.
func TestStore_serverRestart(t *testing.T) {
	ctx := context.Background()
	srv := pgtest.Private(t)
	url, err := srv.NewDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const n = 150
	site := crawlertest.NewChainSite(t, chain(n, 5*time.Millisecond))
	// A third of the site answers; the rest waits until the server is
	// down, so the crawl meets the outage however fast it runs.
	site.HoldAfter(n / 3)
	seed := site.URL("/p0")
	var log syncBuffer
	const procs = 2
	var wg sync.WaitGroup
	errs := make([]error, procs)
	sums := make([]crawler.Summary, procs)
	for i := 0; i < procs; i++ {
		s := openURL(t, url, Options{LeaseExpiry: time.Second, MaxOutage: 20 * time.Second, Log: &log})
		f := crawlertest.NewFetcher(t, fetch.Config{Retries: -1})
		c, err := crawler.New(crawler.Config{Name: "restart", Strategy: crawler.StrategyBFS, Workers: 3, RetryLater: -1,
			URLs: s, Shared: s}, s, f, nil)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sums[i], errs[i] = c.Run(ctx, []urlnorm.URL{seed}, "{}")
		}()
	}
	for deadline := time.Now().Add(30 * time.Second); site.Held() == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the crawl did not fetch a third of the site in 30s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := srv.Down(); err != nil {
		t.Fatal(err)
	}
	site.Release()
	time.Sleep(1500 * time.Millisecond)
	if err := srv.Up(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("process %d: %v\nlog:\n%s", i, err, log.String())
		}
	}
	if !strings.Contains(log.String(), "database server lost") || !strings.Contains(log.String(), "database server back") {
		t.Errorf("log tells no loss and return of the server:\n%s", log.String())
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var pages, distinct, failed, notFetched int
	conn.QueryRow(ctx, `SELECT count(*), count(DISTINCT url), count(*) FILTER (WHERE failure <> ''),
		(SELECT count(*) FROM urls WHERE state <> 2) FROM pages`).Scan(&pages, &distinct, &failed, &notFetched)
	if pages != n || distinct != n || failed != 0 || notFetched != 0 {
		t.Errorf("%d pages stored (%d URLs, %d failed), %d URLs not fetched; want %d, %d, 0, 0", pages, distinct, failed, notFetched, n, n)
	}
	var crawl int64
	var holders int
	conn.QueryRow(ctx, `SELECT id, (SELECT count(DISTINCT holder) FROM pages) FROM crawls WHERE name = 'restart'`).Scan(&crawl, &holders)
	checkCounts(t, ctx, conn, crawl)
	twice := 0
	for i := 0; i < n; i++ {
		if site.Hits(fmt.Sprintf("/p%d", i)) > 1 {
			twice++
		}
	}
	t.Logf("%d+%d fetches (%s; %s), pages stored by %d processes; %d pages requested twice (leases expired during the outage); log:\n%s",
		sums[0].Fetched, sums[1].Fetched, sums[0].Finish, sums[1].Finish, holders, twice, log.String())
}

// TestStore_serverGone: a server that stays away past Options.MaxOutage
// ends the crawl with ErrServerLost; started again, the same crawl
// resumes and ends with every page stored once.
func TestStore_serverGone(t *testing.T) {
	ctx := context.Background()
	srv := pgtest.Private(t)
	url, err := srv.NewDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const n = 60
	site := crawlertest.NewChainSite(t, chain(n, 5*time.Millisecond))
	seed := site.URL("/p0")
	run := func(s *Store) (crawler.Summary, error) {
		c, err := crawler.New(crawler.Config{Name: "gone", Strategy: crawler.StrategyBFS, Workers: 2, RetryLater: -1, URLs: s, Shared: s},
			s, crawlertest.NewFetcher(t, fetch.Config{Retries: -1}), nil)
		if err != nil {
			t.Fatal(err)
		}
		return c.Run(ctx, []urlnorm.URL{seed}, "{}")
	}
	s, err := Open(ctx, url, Options{LeaseExpiry: time.Second, MaxOutage: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := run(s)
		done <- err
	}()
	for deadline := time.Now().Add(30 * time.Second); pgCountOrZero(ctx, url, `SELECT count(*) FROM pages`) < 10; {
		if time.Now().After(deadline) {
			t.Fatal("no pages stored in 30s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := srv.Down(); err != nil {
		t.Fatal(err)
	}
	err = <-done
	s.Close()
	if !errors.Is(err, ErrServerLost) {
		t.Fatalf("crawl with the server gone ended with %v, want ErrServerLost", err)
	}
	if err := srv.Up(); err != nil {
		t.Fatal(err)
	}
	s2 := openURL(t, url, Options{LeaseExpiry: time.Second})
	if _, err := run(s2); err != nil {
		t.Fatalf("resume: %v", err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var pages, distinct int
	conn.QueryRow(ctx, `SELECT count(*), count(DISTINCT url_id) FROM pages WHERE failure = ''`).Scan(&pages, &distinct)
	if pages != n || distinct != n {
		t.Errorf("%d pages stored (%d URLs), want %d", pages, distinct, n)
	}
	var crawl int64
	conn.QueryRow(ctx, `SELECT id FROM crawls WHERE name = 'gone'`).Scan(&crawl)
	checkCounts(t, ctx, conn, crawl)
}

// pgCountOrZero runs a counting query on a connection of its own; 0 when
// it fails (the schema not made yet).
func pgCountOrZero(ctx context.Context, url, query string) int {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return 0
	}
	defer conn.Close(ctx)
	var n int
	conn.QueryRow(ctx, query).Scan(&n)
	return n
}

// crawlOf returns a page of each entry, linking to the next 3 URLs of
// the bfsSpec sort, and those links as entries.
func crawlOf(es []crawler.Entry) ([]*crawler.Page, []crawler.Entry) {
	var pages []*crawler.Page
	var push []crawler.Entry
	for _, e := range es {
		var i int
		fmt.Sscanf(e.URL.Path(), "/%d", &i)
		pages = append(pages, &crawler.Page{URL: e.URL, Status: 200, FetchedAt: time.Now(), Title: e.URL.String(),
			Text: strings.Repeat(fmt.Sprintf("word%d ", i), 3) + "a page of its own, number " + fmt.Sprint(i*7919)})
		for j := i + 1; j <= i+3; j++ {
			push = append(push, crawler.Entry{URL: u(fmt.Sprintf("h%d.test", j%7), fmt.Sprintf("/%d", j)), Depth: e.Depth + 1})
		}
	}
	return pages, push
}

// TestStore_commitOutcomeUnknown: a transaction that committed, but whose
// COMMIT got no answer (the connection lost), is run again by the store;
// the retry finds it done. A Pop so retried returns the URLs it leased
// (none left leased to no fetch) and a Commit stores its pages and counts
// them once. Committed twice outright, as by a caller retrying, the same
// pages are stored and counted once too, and are not made aliases of
// themselves.
func TestStore_commitOutcomeUnknown(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	s := openURL(t, url, Options{})
	st, err := s.OpenCrawl(ctx, bfsSpec(10))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	lost := 0
	loseNext := func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.afterCommit = func() error {
			lost++
			return fmt.Errorf("commit: %w", io.ErrUnexpectedEOF)
		}
	}
	loseNext()
	es, err := s.Pop(ctx, st.ID, "", crawler.FIFO, 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	var leased int
	conn.QueryRow(ctx, `SELECT count(*) FROM urls WHERE state = 1`).Scan(&leased)
	if lost != 1 || len(es) != 4 || leased != 4 {
		t.Fatalf("pop with its commit unanswered: %d entries, %d URLs leased (commits lost: %d); want 4, 4", len(es), leased, lost)
	}
	pages, push := crawlOf(es)
	loseNext()
	if err := s.Commit(ctx, st.ID, pages, push); err != nil {
		t.Fatal(err)
	}
	if lost != 2 {
		t.Fatalf("%d commits lost, want 2", lost)
	}
	checkCounts(t, ctx, conn, st.ID)
	var stored int
	conn.QueryRow(ctx, `SELECT count(*) FROM pages`).Scan(&stored)
	if stored != 4 {
		t.Errorf("%d pages stored, want 4", stored)
	}
	// The same commit once more, as a new transaction.
	if err := s.Commit(ctx, st.ID, pages, push); err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		if p.Failure != "" {
			t.Errorf("%s committed twice became %q", p.URL, p.Failure)
		}
	}
	conn.QueryRow(ctx, `SELECT count(*) FROM pages`).Scan(&stored)
	if stored != 4 {
		t.Errorf("%d pages stored after the same commit twice, want 4", stored)
	}
	checkCounts(t, ctx, conn, st.ID)
}

// TestStore_waitingCountRace: a late commit of a page whose expired lease
// another process is putting back on its stack at that moment counts the
// URL out of the waiting ones exactly once, whichever commits first; a
// count gone wrong is repaired when the crawl is resumed.
func TestStore_waitingCountRace(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	a := openURL(t, url, Options{LeaseExpiry: time.Second})
	st, err := a.OpenCrawl(ctx, bfsSpec(5))
	if err != nil {
		t.Fatal(err)
	}
	es, err := a.Pop(ctx, st.ID, "", crawler.FIFO, 2, 0)
	if err != nil || len(es) != 2 {
		t.Fatalf("pop: %v, %v", es, err)
	}
	// Another process puts a's leases back, as if they had expired, and
	// has not committed when a commits its pages.
	other, err := a.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := requeue(ctx, other, st.ID, `true`); err != nil || n != 2 {
		t.Fatalf("requeue: %d, %v", n, err)
	}
	pages, _ := crawlOf(es)
	done := make(chan error, 1)
	go func() { done <- a.Commit(ctx, st.ID, pages, nil) }()
	time.Sleep(300 * time.Millisecond) // a waits for the URLs' row locks
	if err := other.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	checkCounts(t, ctx, conn, st.ID)

	// A count off by one, per host and in all, is set right by a resume.
	if _, err := conn.Exec(ctx, `UPDATE crawls SET waiting = waiting + 1; UPDATE hosts SET waiting = waiting - 1 WHERE host = 'h3.test'`); err != nil {
		t.Fatal(err)
	}
	var log syncBuffer
	b := openURL(t, url, Options{LeaseExpiry: time.Second, Log: &log})
	if _, err := b.OpenCrawl(ctx, bfsSpec(5)); err != nil {
		t.Fatal(err)
	}
	checkCounts(t, ctx, conn, st.ID)
	if !strings.Contains(log.String(), "corrected") {
		t.Errorf("the repair was not told: %q", log.String())
	}
}

func TestConnLost(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{&pgconn.PgError{Code: "57P01"}, true},
		{&pgconn.PgError{Code: "57P03"}, true},
		{&pgconn.PgError{Code: "08006"}, true},
		{&pgconn.PgError{Code: "40P01"}, false},
		{&pgconn.PgError{Code: "23505"}, false},
		{fmt.Errorf("commit: %w", io.ErrUnexpectedEOF), true},
		{io.EOF, true},
		{&net.OpError{Op: "read", Err: syscall.ECONNRESET}, true},
		{fmt.Errorf("write: %w", syscall.EPIPE), true},
		{errors.New("conn closed"), true},
		{context.Canceled, false},
		{errors.New("syntax error"), false},
	} {
		if got := connLost(c.err); got != c.want {
			t.Errorf("connLost(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// TestStore_modelOnceWaitsForTheServer: a process that starts while the
// server is down waits for it, trains once and stores its model.
func TestStore_modelOnceWaitsForTheServer(t *testing.T) {
	ctx := context.Background()
	srv := pgtest.Private(t)
	url, err := srv.NewDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s := openURL(t, url, Options{MaxOutage: time.Minute})
	if err := srv.Down(); err != nil {
		t.Fatal(err)
	}
	type out struct {
		model []byte
		err   error
	}
	done := make(chan out, 1)
	trained := 0
	go func() {
		m, err := s.ModelOnce(ctx, "m", func() ([]byte, error) {
			trained++
			return []byte(`{"model":1}`), nil
		})
		done <- out{m, err}
	}()
	time.Sleep(time.Second)
	if err := srv.Up(); err != nil {
		t.Fatal(err)
	}
	o := <-done
	if o.err != nil || string(o.model) != `{"model":1}` || trained != 1 {
		t.Fatalf("ModelOnce across a restart: %q, %v, trained %d times", o.model, o.err, trained)
	}
	if m, err := s.Model(ctx, "m"); err != nil || string(m) != `{"model":1}` {
		t.Errorf("stored model %q, %v", m, err)
	}
}

// TestStore_tokenTakenIsNoCommit: a transaction whose token is found
// taken before any attempt sent COMMIT (another transaction's token) runs
// with a new one, instead of passing for committed.
func TestStore_tokenTakenIsNoCommit(t *testing.T) {
	ctx := context.Background()
	s := openURL(t, pgtest.URL(t), Options{})
	// A committed transaction leaves its token; attempts with that token
	// meet a duplicate key.
	ran := 0
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		ran++
		return nil
	})
	if err != nil || ran != 1 {
		t.Fatalf("plain transaction: %v, ran %d", err, ran)
	}
	var tok int64
	if err := s.pool.QueryRow(ctx, `SELECT token FROM tx_tokens LIMIT 1`).Scan(&tok); err != nil {
		t.Fatal(err)
	}
	ran = 0
	if err := s.tryTx(ctx, tok, false, func(pgx.Tx) error { ran++; return nil }); !errors.Is(err, errTokenTaken) || ran != 0 {
		t.Errorf("a taken token before any COMMIT: %v (ran %d), want errTokenTaken", err, ran)
	}
	if err := s.tryTx(ctx, tok, true, func(pgx.Tx) error { ran++; return nil }); err != nil || ran != 0 {
		t.Errorf("a taken token after a COMMIT sent: %v (ran %d), want the earlier commit", err, ran)
	}
}
