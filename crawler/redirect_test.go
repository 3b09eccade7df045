package crawler_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/crawler/crawlertest"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/urlnorm"
)

func TestCrawler_Run_redirectChainIntoAFetchedPageStoresOnePage(t *testing.T) {
	// "/" links to /page first, then to /a → /b → /page.
	s := crawlertest.NewSite(t, map[string]string{
		"/":          `<html><body><a href="/page">page</a> <a href="/a">a</a> <a href="/users/ml">ml</a></body></html>`,
		"/page":      `<html><body>the one page with enough words to be a page of its own here</body></html>`,
		"/users/ml/": `<html><body>machine learning group page</body></html>`,
	}, map[string]http.HandlerFunc{
		"/a": func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/b", http.StatusFound) },
		"/b": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/page", http.StatusMovedPermanently)
		},
		"/users/ml": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/users/ml/", http.StatusMovedPermanently)
		},
	})
	st := openStore(t)
	c, err := crawler.New(crawler.Config{Strategy: crawler.StrategyBFS, Workers: 4}, st, crawlertest.NewFetcher(t, fetch.Config{}), nil)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := c.Run(context.Background(), []urlnorm.URL{s.URL("/")}, "{}")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Hits("/page"); got != 1 {
		t.Errorf("/page requested %d times, want 1", got)
	}
	if got := s.Hits("/users/ml/"); got != 1 {
		t.Errorf("/users/ml/ requested %d times, want 1", got)
	}
	stored := map[string]int{}
	for _, p := range pages(t, st) {
		if p.fail == "" {
			stored[strings.TrimPrefix(p.url, s.Server.URL)]++
		}
	}
	want := map[string]int{"/": 1, "/page": 1, "/users/ml/": 1}
	if fmt.Sprint(stored) != fmt.Sprint(want) {
		t.Errorf("pages stored %v, want %v", stored, want)
	}
	// Every redirect hop is a fetch, not a page.
	if sum.Total != 6 || sum.Succeeded != 3 {
		t.Errorf("fetches %d, pages %d; want 6 and 3", sum.Total, sum.Succeeded)
	}
	var n int
	if err := st.DB().QueryRow(`SELECT COUNT(*) FROM pages GROUP BY iif(final_url = '', (SELECT url FROM urls WHERE id = url_id), final_url) HAVING COUNT(*) > 1 AND SUM(failure = '') > 1`).Scan(&n); err == nil {
		t.Errorf("a final URL is stored as %d pages", n)
	}
	aliases := map[string]string{}
	rows, err := st.DB().Query(`SELECT url, target, status FROM aliases ORDER BY url`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var u, target string
		var status int
		if err := rows.Scan(&u, &target, &status); err != nil {
			t.Fatal(err)
		}
		aliases[strings.TrimPrefix(u, s.Server.URL)] = fmt.Sprintf("%s %d", strings.TrimPrefix(target, s.Server.URL), status)
	}
	wantAliases := map[string]string{"/a": "/b 302", "/b": "/page 301", "/users/ml": "/users/ml/ 301"}
	if fmt.Sprint(aliases) != fmt.Sprint(wantAliases) {
		t.Errorf("aliases %v, want %v", aliases, wantAliases)
	}
}

