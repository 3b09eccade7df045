package crawler_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/text/encoding/korean"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/sqlite"
	"github.com/scent-crawler/scent/urlnorm"
)

// keywordScorer is a small real Scorer: a topic's score is the share of
// tokens that are among its keywords, squashed into (0,1).
type keywordScorer struct {
	topics []string
	words  []map[string]bool
}

func newKeywordScorer(topics map[string][]string, order ...string) *keywordScorer {
	s := &keywordScorer{topics: order}
	for _, t := range order {
		m := make(map[string]bool)
		for _, w := range topics[t] {
			m[w] = true
		}
		s.words = append(s.words, m)
	}
	return s
}

func (s *keywordScorer) Topics() []string      { return s.topics }
func (s *keywordScorer) Threshold(int) float64 { return 0.5 }
func (s *keywordScorer) ScorePage(tokens []string, dst []float64) []float64 {
	return s.Score(tokens, dst)
}
func (s *keywordScorer) Score(tokens []string, dst []float64) []float64 {
	dst = dst[:0]
	for _, m := range s.words {
		hit := 0
		for _, t := range tokens {
			if m[t] {
				hit++
			}
		}
		if hit > 0 {
			dst = append(dst, 0.9)
		} else {
			dst = append(dst, 0.1)
		}
	}
	return dst
}

// site is an httptest web site whose pages are given as path → HTML. It
// counts the requests for every path.
type site struct {
	srv   *httptest.Server
	mu    sync.Mutex
	hits  map[string]int
	pages map[string]string
	extra map[string]http.HandlerFunc
}

func newSite(t *testing.T, pages map[string]string, extra map[string]http.HandlerFunc) *site {
	s := &site{hits: make(map[string]int), pages: pages, extra: extra}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.RequestURI()]++
		s.mu.Unlock()
		if h, ok := s.extra[r.URL.Path]; ok {
			h(w, r)
			return
		}
		body, ok := s.pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *site) url(p string) urlnorm.URL { return urlnorm.MustParse(s.srv.URL + p) }

func (s *site) hitsOf(p string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[p]
}

func openStore(t *testing.T) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "crawl.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func newFetcher(t *testing.T, cfg fetch.Config) *fetch.Fetcher {
	t.Helper()
	f, err := fetch.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

type pageRow struct {
	order            int
	url, stack, fail string
	status           int
	text             string
}

