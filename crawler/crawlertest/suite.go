package crawlertest

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/urlnorm"
)

// Store is what the suite needs of a store: the crawler's Store and a way
// to read back the fetches a crawl committed.
type Store interface {
	crawler.Store
	// EachPage calls fn with every fetch committed to crawl, in commit
	// order; URL, Topic, Status and Failure must be set.
	EachPage(ctx context.Context, crawl int64, fn func(*crawler.Page) error) error
}

// Run runs the behaviour suite of the crawler against the stores that
// open returns. open must return a new, empty store for every call; it
// may register cleanups with t. Each subtest crawls real httptest sites.
func Run(t *testing.T, open func(t *testing.T) Store) {
	t.Helper()
	RunWrapped(t, open, nil)
}

// RunWrapped runs the suite with every crawl's store wrapped by wrap (a
// crawler.Wrapper, such as an archive or metrics store, around the store
// open returns): a wrapper must not change what a crawl does. The suite
// reads the pages back from the store open returned.
func RunWrapped(t *testing.T, open func(t *testing.T) Store, wrap func(t *testing.T, s crawler.Store) crawler.Store) {
	t.Helper()
	s := &suite{open: open, wrap: wrap}
	t.Run("LinkStrategyFollowsOnlyOnTopicLinks", s.linkStrategyFollowsOnlyOnTopicLinks)
	t.Run("MultiTopicFetchesEachURLOnce", s.multiTopicFetchesEachURLOnce)
	t.Run("BudgetAndResume", s.budgetAndResume)
	t.Run("TopicBudgetIsKept", s.topicBudgetIsKept)
	t.Run("CancelIsClean", s.cancelIsClean)
	t.Run("Tunnel", s.tunnel)
	t.Run("LinkScorerDecidesByTarget", s.linkScorerDecidesByTarget)
	t.Run("BfsOrderDoesNotDependOnFetchSpeed", s.bfsOrderDoesNotDependOnFetchSpeed)
	t.Run("PromoteFollowsAListingThatProvedRelevant", s.promoteFollowsAListingThatProvedRelevant)
	t.Run("LockstepOrderDoesNotDependOnFetchSpeed", s.lockstepOrderDoesNotDependOnFetchSpeed)
	t.Run("LockstepCommitsEachRoundOnce", s.lockstepCommitsEachRoundOnce)
	t.Run("SectionsLeaveTheInsideOfAFoundDocument", s.sectionsLeaveTheInsideOfAFoundDocument)
	t.Run("SectionsOutliveAResume", s.sectionsOutliveAResume)
	t.Run("TunnelGoesOnFromTheShallowestReserveLink", s.tunnelGoesOnFromTheShallowestReserveLink)
	t.Run("SurveyFetchesTheSeedsLinksFirst", s.surveyFetchesTheSeedsLinksFirst)
	t.Run("ProgressShowsTheFrontier", s.progressShowsTheFrontier)
	t.Run("ProgressCountsEarlierRuns", s.progressCountsEarlierRuns)
	t.Run("KnownURLsAreNotFetched", s.knownURLsAreNotFetched)
	t.Run("FrontierBoundDropsNewURLs", s.frontierBoundDropsNewURLs)
	t.Run("RedirectsEndAtOnePage", s.redirectsEndAtOnePage)
}

type suite struct {
	open func(t *testing.T) Store
	wrap func(t *testing.T, s crawler.Store) crawler.Store
}

// newCrawler is crawler.New on st, wrapped as the suite's runs wrap it.
func (su *suite) newCrawler(t *testing.T, cfg crawler.Config, st crawler.Store, f crawler.Fetcher, scorer crawler.Scorer) (*crawler.Crawler, error) {
	if su.wrap != nil {
		st = su.wrap(t, st)
	}
	return crawler.New(cfg, st, f, scorer)
}

// pageRow is what the suite reads of a committed fetch.
type pageRow struct {
	url, stack, fail string
	status           int
}

