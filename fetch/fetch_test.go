package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scent-crawler/scent/urlnorm"
)

func TestFetcher_Fetch(t *testing.T) {
	const html = "<html><body><p>hello</p></body></html>"
	typed := func(ct, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ct)
			_, _ = io.WriteString(w, body)
		}
	}
	tests := []struct {
		name    string
		handler http.HandlerFunc
		types   []string
		status  int
		reason  Reason // "" for success
		body    string // wanted body on success
		ctype   string // wanted ContentType on success
		hits    int
	}{
		{name: "html", handler: page(html), status: 200, body: html, ctype: "text/html; charset=utf-8", hits: 1},
		{name: "xhtml", handler: typed("application/xhtml+xml", html), status: 200, body: html,
			ctype: "application/xhtml+xml", hits: 1},
		{name: "media type case", handler: typed("Text/HTML", html), status: 200, body: html, ctype: "Text/HTML", hits: 1},
		{name: "malformed parameters", handler: typed("text/html;;;", html), status: 200, body: html,
			ctype: "text/html;;;", hits: 1},
		{name: "no content type is html", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header()["Content-Type"] = nil // no sniffing either
			_, _ = io.WriteString(w, html)
		}, status: 200, body: html, ctype: "", hits: 1},
		{name: "empty body", handler: typed("text/html", ""), status: 200, body: "", ctype: "text/html", hits: 1},
		{name: "not found is not retried", handler: http.NotFound, status: 404, reason: ReasonStatus, hits: 1},
		{name: "forbidden", handler: func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "no", http.StatusForbidden)
		}, status: 403, reason: ReasonStatus, hits: 1},
		{name: "png refused", handler: typed("image/png", "\x89PNG"), status: 200, reason: ReasonContentType, hits: 1},
		{name: "octet-stream refused", handler: typed("application/octet-stream", "bin"), status: 200,
			reason: ReasonContentType, hits: 1},
		{name: "text/plain refused by default", handler: typed("text/plain", "x"), status: 200,
			reason: ReasonContentType, hits: 1},
		{name: "text/plain listed", handler: typed("text/plain", "x"), types: []string{"text/plain"},
			status: 200, body: "x", ctype: "text/plain", hits: 1},
		{name: "star accepts png", handler: typed("image/png", "\x89PNG"), types: []string{"*"},
			status: 200, body: "\x89PNG", ctype: "image/png", hits: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, tt.handler)
			f := newFetcher(t, Config{ContentTypes: tt.types})
			u := s.url(t, "/p?q=1")
			res, err := fetchWithin(t, context.Background(), f, u)
			if tt.reason != "" {
				fe := wantReason(t, err, tt.reason)
				if fe.Status != tt.status {
					t.Errorf("Status = %d, want %d", fe.Status, tt.status)
				}
				if fe.URL != u {
					t.Errorf("error URL = %s, want %s", fe.URL, u)
				}
			} else {
				if err != nil {
					t.Fatalf("Fetch: %v", err)
				}
				if res.Status != tt.status || string(res.Body) != tt.body || res.ContentType != tt.ctype {
					t.Errorf("got status %d body %q type %q, want %d %q %q",
						res.Status, res.Body, res.ContentType, tt.status, tt.body, tt.ctype)
				}
				if res.URL != u || res.FinalURL != u || res.Attempts != 1 {
					t.Errorf("URL %s FinalURL %s Attempts %d, want %s %s 1", res.URL, res.FinalURL, res.Attempts, u, u)
				}
				if res.Header == nil {
					t.Error("Header is nil")
				}
			}
			if n := s.count("/p"); n != tt.hits {
				t.Errorf("server saw %d requests, want %d", n, tt.hits)
			}
		})
	}
}

func TestFetcher_Fetch_statusErrorKeepsResponse(t *testing.T) {
	s := newServer(t, http.NotFoundHandler())
	f := newFetcher(t, Config{})
	res, err := f.Fetch(context.Background(), s.url(t, "/gone"), nil)
	wantReason(t, err, ReasonStatus)
	if res == nil || res.Status != 404 || !strings.Contains(string(res.Body), "not found") {
		t.Fatalf("got result %+v, want the 404 response with its body", res)
	}
	if ReasonOf(err) != ReasonStatus || !strings.Contains(err.Error(), "HTTP 404") {
		t.Errorf("error %q does not say HTTP 404", err)
	}
}

