package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/text/encoding/korean"

	"github.com/scent-crawler/scent/urlnorm"
)

func redirectTo(loc string, code int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", loc)
		w.WriteHeader(code)
	}
}

func TestFetcher_Fetch_redirects(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("/loop/a", redirectTo("/loop/b", http.StatusFound))
	mux.Handle("/loop/b", redirectTo("/loop/a", http.StatusMovedPermanently))
	mux.Handle("/self", redirectTo("/self", http.StatusFound))
	// The same URL once normalized (%6E is "n").
	mux.Handle("/n1", redirectTo("/%6E1", http.StatusTemporaryRedirect))
	mux.HandleFunc("/chain/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.PathValue("n"))
		if err != nil || n <= 0 {
			page("<p>end of chain</p>")(w, r)
			return
		}
		redirectTo(fmt.Sprintf("/chain/%d", n-1), http.StatusPermanentRedirect)(w, r)
	})
	mux.Handle("/moved", redirectTo("/a/./b/../Final%7e?x=1#frag", http.StatusMovedPermanently))
	mux.Handle("/a/Final~", page("<p>final</p>"))
	mux.Handle("/ftp", redirectTo("ftp://ftp.example.com/file", http.StatusFound))
	mux.Handle("/to-png", redirectTo("/img.png", http.StatusFound))
	mux.HandleFunc("/img.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write([]byte("\x89PNG"))
	})
	s := newServer(t, mux)
	f := newFetcher(t, Config{MaxRedirects: 3})

	tests := []struct {
		path   string
		reason Reason
		final  string // wanted FinalURL path on success
	}{
		{path: "/loop/a", reason: ReasonRedirect},
		{path: "/self", reason: ReasonRedirect},
		{path: "/n1", reason: ReasonRedirect},
		{path: "/chain/3", final: "/chain/0"},
		{path: "/chain/4", reason: ReasonRedirect},
		{path: "/moved", final: "/a/Final~?x=1"},
		{path: "/ftp", reason: ReasonBadURL},
		{path: "/to-png", reason: ReasonContentType},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			before := len(s.requests())
			u := s.url(t, tt.path)
			res, err := fetchWithin(t, context.Background(), f, u)
			if tt.reason != "" {
				wantReason(t, err, tt.reason)
			} else {
				if err != nil {
					t.Fatalf("Fetch: %v", err)
				}
				if want := s.url(t, tt.final); res.FinalURL != want || res.URL != u {
					t.Errorf("URL %s FinalURL %s, want %s %s", res.URL, res.FinalURL, u, want)
				}
			}
			// A redirect failure is final: the chain is not walked again.
			if n := len(s.requests()) - before; n > 5 {
				t.Errorf("server saw %d requests for one fetch: %v", n, s.paths()[before:])
			}
		})
	}
	if n := s.count("/chain/0"); n != 1 {
		t.Errorf("end of chain fetched %d times, want 1 (only through /chain/3)", n)
	}
}

func TestFetcher_Fetch_timeout(t *testing.T) {
	slowHeaders := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(2 * time.Second):
			page("<p>late</p>")(w, r)
		case <-r.Context().Done():
		}
	}
	slowBody := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<p>first part</p>"))
		_ = http.NewResponseController(w).Flush()
		select {
		case <-time.After(2 * time.Second):
			_, _ = w.Write([]byte("<p>rest</p>"))
		case <-r.Context().Done():
		}
	}
	tests := []struct {
		name    string
		handler http.HandlerFunc
		retries int
		hits    int
	}{
		{name: "slow headers", handler: slowHeaders, retries: -1, hits: 1},
		{name: "slow headers retried", handler: slowHeaders, retries: 1, hits: 2},
		{name: "slow body", handler: slowBody, retries: -1, hits: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mux := http.NewServeMux()
			mux.Handle("/robots.txt", http.NotFoundHandler())
			mux.Handle("/slow", tt.handler)
			s := newServer(t, mux)
			f := newFetcher(t, Config{Timeout: 200 * time.Millisecond, Retries: tt.retries})
			_, err := fetchWithin(t, context.Background(), f, s.url(t, "/slow"))
			wantReason(t, err, ReasonTimeout)
			if n := s.count("/slow"); n != tt.hits {
				t.Errorf("server saw %d requests, want %d", n, tt.hits)
			}
		})
	}
}

func TestFetcher_Fetch_canceledMidRequest(t *testing.T) {
	seen := make(chan struct{})
	var once sync.Once
	aborted := make(chan error, 1)
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		once.Do(func() { close(seen) })
		select {
		case <-r.Context().Done():
			aborted <- nil
		case <-time.After(10 * time.Second):
			aborted <- errors.New("the request was not aborted by the client")
		}
	}))
	f := newFetcher(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-seen
		cancel()
	}()
	_, err := fetchWithin(t, ctx, f, s.url(t, "/hang"))
	fe := wantReason(t, err, ReasonCanceled)
	if !errors.Is(fe, context.Canceled) {
		t.Errorf("error %v does not wrap context.Canceled", err)
	}
	// The handler must have seen its connection go, not its own 10s
	// fallback.
	if err := <-aborted; err != nil {
		t.Error(err)
	}
	if n := s.count("/hang"); n != 1 {
		t.Errorf("server saw %d requests, want 1 (no retry after cancel)", n)
	}
}

