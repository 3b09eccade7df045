package revisittest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/scent-crawler/scent/change"
	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/revisit"
)

// Store is what the suite needs of a store: a crawler.Store to crawl the
// pages into, the revisit.Store under test, and the versions and change
// log read back.
type Store interface {
	crawler.Store
	revisit.Store
	// PageVersions returns every stored version of a page, oldest first;
	// a page that never changed has one version, the crawled page.
	PageVersions(ctx context.Context, page int64) ([]revisit.Version, error)
	// EachCheck calls fn for every change-log row of the crawl's pages
	// in the order the checks were recorded, without their New version.
	EachCheck(ctx context.Context, crawl int64, fn func(*revisit.Check) error) error
}

// Run runs the behaviour suite of revisits against the stores that open
// returns. open must return a new, empty store for every call; it may
// register cleanups with t. Times are whole microseconds, which is what
// the least precise store keeps.
func Run(t *testing.T, open func(t *testing.T) Store) {
	t.Helper()
	s := &suite{open: open}
	t.Run("VersionsAndChangeLog", s.versionsAndChangeLog)
	t.Run("OlderThan", s.olderThan)
	t.Run("CanceledRunRecordsWhatItChecked", s.canceled)
	t.Run("RevisitPagesInPages", s.revisitPagesInPages)
	t.Run("ManyPagesCheckedOnce", s.manyPagesCheckedOnce)
	t.Run("VersionsFollowTheLatest", s.versionsFollowTheLatest)
	t.Run("ChangeLogInOrder", s.changeLogInOrder)
	t.Run("NewValidatorsOfAnUnchangedBody", s.newValidators)
	t.Run("RedirectElsewhereIsNoVersion", s.redirectElsewhere)
}

type suite struct {
	open func(t *testing.T) Store
}

// t0 is the time of every fixture's crawl.
var t0 = time.Date(2024, 3, 4, 9, 0, 0, 0, time.UTC)

// fixture is a site crawled into a fresh store.
type fixture struct {
	site  *Site
	store Store
	crawl int64
}

func (su *suite) newFixture(t *testing.T, pages map[string]SitePage) *fixture {
	t.Helper()
	fx := &fixture{site: NewSite(t, pages), store: su.open(t)}
	fx.crawl = Crawl(t, fx.store, fx.site, "site", t0, 1)
	return fx
}

// run revisits the crawl with the clock at now.
func (fx *fixture) run(t *testing.T, ctx context.Context, now time.Time, olderThan time.Duration, workers int) (revisit.Summary, error) {
	t.Helper()
	return revisit.Run(ctx, revisit.Config{Crawl: fx.crawl, OlderThan: olderThan, Costs: change.DefaultCosts(),
		Workers: workers, Now: func() time.Time { return now }}, fx.store, NewFetcher(t))
}

// pages returns every page RevisitPages gives, reading limit at a time.
func pages(t *testing.T, st Store, crawl int64, limit int) []revisit.Page {
	t.Helper()
	var out []revisit.Page
	var after int64
	for {
		ps, err := st.RevisitPages(context.Background(), crawl, after, limit)
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) > limit {
			t.Fatalf("RevisitPages(limit %d) gave %d pages", limit, len(ps))
		}
		out = append(out, ps...)
		if len(ps) < limit {
			return out
		}
		after = ps[len(ps)-1].ID
	}
}

// pageIDs returns the IDs of the crawl's pages by path.
func (fx *fixture) pageIDs(t *testing.T) map[string]int64 {
	t.Helper()
	m := make(map[string]int64)
	for _, p := range pages(t, fx.store, fx.crawl, 100) {
		m[fx.site.Path(p.URL)] = p.ID
	}
	return m
}

