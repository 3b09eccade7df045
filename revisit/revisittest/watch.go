package revisittest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scent-crawler/scent/change"
	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/refresh"
	"github.com/scent-crawler/scent/revisit"
	"github.com/scent-crawler/scent/urlnorm"
)

// WatchStore is what the scheduler's suite needs of a store: Store and
// the refresh schedule of revisit.WatchStore.
type WatchStore interface {
	Store
	revisit.WatchStore
}

// RunWatch runs the behaviour suite of the scheduler (revisit.Watch)
// against the stores that open returns, over simulated weeks: a new,
// empty store for every call.
func RunWatch(t *testing.T, open func(t *testing.T) WatchStore) {
	t.Helper()
	w := &watchSuite{open: open}
	t.Run("SimulatedWeeksThenResume", w.simulatedWeeks)
	t.Run("AllocateByRates", w.allocate)
}

type watchSuite struct {
	open func(t *testing.T) WatchStore
}

// simClock is a clock that only moves when the scheduler sleeps.
type simClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *simClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *simClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
	return nil
}

// watchSite serves pages whose content follows the simulated clock:
// /fast changes every 3 hours, /daily at 10:00 every day, /static never
// (it answers 304 to its ETag), /gone is 410, /vanish is 404 after the
// first week and /slow answers too late.
func watchSite(t *testing.T, clock *simClock, t0 time.Time) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := clock.Now()
		body := ""
		switch r.URL.Path {
		case "/robots.txt":
			http.NotFound(w, r)
			return
		case "/fast":
			body = fmt.Sprintf("fast news number %d", now.Sub(t0)/(3*time.Hour))
		case "/daily":
			body = fmt.Sprintf("daily offer of day %d", now.Add(-10*time.Hour).Sub(t0)/(24*time.Hour))
		case "/static":
			w.Header().Set("ETag", `"s"`)
			if r.Header.Get("If-None-Match") == `"s"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			body = "a page that never changes"
		case "/gone":
			http.Error(w, "gone", http.StatusGone)
			return
		case "/vanish":
			if now.Sub(t0) > refresh.Week {
				http.NotFound(w, r)
				return
			}
			body = "here for a week"
		case "/slow":
			select {
			case <-time.After(2 * time.Second):
			case <-r.Context().Done():
			}
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><body>%s</body></html>", body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

var watchPaths = []string{"/fast", "/daily", "/static", "/gone", "/vanish", "/slow"}

// seedWatch commits the pages of the watch site to a new crawl of st as
// fetched at t0, all with the same first version.
func seedWatch(t *testing.T, st WatchStore, base string, t0 time.Time) int64 {
	t.Helper()
	ctx := context.Background()
	cs, err := st.OpenCrawl(ctx, crawler.CrawlSpec{Name: "w", Strategy: crawler.StrategyBFS, Stacks: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
	var pages []*crawler.Page
	for _, p := range watchPaths {
		pages = append(pages, &crawler.Page{URL: urlnorm.MustParse(base + p), Status: 200, FetchedAt: t0, ContentType: "text/html",
			ContentHash: "first", Title: p, Text: "first version"})
	}
	if err := st.Commit(ctx, cs.ID, pages, nil); err != nil {
		t.Fatal(err)
	}
	return cs.ID
}

type logRow struct {
	at      time.Time
	status  int
	failure string
}

// changeLog returns the crawl's change log by path, in recording order.
func changeLog(t *testing.T, st WatchStore, crawl int64, base string) map[string][]logRow {
	t.Helper()
	out := map[string][]logRow{}
	err := st.EachCheck(context.Background(), crawl, func(c *revisit.Check) error {
		path := strings.TrimPrefix(c.URL.String(), base)
		out[path] = append(out[path], logRow{at: c.CheckedAt, status: c.Status, failure: c.Failure})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// watchFetcher answers within 300 ms, without retries or robots.txt.
func watchFetcher(t *testing.T) *fetch.Fetcher {
	t.Helper()
	f, err := fetch.New(fetch.Config{Timeout: 300 * time.Millisecond, Retries: -1, IgnoreRobots: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// checkCapacity checks that no day has more checks than capacity.
func checkCapacity(t *testing.T, log map[string][]logRow, capacity int) {
	t.Helper()
	perDay := map[string]int{}
	for _, rows := range log {
		for _, r := range rows {
			perDay[r.at.Format("2006-01-02")]++
		}
	}
	for d, n := range perDay {
		if n > capacity {
			t.Errorf("%s: %d checks, capacity %d", d, n, capacity)
		}
	}
}

// simulatedWeeks runs the scheduler over four simulated weeks against a
// real server, then resumes it for two more.
func (w *watchSuite) simulatedWeeks(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2024, 3, 4, 8, 0, 0, 0, time.UTC)
	clock := &simClock{now: t0}
	srv := watchSite(t, clock, t0)
	st := w.open(t)
	crawl := seedWatch(t, st, srv.URL, t0)
	f := watchFetcher(t)
	const capacity = 12
	cfg := revisit.WatchConfig{
		Config:   revisit.Config{Crawl: crawl, Costs: change.DefaultCosts(), Workers: 3, Now: clock.Now},
		Capacity: capacity, Until: t0.Add(4 * refresh.Week), Sleep: clock.Sleep, PriorRate: 7,
	}
	var progress strings.Builder
	cfg.Progress = &progress
	sum, err := revisit.Watch(ctx, cfg, st, f)
	if err != nil {
		t.Fatal(err)
	}
	log := changeLog(t, st, crawl, srv.URL)
	total := 0
	for _, rows := range log {
		total += len(rows)
	}
	if sum.Checked != total {
		t.Errorf("summary counts %d checks, the change log %d", sum.Checked, total)
	}
	checkCapacity(t, log, capacity)
	if n, err := st.ChecksSince(ctx, crawl, t0); err != nil || n != total {
		t.Errorf("ChecksSince(start) = %d, %v; want %d", n, err, total)
	}
	if n, err := st.ChecksSince(ctx, crawl, t0.Add(4*refresh.Week)); err != nil || n != 0 {
		t.Errorf("ChecksSince(end) = %d, %v; want 0", n, err)
	}
	// A 410 is checked once and the page left.
	if g := log["/gone"]; len(g) != 1 || g[0].status != http.StatusGone {
		t.Errorf("/gone checks: %+v, want one 410", g)
	}
	// The vanished page keeps being checked, each 404 recorded.
	var notFound int
	for _, r := range log["/vanish"] {
		if r.status == 404 && strings.HasPrefix(r.failure, "status") {
			notFound++
		}
	}
	if notFound < 2 {
		t.Errorf("/vanish: %d 404 checks recorded, want several: %+v", notFound, log["/vanish"])
	}
	// The site that times out is recorded as such, and still scheduled.
	slow := log["/slow"]
	if len(slow) < 2 || !strings.HasPrefix(slow[0].failure, "timeout") {
		t.Errorf("/slow checks: %+v, want timeouts", slow)
	}
	// Rates move pages between groups: the fast page ends in a faster
	// group than the static one.
	sched, err := st.Schedule(ctx, crawl)
	if err != nil {
		t.Fatal(err)
	}
	paths := make(map[int64]string)
	for _, p := range pages(t, st, crawl, 100) {
		paths[p.ID] = strings.TrimPrefix(p.URL.String(), srv.URL)
	}
	group := map[string]refresh.Group{}
	for id, d := range sched {
		g, err := refresh.ParseGroup(d.Group)
		if err != nil {
			t.Fatal(err)
		}
		group[paths[id]] = g
		if gone := paths[id] == "/gone"; d.Gone != gone {
			t.Errorf("%s scheduled gone %v, want %v", paths[id], d.Gone, gone)
		}
	}
	if len(sched) != len(watchPaths) {
		t.Errorf("%d pages scheduled, want %d", len(sched), len(watchPaths))
	}
	if !(group["/fast"] > group["/daily"] && group["/daily"] > group["/static"]) {
		t.Errorf("groups fast %v, daily %v, static %v: want fast > daily > static", group["/fast"], group["/daily"], group["/static"])
	}
	if len(log["/static"]) == 0 || log["/static"][len(log["/static"])-1].status != http.StatusNotModified {
		t.Errorf("/static not checked with a conditional GET: %+v", log["/static"])
	}
	if !strings.Contains(progress.String(), "due/pages by group") {
		t.Errorf("no group summary in the progress: %q", progress.String())
	}

	// Resume for two more weeks: no page is checked before its stored
	// due time.
	cfg.Until = t0.Add(6 * refresh.Week)
	if _, err := revisit.Watch(ctx, cfg, st, f); err != nil {
		t.Fatal(err)
	}
	after := changeLog(t, st, crawl, srv.URL)
	for id, d := range sched {
		if d.Gone {
			continue
		}
		path := paths[id]
		rows, n := after[path], len(log[path])
		if len(rows) <= n {
			t.Errorf("%s not checked after the resume", path)
			continue
		}
		if rows[n].at.Before(d.Next) {
			t.Errorf("%s checked at %v after the resume, before its due time %v", path, rows[n].at, d.Next)
		}
	}
}

// allocate shares the capacity by the square root of the rates: the fast
// page is checked more often than the static one, the capacity holds and
// a 410 is still checked once.
func (w *watchSuite) allocate(t *testing.T) {
	t0 := time.Date(2024, 3, 4, 8, 0, 0, 0, time.UTC)
	clock := &simClock{now: t0}
	srv := watchSite(t, clock, t0)
	st := w.open(t)
	crawl := seedWatch(t, st, srv.URL, t0)
	const capacity = 6
	cfg := revisit.WatchConfig{
		Config:   revisit.Config{Crawl: crawl, Costs: change.DefaultCosts(), Workers: 2, Now: clock.Now},
		Capacity: capacity, Until: t0.Add(3 * refresh.Week), Sleep: clock.Sleep,
		Allocate: true, Policy: refresh.SquareRoot,
	}
	if _, err := revisit.Watch(context.Background(), cfg, st, watchFetcher(t)); err != nil {
		t.Fatal(err)
	}
	log := changeLog(t, st, crawl, srv.URL)
	checkCapacity(t, log, capacity)
	if len(log["/fast"]) <= len(log["/static"]) {
		t.Errorf("fast page checked %d times, static %d: want more", len(log["/fast"]), len(log["/static"]))
	}
	if g := log["/gone"]; len(g) != 1 {
		t.Errorf("/gone checked %d times, want 1", len(g))
	}
}
