package crawler_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/crawler/crawlertest"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/sitenorm"
	"github.com/scent-crawler/scent/sqlite"
	"github.com/scent-crawler/scent/urlnorm"
)

// normSite serves pages by path; with fold set (it may change during the
// crawl) it looks paths up case-insensitively, as some servers do.
type normSite struct {
	srv   *httptest.Server
	mu    sync.Mutex
	pages map[string]string
	fold  bool
	hits  map[string]int
}

func newNormSite(t *testing.T, fold bool, pages map[string]string) *normSite {
	s := &normSite{pages: pages, fold: fold, hits: make(map[string]int)}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		fold := s.fold
		s.mu.Unlock()
		body, ok := s.pages[r.URL.Path]
		if !ok && fold {
			for p, b := range s.pages {
				if strings.EqualFold(p, r.URL.Path) {
					body, ok = b, true
				}
			}
		}
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *normSite) setFold(v bool) {
	s.mu.Lock()
	s.fold = v
	s.mu.Unlock()
}

func (s *normSite) url(p string) urlnorm.URL { return urlnorm.MustParse(s.srv.URL + p) }

// page is an HTML page with distinct words and links to paths.
func page(name string, links ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<html><body><p>This is the page %s, with its own words about %s and nothing else at all.</p>", name, name)
	for _, l := range links {
		fmt.Fprintf(&b, `<a href="%s">%s</a> `, l, l)
	}
	return b.String() + "</body></html>"
}

