package fetch

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scent-crawler/scent/urlnorm"
)

// The timing checks below are lower bounds that follow from causality
// (a request cannot reach the server before the fetcher lets it go), so
// that a slow or loaded machine cannot make them fail.

func delaySite(t *testing.T, robots string, onPage func(path string)) *server {
	return newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			if robots == "" {
				http.NotFound(w, r)
				return
			}
			io.WriteString(w, robots)
			return
		}
		if onPage != nil {
			onPage(r.URL.Path)
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<p>page</p>")
	}))
}

func pageHits(s *server) []hit {
	var out []hit
	for _, h := range s.requests() {
		if h.path != "/robots.txt" {
			out = append(out, h)
		}
	}
	return out
}

func TestFetcher_Fetch_crawlDelay(t *testing.T) {
	ctx := context.Background()
	var fastDone atomic.Int32
	var seenAtSecond atomic.Int32
	slowPages := 0
	var mu sync.Mutex
	slow := delaySite(t, "User-agent: *\nCrawl-delay: 2\n", func(string) {
		mu.Lock()
		defer mu.Unlock()
		slowPages++
		if slowPages == 2 {
			seenAtSecond.Store(fastDone.Load())
		}
	})
	fast := delaySite(t, "", nil)
	f, err := New(Config{HostParallelism: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Warm the robots.txt caches, so that the delay is known before the
	// first page of the slow host.
	if _, err := f.Fetch(ctx, slow.url(t, "/p0"), nil); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var wg sync.WaitGroup
	for i := 1; i <= 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := f.Fetch(ctx, slow.url(t, fmt.Sprintf("/p%d", i)), nil); err != nil {
				t.Error(err)
			}
		}()
	}
	for i := 0; i < 5; i++ {
		if _, err := f.Fetch(ctx, fast.url(t, fmt.Sprintf("/q%d", i)), nil); err != nil {
			t.Fatal(err)
		}
		fastDone.Add(1)
	}
	wg.Wait()
	hits := pageHits(slow)
	if len(hits) != 4 {
		t.Fatalf("%d page requests to the slow host", len(hits))
	}
	// The first page went at the warm-up; each later one waits 2 s more.
	for k, h := range hits[1:] {
		if min := time.Duration(k) * 2 * time.Second; h.at.Sub(start) < min {
			t.Errorf("request %d of the slow host came %s after the start, before %s", k+2, h.at.Sub(start), min)
		}
	}
	// The other host is not held by the delay: all its pages were done
	// before the slow host's next page could go.
	if n := seenAtSecond.Load(); n != 5 {
		t.Errorf("only %d of the other host's 5 pages were fetched during the slow host's 2 s delay", n)
	}
}

