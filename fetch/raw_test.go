package fetch

import (
	"bytes"
	"compress/flate"
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

func TestFetcher_Fetch_keepRaw(t *testing.T) {
	latin1 := []byte("<html><body>caf\xe9</body></html>") // "café" in ISO-8859-1
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/old":
			http.Redirect(w, r, "/new", http.StatusMovedPermanently)
		case "/new":
			w.Header().Set("Content-Type", "text/html; charset=iso-8859-1")
			w.Header().Set("X-Test", "yes")
			_, _ = w.Write(latin1)
		default:
			http.NotFound(w, r)
		}
	}))
	for _, keep := range []bool{false, true} {
		f, err := New(Config{KeepRaw: keep, IgnoreRobots: true})
		if err != nil {
			t.Fatal(err)
		}
		res, err := f.Fetch(context.Background(), s.url(t, "/old"), nil)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !keep {
			if res.Exchanges != nil {
				t.Errorf("exchanges kept without KeepRaw")
			}
			continue
		}
		if len(res.Exchanges) != 2 {
			t.Fatalf("%d exchanges, want the redirect and the page", len(res.Exchanges))
		}
		red, pg := res.Exchanges[0], res.Exchanges[1]
		if !strings.HasPrefix(string(red.Request), "GET /old HTTP/1.1\r\nHost: ") || !strings.HasPrefix(string(red.Response), "HTTP/1.1 301 Moved Permanently\r\n") {
			t.Errorf("redirect exchange %q / %q", red.Request, red.Response)
		}
		if !strings.Contains(string(pg.Request), "User-Agent: "+DefaultUserAgent+"\r\n") || strings.Contains(string(pg.Request), idHeader) {
			t.Errorf("page request %q", pg.Request)
		}
		if !bytes.Equal(pg.Body(), latin1) || pg.Truncated {
			t.Errorf("raw body %q (truncated %v), want the bytes sent %q", pg.Body(), pg.Truncated, latin1)
		}
		if !strings.Contains(string(pg.Response), "X-Test: yes\r\n") || pg.URL != s.URL+"/new" {
			t.Errorf("page response %q for %s", pg.Response, pg.URL)
		}
		if bytes.Equal(res.Body, latin1) {
			t.Errorf("decoded body should be UTF-8")
		}
	}
}

// TestFetcher_Fetch_keepRawLarge: a response longer than streamAt is
// compressed as it is read; it reads back as sent, whole or cut at the
// body limit, with the length or chunked, and is held compressed only.
func TestFetcher_Fetch_keepRawLarge(t *testing.T) {
	body := make([]byte, 3*streamAt)
	for i := range body {
		body[i] = "<p>scent </p>\n"[i%14]
	}
	copy(body[streamAt:], bytes.Repeat([]byte{0xe9, 0x01, 0x7f}, 1000)) // not only text
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/length" {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		}
		for i := 0; i < len(body); i += 32 << 10 {
			_, _ = w.Write(body[i:min(i+32<<10, len(body))])
		}
	}))
	for _, c := range []struct {
		path      string
		limit     int64
		truncated bool
	}{
		{"/length", 0, false},
		{"/chunked", 0, false},
		{"/chunked", 2 * streamAt, true},
	} {
		f, err := New(Config{KeepRaw: true, IgnoreRobots: true, MaxBodyBytes: c.limit})
		if err != nil {
			t.Fatal(err)
		}
		res, err := f.Fetch(context.Background(), s.url(t, c.path), nil)
		f.Close()
		if c.truncated {
			if err == nil {
				t.Fatalf("%s past a %d-byte limit: no error", c.path, c.limit)
			}
			if res == nil || len(res.Exchanges) != 1 {
				t.Fatalf("%s past the limit: result %+v", c.path, res)
			}
		} else if err != nil || len(res.Exchanges) != 1 {
			t.Fatalf("%s: %v, %+v", c.path, err, res)
		}
		e := res.Exchanges[0]
		raw, err := e.RawResponse()
		if err != nil {
			t.Fatal(err)
		}
		want := body
		if c.truncated {
			want = body[:c.limit+1] // the limit and the byte that passed it
		}
		if e.Response != nil || e.Truncated != c.truncated || !bytes.Equal(e.Body(), want) || e.ResponseSize() != len(raw) {
			t.Errorf("%s: held plain %v, truncated %v, body of %d bytes (want %d, equal %v), size %d of %d",
				c.path, e.Response != nil, e.Truncated, len(e.Body()), len(want), bytes.Equal(e.Body(), want), e.ResponseSize(), len(raw))
		}
		if !strings.HasPrefix(string(raw), "HTTP/1.1 200 OK\r\n") {
			t.Errorf("%s: response starts %q", c.path, raw[:min(40, len(raw))])
		}
		if _, z := e.Deflated(); len(z) > len(raw)/4 {
			t.Errorf("%s: %d bytes compressed to %d", c.path, len(raw), len(z))
		} else if back, err := InflateRaw(z); err != nil || !bytes.Equal(back, raw) {
			t.Errorf("%s: Deflated reads back as %d bytes, %v", c.path, len(back), err)
		}
	}
}