func crawlNorm(t *testing.T, s *normSite, policy sitenorm.Policy) (*sqlite.Store, *sitenorm.Rules) {
	t.Helper()
	st := openStore(t)
	rules := sitenorm.NewRules(policy)
	c, err := crawler.New(crawler.Config{Strategy: crawler.StrategyBFS, Workers: 1, SiteNorm: rules}, st, crawlertest.NewFetcher(t, fetch.Config{}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Run(context.Background(), []urlnorm.URL{s.url("/")}, "{}"); err != nil {
		t.Fatal(err)
	}
	return st, rules
}

func ruleOf(t *testing.T, st *sqlite.Store, ext urlnorm.Extension) sitenorm.Rule {
	t.Helper()
	rules, err := st.NormRules(context.Background(), "default")
	if err != nil {
		t.Fatal(err)
	}
	for _, ru := range rules {
		if ru.Ext == ext {
			return ru
		}
	}
	t.Fatalf("no stored rule for %s in %+v", ext, rules)
	return sitenorm.Rule{}
}

// caseSite links three upper-case pages first, then a page linked under
// two spellings.
var casePages = map[string]string{
	"/":                 page("home", "/People/Ann.html", "/People/Bob.html", "/Courses/CS1.html", "/more"),
	"/People/Ann.html":  page("ann"),
	"/People/Bob.html":  page("bob"),
	"/Courses/CS1.html": page("cs1"),
	"/more":             page("more", "/Projects/X.html", "/projects/x.html"),
	"/Projects/X.html":  page("x"),
}

func TestCrawler_Run_siteNormAdoptsLowerCaseOnACaseInsensitiveServer(t *testing.T) {
	s := newNormSite(t, true, casePages)
	st, rules := crawlNorm(t, s, sitenorm.Policy{Sample: 3, MaxShare: 10, Extensions: []urlnorm.Extension{urlnorm.EN1LowerPath}})
	if ru := ruleOf(t, st, urlnorm.EN1LowerPath); ru.State != sitenorm.Adopted || ru.Counts.NonLoss != 3 {
		t.Fatalf("EN1: %+v, want adopted after 3 non-losses", ru)
	}
	if got := rules.Canonical(s.url("/Projects/X.html")); got != s.url("/projects/x.html") {
		t.Errorf("canonical form %s", got)
	}
	// The page linked under two spellings is fetched once, in canonical form.
	if n := s.hits["/Projects/X.html"] + s.hits["/projects/x.html"]; n != 1 {
		t.Errorf("the page linked twice was requested %d times", n)
	}
	var n int
	err := st.EachLink(context.Background(), 1, func(l *crawler.PageLink) error {
		if l.Target == s.url("/Projects/X.html") {
			n++
		}
		return nil
	})
	if err != nil || n != 1 {
		t.Errorf("the link keeps its original URL: %d rows", n)
	}
}

func TestCrawler_Run_siteNormRejectsLowerCaseOnACaseSensitiveServer(t *testing.T) {
	s := newNormSite(t, false, casePages)
	st, rules := crawlNorm(t, s, sitenorm.Policy{Sample: 3, MaxShare: 10, Extensions: []urlnorm.Extension{urlnorm.EN1LowerPath}})
	ru := ruleOf(t, st, urlnorm.EN1LowerPath)
	// Rejected at the first loss; a page already on its way to the
	// worker when that loss came back may be measured too.
	if ru.State != sitenorm.Rejected || ru.Counts.Loss < 1 || ru.Counts.Loss > 2 || ru.Counts.NonLoss != 0 {
		t.Fatalf("EN1: %+v, want rejected at the first loss", ru)
	}
	if got := rules.Canonical(s.url("/Projects/X.html")); got != s.url("/Projects/X.html") {
		t.Errorf("canonical form %s", got)
	}
	if s.hits["/Projects/X.html"] != 1 {
		t.Error("a page of the case-sensitive server was not fetched")
	}
	// Sampling stopped with the decision: one measurement request.
	if n := s.hits["/people/ann.html"] + s.hits["/people/bob.html"] + s.hits["/courses/cs1.html"]; n != 1 {
		t.Errorf("%d measurement requests, want 1", n)
	}
}

func TestCrawler_Run_siteNormRejectsIndexWhenTheDirectoryDiffers(t *testing.T) {
	for _, tc := range []struct {
		doc string
		ext urlnorm.Extension
	}{{"index.htm", urlnorm.EN4IndexHTM}, {"index.html", urlnorm.EN5IndexHTML}} {
		s := newNormSite(t, false, map[string]string{
			"/":            page("home", "/a/"+tc.doc, "/b/"+tc.doc, "/c/"+tc.doc),
			"/a/" + tc.doc: page("a"), "/a/": page("listing of a"),
			"/b/" + tc.doc: page("b"), "/b/": page("listing of b"),
			"/c/" + tc.doc: page("c"), "/c/": page("listing of c"),
		})
		st, rules := crawlNorm(t, s, sitenorm.Policy{Sample: 3, MaxShare: 10, Extensions: []urlnorm.Extension{tc.ext}})
		if ru := ruleOf(t, st, tc.ext); ru.State != sitenorm.Rejected || ru.Counts.Loss+ru.Counts.Change == 0 {
			t.Errorf("%s: %+v, want rejected after a loss or a change", tc.ext, ru)
		}
		if got := rules.Canonical(s.url("/a/" + tc.doc)); got != s.url("/a/"+tc.doc) {
			t.Errorf("%s: canonical form %s", tc.ext, got)
		}
	}
}

func TestCrawler_Run_siteNormAdoptsIndexWhenTheDirectoryIsTheSame(t *testing.T) {
	// /more, fetched once the rule is adopted, links /d/ under two forms.
	pages := map[string]string{
		"/":     page("home", "/a/index.html", "/b/index.html", "/c/index.html", "/more"),
		"/more": page("more", "/d/index.html", "/d/"),
	}
	for _, d := range []string{"a", "b", "c", "d"} {
		pages["/"+d+"/index.html"] = page(d)
		pages["/"+d+"/"] = page(d)
	}
	s := newNormSite(t, false, pages)
	st, _ := crawlNorm(t, s, sitenorm.Policy{Sample: 3, MaxShare: 10, Extensions: []urlnorm.Extension{urlnorm.EN5IndexHTML}})
	if ru := ruleOf(t, st, urlnorm.EN5IndexHTML); ru.State != sitenorm.Adopted {
		t.Fatalf("EN5: %+v, want adopted", ru)
	}
	var n int
	st.DB().QueryRow(`SELECT COUNT(*) FROM pages WHERE (SELECT url FROM urls WHERE id = url_id) LIKE ? AND failure = ''`, s.srv.URL+"/d/%").Scan(&n)
	if n != 1 {
		t.Errorf("/d/ stored as %d pages, want 1", n)
	}
}

func TestCrawler_Run_siteNormDropsARuleWhenTheHostChanges(t *testing.T) {
	s := newNormSite(t, true, map[string]string{
		"/":       page("home", "/A.html", "/B.html", "/C.html", "/D.html"),
		"/A.html": page("a"),
		"/B.html": page("b"),
		"/C.html": page("c"),
		"/D.html": page("d", "/E.html", "/F.html", "/G.html"),
		"/E.html": page("e", "/H.html"),
		"/F.html": page("f", "/H.html"),
		"/G.html": page("g", "/H.html"),
		"/H.html": page("h", "/I.html"),
		"/I.html": page("i"),
	})
	st := openStore(t)
	rules := sitenorm.NewRules(sitenorm.Policy{Sample: 3, MaxShare: 10, VerifyEvery: 1, Extensions: []urlnorm.Extension{urlnorm.EN1LowerPath}})
	// The server stops folding case once /D.html has been served.
	f := crawlertest.NewFetcher(t, fetch.Config{})
	c, err := crawler.New(crawler.Config{Strategy: crawler.StrategyBFS, Workers: 1, SiteNorm: rules}, st, &flipFetcher{f: f, at: "/D.html", flip: func() { s.setFold(false) }}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Run(context.Background(), []urlnorm.URL{s.url("/")}, "{}"); err != nil {
		t.Fatal(err)
	}
	if ru := ruleOf(t, st, urlnorm.EN1LowerPath); ru.State != sitenorm.Dropped {
		t.Fatalf("EN1: %+v, want dropped after the host changed", ru)
	}
	if got := rules.Canonical(s.url("/I.html")); got != s.url("/I.html") {
		t.Errorf("canonical form after the drop %s", got)
	}
}

// flipFetcher is a real fetcher that calls flip once a path was fetched.
type flipFetcher struct {
	f    *fetch.Fetcher
	at   string
	flip func()
	once sync.Once
}

func (ff *flipFetcher) Fetch(ctx context.Context, u urlnorm.URL, h http.Header) (*fetch.Result, error) {
	res, err := ff.f.Fetch(ctx, u, h)
	if strings.EqualFold(u.Path(), ff.at) {
		ff.once.Do(ff.flip)
	}
	return res, err
}

func TestCrawler_Run_siteNormRewritesWaitingURLs(t *testing.T) {
	// The seed links to /X.html and /x.html among pages sampled for EN1
	// on a case-insensitive server: both wait before the rule is adopted
	// (after 3 non-losses; with one worker and /D–/F between, the rule
	// is published before /X.html is taken). The first taken is fetched
	// in canonical form, the second is then taken already: one request
	// for the page.
	pages := map[string]string{
		"/":       page("home", "/A.html", "/B.html", "/C.html", "/D.html", "/E.html", "/F.html", "/X.html", "/x.html"),
		"/A.html": page("a"), "/B.html": page("b"), "/C.html": page("c"), "/D.html": page("d"), "/E.html": page("e"), "/F.html": page("f"),
		"/X.html": page("x"),
	}
	s := newNormSite(t, true, pages)
	st, _ := crawlNorm(t, s, sitenorm.Policy{Sample: 3, MaxShare: 10, Extensions: []urlnorm.Extension{urlnorm.EN1LowerPath}})
	if ru := ruleOf(t, st, urlnorm.EN1LowerPath); ru.State != sitenorm.Adopted {
		t.Fatalf("EN1: %+v, want adopted", ru)
	}
	if n := s.hits["/X.html"] + s.hits["/x.html"]; n != 1 {
		t.Errorf("the page that waited under two spellings was requested %d times (/X.html %d, /x.html %d)", n, s.hits["/X.html"], s.hits["/x.html"])
	}
	var stored int
	st.DB().QueryRow(`SELECT COUNT(*) FROM pages WHERE lower((SELECT url FROM urls WHERE id = url_id)) LIKE '%/x.html' AND failure = ''`).Scan(&stored)
	if stored != 1 {
		t.Errorf("%d pages stored for it, want 1", stored)
	}
}