func TestFetcher_Fetch_crawlDelayCapped(t *testing.T) {
	ctx := context.Background()
	s := delaySite(t, "User-agent: scent\nCrawl-delay: 600\n\nUser-agent: *\nDisallow: /\n", nil)
	var log strings.Builder
	var mu sync.Mutex
	f, err := New(Config{MaxCrawlDelay: time.Second, Logf: func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(&log, format+"\n", args...)
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	start := time.Now()
	for i := 0; i < 3; i++ {
		if _, err := f.Fetch(ctx, s.url(t, fmt.Sprintf("/p%d", i)), nil); err != nil {
			t.Fatal(err)
		}
	}
	if el := time.Since(start); el < 2*time.Second {
		t.Errorf("3 pages in %s: the capped delay of 1 s was not applied", el)
	}
	if !strings.Contains(log.String(), "Crawl-delay 10m0s: capped at 1s") {
		t.Errorf("log %q", log.String())
	}
}

func TestFetcher_Fetch_retryAfterHoldsHost(t *testing.T) {
	ctx := context.Background()
	var once sync.Once
	var sent503 atomic.Int64
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/a" {
			busy := false
			once.Do(func() { busy = true })
			if busy {
				sent503.Store(time.Now().UnixNano())
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<p>ok</p>")
	}))
	f, err := New(Config{IgnoreRobots: true, Retries: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	done := make(chan error)
	go func() {
		_, err := f.Fetch(ctx, s.url(t, "/a"), nil)
		done <- err
	}()
	for sent503.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	// /a was told to wait 1 s; so is /b, which starts after the 503.
	time.Sleep(50 * time.Millisecond)
	if _, err := f.Fetch(ctx, s.url(t, "/b"), nil); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	t503 := time.Unix(0, sent503.Load())
	for _, h := range s.requests() {
		if h.path == "/b" && h.at.Sub(t503) < time.Second {
			t.Errorf("/b came %s after the 503 with Retry-After: 1", h.at.Sub(t503))
		}
	}
}

func TestConfig_contact(t *testing.T) {
	for _, tc := range []struct{ ua, contact, want string }{
		{"", "", DefaultUserAgent},
		{"", "https://example.org/bot", "scent/0.1 (focused crawler; +https://example.org/bot)"},
		{"mybot/1", "mailto:ops@example.org", "mybot/1 (+mailto:ops@example.org)"},
	} {
		if got := (Config{UserAgent: tc.ua, Contact: tc.contact}).withDefaults().UserAgent; got != tc.want {
			t.Errorf("%q + %q: %q, want %q", tc.ua, tc.contact, got, tc.want)
		}
	}
	if err := (Config{Contact: "x\r\nHost: y"}).Validate(); err == nil {
		t.Error("contact with a line break accepted")
	}
}

func TestIPGate_acquire(t *testing.T) {
	ctx := context.Background()
	g := newIPGate(Config{IPDelay: time.Second, IPParallelism: 1})
	g.lookup = func(_ context.Context, host string) ([]net.IPAddr, error) {
		switch host {
		case "a.test", "b.test": // one server, two names
			return []net.IPAddr{{IP: net.ParseIP("192.0.2.1")}}, nil
		}
		return nil, fmt.Errorf("no such host %s", host)
	}
	start := time.Now()
	rel, err := g.acquire(ctx, urlnorm.MustParse("http://a.test/"))
	if err != nil {
		t.Fatal(err)
	}
	rel()
	// Another name of the same address waits for the delay; an address
	// of its own does not wait for it.
	if _, err := g.acquire(ctx, urlnorm.MustParse("http://c.test/")); err != nil {
		t.Fatal(err)
	}
	rel, err = g.acquire(ctx, urlnorm.MustParse("http://b.test/"))
	if err != nil {
		t.Fatal(err)
	}
	rel()
	if el := time.Since(start); el < time.Second {
		t.Errorf("b.test, on a.test's address, went %s after it, before the 1 s delay", el)
	}
	if newIPGate(Config{IPDelay: time.Second, Proxy: "http://127.0.0.1:1"}) != nil {
		t.Error("per-IP limits applied through a proxy")
	}
}

// TestFetcher_Fetch_robotsRequestIsPaced: robots.txt is a request to the
// host like any other: the first page waits the host delay after it.
func TestFetcher_Fetch_robotsRequestIsPaced(t *testing.T) {
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			io.WriteString(w, "User-agent: *\nDisallow: /private\n")
			return
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<p>ok</p>")
	}))
	f := newFetcher(t, Config{HostDelay: 400 * time.Millisecond})
	if _, err := fetchWithin(t, context.Background(), f, s.url(t, "/a")); err != nil {
		t.Fatal(err)
	}
	hits := s.requests()
	if len(hits) != 2 || hits[0].path != "/robots.txt" || hits[1].path != "/a" {
		t.Fatalf("requests %v, want robots.txt then /a", s.paths())
	}
	// The gate spaces the requests' starts; the server sees each a
	// little later, by a hop that varies, so allow it some slack.
	if gap := hits[1].at.Sub(hits[0].at); gap < 400*time.Millisecond-20*time.Millisecond {
		t.Errorf("/a came %s after robots.txt, before the 400 ms host delay", gap)
	}
}

// TestFetcher_Fetch_robotsRequestIsPacedByAddress: with hosts that share
// an address paced together, a second host's robots.txt waits the
// address's delay after the first host's page, and its page waits the
// delay after its robots.txt.
func TestFetcher_Fetch_robotsRequestIsPacedByAddress(t *testing.T) {
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			io.WriteString(w, "User-agent: *\nDisallow: /private\n")
			return
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<p>ok</p>")
	})
	a, b := newServer(t, page), newServer(t, page) // two hosts on 127.0.0.1
	const delay = 300 * time.Millisecond
	f := newFetcher(t, Config{IPDelay: delay})
	for _, u := range []urlnorm.URL{a.url(t, "/a"), b.url(t, "/b")} {
		if _, err := fetchWithin(t, context.Background(), f, u); err != nil {
			t.Fatal(err)
		}
	}
	var hits []hit
	for _, s := range []*server{a, b} {
		hits = append(hits, s.requests()...)
	}
	want := []string{"/robots.txt", "/a", "/robots.txt", "/b"}
	if len(hits) != len(want) {
		t.Fatalf("requests %v then %v, want %v", a.paths(), b.paths(), want)
	}
	for i, h := range hits {
		if h.path != want[i] {
			t.Fatalf("requests %v then %v, want %v", a.paths(), b.paths(), want)
		}
		if i > 0 {
			// The gate spaces the requests' starts; the server sees
			// them a little later each, so allow it some slack.
			if gap := h.at.Sub(hits[i-1].at); gap < delay-20*time.Millisecond {
				t.Errorf("%s came %s after %s, before the %s address delay", want[i], gap, want[i-1], delay)
			}
		}
	}
}
