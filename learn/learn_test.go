package learn_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"math/rand/v2"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/internal/pgtest"
	"github.com/scent-crawler/scent/learn"
	"github.com/scent-crawler/scent/postgres"
	"github.com/scent-crawler/scent/sqlite"
	"github.com/scent-crawler/scent/urlnorm"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// wordScorer is a small real Scorer: a page or link is on-topic (0.9)
// when it holds one of the topic's words, off-topic (0.1) otherwise.
type wordScorer struct{ words map[string]bool }

func (s wordScorer) Topics() []string      { return []string{"robots"} }
func (s wordScorer) Threshold(int) float64 { return 0.5 }
func (s wordScorer) ScorePage(tokens []string, dst []float64) []float64 {
	return s.Score(tokens, dst)
}
func (s wordScorer) Score(tokens []string, dst []float64) []float64 {
	for _, t := range tokens {
		if s.words[t] {
			return append(dst[:0], 0.9)
		}
	}
	return append(dst[:0], 0.1)
}

// labWeb serves a department whose home page lists 20 labs. Three of
// them (3, 11 and 17) are people lists — anchored "people of lab …", a
// word no topic page holds — whose 8 pages are about robots; the others
// are news lists of 8 pages about gardens. Every listing link is
// anchored "page N": nothing in it tells the topic.
func labWeb(t *testing.T) (*httptest.Server, map[string]bool) { return labWebJitter(t, false) }

// labWebJitter is labWeb whose answers, with jitter, take a random 0–3
// ms, so that fetches of one round finish in a different order each run,
// and whose lists link each page twice, once through a redirect
// (/labK/pJ answers 301 to /labK/pJ.html).
func labWebJitter(t *testing.T, jitter bool) (*httptest.Server, map[string]bool) {
	return labWebCounting(t, jitter, nil)
}

// labWebCounting is labWebJitter that counts, when asked is set, the
// requests of each path.
func labWebCounting(t *testing.T, jitter bool, asked *sync.Map) (*httptest.Server, map[string]bool) {
	people := map[int]bool{3: true, 11: true, 17: true}
	pages := map[string]string{}
	on := map[string]bool{}
	var home strings.Builder
	home.WriteString("<html><body><h1>department</h1><ul>")
	for k := 1; k <= 20; k++ {
		kind := "news"
		if people[k] {
			kind = "people"
		}
		fmt.Fprintf(&home, `<li><a href="/lab%d/">%s of lab number %d</a> in the building</li>`, k, kind, k)
		var list strings.Builder
		fmt.Fprintf(&list, "<html><body><h1>lab %d</h1><ul>", k)
		for j := 1; j <= 8; j++ {
			p := fmt.Sprintf("/lab%d/p%d.html", k, j)
			fmt.Fprintf(&list, `<li><a href="%s">page %d</a></li>`, p, j)
			if jitter {
				fmt.Fprintf(&list, `<li><a href="%s">page %d again</a></li>`, strings.TrimSuffix(p, ".html"), j)
			}
			if people[k] {
				pages[p] = `<html><body><p>robot arm vision and robot planning</p><a href="/">home</a></body></html>`
				on[p] = true
			} else {
				pages[p] = `<html><body><p>garden flowers and garden tools</p><a href="/">home</a></body></html>`
			}
		}
		list.WriteString("</ul></body></html>")
		pages[fmt.Sprintf("/lab%d/", k)] = list.String()
	}
	home.WriteString("</ul></body></html>")
	pages["/"] = home.String()
	var redirect func(w http.ResponseWriter, r *http.Request) bool
	if jitter {
		redirect = func(w http.ResponseWriter, r *http.Request) bool {
			time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond)
			if _, ok := pages[r.URL.Path+".html"]; ok {
				http.Redirect(w, r, r.URL.Path+".html", http.StatusMovedPermanently)
				return true
			}
			return false
		}
	}
	before := redirect
	if asked != nil {
		before = func(w http.ResponseWriter, r *http.Request) bool {
			n, _ := asked.LoadOrStore(r.URL.Path, new(atomic.Int64))
			n.(*atomic.Int64).Add(1)
			return redirect != nil && redirect(w, r)
		}
	}
	return servePages(t, pages, before), on
}

// servePages serves pages (path → HTML) on a test server closed with the
// test; before, when set, sees each request first and may answer it
// itself (it returns true then).
func servePages(t *testing.T, pages map[string]string, before func(http.ResponseWriter, *http.Request) bool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if before != nil && before(w, r) {
			return
		}
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// labScorer is the page and base link model of the lab web's crawls.
var labScorer = wordScorer{words: map[string]bool{"robot": true, "vision": true}}

// fetched is one fetch of a crawl: its URL's path on the test site and
// whether it gave a page.
type fetched struct {
	path string
	ok   bool
}

// labCrawl runs a crawl of cfg (with labScorer) from srv's home page
// into the store at path, a new one or one to resume, and returns its
// fetches in their order.
func labCrawl(t *testing.T, srv *httptest.Server, path string, cfg crawler.Config) []fetched {
	t.Helper()
	fs, _ := labCrawlSummary(t, srv, path, cfg)
	return fs
}

// labCrawlSummary is labCrawl, with the run's summary.
func labCrawlSummary(t *testing.T, srv *httptest.Server, path string, cfg crawler.Config) ([]fetched, crawler.Summary) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	return labCrawlStore(t, srv, st, cfg)
}

// pageStore is a crawler.Store that reads its pages back.
type pageStore interface {
	crawler.Store
	crawler.PageReader
}