func TestCrawler_Run_redirectToADisallowedPathIsNotFetched(t *testing.T) {
	s := crawlertest.NewSite(t, map[string]string{
		"/":               `<html><body><a href="/go">go</a> <a href="/go.pdf">pdf</a></body></html>`,
		"/private/secret": `<html><body>secret</body></html>`,
		"/doc.pdf":        `not html`,
	}, map[string]http.HandlerFunc{
		"/robots.txt": func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
		},
		"/go":     func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/private/secret", http.StatusFound) },
		"/go.pdf": func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/doc.pdf", http.StatusFound) },
	})
	st := openStore(t)
	c, err := crawler.New(crawler.Config{Strategy: crawler.StrategyBFS, Workers: 2, SkipExtensions: []string{"pdf"}}, st, crawlertest.NewFetcher(t, fetch.Config{}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Run(context.Background(), []urlnorm.URL{s.URL("/")}, "{}"); err != nil {
		t.Fatal(err)
	}
	if got := s.Hits("/private/secret"); got != 0 {
		t.Errorf("a redirect target disallowed by robots.txt was requested %d times", got)
	}
	if got := s.Hits("/doc.pdf"); got != 0 {
		t.Errorf("a redirect target out of scope was requested %d times", got)
	}
	fails := map[string]string{}
	for _, p := range pages(t, st) {
		fails[strings.TrimPrefix(p.url, s.Server.URL)] = strings.SplitN(p.fail, ":", 2)[0]
	}
	if fails["/go"] != "redirect" || fails["/private/secret"] != "robots" {
		t.Errorf("records %v: want /go a redirect and /private/secret refused by robots.txt", fails)
	}
}

func TestCrawler_Run_focusedCrawlFollowsARedirectToANewPageOnce(t *testing.T) {
	// /a and /b (fetched in one round) both redirect to /course, which no
	// page links to: one of them fetches it, the other is an alias.
	s := crawlertest.NewSite(t, map[string]string{
		"/":       `<html><body><a href="/a">course one</a> <a href="/b">course two</a></body></html>`,
		"/course": `<html><body>course syllabus homework</body></html>`,
	}, map[string]http.HandlerFunc{
		"/a": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/course", http.StatusMovedPermanently)
		},
		"/b": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/course", http.StatusMovedPermanently)
		},
	})
	scorer := crawlertest.NewKeywordScorer(map[string][]string{"course": {"course", "syllabus"}}, "course")
	st := openStore(t)
	c, err := crawler.New(crawler.Config{Workers: 2, Lockstep: true}, st, crawlertest.NewFetcher(t, fetch.Config{}), scorer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Run(context.Background(), []urlnorm.URL{s.URL("/")}, "{}"); err != nil {
		t.Fatal(err)
	}
	var pagesOfCourse, aliases int
	st.DB().QueryRow(`SELECT COUNT(*) FROM pages WHERE iif(final_url = '', (SELECT url FROM urls WHERE id = url_id), final_url) = ? AND failure = ''`, s.URL("/course").String()).Scan(&pagesOfCourse)
	st.DB().QueryRow(`SELECT COUNT(*) FROM aliases WHERE target = ?`, s.URL("/course").String()).Scan(&aliases)
	if pagesOfCourse != 1 || aliases != 2 {
		t.Errorf("/course stored as %d pages with %d aliases; want 1 page, /a and /b its aliases", pagesOfCourse, aliases)
	}
	if n := s.Hits("/course"); n > 2 {
		t.Errorf("/course requested %d times", n)
	}
}

func TestCrawler_Run_focusedCrawlFollowsTenRedirectsInline(t *testing.T) {
	// /h1 → … → /h11 is a chain of ten redirects, followed within the
	// fetch; /k1 → … → /k12 has eleven: the eleventh is not followed, and
	// its target is fetched as a page of its own.
	handlers := map[string]http.HandlerFunc{}
	for _, chain := range []struct {
		name string
		hops int
	}{{"h", 10}, {"k", 11}} {
		for i := 1; i <= chain.hops; i++ {
			next := fmt.Sprintf("/%s%d", chain.name, i+1)
			handlers[fmt.Sprintf("/%s%d", chain.name, i)] = func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, next, http.StatusFound)
			}
		}
	}
	s := crawlertest.NewSite(t, map[string]string{
		"/":    `<html><body><a href="/h1">course one</a> <a href="/k1">course two</a></body></html>`,
		"/h11": `<html><body>course syllabus one</body></html>`,
		"/k12": `<html><body>course syllabus two</body></html>`,
	}, handlers)
	scorer := crawlertest.NewKeywordScorer(map[string][]string{"course": {"course", "syllabus"}}, "course")
	st := openStore(t)
	c, err := crawler.New(crawler.Config{Workers: 1}, st, crawlertest.NewFetcher(t, fetch.Config{}), scorer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Run(context.Background(), []urlnorm.URL{s.URL("/")}, "{}"); err != nil {
		t.Fatal(err)
	}
	fails := map[string]string{}
	for _, p := range pages(t, st) {
		fails[strings.TrimPrefix(p.url, s.Server.URL)] = strings.SplitN(p.fail, ":", 2)[0]
	}
	want := map[string]string{"/": "", "/h1": "", "/k1": "redirect", "/k12": ""}
	if fmt.Sprint(fails) != fmt.Sprint(want) {
		t.Errorf("records (URL: failure) %v, want %v", fails, want)
	}
	for _, p := range []string{"/h11", "/k12"} {
		if n := s.Hits(p); n != 1 {
			t.Errorf("%s requested %d times, want 1", p, n)
		}
	}
}
