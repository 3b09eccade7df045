package fetch

import (
	"bytes"
	"context"
	"net/http"
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
