package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	neturl "net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/internal/pgtest"
	"github.com/scent-crawler/scent/internal/storetest"
	"github.com/scent-crawler/scent/urlnorm"
)

func u(host, path string) urlnorm.URL { return urlnorm.MustParse("http://" + host + path) }

func bfsSpec(n int) crawler.CrawlSpec {
	spec := crawler.CrawlSpec{Name: "shared", Strategy: crawler.StrategyBFS, Stacks: []string{""}}
	for i := 0; i < n; i++ {
		spec.Seeds = append(spec.Seeds, u(fmt.Sprintf("h%d.test", i%7), fmt.Sprintf("/%d", i)))
	}
	return spec
}

// abandon stops s as a process killed with -9 would: no more heartbeats,
// no leases given back.
func (s *Store) abandon() {
	s.mu.Lock()
	stop := s.stop
	s.stop = nil
	s.holders = map[int64]string{}
	s.mu.Unlock()
	if stop != nil {
		close(stop)
		<-s.done
	}
}

// TestStore_sharedCrawl: four stores on one database, each in its own
// goroutine as four processes would be, crawl one frontier of 200 URLs
// (every page links to the next ten) and fetch every URL once.
func TestStore_sharedCrawl(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	const n = 200
	spec := bfsSpec(0)
	spec.Seeds = []urlnorm.URL{u("h0.test", "/0")}
	var mu sync.Mutex
	fetched := make(map[string]int)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := 0; w < 4; w++ {
		s := openURL(t, url, Options{LeaseExpiry: 3 * time.Second})
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := s.OpenCrawl(ctx, spec)
			if err != nil {
				errs <- err
				return
			}
			for {
				es, err := s.Pop(ctx, st.ID, "", crawler.FIFO, 3, 0)
				if err != nil {
					errs <- err
					return
				}
				if len(es) == 0 {
					more, err := s.AwaitWork(ctx, st.ID)
					if err != nil {
						errs <- err
						return
					}
					if more {
						continue
					}
					return
				}
				var pages []*crawler.Page
				var push []crawler.Entry
				for _, e := range es {
					mu.Lock()
					fetched[e.URL.String()]++
					mu.Unlock()
					var i int
					fmt.Sscanf(e.URL.Path(), "/%d", &i)
					pages = append(pages, &crawler.Page{URL: e.URL, Status: 200, FetchedAt: time.Now(), Title: e.URL.String(),
						Text: strings.Repeat(fmt.Sprintf("word%d ", i), 3) + "page of the shared crawl number " + fmt.Sprint(i*7919)})
					for j := i + 1; j <= i+10 && j < n; j++ {
						push = append(push, crawler.Entry{URL: u(fmt.Sprintf("h%d.test", j%7), fmt.Sprintf("/%d", j)), Depth: e.Depth + 1})
					}
				}
				if err := s.Commit(ctx, st.ID, pages, push); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(fetched) != n {
		t.Errorf("%d URLs fetched, want %d", len(fetched), n)
	}
	for u, k := range fetched {
		if k != 1 {
			t.Errorf("%s fetched %d times", u, k)
		}
	}
	s := openURL(t, url, Options{})
	var pages, ords, maxOrd int
	s.pool.QueryRow(ctx, `SELECT count(*), count(DISTINCT ord), max(ord) FROM pages`).Scan(&pages, &ords, &maxOrd)
	if pages != n || ords != n || maxOrd != n {
		t.Errorf("store holds %d pages with %d distinct orders up to %d; want %d, 1…%d", pages, ords, maxOrd, n, n)
	}
}

// TestStore_killedHolder: the leases of a process that stopped without
// closing its store go to another process once they expire, and the
// late process's commit does not store a page twice.
func TestStore_killedHolder(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	spec := bfsSpec(6)
	a := openURL(t, url, Options{LeaseExpiry: time.Second})
	b := openURL(t, url, Options{LeaseExpiry: time.Second})
	sa, err := a.OpenCrawl(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := b.OpenCrawl(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	lost, err := a.Pop(ctx, sa.ID, "", crawler.FIFO, 2, 0)
	if err != nil || len(lost) != 2 {
		t.Fatalf("pop: %v %v", lost, err)
	}
	a.abandon()
	got, err := b.Pop(ctx, sb.ID, "", crawler.FIFO, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("with the leases alive another process popped %d URLs, want the 4 not leased", len(got))
	}
	// The wait ends when the dead process's leases expire.
	more, err := b.AwaitWork(ctx, sb.ID)
	if err != nil || !more {
		t.Fatalf("AwaitWork = %v, %v; want the expired leases back", more, err)
	}
	back, err := b.Pop(ctx, sb.ID, "", crawler.FIFO, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != 2 || back[0].URL != lost[1].URL && back[0].URL != lost[0].URL {
		t.Fatalf("after the expiry popped %v, want the lost leases %v", back, lost)
	}
	var pages []*crawler.Page
	for _, e := range append(got, back...) {
		pages = append(pages, &crawler.Page{URL: e.URL, FetchedAt: time.Now(), Failure: "http: test"})
	}
	if err := b.Commit(ctx, sb.ID, pages, nil); err != nil {
		t.Fatal(err)
	}
	// The abandoned process wakes up and commits a page it fetched.
	if err := a.Commit(ctx, sa.ID, []*crawler.Page{{URL: lost[0].URL, FetchedAt: time.Now(), Failure: "http: late"}}, nil); err != nil {
		t.Fatal(err)
	}
	var n int
	b.pool.QueryRow(ctx, `SELECT count(*) FROM pages`).Scan(&n)
	if n != 6 {
		t.Errorf("%d pages stored, want 6 (each URL once)", n)
	}
	if more, err := b.AwaitWork(ctx, sb.ID); err != nil || more {
		t.Errorf("AwaitWork at the end = %v, %v; want false", more, err)
	}
}

// TestStore_AwaitWork_sweepsStaleRows: a frontier row left for a URL
// already fetched (a push that raced a pop of its URL) is deleted when
// AwaitWork finds the crawl done.
func TestStore_AwaitWork_sweepsStaleRows(t *testing.T) {
	ctx := context.Background()
	s := openURL(t, pgtest.URL(t), Options{})
	st, err := s.OpenCrawl(ctx, bfsSpec(3))
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Pop(ctx, st.ID, "", crawler.FIFO, 10, 0)
	if err != nil || len(got) != 3 {
		t.Fatalf("pop: %v %v", got, err)
	}
	var pages []*crawler.Page
	for _, e := range got {
		pages = append(pages, &crawler.Page{URL: e.URL, FetchedAt: time.Now(), Failure: "http: test"})
	}
	if err := s.Commit(ctx, st.ID, pages, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO frontier(crawl_id, topic, url_id, depth, score)
		SELECT crawl_id, '', id, 0, 0 FROM urls WHERE crawl_id = $1 AND url = $2`, st.ID, got[1].URL.String()); err != nil {
		t.Fatal(err)
	}
	if more, err := s.AwaitWork(ctx, st.ID); err != nil || more {
		t.Fatalf("AwaitWork at the end = %v, %v; want false", more, err)
	}
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM frontier WHERE crawl_id = $1`, st.ID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d frontier rows left at the crawl's end, want none", n)
	}
}

// TestStore_pushDuringPop: a push of a URL that another process's pop
// is leasing at that moment (the pop has deleted the URL's row and not
// committed) waits for that pop and leaves no frontier row for the
// leased URL, on the breadth-first queue and on a topic's stack.
func TestStore_pushDuringPop(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	for _, spec := range []crawler.CrawlSpec{
		{Name: "queue", Strategy: crawler.StrategyBFS, Stacks: []string{""}},
		{Name: "stack", Strategy: crawler.StrategyLink, Stacks: []string{"course"}, Topics: []string{"course"}},
	} {
		t.Run(spec.Name, func(t *testing.T) {
			s := openURL(t, url, Options{})
			st, err := s.OpenCrawl(ctx, spec)
			if err != nil {
				t.Fatal(err)
			}
			topic := spec.Stacks[0]
			target := u("h.test", "/p")
			entry := []crawler.Entry{{Topic: topic, URL: target, Depth: 1, Score: 0.5}}
			if err := s.Commit(ctx, st.ID, nil, entry); err != nil {
				t.Fatal(err)
			}
			// Another process's pop, as Pop does it, left open.
			pop, err := s.pool.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer pop.Rollback(ctx)
			var seq, id int64
			if err := pop.QueryRow(ctx, `SELECT f.seq, f.url_id FROM frontier f WHERE f.crawl_id = $1 AND f.topic = $2 FOR UPDATE OF f SKIP LOCKED`,
				st.ID, topic).Scan(&seq, &id); err != nil {
				t.Fatal(err)
			}
			if _, err := pop.Exec(ctx, `DELETE FROM frontier WHERE seq = $1`, seq); err != nil {
				t.Fatal(err)
			}
			if _, err := pop.Exec(ctx, `UPDATE urls SET state = 1, topic = $1, holder = NULL WHERE id = $2 AND state = 0`, topic, id); err != nil {
				t.Fatal(err)
			}
			pushed := make(chan error, 1)
			go func() { pushed <- s.Commit(ctx, st.ID, nil, entry) }()
			select {
			case err := <-pushed:
				t.Fatalf("the push did not wait for the pop that holds its row: %v", err)
			case <-time.After(300 * time.Millisecond):
			}
			if err := pop.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			if err := <-pushed; err != nil {
				t.Fatal(err)
			}
			var rows int
			if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM frontier WHERE crawl_id = $1 AND url_id = $2`, st.ID, id).Scan(&rows); err != nil {
				t.Fatal(err)
			}
			if rows != 0 {
				t.Errorf("%d frontier rows for the URL leased while it was pushed, want none", rows)
			}
		})
	}
}

// TestStore_PopPeek_othersEntries: a pop's peek passes over the
// entries another process's pop is taking at that moment (their rows
// locked), and leaves none of those it reads locked: while the pop that
// peeked has not committed, another process's pop may take them.
func TestStore_PopPeek_othersEntries(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	s := openURL(t, url, Options{})
	other := openURL(t, url, Options{})
	spec := crawler.CrawlSpec{Name: "peek", Strategy: crawler.StrategyLink, Stacks: []string{"t"}, Topics: []string{"t"}}
	st, err := s.OpenCrawl(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.OpenCrawl(ctx, spec); err != nil {
		t.Fatal(err)
	}
	var push []crawler.Entry
	for i, score := range []float64{0.9, 0.8, 0.7, 0.6, 0.5, 0.4} {
		push = append(push, crawler.Entry{Topic: "t", URL: u("h.test", fmt.Sprintf("/%d", i+1)), Depth: 1, Score: score})
	}
	if err := s.Commit(ctx, st.ID, nil, push); err != nil {
		t.Fatal(err)
	}
	paths := func(es []crawler.Entry) string {
		var out []string
		for _, e := range es {
			out = append(out, e.URL.Path())
		}
		return strings.Join(out, " ")
	}
	const waiting = `SELECT coalesce(string_agg(u.url, ' ' ORDER BY f.score DESC), '') FROM
		(SELECT f.url_id, f.score FROM frontier f WHERE f.crawl_id = $1 AND f.topic = 't' ORDER BY f.score DESC FOR UPDATE OF f SKIP LOCKED) f
		JOIN urls u ON u.id = f.url_id`

	// Another process's pop, as Pop does it, holds /2's row.
	pop, err := other.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer pop.Rollback(ctx)
	if _, err := pop.Exec(ctx, `SELECT f.seq FROM frontier f JOIN urls u ON u.id = f.url_id WHERE u.url = $1 FOR UPDATE OF f`, push[1].URL.String()); err != nil {
		t.Fatal(err)
	}
	taken, next, err := s.PopPeek(ctx, st.ID, "t", crawler.BestFirst, 1, 0, 3)
	if err != nil || paths(taken) != "/1" || paths(next) != "/3 /4 /5" {
		t.Errorf("with /2 held by another pop: took %q and saw %q (%v), want /1 and /3 /4 /5", paths(taken), paths(next), err)
	}
	if err := pop.Rollback(ctx); err != nil {
		t.Fatal(err)
	}

	// The crawl's row held, the next pop waits to commit, after its peek.
	hold, err := other.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback(ctx)
	if _, err := hold.Exec(ctx, `SELECT 1 FROM crawls WHERE id = $1 FOR UPDATE`, st.ID); err != nil {
		t.Fatal(err)
	}
	type popped struct {
		taken, next []crawler.Entry
		err         error
	}
	done := make(chan popped, 1)
	go func() {
		taken, next, err := s.PopPeek(ctx, st.ID, "t", crawler.BestFirst, 1, 0, 2)
		done <- popped{taken, next, err}
	}()
	for blocked := false; !blocked; {
		select {
		case p := <-done:
			t.Fatalf("the pop did not wait for the crawl's row: took %q, saw %q (%v)", paths(p.taken), paths(p.next), p.err)
		case <-time.After(10 * time.Millisecond):
		}
		if err := other.pool.QueryRow(ctx, `SELECT count(*) > 0 FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'UPDATE crawls SET waiting%'`).Scan(&blocked); err != nil {
			t.Fatal(err)
		}
	}
	// /2 is the waiting pop's; /3 and /4, which it peeked at, are free.
	var free string
	if err := other.pool.QueryRow(ctx, waiting, st.ID).Scan(&free); err != nil {
		t.Fatal(err)
	}
	if want := "http://h.test/3 http://h.test/4 http://h.test/5 http://h.test/6"; free != want {
		t.Errorf("while a pop that peeked waits, another pop may take %q, want %q", free, want)
	}
	if err := hold.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if p := <-done; p.err != nil || paths(p.taken) != "/2" || paths(p.next) != "/3 /4" {
		t.Errorf("the pop took %q and saw %q (%v), want /2 and /3 /4", paths(p.taken), paths(p.next), p.err)
	}
}

// TestStore_budget: the budget holds across processes, and a failed fetch
// gives its place back.
func TestStore_budget(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	spec := bfsSpec(20)
	a := openURL(t, url, Options{Budget: 5})
	b := openURL(t, url, Options{Budget: 5})
	sa, _ := a.OpenCrawl(ctx, spec)
	sb, _ := b.OpenCrawl(ctx, spec)
	ea, err := a.Pop(ctx, sa.ID, "", crawler.FIFO, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	eb, err := b.Pop(ctx, sb.ID, "", crawler.FIFO, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ea)+len(eb) != 5 {
		t.Fatalf("two processes leased %d + %d URLs with a budget of 5", len(ea), len(eb))
	}
	pages := []*crawler.Page{{URL: eb[0].URL, FetchedAt: time.Now(), Failure: "http: 404"}}
	for _, e := range eb[1:] {
		pages = append(pages, &crawler.Page{URL: e.URL, Status: 200, FetchedAt: time.Now()})
	}
	if err := b.Commit(ctx, sb.ID, pages, nil); err != nil {
		t.Fatal(err)
	}
	more, err := a.Pop(ctx, sa.ID, "", crawler.FIFO, 3, 0)
	if err != nil || len(more) != 1 {
		t.Fatalf("after a failed fetch popped %v (%v), want the one place it gave back", more, err)
	}
	// The processes together spend the budget: the crawl is done for
	// each, and AwaitWork says why.
	pages = nil
	for _, e := range append(ea, more...) {
		pages = append(pages, &crawler.Page{URL: e.URL, Status: 200, FetchedAt: time.Now()})
	}
	if err := a.Commit(ctx, sa.ID, pages, nil); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Store{a, b} {
		if more, err := s.AwaitWork(ctx, sa.ID); more || !errors.Is(err, crawler.ErrSharedBudgetSpent) {
			t.Errorf("AwaitWork with the budget spent: %v, %v; want false, ErrSharedBudgetSpent", more, err)
		}
	}
}

// TestStore_hostDelay: a host leased by one process is not leased again,
// by any process, before the delay.
func TestStore_hostDelay(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	spec := crawler.CrawlSpec{Name: "polite", Strategy: crawler.StrategyBFS, Stacks: []string{""},
		Seeds: []urlnorm.URL{u("a.test", "/1"), u("a.test", "/2"), u("b.test", "/1")}}
	a := openURL(t, url, Options{HostDelay: time.Hour})
	b := openURL(t, url, Options{HostDelay: time.Hour})
	sa, _ := a.OpenCrawl(ctx, spec)
	sb, _ := b.OpenCrawl(ctx, spec)
	ea, _ := a.Pop(ctx, sa.ID, "", crawler.FIFO, 1, 0)
	eb, err := b.Pop(ctx, sb.ID, "", crawler.FIFO, 5, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ea) != 1 || len(eb) != 1 || ea[0].URL.Host() == eb[0].URL.Host() {
		t.Fatalf("popped %v and %v: want one URL of each host", ea, eb)
	}
	sizes, _ := b.FrontierSizes(ctx, sb.ID)
	if sizes[""] != 1 {
		t.Errorf("frontier holds %d entries, want the second URL of a.test waiting", sizes[""])
	}
}

// TestStore_concurrentDuplicates: two processes committing the same text
// under different URLs at once keep one original.
func TestStore_concurrentDuplicates(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	stores, ids := twoProcesses(t, url, bfsSpec(40))
	text := strings.Repeat("the same long text about crawling the web with many processes at once ", 5)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				es, err := s.Pop(ctx, ids[i], "", crawler.FIFO, 1, 0)
				if err != nil || len(es) == 0 {
					errs[i] = err
					return
				}
				p := &crawler.Page{URL: es[0].URL, Status: 200, FetchedAt: time.Now(), Title: "same", Text: text}
				if err := s.Commit(ctx, ids[i], []*crawler.Page{p}, nil); err != nil {
					errs[i] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	var pages, originals int
	stores[0].pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE duplicate_of IS NULL) FROM pages`).Scan(&pages, &originals)
	if pages != 40 || originals != 1 {
		t.Errorf("%d pages, %d originals; want 40 pages, 1 original", pages, originals)
	}
	res, err := stores[1].Search(ctx, "crawling processes", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || !strings.Contains(res[0].Snippet, "[") {
		t.Errorf("search found %+v, want the one original with a marked snippet", res)
	}
}

func TestStore_SaveModel(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	a, b := openURL(t, url, Options{}), openURL(t, url, Options{})
	if _, err := a.Model(ctx, "m"); !errors.Is(err, ErrNoModel) {
		t.Fatalf("model before any: %v", err)
	}
	got, err := a.SaveModel(ctx, "m", []byte("first"))
	if err != nil || string(got) != "first" {
		t.Fatalf("SaveModel = %q, %v", got, err)
	}
	if got, err := b.SaveModel(ctx, "m", []byte("second")); err != nil || string(got) != "first" {
		t.Errorf("a second process's model replaced the first: %q, %v", got, err)
	}
}

func TestOpen_errors(t *testing.T) {
	ctx := context.Background()
	if _, err := Open(ctx, "crawl.db", Options{}); !errors.Is(err, ErrNotPostgres) {
		t.Errorf("Open of a file name: %v", err)
	}
	url := pgtest.URL(t)
	s := openURL(t, url, Options{})
	if _, err := s.pool.Exec(ctx, `UPDATE scent_schema SET version = 999`); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, url, Options{}); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Errorf("Open of a newer schema: %v", err)
	}
	if _, err := Open(ctx, "postgres://scent:secret@127.0.0.1:1/none?sslmode=disable&connect_timeout=2", Options{}); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("Open of a closed port: %v (must fail without showing the password)", err)
	}
}

// TestOpen_synchronousCommit: the store's sessions do not wait for the
// disk unless the URL asks them to.
func TestOpen_synchronousCommit(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	for _, tc := range []struct{ url, want string }{{url, "off"}, {url + "&synchronous_commit=on", "on"}} {
		s := openURL(t, tc.url, Options{})
		var got string
		if err := s.pool.QueryRow(ctx, `SHOW synchronous_commit`).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%s: synchronous_commit %s, want %s", tc.url, got, tc.want)
		}
	}
}

// TestOpen_foreignOrEmpty: a database of another program is refused, and
// given none of scent's tables; a reader (Options.Existing) refuses an
// empty database without creating them.
func TestOpen_foreignOrEmpty(t *testing.T) {
	ctx := context.Background()
	tables := func(url string) []string {
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		var names []string
		if err := conn.QueryRow(ctx, `SELECT ARRAY(SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1)`).Scan(&names); err != nil {
			t.Fatal(err)
		}
		return names
	}
	empty := pgtest.URL(t)
	if _, err := Open(ctx, empty, Options{Existing: true}); !errors.Is(err, ErrNoCrawls) {
		t.Errorf("a reader's open of an empty database: %v, want ErrNoCrawls", err)
	}
	if got := tables(empty); len(got) != 0 {
		t.Errorf("a reader's open created %v", got)
	}
	foreign := pgtest.URL(t)
	conn, err := pgx.Connect(ctx, foreign)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `CREATE TABLE customers(id serial PRIMARY KEY, name text)`); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	if _, err := Open(ctx, foreign, Options{}); !errors.Is(err, ErrNotScent) || !strings.Contains(err.Error(), "customers") {
		t.Errorf("open of another program's database: %v, want ErrNotScent naming its tables", err)
	}
	if got := tables(foreign); strings.Join(got, ",") != "customers" {
		t.Errorf("another program's database now holds %v", got)
	}
}

// TestOpen_connectFailure: a failed connection says the server's answer,
// not pgx's list of attempts with sslmode=prefer's refused TLS first.
func TestOpen_connectFailure(t *testing.T) {
	u, err := neturl.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/scent_no_such_database"
	u.RawQuery = "" // sslmode=prefer: TLS refused first
	_, err = Open(context.Background(), u.String(), Options{})
	if err == nil || !strings.Contains(err.Error(), `database "scent_no_such_database" does not exist`) || strings.Contains(err.Error(), "tls") {
		t.Errorf("open of a missing database: %v, want the server's answer alone", err)
	}
	u.Host = "127.0.0.1:1"
	_, err = Open(context.Background(), u.String(), Options{})
	if err == nil || !strings.Contains(err.Error(), "connection refused") || strings.Count(err.Error(), "connection refused") != 1 {
		t.Errorf("open of a closed port: %v, want one connection refused", err)
	}
}

// TestStore_concurrentDuplicateRounds: two processes sharing a crawl
// commit the same page under different URLs at the same moment, round
// after round, and every round keeps one original and one duplicate of
// it. Each kind of page is decided by its own locks: a text of at least a
// shingle's words by its min-hash keys, a shorter text by the keys of its
// exact signature, a page without words (an empty body, or punctuation
// only) by its body's hash.
func TestStore_concurrentDuplicateRounds(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	stores, ids := twoProcesses(t, url, bfsSpec(1))
	if ids[0] != ids[1] {
		t.Fatalf("crawls %d and %d, want one shared crawl", ids[0], ids[1])
	}
	kinds := []struct {
		name string
		text func(round int) string
	}{
		{"long", func(r int) string {
			return strings.Repeat(fmt.Sprintf("round %d of a long text that many processes store at once ", r), 4)
		}},
		{"short", func(r int) string { return fmt.Sprintf("round %d", r) }},
		{"empty", func(int) string { return "" }},
		{"punctuation", func(int) string { return "— · —" }},
	}
	const rounds = 50
	for _, kind := range kinds {
		t.Run(kind.name, func(t *testing.T) {
			for r := 0; r < rounds; r++ {
				text := kind.text(r)
				sum := sha256.Sum256([]byte(fmt.Sprintf("<p>%s</p><!-- %s %d -->", text, kind.name, r)))
				hash := hex.EncodeToString(sum[:])
				start := make(chan struct{})
				var wg sync.WaitGroup
				errs := make([]error, len(stores))
				for i, s := range stores {
					p := &crawler.Page{URL: u(fmt.Sprintf("p%d.test", i), fmt.Sprintf("/%s/%d", kind.name, r)), Status: 200,
						FetchedAt: time.Now(), ContentHash: hash, Text: text}
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						errs[i] = s.Commit(ctx, ids[i], []*crawler.Page{p}, nil)
					}()
				}
				close(start)
				wg.Wait()
				if err := errors.Join(errs...); err != nil {
					t.Fatal(err)
				}
			}
			rows, err := stores[0].pool.Query(ctx, `SELECT count(*), count(*) FILTER (WHERE duplicate_of IS NULL),
				count(*) FILTER (WHERE duplicate_of IN (SELECT id FROM pages o WHERE o.content_hash = p.content_hash AND o.duplicate_of IS NULL))
				FROM pages p WHERE url LIKE $1 GROUP BY content_hash`, "%/"+kind.name+"/%")
			if err != nil {
				t.Fatal(err)
			}
			counts, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) ([3]int, error) {
				var c [3]int
				err := row.Scan(&c[0], &c[1], &c[2])
				return c, err
			})
			if err != nil {
				t.Fatal(err)
			}
			twice := 0
			for _, c := range counts {
				if c != [3]int{2, 1, 1} {
					twice++
				}
			}
			if len(counts) != rounds || twice > 0 {
				t.Errorf("%d rounds stored, %d of them without one original and one duplicate of it; want %d, 0", len(counts), twice, rounds)
			}
		})
	}
}

