package crawler_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/crawler/crawlertest"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/urlnorm"
)

func TestCrawler_Run_betweenRounds(t *testing.T) {
	// A course site of 30 pages, each linking to the next three.
	pages := make(map[string]string)
	for i := range 30 {
		var links strings.Builder
		for j := i + 1; j <= min(i+3, 29); j++ {
			fmt.Fprintf(&links, `<a href="/c%d">course syllabus %d</a> `, j, j)
		}
		pages[fmt.Sprintf("/c%d", i)] = `<html><body>course homework ` + links.String() + `</body></html>`
	}
	s := crawlertest.NewSite(t, pages, nil)
	scorer := crawlertest.NewKeywordScorer(map[string][]string{"course": {"course", "syllabus"}}, "course")
	for _, lockstep := range []bool{true, false} {
		c, err := crawler.New(crawler.Config{Workers: 4, Lockstep: lockstep}, openStore(t), crawlertest.NewFetcher(t, fetch.Config{}), scorer)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := c.Run(context.Background(), []urlnorm.URL{s.URL("/c0")}, "{}")
		if err != nil {
			t.Fatal(err)
		}
		if sum.Succeeded != 30 {
			t.Fatalf("lockstep %v: %d pages fetched, want 30", lockstep, sum.Succeeded)
		}
		switch {
		case lockstep && (sum.BetweenRounds <= 0 || sum.BetweenRounds > sum.Elapsed):
			t.Errorf("lockstep: %v between rounds of %v", sum.BetweenRounds, sum.Elapsed)
		case !lockstep && sum.BetweenRounds != 0:
			t.Errorf("not in lockstep: %v between rounds, want none", sum.BetweenRounds)
		}
	}
}

// TestCrawler_Run_budgetHoldsThroughRetries: pages put off after a
// transient failure (a 503 at the first ask), fetched again once their
// host waited, hold their place in the budget: the crawl ends with
// exactly its budget of pages, not with every page that was waiting.
func TestCrawler_Run_budgetHoldsThroughRetries(t *testing.T) {
	const n, budget = 16, 6
	var mu sync.Mutex
	asked := make(map[string]bool)
	var home strings.Builder
	home.WriteString("<html><body>")
	for i := range n {
		// A host of its own per page, so that one wait does not hold
		// the others.
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/robots.txt" {
				http.NotFound(w, r)
				return
			}
			mu.Lock()
			first := !asked[r.Host]
			asked[r.Host] = true
			mu.Unlock()
			if first {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			fmt.Fprint(w, "<html><body>a page</body></html>")
		}))
		t.Cleanup(srv.Close)
		fmt.Fprintf(&home, `<a href="%s/">page %d</a> `, srv.URL, i)
	}
	s := crawlertest.NewSite(t, map[string]string{"/": home.String() + "</body></html>"}, nil)
	for _, lockstep := range []bool{false, true} {
		mu.Lock()
		clear(asked)
		mu.Unlock()
		c, err := crawler.New(crawler.Config{Strategy: crawler.StrategyBFS, Workers: 4, Lockstep: lockstep, MaxPages: budget}, openStore(t), crawlertest.NewFetcher(t, fetch.Config{Retries: -1}), nil)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := c.Run(context.Background(), []urlnorm.URL{s.URL("/")}, "{}")
		if err != nil {
			t.Fatal(err)
		}
		if sum.Succeeded != budget {
			t.Errorf("lockstep %v: %d pages with a budget of %d (%d fetches)", lockstep, sum.Succeeded, budget, sum.Fetched)
		}
	}
}

// TestCrawler_Run_retryAfterARedirect: a page whose redirect target
// fails for a transient reason (a 503 once) is fetched again later, and
// found: the retry is kept for the entry whatever URL failed.
func TestCrawler_Run_retryAfterARedirect(t *testing.T) {
	target, reset := unavailableOnce("<html><body>course syllabus found</body></html>")
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		target(w, r)
	}))
	t.Cleanup(other.Close)
	s := crawlertest.NewSite(t, map[string]string{"/": `<html><body>course <a href="/moved">course syllabus</a></body></html>`},
		map[string]http.HandlerFunc{"/moved": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/x", http.StatusMovedPermanently)
		}})
	scorer := crawlertest.NewKeywordScorer(map[string][]string{"course": {"course", "syllabus"}}, "course")
	for _, strategy := range []crawler.Strategy{crawler.StrategyBFS, crawler.StrategyLink} {
		reset()
		st := openStore(t)
		c, err := crawler.New(crawler.Config{Strategy: strategy, Workers: 2}, st, crawlertest.NewFetcher(t, fetch.Config{Retries: -1}), scorer)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := c.Run(context.Background(), []urlnorm.URL{s.URL("/")}, "{}")
		if err != nil {
			t.Fatal(err)
		}
		if sum.Succeeded != 2 || sum.Finish != "frontier empty" {
			t.Errorf("%s: %d pages (%d fetches), %s; want the seed and the redirect's target after its retry", strategy, sum.Succeeded, sum.Fetched, sum.Finish)
		}
	}
}

// TestCrawler_Run_progressCountsRetries: while a page put off after a
// transient failure (a 503 at the first ask) waits for its host, the
// progress says it waits; once it is fetched, none does.
func TestCrawler_Run_progressCountsRetries(t *testing.T) {
	x, _ := unavailableOnce("<html><body>found</body></html>")
	s := crawlertest.NewSite(t, map[string]string{"/": `<html><body><a href="/x">x</a></body></html>`},
		map[string]http.HandlerFunc{"/x": x})
	var retrying []int // Progress.Retrying of each update
	var last crawler.Progress
	cfg := crawler.Config{Strategy: crawler.StrategyBFS, Workers: 2, ProgressEvery: 20 * time.Millisecond,
		Progress: func(p crawler.Progress) { retrying, last = append(retrying, p.Retrying), p }}
	c, err := crawler.New(cfg, openStore(t), crawlertest.NewFetcher(t, fetch.Config{Retries: -1}), nil)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := c.Run(context.Background(), []urlnorm.URL{s.URL("/")}, "{}")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Succeeded != 2 {
		t.Fatalf("%d pages (%d fetches), want the seed and /x after its retry", sum.Succeeded, sum.Fetched)
	}
	if !slices.Contains(retrying, 1) {
		t.Errorf("no progress update while /x waited for its retry: %v", retrying)
	}
	if !last.Final || last.Retrying != 0 || last.Failed != 0 {
		t.Errorf("last update: final %v, %d waiting to retry, %d failed; want the final one, none waiting, none failed", last.Final, last.Retrying, last.Failed)
	}
}

// unavailableOnce returns a handler that answers its first request with
// 503 Service Unavailable and the others with body, and a function that
// makes the next request the first again.
func unavailableOnce(body string) (http.HandlerFunc, func()) {
	var mu sync.Mutex
	asked := 0
	h := func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked++
		first := asked == 1
		mu.Unlock()
		if first {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, body)
	}
	reset := func() {
		mu.Lock()
		asked = 0
		mu.Unlock()
	}
	return h, reset
}