func pages(t *testing.T, st *sqlite.Store) []pageRow {
	t.Helper()
	rows, err := st.DB().Query(`SELECT ord, url, topic, failure, status, text FROM pages ORDER BY ord`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []pageRow
	for rows.Next() {
		var p pageRow
		if err := rows.Scan(&p.order, &p.url, &p.stack, &p.fail, &p.status, &p.text); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// fetchedPaths crawls site s from "/" with cfg and scorer and returns the
// paths of the pages fetched, in fetch order.
func fetchedPaths(t *testing.T, s *site, cfg crawler.Config, scorer crawler.Scorer) []string {
	t.Helper()
	st := openStore(t)
	c, err := crawler.New(cfg, st, newFetcher(t, fetch.Config{}), scorer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Run(context.Background(), []urlnorm.URL{s.url("/")}, "{}"); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range pages(t, st) {
		got = append(got, strings.TrimPrefix(p.url, s.srv.URL))
	}
	return got
}

func TestCrawler_Run_linkStrategyFollowsOnlyOnTopicLinks(t *testing.T) {
	// The home page links to an off-topic page and to a page about courses
	// through an off-topic hub: only links whose context is on-topic are
	// followed, whatever the page they sit on.
	// Links are kept more than a window (10 tokens) apart by filler words.
	const fill = " one two three four five six seven eight nine ten eleven twelve "
	s := newSite(t, map[string]string{
		"/":        `<html><body><p>Welcome.` + fill + `<a href="/hub">people and courses</a>` + fill + `<a href="/sports">football scores</a></p></body></html>`,
		"/hub":     `<html><body>A hub about nothing.` + fill + `<a href="/c1">course syllabus lecture</a>` + fill + `<a href="/weather">weather today</a></body></html>`,
		"/c1":      `<html><body>Course page: lecture, syllabus, homework.` + fill + `<a href="/c2">next course homework</a></body></html>`,
		"/c2":      `<html><body>Another course with homework.</body></html>`,
		"/sports":  `<html><body>Sports.` + fill + `<a href="/c3">course syllabus</a></body></html>`,
		"/c3":      `<html><body>course</body></html>`,
		"/weather": `<html><body>rain</body></html>`,
	}, nil)
	scorer := newKeywordScorer(map[string][]string{"course": {"course", "courses", "syllabus", "homework"}}, "course")
	st := openStore(t)
	c, err := crawler.New(crawler.Config{Workers: 2}, st, newFetcher(t, fetch.Config{}), scorer)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := c.Run(context.Background(), []urlnorm.URL{s.url("/")}, "{}")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, p := range pages(t, st) {
		got[strings.TrimPrefix(p.url, s.srv.URL)] = true
	}
	for _, want := range []string{"/", "/hub", "/c1", "/c2"} {
		if !got[want] {
			t.Errorf("%s not fetched; fetched %v", want, got)
		}
	}
	for _, not := range []string{"/sports", "/weather", "/c3"} {
		if got[not] {
			t.Errorf("%s fetched, but no on-topic link leads to it", not)
		}
	}
	if sum.Finish != "frontier empty" || sum.Fetched != 4 {
		t.Errorf("summary = %+v, want 4 pages and an empty frontier", sum)
	}
}

func TestCrawler_Run_multiTopicFetchesEachURLOnce(t *testing.T) {
	// Every page links to every other with context on both topics, so both
	// stacks want every URL.
	pagesMap := map[string]string{}
	n := 30
	for i := 0; i < n; i++ {
		var b strings.Builder
		b.WriteString("<html><body>")
		for j := 0; j < n; j++ {
			fmt.Fprintf(&b, `<a href="/p%d">course faculty page %d</a> `, j, j)
		}
		b.WriteString("</body></html>")
		pagesMap[fmt.Sprintf("/p%d", i)] = b.String()
	}
	s := newSite(t, pagesMap, nil)
	scorer := newKeywordScorer(map[string][]string{"course": {"course"}, "faculty": {"faculty"}}, "course", "faculty")
	st := openStore(t)
	c, err := crawler.New(crawler.Config{Workers: 4}, st, newFetcher(t, fetch.Config{}), scorer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Run(context.Background(), []urlnorm.URL{s.url("/p0")}, "{}"); err != nil {
		t.Fatal(err)
	}
	ps := pages(t, st)
	if len(ps) != n {
		t.Errorf("fetched %d pages, want %d", len(ps), n)
	}
	stacks := map[string]int{}
	for _, p := range ps {
		stacks[p.stack]++
	}
	if stacks["course"] == 0 || stacks["faculty"] == 0 {
		t.Errorf("pages per stack = %v: round-robin should serve both topics", stacks)
	}
	for i := 0; i < n; i++ {
		if h := s.hitsOf(fmt.Sprintf("/p%d", i)); h != 1 {
			t.Errorf("/p%d requested %d times, want once", i, h)
		}
	}
}

func TestCrawler_Run_badInput(t *testing.T) {
	// Host B's robots.txt answers 500: nothing on it may be fetched.
	var bHits sync.Map
	b := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		bHits.Store(r.URL.Path, true)
		fmt.Fprint(w, "<html>should never be fetched</html>")
	}))
	defer b.Close()

	var flakyMu sync.Mutex
	flaky := 0
	euckr, err := korean.EUCKR.NewEncoder().Bytes([]byte("<html><head><title>한국어</title></head><body>웹 크롤러 검색 엔진</body></html>"))
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("<p>junk</p>"), 50<<20/11)
	s := newSite(t, map[string]string{
		"/robots.txt": "",
		"/": `<html><body>
			<a href="/broken">x</a> <a href="/big">x</a> <a href="/binary">x</a> <a href="/loop1">x</a>
			<a href="/flaky">x</a> <a href="/slow">x</a> <a href="/private/secret">x</a> <a href="/korean">x</a>
			<a href="` + b.URL + `/b-page">x</a> <a href="/missing">x</a></body></html>`,
		"/broken": `<html><body><div><p>unclosed <a href="/ok">ok link<b><i></div></table></a></a>`,
		"/ok":     `<html><body>fine</body></html>`,
	}, map[string]http.HandlerFunc{
		"/robots.txt": func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
		},
		"/big": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Write(big) // chunked: no Content-Length
		},
		"/binary": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write([]byte{0, 1, 2, 3, 0xff})
		},
		"/loop1": func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop2", http.StatusFound) },
		"/loop2": func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop1", http.StatusFound) },
		"/flaky": func(w http.ResponseWriter, r *http.Request) {
			flakyMu.Lock()
			flaky++
			n := flaky
			flakyMu.Unlock()
			if n < 3 {
				http.Error(w, "try again", http.StatusBadGateway)
				return
			}
			fmt.Fprint(w, "<html><body>recovered</body></html>")
		},
		"/slow": func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-time.After(3 * time.Second):
			case <-r.Context().Done():
			}
		},
		"/korean": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=euc-kr")
			w.Write(euckr)
		},
	})
	st := openStore(t)
	f := newFetcher(t, fetch.Config{Timeout: 300 * time.Millisecond, Retries: 2, RetryBackoff: time.Millisecond, MaxBodyBytes: 1 << 20})
	c, err := crawler.New(crawler.Config{Strategy: crawler.StrategyBFS, Workers: 4, RetryLater: -1}, st, f, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := c.Run(context.Background(), []urlnorm.URL{s.url("/")}, "{}")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Finish != "frontier empty" {
		t.Errorf("finish = %q", sum.Finish)
	}
	byPath := map[string]pageRow{}
	for _, p := range pages(t, st) {
		byPath[strings.TrimPrefix(strings.TrimPrefix(p.url, s.srv.URL), b.URL)] = p
	}
	wantFail := map[string]string{
		"/big":            "too-large",
		"/binary":         "content-type",
		"/loop1":          "redirect",
		"/slow":           "timeout",
		"/private/secret": "robots",
		"/b-page":         "robots",
		"/missing":        "status",
	}
	for path, reason := range wantFail {
		p, ok := byPath[path]
		if !ok {
			t.Errorf("%s: no page recorded", path)
			continue
		}
		if !strings.HasPrefix(p.fail, reason+":") {
			t.Errorf("%s: failure %q, want reason %s", path, p.fail, reason)
		}
	}
	for _, path := range []string{"/", "/broken", "/ok", "/flaky", "/korean"} {
		p, ok := byPath[path]
		if !ok || p.fail != "" {
			t.Errorf("%s: want a successful page, got %+v (found %v)", path, p, ok)
		}
	}
	if p := byPath["/korean"]; !strings.Contains(p.text, "웹 크롤러") {
		t.Errorf("korean page text = %q, want the decoded Korean words", p.text)
	}
	if s.hitsOf("/private/secret") != 0 {
		t.Error("a URL disallowed by robots.txt was requested")
	}
	bHits.Range(func(k, _ any) bool {
		t.Errorf("host with a failing robots.txt got a request for %v", k)
		return true
	})
	if s.hitsOf("/flaky") != 3 {
		t.Errorf("/flaky requested %d times, want 3 (two 502s, then success)", s.hitsOf("/flaky"))
	}
}

