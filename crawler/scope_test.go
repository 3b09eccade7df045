package crawler_test

import (
	"context"
	"maps"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/crawler/crawlertest"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/scope"
	"github.com/scent-crawler/scent/urlnorm"
)

// scopeSite: a site whose calendar never ends, reached by a link, a
// redirect and the sitemap.
func scopeSite(t *testing.T) *crawlertest.Site {
	return crawlertest.NewSite(t, map[string]string{
		"/": `<html><body><a href="/courses/">courses</a> <a href="/calendar/2026/11/">calendar</a>
			<a href="/today">today</a> <a href="/news">news</a></body></html>`,
		"/courses/":            `<html><body>course list: <a href="/courses/db.html">databases</a></body></html>`,
		"/courses/db.html":     `<html><body>Course on databases: syllabus and homework.</body></html>`,
		"/news":                `<html><body>Nothing new.</body></html>`,
		"/calendar/2026/11/":   `<html><body><a href="/calendar/2026/12/">next month</a></body></html>`,
		"/calendar/2026/12/":   `<html><body><a href="/calendar/2027/01/">next month</a></body></html>`,
		"/calendar/2026/11/28": `<html><body>Today.</body></html>`,
		"/calendar/2027/02/":   `<html><body>Listed in the sitemap.</body></html>`,
	}, map[string]http.HandlerFunc{
		"/today": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/calendar/2026/11/28", http.StatusFound)
		},
		"/sitemap.xml": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/xml")
			w.Write([]byte(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://` + r.Host + `/calendar/2027/02/</loc></url></urlset>`))
		},
	})
}

func scopeRules(t *testing.T, c scope.Config) func(urlnorm.URL) error {
	t.Helper()
	r, err := scope.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return r.Check
}

