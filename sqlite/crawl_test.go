package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/internal/storetest"
	"github.com/scent-crawler/scent/urlnorm"
)

// open opens a new store in a temporary folder, closed when the test
// ends, and returns it with its path.
func open(tb testing.TB) (*Store, string) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "s.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s, path
}

// openBFS opens a new store (open) holding one empty breadth-first
// crawl, c.
func openBFS(tb testing.TB) (*Store, crawler.CrawlState) {
	tb.Helper()
	s, _ := open(tb)
	st, err := s.OpenCrawl(context.Background(), crawler.CrawlSpec{Name: "c", Strategy: crawler.StrategyBFS, Stacks: []string{""}})
	if err != nil {
		tb.Fatal(err)
	}
	return s, st
}

// reopen opens the store at path again, as a new process would, closed
// when the test ends, and resumes spec's crawl in it.
func reopen(t *testing.T, path string, spec crawler.CrawlSpec) (*Store, crawler.CrawlState) {
	t.Helper()
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	st, err := s.OpenCrawl(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	return s, st
}

func u(s string) urlnorm.URL { return urlnorm.MustParse("http://a.test" + s) }

func popAll(t *testing.T, s *Store, crawl int64, topic string, order crawler.Order) []string {
	t.Helper()
	var out []string
	for {
		es, err := s.Pop(context.Background(), crawl, topic, order, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(es) == 0 {
			return out
		}
		out = append(out, strings.TrimPrefix(es[0].URL.String(), "http://a.test"))
	}
}

// TestStore_OpenCrawl_countsRequeuedLeases: what a process leased and
// never committed is counted as requeued when the crawl is opened again
// (storetest's ResumeRequeuesLeases checks that it is served again).
func TestStore_OpenCrawl_countsRequeuedLeases(t *testing.T) {
	ctx := context.Background()
	s, path := open(t)
	spec := crawler.CrawlSpec{Name: "x", Strategy: crawler.StrategyBFS, Stacks: []string{""}, Seeds: []urlnorm.URL{u("/1"), u("/2"), u("/3")}}
	st, err := s.OpenCrawl(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	es, _ := s.Pop(ctx, st.ID, "", crawler.FIFO, 2, 0)
	if len(es) != 2 {
		t.Fatal(es)
	}
	if err := s.Commit(ctx, st.ID, []*crawler.Page{{URL: es[0].URL, FetchedAt: time.Now()}}, nil); err != nil {
		t.Fatal(err)
	}
	s.Close() // es[1] was in flight when the process died
	_, st2 := reopen(t, path, spec)
	if st2.Requeue != 1 {
		t.Errorf("resume state = %+v, want 1 requeued", st2)
	}
}

func TestOpen_refusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	s, path := open(t)
	if _, err := s.DB().Exec(`PRAGMA user_version = 999`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(ctx, path); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Errorf("Open of a newer schema: %v", err)
	}
}

// TestCheckExisting: what Open would refuse for its content (a newer
// schema, another program's tables) CheckExisting refuses, reading only;
// what Open takes (no file, an empty one, an older schema, the current
// one) it passes.
func TestCheckExisting(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	current, cur := open(t)
	current.Close()
	newer, nw := open(t)
	if _, err := newer.DB().Exec(`PRAGMA user_version = 999`); err != nil {
		t.Fatal(err)
	}
	newer.Close()
	foreign := filepath.Join(dir, "foreign.db")
	db, err := sql.Open(driverName, foreign)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE notes(x)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	older := filepath.Join(dir, "v12.db")
	migrateTo(t, older, 12).Close()
	empty := filepath.Join(dir, "empty.db")
	os.WriteFile(empty, nil, 0o644)
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "missing.db"), ""},
		{empty, ""},
		{older, ""},
		{cur, ""},
		{nw, "database schema version 999 is newer than this scent understands"},
		{foreign, "not a scent database"},
	} {
		before, _ := os.ReadFile(tc.path)
		err := CheckExisting(ctx, tc.path)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.path, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.path)):
			t.Errorf("%s: error %v, want one naming it and containing %q", tc.path, err, tc.want)
		}
		if after, _ := os.ReadFile(tc.path); string(after) != string(before) {
			t.Errorf("%s was written", tc.path)
		}
	}
}

func TestOpen_notADatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "junk.db")
	os.WriteFile(path, []byte("this is not a database, just text that is long enough to look like a header......"), 0o644)
	if _, err := Open(context.Background(), path); err == nil {
		t.Error("opening a text file as a database gave no error")
	}
}