func TestCrawler_Run_budgetAndResume(t *testing.T) {
	pagesMap := map[string]string{}
	n := 40
	for i := 0; i < n; i++ {
		pagesMap[fmt.Sprintf("/p%d", i)] = fmt.Sprintf(`<html><body><a href="/p%d">next</a> <a href="/p%d">skip</a></body></html>`, (i+1)%n, (i+7)%n)
	}
	s := newSite(t, pagesMap, nil)
	st := openStore(t)
	f := newFetcher(t, fetch.Config{})
	cfg := crawler.Config{Strategy: crawler.StrategyBFS, Workers: 3, MaxPages: 15}
	c, _ := crawler.New(cfg, st, f, nil)
	sum, err := c.Run(context.Background(), []urlnorm.URL{s.url("/p0")}, "{}")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Fetched != 15 || sum.Finish != "budget reached" {
		t.Fatalf("first run: %+v, want 15 pages and budget reached", sum)
	}
	cfg.MaxPages = 0
	c, _ = crawler.New(cfg, st, f, nil)
	sum, err = c.Run(context.Background(), nil, "{}")
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Resumed || sum.Total != n || sum.Fetched != n-15 {
		t.Fatalf("resumed run: %+v, want %d new pages and %d in all", sum, n-15, n)
	}
	ps := pages(t, st)
	for i, p := range ps {
		if p.order != i+1 {
			t.Fatalf("order %d at position %d", p.order, i)
		}
	}
	for i := 0; i < n; i++ {
		if h := s.hitsOf(fmt.Sprintf("/p%d", i)); h != 1 {
			t.Errorf("/p%d requested %d times", i, h)
		}
	}
}