func TestFetcher_Fetch_headers(t *testing.T) {
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		page("<p>v1</p>")(w, r)
	}))
	f := newFetcher(t, Config{UserAgent: "scent-test/1"})
	u := s.url(t, "/")
	res, err := f.Fetch(context.Background(), u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Header.Get("ETag") != `"v1"` {
		t.Fatalf("ETag = %q", res.Header.Get("ETag"))
	}
	hdr := http.Header{"If-None-Match": {`"v1"`}}
	res, err = f.Fetch(context.Background(), u, hdr)
	if err != nil {
		t.Fatalf("conditional fetch: %v", err)
	}
	if res.Status != http.StatusNotModified || len(res.Body) != 0 {
		t.Errorf("got %d with %d bytes, want 304 and no body", res.Status, len(res.Body))
	}
	if len(hdr) != 1 || hdr.Get(idHeader) != "" {
		t.Errorf("caller's header was modified: %v", hdr)
	}
	for _, h := range s.requests() {
		if ua := h.header.Get("User-Agent"); ua != "scent-test/1" {
			t.Errorf("%s sent with User-Agent %q", h.path, ua)
		}
	}
	if a := s.requests()[1].header.Get("Accept"); !strings.Contains(a, "text/html") {
		t.Errorf("Accept = %q, want text/html in it", a)
	}
}

func TestFetcher_Fetch_zeroURL(t *testing.T) {
	f := newFetcher(t, Config{})
	_, err := f.Fetch(context.Background(), urlnorm.URL{}, nil)
	wantReason(t, err, ReasonBadURL)
}

// sequence answers the i-th request for any path with statuses[i], the
// last one repeating; a status of 200 sends a page.
type sequence struct {
	n          atomic.Int32
	statuses   []int
	retryAfter string
}

func (q *sequence) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/robots.txt" {
		http.NotFound(w, r)
		return
	}
	i := min(int(q.n.Add(1))-1, len(q.statuses)-1)
	st := q.statuses[i]
	if st == http.StatusOK {
		page("<p>ok</p>")(w, r)
		return
	}
	if q.retryAfter != "" {
		w.Header().Set("Retry-After", q.retryAfter)
	}
	http.Error(w, http.StatusText(st), st)
}

func TestFetcher_Fetch_retries(t *testing.T) {
	tests := []struct {
		name       string
		statuses   []int
		retryAfter string
		retries    int
		reason     Reason
		status     int
		hits       int
	}{
		{name: "500 500 200", statuses: []int{500, 500, 200}, retries: 2, status: 200, hits: 3},
		{name: "500 always", statuses: []int{500}, retries: 2, reason: ReasonStatus, status: 500, hits: 3},
		{name: "no retries", statuses: []int{502, 200}, retries: -1, reason: ReasonStatus, status: 502, hits: 1},
		{name: "one retry", statuses: []int{503, 503, 200}, retries: 1, reason: ReasonStatus, status: 503, hits: 2},
		{name: "429 backoff", statuses: []int{429, 200}, retries: 2, status: 200, hits: 2},
		{name: "retry-after zero", statuses: []int{503, 200}, retryAfter: "0", retries: 2, status: 200, hits: 2},
		{name: "past retry-after date", statuses: []int{429, 200}, retryAfter: "Mon, 02 Jan 2006 15:04:05 GMT",
			retries: 2, status: 200, hits: 2},
		{name: "unparsable retry-after", statuses: []int{503, 200}, retryAfter: "soon", retries: 2, status: 200, hits: 2},
		{name: "404 not retried", statuses: []int{404, 200}, retries: 2, reason: ReasonStatus, status: 404, hits: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := &sequence{statuses: tt.statuses, retryAfter: tt.retryAfter}
			s := newServer(t, q)
			f := newFetcher(t, Config{Retries: tt.retries})
			res, err := fetchWithin(t, context.Background(), f, s.url(t, "/r"))
			if tt.reason != "" {
				if fe := wantReason(t, err, tt.reason); fe.Status != tt.status {
					t.Errorf("Status = %d, want %d", fe.Status, tt.status)
				}
			} else {
				if err != nil {
					t.Fatalf("Fetch: %v", err)
				}
				if res.Status != tt.status || res.Attempts != tt.hits {
					t.Errorf("status %d after %d attempts, want %d after %d", res.Status, res.Attempts, tt.status, tt.hits)
				}
			}
			if n := s.count("/r"); n != tt.hits {
				t.Errorf("server saw %d requests, want %d", n, tt.hits)
			}
		})
	}
}