// labCrawlStore runs a crawl of cfg (with labScorer) from srv's home
// page into st and returns its fetches in their order, read back from
// st, with the run's summary.
func labCrawlStore(t *testing.T, srv *httptest.Server, st pageStore, cfg crawler.Config) ([]fetched, crawler.Summary) {
	t.Helper()
	ctx := context.Background()
	f, err := fetch.New(fetch.Config{IgnoreRobots: true, HostParallelism: 0, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := crawler.New(cfg, st, f, labScorer)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := c.Run(ctx, []urlnorm.URL{urlnorm.MustParse(srv.URL + "/")}, "{}")
	if err != nil {
		t.Fatal(err)
	}
	var out []fetched
	err = st.EachPage(ctx, sum.Crawl, func(p *crawler.Page) error {
		out = append(out, fetched{path: strings.TrimPrefix(p.URL.String(), srv.URL), ok: p.Failure == ""})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, sum
}

// topicPages counts the fetches that gave a page of on.
func topicPages(fs []fetched, on map[string]bool) int {
	n := 0
	for _, f := range fs {
		if f.ok && on[f.path] {
			n++
		}
	}
	return n
}

// crawlLabs crawls labWeb with a learner of opts for budget pages and
// returns how many topic pages it fetched.
func crawlLabs(t *testing.T, opts learn.Options, budget int) int {
	t.Helper()
	srv, on := labWeb(t)
	l, err := learn.New(labScorer.Topics(), opts)
	if err != nil {
		t.Fatal(err)
	}
	cfg := crawler.Config{Workers: 4, Lockstep: true, MaxPages: budget, Learner: l}
	return topicPages(labCrawl(t, srv, filepath.Join(t.TempDir(), "crawl.db"), cfg), on)
}

func TestLearner_findsTopicBehindOffTopicListings(t *testing.T) {
	// The fixed model never has evidence enough to learn; the learner
	// learns from the first people list it stumbles on that "people"
	// links lead to robot pages, and goes to the other two next.
	const budget = 60
	fixed := crawlLabs(t, learn.Options{MinDocs: 1e9}, budget)
	learnt := crawlLabs(t, learn.Options{}, budget)
	t.Logf("topic pages in %d fetched: fixed model %d, learner %d (of 24)", budget, fixed, learnt)
	if learnt < fixed+8 {
		t.Errorf("learner found %d topic pages in %d, fixed model %d: want at least 8 more", learnt, budget, fixed)
	}
	if again := crawlLabs(t, learn.Options{}, budget); again != learnt {
		t.Errorf("lockstep learning crawl not repeatable: %d then %d", learnt, again)
	}
}

// observe feeds l a page fetched for e whose links are links (target
// path → context), relevant or not.
func observe(l *learn.Learner, e crawler.Entry, relevant bool, links map[string]string) {
	score := 0.1
	if relevant {
		score = 0.9
	}
	p := &crawler.Page{URL: e.URL, FinalURL: e.URL, Depth: e.Depth, Relevant: map[string]bool{"robots": relevant}, Scores: map[string]float64{"robots": score}}
	var push []crawler.Entry
	for path, ctx := range links {
		u := urlnorm.MustParse("http://h.test" + path)
		p.Links = append(p.Links, crawler.Link{Target: u, Context: ctx, Scores: []float64{0.1}})
		push = append(push, crawler.Entry{Topic: "robots", URL: u, Depth: e.Depth + 1})
	}
	l.Observe(p, e, push)
}

func entry(path string, depth int) crawler.Entry {
	return crawler.Entry{Topic: "robots", URL: urlnorm.MustParse("http://h.test" + path), Depth: depth}
}

func TestLearner_creditAndRescore(t *testing.T) {
	l, err := learn.New([]string{"robots"}, learn.Options{MinDocs: 1, MinBatch: 1, Gamma: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	observe(l, entry("/", 0), false, map[string]string{"/people/": "people of the lab", "/news/": "news of the lab"})
	observe(l, entry("/people/", 1), false, map[string]string{"/people/a.html": "alice", "/people/b.html": "bob"})
	observe(l, entry("/news/", 1), false, map[string]string{"/news/a.html": "flowers"})
	if ups := l.Rescore(); ups != nil {
		t.Errorf("rescored %d links with no relevant page yet", len(ups))
	}
	observe(l, entry("/people/a.html", 2), true, nil)
	observe(l, entry("/news/a.html", 2), false, nil)
	// The relevant page's link leads; the link to its list leads next.
	c := l.Counts(0)
	if got := c.Docs(0); got != 1 {
		t.Errorf("weight of links that lead: %v, want 1", got)
	}
	if got := c.Docs(1); got != 1 {
		t.Errorf("weight of links that lead next: %v, want 1 (the list's)", got)
	}
	// /news/, /news/a.html and (before its move) /people/ led nowhere.
	if got := c.Docs(2); got != 2 {
		t.Errorf("weight of links that lead nowhere: %v, want 2 (/news/ and /news/a.html)", got)
	}
	ups := l.Rescore()
	if len(ups) == 0 || l.Model(0) == nil {
		t.Fatal("no rescore after relevant evidence")
	}
	var bob float64 = -1
	for _, u := range ups {
		if u.URL.Path() == "/people/b.html" {
			bob = u.Score
		}
	}
	if bob < 0.5 {
		t.Errorf("the sibling of a relevant page scores %v, want ≥ 0.5 (%v)", bob, ups)
	}
}

// A link pushed onto a fallback stack (the parts of a compound document)
// is not moved by a rescore, which moves entries on the topic's own
// stack; once fetched it is learnt from like any other, and pushed again
// onto the stack it is moved.
func TestLearner_rescoreLeavesFallbackStacks(t *testing.T) {
	l, _ := learn.New([]string{"robots"}, learn.Options{MinDocs: 1, MinBatch: 1})
	parts := crawler.Stack{Topic: "robots", Kind: crawler.Parts}.Name()
	observe(l, entry("/", 0), false, map[string]string{"/people/": "people of the lab", "/news/": "news of the lab"})
	observe(l, entry("/people/", 1), false, map[string]string{"/people/a.html": "alice", "/people/b.html": "bob"})
	observe(l, entry("/news/", 1), false, map[string]string{"/news/a.html": "flowers"})
	// The lab page's own pages, diverted to its parts.
	lab := &crawler.Page{URL: urlnorm.MustParse("http://h.test/lab/"), FinalURL: urlnorm.MustParse("http://h.test/lab/"), Depth: 1,
		Scores: map[string]float64{"robots": 0.9}}
	var push []crawler.Entry
	for _, path := range []string{"/lab/a.html", "/lab/b.html"} {
		u := urlnorm.MustParse("http://h.test" + path)
		lab.Links = append(lab.Links, crawler.Link{Target: u, Context: "robot arm", Scores: []float64{0.1}})
		push = append(push, crawler.Entry{Topic: parts, URL: u, Depth: 2})
	}
	l.Observe(lab, entry("/lab/", 1), push)
	observe(l, entry("/people/a.html", 2), true, nil)
	observe(l, entry("/news/a.html", 2), false, nil)
	before := l.Counts(0).Docs(0) + l.Counts(0).Docs(2)
	observe(l, crawler.Entry{Topic: parts, URL: urlnorm.MustParse("http://h.test/lab/a.html"), Depth: 2}, true, nil)
	if after := l.Counts(0).Docs(0) + l.Counts(0).Docs(2); after != before+1 {
		t.Errorf("a page fetched from the parts taught %v links, want 1", after-before)
	}
	moved := map[string]bool{}
	for _, u := range l.Rescore() {
		moved[u.URL.Path()] = true
	}
	if !moved["/people/b.html"] || moved["/lab/b.html"] {
		t.Errorf("rescore moved %v: want /people/b.html, not /lab/b.html (it waits on the parts)", moved)
	}
	// Pushed onto the stack from another page, it is moved.
	observe(l, entry("/news/", 1), false, map[string]string{"/lab/b.html": "robot arm"})
	observe(l, entry("/people/b.html", 2), true, nil)
	for _, u := range l.Rescore() {
		if u.URL.Path() == "/lab/b.html" {
			return
		}
	}
	t.Error("/lab/b.html, pushed onto the stack, was not moved")
}

// With MinMove a rescore moves a waiting link only when its value has
// moved by more than that share of the larger value from the value last
// given to its stack: a learner that moves every change (A, the default)
// and one with MinMove 0.2 (B), fed the same evidence, build the same
// models; B names exactly the links whose value in A is more than a
// fifth away from what B last gave them, and skips some.
func TestLearner_rescoreMovesOnlyWhatMoved(t *testing.T) {
	a, _ := learn.New([]string{"robots"}, learn.Options{MinDocs: 1, MinBatch: 1})
	b, _ := learn.New([]string{"robots"}, learn.Options{MinDocs: 1, MinBatch: 1, MinMove: 0.2})
	words := strings.Fields("people faculty course lab robot vision news garden student home")
	given := map[string]float64{} // B's stack: the value B last gave each link
	skipped, checked := 0, 0
	for round := range 6 {
		for i := range 4 {
			src := fmt.Sprintf("/r%d/p%d/", round, i)
			links := map[string]string{}
			for j := range 6 {
				path := fmt.Sprintf("%sl%d.html", src, j)
				links[path] = words[(round+i+j)%len(words)] + " " + words[(i*j+round)%len(words)]
				given[path] = 0.1 // the base score: no model when pushed, or moved below
			}
			for _, l := range []*learn.Learner{a, b} {
				observe(l, entry(src, 1), false, links)
				if round > 0 { // fetch some links of the round before
					observe(l, entry(fmt.Sprintf("/r%d/p%d/l%d.html", round-1, i, i), 2), i%2 == 0, nil)
				}
			}
			for path := range links {
				if m := b.Model(0); m != nil {
					given[path] = -1 // pushed with the model's value: unknown here, left out
				}
			}
		}
		upA, upB := a.Rescore(), b.Rescore()
		moved := map[string]float64{}
		for _, u := range upB {
			moved[u.URL.Path()] = u.Score
		}
		for _, u := range upA {
			p := u.URL.Path()
			old, known := given[p]
			if !known || old < 0 {
				continue
			}
			far := math.Abs(u.Score-old) > 0.2*max(u.Score, old)
			got, ok := moved[p]
			switch {
			case far && !ok:
				t.Errorf("round %d: %s moved from %v to %v, not rescored", round, p, old, u.Score)
			case far && got != u.Score:
				t.Errorf("round %d: %s rescored to %v, want %v", round, p, got, u.Score)
			case !far && ok:
				t.Errorf("round %d: %s rescored for a move from %v to %v", round, p, old, u.Score)
			case !far:
				skipped++
				continue
			}
			checked++
			given[p] = u.Score
		}
	}
	if a.Model(0) == nil {
		t.Fatal("no model")
	}
	if skipped == 0 || checked == 0 {
		t.Errorf("%d small moves skipped, %d larger ones rescored: want some of each", skipped, checked)
	}
}

// With Options.Canonical the learner keeps a link under the form the
// frontier keeps its target in: the page fetched for that entry teaches
// the link, and a rescore names the entry that waits.
func TestLearner_canonicalTargets(t *testing.T) {
	canon := func(u urlnorm.URL) urlnorm.URL {
		if p := u.Path(); strings.HasSuffix(p, "/index.html") {
			return urlnorm.MustParse("http://h.test" + strings.TrimSuffix(p, "index.html"))
		}
		return u
	}
	l, err := learn.New([]string{"robots"}, learn.Options{MinDocs: 1, MinBatch: 1, Canonical: canon})
	if err != nil {
		t.Fatal(err)
	}
	observe(l, entry("/", 0), false, map[string]string{"/people/a/index.html": "alice", "/news/index.html": "news", "/people/b/index.html": "bob"})
	observe(l, entry("/people/a/", 1), true, nil)
	observe(l, entry("/news/", 1), false, nil)
	c := l.Counts(0)
	if c.Docs(0) != 1 || c.Docs(2) != 1 {
		t.Fatalf("links counted as leading %v and not %v, want 1 and 1: the pages fetched in canonical form taught nothing", c.Docs(0), c.Docs(2))
	}
	ups := l.Rescore()
	if len(ups) != 1 || ups[0].URL.Path() != "/people/b/" {
		t.Errorf("rescored %v, want the waiting entry /people/b/", ups)
	}
}

// stateLearner returns a learner that has learnt from a home page, a
// people list with one relevant page and a news list, and rescored.
func stateLearner() *learn.Learner {
	l, _ := learn.New([]string{"robots"}, learn.Options{MinDocs: 1, MinBatch: 1})
	observe(l, entry("/", 0), false, map[string]string{"/people/": "people of the lab", "/news/": "news of the lab"})
	observe(l, entry("/people/", 1), true, map[string]string{"/people/a.html": "alice"})
	observe(l, entry("/news/", 1), false, nil)
	l.Rescore()
	return l
}

func TestLearner_state(t *testing.T) {
	l := stateLearner()
	state, err := l.MarshalState()
	if err != nil {
		t.Fatal(err)
	}
	back, _ := learn.New([]string{"robots"}, learn.Options{MinDocs: 1, MinBatch: 1})
	if err := back.RestoreState(state); err != nil {
		t.Fatal(err)
	}
	for _, lf := range []crawler.LinkFeatures{
		{Source: urlnorm.MustParse("http://h.test/"), Target: urlnorm.MustParse("http://h.test/people/x.html"), Tokens: []string{"people", "x"}, Depth: 1, Base: []float64{0.1}, Page: []float64{0.1}},
		{Source: urlnorm.MustParse("http://h.test/a"), Target: urlnorm.MustParse("http://o.test/news"), Tokens: []string{"news"}, Depth: 3, Base: []float64{0.7}, Page: []float64{0.9}},
	} {
		want := l.ScoreLink(&lf, nil)
		got := back.ScoreLink(&lf, nil)
		if math.Abs(want[0]-got[0]) > 1e-12 {
			t.Errorf("%s: restored learner scores %v, want %v", lf.Target, got, want)
		}
	}
	other, _ := learn.New([]string{"course"}, learn.Options{})
	for _, bad := range [][]byte{state, []byte(`{`), []byte(`{"format":"x"}`)} {
		if err := other.RestoreState(bad); err == nil {
			t.Errorf("%.40s: restored into another topic set", bad)
		}
	}
}

func TestOptions_Validate(t *testing.T) {
	for _, o := range []learn.Options{{K: -1}, {Gamma: 1}, {Gamma: -0.1}, {M: math.NaN()}, {Growth: -1}, {Memory: -1}, {MinMove: 1}, {MinMove: -0.1}, {MinMove: math.NaN()}} {
		if _, err := learn.New([]string{"a"}, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	if _, err := learn.New(nil, learn.Options{}); err == nil {
		t.Error("no topic: no error")
	}
}

func BenchmarkLearner_ScoreLink(b *testing.B) {
	l, _ := learn.New([]string{"robots"}, learn.Options{MinDocs: 1, MinBatch: 1})
	for i := range 200 {
		observe(l, entry(fmt.Sprintf("/l%d/", i), 1), i%3 == 0, map[string]string{fmt.Sprintf("/l%d/p.html", i): fmt.Sprintf("word%d people of lab", i%17)})
	}
	for i := range 200 { // the links' targets: evidence for the model
		observe(l, entry(fmt.Sprintf("/l%d/p.html", i), 2), i%3 == 0, nil)
	}
	l.Rescore()
	if l.Model(0) == nil {
		b.Fatal("no link model: the benchmark would score with the base model")
	}
	lf := crawler.LinkFeatures{Source: urlnorm.MustParse("http://h.test/"), Target: urlnorm.MustParse("http://h.test/people/x.html"),
		Tokens: strings.Fields("the people of the robotics lab and their students in the building of the department"), Depth: 2, Base: []float64{0.3}, Page: []float64{0.2}}
	dst := make([]float64, 1)
	b.ResetTimer()
	for b.Loop() {
		dst = l.ScoreLink(&lf, dst)
	}
}

// BenchmarkLearner_Rescore measures one model rebuild and rescore of a
// full stack: 100,000 waiting links, after evidence from 2,000 pages.
func BenchmarkLearner_Rescore(b *testing.B) {
	l, _ := learn.New([]string{"robots"}, learn.Options{MinDocs: 1, MinBatch: 1, Growth: 1e-9})
	words := strings.Fields("people faculty course lab robot vision news garden student home page research group paper talk seminar")
	for i := range 2000 {
		links := map[string]string{}
		for j := range 50 {
			links[fmt.Sprintf("/p%d/l%d.html", i, j)] = words[(i+j)%len(words)] + " " + words[(i*j)%len(words)] + fmt.Sprintf(" w%d", j%97)
		}
		observe(l, entry(fmt.Sprintf("/p%d/", i), 1+i%4), i%5 == 0, links)
	}
	for i := range 2000 {
		observe(l, entry(fmt.Sprintf("/p%d/l0.html", i), 2), i%7 == 0, nil)
	}
	l.Rescore()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		observe(l, entry(fmt.Sprintf("/p%d/l%d.html", i%2000, 1+i/2000), 2), true, nil) // new evidence: the model changes
		ups := l.Rescore()
		if l.Model(0) == nil {
			b.Fatal("no model")
		}
		b.ReportMetric(float64(len(ups)), "moved")
	}
}

// BenchmarkLearner_memory measures the heap a learner holds per
// remembered link (B/link, objects/link) once it remembers 100,000
// links of 2,000 pages and a tenth of their targets were fetched and
// taught, for one topic and for two. The pages are built before the
// count: their URLs, which the learner keeps, are the crawl's.
func BenchmarkLearner_memory(b *testing.B) {
	for _, topics := range [][]string{{"robots"}, {"robots", "people"}} {
		b.Run(fmt.Sprintf("topics=%d", len(topics)), func(b *testing.B) {
			pages := memoryCrawl(topics, 2000, 50)
			var before, after runtime.MemStats
			links := 0
			for b.Loop() {
				b.StopTimer()
				runtime.GC()
				runtime.ReadMemStats(&before)
				b.StartTimer()
				l, _ := learn.New(topics, learn.Options{})
				for _, p := range pages {
					l.Observe(p.page, p.entry, p.push)
				}
				b.StopTimer()
				runtime.GC()
				runtime.ReadMemStats(&after)
				mem, _ := l.MarshalMemory()
				links = bytes.Count(mem, []byte("http://h.test/p")) // each link's target, once
				runtime.KeepAlive(pages)
				b.StartTimer()
			}
			b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(links), "B/link")
			b.ReportMetric(float64(after.HeapObjects-before.HeapObjects)/float64(links), "objects/link")
		})
	}
}

// observed is a page with the entry it was fetched for and its pushes.
type observed struct {
	page  *crawler.Page
	entry crawler.Entry
	push  []crawler.Entry
}

// memoryCrawl returns n pages with k links each, every link a new
// target pushed on each topic's stack, followed by the pages of every
// tenth link (fetched, no links of their own).
func memoryCrawl(topics []string, n, k int) []observed {
	words := strings.Fields("people faculty course lab robot vision news garden student home page research group paper talk seminar")
	scores := func(i int) map[string]float64 {
		s := map[string]float64{}
		for t, topic := range topics {
			s[topic] = float64((i+t)%5) / 4
		}
		return s
	}
	var out, fetched []observed
	for i := range n {
		e := crawler.Entry{Topic: topics[0], URL: urlnorm.MustParse(fmt.Sprintf("http://h.test/s%d/", i)), Depth: 1 + i%4}
		p := &crawler.Page{URL: e.URL, FinalURL: e.URL, Depth: e.Depth, Scores: scores(i)}
		var push []crawler.Entry
		for j := range k {
			u := urlnorm.MustParse(fmt.Sprintf("http://h.test/p%d/l%d.html", i, j))
			ctx := words[(i+j)%len(words)] + " " + words[(i*j)%len(words)] + fmt.Sprintf(" w%d of the %s", j%97, words[j%len(words)])
			p.Links = append(p.Links, crawler.Link{Target: u, Context: ctx, Anchor: words[(i+2*j)%len(words)], Scores: make([]float64, len(topics))})
			for _, topic := range topics {
				push = append(push, crawler.Entry{Topic: topic, URL: u, Depth: e.Depth + 1, Score: float64(j) / float64(k)})
			}
			if j%10 == 0 {
				te := crawler.Entry{Topic: topics[0], URL: u, Depth: e.Depth + 1}
				fetched = append(fetched, observed{page: &crawler.Page{URL: u, FinalURL: u, Depth: te.Depth, Scores: scores(i + j)}, entry: te})
			}
		}
		out = append(out, observed{page: p, entry: e, push: push})
	}
	return append(out, fetched...)
}

func TestLearner_resumedCrawlScoresAsTheStoppedOne(t *testing.T) {
	srv, _ := labWeb(t)
	path := filepath.Join(t.TempDir(), "crawl.db")
	run := func(budget int) *learn.Learner {
		l, _ := learn.New(labScorer.Topics(), learn.Options{})
		labCrawl(t, srv, path, crawler.Config{Workers: 4, Lockstep: true, MaxPages: budget, Learner: l})
		return l
	}
	stopped := run(50)
	if stopped.Model(0) == nil {
		t.Fatal("no link model after 50 pages")
	}
	resumed := run(50) // the same crawl: its budget is spent, the learner is restored
	probe := []crawler.LinkFeatures{
		{Source: urlnorm.MustParse(srv.URL + "/"), Target: urlnorm.MustParse(srv.URL + "/lab21/"), Tokens: strings.Fields("people of lab number 21"), Depth: 1, Base: []float64{0.1}, Page: []float64{0.1}},
		{Source: urlnorm.MustParse(srv.URL + "/lab21/"), Target: urlnorm.MustParse(srv.URL + "/lab21/p1.html"), Tokens: strings.Fields("page 1"), Depth: 2, Base: []float64{0.1}, Page: []float64{0.1}},
	}
	for _, lf := range probe {
		want, got := stopped.ScoreLink(&lf, nil), resumed.ScoreLink(&lf, nil)
		if math.Abs(want[0]-got[0]) > 1e-12 {
			t.Errorf("%s: resumed learner scores %v, the stopped one %v", lf.Target, got, want)
		}
	}
}

// TestCrawler_overlappedRoundsRepeatExactly: a learning crawl in
// lockstep whose rounds are fetched while the one before is committed
// (Config.Overlap) fetches the same pages in the same order however its
// fetches are timed.
func TestCrawler_overlappedRoundsRepeatExactly(t *testing.T) {
	srv, on := labWebJitter(t, true)
	crawl := func() (order []string, found int) {
		l, _ := learn.New(labScorer.Topics(), learn.Options{})
		cfg := crawler.Config{Workers: 8, Lockstep: true, Overlap: true, Learner: l}
		fs := labCrawl(t, srv, filepath.Join(t.TempDir(), "crawl.db"), cfg)
		for _, f := range fs {
			order = append(order, f.path)
		}
		return order, topicPages(fs, on)
	}
	first, found := crawl()
	if found == 0 {
		t.Fatalf("the crawl found no topic page in %d fetches", len(first))
	}
	for range 2 {
		again, _ := crawl()
		if strings.Join(again, " ") != strings.Join(first, " ") {
			t.Fatalf("the crawl fetched\n%v\nthen\n%v", first, again)
		}
	}
}

// TestCrawler_guessedRoundsAsPlainLockstep: a learning crawl in lockstep
// that guesses each round and fetches the guess while the round before
// is committed (Config.Speculate) fetches and commits the same pages in
// the same order as one that does not, however its fetches are timed,
// on each store; most of its fetches were guessed, and with a budget
// that ends the crawl mid-round too.
func TestCrawler_guessedRoundsAsPlainLockstep(t *testing.T) {
	srv, on := labWebJitter(t, true)
	for _, ls := range labStores {
		t.Run(ls.name, func(t *testing.T) {
			crawl := func(speculate bool, budget int) ([]string, crawler.Summary) {
				l, _ := learn.New(labScorer.Topics(), learn.Options{})
				cfg := crawler.Config{Workers: 8, Lockstep: true, Speculate: speculate, MaxPages: budget, Learner: l}
				st, _, _ := ls.open(t)
				fs, sum := labCrawlStore(t, srv, st, cfg)
				var order []string
				for _, f := range fs {
					order = append(order, f.path)
				}
				if budget == 0 && topicPages(fs, on) == 0 {
					t.Fatalf("the crawl found no topic page in %d fetches", len(fs))
				}
				return order, sum
			}
			for _, budget := range []int{0, 37} {
				want, _ := crawl(false, budget)
				for range 2 {
					got, sum := crawl(true, budget)
					if strings.Join(got, " ") != strings.Join(want, " ") {
						t.Fatalf("budget %d: guessing, the crawl fetched\n%v\nwithout\n%v", budget, got, want)
					}
					t.Logf("budget %d: %d of %d fetches guessed (%d discarded)", budget, sum.Guessed, len(got), sum.Discarded)
					if sum.Guessed < len(got)/2 || sum.Guessed > len(got) {
						t.Errorf("budget %d: %d of %d fetches guessed (%d discarded), want at least half", budget, sum.Guessed, len(got), sum.Discarded)
					}
				}
			}
		})
	}

	// A discarded guess's answers are kept for the fetch that later takes
	// its entry: the server is asked for each path as often as without
	// guessing.
	asks := func(speculate bool) (map[string]int64, crawler.Summary) {
		var asked sync.Map
		srv, _ := labWebCounting(t, false, &asked)
		l, _ := learn.New(labScorer.Topics(), learn.Options{})
		cfg := crawler.Config{Workers: 8, Lockstep: true, Speculate: speculate, Learner: l}
		_, sum := labCrawlSummary(t, srv, filepath.Join(t.TempDir(), "crawl.db"), cfg)
		out := make(map[string]int64)
		asked.Range(func(k, v any) bool {
			out[k.(string)] = v.(*atomic.Int64).Load()
			return true
		})
		return out, sum
	}
	plain, _ := asks(false)
	guessed, sum := asks(true)
	if sum.Discarded == 0 {
		t.Logf("no guess was discarded: the kept answers are not exercised")
	}
	for path, n := range guessed {
		if n > plain[path] {
			t.Errorf("%s asked %d times guessing, %d without (%d guesses discarded)", path, n, plain[path], sum.Discarded)
		}
	}
}

// countingLearner counts the moves its Learner's rescores return.
type countingLearner struct {
	*learn.Learner
	moves int
}

func (c *countingLearner) Rescore() []crawler.Entry {
	out := c.Learner.Rescore()
	c.moves += len(out)
	return out
}

// stopCount counts the pops of a store that stopped at a floor.
type stopCount int

func (c *stopCount) count(taken, next []crawler.Entry, stopped bool, err error) ([]crawler.Entry, []crawler.Entry, bool, error) {
	if stopped {
		*c++
	}
	return taken, next, stopped, err
}

// sqliteCounting and pgCounting are their stores, with every optional
// interface of them, that count the pops stopped at a floor.
type sqliteCounting struct {
	*sqlite.Store
	stops stopCount
}

func (s *sqliteCounting) PopFloor(ctx context.Context, crawl int64, topic string, order crawler.Order, n, maxPerHost, peek int, floor float64) ([]crawler.Entry, []crawler.Entry, bool, error) {
	return s.stops.count(s.Store.PopFloor(ctx, crawl, topic, order, n, maxPerHost, peek, floor))
}

type pgCounting struct {
	*postgres.Store
	stops stopCount
}

func (s *pgCounting) PopFloor(ctx context.Context, crawl int64, topic string, order crawler.Order, n, maxPerHost, peek int, floor float64) ([]crawler.Entry, []crawler.Entry, bool, error) {
	return s.stops.count(s.Store.PopFloor(ctx, crawl, topic, order, n, maxPerHost, peek, floor))
}

// labStore is a store of a lab web crawl: a new, empty one (counting
// its pops stopped at a floor), the entries left waiting on its frontier
// with their values (of URLs still waiting: an entry of a URL fetched
// through another stack is never popped; its value is not written once
// the URL is), in URL order, and the count of its stopped pops.
type labStore struct {
	name string
	open func(t *testing.T) (st pageStore, left func() string, stops *stopCount)
}

// labStores are the stores the lab web's crawls run on: SQLite and a
// PostgreSQL server (pgtest; skipped where it is not installed).
var labStores = []labStore{
	{"sqlite", func(t *testing.T) (pageStore, func() string, *stopCount) {
		st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "crawl.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		c := &sqliteCounting{Store: st}
		return c, func() string {
			var left string
			err := st.DB().QueryRow(`SELECT COALESCE(group_concat(url || ' ' || score, ' | '), '')
				FROM (SELECT u.url, f.score FROM frontier f JOIN urls u ON u.id = f.url_id WHERE u.state = 0 ORDER BY u.url)`).Scan(&left)
			if err != nil {
				t.Fatal(err)
			}
			return left
		}, &c.stops
	}},
	{"postgres", func(t *testing.T) (pageStore, func() string, *stopCount) {
		st, err := postgres.Open(context.Background(), pgtest.URL(t), postgres.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		c := &pgCounting{Store: st}
		return c, func() string {
			var left string
			err := st.Pool().QueryRow(context.Background(), `SELECT COALESCE(string_agg(u.url || ' ' || f.score, ' | ' ORDER BY u.url), '')
				FROM frontier f JOIN urls u ON u.id = f.url_id WHERE u.state = 0`).Scan(&left)
			if err != nil {
				t.Fatal(err)
			}
			return left
		}, &c.stops
	}},
}

// TestCrawler_deferredMovesAsEager: a learner that defers the moves the
// next pops do not need (here all but each topic's 2 best waiting
// links) makes the crawl that writing every move at once makes, on a
// jittered web with redirects, guessing its rounds or not, on each
// store, and writes fewer moves with its rescores; the store's pops
// stop at the floor (crawler.FloorPopper).
func TestCrawler_deferredMovesAsEager(t *testing.T) {
	srv, _ := labWebJitter(t, true)
	for _, ls := range labStores {
		t.Run(ls.name, func(t *testing.T) {
			// crawl returns the fetches in order, the moves written by
			// the rescores, the frontier left and the pops that stopped
			// at the floor.
			crawl := func(opts learn.Options, speculate bool, budget int) ([]string, int, string, int) {
				l, err := learn.New(labScorer.Topics(), opts)
				if err != nil {
					t.Fatal(err)
				}
				cl := &countingLearner{Learner: l}
				cfg := crawler.Config{Workers: 4, Lockstep: true, Speculate: speculate, MaxPages: budget, Learner: cl}
				st, left, stops := ls.open(t)
				fs, _ := labCrawlStore(t, srv, st, cfg)
				var order []string
				for _, f := range fs {
					order = append(order, f.path)
				}
				return order, cl.moves, left(), int(*stops)
			}
			lazy := learn.Options{KeepWritten: 2, MinBatch: 4}
			eager := lazy
			eager.Eager = true
			for _, speculate := range []bool{false, true} {
				want, all, _, _ := crawl(eager, speculate, 0)
				got, written, _, stops := crawl(lazy, speculate, 0)
				if strings.Join(got, " ") != strings.Join(want, " ") {
					t.Fatalf("speculate %v: deferring moves, the crawl fetched\n%v\nwriting them at once\n%v", speculate, got, want)
				}
				t.Logf("speculate %v: %d fetches; rescores wrote %d moves at once, %d deferring; %d pops stopped at the floor",
					speculate, len(got), all, written, stops)
				if written >= all {
					t.Errorf("speculate %v: the rescores wrote %d moves deferring, %d at once: nothing was deferred", speculate, written, all)
				}
				if stops == 0 {
					t.Errorf("speculate %v: no pop stopped at the floor: the floor was not exercised", speculate)
				}
			}
			// A crawl that ends with links waiting writes its deferred
			// moves: the frontier it leaves is the one writing every
			// move at once leaves.
			_, _, want, _ := crawl(eager, true, 30)
			_, _, got, _ := crawl(lazy, true, 30)
			if got != want || want == "" {
				t.Errorf("the frontier left deferring moves:\n%s\nwriting them at once:\n%s", got, want)
			}
		})
	}
}

// TestFeatures_anchor: a link's anchor words are features of their own
// beside its context's words.
func TestFeatures_anchor(t *testing.T) {
	lf := &crawler.LinkFeatures{
		Source: urlnorm.MustParse("http://a.test/"), Target: urlnorm.MustParse("http://a.test/people/faculty.html"),
		Tokens: strings.Fields("staff faculty students"), Anchor: []string{"faculty"}, Depth: 1,
		Base: []float64{0.3}, Page: []float64{0.1},
	}
	got := learn.Features(nil, lf, 0, 0.5)
	has := func(f string) bool {
		for _, g := range got {
			if g == f {
				return true
			}
		}
		return false
	}
	for _, want := range []string{"staff", "faculty", "students", "anchor:faculty", "url:people", "url:faculty", "link:same-host", "depth:1", "base:1", "source:not-relevant"} {
		if !has(want) {
			t.Errorf("features %v lack %s", got, want)
		}
	}
	if has("anchor:staff") || has("anchor:students") {
		t.Errorf("features %v make context words anchor words", got)
	}
}

// FuzzLearner_RestoreState: a saved state read back from a damaged
// store is refused with an error, or restores a learner that scores,
// learns and rescores without a panic.
func FuzzLearner_RestoreState(f *testing.F) {
	l := stateLearner()
	state, err := l.MarshalState()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(state)
	settled(l)
	withMemory, err := l.MarshalMemory()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(withMemory)
	f.Add([]byte(`{"format":"scent-learner/1","topics":["robots"],"counts":[null],"models":[null]}`))
	f.Add(bytes.Replace(state, []byte(`"leads-next"`), []byte(`"other"`), 1))
	f.Add(bytes.Replace(state, []byte(`"docs":[`), []byte(`"docs":[-`), 1))
	f.Fuzz(func(t *testing.T, data []byte) {
		back, _ := learn.New([]string{"robots"}, learn.Options{MinDocs: 1, MinBatch: 1})
		if err := back.RestoreState(data); err != nil {
			return
		}
		lf := crawler.LinkFeatures{Source: urlnorm.MustParse("http://h.test/"), Target: urlnorm.MustParse("http://h.test/people/x.html"),
			Tokens: []string{"people", "x"}, Depth: 1, Base: []float64{0.1}, Page: []float64{0.1}}
		for _, v := range back.ScoreLink(&lf, nil) {
			if math.IsNaN(v) || v < 0 || v > 1 {
				t.Errorf("restored learner values a link %v", v)
			}
		}
		observe(back, entry("/", 0), false, map[string]string{"/people/": "people of the lab", "/news/": "news"})
		observe(back, entry("/people/", 1), true, map[string]string{"/people/b.html": "bob"})
		back.Rescore()
		if _, err := back.MarshalState(); err != nil {
			t.Errorf("restored state does not save again: %v", err)
		}
		settled(back)
		if _, err := back.MarshalMemory(); err != nil {
			t.Errorf("restored memory does not save again: %v", err)
		}
	})
}

// labHistory feeds l the first pages of a crawl of a small site: a home
// page with people and news lists, a people list with robot pages, a
// news list whose link redirects to one the home page links to.
func labHistory(l *learn.Learner) {
	observe(l, entry("/", 0), false, map[string]string{"/people/": "people of the lab", "/news/": "news of the lab",
		"/people2/": "people of the other lab", "/news2/": "news of the other lab", "/about/": "about the lab"})
	observe(l, entry("/people/", 1), false, map[string]string{"/people/a.html": "alice", "/people/b.html": "bob"})
	observe(l, entry("/people/a.html", 2), true, nil)
	// /news/ answers with /about/'s page (a redirect): /about/, linked
	// from the home page, keeps its own record.
	p := &crawler.Page{URL: urlnorm.MustParse("http://h.test/news/"), FinalURL: urlnorm.MustParse("http://h.test/about/"), Depth: 1,
		Scores: map[string]float64{"robots": 0.1}}
	l.Observe(p, entry("/news/", 1), nil)
}

// settled writes (drops) every deferred move of l, as a crawl does when
// it ends.
func settled(l *learn.Learner) {
	for _, topic := range []string{"robots"} {
		l.Deferred(topic)
	}
}

// sortedMoves returns moves as sorted "url=score" strings.
func sortedMoves(moves []crawler.Entry) []string {
	var out []string
	for _, m := range moves {
		out = append(out, fmt.Sprintf("%s=%.12f", m.URL, m.Score))
	}
	slices.Sort(out)
	return out
}

// TestLearner_memory: a learner restored from the state it saves with
// its memory (at a crawl's end) learns from the pages of the links it
// remembered and rescores them as the one that saved it; restored from
// the periodic state alone it does neither.
func TestLearner_memory(t *testing.T) {
	opts := learn.Options{MinDocs: 1, MinBatch: 1}
	l, _ := learn.New([]string{"robots"}, opts)
	labHistory(l)
	l.Rescore()
	settled(l)
	full, err := l.MarshalMemory()
	if err != nil {
		t.Fatal(err)
	}
	light, err := l.MarshalState()
	if err != nil {
		t.Fatal(err)
	}
	back, _ := learn.New([]string{"robots"}, opts)
	if err := back.RestoreState(full); err != nil {
		t.Fatal(err)
	}
	forgot, _ := learn.New([]string{"robots"}, opts)
	if err := forgot.RestoreState(light); err != nil {
		t.Fatal(err)
	}
	later := func(l *learn.Learner) []string {
		observe(l, entry("/people2/", 1), false, map[string]string{"/people2/c.html": "carol"})
		observe(l, entry("/people2/c.html", 2), true, nil)
		observe(l, entry("/news2/", 1), false, map[string]string{"/news2/n.html": "flowers"})
		return sortedMoves(l.Rescore())
	}
	want, got, gotForgot := later(l), later(back), later(forgot)
	if len(want) == 0 {
		t.Fatal("no move after the later pages")
	}
	if !slices.Equal(got, want) {
		t.Errorf("restored with memory, the rescore moves\n%v\nwant\n%v", got, want)
	}
	if slices.Equal(gotForgot, want) {
		t.Errorf("restored without memory, the rescore moves as with it: %v (the test cannot tell)", want)
	}
	for _, c := range []*learn.Learner{l, back} {
		if c.Counts(0).Docs(0)+c.Counts(0).Docs(1)+c.Counts(0).Docs(2) != l.Counts(0).Docs(0)+l.Counts(0).Docs(1)+l.Counts(0).Docs(2) {
			t.Errorf("restored learner counted other evidence")
		}
	}
	again, err := back.MarshalMemory()
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := l.MarshalMemory(); !bytes.Equal(again, want) {
		t.Error("the restored learner's memory differs from the saver's after the same pages")
	}
}

// TestCrawler_resumedLearnerRemembersWaitingLinks: a learning crawl
// stopped by its budget and resumed with a larger one finds about as
// many topic pages as the crawl that never stopped (not always exactly
// as many: the budget cut the stopped crawl's last round short): the
// learner saved what it remembered of the waiting links when the crawl
// ended, so it learns from their pages and rescores them after the
// resume. Without the memory the resumed crawls found 8 to 10 of 24.
func TestCrawler_resumedLearnerRemembersWaitingLinks(t *testing.T) {
	srv, on := labWeb(t)
	const budget = 60
	crawl := func(path string, budgets ...int) int {
		var fs []fetched
		for _, b := range budgets {
			l, _ := learn.New(labScorer.Topics(), learn.Options{})
			fs = labCrawl(t, srv, path, crawler.Config{Workers: 4, Lockstep: true, MaxPages: b, Learner: l})
		}
		return topicPages(fs, on)
	}
	whole := crawl(filepath.Join(t.TempDir(), "crawl.db"), budget)
	for _, stop := range []int{10, 20, 30} {
		got := crawl(filepath.Join(t.TempDir(), "crawl.db"), stop, budget)
		t.Logf("stopped at %d pages and resumed: %d topic pages in %d (the crawl that never stopped: %d)", stop, got, budget, whole)
		if got < whole-2 {
			t.Errorf("stopped at %d pages and resumed: %d topic pages in %d, the crawl that never stopped %d", stop, got, budget, whole)
		}
	}
}

// TestExplainState: what the learner of a crawl of the lab web learnt, as
// its saved state tells it: "people" in an anchor leads on to robot pages
// (the people lists), and a link of a people list leads to them.
func TestExplainState(t *testing.T) {
	srv, _ := labWeb(t)
	l, err := learn.New(labScorer.Topics(), learn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "crawl.db")
	labCrawl(t, srv, path, crawler.Config{Workers: 4, Lockstep: true, MaxPages: 60, Learner: l})
	st, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	state, err := st.LearnerState(context.Background(), 1)
	if err != nil || state == nil {
		t.Fatalf("learner state: %d bytes, %v", len(state), err)
	}
	e, err := learn.ExplainState(state, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Topics) != 1 || e.Seen < 60 || e.Built == 0 {
		t.Fatalf("explanation %+v: want one topic, 60 pages or more seen, models built", e)
	}
	rt := e.Topics[0]
	if rt.Topic != "robots" || !rt.Model || rt.Leads == 0 || rt.LeadsOn == 0 || rt.Nowhere == 0 {
		t.Fatalf("topic %+v: want robots with a model of links of each kind", rt)
	}
	has := func(fs []learn.FeatureShares, name string) bool {
		return slices.ContainsFunc(fs, func(f learn.FeatureShares) bool { return f.Feature == name })
	}
	if !has(rt.ToNext, "anchor:people") {
		t.Errorf("lead on: %+v, want anchor:people among them", rt.ToNext)
	}
	for _, f := range rt.ToNext {
		if !(f.LeadsOn > f.Nowhere) {
			t.Errorf("lead on: %+v is not more common among the links that led on", f)
		}
	}
	for _, f := range rt.ToNowhere {
		if !(f.Nowhere > f.Leads && f.Nowhere > f.LeadsOn) {
			t.Errorf("lead nowhere: %+v is not more common among the links that led nowhere", f)
		}
	}
	if has(rt.ToTopic, "anchor:people") || has(rt.ToNowhere, "anchor:people") {
		t.Errorf("anchor:people also among the features of other kinds: %+v, %+v", rt.ToTopic, rt.ToNowhere)
	}
	if _, err := learn.ExplainState([]byte(`{"format":"other"}`), 5); err == nil {
		t.Error("a state of another format explained")
	}
}

// FuzzExplainState: any bytes give an explanation or an error, never a
// panic, and an explanation's shares are probabilities.
func FuzzExplainState(f *testing.F) {
	l := stateLearner()
	state, err := l.MarshalState()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(state, 3)
	settled(l)
	withMemory, err := l.MarshalMemory()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(withMemory, 1)
	f.Add([]byte(`{"format":"scent-learner/1","topics":["robots"],"counts":[null],"models":[null]}`), 5)
	f.Add(bytes.Replace(state, []byte(`"leads-next"`), []byte(`"other"`), 1), 2)
	f.Fuzz(func(t *testing.T, data []byte, k int) {
		e, err := learn.ExplainState(data, k%50)
		if err != nil {
			return
		}
		for _, te := range e.Topics {
			for _, fs := range [][]learn.FeatureShares{te.ToTopic, te.ToNext, te.ToNowhere} {
				for _, s := range fs {
					for _, v := range []float64{s.Leads, s.LeadsOn, s.Nowhere} {
						if !(v > 0 && v < 1) {
							t.Errorf("%s: share %v", s.Feature, v)
						}
					}
				}
			}
		}
	})
}
