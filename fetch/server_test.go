package fetch

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/scent-crawler/scent/urlnorm"
)

// hit is one request as a test server saw it.
type hit struct {
	path   string // URL path
	uri    string // request target as sent (absolute-form through a proxy)
	at     time.Time
	header http.Header
}

// server is an httptest server on loopback that records every request it
// is sent and how many page requests (robots.txt excluded) it was serving
// at once.
type server struct {
	*httptest.Server
	mu   sync.Mutex
	hits []hit
	cur  int
	peak int
}

// newServer starts a recording server around h; it is closed when the test
// ends.
func newServer(t testing.TB, h http.Handler) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		robots := r.URL.Path == "/robots.txt"
		s.mu.Lock()
		s.hits = append(s.hits, hit{path: r.URL.Path, uri: r.RequestURI, at: time.Now(), header: r.Header.Clone()})
		if !robots {
			s.cur++
			s.peak = max(s.peak, s.cur)
		}
		s.mu.Unlock()
		if !robots {
			defer func() {
				s.mu.Lock()
				s.cur--
				s.mu.Unlock()
			}()
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		s.Close()
		for _, h := range s.requests() {
			if v := h.header.Get(idHeader); v != "" {
				t.Errorf("server saw internal header %s: %q on %s", idHeader, v, h.path)
			}
		}
	})
	return s
}

// url returns the normalized URL of path on s.
func (s *server) url(t testing.TB, path string) urlnorm.URL {
	t.Helper()
	u, err := urlnorm.Parse(s.URL + path)
	if err != nil {
		t.Fatalf("parse %s%s: %v", s.URL, path, err)
	}
	return u
}

func (s *server) requests() []hit {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]hit(nil), s.hits...)
}

// count returns how many requests for path s has seen.
func (s *server) count(path string) int {
	n := 0
	for _, h := range s.requests() {
		if h.path == path {
			n++
		}
	}
	return n
}

// paths returns the paths requested, in order.
func (s *server) paths() []string {
	var p []string
	for _, h := range s.requests() {
		p = append(p, h.path)
	}
	return p
}

// starts returns when each request for a page (robots.txt excluded) came.
func (s *server) starts() []time.Time {
	var ts []time.Time
	for _, h := range s.requests() {
		if h.path != "/robots.txt" {
			ts = append(ts, h.at)
		}
	}
	return ts
}

func (s *server) maxConcurrent() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak
}

// newFetcher builds a Fetcher for tests: quick retries, a timeout that
// only guards against hangs. It is closed when the test ends.
func newFetcher(t testing.TB, cfg Config) *Fetcher {
	t.Helper()
	if cfg.RetryBackoff == 0 {
		cfg.RetryBackoff = time.Millisecond
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	f, err := New(cfg)
	if err != nil {
		t.Fatalf("New(%+v): %v", cfg, err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}

// fetchWithin fetches u with a guard against hangs: a hang fails the test
// instead of blocking the run.
func fetchWithin(t testing.TB, ctx context.Context, f *Fetcher, u urlnorm.URL) (*Result, error) {
	t.Helper()
	type out struct {
		res *Result
		err error
	}
	ch := make(chan out, 1)
	go func() {
		res, err := f.Fetch(ctx, u, nil)
		ch <- out{res, err}
	}()
	select {
	case o := <-ch:
		return o.res, o.err
	case <-time.After(30 * time.Second):
		t.Fatalf("Fetch(%s) did not return within 30s", u)
		return nil, nil
	}
}

// wantReason fails the test unless err is an *Error with the given reason.
func wantReason(t testing.TB, err error, want Reason) *Error {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want reason %q", want)
	}
	fe, ok := err.(*Error)
	if !ok {
		t.Fatalf("error %v is a %T, want *Error", err, err)
	}
	if fe.Reason != want {
		t.Fatalf("reason %q (%v), want %q", fe.Reason, err, want)
	}
	return fe
}

// page answers with an HTML body.
func page(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(body))
	}
}
