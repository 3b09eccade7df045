package crawlertest

import (
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scent-crawler/scent/urlnorm"
)

// Chain is a web site of N numbered HTML pages, /p0 to /p<N-1>, each
// titled "page i" and linking to the pages Links gives. Other paths are
// not found. The zero values of Links and Text give the site that most
// tests crawl.
type Chain struct {
	// N is the number of pages.
	N int
	// Links gives the pages page i links to, in order; those from N on
	// are left out. Nil: i+1, 2i+1 and 7i mod N, so that every page is
	// reachable from /p0.
	Links func(i int) []int
	// Text gives the words of page i, before its links. Nil: "page i".
	Text func(i int) string
	// Delay is how long every page takes to answer; 0, at once.
	Delay time.Duration
}

// Handler returns a handler that serves the chain's pages.
func (c Chain) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i, ok := c.page(r.URL.Path)
		if !ok {
			http.NotFound(w, r)
			return
		}
		c.serve(w, i)
	})
}

// page returns the number of the page at path, if there is one.
func (c Chain) page(path string) (int, bool) {
	var i int
	if _, err := fmt.Sscanf(path, "/p%d", &i); err != nil || i < 0 || i >= c.N || path != fmt.Sprintf("/p%d", i) {
		return 0, false
	}
	return i, true
}

// serve writes page i after the chain's delay.
func (c Chain) serve(w http.ResponseWriter, i int) {
	time.Sleep(c.Delay)
	text := fmt.Sprintf("page %d", i)
	if c.Text != nil {
		text = c.Text(i)
	}
	links := []int{i + 1, 2*i + 1, (i * 7) % c.N}
	if c.Links != nil {
		links = c.Links(i)
	}
	w.Header().Set("Content-Type", "text/html")
	fmt.Fprintf(w, "<html><head><title>page %d</title></head><body>%s", i, text)
	for _, j := range links {
		if j < c.N {
			fmt.Fprintf(w, ` <a href="/p%d">page %d</a>`, j, j)
		}
	}
	fmt.Fprint(w, "</body></html>")
}

// ChainSite is a Chain served by httptest. It counts the requests for
// every path by User-Agent, and can hold pages back (Hold) until the
// test releases them.
type ChainSite struct {
	Server   *httptest.Server
	chain    Chain
	mu       sync.Mutex
	hits     map[string]map[string]int // path → User-Agent → requests
	from     atomic.Int64              // the first page held
	after    atomic.Int64              // the page requests answered before every later one is held
	pages    atomic.Int64              // page requests so far
	held     atomic.Int64              // requests waiting for Release now
	gate     chan struct{}             // closed by Release; under mu
	released bool                      // gate is closed; under mu
}

// NewChainSite starts a site serving c; it stops with the test, after
// releasing the pages held.
func NewChainSite(t *testing.T, c Chain) *ChainSite {
	s := &ChainSite{chain: c, hits: make(map[string]map[string]int), gate: make(chan struct{})}
	s.from.Store(math.MaxInt64)
	s.after.Store(math.MaxInt64)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		if s.hits[r.URL.Path] == nil {
			s.hits[r.URL.Path] = make(map[string]int)
		}
		s.hits[r.URL.Path][r.UserAgent()]++
		gate := s.gate
		s.mu.Unlock()
		i, ok := c.page(r.URL.Path)
		if !ok {
			http.NotFound(w, r)
			return
		}
		if k := s.pages.Add(1); int64(i) >= s.from.Load() || k > s.after.Load() {
			s.held.Add(1)
			select {
			case <-gate:
				s.held.Add(-1)
			case <-r.Context().Done():
				s.held.Add(-1)
				return
			}
		}
		c.serve(w, i)
	}))
	t.Cleanup(s.Server.Close)
	t.Cleanup(s.Release) // before Close: a held page would keep it waiting
	return s
}

// Hold makes the pages from page from on answer only once Release is
// called (or their request is cancelled): a crawl cannot end before the
// test lets it.
func (s *ChainSite) Hold(from int) { s.from.Store(int64(from)) }

// HoldAfter makes every page requested after the first k answer only
// once Release is called: the test knows the crawl stands still there,
// however fast the machine (Held). Called after Release, it holds anew,
// until the next Release, the requests after the first k of all those
// made since the site started (and no longer the pages of Hold).
func (s *ChainSite) HoldAfter(k int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.released {
		s.gate, s.released = make(chan struct{}), false
		s.from.Store(math.MaxInt64)
	}
	s.after.Store(int64(k))
}

// Held is the number of requests waiting for Release now.
func (s *ChainSite) Held() int { return int(s.held.Load()) }

// Release lets the pages held answer, now and from then on (until
// HoldAfter holds them anew).
func (s *ChainSite) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.released {
		close(s.gate)
		s.released = true
	}
}

// URL is the absolute URL of path p on the site.
func (s *ChainSite) URL(p string) urlnorm.URL { return urlnorm.MustParse(s.Server.URL + p) }

// Hits is how many times path p was requested, by any User-Agent.
func (s *ChainSite) Hits(p string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, k := range s.hits[p] {
		n += k
	}
	return n
}

// HitsBy is how many times path p was requested with User-Agent agent.
func (s *ChainSite) HitsBy(p, agent string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[p][agent]
}

// Paths returns the paths requested, each with its number of requests.
func (s *ChainSite) Paths() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := make(map[string]int, len(s.hits))
	for p, byAgent := range s.hits {
		for _, k := range byAgent {
			m[p] += k
		}
	}
	return m
}
