package replay

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

func TestHandler_ServeHTTP(t *testing.T) {
	a := openSite(t)
	h := NewHandler(a)
	tests := []struct {
		name     string
		method   string
		target   string // absolute for the proxy form
		host     string // Host header for the relative form
		status   int
		body     string // substring of the body; "" for none
		header   map[string]string
		noHeader []string
	}{
		{
			name: "proxy form", target: "http://a.test/", status: 200, body: "A home",
			header: map[string]string{
				"Content-Type": "text/html", "Last-Modified": "Thursday, 09-Jan-97 21:08:04 GMT",
				"Server": "CERN/3.0", "Date": "Thursday, 16-Jan-97 16:59:15 GMT",
				"Content-Length": strconv.Itoa(mustLookup(t, a, "http://a.test/").Size()),
			},
		},
		{name: "host form", target: "/", host: "a.test", status: 200, body: "A home", header: map[string]string{"Content-Type": "text/html"}},
		{name: "host form, LF headers", target: "/", host: "c.test", status: 200, body: "C home", header: map[string]string{"Last-Modified": "Tue, 19 Nov 1996 16:04:00 GMT"}},
		{name: "bare body gets text/html", target: "http://b.test/", status: 200, body: "B home", header: map[string]string{"Content-Type": "text/html"}},
		{name: "name without slash", target: "/", host: "d.test", status: 200, body: "D home"},
		{name: "non-normal URL", target: "/%7ex/", host: "M.TEST:80", status: 200, body: "x as faculty"},
		{name: "non-normal proxy URL", target: "HTTP://m.test:80/lab/", status: 200, body: "lab as project"},
		{name: "port", target: "/", host: "m.test:8080", status: 200, body: "port 8080"},
		{name: "text/plain", target: "http://a.test/notes.txt", status: 200, body: "see", header: map[string]string{"Content-Type": "text/plain"}},
		{name: "dropped fields", target: "http://m.test/garbled.html", status: 200, body: "garbled", noHeader: []string{"Content-Encoding", "Connection"}},
		{name: "unknown URL", target: "http://a.test/missing.html", status: 404, body: "not in the replayed collection"},
		{name: "unknown host", target: "/", host: "nowhere.test", status: 404},
		{name: "robots.txt not stored", target: "/robots.txt", host: "a.test", status: 404},
		{name: "robots.txt stored", target: "/robots.txt", host: "m.test", status: 200, body: "User-agent", header: map[string]string{"Content-Type": "text/plain"}},
		{name: "dir redirect", target: "http://a.test/courses", status: 301, header: map[string]string{"Location": "http://a.test/courses/"}},
		{name: "dir redirect to index-only dir", target: "/people", host: "a.test", status: 301, header: map[string]string{"Location": "http://a.test/people/"}},
		{name: "dir redirect to index.htm dir", target: "/docs", host: "a.test", status: 301, header: map[string]string{"Location": "http://a.test/docs/"}},
		{name: "dir serves index.html", target: "http://a.test/people/", status: 200, body: "Bob"},
		{name: "dir serves index.htm", target: "http://a.test/docs/", status: 200, body: "docs"},
		{name: "index.html serves dir", target: "http://a.test/courses/cs1/index.html", status: 200, body: "CS1"},
		{name: "index.htm serves dir", target: "http://a.test/courses/index.htm", status: 200, body: "Courses"},
		{name: "stored redirect", target: "http://a.test/moved", status: 301, body: "moved", header: map[string]string{"Location": "http://a.test/people/bob.html"}},
		{name: "HEAD", method: "HEAD", target: "http://a.test/people/bob.html", status: 200, header: map[string]string{"Content-Length": strconv.Itoa(mustLookup(t, a, "http://a.test/people/bob.html").Size())}},
		{name: "HEAD unknown", method: "HEAD", target: "http://a.test/nothing", status: 404},
		{name: "CONNECT", method: "CONNECT", target: "a.test:443", host: "a.test:443", status: 405, body: "CONNECT (https tunnelling) is not supported"},
		{name: "POST", method: "POST", target: "http://a.test/", status: 405, body: "only GET and HEAD", header: map[string]string{"Allow": "GET, HEAD"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method := tt.method
			if method == "" {
				method = "GET"
			}
			r := httptest.NewRequest(method, tt.target, nil)
			if tt.host != "" {
				r.Host = tt.host
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.status {
				t.Errorf("status = %d, want %d (body %q)", w.Code, tt.status, w.Body)
			}
			if !strings.Contains(w.Body.String(), tt.body) {
				t.Errorf("body %q does not contain %q", w.Body, tt.body)
			}
			if method == "HEAD" && w.Body.Len() != 0 {
				t.Errorf("HEAD answered with a body of %d bytes", w.Body.Len())
			}
			for k, v := range tt.header {
				if got := w.Header().Get(k); got != v {
					t.Errorf("header %s = %q, want %q", k, got, v)
				}
			}
			for _, k := range tt.noHeader {
				if got, ok := w.Header()[k]; ok {
					t.Errorf("header %s = %q, want none", k, got)
				}
			}
			if method != "HEAD" {
				if cl := w.Header().Get("Content-Length"); cl != strconv.Itoa(w.Body.Len()) {
					t.Errorf("Content-Length %s for a body of %d bytes", cl, w.Body.Len())
				}
			}
		})
	}
}

func mustLookup(t testing.TB, a *Archive, raw string) *Page {
	t.Helper()
	p, ok := a.Resolve(mustParse(t, raw))
	if !ok {
		t.Fatalf("no page at %s", raw)
	}
	return p
}

// TestHandler_proxy goes through a real http.Client that uses the handler
// as its forward proxy.
func TestHandler_proxy(t *testing.T) {
	a := openSite(t)
	srv := httptest.NewServer(NewHandler(a))
	defer srv.Close()
	proxy, err := http.NewRequest("GET", srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy.URL)}}
	defer client.CloseIdleConnections()

	tests := []struct {
		method, url string
		status      int
		final       string
		body        string
	}{
		{"GET", "http://a.test/", 200, "http://a.test/", "A home"},
		{"GET", "http://a.test/courses", 200, "http://a.test/courses/", "Courses"},    // 301 followed
		{"GET", "http://a.test/moved", 200, "http://a.test/people/bob.html", "Bob"},   // stored redirect followed
		{"GET", "http://a.test/people/", 200, "http://a.test/people/", "../bob.html"}, // index fallback
		{"GET", "http://a.test/missing.html", 404, "http://a.test/missing.html", "not in the replayed"},
		{"HEAD", "http://a.test/", 200, "http://a.test/", ""},
	}
	for _, tt := range tests {
		req, err := http.NewRequest(tt.method, tt.url, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", tt.method, tt.url, err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("%s %s: read body: %v", tt.method, tt.url, err)
		}
		if resp.StatusCode != tt.status || resp.Request.URL.String() != tt.final || !strings.Contains(string(body), tt.body) {
			t.Errorf("%s %s = %d at %s, body %q; want %d at %s containing %q",
				tt.method, tt.url, resp.StatusCode, resp.Request.URL, body, tt.status, tt.final, tt.body)
		}
		if tt.method == "HEAD" && (len(body) != 0 || resp.ContentLength != int64(mustLookup(t, a, tt.url).Size())) {
			t.Errorf("HEAD %s: %d body bytes, Content-Length %d", tt.url, len(body), resp.ContentLength)
		}
	}

	// An https URL makes the transport send CONNECT, which is refused.
	_, err = client.Get("https://a.test/")
	if err == nil || !strings.Contains(err.Error(), "Method Not Allowed") {
		t.Errorf("GET https://a.test/ through the proxy: err = %v, want Method Not Allowed", err)
	}
}

