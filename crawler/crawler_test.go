package crawler_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/text/encoding/korean"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/crawler/crawlertest"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/sqlite"
	"github.com/scent-crawler/scent/urlnorm"
)

func openStore(t *testing.T) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "crawl.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

type pageRow struct {
	order            int
	url, stack, fail string
	status           int
	text             string
}

func pages(t *testing.T, st *sqlite.Store) []pageRow {
	t.Helper()
	rows, err := st.DB().Query(`SELECT ord, (SELECT url FROM urls WHERE id = url_id), topic, failure, status, scent_text(text) FROM pages ORDER BY ord`)
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
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(bytes.Repeat([]byte("<p>bomb</p>"), 100<<20/11)) //nolint:errcheck // a bytes.Buffer does not fail
	zw.Close()                                                //nolint:errcheck // a bytes.Buffer does not fail
	bomb := zb.Bytes()                                        // 100 MB in about 100 KB
	s := crawlertest.NewSite(t, map[string]string{
		"/robots.txt": "",
		"/": `<html><body>
			<a href="/broken">x</a> <a href="/big">x</a> <a href="/binary">x</a> <a href="/loop1">x</a>
			<a href="/flaky">x</a> <a href="/slow">x</a> <a href="/private/secret">x</a> <a href="/korean">x</a>
			<a href="` + b.URL + `/b-page">x</a> <a href="/missing">x</a> <a href="/bomb">x</a></body></html>`,
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
		"/bomb": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; x=gzip") // colly inflates what names gzip
			w.Write(bomb)
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
	f := crawlertest.NewFetcher(t, fetch.Config{Timeout: 300 * time.Millisecond, Retries: 2, RetryBackoff: time.Millisecond, MaxBodyBytes: 1 << 20})
	c, err := crawler.New(crawler.Config{Strategy: crawler.StrategyBFS, Workers: 4, RetryLater: -1}, st, f, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := c.Run(context.Background(), []urlnorm.URL{s.URL("/")}, "{}")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Finish != "frontier empty" {
		t.Errorf("finish = %q", sum.Finish)
	}
	byPath := map[string]pageRow{}
	for _, p := range pages(t, st) {
		byPath[strings.TrimPrefix(strings.TrimPrefix(p.url, s.Server.URL), b.URL)] = p
	}
	wantFail := map[string]string{
		"/big":            "too-large",
		"/bomb":           "too-large",
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
	if s.Hits("/private/secret") != 0 {
		t.Error("a URL disallowed by robots.txt was requested")
	}
	bHits.Range(func(k, _ any) bool {
		t.Errorf("host with a failing robots.txt got a request for %v", k)
		return true
	})
	if s.Hits("/flaky") != 3 {
		t.Errorf("/flaky requested %d times, want 3 (two 502s, then success)", s.Hits("/flaky"))
	}
}

// TestCrawler_bfsPassesAStuckFetch: a breadth-first crawl commits its
// results in the order it sent them, but one fetch that does not come
// back (a server holding the connection) does not stop it: after a
// while (passAfter, here 200 ms) the crawl commits the results held
// without it and fetches the other pages meanwhile, and stores the stuck
// one once it answers.
func TestCrawler_bfsPassesAStuckFetch(t *testing.T) {
	defer crawler.SetPassAfter(200 * time.Millisecond)()
	const n = 200
	var links strings.Builder
	links.WriteString(`<html><body><a href="/stuck">stuck</a>`)
	pagesOf := map[string]string{"/robots.txt": ""}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&links, ` <a href="/p%d">p</a>`, i)
		pagesOf[fmt.Sprintf("/p%d", i)] = "<html><body>a page</body></html>"
	}
	pagesOf["/"] = links.String() + "</body></html>"
	release := make(chan struct{})
	s := crawlertest.NewSite(t, pagesOf, map[string]http.HandlerFunc{
		"/stuck": func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
				fmt.Fprint(w, "<html><body>late</body></html>")
			case <-r.Context().Done():
			}
		},
	})
	st := openStore(t)
	f := crawlertest.NewFetcher(t, fetch.Config{Timeout: time.Minute})
	c, err := crawler.New(crawler.Config{Strategy: crawler.StrategyBFS, Workers: 4, RetryLater: -1}, st, f, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.Run(context.Background(), []urlnorm.URL{s.URL("/")}, "{}")
		done <- err
	}()
	stored := func() int {
		var k int
		if err := st.DB().QueryRow(`SELECT count(*) FROM pages`).Scan(&k); err != nil {
			t.Fatal(err)
		}
		return k
	}
	deadline := time.Now().Add(30 * time.Second)
	for stored() < n && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if k := stored(); k < n {
		t.Errorf("with /stuck held, %d pages stored in 30 s, want the other %d", k, n)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, p := range pages(t, st) {
		got[strings.TrimPrefix(p.url, s.Server.URL)] = p.fail
	}
	if len(got) != n+2 {
		t.Errorf("%d pages stored, want %d", len(got), n+2)
	}
	if fail, ok := got["/stuck"]; !ok || fail != "" {
		t.Errorf("/stuck: stored %v, failure %q; want stored once it answered", ok, fail)
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

func TestConfig_Validate_promoteNeedsTunnel(t *testing.T) {
	if err := (crawler.Config{Promote: true}).Validate(); err == nil {
		t.Error("Promote without Tunnel was accepted")
	}
}

func TestConfig_Validate_learner(t *testing.T) {
	var l crawler.Learner = crawlertest.BaseLearner{}
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