func TestCrawler_Run_cancelIsClean(t *testing.T) {
	pagesMap := map[string]string{}
	n := 200
	for i := 0; i < n; i++ {
		pagesMap[fmt.Sprintf("/p%d", i)] = fmt.Sprintf(`<html><body><a href="/p%d">a</a> <a href="/p%d">b</a></body></html>`, (i+1)%n, (i*3+1)%n)
	}
	s := newSite(t, pagesMap, map[string]http.HandlerFunc{})
	st := openStore(t)
	f := newFetcher(t, fetch.Config{HostDelay: 5 * time.Millisecond, HostParallelism: 1})
	c, _ := crawler.New(crawler.Config{Strategy: crawler.StrategyBFS, Workers: 4}, st, f, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	sum, err := c.Run(ctx, []urlnorm.URL{s.url("/p0")}, "{}")
	if err == nil || sum.Finish != "interrupted" {
		t.Fatalf("run = %+v, %v; want interrupted", sum, err)
	}
	c, _ = crawler.New(crawler.Config{Strategy: crawler.StrategyBFS, Workers: 4}, st, newFetcher(t, fetch.Config{}), nil)
	sum2, err := c.Run(context.Background(), nil, "{}")
	if err != nil {
		t.Fatal(err)
	}
	if sum2.Total != n {
		t.Errorf("after resume %d pages in all, want %d", sum2.Total, n)
	}
	twice := 0
	for i := 0; i < n; i++ {
		if s.hitsOf(fmt.Sprintf("/p%d", i)) > 1 {
			twice++
		}
	}
	if twice > 8 { // the 4 fetches in progress and at most 4 uncommitted results
		t.Errorf("%d URLs fetched twice, more than the 8 in flight", twice)
	}
}

func TestConfig_Validate(t *testing.T) {
	bad := []crawler.Config{
		{Strategy: "dfs"},
		{Frontier: "random"},
		{Workers: -1},
		{MaxPages: -5},
		{MaxURLLength: -1},
	}
	for _, c := range bad {
		if err := c.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil, want an error", c)
		}
	}
	if err := (crawler.Config{}).Validate(); err != nil {
		t.Errorf("zero config: %v", err)
	}
}

func TestCrawler_Run_tunnel(t *testing.T) {
	// The only course page sits behind an off-topic hub: the strict crawl
	// stops at the seed; with tunnelling it goes through the hub.
	const fill = " one two three four five six seven eight nine ten eleven twelve "
	site := map[string]string{
		"/":    `<html><body>Welcome.` + fill + `<a href="/hub">weather news</a></body></html>`,
		"/hub": `<html><body>Hub.` + fill + `<a href="/c1">course syllabus homework</a></body></html>`,
		"/c1":  `<html><body>course</body></html>`,
	}
	scorer := newKeywordScorer(map[string][]string{"course": {"course", "syllabus", "homework"}}, "course")
	for _, tunnel := range []bool{false, true} {
		s := newSite(t, site, nil)
		st := openStore(t)
		c, err := crawler.New(crawler.Config{Workers: 2, Tunnel: tunnel}, st, newFetcher(t, fetch.Config{}), scorer)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := c.Run(context.Background(), []urlnorm.URL{s.url("/")}, "{}")
		if err != nil {
			t.Fatal(err)
		}
		reached := s.hitsOf("/c1") == 1
		if reached != tunnel {
			t.Errorf("tunnel %v: course page reached = %v (summary %+v)", tunnel, reached, sum)
		}
		for _, p := range pages(t, st) {
			if p.stack != "course" {
				t.Errorf("tunnel %v: page %s counted on stack %q, want course", tunnel, p.url, p.stack)
			}
		}
	}
}

// pathScorer scores a link by its target's path alone (a LinkScorer):
// on-topic exactly when the path starts with "/on".
type pathScorer struct{ *keywordScorer }

