package fetch

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scent-crawler/scent/urlnorm"
)

// robotsSite serves robots.txt with the given status and body (or, when
// status is 301, a redirect to /moved-robots.txt that has the body), and
// pages for every other path.
func robotsSite(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/robots.txt" && status == http.StatusMovedPermanently:
			http.Redirect(w, r, "/moved-robots.txt", status)
		case r.URL.Path == "/moved-robots.txt":
			_, _ = w.Write([]byte(body))
		case r.URL.Path == "/robots.txt":
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(status)
			_, _ = w.Write([]byte(body))
		default:
			page("<p>"+r.URL.Path+"</p>")(w, r)
		}
	}
}

func TestFetcher_Fetch_robots(t *testing.T) {
	type probe struct {
		path    string
		allowed bool
	}
	tests := []struct {
		name   string
		status int
		body   string
		probes []probe
	}{
		{"disallow private", 200, "User-agent: *\nDisallow: /private\n",
			[]probe{{"/private/x", false}, {"/private", false}, {"/public/x", true}, {"/", true}}},
		{"server error disallows all", 500, "oops", []probe{{"/", false}, {"/public/x", false}}},
		{"unavailable disallows all", 503, "", []probe{{"/a", false}}},
		{"not found allows all", 404, "", []probe{{"/private/x", true}, {"/", true}}},
		{"forbidden allows all", 403, "", []probe{{"/private/x", true}}},
		{"group for scent", 200, "User-agent: scent\nDisallow: /\n\nUser-agent: *\nAllow: /\n",
			[]probe{{"/", false}, {"/a", false}}},
		{"group for another bot", 200, "User-agent: otherbot\nDisallow: /\n", []probe{{"/", true}}},
		{"longest rule wins", 200, "User-agent: *\nDisallow: /a\nAllow: /a/ok\n",
			[]probe{{"/a/ok/1", true}, {"/a/no", false}}},
		{"wildcard query", 200, "User-agent: *\nDisallow: /*?sid=\n",
			[]probe{{"/page?sid=1", false}, {"/page?id=1", true}}},
		{"redirected robots.txt", 301, "User-agent: *\nDisallow: /private\n",
			[]probe{{"/private/x", false}, {"/public", true}}},
		{"empty robots.txt", 200, "", []probe{{"/private/x", true}}},
		{"garbage robots.txt", 200, "<html>not robots</html>", []probe{{"/x", true}}},
		{"a bad line spoils no other", 200, "User-agent: *\nDisallow: /private\nCrawl-delay: soon\n",
			[]probe{{"/private/x", false}, {"/public", true}}},
		{"encoded rule", 200, "User-agent: *\nDisallow: /%7Ejoe/\n", []probe{{"/~joe/a", false}, {"/~ann/a", true}}},
		{"tie goes to allow", 200, "User-agent: *\nDisallow: /a/\nAllow: /a/\n", []probe{{"/a/x", true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, robotsSite(tt.status, tt.body))
			f := newFetcher(t, Config{})
			for _, p := range tt.probes {
				res, err := fetchWithin(t, context.Background(), f, s.url(t, p.path))
				if p.allowed {
					if err != nil {
						t.Errorf("%s: %v", p.path, err)
					} else if want := "<p>" + s.url(t, p.path).Path() + "</p>"; string(res.Body) != want {
						t.Errorf("%s: body %q, want %q", p.path, res.Body, want)
					}
					continue
				}
				if ReasonOf(err) != ReasonRobots {
					t.Errorf("%s: got %v, want reason robots", p.path, err)
				}
			}
			var pages []string
			for _, h := range s.requests() {
				if h.path != "/robots.txt" && h.path != "/moved-robots.txt" {
					pages = append(pages, h.uri)
				}
			}
			var want []string
			for _, p := range tt.probes {
				if p.allowed {
					want = append(want, s.url(t, p.path).RequestURI())
				}
			}
			if fmt.Sprint(pages) != fmt.Sprint(want) {
				t.Errorf("server saw pages %v, want %v", pages, want)
			}
			if n := s.count("/robots.txt"); n != 1 {
				t.Errorf("robots.txt fetched %d times, want 1 (cached)", n)
			}
		})
	}
}