func TestFetcher_Fetch_canceledBeforeStart(t *testing.T) {
	s := newServer(t, page("<p>x</p>"))
	for _, ignore := range []bool{false, true} {
		f := newFetcher(t, Config{IgnoreRobots: ignore})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := f.Fetch(ctx, s.url(t, "/"), nil)
		wantReason(t, err, ReasonCanceled)
	}
	if p := s.paths(); len(p) != 0 {
		t.Errorf("server saw %v, want nothing", p)
	}
}

func TestFetcher_Fetch_canceledDuringBackoff(t *testing.T) {
	q := &sequence{statuses: []int{500}}
	s := newServer(t, q)
	f := newFetcher(t, Config{RetryBackoff: 10 * time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for s.count("/x") == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	_, err := fetchWithin(t, ctx, f, s.url(t, "/x"))
	wantReason(t, err, ReasonCanceled)
	if n := s.count("/x"); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}

func TestFetcher_Fetch_canceledWaitingForHost(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
		page("<p>x</p>")(w, r)
	}))
	f := newFetcher(t, Config{HostParallelism: 1, IgnoreRobots: true})
	first := make(chan error, 1)
	go func() {
		_, err := f.Fetch(context.Background(), s.url(t, "/first"), nil)
		first <- err
	}()
	<-entered
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := fetchWithin(t, ctx, f, s.url(t, "/second"))
	wantReason(t, err, ReasonCanceled)
	close(release)
	if err := <-first; err != nil {
		t.Errorf("first fetch: %v", err)
	}
	if n := s.count("/second"); n != 0 {
		t.Errorf("the canceled fetch reached the server %d times", n)
	}
}

func TestFetcher_Fetch_charset(t *testing.T) {
	const text = "<html><body><p>안녕하세요, 세계</p></body></html>"
	euckr, err := korean.EUCKR.NewEncoder().Bytes([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if utf8.Valid(euckr) {
		t.Fatal("the EUC-KR fixture is valid UTF-8; it would prove nothing")
	}
	latin1 := []byte("<p>caf\xe9</p>")
	serve := func(ct string, body []byte) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ct)
			_, _ = w.Write(body)
		}
	}
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    string
		ctype   string
	}{
		{"euc-kr", serve("text/html; charset=euc-kr", euckr), text, "text/html; charset=utf-8"},
		{"euc-kr quoted upper", serve(`text/html; charset="EUC-KR"`, euckr), text, "text/html; charset=utf-8"},
		{"latin-1", serve("text/html; charset=iso-8859-1", latin1), "<p>café</p>", "text/html; charset=utf-8"},
		{"utf-8 untouched", serve("text/html; charset=UTF-8", []byte(text)), text, "text/html; charset=utf-8"},
		{"no charset untouched", serve("text/html", latin1), string(latin1), "text/html"},
		{"malformed parameters", serve("text/html; charset=iso-8859-1;;", latin1), "<p>café</p>",
			"text/html; charset=utf-8"},
		{"image not converted", serve("image/svg+xml; charset=iso-8859-1", latin1), string(latin1),
			"image/svg+xml; charset=iso-8859-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, tt.handler)
			f := newFetcher(t, Config{ContentTypes: []string{"text/html", "image/svg+xml"}})
			res, err := fetchWithin(t, context.Background(), f, s.url(t, "/ko"))
			if err != nil {
				t.Fatal(err)
			}
			if string(res.Body) != tt.want {
				t.Errorf("Body = %q, want %q", res.Body, tt.want)
			}
			if res.ContentType != tt.ctype {
				t.Errorf("ContentType = %q, want %q", res.ContentType, tt.ctype)
			}
		})
	}
}

