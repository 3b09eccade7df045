package revisit_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scent-crawler/scent/change"
	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/revisit"
	"github.com/scent-crawler/scent/sqlite"
	"github.com/scent-crawler/scent/urlnorm"
)

// sitePage is what the test site serves at one path.
type sitePage struct {
	words    string // body text; the page is <title>path</title><p>words</p>
	etag     string // sent as ETag when set; If-None-Match is honoured
	modified string // sent as Last-Modified when set; If-Modified-Since is honoured
	status   int    // answer with this status and no page when set
	block    bool   // cancel the run's context and wait for the client to give up
}

// request is one request the site saw.
type request struct {
	path, ifNoneMatch, ifModifiedSince string
	status                             int
}

// site is a small web site whose pages the test changes between visits.
// "/" links to every other page.
type site struct {
	t      *testing.T
	srv    *httptest.Server
	mu     sync.Mutex
	pages  map[string]sitePage
	reqs   []request
	cancel context.CancelFunc
}

func newSite(t *testing.T, pages map[string]sitePage) *site {
	s := &site{t: t, pages: pages}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *site) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/robots.txt" {
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	p, ok := s.pages[r.URL.Path]
	var paths []string
	for k := range s.pages {
		if k != "/" {
			paths = append(paths, k)
		}
	}
	cancel := s.cancel
	s.mu.Unlock()
	sort.Strings(paths)
	status := http.StatusOK
	switch {
	case !ok:
		status = http.StatusNotFound
	case p.status != 0:
		status = p.status
	case p.etag != "" && r.Header.Get("If-None-Match") == p.etag:
		status = http.StatusNotModified
	case p.etag == "" && p.modified != "" && r.Header.Get("If-Modified-Since") == p.modified:
		status = http.StatusNotModified
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, request{r.URL.Path, r.Header.Get("If-None-Match"), r.Header.Get("If-Modified-Since"), status})
	s.mu.Unlock()
	if ok && p.block && cancel != nil {
		cancel()
		<-r.Context().Done()
		return
	}
	if p.etag != "" {
		w.Header().Set("ETag", p.etag)
	}
	if p.modified != "" {
		w.Header().Set("Last-Modified", p.modified)
	}
	if status != http.StatusOK {
		w.WriteHeader(status)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<html><head><title>%s</title></head><body><p>%s</p>", r.URL.Path, p.words)
	if r.URL.Path == "/" {
		for _, q := range paths {
			fmt.Fprintf(w, `<a href="%s">x</a>`, q)
		}
	}
	fmt.Fprint(w, "</body></html>")
}

func (s *site) set(path string, p sitePage) {
	s.mu.Lock()
	s.pages[path] = p
	s.mu.Unlock()
}

// takeRequests returns the requests seen since the last call, by path.
func (s *site) takeRequests() map[string]request {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := make(map[string]request)
	for _, r := range s.reqs {
		if _, dup := m[r.path]; dup {
			s.t.Errorf("%s requested twice in one run", r.path)
		}
		m[r.path] = r
	}
	s.reqs = nil
	return m
}

func (s *site) url(path string) string { return s.srv.URL + path }

// fixture is a crawled site in a real SQLite file with a real fetcher.
type fixture struct {
	site  *site
	store *sqlite.Store
	f     *fetch.Fetcher
	crawl int64
	t0    time.Time
}