func TestFetcher_Fetch_robotsUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	f := newFetcher(t, Config{Retries: -1})
	_, err = fetchWithin(t, context.Background(), f, urlnorm.MustParse("http://"+addr+"/"))
	wantReason(t, err, ReasonNetwork) // the network failed, not robots.txt
	if !Transient(err) || !strings.Contains(err.Error(), "robots.txt unreachable") {
		t.Errorf("robots.txt unreachable: %v, want a transient network error that says so", err)
	}

	f = newFetcher(t, Config{Retries: -1, IgnoreRobots: true})
	_, err = fetchWithin(t, context.Background(), f, urlnorm.MustParse("http://"+addr+"/"))
	wantReason(t, err, ReasonNetwork)
}

func TestFetcher_Fetch_robotsOnRedirect(t *testing.T) {
	other := newServer(t, robotsSite(200, "User-agent: *\nDisallow: /private\n"))
	mux := http.NewServeMux()
	mux.Handle("/robots.txt", http.NotFoundHandler())
	mux.Handle("/go-private", redirectTo(other.URL+"/private/x", http.StatusFound))
	mux.Handle("/go-public", redirectTo(other.URL+"/public/y", http.StatusFound))
	first := newServer(t, mux)

	tests := []struct {
		ignore bool
		path   string
		reason Reason
		final  string
	}{
		{path: "/go-private", reason: ReasonRobots},
		{path: "/go-public", final: "/public/y"},
		{ignore: true, path: "/go-private", final: "/private/x"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.path, " ignore ", tt.ignore), func(t *testing.T) {
			before := other.count("/private/x")
			f := newFetcher(t, Config{IgnoreRobots: tt.ignore})
			res, err := fetchWithin(t, context.Background(), f, first.url(t, tt.path))
			if tt.reason != "" {
				wantReason(t, err, tt.reason)
				if n := other.count("/private/x") - before; n != 0 {
					t.Errorf("the disallowed target was requested %d times", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := other.url(t, tt.final); res.FinalURL != want {
				t.Errorf("FinalURL = %s, want %s", res.FinalURL, want)
			}
		})
	}
}

func TestFetcher_Fetch_ignoreRobots(t *testing.T) {
	s := newServer(t, robotsSite(200, "User-agent: *\nDisallow: /\n"))
	f := newFetcher(t, Config{IgnoreRobots: true})
	res, err := fetchWithin(t, context.Background(), f, s.url(t, "/secret"))
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Body) != "<p>/secret</p>" {
		t.Errorf("Body = %q", res.Body)
	}
	if n := s.count("/robots.txt"); n != 0 {
		t.Errorf("robots.txt fetched %d times with IgnoreRobots", n)
	}
}

func TestFetcher_Fetch_robotsLoaderCanceled(t *testing.T) {
	// The first caller's context ends while robots.txt is loading; that
	// must neither be cached as "unreachable" nor reported as robots.
	var once sync.Once
	loading := make(chan struct{})
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			first := false
			once.Do(func() { first = true; close(loading) })
			if first {
				<-r.Context().Done()
				return
			}
			http.NotFound(w, r)
			return
		}
		page("<p>x</p>")(w, r)
	}))
	f := newFetcher(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-loading
		cancel()
	}()
	_, err := fetchWithin(t, ctx, f, s.url(t, "/a"))
	wantReason(t, err, ReasonCanceled)
	if _, err := fetchWithin(t, context.Background(), f, s.url(t, "/b")); err != nil {
		t.Fatalf("next fetch: %v", err)
	}
	if n := s.count("/robots.txt"); n != 2 {
		t.Errorf("robots.txt requested %d times, want 2", n)
	}
}