func TestFetcher_Fetch_retryAfterHonoured(t *testing.T) {
	q := &sequence{statuses: []int{503, 200}, retryAfter: "1"}
	s := newServer(t, q)
	f := newFetcher(t, Config{})
	res, err := fetchWithin(t, context.Background(), f, s.url(t, "/busy"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Attempts != 2 {
		t.Errorf("Attempts = %d, want 2", res.Attempts)
	}
	st := s.starts()
	if len(st) != 2 {
		t.Fatalf("server saw %d requests, want 2", len(st))
	}
	if gap := st[1].Sub(st[0]); gap < 900*time.Millisecond {
		t.Errorf("second request came %v after the first, want at least ~1s", gap)
	}
}

func TestFetcher_Fetch_retryAfterTooLong(t *testing.T) {
	tests := []struct {
		status     int
		retryAfter string
	}{
		{503, "120"},
		{429, "120"},
		{503, time.Now().Add(2 * time.Hour).UTC().Format(http.TimeFormat)},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.status, " ", tt.retryAfter), func(t *testing.T) {
			q := &sequence{statuses: []int{tt.status, 200}, retryAfter: tt.retryAfter}
			s := newServer(t, q)
			f := newFetcher(t, Config{MaxRetryAfter: 2 * time.Second})
			// Had the fetcher waited as asked, the context would end first
			// and the reason would be ReasonCanceled.
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, err := fetchWithin(t, ctx, f, s.url(t, "/busy"))
			fe := wantReason(t, err, ReasonRetryAfter)
			if fe.Status != tt.status {
				t.Errorf("Status = %d, want %d", fe.Status, tt.status)
			}
			if n := s.count("/busy"); n != 1 {
				t.Errorf("server saw %d requests, want 1", n)
			}
		})
	}
}

func TestFetcher_Fetch_backoffCappedByMaxRetryAfter(t *testing.T) {
	// A computed backoff longer than MaxRetryAfter is shortened to it; it
	// is not a server demand and must not fail the page.
	q := &sequence{statuses: []int{500, 200}}
	s := newServer(t, q)
	f := newFetcher(t, Config{RetryBackoff: time.Hour, MaxRetryAfter: 50 * time.Millisecond})
	res, err := fetchWithin(t, context.Background(), f, s.url(t, "/x"))
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if res.Attempts != 2 {
		t.Errorf("Attempts = %d, want 2", res.Attempts)
	}
}

func TestFetcher_Fetch_networkError(t *testing.T) {
	var n atomic.Int32
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				_ = conn.Close() // no answer at all
			}
			return
		}
		page("<p>ok</p>")(w, r)
	}))
	for _, tt := range []struct {
		retries  int
		reason   Reason
		attempts int
	}{
		{retries: -1, reason: ReasonNetwork},
		{retries: 1, attempts: 2},
	} {
		n.Store(0)
		f := newFetcher(t, Config{Retries: tt.retries, IgnoreRobots: true})
		res, err := fetchWithin(t, context.Background(), f, s.url(t, "/"))
		if tt.reason != "" {
			wantReason(t, err, tt.reason)
			continue
		}
		if err != nil {
			t.Fatalf("retries %d: %v", tt.retries, err)
		}
		if res.Attempts != tt.attempts {
			t.Errorf("retries %d: Attempts = %d, want %d", tt.retries, res.Attempts, tt.attempts)
		}
	}
}