func TestPopQueries_readAnIndexWithoutSorting(t *testing.T) {
	// A pop runs once per round of a crawl over a frontier that can hold
	// millions of entries: sorting them each time would make every pop
	// as slow as the frontier is long.
	s, _ := open(t)
	plan := func(q, topic string) string {
		t.Helper()
		rows, err := s.DB().Query("EXPLAIN QUERY PLAN "+q, 1, topic, 10)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		return strings.Join(plan, "; ")
	}
	for _, c := range []struct {
		order crawler.Order
		topic string
	}{{crawler.LIFO, "t"}, {crawler.FIFO, ""}, {crawler.BestFirst, "t"}, {crawler.Shallowest, "t~reserve"}, {crawler.Shallowest, "t~parts"}, {crawler.SurveyFirst, "t"}} {
		qs, err := popQueries(c.order, crawler.ParseStack(c.topic).Kind != crawler.Main)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			if p := plan(q, c.topic); strings.Contains(p, "TEMP B-TREE") || !strings.Contains(p, "USING INDEX frontier_") {
				t.Errorf("order %d on %q: plan %q sorts or scans", c.order, c.topic, p)
			}
		}
	}
	// A survey reads the shallow entries from the survey's partial index
	// (its term must stay the query's: depth <= crawler.SurveyDepth),
	// then the others from frontier_best.
	qs, _ := popQueries(crawler.SurveyFirst, false)
	if len(qs) != 2 || !strings.Contains(plan(qs[0], "t"), "USING INDEX frontier_survey") || !strings.Contains(plan(qs[1], "t"), "USING INDEX frontier_best") {
		t.Errorf("survey: queries %q do not read frontier_survey, then frontier_best", qs)
	}
	if _, err := popQueries(crawler.Order(99), false); err == nil {
		t.Error("an unknown order was accepted")
	}
}