func (s pathScorer) ScoreLink(target urlnorm.URL, _ []string, dst []float64) []float64 {
	v := 0.1
	if strings.HasPrefix(target.Path(), "/on") {
		v = 0.9
	}
	return append(dst[:0], v)
}

func TestCrawler_Run_linkScorerDecidesByTarget(t *testing.T) {
	// Every anchor is on-topic by its words, but a LinkScorer judges the
	// target: only /on… pages may be fetched.
	s := newSite(t, map[string]string{
		"/":     `<html><body><a href="/on1">course</a> <a href="/off1">course</a></body></html>`,
		"/on1":  `<html><body><a href="/on2">course</a> <a href="/off2">course</a></body></html>`,
		"/on2":  `<html><body>course</body></html>`,
		"/off1": `<html><body>course</body></html>`,
		"/off2": `<html><body>course</body></html>`,
	}, nil)
	scorer := pathScorer{newKeywordScorer(map[string][]string{"course": {"course"}}, "course")}
	got := fetchedPaths(t, s, crawler.Config{Workers: 1}, scorer)
	if strings.Join(got, " ") != "/ /on1 /on2" {
		t.Errorf("fetched %v, want / /on1 /on2", got)
	}
}

func TestCrawler_Run_bfsOrderDoesNotDependOnFetchSpeed(t *testing.T) {
	// /a answers slowly, so /b finishes first; the queue still receives
	// /a's links before /b's, and /a1 (also linked from /b) keeps the
	// place and depth of its first discovery.
	slow := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(100 * time.Millisecond)
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, body)
		}
	}
	s := newSite(t, map[string]string{
		"/":   `<html><body><a href="/a">a</a> <a href="/b">b</a></body></html>`,
		"/b":  `<html><body><a href="/b1">b1</a> <a href="/a1">a1</a></body></html>`,
		"/a1": `<html><body>a1</body></html>`,
		"/b1": `<html><body>b1</body></html>`,
	}, map[string]http.HandlerFunc{"/a": slow(`<html><body><a href="/a1">a1</a></body></html>`)})
	got := fetchedPaths(t, s, crawler.Config{Strategy: crawler.StrategyBFS, Workers: 4}, nil)
	if want := "/ /a /b /a1 /b1"; strings.Join(got, " ") != want {
		t.Errorf("fetch order %v, want %s", got, want)
	}
}

func TestCrawler_Run_promoteFollowsAListingThatProvedRelevant(t *testing.T) {
	// The listing's links /c1–/c3 read as courses, /c4–/c6 do not (the
	// classifier doubts them) but lead to course pages too, and /x1–/x5
	// read as courses again and keep the stack busy until the budget.
	// Without Promote the doubted links wait on the reserve and are never
	// reached; with it, once /c1–/c3 prove on-topic, they move to the
	// stack and are fetched.
	const fill = " one two three four five six seven eight nine ten eleven twelve "
	listing := `<html><body>`
	for i := 1; i <= 6; i++ {
		anchor := "course syllabus"
		if i > 3 {
			anchor = "section"
		}
		listing += fmt.Sprintf(`<a href="/c%d">%s %d</a>`, i, anchor, i) + fill
	}
	for i := 1; i <= 5; i++ {
		listing += fmt.Sprintf(`<a href="/x%d">course syllabus %d</a>`, i, i) + fill
	}
	pagesMap := map[string]string{
		"/":     `<html><body><a href="/list">course list</a></body></html>`,
		"/list": listing + `</body></html>`,
	}
	for i := 1; i <= 6; i++ {
		pagesMap[fmt.Sprintf("/c%d", i)] = `<html><body>course homework</body></html>`
		pagesMap[fmt.Sprintf("/x%d", i)] = `<html><body>course homework</body></html>`
	}
	s := newSite(t, pagesMap, nil)
	for _, promote := range []bool{false, true} {
		scorer := newKeywordScorer(map[string][]string{"course": {"course", "syllabus", "homework"}}, "course")
		st := openStore(t)
		c, err := crawler.New(crawler.Config{Workers: 1, MaxPages: 10, Tunnel: true, Promote: promote}, st, newFetcher(t, fetch.Config{}), scorer)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Run(context.Background(), []urlnorm.URL{s.url("/")}, "{}"); err != nil {
			t.Fatal(err)
		}
		var got []string
		doubted := 0
		for _, p := range pages(t, st) {
			u := strings.TrimPrefix(p.url, s.srv.URL)
			got = append(got, u)
			if u == "/c4" || u == "/c5" || u == "/c6" {
				doubted++
			}
		}
		if promote && doubted != 3 || !promote && doubted > 0 {
			t.Errorf("promote %v: fetched %v", promote, got)
		}
	}
}