// streamer sends total bytes of type ctype, announcing the length or not,
// and reports on written how many bytes its writes accepted before failing.
func streamer(ctype string, total int64, announce bool, written chan<- int64) http.HandlerFunc {
	chunk := bytes.Repeat([]byte("<p>0123456789</p>\n"), 2000) // 36 000 bytes
	return func(w http.ResponseWriter, r *http.Request) {
		var n int64
		defer func() { written <- n }()
		w.Header().Set("Content-Type", ctype)
		if announce {
			w.Header().Set("Content-Length", strconv.FormatInt(total, 10))
		}
		rc := http.NewResponseController(w)
		for n < total {
			k, err := w.Write(chunk[:min(int64(len(chunk)), total-n)])
			n += int64(k)
			if err != nil {
				return
			}
			if !announce {
				if rc.Flush() != nil {
					return
				}
			}
		}
	}
}

func TestFetcher_Fetch_bodyLimit(t *testing.T) {
	const limit = 64 << 10
	const huge = 50 << 20
	tests := []struct {
		name     string
		total    int64
		announce bool
		reason   Reason
	}{
		{name: "announced 50 MB", total: huge, announce: true, reason: ReasonTooLarge},
		{name: "chunked 50 MB", total: huge, reason: ReasonTooLarge},
		{name: "chunked one over", total: limit + 1, reason: ReasonTooLarge},
		{name: "announced one over", total: limit + 1, announce: true, reason: ReasonTooLarge},
		{name: "chunked at limit", total: limit},
		{name: "announced at limit", total: limit, announce: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			written := make(chan int64, 4)
			s := newServer(t, streamer("text/html", tt.total, tt.announce, written))
			f := newFetcher(t, Config{MaxBodyBytes: limit, Retries: 2, IgnoreRobots: true})
			res, err := fetchWithin(t, context.Background(), f, s.url(t, "/big"))
			var sent int64
			select {
			case sent = <-written:
			case <-time.After(20 * time.Second):
				t.Fatal("the server is still writing: the body was not abandoned")
			}
			if tt.reason == "" {
				if err != nil {
					t.Fatalf("Fetch: %v", err)
				}
				if int64(len(res.Body)) != tt.total {
					t.Errorf("body has %d bytes, want %d", len(res.Body), tt.total)
				}
				return
			}
			fe := wantReason(t, err, tt.reason)
			if fe.Status != 200 {
				t.Errorf("Status = %d, want 200", fe.Status)
			}
			if res != nil && len(res.Body) != 0 {
				t.Errorf("a refused body was returned (%d bytes)", len(res.Body))
			}
			if n := s.count("/big"); n != 1 {
				t.Errorf("server saw %d requests, want 1 (too large is final)", n)
			}
			t.Logf("server sent %d of %d bytes", sent, tt.total)
			if tt.total == huge && sent > 16<<20 {
				t.Errorf("server sent %d bytes of %d: the body was downloaded", sent, tt.total)
			}
		})
	}
}

func TestFetcher_Fetch_refusedTypeNotDownloaded(t *testing.T) {
	const huge = 50 << 20
	written := make(chan int64, 1)
	s := newServer(t, streamer("application/octet-stream", huge, true, written))
	f := newFetcher(t, Config{IgnoreRobots: true, MaxBodyBytes: 1 << 30})
	_, err := fetchWithin(t, context.Background(), f, s.url(t, "/file.bin"))
	wantReason(t, err, ReasonContentType)
	select {
	case sent := <-written:
		t.Logf("server sent %d of %d bytes", sent, huge)
		if sent > 16<<20 {
			t.Errorf("server sent %d bytes of %d: the refused body was downloaded", sent, huge)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the server is still writing: the body was not abandoned")
	}
}

func BenchmarkFetch(b *testing.B) {
	body := strings.Repeat("<p>a small page of text</p>\n", 100) // 2.8 kB
	s := newServer(b, page(body))
	f := newFetcher(b, Config{})
	u := s.url(b, "/bench")
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := f.Fetch(ctx, u, nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Body) != len(body) {
			b.Fatalf("body has %d bytes, want %d", len(res.Body), len(body))
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

// BenchmarkFetch_large fetches a 4 MB page, keeping the raw exchange as
// a crawl does, from a server that gives its length and from one that
// sends it chunked: its B/op is what one large page costs the fetcher
// (colly's read of the body, the raw response and its compressed form).
func BenchmarkFetch_large(b *testing.B) {
	body := []byte(strings.Repeat("<p>a large page of text, line after line of it</p>\n", 4<<20/50))
	for _, c := range []struct {
		name   string
		length bool
	}{{"length", true}, {"chunked", false}} {
		b.Run(c.name, func(b *testing.B) {
			s := newServer(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				if c.length {
					w.Header().Set("Content-Length", strconv.Itoa(len(body)))
				}
				for i := 0; i < len(body); i += 64 << 10 {
					_, _ = w.Write(body[i:min(i+64<<10, len(body))])
				}
			}))
			f := newFetcher(b, Config{KeepRaw: true})
			u := s.url(b, "/bench")
			ctx := context.Background()
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				res, err := f.Fetch(ctx, u, nil)
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Body) != len(body) || len(res.Exchanges) != 1 || res.Exchanges[0].Truncated {
					b.Fatalf("body has %d bytes, want %d; %d exchanges", len(res.Body), len(body), len(res.Exchanges))
				}
			}
		})
	}
}

