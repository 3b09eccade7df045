package metrics_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/crawler/crawlertest"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/metrics"
	"github.com/scent-crawler/scent/sqlite"
	"github.com/scent-crawler/scent/urlnorm"
)

// scrape reads one sample of the metrics endpoint: metric with labels,
// e.g. `scent_fetches_total{class="2xx"}`; 0 when absent.
func scrape(t *testing.T, url, metric string) float64 {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(metric) + ` (\S+)$`).FindSubmatch(body)
	if m == nil {
		return 0
	}
	v, _ := strconv.ParseFloat(string(m[1]), 64)
	return v
}

func TestStore_scrapedDuringCrawl(t *testing.T) {
	// A chain of pages /p0 → /p1 → … → /p19, a 404 link and a page
	// refused by robots.txt on each. The handlers of /p5 and /p12 wait
	// until the test has scraped the metrics, so both scrapes fall in the
	// middle of the crawl, whatever the timing.
	const n = 20
	gates := map[string]chan struct{}{"/p5": make(chan struct{}), "/p12": make(chan struct{})}
	reached := map[string]chan struct{}{"/p5": make(chan struct{}), "/p12": make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			io.WriteString(w, "User-agent: *\nDisallow: /private\n")
			return
		}
		var i int
		if _, err := fmt.Sscanf(r.URL.Path, "/p%d", &i); err != nil || i >= n {
			http.NotFound(w, r)
			return
		}
		if g, ok := gates[r.URL.Path]; ok {
			close(reached[r.URL.Path])
			<-g
		}
		w.Header().Set("Content-Type", "text/html")
		text := fmt.Sprintf("page %d about crawling", i)
		if i == 7 || i == 8 { // the same text: p8 is stored as a duplicate of p7
			text = strings.Repeat("the same words on two pages of the site ", 20)
		}
		fmt.Fprintf(w, `<html><body><p>%s</p><a href="/p%d">next</a> <a href="/missing%d">gone</a> <a href="/private/%d">private</a></body></html>`, text, i+1, i, i)
	}))
	defer srv.Close()

	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	f, err := fetch.New(fetch.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := metrics.New()
	ms := httptest.NewServer(m.Handler())
	defer ms.Close()
	c, err := crawler.New(crawler.Config{Strategy: crawler.StrategyBFS, Workers: 1}, &metrics.Store{Store: st, M: m}, f, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		_, err := c.Run(context.Background(), []urlnorm.URL{urlnorm.MustParse(srv.URL + "/p0")}, "{}")
		done <- err
	}()
	var stored []float64
	for _, p := range []string{"/p5", "/p12"} {
		<-reached[p]
		stored = append(stored, scrape(t, ms.URL, "scent_pages_stored_total"))
		if v := scrape(t, ms.URL, `scent_fetches_total{class="4xx"}`); v < 1 {
			t.Errorf("at %s: 4xx fetches %v", p, v)
		}
		close(gates[p])
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if stored[0] < 1 || stored[1] <= stored[0] {
		t.Errorf("pages stored seen during the crawl: %v, want growing", stored)
	}
	end := map[string]float64{
		"scent_pages_stored_total":                    n,
		`scent_fetches_total{class="2xx"}`:            n,
		`scent_fetches_total{class="4xx"}`:            n + 1, // /p20 too
		`scent_fetches_total{class="none"}`:           n,
		"scent_duplicates_total":                      1,
		"scent_robots_refusals_total":                 n,
		`scent_fetch_failures_total{reason="status"}`: n + 1,
		`scent_topic_pages_total{topic=""}`:           n,
		"scent_fetch_duration_seconds_count":          2*n + 1,
		`scent_frontier_entries{stack="queue"}`:       0,
	}
	for metric, want := range end {
		if got := scrape(t, ms.URL, metric); got != want {
			t.Errorf("%s = %v, want %v", metric, got, want)
		}
	}
	if b := scrape(t, ms.URL, "scent_body_bytes_total"); b < n*100 {
		t.Errorf("body bytes %v", b)
	}
	t.Logf("pages stored at the two scrapes: %v", stored)
}

// TestStore_crawlerBehaviour runs the crawler's behaviour suite with every
// crawl's store wrapped in a Store: counting changes nothing of what a
// crawl fetches, resumed crawls included (the crawler finds the wrapped
// store's optional interfaces through Unwrap).
func TestStore_crawlerBehaviour(t *testing.T) {
	crawlertest.RunWrapped(t, func(*testing.T) crawlertest.Store { return crawlertest.NewMemStore() },
		func(_ *testing.T, s crawler.Store) crawler.Store { return &metrics.Store{Store: s, M: metrics.New()} })
}