func TestConfig_Validate_promoteNeedsTunnel(t *testing.T) {
	if err := (crawler.Config{Promote: true}).Validate(); err == nil {
		t.Error("Promote without Tunnel was accepted")
	}
}

func TestCrawler_Run_lockstepOrderDoesNotDependOnFetchSpeed(t *testing.T) {
	// Two on-topic branches; one answers slowly. Stacks see pushes in the
	// order fetches finish, so without lockstep the fast branch's pages
	// come first, whichever it is; with lockstep the order is the same
	// whichever branch is slow.
	const fill = " one two three four five six seven eight nine ten eleven twelve "
	crawl := func(slowPath string, lockstep bool) string {
		body := map[string]string{
			"/":   `<html><body><a href="/a">course a</a>` + fill + `<a href="/b">course b</a></body></html>`,
			"/a":  `<html><body><a href="/a1">course a1</a>` + fill + `<a href="/a2">course a2</a></body></html>`,
			"/b":  `<html><body><a href="/b1">course b1</a>` + fill + `<a href="/b2">course b2</a></body></html>`,
			"/a1": `<html><body>course</body></html>`, "/a2": `<html><body>course</body></html>`,
			"/b1": `<html><body>course</body></html>`, "/b2": `<html><body>course</body></html>`,
		}
		slow := body[slowPath]
		delete(body, slowPath)
		s := newSite(t, body, map[string]http.HandlerFunc{slowPath: func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(150 * time.Millisecond)
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, slow)
		}})
		scorer := newKeywordScorer(map[string][]string{"course": {"course"}}, "course")
		return strings.Join(fetchedPaths(t, s, crawler.Config{Workers: 2, Lockstep: lockstep}, scorer), " ")
	}
	slowA, slowB := crawl("/a", true), crawl("/b", true)
	if slowA != slowB || len(strings.Fields(slowA)) != 7 {
		t.Errorf("lockstep fetch order depends on which page is slow:\n/a slow: %s\n/b slow: %s", slowA, slowB)
	}
	// The same crawl without lockstep follows the fast branch first.
	if a, b := crawl("/a", false), crawl("/b", false); a == b {
		t.Errorf("without lockstep the order did not change with the slow page (%s): the test shows nothing", a)
	}
}

// countingStore counts the pops that returned entries and the commits
// with pages, and keeps the number of pages of each commit.
type countingStore struct {
	crawler.Store
	pops    int
	commits []int
}

func (s *countingStore) Pop(ctx context.Context, crawl int64, topic string, order crawler.Order, n, maxPerHost int) ([]crawler.Entry, error) {
	es, err := s.Store.Pop(ctx, crawl, topic, order, n, maxPerHost)
	if len(es) > 0 {
		s.pops++
	}
	return es, err
}

func (s *countingStore) Commit(ctx context.Context, crawl int64, pages []*crawler.Page, push []crawler.Entry) error {
	if len(pages) > 0 {
		s.commits = append(s.commits, len(pages))
	}
	return s.Store.Commit(ctx, crawl, pages, push)
}

func TestCrawler_Run_lockstepCommitsEachRoundOnce(t *testing.T) {
	// The seed links to 12 course pages; one of them answers slowly. In
	// lockstep with 4 workers, a round's fetches are committed together
	// when its last one is back: one commit of 4 pages per round, the
	// slow page's round included.
	const fill = " one two three four five six seven eight nine ten eleven twelve "
	body := map[string]string{}
	home := `<html><body>`
	for i := range 12 {
		home += fmt.Sprintf(`<a href="/c%d">course %d</a>`, i, i) + fill
		body[fmt.Sprintf("/c%d", i)] = `<html><body>course</body></html>`
	}
	body["/"] = home + `</body></html>`
	slow := body["/c5"]
	delete(body, "/c5")
	s := newSite(t, body, map[string]http.HandlerFunc{"/c5": func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(100 * time.Millisecond)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, slow)
	}})
	st := &countingStore{Store: openStore(t)}
	scorer := newKeywordScorer(map[string][]string{"course": {"course"}}, "course")
	c, err := crawler.New(crawler.Config{Workers: 4, Lockstep: true}, st, newFetcher(t, fetch.Config{}), scorer)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := c.Run(context.Background(), []urlnorm.URL{s.url("/")}, "{}")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Fetched != 13 {
		t.Fatalf("fetched %d pages, want 13", sum.Fetched)
	}
	if want := []int{1, 4, 4, 4}; !slices.Equal(st.commits, want) || st.pops != len(want) {
		t.Errorf("%d rounds committed %v pages, want %d rounds committing %v", st.pops, st.commits, len(want), want)
	}
}