// twoProcesses opens two stores on the database at url, as two processes
// do, and the crawl of spec in each: the crawl's id as each sees it.
func twoProcesses(t *testing.T, url string, spec crawler.CrawlSpec) ([]*Store, [2]int64) {
	t.Helper()
	stores := []*Store{openURL(t, url, Options{}), openURL(t, url, Options{})}
	var ids [2]int64
	for i, s := range stores {
		st, err := s.OpenCrawl(context.Background(), spec)
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = st.ID
	}
	return stores, ids
}

// BenchmarkStore_push is sqlite's BenchmarkStore_push on PostgreSQL: a
// round's pushes onto a best-first stack of 25,000 entries
// (storetest.BenchPush), with the statistics the store keeps fresh
// (keepStatistics) and with none gathered since the tables were empty.
// It reports the time a link.
func BenchmarkStore_push(b *testing.B) {
	for _, stale := range []bool{false, true} {
		name := "fresh"
		if stale {
			name = "stale"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			s, err := Open(ctx, pgtest.URL(b), Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			s.noAnalyze = stale
			st, err := s.OpenCrawl(ctx, crawler.CrawlSpec{Name: "bench", Strategy: crawler.StrategyLink, Stacks: []string{"robots"}, Topics: []string{"robots"}})
			if err != nil {
				b.Fatal(err)
			}
			storetest.BenchPush(b, s, st.ID)
		})
	}
}

