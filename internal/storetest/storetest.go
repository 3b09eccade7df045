package storetest

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/urlnorm"
)

// Store is a crawler.Store that can be closed and read back.
type Store interface {
	crawler.Store
	Close() error
	// EachPage calls fn with every page of crawl in fetch order, as
	// committed (without text, signature, links, raw exchanges and
	// sitemaps), with its Order and DuplicateOf.
	EachPage(ctx context.Context, crawl int64, fn func(*crawler.Page) error) error
	// EachLink calls fn with every link of crawl, in the fetch order of
	// their pages, as committed, with its page's final URL and the
	// crawl's topics.
	EachLink(ctx context.Context, crawl int64, fn func(*crawler.PageLink) error) error
	// Learnt returns the pages crawl learnt from (CrawlSpec.Learnt), in
	// the order of their URLs.
	Learnt(ctx context.Context, crawl int64) ([]urlnorm.URL, error)
}

// Open opens a store on a new, empty database and returns it with a
// function that opens the same database again (after the first store
// was closed). Both stores are closed by the suite or by t's cleanups.
type Open func(t *testing.T) (s Store, reopen func(t *testing.T) Store)

// Run runs the suite, one subtest per behaviour, each on a new database.
func Run(t *testing.T, open Open) {
	t.Run("PopOrders", func(t *testing.T) { popOrders(t, open) })
	t.Run("PushedAgain", func(t *testing.T) { pushedAgain(t, open) })
	t.Run("ShallowestThenBestScore", func(t *testing.T) { shallowest(t, open) })
	t.Run("SurveyFirst", func(t *testing.T) { surveyFirst(t, open) })
	t.Run("VisitedOncePerCrawl", func(t *testing.T) { visitedOnce(t, open) })
	t.Run("ResumeRequeuesLeases", func(t *testing.T) { resume(t, open) })
	t.Run("MaxPerHost", func(t *testing.T) { maxPerHost(t, open) })
	t.Run("OnePagePerFinalURL", func(t *testing.T) { onePagePerFinal(t, open) })
	t.Run("PageRecordReadBack", func(t *testing.T) { pageRecord(t, open) })
	t.Run("LinkRecordReadBack", func(t *testing.T) { linkRecord(t, open) })
	t.Run("Rescore", func(t *testing.T) { rescore(t, open) })
	t.Run("PopFloor", func(t *testing.T) { popFloor(t, open) })
	t.Run("PopPeek", func(t *testing.T) { popPeek(t, open) })
	t.Run("Learner", func(t *testing.T) { learner(t, open) })
	t.Run("FrontierSizes", func(t *testing.T) { frontierSizes(t, open) })
	t.Run("LearntKept", func(t *testing.T) { learntKept(t, open) })
}

func u(s string) urlnorm.URL { return urlnorm.MustParse("http://a.test" + s) }