// TestHandler_host sends every host to the handler and lets it route by
// the Host header.
func TestHandler_host(t *testing.T) {
	a := openSite(t)
	srv := httptest.NewServer(NewHandler(a))
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	var d net.Dialer
	client := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		},
	}}
	defer client.CloseIdleConnections()
	for url, want := range map[string]string{
		"http://a.test/people/bob.html": "Bob",
		"http://c.test/":                "C home",
		"http://m.test:8080/":           "port 8080",
		"http://a.test/docs":            "docs", // 301 then index.htm
	} {
		resp, err := client.Get(url)
		if err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), want) {
			t.Errorf("GET %s = %d %q, want 200 containing %q", url, resp.StatusCode, body, want)
		}
	}
}

// TestHandler_find checks that finding a URL already in normal form does
// not allocate.
func TestHandler_find(t *testing.T) {
	a := openSite(t)
	h := NewHandler(a).(*handler)
	proxy := httptest.NewRequest("GET", "http://a.test/people/bob.html", nil)
	host := httptest.NewRequest("GET", "/people/bob.html", nil)
	host.Host = "a.test"
	for name, r := range map[string]*http.Request{"proxy": proxy, "host": host} {
		var rt *route
		allocs := testing.AllocsPerRun(100, func() { rt = h.find(r) })
		if rt == nil || rt.page.Name != "student/cornell/http:^^a.test^people^bob.html" {
			t.Fatalf("%s: find = %v", name, rt)
		}
		if allocs != 0 {
			t.Errorf("%s: find allocates %.1f times per request", name, allocs)
		}
	}
}

func BenchmarkHandler(b *testing.B) {
	bench := func(b *testing.B, a *Archive) {
		h := NewHandler(a)
		var reqs []*http.Request
		for _, p := range a.Pages() {
			r := httptest.NewRequest("GET", "/", nil)
			r.RequestURI = p.URL.RequestURI()
			r.URL.Path = p.URL.Path()
			r.Host = p.URL.Host()
			reqs = append(reqs, r)
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, reqs[i%len(reqs)])
			if w.Code != 200 && w.Code != 301 && w.Code != 302 {
				b.Fatalf("%s: status %d", reqs[i%len(reqs)].Host, w.Code)
			}
			i++
		}
	}
	b.Run("site", func(b *testing.B) { bench(b, openSite(b)) })
	b.Run("corpus", func(b *testing.B) { bench(b, openCorpus(b)) })
	// The handler alone, with a writer that keeps its header map and
	// discards the body.
	b.Run("corpus-discard", func(b *testing.B) {
		a := openCorpus(b)
		h := NewHandler(a)
		var reqs []*http.Request
		for _, p := range a.Pages() {
			reqs = append(reqs, httptest.NewRequest("GET", p.URL.String(), nil))
		}
		w := &discardWriter{header: make(http.Header)}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			clear(w.header)
			h.ServeHTTP(w, reqs[i%len(reqs)])
			i++
		}
	})
}

// discardWriter is a ResponseWriter that reuses one header map.
type discardWriter struct {
	header http.Header
	status int
}

func (w *discardWriter) Header() http.Header         { return w.header }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *discardWriter) WriteHeader(status int)      { w.status = status }
