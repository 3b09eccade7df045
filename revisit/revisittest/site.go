package revisittest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/urlnorm"
)

// SitePage is what a Site serves at one path.
type SitePage struct {
	// Words are the body text: the page is
	// <title>path</title><p>words</p>, and "/" links to every other path.
	Words string
	// ETag is sent when set; If-None-Match equal to it is answered 304.
	ETag string
	// Modified is sent as Last-Modified when set; without an ETag,
	// If-Modified-Since equal to it is answered 304.
	Modified string
	// Status, when set, is the answer, without a page.
	Status int
	// Block makes the site cancel the context given to SetCancel and
	// wait for the client to give up, instead of answering.
	Block bool
	// RedirectTo, when set, is a path the page answers 301 to.
	RedirectTo string
}

// Request is one request a Site saw.
type Request struct {
	Path, IfNoneMatch, IfModifiedSince string
	Status                             int // the status answered
}

// Site is a small httptest web site whose pages a test changes between
// visits. It answers /robots.txt with 404 and any path it does not have
// with 404, and logs every other request.
type Site struct {
	Server *httptest.Server
	t      *testing.T
	mu     sync.Mutex
	pages  map[string]SitePage
	reqs   []Request
	cancel context.CancelFunc
}

// NewSite starts a site serving pages (path → page); it stops with the
// test.
func NewSite(t *testing.T, pages map[string]SitePage) *Site {
	s := &Site{t: t, pages: pages}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Server.Close)
	return s
}

func (s *Site) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/robots.txt" {
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	p, ok := s.pages[r.URL.Path]
	var paths []string
	if r.URL.Path == "/" {
		for k := range s.pages {
			if k != "/" {
				paths = append(paths, k)
			}
		}
	}
	cancel := s.cancel
	s.mu.Unlock()
	sort.Strings(paths)
	status := http.StatusOK
	switch {
	case !ok:
		status = http.StatusNotFound
	case p.RedirectTo != "":
		status = http.StatusMovedPermanently
	case p.Status != 0:
		status = p.Status
	case p.ETag != "" && r.Header.Get("If-None-Match") == p.ETag:
		status = http.StatusNotModified
	case p.ETag == "" && p.Modified != "" && r.Header.Get("If-Modified-Since") == p.Modified:
		status = http.StatusNotModified
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, Request{r.URL.Path, r.Header.Get("If-None-Match"), r.Header.Get("If-Modified-Since"), status})
	s.mu.Unlock()
	if ok && p.Block && cancel != nil {
		cancel()
		<-r.Context().Done()
		return
	}
	if p.ETag != "" {
		w.Header().Set("ETag", p.ETag)
	}
	if p.Modified != "" {
		w.Header().Set("Last-Modified", p.Modified)
	}
	if status == http.StatusMovedPermanently {
		http.Redirect(w, r, p.RedirectTo, status)
		return
	}
	if status != http.StatusOK {
		w.WriteHeader(status)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<html><head><title>%s</title></head><body><p>%s</p>", r.URL.Path, p.Words)
	for _, q := range paths {
		fmt.Fprintf(w, `<a href="%s">x</a>`, q)
	}
	fmt.Fprint(w, "</body></html>")
}

// Set changes the page at path.
func (s *Site) Set(path string, p SitePage) {
	s.mu.Lock()
	s.pages[path] = p
	s.mu.Unlock()
}

// SetCancel sets the function that a request of a Block page calls.
func (s *Site) SetCancel(cancel context.CancelFunc) {
	s.mu.Lock()
	s.cancel = cancel
	s.mu.Unlock()
}

// TakeRequests returns the requests seen since the last call, by path.
// A path requested more than once fails the test: a crawl or a revisit
// asks each page once.
func (s *Site) TakeRequests() map[string]Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := make(map[string]Request)
	for _, r := range s.reqs {
		if _, dup := m[r.Path]; dup {
			s.t.Errorf("%s requested twice in one run", r.Path)
		}
		m[r.Path] = r
	}
	s.reqs = nil
	return m
}

// URL is the absolute URL of path p on the site.
func (s *Site) URL(p string) urlnorm.URL { return urlnorm.MustParse(s.Server.URL + p) }

// Path is the path of u on the site.
func (s *Site) Path(u urlnorm.URL) string { return u.String()[len(s.Server.URL):] }

// NewFetcher returns a fetcher without retries, closed with the test.
func NewFetcher(t *testing.T) *fetch.Fetcher {
	t.Helper()
	f, err := fetch.New(fetch.Config{Retries: -1, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// Crawl crawls the site from "/" into st, breadth-first with workers
// fetches at once (1 keeps the pages' IDs in the order of their paths)
// and the clock at at, and returns the crawl's ID. Every page the site
// has must be fetched successfully but those with a Status; the
// requests of the crawl are taken from the site's log.
func Crawl(t *testing.T, st crawler.Store, s *Site, name string, at time.Time, workers int) int64 {
	t.Helper()
	c, err := crawler.New(crawler.Config{Name: name, Strategy: crawler.StrategyBFS, Workers: workers,
		Now: func() time.Time { return at }}, st, NewFetcher(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := c.Run(context.Background(), []urlnorm.URL{s.URL("/")}, "{}")
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	want := 0
	for _, p := range s.pages {
		if p.Status == 0 {
			want++
		}
	}
	s.mu.Unlock()
	if sum.Succeeded != want {
		t.Fatalf("crawl fetched %d pages, want %d", sum.Succeeded, want)
	}
	s.TakeRequests()
	return sum.Crawl
}