func TestCrawler_Run_sectionsLeaveTheInsideOfAFoundDocument(t *testing.T) {
	// Three course home pages of the three kinds of entry page — a
	// directory (/c1/), a file named after its directory (/c2/c2.html),
	// a file with a folder of its own (/x/c3.html, whose homework is in
	// /x/c3/) — each linking to its homework pages, which read as courses
	// too. On a stack the first course's homework comes before the other
	// courses; with Sections the homework pages wait until the courses
	// are fetched (Tunnel) or are not followed at all.
	const fill = " one two three four five six seven eight nine ten eleven twelve "
	pagesMap := map[string]string{
		"/": `<html><body><a href="/c1/">course 1</a>` + fill + `<a href="/c2/c2.html">course 2</a>` + fill + `<a href="/x/c3.html">course 3</a></body></html>`,
	}
	for i, c := range []struct{ home, parts string }{{"/c1/", "/c1/"}, {"/c2/c2.html", "/c2/"}, {"/x/c3.html", "/x/c3/"}} {
		home := `<html><body>course syllabus`
		for j := 1; j <= 3; j++ {
			hw := fmt.Sprintf("%shw%d.html", c.parts, j)
			home += fmt.Sprintf(`<a href="%s">course homework %d</a>`, hw, j) + fill
			pagesMap[hw] = `<html><body>course homework</body></html>`
		}
		if i == 0 {
			// A sibling of the course's directory is not inside it.
			home += `<a href="/c1-notes/">course notes</a>`
			pagesMap["/c1-notes/"] = `<html><body>course notes</body></html>`
		}
		pagesMap[c.home] = home + `</body></html>`
	}
	s := newSite(t, pagesMap, nil)
	for _, tc := range []struct {
		sections, tunnel bool
		want             string
	}{
		{false, false, "/ /c1/ /c1/hw1.html /c1/hw2.html /c1/hw3.html"},
		{true, false, "/ /c1/ /c1-notes/ /c2/c2.html /x/c3.html"},
		// The parts wait, shallowest first and among equals the latest.
		{true, true, "/ /c1/ /c1-notes/ /c2/c2.html /x/c3.html /x/c3/hw1.html /x/c3/hw2.html /x/c3/hw3.html"},
	} {
		scorer := newKeywordScorer(map[string][]string{"course": {"course", "syllabus", "homework"}}, "course")
		budget := 5
		if tc.tunnel {
			budget = 8
		}
		got := fetchedPaths(t, s, crawler.Config{Workers: 1, Lockstep: true, MaxPages: budget, Sections: tc.sections, Tunnel: tc.tunnel}, scorer)
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("sections %v, tunnel %v: fetched %s, want %s", tc.sections, tc.tunnel, g, tc.want)
		}
	}
}

func TestCrawler_Run_tunnelGoesOnFromTheShallowestReserveLink(t *testing.T) {
	// Nothing is on-topic. The seed links to /a and /z; /a links to /a/b.
	// Tunnelling takes the shallowest reserve link first: /z (one link
	// from the seed) before /a/b (two), although /a/b was found last.
	const fill = " one two three four five six seven eight nine ten eleven twelve "
	s := newSite(t, map[string]string{
		"/":    `<html><body><a href="/a">weather</a>` + fill + `<a href="/z">sports</a></body></html>`,
		"/a":   `<html><body><a href="/a/b">news</a></body></html>`,
		"/a/b": `<html><body>news</body></html>`,
		"/z":   `<html><body>sports</body></html>`,
	}, nil)
	scorer := newKeywordScorer(map[string][]string{"course": {"course"}}, "course")
	got := fetchedPaths(t, s, crawler.Config{Workers: 1, Lockstep: true, Tunnel: true}, scorer)
	if g, want := strings.Join(got, " "), "/ /a /z /a/b"; g != want {
		t.Errorf("fetched %s, want %s", g, want)
	}
}