// checks returns the change-log rows recorded at time at, by path.
func (fx *fixture) checks(t *testing.T, at time.Time) map[string]revisit.Check {
	t.Helper()
	m := make(map[string]revisit.Check)
	err := fx.store.EachCheck(context.Background(), fx.crawl, func(c *revisit.Check) error {
		if c.CheckedAt.Equal(at) {
			m[fx.site.Path(c.URL)] = *c
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

func (su *suite) versionsAndChangeLog(t *testing.T) {
	ctx := context.Background()
	lm1 := "Mon, 04 Mar 2024 08:00:00 GMT"
	lm2 := "Mon, 04 Mar 2024 10:30:00 GMT"
	fx := su.newFixture(t, map[string]SitePage{
		"/":  {Words: "index", ETag: `"i1"`},
		"/a": {Words: aWords1, ETag: `"a1"`},
		"/b": {Words: bWords1, Modified: lm1},
		"/c": {Words: cWords1},
		"/d": {Words: "soon gone"},
	})
	s := fx.site

	// First revisit: /a changed, /b and / answer 304, /c is the same, /d is gone.
	s.Set("/a", SitePage{Words: aWords2, ETag: `"a2"`})
	s.Set("/d", SitePage{Status: http.StatusGone})
	t1 := t0.Add(time.Hour)
	sum, err := fx.run(t, ctx, t1, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := (revisit.Summary{Checked: 5, Changed: 1, Unchanged: 1, NotModified: 2, Failed: 1}); sum != want {
		t.Errorf("first revisit: summary %+v, want %+v", sum, want)
	}
	reqs := s.TakeRequests()
	for path, want := range map[string]Request{
		"/":  {Path: "/", IfNoneMatch: `"i1"`, Status: 304},
		"/a": {Path: "/a", IfNoneMatch: `"a1"`, Status: 200},
		"/b": {Path: "/b", IfModifiedSince: lm1, Status: 304},
		"/c": {Path: "/c", Status: 200},
		"/d": {Path: "/d", Status: 410},
	} {
		if got := reqs[path]; got != want {
			t.Errorf("first revisit: request %+v, want %+v", got, want)
		}
	}
	log1 := fx.checks(t, t1)
	compareLog(t, "first revisit", log1, map[string]revisit.Check{
		"/":  {Status: 304, Version: 1},
		"/a": {Status: 200, Changed: true, UpdateSize: 2, Version: 2},
		"/b": {Status: 304, Version: 1},
		"/c": {Status: 200, Version: 1},
		"/d": {Status: 410, Version: 1, Failure: "status: HTTP 410"},
	})
	if c := log1["/a"]; c.Size < len(aWords2) {
		t.Errorf("fetched size of /a = %d, want at least the %d bytes of its words", c.Size, len(aWords2))
	}
	if c := log1["/c"]; c.Size < len(cWords1) {
		t.Errorf("fetched size of /c = %d, want at least the %d bytes of its words", c.Size, len(cWords1))
	}

	// Second revisit: /a is asked with its new ETag and answers 304; /b and
	// /c changed.
	s.Set("/b", SitePage{Words: bWords2, Modified: lm2})
	s.Set("/c", SitePage{Words: cWords2})
	t2 := t0.Add(2 * time.Hour)
	sum, err = fx.run(t, ctx, t2, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := (revisit.Summary{Checked: 5, Changed: 2, NotModified: 2, Failed: 1}); sum != want {
		t.Errorf("second revisit: summary %+v, want %+v", sum, want)
	}
	reqs = s.TakeRequests()
	if got := reqs["/a"]; got.IfNoneMatch != `"a2"` || got.Status != 304 {
		t.Errorf("second revisit of /a: %+v, want If-None-Match \"a2\" answered 304", got)
	}
	if got := reqs["/b"]; got.IfModifiedSince != lm1 || got.Status != 200 {
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
	s.Set("/a", SitePage{Words: aWords3, ETag: `"a3"`})
	t3 := t0.Add(3 * time.Hour)
	if _, err := fx.run(t, ctx, t3, 0, 1); err != nil {
		t.Fatal(err)
	}
	reqs = s.TakeRequests()
	if got := reqs["/b"]; got.IfModifiedSince != lm2 || got.Status != 304 {
		t.Errorf("third revisit of /b: %+v, want If-Modified-Since %s answered 304", got, lm2)
	}

	// Every version is kept, with its change from the one before.
	ids := fx.pageIDs(t)
	costs := change.DefaultCosts()
	for _, tc := range []struct {
		path  string
		texts []string
		times []time.Time
		ops   []change.Ops // of versions 2…
	}{
		{"/a", []string{aWords1, aWords2, aWords3}, []time.Time{t0, t1, t3},
			[]change.Ops{{Replace: 1, Add: 1}, {Move: 1}}},
		{"/b", []string{bWords1, bWords2}, []time.Time{t0, t2}, []change.Ops{{Copy: 1}}},
		{"/c", []string{cWords1, cWords2}, []time.Time{t0, t2}, []change.Ops{{Shrink: 1}}},
		{"/d", []string{"soon gone"}, []time.Time{t0}, nil},
	} {
		vs, err := fx.store.PageVersions(ctx, ids[tc.path])
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
			if txt, err := fx.store.VersionText(ctx, ids[tc.path], i+1); err != nil || txt != tc.texts[i] {
				t.Errorf("%s: VersionText(%d) = %q, %v; want %q", tc.path, i+1, txt, err, tc.texts[i])
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
	vs, _ := fx.store.PageVersions(ctx, ids["/a"])
	if len(vs) == 3 && (vs[1].Change.Delta != 2 || vs[1].Change.Distance != 0.4 || vs[2].Change.Delta != 0.75 || vs[2].Change.Distance != 0.15) {
		t.Errorf("/a changes: δ_E %v, D %v then δ_E %v, D %v; want 2, 0.4 then 0.75, 0.15",
			vs[1].Change.Delta, vs[1].Change.Distance, vs[2].Change.Delta, vs[2].Change.Distance)
	}
	// The latest version's validators are what the next check sends.
	for _, p := range pages(t, fx.store, fx.crawl, 100) {
		if path := fx.site.Path(p.URL); path == "/a" && (p.Version != 3 || p.ETag != `"a3"` || !p.CheckedAt.Equal(t3)) {
			t.Errorf("/a to revisit: %+v, want version 3 with ETag \"a3\" checked at %s", p, t3)
		}
	}

	// The change log has a row for every check, in the order of the runs.
	var n, changed int
	var last time.Time
	err = fx.store.EachCheck(ctx, fx.crawl, func(c *revisit.Check) error {
		n++
		if c.Changed {
			changed++
		}
		if c.CheckedAt.Before(last) || c.New != nil {
			t.Errorf("change-log row %d: %+v after a check at %s; want the runs in order, no new version", n, c, last)
		}
		last = c.CheckedAt
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

func (su *suite) olderThan(t *testing.T) {
	ctx := context.Background()
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
			fx := su.newFixture(t, map[string]SitePage{
				"/":  {Words: "index"},
				"/a": {Words: aWords1},
				"/b": {Words: bWords1},
			})
			// /a was checked 10 minutes before the run, the others only crawled an hour before.
			now := t0.Add(time.Hour)
			err := fx.store.RecordCheck(ctx, &revisit.Check{PageID: fx.pageIDs(t)["/a"], URL: fx.site.URL("/a"),
				CheckedAt: now.Add(-10 * time.Minute), Status: 200, Version: 1})
			if err != nil {
				t.Fatal(err)
			}
			sum, err := fx.run(t, ctx, now, tc.olderThan, 2)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for p := range fx.site.TakeRequests() {
				got = append(got, p)
			}
			sort.Strings(got)
			if strings.Join(got, " ") != strings.Join(tc.wantReqs, " ") || sum.NotDue != tc.notDue || sum.Checked != len(tc.wantReqs) {
				t.Errorf("requests %v, summary %+v; want %v and %d not due", got, sum, tc.wantReqs, tc.notDue)
			}
		})
	}
}

func (su *suite) canceled(t *testing.T) {
	fx := su.newFixture(t, map[string]SitePage{
		"/":  {Words: "index"},
		"/a": {Words: aWords1},
		"/b": {Words: bWords1},
		"/c": {Words: cWords1},
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fx.site.SetCancel(cancel)
	// Pages are checked in crawl order with one worker: /, then /a … /c.
	fx.site.Set("/b", SitePage{Words: bWords2, Block: true})
	now := t0.Add(time.Hour)
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
	vs, err := fx.store.PageVersions(context.Background(), fx.pageIDs(t)["/b"])
	if err != nil || len(vs) != 1 {
		t.Errorf("/b has %d versions (%v) after a canceled check, want 1", len(vs), err)
	}
	// Run again, the canceled run's checks are not due: it resumes.
	fx.site.Set("/b", SitePage{Words: bWords2})
	fx.site.TakeRequests()
	sum, err = fx.run(t, context.Background(), now.Add(time.Minute), 30*time.Minute, 1)
	if err != nil || sum.Checked != 2 || sum.Changed != 1 || sum.NotDue != 2 {
		t.Errorf("resumed run: %+v, %v; want /b (changed) and /c checked, 2 not due", sum, err)
	}
}

func (su *suite) revisitPagesInPages(t *testing.T) {
	// Seven pages, the odd ones with validators, and one that fails.
	site := map[string]SitePage{"/": {Words: "index"}, "/gone": {Status: http.StatusNotFound}}
	for i := range 6 {
		p := SitePage{Words: fmt.Sprintf("page %d text", i)}
		if i%2 == 1 {
			p.ETag, p.Modified = fmt.Sprintf(`"e%d"`, i), "Mon, 04 Mar 2024 08:00:00 GMT"
		}
		site[fmt.Sprintf("/p%d", i)] = p
	}
	fx := su.newFixture(t, site)
	var want []string
	for path := range site {
		if path != "/gone" {
			want = append(want, path)
		}
	}
	sort.Strings(want) // the order of the crawl: / then its links sorted
	for _, limit := range []int{1, 3, 7, 100} {
		ps := pages(t, fx.store, fx.crawl, limit)
		if len(ps) != 7 {
			t.Fatalf("limit %d: %d pages, want the 7 without failure", limit, len(ps))
		}
		for i, p := range ps {
			path := fx.site.Path(p.URL)
			sp := site[path]
			if path != want[i] || (i > 0 && p.ID <= ps[i-1].ID) {
				t.Errorf("limit %d: page %d is %s (ID %d), want %s in ID order", limit, i, path, p.ID, want[i])
			}
			if p.Version != 1 || p.ETag != sp.ETag || p.Modified != sp.Modified || len(p.ContentHash) != 64 ||
				!p.CheckedAt.Equal(t0) || !p.SitemapLastMod.IsZero() {
				t.Errorf("limit %d: %s = %+v, want version 1 fetched at %s with ETag %q, Last-Modified %q and a SHA-256",
					limit, path, p, t0, sp.ETag, sp.Modified)
			}
		}
	}
	if ps, err := fx.store.RevisitPages(context.Background(), fx.crawl+1, 0, 10); err != nil || len(ps) != 0 {
		t.Errorf("another crawl: %d pages, %v; want none", len(ps), err)
	}
	if ps, err := fx.store.RevisitPages(context.Background(), fx.crawl, 0, 0); err != nil || len(ps) != 0 {
		t.Errorf("limit 0: %d pages, %v; want none", len(ps), err)
	}
}

func (su *suite) manyPagesCheckedOnce(t *testing.T) {
	// More pages than revisit.Run reads at a time (256), in two crawls of
	// one store: a run checks each page of its crawl once, and only those.
	const n = 300
	site := map[string]SitePage{"/": {Words: "index"}}
	for i := range n {
		site[fmt.Sprintf("/p%03d", i)] = SitePage{Words: fmt.Sprintf("page %d", i)}
	}
	st := su.open(t)
	other := NewSite(t, map[string]SitePage{"/": {Words: "other"}, "/x": {Words: "x"}})
	otherCrawl := Crawl(t, st, other, "other", t0, 1)
	s := NewSite(t, site)
	crawl := Crawl(t, st, s, "many", t0, 4)
	fx := &fixture{site: s, store: st, crawl: crawl}
	sum, err := fx.run(t, context.Background(), t0.Add(time.Hour), 0, 4)
	if err != nil {
		t.Fatal(err)
	}
	if reqs := s.TakeRequests(); sum.Checked != n+1 || sum.Unchanged != n+1 || len(reqs) != n+1 {
		t.Errorf("summary %+v, %d paths asked; want %d unchanged, each asked once", sum, len(reqs), n+1)
	}
	if reqs := other.TakeRequests(); len(reqs) != 0 {
		t.Errorf("the other crawl's site was asked %d paths", len(reqs))
	}
	var logged int
	if err := st.EachCheck(context.Background(), otherCrawl, func(*revisit.Check) error { logged++; return nil }); err != nil || logged != 0 {
		t.Errorf("the other crawl has %d checks (%v), want none", logged, err)
	}
}

func (su *suite) versionsFollowTheLatest(t *testing.T) {
	ctx := context.Background()
	fx := su.newFixture(t, map[string]SitePage{"/": {Words: "index"}, "/a": {Words: "page 1 text", ETag: `"e1"`}})
	p := pages(t, fx.store, fx.crawl, 10)[1]
	t1, t2 := t0.Add(time.Hour), t0.Add(90*time.Minute+500*time.Millisecond)

	// An unchanged check changes the check time only.
	if err := fx.store.RecordCheck(ctx, &revisit.Check{PageID: p.ID, URL: p.URL, CheckedAt: t1, Status: 304, Version: 1}); err != nil {
		t.Fatal(err)
	}
	if got := pages(t, fx.store, fx.crawl, 10)[1]; !got.CheckedAt.Equal(t1) || got.Version != 1 || got.ETag != `"e1"` {
		t.Errorf("after a 304: %+v, want version 1 checked at %s", got, t1)
	}
	// A change stores version 2 after the crawled page.
	ch := change.IED(change.Words("page 1 text"), change.Words("page one text"), change.DefaultCosts())
	v2 := &revisit.Version{Number: 2, FetchedAt: t2, Status: 200, Size: 20, ContentType: "text/html", ETag: `"n"`,
		Modified: "Tue, 05 Mar 2024 08:00:00 GMT", ContentHash: "hn", Title: "t2", Text: "page one text", Change: ch, Costs: change.DefaultCosts()}
	if err := fx.store.RecordCheck(ctx, &revisit.Check{PageID: p.ID, URL: p.URL, CheckedAt: t2, Status: 200, Size: 20,
		UpdateSize: ch.Delta, Changed: true, Version: 2, New: v2}); err != nil {
		t.Fatal(err)
	}
	// A new version must follow the latest; the refused check is not logged.
	for _, number := range []int{2, 4} {
		bad := *v2
		bad.Number = number
		err := fx.store.RecordCheck(ctx, &revisit.Check{PageID: p.ID, URL: p.URL, CheckedAt: t2.Add(time.Minute), Changed: true, Version: number, New: &bad})
		if err == nil {
			t.Errorf("version %d after 2 was stored", number)
		}
	}
	if err := fx.store.RecordCheck(ctx, &revisit.Check{PageID: p.ID + 1000, CheckedAt: t2, Changed: true, Version: 2, New: v2}); !errors.Is(err, revisit.ErrNoVersion) {
		t.Errorf("a new version of a missing page: %v, want revisit.ErrNoVersion", err)
	}

	got := pages(t, fx.store, fx.crawl, 10)[1]
	if p.FetchedAt.IsZero() || !p.FetchedAt.Equal(p.CheckedAt) {
		t.Errorf("a page never checked: fetched at %s, checked at %s; want its first fetch's time, as both", p.FetchedAt, p.CheckedAt)
	}
	want := revisit.Page{ID: p.ID, URL: p.URL, Version: 2, ETag: `"n"`, Modified: "Tue, 05 Mar 2024 08:00:00 GMT", ContentHash: "hn", FetchedAt: p.FetchedAt, FinalURL: p.FinalURL}
	if got.CheckedAt.Equal(t2) {
		got.CheckedAt = time.Time{}
	}
	if got != want {
		t.Errorf("after a change: %+v, want %+v checked at %s", got, want, t2)
	}
	vs, err := fx.store.PageVersions(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || vs[0].Number != 1 || vs[0].Text != "page 1 text" || vs[0].ETag != `"e1"` || vs[0].ContentHash != p.ContentHash ||
		vs[0].Status != 200 || !vs[0].FetchedAt.Equal(t0) || vs[0].Change != (change.Result{}) {
		t.Errorf("versions %+v, want the crawled page first", vs)
	} else if v := vs[1]; !v.FetchedAt.Equal(t2) {
		t.Errorf("version 2 fetched at %s, want %s", v.FetchedAt, t2)
	} else if v.FetchedAt = v2.FetchedAt; v != *v2 {
		t.Errorf("version 2 = %+v, want %+v", v, *v2)
	}
	for _, tc := range []struct {
		page    int64
		version int
	}{{p.ID, 3}, {p.ID, 0}, {p.ID + 1000, 1}} {
		if _, err := fx.store.VersionText(ctx, tc.page, tc.version); !errors.Is(err, revisit.ErrNoVersion) {
			t.Errorf("VersionText(page %d, %d) error %v, want revisit.ErrNoVersion", tc.page, tc.version, err)
		}
	}
	if txt, err := fx.store.VersionText(ctx, p.ID, 2); err != nil || txt != "page one text" {
		t.Errorf("VersionText(2) = %q, %v", txt, err)
	}

	var log []revisit.Check
	if err := fx.store.EachCheck(ctx, fx.crawl, func(c *revisit.Check) error { log = append(log, *c); return nil }); err != nil {
		t.Fatal(err)
	}
	wantLog := []revisit.Check{
		{PageID: p.ID, URL: p.URL, CheckedAt: t1, Status: 304, Version: 1},
		{PageID: p.ID, URL: p.URL, CheckedAt: t2, Status: 200, Size: 20, UpdateSize: ch.Delta, Changed: true, Version: 2},
	}
	if len(log) != 2 {
		t.Fatalf("change log %+v, want %+v", log, wantLog)
	}
	for i := range log {
		if !log[i].CheckedAt.Equal(wantLog[i].CheckedAt) {
			t.Errorf("change-log row %d checked at %s, want %s", i, log[i].CheckedAt, wantLog[i].CheckedAt)
		}
		log[i].CheckedAt = wantLog[i].CheckedAt
		if log[i] != wantLog[i] {
			t.Errorf("change-log row %d = %+v, want %+v", i, log[i], wantLog[i])
		}
	}
}

func (su *suite) changeLogInOrder(t *testing.T) {
	ctx := context.Background()
	fx := su.newFixture(t, map[string]SitePage{"/": {Words: "index"}, "/a": {Words: "a"}, "/b": {Words: "b"}})
	ps := pages(t, fx.store, fx.crawl, 10)
	const n = 1100 // more than two read batches of any store so far
	for i := range n {
		p := ps[i%len(ps)]
		// Later rows may be checked before earlier ones: the log keeps
		// the order of recording, not of check times.
		c := &revisit.Check{PageID: p.ID, URL: p.URL, CheckedAt: t0.Add(time.Duration((i*7)%n) * time.Minute), Status: 200, Version: 1}
		if i%5 == 0 {
			c.Status, c.Failure = 0, "network: refused"
		}
		if err := fx.store.RecordCheck(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	i := 0
	err := fx.store.EachCheck(ctx, fx.crawl, func(c *revisit.Check) error {
		want := t0.Add(time.Duration((i*7)%n) * time.Minute)
		if !c.CheckedAt.Equal(want) || (c.Failure != "") != (i%5 == 0) || c.PageID != ps[i%len(ps)].ID {
			return fmt.Errorf("row %d: %+v, want page %d checked at %s", i, c, ps[i%len(ps)].ID, want)
		}
		i++
		return nil
	})
	if err != nil || i != n {
		t.Errorf("EachCheck read %d rows, err %v; want %d", i, err, n)
	}
	// A page's check time is its latest check's, whatever the order of
	// recording.
	latest := make(map[int64]time.Time)
	for i := range n {
		id, at := ps[i%len(ps)].ID, t0.Add(time.Duration((i*7)%n)*time.Minute)
		if at.After(latest[id]) {
			latest[id] = at
		}
	}
	for _, p := range pages(t, fx.store, fx.crawl, 10) {
		if !p.CheckedAt.Equal(latest[p.ID]) {
			t.Errorf("page %d checked at %s, want %s", p.ID, p.CheckedAt, latest[p.ID])
		}
	}
	// fn's error ends the reading.
	stop := errors.New("stop")
	calls := 0
	if err := fx.store.EachCheck(ctx, fx.crawl, func(*revisit.Check) error { calls++; return stop }); !errors.Is(err, stop) || calls != 1 {
		t.Errorf("EachCheck with a failing fn: %v after %d calls, want its error after 1", err, calls)
	}
}

// newValidators: a server that sends a new ETag for the same body has
// the next check made conditional on the new one, which it answers 304.
func (su *suite) newValidators(t *testing.T) {
	ctx := context.Background()
	fx := su.newFixture(t, map[string]SitePage{"/": {Words: "index"}, "/a": {Words: "same words", ETag: `"old"`}})
	fx.site.Set("/a", SitePage{Words: "same words", ETag: `"new"`})
	fx.site.TakeRequests()
	for i, want := range []struct {
		sent   string
		status int
	}{{`"old"`, 200}, {`"new"`, 304}} {
		if _, err := fx.run(t, ctx, t0.Add(time.Duration(i+1)*time.Hour), 0, 1); err != nil {
			t.Fatal(err)
		}
		got := fx.site.TakeRequests()["/a"]
		if got.IfNoneMatch != want.sent || got.Status != want.status {
			t.Errorf("check %d: sent If-None-Match %s, answered %d; want %s, %d", i+1, got.IfNoneMatch, got.Status, want.sent, want.status)
		}
	}
	if p := pages(t, fx.store, fx.crawl, 10)[1]; p.Version != 1 || p.ETag != `"new"` {
		t.Errorf("after the checks: version %d, ETag %s; want version 1 with the new ETag", p.Version, p.ETag)
	}
}

// redirectElsewhere: a page that now redirects to another page is not
// given that page's text as a new version: the check is logged as a
// redirect, saying where to.
func (su *suite) redirectElsewhere(t *testing.T) {
	ctx := context.Background()
	fx := su.newFixture(t, map[string]SitePage{"/": {Words: "index"}, "/a": {Words: "the old page"}, "/b": {Words: "another page"}})
	fx.site.Set("/a", SitePage{RedirectTo: "/b"})
	if _, err := fx.run(t, ctx, t0.Add(time.Hour), 0, 1); err != nil {
		t.Fatal(err)
	}
	var log []*revisit.Check
	if err := fx.store.EachCheck(ctx, fx.crawl, func(c *revisit.Check) error {
		if strings.HasSuffix(c.URL.String(), "/a") {
			log = append(log, c)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(log) != 1 || log[0].Changed || !strings.Contains(log[0].Failure, "redirect: now to "+fx.site.Server.URL+"/b") {
		t.Fatalf("change log of /a: %+v, want one check failed as a redirect to /b", log)
	}
	for _, p := range pages(t, fx.store, fx.crawl, 10) {
		if strings.HasSuffix(p.URL.String(), "/a") && p.Version != 1 {
			t.Errorf("/a has version %d after redirecting elsewhere, want 1", p.Version)
		}
	}
}