// TestFetcher_Fetch_answeredThenBroken: a server that sends its status
// and headers and then stalls or breaks off its body answered: the
// failure is transient (fetched again later) but not a sign that the
// network is down (Unreachable), unlike a server that never answers.
func TestFetcher_Fetch_answeredThenBroken(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/stall":
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusOK)
			fmt.Fprint(w, "<html><body>a start")
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
			}
		case "/short":
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Length", "1000")
			w.WriteHeader(http.StatusOK)
			fmt.Fprint(w, "<html><body>less than promised")
		case "/silent":
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close() // no answer at all
			}
		}
	}))
	f := newFetcher(t, Config{Timeout: 300 * time.Millisecond, Retries: -1})
	for _, tc := range []struct {
		path     string
		answered bool
	}{{"/stall", true}, {"/short", true}, {"/silent", false}} {
		_, err := fetchWithin(t, context.Background(), f, s.url(t, tc.path))
		var fe *Error
		if !errors.As(err, &fe) {
			t.Fatalf("%s: error %v, want a fetch error", tc.path, err)
		}
		if fe.Answered != tc.answered || Unreachable(err) == tc.answered || !Transient(err) {
			t.Errorf("%s: %v: answered %v, unreachable %v, transient %v; want answered %v, transient", tc.path, err, fe.Answered, Unreachable(err), Transient(err), tc.answered)
		}
	}
}

// TestFetcher_Fetch_redirectWithoutLocation: a 3xx answer with no
// Location, or an empty one, is a failed fetch, not a page.
func TestFetcher_Fetch_redirectWithoutLocation(t *testing.T) {
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/empty" {
			w.Header()["Location"] = []string{""}
		}
		w.WriteHeader(http.StatusFound)
	}))
	f := newFetcher(t, Config{})
	for _, ctx := range []context.Context{context.Background(), WithoutRedirects(context.Background())} {
		for _, p := range []string{"/none", "/empty"} {
			_, err := fetchWithin(t, ctx, f, s.url(t, p))
			wantReason(t, err, ReasonRedirect)
			if err == nil || !strings.Contains(err.Error(), "without a Location") {
				t.Errorf("%s: %v", p, err)
			}
		}
	}
}

// TestFetcher_Fetch_brokenEncodingAndLocation: a body that says it is
// gzip and is not, and a redirect to a Location that does not parse, are
// failures of the page (encoding, bad-url), not of the network: not
// fetched again.
func TestFetcher_Fetch_brokenEncodingAndLocation(t *testing.T) {
	var asked atomic.Int32
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			return
		case "/gzip":
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Encoding", "gzip")
			fmt.Fprint(w, "<html><body>not gzip at all</body></html>")
		case "/loc":
			w.Header()["Location"] = []string{"http://[::1"}
			w.WriteHeader(http.StatusFound)
		}
		asked.Add(1)
	}))
	f := newFetcher(t, Config{Retries: 2})
	for path, want := range map[string]Reason{"/gzip": ReasonEncoding, "/loc": ReasonBadURL} {
		asked.Store(0)
		_, err := fetchWithin(t, context.Background(), f, s.url(t, path))
		wantReason(t, err, want)
		if Transient(err) || asked.Load() != 1 {
			t.Errorf("%s: %v: transient %v, asked %d times; want a final failure, asked once", path, err, Transient(err), asked.Load())
		}
	}
}