// runScoped runs a crawl of cfg into st from site's home page, with
// fetches of fc, and returns its summary.
func runScoped(t *testing.T, st crawler.Store, cfg crawler.Config, fc fetch.Config, scorer crawler.Scorer, site *crawlertest.Site) crawler.Summary {
	t.Helper()
	c, err := crawler.New(cfg, st, crawlertest.NewFetcher(t, fc), scorer)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := c.Run(context.Background(), []urlnorm.URL{site.URL("/")}, "{}")
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// TestCrawler_Run_scope: a URL out of Config.Scope is not requested,
// whether a link, a redirect or a sitemap leads to it; the redirect is
// recorded as such. Breadth-first and focused crawls alike.
func TestCrawler_Run_scope(t *testing.T) {
	scorer := crawlertest.NewKeywordScorer(map[string][]string{"course": {"course", "courses", "calendar", "month"}}, "course")
	for _, strategy := range []crawler.Strategy{crawler.StrategyBFS, crawler.StrategyLink} {
		s := scopeSite(t)
		st := openStore(t)
		cfg := crawler.Config{Strategy: strategy, Workers: 2, Sitemaps: true, Tunnel: true,
			Scope: scopeRules(t, scope.Config{ExcludeURLs: []string{"/calendar/"}})}
		runScoped(t, st, cfg, fetch.Config{}, scorer, s)
		for p, n := range s.Paths() {
			if strings.HasPrefix(p, "/calendar/") {
				t.Errorf("%s: %s requested %d times, out of scope", strategy, p, n)
			}
		}
		if s.Hits("/courses/db.html") != 1 {
			t.Errorf("%s: the course page in scope was not fetched: %v", strategy, s.Paths())
		}
		for _, p := range pages(t, st) {
			if strings.HasSuffix(p.url, "/today") && !strings.HasPrefix(p.fail, "redirect: to ") {
				t.Errorf("%s: /today recorded as %q, want the redirect it is", strategy, p.fail)
			}
		}
	}
}

// TestCrawler_Run_scopeNarrowedOnResume: URLs left waiting by a run
// without a scope are recorded as failed pages ("scope: …"), not
// requested, when the crawl resumes with one that leaves them out.
func TestCrawler_Run_scopeNarrowedOnResume(t *testing.T) {
	s := scopeSite(t)
	st := openStore(t)
	run := func(cfg crawler.Config) {
		t.Helper()
		cfg.Strategy, cfg.Workers, cfg.Lockstep = crawler.StrategyBFS, 1, true
		runScoped(t, st, cfg, fetch.Config{}, nil, s)
	}
	run(crawler.Config{MaxPages: 1}) // fetches "/", its four links wait
	run(crawler.Config{Scope: scopeRules(t, scope.Config{ExcludeURLs: []string{"/calendar/"}})})
	if n := s.Hits("/calendar/2026/11/"); n != 0 {
		t.Errorf("a waiting URL out of the resumed crawl's scope was requested %d times", n)
	}
	var fail string
	for _, p := range pages(t, st) {
		if strings.HasSuffix(p.url, "/calendar/2026/11/") {
			fail = p.fail
		}
	}
	if want := `scope: the URL matches the excluded pattern "/calendar/"`; fail != want {
		t.Errorf("the waiting calendar URL recorded as %q, want %q", fail, want)
	}
}

// TestCrawler_Run_seedOutOfScope: a seed is fetched whatever the scope,
// and the scope bounds the links followed from it: the crawl keeps to
// /courses/ from a home page that is not there.
func TestCrawler_Run_seedOutOfScope(t *testing.T) {
	s := scopeSite(t)
	cfg := crawler.Config{Strategy: crawler.StrategyBFS, Workers: 1, Sitemaps: true,
		Scope: scopeRules(t, scope.Config{IncludeURLs: []string{`^http://[^/]+/courses/`}})}
	runScoped(t, openStore(t), cfg, fetch.Config{}, nil, s)
	got := s.Paths()
	delete(got, "/robots.txt")
	delete(got, "/sitemap.xml")
	if want := map[string]int{"/": 1, "/courses/": 1, "/courses/db.html": 1}; !maps.Equal(got, want) {
		t.Errorf("requested %v, want %v: the seed and the links into the scope", got, want)
	}
}

// TestCrawler_Run_sitemapsOutOfScope: a sitemap on another site that the
// scope leaves out is not requested, whether the site's robots.txt names
// it, its sitemap index lists it or its /sitemap.xml redirects to it; it
// is recorded with why ("scope: …"). The site's own sitemaps are read.
func TestCrawler_Run_sitemapsOutOfScope(t *testing.T) {
	other := crawlertest.NewSite(t, nil, map[string]http.HandlerFunc{
		"/": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/xml")
			w.Write([]byte(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://` + r.Host + `/x</loc></url></urlset>`))
		},
	})
	xml := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/xml")
			w.Write([]byte(body))
		}
	}
	s := crawlertest.NewSite(t, map[string]string{
		"/":     `<html><body><a href="/news">news</a></body></html>`,
		"/news": `<html><body>Nothing new.</body></html>`,
	}, map[string]http.HandlerFunc{
		"/robots.txt": func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte("User-agent: *\nAllow: /\nSitemap: " + other.Server.URL + "/robots-named.xml\nSitemap: http://" + r.Host + "/index.xml\n"))
		},
		"/index.xml": xml(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>` + other.Server.URL + `/listed.xml</loc></sitemap></sitemapindex>`),
		"/sitemap.xml": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.Server.URL+"/moved.xml", http.StatusMovedPermanently)
		},
	})
	st := openStore(t)
	cfg := crawler.Config{Strategy: crawler.StrategyBFS, Workers: 1, Sitemaps: true,
		Scope: scopeRules(t, scope.Config{ExcludeURLs: []string{"^" + regexp.QuoteMeta(other.Server.URL) + "/"}})}
	sum := runScoped(t, st, cfg, fetch.Config{}, nil, s)
	if got := other.Paths(); len(got) > 0 {
		t.Errorf("the site out of scope was asked for %v", got)
	}
	if s.Hits("/index.xml") != 1 {
		t.Errorf("the site's own sitemap index was not read: %v", s.Paths())
	}
	sms, err := st.Sitemaps(context.Background(), sum.Crawl)
	if err != nil {
		t.Fatal(err)
	}
	failures := map[string]string{}
	for _, sm := range sms {
		failures[strings.TrimPrefix(strings.TrimPrefix(sm.URL, other.Server.URL), s.Server.URL)] = sm.Failure
	}
	for loc, want := range map[string]string{
		"/robots-named.xml": "scope: the URL matches the excluded pattern",
		"/listed.xml":       "scope: the URL matches the excluded pattern",
		"/sitemap.xml":      "scope: redirected to " + other.Server.URL + "/moved.xml: the URL matches the excluded pattern",
		"/index.xml":        "",
	} {
		if got, ok := failures[loc]; !ok || !strings.HasPrefix(got, want) || want == "" && got != "" {
			t.Errorf("sitemap %s recorded with failure %q (found %v), want %q", loc, got, ok, want)
		}
	}
}

// TestCrawler_Run_seedRedirectNarrowedOnResume: the target of a seed's
// redirect, queued by a run with a wider scope, is out of a narrower one
// when the crawl resumes; only the seeds themselves are fetched whatever
// the scope.
func TestCrawler_Run_seedRedirectNarrowedOnResume(t *testing.T) {
	s := crawlertest.NewSite(t, map[string]string{
		"/calendar/x": `<html><body>a day</body></html>`,
	}, map[string]http.HandlerFunc{
		"/": func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/calendar/x", http.StatusFound) },
	})
	st := openStore(t)
	run := func(cfg crawler.Config) {
		t.Helper()
		cfg.Strategy, cfg.Workers, cfg.Lockstep = crawler.StrategyBFS, 1, true
		runScoped(t, st, cfg, fetch.Config{IgnoreRobots: true}, nil, s)
	}
	run(crawler.Config{MaxFetches: 1}) // the seed's redirect; its target waits
	run(crawler.Config{Scope: scopeRules(t, scope.Config{ExcludeURLs: []string{"/calendar/"}})})
	if n := s.Hits("/calendar/x"); n != 0 {
		t.Errorf("the seed's redirect target, out of the resumed crawl's scope, was requested %d times", n)
	}
}