func popAll(t *testing.T, s crawler.Store, crawl int64, topic string, order crawler.Order) []string {
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

func mustOpen(t *testing.T, s crawler.Store, spec crawler.CrawlSpec) crawler.CrawlState {
	t.Helper()
	st, err := s.OpenCrawl(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func linkSpec(stacks ...string) crawler.CrawlSpec {
	return crawler.CrawlSpec{Name: "x", Strategy: crawler.StrategyLink, Stacks: stacks, Topics: []string{"t"}, Seeds: []urlnorm.URL{u("/seed")}}
}

func popOrders(t *testing.T, open Open) {
	ctx := context.Background()
	for _, tc := range []struct {
		order crawler.Order
		want  string
	}{
		{crawler.LIFO, "/seed /c /b /a"},
		{crawler.FIFO, "/seed /a /b /c"},
		{crawler.BestFirst, "/seed /b /c /a"},
		{crawler.Shallowest, "/seed /b /c /a"},
	} {
		s, _ := open(t)
		st := mustOpen(t, s, linkSpec("t"))
		first := popAll(t, s, st.ID, "t", tc.order)
		push := []crawler.Entry{{Topic: "t", URL: u("/a"), Score: 0.1}, {Topic: "t", URL: u("/b"), Score: 0.9}, {Topic: "t", URL: u("/c"), Score: 0.5}}
		if err := s.Commit(ctx, st.ID, nil, push); err != nil {
			t.Fatal(err)
		}
		got := append(first, popAll(t, s, st.ID, "t", tc.order)...)
		if strings.Join(got, " ") != tc.want {
			t.Errorf("order %d: popped %v, want %s", tc.order, got, tc.want)
		}
		s.Close()
	}
}

func pushedAgain(t *testing.T, open Open) {
	// /a is pushed, then /b, then /a again with another score and depth.
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		stack string
		order crawler.Order
		want  string
		wantA crawler.Entry
	}{
		// The bfs queue keeps the first discovery: place and depth.
		{"bfs queue", "", crawler.FIFO, "/seed /a /b", crawler.Entry{Depth: 1, Score: 0}},
		// A stack moves the URL to its top; the shorter distance from a
		// seed and the higher score stay, whichever push had them.
		{"stack", "t", crawler.LIFO, "/seed /a /b", crawler.Entry{Depth: 1, Score: 0.9}},
		{"best-first", "t", crawler.BestFirst, "/seed /a /b", crawler.Entry{Depth: 1, Score: 0.9}},
		{"shallowest", "t", crawler.Shallowest, "/seed /a /b", crawler.Entry{Depth: 1, Score: 0.9}},
	} {
		s, _ := open(t)
		st := mustOpen(t, s, linkSpec(tc.stack))
		got := popAll(t, s, st.ID, tc.stack, tc.order)
		for _, push := range [][]crawler.Entry{
			{{Topic: tc.stack, URL: u("/a"), Depth: 1, Score: 0.9}},
			{{Topic: tc.stack, URL: u("/b"), Depth: 1, Score: 0.5}},
			{{Topic: tc.stack, URL: u("/a"), Depth: 2, Score: 0.2}},
		} {
			if tc.stack == "" {
				push[0].Score = 0
			}
			if err := s.Commit(ctx, st.ID, nil, push); err != nil {
				t.Fatal(err)
			}
		}
		es, err := s.Pop(ctx, st.ID, tc.stack, tc.order, 10, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			got = append(got, e.URL.Path())
			if e.URL.Path() == "/a" && (e.Depth != tc.wantA.Depth || e.Score != tc.wantA.Score) {
				t.Errorf("%s: /a has depth %d, score %v; want %d, %v", tc.name, e.Depth, e.Score, tc.wantA.Depth, tc.wantA.Score)
			}
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s: popped %v, want %s", tc.name, got, tc.want)
		}
		// The same URL pushed twice in one commit is one entry.
		if err := s.Commit(ctx, st.ID, nil, []crawler.Entry{{Topic: tc.stack, URL: u("/c"), Score: 0.1}, {Topic: tc.stack, URL: u("/c"), Score: 0.3}}); err != nil {
			t.Fatal(err)
		}
		if got := popAll(t, s, st.ID, tc.stack, tc.order); strings.Join(got, " ") != "/c" {
			t.Errorf("%s: after pushing /c twice in one commit, popped %v", tc.name, got)
		}
		s.Close()
	}
}

// surveyFirst: the entries within crawler.SurveyDepth of a seed come
// first, best first, then the others, best first, also when one pop takes
// from both.
func surveyFirst(t *testing.T, open Open) {
	ctx := context.Background()
	s, _ := open(t)
	defer s.Close()
	st := mustOpen(t, s, linkSpec("t"))
	popAll(t, s, st.ID, "t", crawler.SurveyFirst) // the seed
	d := crawler.SurveyDepth
	push := []crawler.Entry{
		{Topic: "t", URL: u("/deep-high"), Depth: d + 1, Score: 0.99}, {Topic: "t", URL: u("/near-low"), Depth: d, Score: 0.1},
		{Topic: "t", URL: u("/deep-low"), Depth: d + 2, Score: 0.2}, {Topic: "t", URL: u("/near-high"), Depth: d, Score: 0.8},
		{Topic: "t", URL: u("/deep-mid"), Depth: d + 1, Score: 0.5},
	}
	if err := s.Commit(ctx, st.ID, nil, push); err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		es, err := s.Pop(ctx, st.ID, "t", crawler.SurveyFirst, 3, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(es) == 0 {
			break
		}
		var pop []string
		for _, e := range es {
			pop = append(pop, strings.TrimPrefix(e.URL.String(), "http://a.test"))
		}
		got = append(got, strings.Join(pop, " "))
	}
	if want := "/near-high /near-low /deep-high | /deep-mid /deep-low"; strings.Join(got, " | ") != want {
		t.Errorf("popped %q, want %s", strings.Join(got, " | "), want)
	}
	// Once the shallow entries ran out, a new one pushed, or a waiting
	// entry pushed again from nearer, still comes first.
	pushPop := func(push []crawler.Entry, want string) {
		t.Helper()
		if err := s.Commit(ctx, st.ID, nil, push); err != nil {
			t.Fatal(err)
		}
		es, err := s.Pop(ctx, st.ID, "t", crawler.SurveyFirst, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(es) != 1 || es[0].URL != u(want) {
			t.Errorf("popped %v, want %s", es, want)
		}
	}
	pushPop([]crawler.Entry{{Topic: "t", URL: u("/later-deep"), Depth: d + 1, Score: 0.9}, {Topic: "t", URL: u("/later-near"), Depth: d, Score: 0.1}}, "/later-near")
	pushPop([]crawler.Entry{{Topic: "t", URL: u("/again"), Depth: d + 2, Score: 0.05}}, "/later-deep")
	pushPop([]crawler.Entry{{Topic: "t", URL: u("/again"), Depth: d, Score: 0.05}}, "/again")
}

func shallowest(t *testing.T, open Open) {
	ctx := context.Background()
	s, _ := open(t)
	defer s.Close()
	st := mustOpen(t, s, linkSpec("t", "t~reserve"))
	push := []crawler.Entry{
		{Topic: "t~reserve", URL: u("/deep-best"), Depth: 3, Score: 0.9},
		{Topic: "t~reserve", URL: u("/near-low"), Depth: 1, Score: 0.1},
		{Topic: "t~reserve", URL: u("/mid"), Depth: 2, Score: 0.5},
		{Topic: "t~reserve", URL: u("/near-high"), Depth: 1, Score: 0.4},
	}
	if err := s.Commit(ctx, st.ID, nil, push); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(popAll(t, s, st.ID, "t~reserve", crawler.Shallowest), " ")
	if want := "/seed /near-high /near-low /mid /deep-best"; got != want {
		t.Errorf("popped %s, want %s", got, want)
	}
}

func visitedOnce(t *testing.T, open Open) {
	ctx := context.Background()
	s, reopen := open(t)
	spec := crawler.CrawlSpec{Name: "x", Strategy: crawler.StrategyLink, Stacks: []string{"a", "b"}, Topics: []string{"a", "b"}, Seeds: []urlnorm.URL{u("/")}}
	st := mustOpen(t, s, spec)
	// The seed is on both stacks; once leased by one, the other skips it.
	es, _ := s.Pop(ctx, st.ID, "a", crawler.LIFO, 5, 0)
	if len(es) != 1 {
		t.Fatalf("pop a: %v", es)
	}
	if es2, _ := s.Pop(ctx, st.ID, "b", crawler.LIFO, 5, 0); len(es2) != 0 {
		t.Fatalf("pop b gave the leased seed again: %v", es2)
	}
	page := &crawler.Page{URL: u("/"), FinalURL: u("/home"), Topic: "a", Status: 200, FetchedAt: time.Now(),
		Title: "Home", Text: "the home page of a test site with a few words on it",
		Scores: map[string]float64{"a": 0.9, "b": 0.2}, Relevant: map[string]bool{"a": true, "b": false},
		Links: []crawler.Link{{Target: u("/x"), Anchor: "x", Context: "a x b", Scores: []float64{0.8, 0.1}}}}
	push := []crawler.Entry{{Topic: "a", URL: u("/x")}, {Topic: "b", URL: u("/x")}, {Topic: "a", URL: u("/")}, {Topic: "b", URL: u("/home")}}
	if err := s.Commit(ctx, st.ID, []*crawler.Page{page}, push); err != nil {
		t.Fatal(err)
	}
	// "/" was fetched and "/home" is its final URL: neither comes back.
	a := popAll(t, s, st.ID, "a", crawler.LIFO)
	b := popAll(t, s, st.ID, "b", crawler.LIFO)
	if strings.Join(a, " ") != "/x" || len(b) != 0 {
		t.Errorf("after commit: a=%v b=%v, want a=[/x] b=[]", a, b)
	}
	var n int
	if err := s.EachLink(ctx, st.ID, func(*crawler.PageLink) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("%d links stored, want 1", n)
	}
	var rows []*crawler.Page
	if err := s.EachPage(ctx, st.ID, func(p *crawler.Page) error { rows = append(rows, p); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Order != 1 || rows[0].Scores["a"] != 0.9 || !rows[0].Relevant["a"] || rows[0].Relevant["b"] {
		t.Errorf("EachPage = %+v, want the one page, fetched first, relevant to a only", rows)
	}
	s.Close()
	s = reopen(t)
	defer s.Close()
	st2 := mustOpen(t, s, spec)
	if !st2.Resumed || st2.Fetched != 1 || st2.Succeeded != 1 || st2.ByTopic["a"] != 1 {
		t.Errorf("reopened: %+v, want resumed with 1 page fetched on a", st2)
	}
}

func resume(t *testing.T, open Open) {
	ctx := context.Background()
	s, reopen := open(t)
	spec := crawler.CrawlSpec{Name: "x", Strategy: crawler.StrategyBFS, Stacks: []string{""}, Seeds: []urlnorm.URL{u("/1"), u("/2"), u("/3")}}
	st := mustOpen(t, s, spec)
	es, _ := s.Pop(ctx, st.ID, "", crawler.FIFO, 2, 0)
	if len(es) != 2 {
		t.Fatal(es)
	}
	if err := s.Commit(ctx, st.ID, []*crawler.Page{{URL: es[0].URL, FetchedAt: time.Now()}}, nil); err != nil {
		t.Fatal(err)
	}
	s.Close() // es[1] was in flight when the process stopped

	s2 := reopen(t)
	defer s2.Close()
	st2 := mustOpen(t, s2, spec)
	if !st2.Resumed || st2.Fetched != 1 {
		t.Errorf("resume state = %+v, want resumed, 1 fetched", st2)
	}
	left := popAll(t, s2, st2.ID, "", crawler.FIFO)
	slices.Sort(left)
	want := slices.DeleteFunc([]string{"/1", "/2", "/3"}, func(p string) bool { return p == es[0].URL.Path() })
	if !slices.Equal(left, want) {
		t.Errorf("after resume the frontier holds %v, want the in-flight URL and the untouched one %v", left, want)
	}
	// The fetch order goes on from the pages committed before.
	if err := s2.Commit(ctx, st2.ID, []*crawler.Page{{URL: es[1].URL, FetchedAt: time.Now()}}, nil); err != nil {
		t.Fatal(err)
	}
	var order []int
	if err := s2.EachPage(ctx, st2.ID, func(p *crawler.Page) error { order = append(order, p.Order); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(order, []int{1, 2}) {
		t.Errorf("fetch orders after resume %v, want [1 2]", order)
	}
	// A different strategy under the same name is refused.
	spec.Strategy = crawler.StrategyLink
	if _, err := s2.OpenCrawl(ctx, spec); err == nil {
		t.Error("resuming with another strategy gave no error")
	}
}

func maxPerHost(t *testing.T, open Open) {
	ctx := context.Background()
	s, _ := open(t)
	defer s.Close()
	seeds := []urlnorm.URL{u("/1"), u("/2"), u("/3"), urlnorm.MustParse("http://b.test/")}
	st := mustOpen(t, s, crawler.CrawlSpec{Name: "x", Strategy: crawler.StrategyBFS, Stacks: []string{""}, Seeds: seeds})
	es, err := s.Pop(ctx, st.ID, "", crawler.FIFO, 10, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 3 {
		t.Errorf("popped %d URLs with a cap of 2 per host, want 3 (2 of a.test, 1 of b.test)", len(es))
	}
}

func onePagePerFinal(t *testing.T, open Open) {
	ctx := context.Background()
	s, _ := open(t)
	defer s.Close()
	st := mustOpen(t, s, crawler.CrawlSpec{Name: "x", Strategy: crawler.StrategyBFS, Stacks: []string{""}, Seeds: []urlnorm.URL{u("/a"), u("/b")}})
	es, _ := s.Pop(ctx, st.ID, "", crawler.FIFO, 2, 0)
	if len(es) != 2 {
		t.Fatal(es)
	}
	// Both redirect to /c: the second is kept as an alias.
	var pages []*crawler.Page
	for _, e := range es {
		pages = append(pages, &crawler.Page{URL: e.URL, FinalURL: u("/c"), Status: 200, FetchedAt: time.Now(), Title: "C", Text: "page c",
			Redirects: []crawler.Redirect{{URL: e.URL, Target: u("/c"), Status: 301}}})
	}
	if err := s.Commit(ctx, st.ID, pages, nil); err != nil {
		t.Fatal(err)
	}
	if pages[0].Failure != "" || pages[1].Failure == "" || pages[1].RedirectTo != u("/c") {
		t.Errorf("two pages with one final URL: failures %q, %q; redirect to %v", pages[0].Failure, pages[1].Failure, pages[1].RedirectTo)
	}
}

// pageRecord commits two pages, the second a copy of the first, and
// reads them back: the record as committed, in order, the copy naming
// its original.
func pageRecord(t *testing.T, open Open) {
	ctx := context.Background()
	s, _ := open(t)
	defer s.Close()
	spec := crawler.CrawlSpec{Name: "x", Strategy: crawler.StrategyLink, Stacks: []string{"a", "b"}, Topics: []string{"a", "b"},
		Seeds: []urlnorm.URL{u("/1"), u("/2")}}
	st := mustOpen(t, s, spec)
	if es, _ := s.Pop(ctx, st.ID, "a", crawler.LIFO, 5, 0); len(es) != 2 {
		t.Fatalf("pop: %v", es)
	}
	at := time.Date(2026, 11, 23, 10, 0, 0, 500_000_000, time.UTC)
	page := func(path string, depth int) *crawler.Page {
		return &crawler.Page{URL: u(path), FinalURL: u(path + "/"), Topic: "a", Depth: depth, Status: 200, FetchedAt: at,
			Duration: 1500 * time.Millisecond, Size: 4, ContentType: "text/html", ETag: `"e"`, Modified: "Mon, 23 Nov 2026 09:00:00 GMT",
			ContentHash: "ab12", Title: "Same", Text: "same",
			Scores: map[string]float64{"a": 0.75, "b": 0.25}, Relevant: map[string]bool{"a": true, "b": false}}
	}
	committed := []*crawler.Page{page("/1", 0), page("/2", 1)}
	if err := s.Commit(ctx, st.ID, committed, nil); err != nil {
		t.Fatal(err)
	}
	var got []*crawler.Page
	if err := s.EachPage(ctx, st.ID, func(p *crawler.Page) error { got = append(got, p); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d pages read back, want 2", len(got))
	}
	for i, p := range got {
		want := *page([]string{"/1", "/2"}[i], i)
		want.Order, want.Text = i+1, ""
		if i == 1 {
			want.DuplicateOf = u("/1")
		}
		if !p.FetchedAt.Equal(want.FetchedAt) {
			t.Errorf("page %d fetched at %v, want %v", i+1, p.FetchedAt, want.FetchedAt)
		}
		p.FetchedAt = want.FetchedAt
		if !reflect.DeepEqual(*p, want) {
			t.Errorf("page %d read back as\n%+v\nwant\n%+v", i+1, *p, want)
		}
	}
}

// linkRecord commits two pages with links, scored and not, and a failed
// fetch, and reads the links back: each as committed, in fetch order,
// with its page's final URL and the crawl's topics.
func linkRecord(t *testing.T, open Open) {
	ctx := context.Background()
	s, _ := open(t)
	defer s.Close()
	topics := []string{"a", "b"}
	spec := crawler.CrawlSpec{Name: "x", Strategy: crawler.StrategyLink, Stacks: topics, Topics: topics,
		Seeds: []urlnorm.URL{u("/1"), u("/2"), u("/3")}}
	st := mustOpen(t, s, spec)
	if es, _ := s.Pop(ctx, st.ID, "a", crawler.LIFO, 5, 0); len(es) != 3 {
		t.Fatalf("pop: %v", es)
	}
	committed := []*crawler.Page{
		{URL: u("/1"), FinalURL: u("/1/"), Topic: "a", Status: 200, FetchedAt: time.Now(), Text: "one",
			Links: []crawler.Link{
				{Target: u("/x?q=1"), Anchor: "x", Context: "see x here", Scores: []float64{0.75, 0.125}},
				{Target: u("/y"), Anchor: "", Context: "", Scores: []float64{0, 1}},
			}},
		{URL: u("/2"), FinalURL: u("/2"), Topic: "a", Status: 404, FetchedAt: time.Now(), Failure: "status: HTTP 404"},
		{URL: u("/3"), FinalURL: u("/3"), Topic: "a", Status: 200, FetchedAt: time.Now(), Text: "three",
			Links: []crawler.Link{{Target: u("/z"), Anchor: "z", Context: "z"}}},
	}
	if err := s.Commit(ctx, st.ID, committed, nil); err != nil {
		t.Fatal(err)
	}
	var got []crawler.PageLink
	if err := s.EachLink(ctx, st.ID, func(l *crawler.PageLink) error { got = append(got, *l); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []crawler.PageLink{
		{Link: committed[0].Links[0], Parent: u("/1/"), Topics: topics},
		{Link: committed[0].Links[1], Parent: u("/1/"), Topics: topics},
		{Link: committed[2].Links[0], Parent: u("/3"), Topics: topics},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("links read back as\n%+v\nwant\n%+v", got, want)
	}
	bad := []*crawler.Page{{URL: u("/4"), FinalURL: u("/4"), Topic: "a", Status: 200, FetchedAt: time.Now(),
		Links: []crawler.Link{{Target: u("/w"), Scores: []float64{0.5}}}}}
	if err := s.Commit(ctx, st.ID, bad, nil); err == nil {
		t.Error("a link with one score for two topics was committed")
	}
}

func rescore(t *testing.T, open Open) {
	ctx := context.Background()
	s, _ := open(t)
	defer s.Close()
	st := mustOpen(t, s, linkSpec("t"))
	popAll(t, s, st.ID, "t", crawler.BestFirst)
	push := []crawler.Entry{{Topic: "t", URL: u("/a"), Score: 0.1}, {Topic: "t", URL: u("/b"), Score: 0.9}, {Topic: "t", URL: u("/c"), Score: 0.5}}
	if err := s.Commit(ctx, st.ID, nil, push); err != nil {
		t.Fatal(err)
	}
	if err := s.Rescore(ctx, st.ID, []crawler.Entry{{Topic: "t", URL: u("/a"), Score: 0.95}, {Topic: "t", URL: u("/gone"), Score: 1}, {Topic: "other", URL: u("/c"), Score: 1}}); err != nil {
		t.Fatal(err)
	}
	es, err := s.Pop(ctx, st.ID, "t", crawler.BestFirst, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		got = append(got, e.URL.Path())
	}
	if strings.Join(got, " ") != "/a /b /c" || es[0].Score != 0.95 {
		t.Errorf("after rescoring /a to 0.95: popped %v (first score %v)", got, es[0].Score)
	}
}

// popFloor: a pop with a floor (crawler.FloorPopper) takes entries down
// to it and stops at the first below it, reporting so; in SurveyFirst
// order the survey's shallow entries come first whatever their value. A
// pop that reaches neither the floor nor the stack's end, or reaches the
// end above the floor, did not stop. What it took stays taken; a pop
// after it goes on from there. A store that peeks (crawler.Peeker) stops
// its peek at the floor too.
func popFloor(t *testing.T, open Open) {
	ctx := context.Background()
	names := func(es []crawler.Entry) string {
		var out []string
		for _, e := range es {
			out = append(out, strings.TrimPrefix(e.URL.String(), "http://a.test"))
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		order        crawler.Order
		floor        float64
		first, next  string // a pop of 1 peeking 5
		rest, after  string // then a pop of 4, and a Pop of 1
		stoppedFirst bool
		stoppedRest  bool
	}{
		{order: crawler.SurveyFirst, floor: 0.6, first: "/near", next: "/a /b", rest: "/a /b", after: "/c", stoppedRest: true},
		{order: crawler.BestFirst, floor: 0.6, first: "/a", next: "/b", rest: "/b", after: "/c", stoppedRest: true},
		{order: crawler.BestFirst, floor: 0.95, first: "", next: "", rest: "", after: "/a", stoppedFirst: true, stoppedRest: true},
		{order: crawler.BestFirst, floor: 0.05, first: "/a", next: "/b /c /near", rest: "/b /c /near", after: ""},
	} {
		s, _ := open(t)
		fp, ok := s.(crawler.FloorPopper)
		if !ok {
			s.Close()
			t.Skipf("%T pops with no floor (crawler.FloorPopper)", s)
		}
		spec := linkSpec("t")
		spec.Seeds = nil
		st := mustOpen(t, s, spec)
		push := []crawler.Entry{{Topic: "t", URL: u("/c"), Depth: 3, Score: 0.5}, {Topic: "t", URL: u("/a"), Depth: 3, Score: 0.9},
			{Topic: "t", URL: u("/near"), Depth: crawler.SurveyDepth, Score: 0.1}, {Topic: "t", URL: u("/b"), Depth: 2, Score: 0.7}}
		if err := s.Commit(ctx, st.ID, nil, push); err != nil {
			t.Fatal(err)
		}
		_, peeks := s.(crawler.Peeker)
		first, next, stopped, err := fp.PopFloor(ctx, st.ID, "t", tc.order, 1, 0, 5, tc.floor)
		if err != nil || stopped != tc.stoppedFirst || names(first) != tc.first || peeks && names(next) != tc.next || !peeks && next != nil {
			t.Errorf("order %d: a pop of 1 peeking 5 above %v took %q and saw %q (stopped %v, %v), want %q and %q (stopped %v)",
				tc.order, tc.floor, names(first), names(next), stopped, err, tc.first, tc.next, tc.stoppedFirst)
		}
		rest, _, stopped, err := fp.PopFloor(ctx, st.ID, "t", tc.order, 4, 0, 0, tc.floor)
		if err != nil || stopped != tc.stoppedRest || names(rest) != tc.rest {
			t.Errorf("order %d: a pop of 4 above %v after it took %q (stopped %v, %v), want %q (stopped %v)",
				tc.order, tc.floor, names(rest), stopped, err, tc.rest, tc.stoppedRest)
		}
		after, err := s.Pop(ctx, st.ID, "t", tc.order, 1, 0)
		if err != nil || names(after) != tc.after {
			t.Errorf("order %d: the pop after took %q (%v), want %q", tc.order, names(after), err, tc.after)
		}
		s.Close()
	}
}

// popPeek: a pop that peeks (crawler.Peeker) takes what Pop takes and
// reads up to peek of the entries that come next on the stack, in its
// order (across SurveyFirst's two parts too), as they were pushed, and
// leaves them waiting: the pops after take them. An entry of a URL
// leased through another stack is not waiting: no pop takes it and no
// peek sees it. A pop peeking at 0 entries sees none.
func popPeek(t *testing.T, open Open) {
	ctx := context.Background()
	// Pushed in this order, each on t; /x on t~reserve too.
	push := []crawler.Entry{{URL: u("/0"), Depth: 3, Score: 0.1}, {URL: u("/1"), Depth: 2, Score: 0.9}, {URL: u("/x"), Depth: 2, Score: 0.6},
		{URL: u("/2"), Depth: 1, Score: 0.5}, {URL: u("/3"), Depth: 3, Score: 0.7}, {URL: u("/4"), Depth: 2, Score: 0.3}}
	pushed := make(map[urlnorm.URL]crawler.Entry)
	for i := range push {
		push[i].Topic = "t"
		pushed[push[i].URL] = push[i]
	}
	names := func(es []crawler.Entry) string {
		var out []string
		for _, e := range es {
			out = append(out, strings.TrimPrefix(e.URL.String(), "http://a.test"))
			if p := pushed[e.URL]; e != p {
				t.Errorf("%s came back as %+v, pushed as %+v", e.URL, e, p)
			}
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		order             crawler.Order
		first, next, rest string // a pop of 1 peeking 3, then pops of 1
	}{
		{crawler.LIFO, "/4", "/3 /2 /1", "/3 /2 /1 /0"},
		{crawler.FIFO, "/0", "/1 /2 /3", "/1 /2 /3 /4"},
		{crawler.BestFirst, "/1", "/3 /2 /4", "/3 /2 /4 /0"},
		{crawler.Shallowest, "/2", "/1 /4 /3", "/1 /4 /3 /0"},
		{crawler.SurveyFirst, "/2", "/1 /3 /4", "/1 /3 /4 /0"},
	} {
		s, _ := open(t)
		pk, ok := s.(crawler.Peeker)
		if !ok {
			s.Close()
			t.Skipf("%T does not peek (crawler.Peeker)", s)
		}
		spec := linkSpec("t", "t~reserve")
		spec.Seeds = nil
		st := mustOpen(t, s, spec)
		if err := s.Commit(ctx, st.ID, nil, append(slices.Clone(push), crawler.Entry{Topic: "t~reserve", URL: u("/x")})); err != nil {
			t.Fatal(err)
		}
		if es, err := s.Pop(ctx, st.ID, "t~reserve", crawler.LIFO, 1, 0); err != nil || len(es) != 1 {
			t.Fatalf("pop of t~reserve: %v, %v; want /x", es, err)
		}
		first, next, err := pk.PopPeek(ctx, st.ID, "t", tc.order, 1, 0, 3)
		if err != nil || names(first) != tc.first || names(next) != tc.next {
			t.Errorf("order %d: a pop of 1 peeking 3 took %q and saw %q (%v), want %q and %q", tc.order, names(first), names(next), err, tc.first, tc.next)
		}
		second, next, err := pk.PopPeek(ctx, st.ID, "t", tc.order, 1, 0, 0)
		if err != nil || len(next) != 0 {
			t.Errorf("order %d: a pop peeking at 0 saw %q (%v), want none", tc.order, names(next), err)
		}
		rest := append([]string{names(second)}, popAll(t, s, st.ID, "t", tc.order)...)
		if strings.Join(rest, " ") != tc.rest {
			t.Errorf("order %d: the pops after took %v, want %s", tc.order, rest, tc.rest)
		}
		s.Close()
	}
}

func learner(t *testing.T, open Open) {
	ctx := context.Background()
	s, reopen := open(t)
	spec := linkSpec("t")
	st := mustOpen(t, s, spec)
	if st.Learner != nil {
		t.Errorf("a new crawl has learner state %q", st.Learner)
	}
	for _, state := range []string{"first", "second"} {
		if err := s.SaveLearner(ctx, st.ID, []byte(state)); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s = reopen(t)
	defer s.Close()
	if st := mustOpen(t, s, spec); string(st.Learner) != "second" {
		t.Errorf("resumed learner state %q, want the last saved", st.Learner)
	}
}

func frontierSizes(t *testing.T, open Open) {
	ctx := context.Background()
	s, _ := open(t)
	defer s.Close()
	st := mustOpen(t, s, linkSpec("t", "t~reserve"))
	if err := s.Commit(ctx, st.ID, nil, []crawler.Entry{{Topic: "t~reserve", URL: u("/a")}, {Topic: "t~reserve", URL: u("/b")}, {Topic: "t", URL: u("/a")}}); err != nil {
		t.Fatal(err)
	}
	sizes, err := s.FrontierSizes(ctx, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	if sizes["t"] != 2 || sizes["t~reserve"] != 3 {
		t.Errorf("sizes %v, want t 2 (seed, /a), t~reserve 3 (seed, /a, /b)", sizes)
	}
	// The seed and /a, taken from t, no longer wait on t~reserve either,
	// whose rows for them stay until a pop of it meets them: leased, then
	// fetched.
	es, err := s.Pop(ctx, st.ID, "t", crawler.LIFO, 2, 0)
	if err != nil || len(es) != 2 {
		t.Fatalf("pop t: %v, %v", es, err)
	}
	want := map[string]int{"t~reserve": 1}
	if sizes, err := s.FrontierSizes(ctx, st.ID); err != nil || !maps.Equal(sizes, want) {
		t.Errorf("sizes with the seed and /a leased: %v, %v; want %v", sizes, err, want)
	}
	pages := []*crawler.Page{{URL: es[0].URL, FetchedAt: time.Now()}, {URL: es[1].URL, FetchedAt: time.Now()}}
	if err := s.Commit(ctx, st.ID, pages, nil); err != nil {
		t.Fatal(err)
	}
	if sizes, err := s.FrontierSizes(ctx, st.ID); err != nil || !maps.Equal(sizes, want) {
		t.Errorf("sizes with the seed and /a fetched: %v, %v; want %v", sizes, err, want)
	}
	if err := s.FinishCrawl(ctx, st.ID, "frontier empty"); err != nil {
		t.Fatal(err)
	}
}

// learntKept: the pages a crawl learnt from are kept with it, a resumed
// crawl adds those not kept yet, and each crawl keeps its own.
func learntKept(t *testing.T, open Open) {
	ctx := context.Background()
	s, reopen := open(t)
	spec := linkSpec("t")
	spec.Learnt = []urlnorm.URL{u("/b"), u("/a"), u("/b")}
	st := mustOpen(t, s, spec)
	other := linkSpec("t")
	other.Name = "other"
	ot := mustOpen(t, s, other)
	s.Close()
	s = reopen(t)
	defer s.Close()
	spec.Learnt = []urlnorm.URL{u("/c"), u("/a")}
	if again := mustOpen(t, s, spec); again.ID != st.ID {
		t.Fatalf("resumed crawl %d, want %d", again.ID, st.ID)
	}
	got, err := s.Learnt(ctx, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []urlnorm.URL{u("/a"), u("/b"), u("/c")}
	if !slices.Equal(got, want) {
		t.Errorf("learnt %v, want %v", got, want)
	}
	if got, err := s.Learnt(ctx, ot.ID); err != nil || len(got) != 0 {
		t.Errorf("a crawl that learnt from nothing: %v, %v; want none", got, err)
	}
}