// TestExchange_Deflated compresses exchanges against RawDict and reads
// them back, and checks that the dictionary pays on a small exchange.
func TestExchange_Deflated(t *testing.T) {
	e := &Exchange{
		Request:  []byte("GET /~cs101/ HTTP/1.1\r\nHost: www.cs.wisc.edu\r\nAccept: text/html,application/xhtml+xml;q=0.9,*/*;q=0.1\r\nUser-Agent: scent/0.1 (focused crawler; +https://github.com/scent-crawler/scent)\r\n\r\n"),
		Response: []byte("HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nContent-Type: text/plain; charset=utf-8\r\nDate: Wed, 25 Nov 2026 01:13:03 GMT\r\nX-Content-Type-Options: nosniff\r\n\r\nnot found"),
	}
	req, resp := e.Deflated()
	for _, c := range []struct{ raw, z []byte }{{e.Request, req}, {e.Response, resp}} {
		got, err := InflateRaw(c.z)
		if err != nil || !bytes.Equal(got, c.raw) {
			t.Fatalf("InflateRaw = %q, %v; want %q", got, err, c.raw)
		}
		var plain bytes.Buffer
		w, _ := flate.NewWriter(&plain, flate.BestSpeed)
		w.Write(c.raw)
		w.Close()
		if len(c.z)*2 > plain.Len() {
			t.Errorf("%d bytes compress to %d with the dictionary, %d without: want at most half", len(c.raw), len(c.z), plain.Len())
		}
	}
}

// BenchmarkDeflateRaw compresses one request and one 404 answer, the
// exchanges most fetches of a crawl record, as the fetcher does
// (deflateRaw) and through a DEFLATE writer at rawLevel (the way taken
// for exchanges over rawSmall bytes).
func BenchmarkDeflateRaw(b *testing.B) {
	req := []byte("GET /~someone/courses/cs100.html HTTP/1.1\r\nHost: www.cs.example.edu\r\nAccept: text/html,application/xhtml+xml;q=0.9,*/*;q=0.1\r\nUser-Agent: scent/0.1 (focused crawler; +https://github.com/scent-crawler/scent)\r\n\r\n")
	resp := []byte("HTTP/1.1 404 Not Found\r\nContent-Length: 19\r\nContent-Type: text/plain; charset=utf-8\r\nDate: Thu, 26 Nov 2026 13:40:00 GMT\r\nX-Content-Type-Options: nosniff\r\n\r\n404 page not found\n")
	for _, c := range []struct {
		name string
		f    func([]byte) []byte
	}{
		{"small", deflateRaw},
		{"writer", func(in []byte) []byte { return rawWriters.Append(nil, in) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			n := 0
			for b.Loop() {
				n = len(c.f(req)) + len(c.f(resp))
			}
			b.ReportMetric(float64(n), "bytes")
		})
	}
}