func TestCrawler_Run_progressShowsTheFrontier(t *testing.T) {
	// The seed links to two off-topic pages and one course page; the
	// course page's homework (inside its directory) waits on the parts.
	const fill = " one two three four five six seven eight nine ten eleven twelve "
	s := newSite(t, map[string]string{
		"/":       `<html><body><a href="/a">weather</a>` + fill + `<a href="/b">sports</a>` + fill + `<a href="/c1/">course</a></body></html>`,
		"/c1/":    `<html><body>course <a href="/c1/hw1">course homework</a></body></html>`,
		"/c1/hw1": `<html><body>course homework</body></html>`,
		"/a":      `<html><body>weather</body></html>`,
		"/b":      `<html><body>sports</body></html>`,
	}, nil)
	scorer := newKeywordScorer(map[string][]string{"course": {"course", "homework"}}, "course")
	st := openStore(t)
	var out bytes.Buffer
	c, err := crawler.New(crawler.Config{Workers: 1, Lockstep: true, MaxPages: 2, Tunnel: true, Sections: true, Progress: &out}, st, newFetcher(t, fetch.Config{}), scorer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Run(context.Background(), []urlnorm.URL{s.url("/")}, "{}"); err != nil {
		t.Fatal(err)
	}
	// After / and /c1/: /a and /b on the reserve, /c1/hw1 on the parts
	// (the seed's own entries on them were taken with it).
	lines := strings.Split(strings.TrimSpace(out.String()), "\r")
	last := lines[len(lines)-1]
	if !strings.Contains(last, "pages 2 ") || !strings.Contains(last, "frontier course 0 (reserve 2, parts 1)") {
		t.Errorf("last progress line %q", last)
	}
}

func TestCrawler_Run_knownURLsAreNotFetched(t *testing.T) {
	// The pages a model learnt from are in hand: a link to one is not
	// followed, the rest of the crawl goes on.
	s := newSite(t, map[string]string{
		"/":        `<html><body><a href="/example">course syllabus</a> <a href="/c1">course lecture</a></body></html>`,
		"/example": `<html><body>course syllabus lecture <a href="/c2">course homework</a></body></html>`,
		"/c1":      `<html><body>course lecture notes</body></html>`,
		"/c2":      `<html><body>course homework</body></html>`,
	}, nil)
	scorer := newKeywordScorer(map[string][]string{"course": {"course"}}, "course")
	got := fetchedPaths(t, s, crawler.Config{Workers: 1, Known: []urlnorm.URL{s.url("/example")}}, scorer)
	if want := []string{"/", "/c1"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("fetched %v, want %v", got, want)
	}
	if n := s.hitsOf("/example"); n != 0 {
		t.Errorf("known page fetched %d times", n)
	}
}

func TestConfig_Validate_learner(t *testing.T) {
	var l crawler.Learner = nopLearner{}
	for _, cfg := range []crawler.Config{
		{Learner: l, Strategy: crawler.StrategyBFS},
		{Learner: l, Strategy: crawler.StrategyPage},
		{Learner: l, Tunnel: true},
		{Learner: l, Tunnel: true, Promote: true},
	} {
		if err := cfg.Validate(); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
	if err := (crawler.Config{Learner: l, Sections: true}).Validate(); err != nil {
		t.Errorf("learner with sections: %v", err)
	}
}

// nopLearner is a Learner that learns nothing: the base scores stand.
type nopLearner struct{}

func (nopLearner) ScoreLink(l *crawler.LinkFeatures, dst []float64) []float64 {
	return append(dst[:0], l.Base...)
}
func (nopLearner) Observe(*crawler.Page, crawler.Entry, []crawler.Entry) {}
func (nopLearner) Rescore() []crawler.Entry                              { return nil }
func (nopLearner) MarshalState() ([]byte, error)                         { return []byte("{}"), nil }
func (nopLearner) RestoreState([]byte) error                             { return nil }