// TestStore_frontierBounds: new URLs beyond a host's bound or the crawl's
// are dropped and counted per host; a pop frees room; URLs already known
// are pushed again whatever the bounds; a resumed crawl counts its leases
// as waiting again.
func TestStore_frontierBounds(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	spec := crawler.CrawlSpec{Name: "x", Strategy: crawler.StrategyLink, Stacks: []string{"a"}, Topics: []string{"a"},
		Seeds: []urlnorm.URL{u("/")}, MaxWaitingPerHost: 3, MaxWaiting: 5}
	st, err := s.OpenCrawl(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	other := func(p string) urlnorm.URL {
		v, _ := urlnorm.Parse("http://other.example" + p)
		return v
	}
	var push []crawler.Entry
	for _, p := range []string{"/1", "/2", "/3", "/4"} {
		push = append(push, crawler.Entry{Topic: "a", URL: u(p)}, crawler.Entry{Topic: "a", URL: other(p)})
	}
	push = append(push, crawler.Entry{Topic: "a", URL: u("/")}) // known: not new
	if err := s.Commit(ctx, st.ID, nil, push); err != nil {
		t.Fatal(err)
	}
	// The seed and /1, /2 fill this host's 3; other.example gets /1, /2
	// before the crawl's 5 are reached.
	check := func(when string, waiting, dropped map[string]int) {
		t.Helper()
		for host, w := range waiting {
			var gw, gd int
			s.DB().QueryRow(`SELECT waiting, dropped FROM hosts WHERE crawl_id = ? AND host = ?`, st.ID, host).Scan(&gw, &gd)
			var n int
			s.DB().QueryRow(`SELECT COUNT(*) FROM urls WHERE crawl_id = ? AND host = ? AND state = 0`, st.ID, host).Scan(&n)
			if gw != w || n != w || gd != dropped[host] {
				t.Errorf("%s: %s has %d waiting (urls: %d), %d dropped; want %d, %d", when, host, gw, n, gd, w, dropped[host])
			}
		}
	}
	host := u("/").Host()
	check("after push", map[string]int{host: 3, "other.example": 2}, map[string]int{host: 2, "other.example": 2})
	es, err := s.Pop(ctx, st.ID, "a", crawler.LIFO, 2, 0)
	if err != nil || len(es) != 2 {
		t.Fatalf("pop: %v %v", es, err)
	}
	total := func(when string, want int) {
		t.Helper()
		var got, n int
		s.DB().QueryRow(`SELECT waiting FROM crawls WHERE id = ?`, st.ID).Scan(&got)
		s.DB().QueryRow(`SELECT COUNT(*) FROM urls WHERE crawl_id = ? AND state = 0`, st.ID).Scan(&n)
		if got != want || n != want {
			t.Errorf("%s: the crawl counts %d waiting (urls: %d), want %d", when, got, n, want)
		}
	}
	// A pop is written by the next write transaction: until then the
	// database counts the popped URLs waiting, but they are taken.
	total("after pop, not written", 5)
	for _, e := range es {
		if known, taken, err := s.KnownURL(ctx, st.ID, e.URL); err != nil || !known || !taken {
			t.Errorf("KnownURL(%s) after pop = %t, %t, %v; want known and taken", e.URL, known, taken, err)
		}
	}
	if err := s.Commit(ctx, st.ID, nil, nil); err != nil {
		t.Fatal(err)
	}
	total("after pop and a commit", 3)
	// The two popped are leased; reopened, the crawl counts them again.
	s.Close()
	s, _ = reopen(t, s.path, spec)
	check("after resume", map[string]int{host: 3, "other.example": 2}, map[string]int{host: 2, "other.example": 2})
	total("after resume", 5)
}

// BenchmarkStore_PopCommit is the store's share of a crawl outside
// lockstep: a pop of one URL from a breadth-first queue, then the commit
// of its page (a failed fetch, the most common kind) with its 10 links
// pushed, one of them new, each call a transaction of its own or in a
// group committed every 250 ms (GroupCommits, as a crawl runs). It
// reports the time a page.
func BenchmarkStore_PopCommit(b *testing.B) {
	for _, group := range []time.Duration{0, 250 * time.Millisecond} {
		name := "transactions"
		if group > 0 {
			name = "grouped"
		}
		b.Run(name, func(b *testing.B) { benchPopCommit(b, group) })
	}
}

func benchPopCommit(b *testing.B, group time.Duration) {
	ctx := context.Background()
	s, _ := open(b)
	var seeds []urlnorm.URL
	for i := range 1000 {
		seeds = append(seeds, u(fmt.Sprintf("/s%d", i)))
	}
	st, err := s.OpenCrawl(ctx, crawler.CrawlSpec{Name: "b", Strategy: crawler.StrategyBFS, Stacks: []string{""}, Seeds: seeds})
	if err != nil {
		b.Fatal(err)
	}
	if err := s.GroupCommits(ctx, group); err != nil {
		b.Fatal(err)
	}
	next := 0
	for b.Loop() {
		es, err := s.Pop(ctx, st.ID, "", crawler.FIFO, 1, 0)
		if err != nil || len(es) != 1 {
			b.Fatalf("pop: %v, %v", es, err)
		}
		var push []crawler.Entry
		for k := range 10 {
			target := seeds[(next+k*37)%len(seeds)]
			if k == 0 {
				target = u(fmt.Sprintf("/n%d", next))
			}
			push = append(push, crawler.Entry{URL: target, Depth: 1})
		}
		next++
		page := &crawler.Page{URL: es[0].URL, Status: 404, Failure: "status: HTTP 404", FetchedAt: time.Now()}
		if err := s.Commit(ctx, st.ID, []*crawler.Page{page}, push); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/page")
}

// BenchmarkStore_push: a round's pushes onto a best-first stack of 25,000
// entries (storetest.BenchPush). It reports the time a link.
func BenchmarkStore_push(b *testing.B) {
	s, st := benchLinkCrawl(b)
	storetest.BenchPush(b, s, st.ID)
}

// BenchmarkStore_pop: a round's pop of 16 entries from a best-first
// stack of 25,000, with and without the peek at the 16 after them
// (storetest.BenchPop), each on a database of its own. It reports the
// time a pop.
func BenchmarkStore_pop(b *testing.B) {
	storetest.BenchPop(b, func(b *testing.B) (crawler.Store, int64) {
		s, st := benchLinkCrawl(b)
		return s, st.ID
	})
}

// TestOpen_pathOfAnyCharacters: a database path with the characters a
// URI reads otherwise ('?', '#', '%') names that very file, for a crawl
// and for a reader.
func TestOpen_pathOfAnyCharacters(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"a?b.db", "h#1.db", "x%41y.db", "p%3f q.db"} {
		path := filepath.Join(t.TempDir(), name)
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := s.OpenCrawl(ctx, crawler.CrawlSpec{Name: "c", Strategy: crawler.StrategyBFS, Stacks: []string{""}, SeedStacks: []string{""}}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s.Close()
		entries, err := os.ReadDir(filepath.Dir(path))
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) == 0 || entries[0].Name() != name {
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			t.Fatalf("opened %q: the directory holds %v", name, names)
		}
		r, err := OpenReadOnly(ctx, path)
		if err != nil {
			t.Fatalf("%s read-only: %v", name, err)
		}
		if _, err := r.Crawl(ctx, "c"); err != nil {
			t.Errorf("%s read-only: %v", name, err)
		}
		r.Close()
	}
}