// TestFetcher_Fetch_noCookies: a cookie a host sets is not sent back.
func TestFetcher_Fetch_noCookies(t *testing.T) {
	var sent atomic.Int32
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		if _, err := r.Cookie("sid"); err == nil {
			sent.Add(1)
		}
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "abc", Path: "/"})
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body>a page</body></html>")
	}))
	f := newFetcher(t, Config{})
	for _, p := range []string{"/a", "/b"} {
		if _, err := fetchWithin(t, context.Background(), f, s.url(t, p)); err != nil {
			t.Fatal(err)
		}
	}
	if n := sent.Load(); n != 0 {
		t.Errorf("the cookie was sent back %d times", n)
	}
}

// TestFetcher_Fetch_gzipBomb: a small gzip body that inflates far past
// --max-body fails as too-large, having read no more than the limit,
// wherever it is decompressed: by the transport (Content-Encoding), or
// as colly would (a Content-Type naming gzip, a path ending in .xml.gz).
// A body there that is not gzip is an encoding failure; a real one is
// read.
func TestFetcher_Fetch_gzipBomb(t *testing.T) {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	zero := make([]byte, 1<<20)
	for range 200 {
		zw.Write(zero) //nolint:errcheck // a bytes.Buffer does not fail
	}
	zw.Close() //nolint:errcheck // a bytes.Buffer does not fail
	bomb := b.Bytes()
	page := gzipBytes(t, "<html><body>inflated page</body></html>")
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := bomb
		switch r.URL.Path {
		case "/robots.txt":
			http.NotFound(w, r)
			return
		case "/encoding":
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Encoding", "gzip")
		case "/type", "/type-page", "/type-broken":
			w.Header().Set("Content-Type", "text/html; x=gzip")
		case "/s.xml.gz":
			w.Header().Set("Content-Type", "text/html")
		}
		switch r.URL.Path {
		case "/type-page":
			body = page
		case "/type-broken":
			body = []byte("<html>not gzip</html>")
		}
		w.Write(body) //nolint:errcheck // the client may have gone
	}))
	f := newFetcher(t, Config{MaxBodyBytes: 1 << 20, Retries: -1})
	for _, path := range []string{"/encoding", "/type", "/s.xml.gz"} {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		_, err := fetchWithin(t, context.Background(), f, s.url(t, path))
		runtime.ReadMemStats(&m1)
		wantReason(t, err, ReasonTooLarge)
		if got := m1.TotalAlloc - m0.TotalAlloc; got > 32<<20 {
			t.Errorf("%s: %d MB allocated for a 1 MB limit (the bomb inflates to 200 MB)", path, got>>20)
		}
	}
	res, err := fetchWithin(t, context.Background(), f, s.url(t, "/type-page"))
	if err != nil || !strings.Contains(string(res.Body), "inflated page") {
		t.Errorf("a gzip page named so by its type: %v, body %q", err, res.Body)
	}
	_, err = fetchWithin(t, context.Background(), f, s.url(t, "/type-broken"))
	wantReason(t, err, ReasonEncoding)
}

func gzipBytes(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestFetcher_Fetch_hugeHeader: a response header of 8 MB fails the page
// as too-large, once, without reading it whole.
func TestFetcher_Fetch_hugeHeader(t *testing.T) {
	var asked atomic.Int32
	big := strings.Repeat("a", 8<<20)
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		asked.Add(1)
		w.Header().Set("X-Big", big)
		fmt.Fprint(w, "<html><body>page</body></html>")
	}))
	f := newFetcher(t, Config{Retries: 2})
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	_, err := fetchWithin(t, context.Background(), f, s.url(t, "/h"))
	runtime.ReadMemStats(&m1)
	wantReason(t, err, ReasonTooLarge)
	if asked.Load() != 1 {
		t.Errorf("asked %d times, want once: the failure is final", asked.Load())
	}
	if got := m1.TotalAlloc - m0.TotalAlloc; got > 8<<20 {
		t.Errorf("%d MB allocated for an 8 MB header", got>>20)
	}
}