func TestFetcher_Fetch_robotsWaitersShareLoad(t *testing.T) {
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			time.Sleep(50 * time.Millisecond) // let every caller queue up
			_, _ = w.Write([]byte("User-agent: *\nDisallow: /no\n"))
			return
		}
		page("<p>x</p>")(w, r)
	}))
	f := newFetcher(t, Config{})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			path := fmt.Sprintf("/yes/%d", i)
			if i%2 == 1 {
				path = fmt.Sprintf("/no/%d", i)
			}
			_, err := f.Fetch(context.Background(), s.url(t, path), nil)
			if (i%2 == 1) != (ReasonOf(err) == ReasonRobots) || i%2 == 0 && err != nil {
				t.Errorf("%s: %v", path, err)
			}
		})
	}
	wg.Wait()
	if n := s.count("/robots.txt"); n != 1 {
		t.Errorf("robots.txt requested %d times, want 1", n)
	}
}

func TestFetcher_Fetch_robotsExpiry(t *testing.T) {
	// A 5xx verdict is retried after a tenth of the TTL; a good one after
	// the TTL.
	var mu sync.Mutex
	status := http.StatusInternalServerError
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			mu.Lock()
			st := status
			mu.Unlock()
			w.WriteHeader(st)
			_, _ = w.Write([]byte("User-agent: *\nDisallow: /no\n"))
			return
		}
		page("<p>x</p>")(w, r)
	}))
	// A long TTL keeps the good verdict cached however slow the machine.
	f := newFetcher(t, Config{RobotsTTL: 20 * time.Second})
	_, err := f.Fetch(context.Background(), s.url(t, "/yes"), nil)
	wantReason(t, err, ReasonRobots)
	mu.Lock()
	status = http.StatusOK
	mu.Unlock()
	time.Sleep(2100 * time.Millisecond) // > TTL/10
	if _, err := f.Fetch(context.Background(), s.url(t, "/yes"), nil); err != nil {
		t.Fatalf("after the 5xx verdict expired: %v", err)
	}
	_, err = f.Fetch(context.Background(), s.url(t, "/no"), nil)
	wantReason(t, err, ReasonRobots)
	if n := s.count("/robots.txt"); n != 2 {
		t.Errorf("robots.txt requested %d times, want 2", n)
	}
}