// BenchmarkStore_pop is sqlite's BenchmarkStore_pop on PostgreSQL: a
// round's pop of 16 entries from a best-first stack of 25,000, with and
// without the peek at the 16 after them (storetest.BenchPop), each on a
// database of its own. It reports the time a pop.
func BenchmarkStore_pop(b *testing.B) {
	storetest.BenchPop(b, func(b *testing.B) (crawler.Store, int64) {
		s, err := Open(context.Background(), pgtest.URL(b), Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		st, err := s.OpenCrawl(context.Background(), crawler.CrawlSpec{Name: "bench", Strategy: crawler.StrategyLink, Stacks: []string{"robots"}, Topics: []string{"robots"}})
		if err != nil {
			b.Fatal(err)
		}
		return s, st.ID
	})
}

// TestStore_Commit_searchVectors: one commit of a failed page, an
// original and a near-duplicate of it makes the original alone
// searchable, by its title and by its text, and gives every page its
// place in the crawl's order.
func TestStore_Commit_searchVectors(t *testing.T) {
	ctx := context.Background()
	s := openURL(t, pgtest.URL(t), Options{})
	st, err := s.OpenCrawl(ctx, bfsSpec(3))
	if err != nil {
		t.Fatal(err)
	}
	es, err := s.Pop(ctx, st.ID, "", crawler.FIFO, 3, 0)
	if err != nil || len(es) != 3 {
		t.Fatalf("popped %v, %v; want 3 entries", es, err)
	}
	text := strings.Repeat("pangolins roam the crawled web in search of ants and termites ", 6)
	pages := []*crawler.Page{
		{URL: es[0].URL, Status: 404, FetchedAt: time.Now(), Failure: "status 404", Title: "armadillo"},
		{URL: es[1].URL, Status: 200, FetchedAt: time.Now(), Title: "Aardvark", Text: text},
		{URL: es[2].URL, Status: 200, FetchedAt: time.Now(), Title: "Aardvark", Text: text},
	}
	if err := s.Commit(ctx, st.ID, pages, nil); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"aardvark", "termites"} {
		res, err := s.Search(ctx, q, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != 1 || res[0].URL != es[1].URL.String() {
			t.Errorf("search %q found %+v, want the original %s alone", q, res, es[1].URL)
		}
	}
	if res, err := s.Search(ctx, "armadillo", 10); err != nil || len(res) != 0 {
		t.Errorf("search for the failed page's title found %+v, %v; want nothing", res, err)
	}
	var ords []int64
	rows, err := s.pool.Query(ctx, `SELECT ord FROM pages ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var o int64
		if err := rows.Scan(&o); err != nil {
			t.Fatal(err)
		}
		ords = append(ords, o)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ords, []int64{1, 2, 3}) {
		t.Errorf("pages' order %v, want [1 2 3]", ords)
	}
}

// TestStore_OpenCrawl_joinsWithItsBudget: a process joining others that
// run a crawl is told so (CrawlState.Others) and must bring the crawl's
// budget: another would change theirs. Alone, a process resuming the
// crawl sets a new budget.
func TestStore_OpenCrawl_joinsWithItsBudget(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	spec := bfsSpec(5)
	a := openURL(t, url, Options{Budget: 250})
	if st, err := a.OpenCrawl(ctx, spec); err != nil || st.Others != 0 {
		t.Fatalf("first process: %+v, %v", st, err)
	}
	b := openURL(t, url, Options{Budget: 100})
	if _, err := b.OpenCrawl(ctx, spec); err == nil || !strings.Contains(err.Error(), "run by 1 other process(es) with a budget of 250 pages; join it with the same budget (--max-pages 250)") {
		t.Errorf("a process joining with another budget: %v", err)
	}
	c := openURL(t, url, Options{Budget: 250})
	if st, err := c.OpenCrawl(ctx, spec); err != nil || st.Others != 1 || !st.Resumed {
		t.Errorf("a process joining with the crawl's budget: %+v, %v; want 1 other", st, err)
	}
	a.Close()
	c.Close()
	d := openURL(t, url, Options{Budget: 100})
	st, err := d.OpenCrawl(ctx, spec)
	if err != nil || st.Others != 0 {
		t.Fatalf("a process resuming the crawl alone: %+v, %v", st, err)
	}
	var budget int
	if err := d.pool.QueryRow(ctx, `SELECT budget FROM crawls WHERE id = $1`, st.ID).Scan(&budget); err != nil || budget != 100 {
		t.Errorf("budget after a resume with --max-pages 100: %d, %v", budget, err)
	}
}

// TestStore_hostDelay_onePop: within one pop, a host's slot goes to its
// first entry; its other entries stay on the stack, and the pop takes
// the next hosts' instead.
func TestStore_hostDelay_onePop(t *testing.T) {
	ctx := context.Background()
	s := openURL(t, pgtest.URL(t), Options{HostDelay: time.Hour})
	spec := crawler.CrawlSpec{Name: "polite", Strategy: crawler.StrategyBFS, Stacks: []string{""},
		Seeds: []urlnorm.URL{u("a.test", "/1"), u("a.test", "/2"), u("b.test", "/1"), u("a.test", "/3"), u("c.test", "/1")}}
	st, err := s.OpenCrawl(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	es, err := s.Pop(ctx, st.ID, "", crawler.FIFO, 5, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		got = append(got, e.URL.Host())
	}
	slices.Sort(got)
	if strings.Join(got, " ") != "a.test b.test c.test" {
		t.Errorf("popped URLs of hosts %v, want one URL of each host", got)
	}
	if sizes, _ := s.FrontierSizes(ctx, st.ID); sizes[""] != 2 {
		t.Errorf("frontier holds %d entries, want a.test's other two waiting", sizes[""])
	}
	if es, err := s.Pop(ctx, st.ID, "", crawler.FIFO, 5, 0); err != nil || len(es) != 0 {
		t.Errorf("a second pop within the delay took %v (%v), want none", es, err)
	}
}

// TestStore_hostDelay_underAMillisecond: a delay shorter than a
// millisecond, which Go writes in µs or ns (units PostgreSQL's intervals
// do not read), gates hosts as any other.
func TestStore_hostDelay_underAMillisecond(t *testing.T) {
	ctx := context.Background()
	s := openURL(t, pgtest.URL(t), Options{HostDelay: 500 * time.Microsecond})
	st, err := s.OpenCrawl(ctx, crawler.CrawlSpec{Name: "quick", Strategy: crawler.StrategyBFS, Stacks: []string{""},
		Seeds: []urlnorm.URL{u("a.test", "/1"), u("b.test", "/1")}})
	if err != nil {
		t.Fatal(err)
	}
	if es, err := s.Pop(ctx, st.ID, "", crawler.FIFO, 2, 0); err != nil || len(es) != 2 {
		t.Errorf("pop with a host delay of 500µs: %v, %v; want both seeds", es, err)
	}
}

// BenchmarkStore_popHostDelay is BenchmarkStore_pop with a host delay
// (Options.HostDelay, as scent crawl's --delay gives a PostgreSQL crawl):
// a pop of 16 from a best-first stack of 25,000 entries spread over 5,000
// hosts, each host's slot free again by the next pop. It reports the
// time a pop.
func BenchmarkStore_popHostDelay(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, pgtest.URL(b), Options{HostDelay: time.Millisecond})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	st, err := s.OpenCrawl(ctx, crawler.CrawlSpec{Name: "bench", Strategy: crawler.StrategyLink, Stacks: []string{"robots"}, Topics: []string{"robots"}})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	next := 0
	fill := func(k int) {
		es := make([]crawler.Entry, k)
		for i := range es {
			es[i] = crawler.Entry{Topic: "robots", URL: urlnorm.MustParse(fmt.Sprintf("http://h%d.test/p%d.html", rng.IntN(5000), next)), Depth: 2, Score: rng.Float64()}
			next++
		}
		if err := s.Commit(ctx, st.ID, nil, es); err != nil {
			b.Fatal(err)
		}
	}
	for range 50 {
		fill(500)
	}
	for b.Loop() {
		es, err := s.Pop(ctx, st.ID, "robots", crawler.BestFirst, 16, 0)
		if err != nil || len(es) == 0 {
			b.Fatalf("pop: %d taken, %v", len(es), err)
		}
		b.StopTimer()
		fill(len(es))
		time.Sleep(time.Millisecond) // the hosts' slots free again
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/pop")
}

// TestStore_CrawlCounts: the counts of a shared crawl are those of every
// process: committed fetches, pages and pages on-topic per topic.
func TestStore_CrawlCounts(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	spec := crawler.CrawlSpec{Name: "shared", Strategy: crawler.StrategyLink, Stacks: []string{"course", "faculty"}, Topics: []string{"course", "faculty"}}
	a, b := openURL(t, url, Options{}), openURL(t, url, Options{})
	stA, err := a.OpenCrawl(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	stB, err := b.OpenCrawl(ctx, spec)
	if err != nil || stB.ID != stA.ID {
		t.Fatalf("second process: %+v, %v", stB, err)
	}
	page := func(path string, course, faculty bool) *crawler.Page {
		return &crawler.Page{URL: u("a.test", path), Status: 200, FetchedAt: time.Now(), Text: "page " + path,
			Scores: map[string]float64{"course": 0.5, "faculty": 0.5}, Relevant: map[string]bool{"course": course, "faculty": faculty}}
	}
	failed := &crawler.Page{URL: u("a.test", "/gone"), Status: 404, FetchedAt: time.Now(), Failure: "status: HTTP 404"}
	if err := a.Commit(ctx, stA.ID, []*crawler.Page{page("/1", true, false), page("/2", true, true), failed}, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(ctx, stB.ID, []*crawler.Page{page("/3", false, true), page("/4", false, false)}, nil); err != nil {
		t.Fatal(err)
	}
	want := crawler.CrawlCounts{Fetched: 5, Succeeded: 4, Relevant: map[string]int{"course": 2, "faculty": 2}}
	for name, s := range map[string]*Store{"a": a, "b": b} {
		got, err := s.CrawlCounts(ctx, stA.ID)
		if err != nil || got.Fetched != want.Fetched || got.Succeeded != want.Succeeded || !maps.Equal(got.Relevant, want.Relevant) {
			t.Errorf("process %s: CrawlCounts = %+v, %v; want %+v", name, got, err, want)
		}
	}
}