// pages reads the fetches of the store's first crawl, in commit order.
func (su *suite) pages(t *testing.T, st Store) []pageRow {
	t.Helper()
	var out []pageRow
	err := st.EachPage(context.Background(), 1, func(p *crawler.Page) error {
		out = append(out, pageRow{url: p.URL.String(), stack: p.Topic, fail: p.Failure, status: p.Status})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// fetchedPaths crawls site s from "/" with cfg and scorer and returns the
// paths of the pages fetched, in commit order.
func (su *suite) fetchedPaths(t *testing.T, s *Site, cfg crawler.Config, scorer crawler.Scorer) []string {
	t.Helper()
	st := su.open(t)
	c, err := su.newCrawler(t, cfg, st, NewFetcher(t, fetch.Config{}), scorer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Run(context.Background(), []urlnorm.URL{s.URL("/")}, "{}"); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range su.pages(t, st) {
		got = append(got, strings.TrimPrefix(p.url, s.Server.URL))
	}
	return got
}

func (su *suite) linkStrategyFollowsOnlyOnTopicLinks(t *testing.T) {
	// The home page links to an off-topic page and to a page about courses
	// through an off-topic hub: only links whose context is on-topic are
	// followed, whatever the page they sit on.
	// Links are kept more than a window (10 tokens) apart by filler words.
	const fill = " one two three four five six seven eight nine ten eleven twelve "
	s := NewSite(t, map[string]string{
		"/":        `<html><body><p>Welcome.` + fill + `<a href="/hub">people and courses</a>` + fill + `<a href="/sports">football scores</a></p></body></html>`,
		"/hub":     `<html><body>A hub about nothing.` + fill + `<a href="/c1">course syllabus lecture</a>` + fill + `<a href="/weather">weather today</a></body></html>`,
		"/c1":      `<html><body>Course page: lecture, syllabus, homework.` + fill + `<a href="/c2">next course homework</a></body></html>`,
		"/c2":      `<html><body>Another course with homework.</body></html>`,
		"/sports":  `<html><body>Sports.` + fill + `<a href="/c3">course syllabus</a></body></html>`,
		"/c3":      `<html><body>course</body></html>`,
		"/weather": `<html><body>rain</body></html>`,
	}, nil)
	scorer := NewKeywordScorer(map[string][]string{"course": {"course", "courses", "syllabus", "homework"}}, "course")
	st := su.open(t)
	c, err := su.newCrawler(t, crawler.Config{Workers: 2}, st, NewFetcher(t, fetch.Config{}), scorer)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := c.Run(context.Background(), []urlnorm.URL{s.URL("/")}, "{}")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, p := range su.pages(t, st) {
		got[strings.TrimPrefix(p.url, s.Server.URL)] = true
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

func (su *suite) multiTopicFetchesEachURLOnce(t *testing.T) {
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
	s := NewSite(t, pagesMap, nil)
	scorer := NewKeywordScorer(map[string][]string{"course": {"course"}, "faculty": {"faculty"}}, "course", "faculty")
	st := su.open(t)
	c, err := su.newCrawler(t, crawler.Config{Workers: 4}, st, NewFetcher(t, fetch.Config{}), scorer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Run(context.Background(), []urlnorm.URL{s.URL("/p0")}, "{}"); err != nil {
		t.Fatal(err)
	}
	ps := su.pages(t, st)
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
		if h := s.Hits(fmt.Sprintf("/p%d", i)); h != 1 {
			t.Errorf("/p%d requested %d times, want once", i, h)
		}
	}
}

func (su *suite) budgetAndResume(t *testing.T) {
	pagesMap := map[string]string{}
	n := 40
	for i := 0; i < n; i++ {
		pagesMap[fmt.Sprintf("/p%d", i)] = fmt.Sprintf(`<html><body><a href="/p%d">next</a> <a href="/p%d">skip</a></body></html>`, (i+1)%n, (i+7)%n)
	}
	s := NewSite(t, pagesMap, nil)
	st := su.open(t)
	f := NewFetcher(t, fetch.Config{})
	cfg := crawler.Config{Strategy: crawler.StrategyBFS, Workers: 3, MaxPages: 15}
	c, _ := su.newCrawler(t, cfg, st, f, nil)
	sum, err := c.Run(context.Background(), []urlnorm.URL{s.URL("/p0")}, "{}")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Fetched != 15 || sum.Finish != "budget reached" {
		t.Fatalf("first run: %+v, want 15 pages and budget reached", sum)
	}
	cfg.MaxPages = 0
	c, _ = su.newCrawler(t, cfg, st, f, nil)
	sum, err = c.Run(context.Background(), nil, "{}")
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Resumed || sum.Total != n || sum.Fetched != n-15 {
		t.Fatalf("resumed run: %+v, want %d new pages and %d in all", sum, n-15, n)
	}
	for i := 0; i < n; i++ {
		if h := s.Hits(fmt.Sprintf("/p%d", i)); h != 1 {
			t.Errorf("/p%d requested %d times", i, h)
		}
	}
}

func (su *suite) topicBudgetIsKept(t *testing.T) {
	// Two topics, each with more pages than its budget: however many
	// fetches are in flight at once, no topic's stack gives more than its
	// budget, and the crawl says that a budget, not the frontier, ended it.
	const fill = " one two three four five six seven eight nine ten eleven twelve "
	pages := map[string]string{}
	home := `<html><body>`
	for i := range 12 {
		home += fmt.Sprintf(`<a href="/c%d">course syllabus</a>`+fill+`<a href="/f%d">faculty professor</a>`+fill, i, i)
		pages[fmt.Sprintf("/c%d", i)] = `<html><body>course syllabus</body></html>`
		pages[fmt.Sprintf("/f%d", i)] = `<html><body>faculty professor</body></html>`
	}
	pages["/"] = home + `</body></html>`
	s := NewSite(t, pages, nil)
	scorer := NewKeywordScorer(map[string][]string{"course": {"course", "syllabus"}, "faculty": {"faculty", "professor"}}, "course", "faculty")
	for _, lockstep := range []bool{false, true} {
		st := su.open(t)
		c, err := su.newCrawler(t, crawler.Config{Workers: 8, Lockstep: lockstep, MaxPagesPerTopic: 5}, st, NewFetcher(t, fetch.Config{}), scorer)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := c.Run(context.Background(), []urlnorm.URL{s.URL("/")}, "{}")
		if err != nil {
			t.Fatal(err)
		}
		byStack := map[string]int{}
		for _, p := range su.pages(t, st) {
			byStack[p.stack]++
		}
		if byStack["course"] != 5 || byStack["faculty"] != 5 || len(byStack) != 2 {
			t.Errorf("lockstep %v: fetches per stack %v, want 5 from each topic's", lockstep, byStack)
		}
		if sum.Finish != "budget reached" {
			t.Errorf("lockstep %v: the crawl ended %q, want \"budget reached\"", lockstep, sum.Finish)
		}
	}
}

func (su *suite) cancelIsClean(t *testing.T) {
	pagesMap := map[string]string{}
	n := 200
	for i := 0; i < n; i++ {
		pagesMap[fmt.Sprintf("/p%d", i)] = fmt.Sprintf(`<html><body><a href="/p%d">a</a> <a href="/p%d">b</a></body></html>`, (i+1)%n, (i*3+1)%n)
	}
	s := NewSite(t, pagesMap, map[string]http.HandlerFunc{})
	st := su.open(t)
	f := NewFetcher(t, fetch.Config{HostDelay: 5 * time.Millisecond, HostParallelism: 1})
	c, _ := su.newCrawler(t, crawler.Config{Strategy: crawler.StrategyBFS, Workers: 4}, st, f, nil)
	// Cancel once the crawl is under way (a deadline could also pass
	// before a loaded store has opened the crawl).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for s.Requests() < 20 && ctx.Err() == nil {
			time.Sleep(2 * time.Millisecond)
		}
		cancel()
	}()
	sum, err := c.Run(ctx, []urlnorm.URL{s.URL("/p0")}, "{}")
	if err == nil || sum.Finish != "interrupted" {
		t.Fatalf("run = %+v, %v; want interrupted", sum, err)
	}
	c, _ = su.newCrawler(t, crawler.Config{Strategy: crawler.StrategyBFS, Workers: 4}, st, NewFetcher(t, fetch.Config{}), nil)
	sum2, err := c.Run(context.Background(), nil, "{}")
	if err != nil {
		t.Fatal(err)
	}
	if sum2.Total != n {
		t.Errorf("after resume %d pages in all, want %d", sum2.Total, n)
	}
	twice := 0
	for i := 0; i < n; i++ {
		if s.Hits(fmt.Sprintf("/p%d", i)) > 1 {
			twice++
		}
	}
	if twice > 8 { // the 4 fetches in progress and at most 4 uncommitted results
		t.Errorf("%d URLs fetched twice, more than the 8 in flight", twice)
	}
}

func (su *suite) tunnel(t *testing.T) {
	// The only course page sits behind an off-topic hub: the strict crawl
	// stops at the seed; with tunnelling it goes through the hub.
	const fill = " one two three four five six seven eight nine ten eleven twelve "
	site := map[string]string{
		"/":    `<html><body>Welcome.` + fill + `<a href="/hub">weather news</a></body></html>`,
		"/hub": `<html><body>Hub.` + fill + `<a href="/c1">course syllabus homework</a></body></html>`,
		"/c1":  `<html><body>course</body></html>`,
	}
	scorer := NewKeywordScorer(map[string][]string{"course": {"course", "syllabus", "homework"}}, "course")
	for _, tunnel := range []bool{false, true} {
		s := NewSite(t, site, nil)
		st := su.open(t)
		c, err := su.newCrawler(t, crawler.Config{Workers: 2, Tunnel: tunnel}, st, NewFetcher(t, fetch.Config{}), scorer)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := c.Run(context.Background(), []urlnorm.URL{s.URL("/")}, "{}")
		if err != nil {
			t.Fatal(err)
		}
		reached := s.Hits("/c1") == 1
		if reached != tunnel {
			t.Errorf("tunnel %v: course page reached = %v (summary %+v)", tunnel, reached, sum)
		}
		for _, p := range su.pages(t, st) {
			if p.stack != "course" {
				t.Errorf("tunnel %v: page %s counted on stack %q, want course", tunnel, p.url, p.stack)
			}
		}
	}
}

func (su *suite) linkScorerDecidesByTarget(t *testing.T) {
	// Every anchor is on-topic by its words, but a LinkScorer judges the
	// target: only /on… pages may be fetched.
	s := NewSite(t, map[string]string{
		"/":     `<html><body><a href="/on1">course</a> <a href="/off1">course</a></body></html>`,
		"/on1":  `<html><body><a href="/on2">course</a> <a href="/off2">course</a></body></html>`,
		"/on2":  `<html><body>course</body></html>`,
		"/off1": `<html><body>course</body></html>`,
		"/off2": `<html><body>course</body></html>`,
	}, nil)
	scorer := pathScorer{NewKeywordScorer(map[string][]string{"course": {"course"}}, "course")}
	got := su.fetchedPaths(t, s, crawler.Config{Workers: 1}, scorer)
	if strings.Join(got, " ") != "/ /on1 /on2" {
		t.Errorf("fetched %v, want / /on1 /on2", got)
	}
}

func (su *suite) bfsOrderDoesNotDependOnFetchSpeed(t *testing.T) {
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
	s := NewSite(t, map[string]string{
		"/":   `<html><body><a href="/a">a</a> <a href="/b">b</a></body></html>`,
		"/b":  `<html><body><a href="/b1">b1</a> <a href="/a1">a1</a></body></html>`,
		"/a1": `<html><body>a1</body></html>`,
		"/b1": `<html><body>b1</body></html>`,
	}, map[string]http.HandlerFunc{"/a": slow(`<html><body><a href="/a1">a1</a></body></html>`)})
	got := su.fetchedPaths(t, s, crawler.Config{Strategy: crawler.StrategyBFS, Workers: 4}, nil)
	if want := "/ /a /b /a1 /b1"; strings.Join(got, " ") != want {
		t.Errorf("fetch order %v, want %s", got, want)
	}
}

func (su *suite) promoteFollowsAListingThatProvedRelevant(t *testing.T) {
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
	s := NewSite(t, pagesMap, nil)
	for _, promote := range []bool{false, true} {
		scorer := NewKeywordScorer(map[string][]string{"course": {"course", "syllabus", "homework"}}, "course")
		st := su.open(t)
		c, err := su.newCrawler(t, crawler.Config{Workers: 1, MaxPages: 10, Tunnel: true, Promote: promote}, st, NewFetcher(t, fetch.Config{}), scorer)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Run(context.Background(), []urlnorm.URL{s.URL("/")}, "{}"); err != nil {
			t.Fatal(err)
		}
		var got []string
		doubted := 0
		for _, p := range su.pages(t, st) {
			u := strings.TrimPrefix(p.url, s.Server.URL)
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

func (su *suite) lockstepOrderDoesNotDependOnFetchSpeed(t *testing.T) {
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
		s := NewSite(t, body, map[string]http.HandlerFunc{slowPath: func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(150 * time.Millisecond)
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, slow)
		}})
		scorer := NewKeywordScorer(map[string][]string{"course": {"course"}}, "course")
		return strings.Join(su.fetchedPaths(t, s, crawler.Config{Workers: 2, Lockstep: lockstep}, scorer), " ")
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

func (su *suite) lockstepCommitsEachRoundOnce(t *testing.T) {
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
	s := NewSite(t, body, map[string]http.HandlerFunc{"/c5": func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(100 * time.Millisecond)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, slow)
	}})
	st := &countingStore{Store: su.open(t)}
	scorer := NewKeywordScorer(map[string][]string{"course": {"course"}}, "course")
	c, err := su.newCrawler(t, crawler.Config{Workers: 4, Lockstep: true}, st, NewFetcher(t, fetch.Config{}), scorer)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := c.Run(context.Background(), []urlnorm.URL{s.URL("/")}, "{}")
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

func (su *suite) sectionsLeaveTheInsideOfAFoundDocument(t *testing.T) {
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
	s := NewSite(t, pagesMap, nil)
	for _, tc := range []struct {
		sections, tunnel bool
		want             string
	}{
		{false, false, "/ /c1/ /c1/hw1.html /c1/hw2.html /c1/hw3.html"},
		{true, false, "/ /c1/ /c1-notes/ /c2/c2.html /x/c3.html"},
		// The parts wait, shallowest first and among equals the latest.
		{true, true, "/ /c1/ /c1-notes/ /c2/c2.html /x/c3.html /x/c3/hw1.html /x/c3/hw2.html /x/c3/hw3.html"},
	} {
		scorer := NewKeywordScorer(map[string][]string{"course": {"course", "syllabus", "homework"}}, "course")
		budget := 5
		if tc.tunnel {
			budget = 8
		}
		got := su.fetchedPaths(t, s, crawler.Config{Workers: 1, Lockstep: true, MaxPages: budget, Sections: tc.sections, Tunnel: tc.tunnel}, scorer)
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("sections %v, tunnel %v: fetched %s, want %s", tc.sections, tc.tunnel, g, tc.want)
		}
	}
}

func (su *suite) sectionsOutliveAResume(t *testing.T) {
	// The seed links to a course (/c1/) and to a list of homework whose
	// first entry lies inside that course. With Sections the course's
	// page makes /c1/ a section, so the list's link into it is dropped.
	// A crawl stopped after the course's page and resumed drops it too:
	// it fetches what the crawl never stopped fetches.
	const fill = " one two three four five six seven eight nine ten eleven twelve "
	s := NewSite(t, map[string]string{
		"/":            `<html><body><a href="/c1/">course 1</a>` + fill + `<a href="/list">course homework list</a></body></html>`,
		"/c1/":         `<html><body>course syllabus</body></html>`,
		"/list":        `<html><body>course homework <a href="/c1/hw1.html">course homework 1</a>` + fill + `<a href="/hw2.html">course homework 2</a></body></html>`,
		"/c1/hw1.html": `<html><body>course homework</body></html>`,
		"/hw2.html":    `<html><body>course homework</body></html>`,
	}, nil)
	scorer := NewKeywordScorer(map[string][]string{"course": {"course", "syllabus", "homework"}}, "course")
	cfg := crawler.Config{Workers: 1, Lockstep: true, Sections: true}
	whole := su.fetchedPaths(t, s, cfg, scorer)
	if slices.Contains(whole, "/c1/hw1.html") || !slices.Contains(whole, "/hw2.html") {
		t.Fatalf("the crawl fetched %v: want the link into /c1/ dropped, /hw2.html fetched", whole)
	}
	at := slices.Index(whole, "/c1/")
	if at < 0 || at+1 >= len(whole) || !slices.Contains(whole[at+1:], "/list") {
		t.Fatalf("the crawl fetched %v: want /list after /c1/", whole)
	}

	st := su.open(t)
	f := NewFetcher(t, fetch.Config{})
	stop := cfg
	stop.MaxPages = at + 1 // up to the course's page
	for i, c := range []crawler.Config{stop, cfg} {
		cr, err := su.newCrawler(t, c, st, f, scorer)
		if err != nil {
			t.Fatal(err)
		}
		var seeds []urlnorm.URL
		if i == 0 {
			seeds = []urlnorm.URL{s.URL("/")}
		}
		if _, err := cr.Run(context.Background(), seeds, "{}"); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, p := range su.pages(t, st) {
		got = append(got, strings.TrimPrefix(p.url, s.Server.URL))
	}
	if g, w := strings.Join(got, " "), strings.Join(whole, " "); g != w {
		t.Errorf("stopped after %d pages and resumed, the crawl fetched %s; without a stop %s", at+1, g, w)
	}
}

func (su *suite) tunnelGoesOnFromTheShallowestReserveLink(t *testing.T) {
	// Nothing is on-topic. The seed links to /a and /z; /a links to /a/b.
	// Tunnelling takes the shallowest reserve link first: /z (one link
	// from the seed) before /a/b (two), although /a/b was found last.
	const fill = " one two three four five six seven eight nine ten eleven twelve "
	s := NewSite(t, map[string]string{
		"/":    `<html><body><a href="/a">weather</a>` + fill + `<a href="/z">sports</a></body></html>`,
		"/a":   `<html><body><a href="/a/b">news</a></body></html>`,
		"/a/b": `<html><body>news</body></html>`,
		"/z":   `<html><body>sports</body></html>`,
	}, nil)
	scorer := NewKeywordScorer(map[string][]string{"course": {"course"}}, "course")
	got := su.fetchedPaths(t, s, crawler.Config{Workers: 1, Lockstep: true, Tunnel: true}, scorer)
	if g, want := strings.Join(got, " "), "/ /a /z /a/b"; g != want {
		t.Errorf("fetched %s, want %s", g, want)
	}
}

func (su *suite) surveyFetchesTheSeedsLinksFirst(t *testing.T) {
	// Best first, the course page's own course link (two links from the
	// seed) comes before the seed's off-topic links; with Survey every
	// link of the seed comes first, best first among them, then the rest.
	const fill = " one two three four five six seven eight nine ten eleven twelve "
	s := NewSite(t, map[string]string{
		"/":       `<html><body><a href="/a">weather</a>` + fill + `<a href="/c1/">course</a>` + fill + `<a href="/b">sports</a></body></html>`,
		"/c1/":    `<html><body>course <a href="/c1/hw1">course homework</a>` + fill + `<a href="/d">news</a></body></html>`,
		"/c1/hw1": `<html><body>course homework</body></html>`,
		"/a":      `<html><body>weather</body></html>`,
		"/b":      `<html><body>sports</body></html>`,
		"/d":      `<html><body>news</body></html>`,
	}, nil)
	scorer := NewKeywordScorer(map[string][]string{"course": {"course", "homework"}}, "course")
	for _, tc := range []struct {
		survey bool
		want   string
	}{
		{false, "/ /c1/ /c1/hw1"},
		{true, "/ /c1/ /a /b /c1/hw1"},
	} {
		got := su.fetchedPaths(t, s, crawler.Config{Workers: 1, Lockstep: true, Learner: BaseLearner{}, Survey: tc.survey}, scorer)
		// After the on-topic pages the off-topic ones come in an order
		// the scores leave open; the first pages are the point.
		if g := strings.Join(got[:min(len(got), len(strings.Fields(tc.want)))], " "); g != tc.want || len(got) != 6 {
			t.Errorf("survey %v: fetched %v, want %s first and 6 pages", tc.survey, got, tc.want)
		}
	}
}

// BaseLearner is a crawler.Learner that learns nothing: a link's value
// is its base score, and every link stays on the stacks.
type BaseLearner struct{}

func (BaseLearner) ScoreLink(l *crawler.LinkFeatures, dst []float64) []float64 {
	return append(dst[:0], l.Base...)
}
func (BaseLearner) Observe(*crawler.Page, crawler.Entry, []crawler.Entry) {}
func (BaseLearner) Rescore() []crawler.Entry                              { return nil }
func (BaseLearner) MarshalState() ([]byte, error)                         { return []byte("{}"), nil }
func (BaseLearner) RestoreState([]byte) error                             { return nil }

func (su *suite) progressShowsTheFrontier(t *testing.T) {
	// The seed links to two off-topic pages and one course page; the
	// course page's homework (inside its directory) waits on the parts.
	const fill = " one two three four five six seven eight nine ten eleven twelve "
	s := NewSite(t, map[string]string{
		"/":       `<html><body><a href="/a">weather</a>` + fill + `<a href="/b">sports</a>` + fill + `<a href="/c1/">course</a></body></html>`,
		"/c1/":    `<html><body>course <a href="/c1/hw1">course homework</a></body></html>`,
		"/c1/hw1": `<html><body>course homework</body></html>`,
		"/a":      `<html><body>weather</body></html>`,
		"/b":      `<html><body>sports</body></html>`,
	}, nil)
	scorer := NewKeywordScorer(map[string][]string{"course": {"course", "homework"}}, "course")
	st := su.open(t)
	var last crawler.Progress
	updates := 0
	progress := func(p crawler.Progress) { last, updates = p, updates+1 }
	c, err := su.newCrawler(t, crawler.Config{Workers: 1, Lockstep: true, MaxPages: 2, Tunnel: true, Sections: true, Progress: progress}, st, NewFetcher(t, fetch.Config{}), scorer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Run(context.Background(), []urlnorm.URL{s.URL("/")}, "{}"); err != nil {
		t.Fatal(err)
	}
	// After / and /c1/: /a and /b on the reserve, /c1/hw1 on the parts
	// (the seed's own entries on them were taken with it).
	want := []crawler.Waiting{
		{Stack: crawler.Stack{Topic: "course"}, URLs: 0},
		{Stack: crawler.Stack{Topic: "course", Kind: crawler.Reserve}, URLs: 2},
		{Stack: crawler.Stack{Topic: "course", Kind: crawler.Parts}, URLs: 1},
	}
	if !last.Final || last.Pages != 2 || !slices.Equal(last.Frontier, want) {
		t.Errorf("last progress (of %d) = %+v, want 2 pages and frontier %v", updates, last, want)
	}
}

func (su *suite) progressCountsEarlierRuns(t *testing.T) {
	// A chain of course pages: every page fetched is relevant. The
	// progress line of a resumed crawl counts its pages over all runs, so
	// its relevant pages must be counted over all runs too, or "pages 4 |
	// course relevant 2" reads as a harvest of half.
	pages := map[string]string{}
	for i := range 6 {
		pages[fmt.Sprintf("/c%d", i)] = fmt.Sprintf(`<html><body>course homework <a href="/c%d">course homework</a></body></html>`, i+1)
	}
	s := NewSite(t, pages, nil)
	scorer := NewKeywordScorer(map[string][]string{"course": {"course", "homework"}}, "course")
	st := su.open(t)
	f := NewFetcher(t, fetch.Config{})
	var last crawler.Progress
	for _, max := range []int{2, 4} {
		c, err := su.newCrawler(t, crawler.Config{Workers: 1, MaxPages: max, Progress: func(p crawler.Progress) { last = p }}, st, f, scorer)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Run(context.Background(), []urlnorm.URL{s.URL("/c0")}, "{}"); err != nil {
			t.Fatal(err)
		}
	}
	relevant := 0
	err := st.EachPage(context.Background(), 1, func(p *crawler.Page) error {
		if p.Relevant["course"] {
			relevant++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if relevant != 4 {
		t.Fatalf("%d relevant pages stored, want 4", relevant)
	}
	if !last.Final || last.Pages != 4 || !slices.Equal(last.Relevant, []int{4}) {
		t.Errorf("last progress of the resumed run: %d pages, relevant %v; want 4 and [4]", last.Pages, last.Relevant)
	}
}

func (su *suite) knownURLsAreNotFetched(t *testing.T) {
	// The pages a model learnt from are in hand: a link to one is not
	// followed, the rest of the crawl goes on.
	s := NewSite(t, map[string]string{
		"/":        `<html><body><a href="/example">course syllabus</a> <a href="/c1">course lecture</a></body></html>`,
		"/example": `<html><body>course syllabus lecture <a href="/c2">course homework</a></body></html>`,
		"/c1":      `<html><body>course lecture notes</body></html>`,
		"/c2":      `<html><body>course homework</body></html>`,
	}, nil)
	scorer := NewKeywordScorer(map[string][]string{"course": {"course"}}, "course")
	got := su.fetchedPaths(t, s, crawler.Config{Workers: 1, Known: []urlnorm.URL{s.URL("/example")}}, scorer)
	if want := []string{"/", "/c1"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("fetched %v, want %v", got, want)
	}
	if n := s.Hits("/example"); n != 0 {
		t.Errorf("known page fetched %d times", n)
	}
}

// pathScorer scores a link by its target's path alone (a LinkScorer):
// on-topic exactly when the path starts with "/on".
type pathScorer struct{ *KeywordScorer }

func (s pathScorer) ScoreLink(target urlnorm.URL, _ []string, dst []float64) []float64 {
	v := 0.1
	if strings.HasPrefix(target.Path(), "/on") {
		v = 0.9
	}
	return append(dst[:0], v)
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

func (su *suite) frontierBoundDropsNewURLs(t *testing.T) {
	// The seed links to 30 pages, with at most 10 URLs waiting per host:
	// 20 are never queued, and the crawl ends with the seed and 10 pages.
	home := `<html><body>`
	pagesMap := map[string]string{}
	for i := range 30 {
		home += fmt.Sprintf(`<a href="/p%d">page %d</a> `, i, i)
		pagesMap[fmt.Sprintf("/p%d", i)] = `<html><body>leaf</body></html>`
	}
	pagesMap["/"] = home + `</body></html>`
	s := NewSite(t, pagesMap, nil)
	got := su.fetchedPaths(t, s, crawler.Config{Strategy: crawler.StrategyBFS, Workers: 2, MaxFrontierPerHost: 10}, nil)
	if want := "/ /p0 /p1 /p2 /p3 /p4 /p5 /p6 /p7 /p8 /p9"; strings.Join(got, " ") != want {
		t.Errorf("fetched %v, want %s", got, want)
	}
}

func (su *suite) redirectsEndAtOnePage(t *testing.T) {
	// /a and /b redirect to /c, which the seed also links to: whatever
	// the order, /c is stored as one page and the other fetches that end
	// there are not pages.
	to := func(target string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, target, http.StatusMovedPermanently) }
	}
	for _, strategy := range []crawler.Strategy{crawler.StrategyBFS, crawler.StrategyLink} {
		s := NewSite(t, map[string]string{
			"/":  `<html><body><a href="/a">course a</a> <a href="/b">course b</a> <a href="/c">course c</a></body></html>`,
			"/c": `<html><body>course</body></html>`,
		}, map[string]http.HandlerFunc{"/a": to("/c"), "/b": to("/c")})
		st := su.open(t)
		scorer := NewKeywordScorer(map[string][]string{"course": {"course"}}, "course")
		c, err := su.newCrawler(t, crawler.Config{Strategy: strategy, Workers: 3}, st, NewFetcher(t, fetch.Config{}), scorer)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Run(context.Background(), []urlnorm.URL{s.URL("/")}, "{}"); err != nil {
			t.Fatal(err)
		}
		var pagesOfC []string
		err = st.EachPage(context.Background(), 1, func(p *crawler.Page) error {
			if p.Failure == "" && (p.FinalURL == s.URL("/c") || p.URL == s.URL("/c")) {
				pagesOfC = append(pagesOfC, p.URL.String())
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(pagesOfC) != 1 {
			t.Errorf("%s: /c stored as %d pages (%v), want one", strategy, len(pagesOfC), pagesOfC)
		}
		if n := s.Hits("/c"); n > 3 {
			t.Errorf("%s: /c requested %d times", strategy, n)
		}
	}
}
