package fetch

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/scent-crawler/scent/urlnorm"
)

// TestTransient: which real failures a crawl fetches again later
// (Transient) and which say that no answer came at all (Unreachable). An
// answer of any kind, even a refusal or garbage, is not "no answer".
func TestTransient(t *testing.T) {
	hijack := func(write string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Write([]byte(write))
				conn.Close()
			}
		}
	}
	dropped := newServer(t, hijack(""))
	garbage := newServer(t, hijack("HELLO THERE\r\n\r\n"))
	unavailable := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "busy", http.StatusServiceUnavailable)
	}))
	missing := newServer(t, http.HandlerFunc(http.NotFound))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/"
	ln.Close()
	// A proxy that refuses every tunnel, as a replay does for https.
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no tunnels", http.StatusMethodNotAllowed)
	}))
	defer refusing.Close()

	for _, tt := range []struct {
		name                   string
		cfg                    Config
		url                    string
		transient, unreachable bool
	}{
		{name: "connection closed before the answer", url: dropped.url(t, "/").String(), transient: true, unreachable: true},
		{name: "connection refused", url: closed, transient: true, unreachable: true},
		{name: "503", url: unavailable.url(t, "/").String(), transient: true},
		{name: "404", url: missing.url(t, "/").String()},
		{name: "malformed answer", url: garbage.url(t, "/").String()},
		{name: "proxy refuses the tunnel", cfg: Config{Proxy: refusing.URL}, url: "https://secure.example/"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.Retries, cfg.IgnoreRobots = -1, true
			f := newFetcher(t, cfg)
			u, err := urlnorm.Parse(tt.url)
			if err != nil {
				t.Fatal(err)
			}
			_, err = fetchWithin(t, context.Background(), f, u)
			if err == nil {
				t.Fatal("fetch succeeded")
			}
			if got := Transient(err); got != tt.transient {
				t.Errorf("Transient(%v) = %v, want %v", err, got, tt.transient)
			}
			if got := Unreachable(err); got != tt.unreachable {
				t.Errorf("Unreachable(%v) = %v, want %v", err, got, tt.unreachable)
			}
		})
	}
}

// TestClassifyErr_noSuchHost: a name server's "no such host" is final at
// once (asking again gets the same answer); a name server that did not
// answer is retried.
func TestClassifyErr_noSuchHost(t *testing.T) {
	u := urlnorm.MustParse("http://gone.example/")
	for _, tt := range []struct {
		dns   *net.DNSError
		final bool
	}{
		{&net.DNSError{Err: "no such host", Name: "gone.example", IsNotFound: true}, true},
		{&net.DNSError{Err: "server misbehaving", Name: "gone.example", IsTemporary: true}, false},
	} {
		err := &url.Error{Op: "Get", URL: u.String(), Err: &net.OpError{Op: "dial", Net: "tcp", Err: tt.dns}}
		_, wait, ferr := classifyErr(u, err, false)
		if got := wait < 0; got != tt.final {
			t.Errorf("%v: final %v (wait %v), want %v", tt.dns, got, wait, tt.final)
		}
		if Transient(ferr) == tt.final {
			t.Errorf("%v: Transient %v, want %v", tt.dns, !tt.final, !tt.final)
		}
	}
}