func newFixture(t *testing.T, pages map[string]sitePage) *fixture {
	t.Helper()
	ctx := context.Background()
	fx := &fixture{site: newSite(t, pages), t0: time.Date(2024, 3, 4, 9, 0, 0, 0, time.UTC)}
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "scent.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	fx.store = st
	f, err := fetch.New(fetch.Config{Retries: -1, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	fx.f = f
	c, err := crawler.New(crawler.Config{Name: "site", Strategy: crawler.StrategyBFS, Workers: 1,
		Now: func() time.Time { return fx.t0 }}, st, f, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := c.Run(ctx, []urlnorm.URL{urlnorm.MustParse(fx.site.url("/"))}, "{}")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Succeeded != len(pages) {
		t.Fatalf("crawl fetched %d pages, want %d", sum.Succeeded, len(pages))
	}
	fx.crawl = sum.Crawl
	fx.site.takeRequests()
	return fx
}

// run revisits the crawl with the clock at now.
func (fx *fixture) run(t *testing.T, ctx context.Context, now time.Time, olderThan time.Duration, workers int) (revisit.Summary, error) {
	t.Helper()
	return revisit.Run(ctx, revisit.Config{Crawl: fx.crawl, OlderThan: olderThan, Costs: change.DefaultCosts(),
		Workers: workers, Now: func() time.Time { return now }}, fx.store, fx.f)
}

func (fx *fixture) pageID(t *testing.T, path string) int64 {
	t.Helper()
	var id int64
	if err := fx.store.DB().QueryRow(`SELECT id FROM pages WHERE url = ?`, fx.site.url(path)).Scan(&id); err != nil {
		t.Fatalf("page %s: %v", path, err)
	}
	return id
}

// checks returns the change-log rows recorded at time at, by path.
func (fx *fixture) checks(t *testing.T, at time.Time) map[string]revisit.Check {
	t.Helper()
	m := make(map[string]revisit.Check)
	err := fx.store.EachCheck(context.Background(), fx.crawl, func(c *revisit.Check) error {
		if c.CheckedAt.Equal(at) {
			m[strings.TrimPrefix(c.URL.String(), fx.site.srv.URL)] = *c
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

const (
	aWords1 = "alpha beta gamma delta"
	aWords2 = "alpha beta omega delta epsilon" // gamma replaced by omega, epsilon added
	aWords3 = "beta omega delta epsilon alpha" // alpha moved to the end
	bWords1 = "one two three four five six"
	bWords2 = "one two three four five six six" // a copy of six
	cWords1 = "red green blue red"
	cWords2 = "red green blue" // a shrink of red
)

func TestRun_versionsAndChangeLog(t *testing.T) {
	ctx := context.Background()
	lm1 := "Mon, 04 Mar 2024 08:00:00 GMT"
	lm2 := "Mon, 04 Mar 2024 10:30:00 GMT"
	fx := newFixture(t, map[string]sitePage{
		"/":  {words: "index", etag: `"i1"`},
		"/a": {words: aWords1, etag: `"a1"`},
		"/b": {words: bWords1, modified: lm1},
		"/c": {words: cWords1},
		"/d": {words: "soon gone"},
	})
	s := fx.site

	// First revisit: /a changed, /b and / answer 304, /c is the same, /d is gone.
	s.set("/a", sitePage{words: aWords2, etag: `"a2"`})
	s.set("/d", sitePage{status: http.StatusGone})
	t1 := fx.t0.Add(time.Hour)
	sum, err := fx.run(t, ctx, t1, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := (revisit.Summary{Checked: 5, Changed: 1, Unchanged: 1, NotModified: 2, Failed: 1}); sum != want {
		t.Errorf("first revisit: summary %+v, want %+v", sum, want)
	}
	reqs := s.takeRequests()
	for path, want := range map[string]request{
		"/":  {path: "/", ifNoneMatch: `"i1"`, status: 304},
		"/a": {path: "/a", ifNoneMatch: `"a1"`, status: 200},
		"/b": {path: "/b", ifModifiedSince: lm1, status: 304},
		"/c": {path: "/c", status: 200},
		"/d": {path: "/d", status: 410},
	} {
		if got := reqs[path]; got != want {
			t.Errorf("first revisit: request %+v, want %+v", got, want)
		}
	}
	log1 := fx.checks(t, t1)
	wantLog1 := map[string]revisit.Check{
		"/":  {Status: 304, Version: 1},
		"/a": {Status: 200, Changed: true, UpdateSize: 2, Version: 2},
		"/b": {Status: 304, Version: 1},
		"/c": {Status: 200, Version: 1},
		"/d": {Status: 410, Version: 1, Failure: "status: HTTP 410"},
	}
	compareLog(t, "first revisit", log1, wantLog1)
	if c := log1["/a"]; c.Size < len(aWords2) {
		t.Errorf("fetched size of /a = %d, want at least the %d bytes of its words", c.Size, len(aWords2))
	}
	if c := log1["/c"]; c.Size < len(cWords1) {
		t.Errorf("fetched size of /c = %d, want at least the %d bytes of its words", c.Size, len(cWords1))
	}

	// Second revisit: /a is asked with its new ETag and answers 304; /b and
	// /c changed.
	s.set("/b", sitePage{words: bWords2, modified: lm2})
	s.set("/c", sitePage{words: cWords2})
	t2 := fx.t0.Add(2 * time.Hour)
	sum, err = fx.run(t, ctx, t2, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := (revisit.Summary{Checked: 5, Changed: 2, NotModified: 2, Failed: 1}); sum != want {
		t.Errorf("second revisit: summary %+v, want %+v", sum, want)
	}
	reqs = s.takeRequests()
	if got := reqs["/a"]; got.ifNoneMatch != `"a2"` || got.status != 304 {
		t.Errorf("second revisit of /a: %+v, want If-None-Match \"a2\" answered 304", got)
	}
	if got := reqs["/b"]; got.ifModifiedSince != lm1 || got.status != 200 {
		t.Errorf("second revisit of /b: %+v, want If-Modified-Since %s answered 200", got, lm1)
	}
	compareLog(t, "second revisit", fx.checks(t, t2), map[string]revisit.Check{
		"/":  {Status: 304, Version: 1},
		"/a": {Status: 304, Version: 2},
		"/b": {Status: 200, Changed: true, UpdateSize: 0.75, Version: 2},
		"/c": {Status: 200, Changed: true, UpdateSize: 0.75, Version: 2},
		"/d": {Status: 410, Version: 1, Failure: "status: HTTP 410"},
	})

	// Third revisit: /a changes again; /b is asked with its new date.
	s.set("/a", sitePage{words: aWords3, etag: `"a3"`})
	t3 := fx.t0.Add(3 * time.Hour)
	if _, err := fx.run(t, ctx, t3, 0, 1); err != nil {
		t.Fatal(err)
	}
	reqs = s.takeRequests()
	if got := reqs["/b"]; got.ifModifiedSince != lm2 || got.status != 304 {
		t.Errorf("third revisit of /b: %+v, want If-Modified-Since %s answered 304", got, lm2)
	}

	// Every version is kept, with its change from the one before.
	costs := change.DefaultCosts()
	for _, tc := range []struct {
		path  string
		texts []string
		times []time.Time
		ops   []change.Ops // of versions 2…
	}{
		{"/a", []string{aWords1, aWords2, aWords3}, []time.Time{fx.t0, t1, t3},
			[]change.Ops{{Replace: 1, Add: 1}, {Move: 1}}},
		{"/b", []string{bWords1, bWords2}, []time.Time{fx.t0, t2}, []change.Ops{{Copy: 1}}},
		{"/c", []string{cWords1, cWords2}, []time.Time{fx.t0, t2}, []change.Ops{{Shrink: 1}}},
		{"/d", []string{"soon gone"}, []time.Time{fx.t0}, nil},
	} {
		vs, err := fx.store.PageVersions(ctx, fx.pageID(t, tc.path))
		if err != nil {
			t.Fatal(err)
		}
		if len(vs) != len(tc.texts) {
			t.Errorf("%s: %d versions, want %d", tc.path, len(vs), len(tc.texts))
			continue
		}
		for i, v := range vs {
			if v.Number != i+1 || v.Text != tc.texts[i] || !v.FetchedAt.Equal(tc.times[i]) || v.Title != tc.path {
				t.Errorf("%s version %d: number %d, text %q, title %q, fetched %s; want %d, %q, %q, %s",
					tc.path, i+1, v.Number, v.Text, v.Title, v.FetchedAt, i+1, tc.texts[i], tc.path, tc.times[i])
			}
			if i == 0 {
				if v.Change != (change.Result{}) {
					t.Errorf("%s version 1 has a change %+v", tc.path, v.Change)
				}
				continue
			}
			want := change.IED(change.Words(tc.texts[i-1]), change.Words(tc.texts[i]), costs)
			if v.Change.Ops != tc.ops[i-1] || v.Change != want || v.Costs != costs {
				t.Errorf("%s version %d: change %+v costs %+v, want ops %+v, %+v with %+v", tc.path, i+1, v.Change, v.Costs, tc.ops[i-1], want, costs)
			}
		}
	}
	// The known edit of /a: one word replaced and one added in 4 → 5 words.
	vs, _ := fx.store.PageVersions(ctx, fx.pageID(t, "/a"))
	if len(vs) == 3 && (vs[1].Change.Delta != 2 || vs[1].Change.Distance != 0.4 || vs[2].Change.Delta != 0.75 || vs[2].Change.Distance != 0.15) {
		t.Errorf("/a changes: δ_E %v, D %v then δ_E %v, D %v; want 2, 0.4 then 0.75, 0.15",
			vs[1].Change.Delta, vs[1].Change.Distance, vs[2].Change.Delta, vs[2].Change.Distance)
	}

	// The change log has a row for every check, in the order of the runs.
	var n, changed int
	err = fx.store.EachCheck(ctx, fx.crawl, func(c *revisit.Check) error {
		n++
		if c.Changed {
			changed++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 15 || changed != 4 {
		t.Errorf("change log: %d rows, %d changed; want 15, 4", n, changed)
	}
}

func compareLog(t *testing.T, what string, got, want map[string]revisit.Check) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d change-log rows, want %d", what, len(got), len(want))
	}
	for path, w := range want {
		g, ok := got[path]
		if !ok {
			t.Errorf("%s: no change-log row for %s", what, path)
			continue
		}
		if g.Status != w.Status || g.Changed != w.Changed || g.UpdateSize != w.UpdateSize || g.Version != w.Version || g.Failure != w.Failure {
			t.Errorf("%s: %s logged status %d changed %v update %v version %d failure %q; want %d %v %v %d %q", what, path,
				g.Status, g.Changed, g.UpdateSize, g.Version, g.Failure, w.Status, w.Changed, w.UpdateSize, w.Version, w.Failure)
		}
		if (w.Status == 304 || w.Failure != "") && g.Size != 0 {
			t.Errorf("%s: %s fetched size %d, want 0", what, path, g.Size)
		}
	}
}

func TestRun_olderThan(t *testing.T) {
	ctx := context.Background()
	fx := newFixture(t, map[string]sitePage{
		"/":  {words: "index"},
		"/a": {words: aWords1},
		"/b": {words: bWords1},
	})
	// /a was checked 10 minutes before the run, the others only crawled an hour before.
	now := fx.t0.Add(time.Hour)
	err := fx.store.RecordCheck(ctx, &revisit.Check{PageID: fx.pageID(t, "/a"), URL: urlnorm.MustParse(fx.site.url("/a")),
		CheckedAt: now.Add(-10 * time.Minute), Status: 200, Version: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		olderThan time.Duration
		wantReqs  []string
		notDue    int
	}{
		{2 * time.Hour, nil, 3},
		{30 * time.Minute, []string{"/", "/b"}, 1},
		{10 * time.Minute, []string{"/", "/a", "/b"}, 0}, // exactly the age counts as due
	} {
		t.Run(tc.olderThan.String(), func(t *testing.T) {
			sum, err := fx.run(t, ctx, now, tc.olderThan, 2)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for p := range fx.site.takeRequests() {
				got = append(got, p)
			}
			sort.Strings(got)
			if strings.Join(got, " ") != strings.Join(tc.wantReqs, " ") || sum.NotDue != tc.notDue || sum.Checked != len(tc.wantReqs) {
				t.Errorf("requests %v, summary %+v; want %v and %d not due", got, sum, tc.wantReqs, tc.notDue)
			}
			// Undo the checks of this case so the next starts from the same history.
			if _, err := fx.store.DB().Exec(`DELETE FROM change_log WHERE checked_at = ?`, now.UTC().Format("2006-01-02T15:04:05.000000000Z")); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestRun_canceled(t *testing.T) {
	fx := newFixture(t, map[string]sitePage{
		"/":  {words: "index"},
		"/a": {words: aWords1},
		"/b": {words: bWords1},
		"/c": {words: cWords1},
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fx.site.mu.Lock()
	fx.site.cancel = cancel
	fx.site.mu.Unlock()
	// Pages are checked in crawl order with one worker: /, then /a … /c.
	fx.site.set("/b", sitePage{words: bWords2, block: true})
	now := fx.t0.Add(time.Hour)
	sum, err := fx.run(t, ctx, now, 0, 1)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	var logged []string
	for p := range fx.checks(t, now) {
		logged = append(logged, p)
	}
	sort.Strings(logged)
	if strings.Join(logged, " ") != "/ /a" || sum.Checked != 2 {
		t.Errorf("checks recorded %v, summary %+v; want / and /a only", logged, sum)
	}
	vs, err := fx.store.PageVersions(context.Background(), fx.pageID(t, "/b"))
	if err != nil || len(vs) != 1 {
		t.Errorf("/b has %d versions (%v) after a canceled check, want 1", len(vs), err)
	}
}

func TestConfig_Validate(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  revisit.Config
		ok   bool
	}{
		{"minimal", revisit.Config{Crawl: 1}, true},
		{"paper costs", revisit.Config{Crawl: 1, OlderThan: time.Hour, Costs: change.DefaultCosts(), Workers: 8}, true},
		{"no crawl", revisit.Config{}, false},
		{"negative age", revisit.Config{Crawl: 1, OlderThan: -time.Second}, false},
		{"negative workers", revisit.Config{Crawl: 1, Workers: -1}, false},
		{"cost above 1", revisit.Config{Crawl: 1, Costs: change.Costs{S: 1.5}}, false},
		{"negative move cost", revisit.Config{Crawl: 1, Costs: change.Costs{T: -0.1}}, false},
		{"negative progress interval", revisit.Config{Crawl: 1, ProgressEvery: -time.Second}, false},
	} {
		if err := tc.cfg.Validate(); (err == nil) != tc.ok {
			t.Errorf("%s: Validate() = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}

func TestConditional(t *testing.T) {
	for _, tc := range []struct {
		page           revisit.Page
		inm, ims       string
		wantHeaderKeys int
	}{
		{revisit.Page{}, "", "", 0},
		{revisit.Page{ETag: `"x"`}, `"x"`, "", 1},
		{revisit.Page{Modified: "Mon, 04 Mar 2024 08:00:00 GMT"}, "", "Mon, 04 Mar 2024 08:00:00 GMT", 1},
		{revisit.Page{ETag: `W/"y"`, Modified: "Tue, 05 Mar 2024 08:00:00 GMT"}, `W/"y"`, "Tue, 05 Mar 2024 08:00:00 GMT", 2},
	} {
		h := revisit.Conditional(tc.page)
		if h.Get("If-None-Match") != tc.inm || h.Get("If-Modified-Since") != tc.ims || len(h) != tc.wantHeaderKeys {
			t.Errorf("Conditional(%+v) = %v, want If-None-Match %q, If-Modified-Since %q", tc.page, h, tc.inm, tc.ims)
		}
	}
}