func TestFetcher_Fetch_hostParallelism(t *testing.T) {
	tests := []struct {
		par  int
		peak int // exact when par > 0, a lower bound otherwise
	}{
		{par: 1, peak: 1},
		{par: 2, peak: 2},
		{par: 0, peak: 2},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint("par ", tt.par), func(t *testing.T) {
			var s *server
			// Each request waits until the test sees the wanted overlap (or
			// a while), so that an allowed overlap does happen.
			overlap := make(chan struct{})
			var once sync.Once
			s = newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if s.maxConcurrent() >= max(tt.peak, 2) {
					once.Do(func() { close(overlap) })
				}
				select {
				case <-overlap:
				case <-time.After(30 * time.Millisecond):
				case <-r.Context().Done():
				}
				page("<p>x</p>")(w, r)
			}))
			f := newFetcher(t, Config{HostParallelism: tt.par})
			var wg sync.WaitGroup
			errs := make(chan error, 12)
			for g := range 4 {
				wg.Go(func() {
					for i := range 3 {
						_, err := f.Fetch(context.Background(), s.url(t, fmt.Sprintf("/g%d/%d", g, i)), nil)
						if err != nil {
							errs <- err
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			got := s.maxConcurrent()
			if tt.par > 0 && got != tt.peak || tt.par == 0 && got < tt.peak {
				t.Errorf("server saw at most %d requests at once, want %d", got, tt.peak)
			}
		})
	}
}

// TestFetcher_Fetch_hostDelay checks the delay between the starts of two
// requests to one host against when the test began, not against each
// other: a request reaches the server at or after it starts, so under
// load the gap the server sees between two requests can shrink, but the
// k-th request the server sees cannot come before k delays have passed.
func TestFetcher_Fetch_hostDelay(t *testing.T) {
	s := newServer(t, page("<p>x</p>"))
	other := newServer(t, page("<p>y</p>"))
	const delay = 100 * time.Millisecond
	f := newFetcher(t, Config{HostDelay: delay})
	began := time.Now()
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Go(func() {
			for i := range 3 {
				if _, err := f.Fetch(context.Background(), s.url(t, fmt.Sprintf("/%d/%d", g, i)), nil); err != nil {
					t.Error(err)
				}
			}
		})
	}
	if _, err := f.Fetch(context.Background(), other.url(t, "/"), nil); err != nil {
		t.Error(err)
	}
	wg.Wait()
	st := s.starts()
	if len(st) != 6 {
		t.Fatalf("server saw %d page requests, want 6", len(st))
	}
	slices.SortFunc(st, func(a, b time.Time) int { return a.Compare(b) })
	for k, at := range st {
		if since := at.Sub(began); since < time.Duration(k)*delay {
			t.Errorf("request %d reached the server %v after the first Fetch, want at least %v", k, since, time.Duration(k)*delay)
		}
	}
}

func TestFetcher_Fetch_proxy(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.RequestURI)
		mu.Unlock()
		switch r.URL.Path {
		case "/robots.txt":
			_, _ = w.Write([]byte("User-agent: *\nDisallow: /private\n"))
		default:
			page("<p>via proxy "+r.Host+"</p>")(w, r)
		}
	}))
	defer proxy.Close()
	f := newFetcher(t, Config{Proxy: proxy.URL})
	u := urlnorm.MustParse("http://scent.invalid/page?q=1")
	res, err := fetchWithin(t, context.Background(), f, u)
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Body) != "<p>via proxy scent.invalid</p>" {
		t.Errorf("Body = %q", res.Body)
	}
	_, err = fetchWithin(t, context.Background(), f, urlnorm.MustParse("http://scent.invalid/private/x"))
	wantReason(t, err, ReasonRobots)
	mu.Lock()
	defer mu.Unlock()
	want := []string{"http://scent.invalid/robots.txt", "http://scent.invalid/page?q=1"}
	if !slices.Equal(seen, want) {
		t.Errorf("proxy saw %q, want %q", seen, want)
	}
}

func TestFetcher_Fetch_proxyRefusesTunnel(t *testing.T) {
	// A proxy that serves http:// only refuses CONNECT: an https URL
	// fails for good (ReasonProxy, not transient, not unreachable),
	// robots.txt of the https site included.
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodConnect {
			http.Error(w, "no tunnels", http.StatusMethodNotAllowed)
			return
		}
		page("<p>plain http</p>")(w, r)
	}))
	defer proxy.Close()
	for _, robots := range []bool{false, true} {
		f := newFetcher(t, Config{Proxy: proxy.URL, IgnoreRobots: !robots})
		_, err := fetchWithin(t, context.Background(), f, urlnorm.MustParse("https://scent.invalid/page"))
		wantReason(t, err, ReasonProxy)
		if Transient(err) || Unreachable(err) {
			t.Errorf("robots %v: a refused tunnel is transient (%v) or unreachable (%v)", robots, Transient(err), Unreachable(err))
		}
		var fe *Error
		if errors.As(err, &fe) && fe.Status != http.StatusMethodNotAllowed {
			t.Errorf("robots %v: Status = %d, want 405", robots, fe.Status)
		}
	}
}

func TestFetcher_Fetch_errorMessage(t *testing.T) {
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write([]byte("\x89PNG"))
	}))
	f := newFetcher(t, Config{})
	u := s.url(t, "/logo")
	_, err := f.Fetch(context.Background(), u, nil)
	wantReason(t, err, ReasonContentType)
	msg := err.Error()
	for _, part := range []string{u.String(), "content-type", "image/png"} {
		if !strings.Contains(msg, part) {
			t.Errorf("error %q does not mention %q", msg, part)
		}
	}
}