func TestRobotsCache_bounded(t *testing.T) {
	var servers []*server
	for range 3 {
		servers = append(servers, newServer(t, robotsSite(200, "User-agent: *\nDisallow: /no\n")))
	}
	f := newFetcher(t, Config{})
	f.robots = newRobotsCache(f, time.Hour, 2)
	for _, i := range []int{0, 1, 2, 0} {
		if _, err := f.Fetch(context.Background(), servers[i].url(t, "/yes"), nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.robots.lru.Len(); n != 2 || len(f.robots.byKey) != 2 {
		t.Errorf("cache holds %d/%d origins, want 2", n, len(f.robots.byKey))
	}
	// Origin 0 was evicted by origin 2 and loaded again.
	for i, want := range []int{2, 1, 1} {
		if n := servers[i].count("/robots.txt"); n != want {
			t.Errorf("server %d: robots.txt requested %d times, want %d", i, n, want)
		}
	}
	if !strings.HasPrefix(f.robots.lru.Front().Value.(*robotsEntry).origin, servers[0].URL) {
		t.Error("the most recent origin is not at the front of the LRU")
	}
}

// TestFetcher_Fetch_robotsRedirectLoop: a robots.txt that redirects in
// a loop allows everything (RFC 9309 §2.3.1.2: past five redirects), and
// is asked for once, not again for every page.
func TestFetcher_Fetch_robotsRedirectLoop(t *testing.T) {
	var asked atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		http.Redirect(w, r, "/robots.txt", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body>a page</body></html>")
	})
	s := newServer(t, mux)
	f := newFetcher(t, Config{Retries: -1})
	for _, p := range []string{"/a", "/b"} {
		if _, err := fetchWithin(t, context.Background(), f, s.url(t, p)); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	if n := asked.Load(); n != robotsRedirects+1 {
		t.Errorf("robots.txt asked %d times for two pages, want %d (one fetch and its redirects)", n, robotsRedirects+1)
	}
}

// FuzzRobots feeds robots.txt files to the parser the fetcher uses: none
// makes it panic, and a file without a Disallow line allows every path.
func FuzzRobots(f *testing.F) {
	f.Add([]byte("User-agent: *\nDisallow: /*?sid=\nAllow: /a$\nCrawl-delay: 3\nSitemap: http://a/s.xml\n"), "/page?sid=1")
	f.Add([]byte("User-agent: scent\nDisallow: /\n\nUser-agent: *\nAllow: /\n"), "/")
	f.Add([]byte("\xef\xbb\xbfuser-agent:*\r\ndisallow:\r\n"), "/x")
	f.Fuzz(func(t *testing.T, body []byte, path string) {
		ok := parseRobots(body, DefaultUserAgent).allowed(path)
		if !ok && !strings.Contains(strings.ToLower(string(body)), "disallow") {
			t.Fatalf("%q disallowed by a robots.txt without Disallow lines: %q", path, body)
		}
	})
}

// matchPositions is robotsMatch by the set of positions in uri each
// prefix of the pattern can end at: slower, and plainly right.
func matchPositions(pattern, uri string) bool {
	pos := []int{0}
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '$' && i == len(pattern)-1:
			return pos[len(pos)-1] == len(uri)
		case c == '*':
			from := pos[0]
			pos = pos[:0]
			for p := from; p <= len(uri); p++ {
				pos = append(pos, p)
			}
		default:
			next := pos[:0]
			for _, p := range pos {
				if p < len(uri) && uri[p] == c {
					next = append(next, p+1)
				}
			}
			if len(next) == 0 {
				return false
			}
			pos = next
		}
	}
	return true
}

func FuzzRobotsMatch(f *testing.F) {
	for _, c := range [][2]string{{"/*.php$", "/a/b.php"}, {"/a*b*c", "/aXbYbc"}, {"/fish*", "/fish.html"}, {"/*$", "/"},
		{"/a$b", "/a$b"}, {"/**a*$", "/ba"}, {"/ab*ab$", "/abab"}, {"/ab*ab$", "/ab"}, {"$", ""}} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, pattern, uri string) {
		if got, want := robotsMatch(pattern, uri), matchPositions(pattern, uri); got != want {
			t.Fatalf("robotsMatch(%q, %q) = %v, want %v", pattern, uri, got, want)
		}
	})
}

// BenchmarkRobots_hostile is the cost of one URL's check against a
// robots.txt of 500 KiB of starred rules that all fail at the end, by
// robotsMatch and by the position sets of matchPositions.
func BenchmarkRobots_hostile(b *testing.B) {
	var body strings.Builder
	body.WriteString("User-agent: *\n")
	for i := 0; body.Len() < 500<<10; i++ {
		fmt.Fprintf(&body, "Disallow: /%s%db\n", strings.Repeat("*a", 40), i)
	}
	r := parseRobots([]byte(body.String()), DefaultUserAgent)
	uri := "/" + strings.Repeat("a", 1000)
	for _, m := range []struct {
		name  string
		match func(pattern, uri string) bool
	}{{"segments", robotsMatch}, {"positions", matchPositions}} {
		b.Run(m.name, func(b *testing.B) {
			for range b.N {
				for _, rule := range r.rules {
					if m.match(rule.pattern, uri) {
						b.Fatal("matched")
					}
				}
			}
		})
	}
}
