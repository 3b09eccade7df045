package fetch

import (
	"context"
	"net/http"
	"testing"

	"github.com/scent-crawler/scent/urlnorm"
)

func TestFetcher_Fetch_withoutRedirects(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/a", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/b", http.StatusMovedPermanently) })
	mux.HandleFunc("/b", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>b</html>")) })
	s := newServer(t, mux)
	f := newFetcher(t, Config{IgnoreRobots: true})
	a := urlnorm.MustParse(s.URL + "/a")

	res, err := f.Fetch(WithoutRedirects(context.Background()), a, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != http.StatusMovedPermanently || res.FinalURL != a || res.Location != urlnorm.MustParse(s.URL+"/b") {
		t.Errorf("without redirects: status %d, final %s, location %s", res.Status, res.FinalURL, res.Location)
	}
	for _, h := range s.requests() {
		if h.path == "/b" {
			t.Error("the redirect target was fetched")
		}
	}

	res, err = f.Fetch(context.Background(), a, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != http.StatusOK || res.FinalURL.Path() != "/b" || !res.Location.IsZero() {
		t.Errorf("following: status %d, final %s, location %s", res.Status, res.FinalURL, res.Location)
	}
}

func TestFetcher_Fetch_proxyRefusingATunnel(t *testing.T) {
	// An http-only proxy (such as scent replay) answers CONNECT with 405.
	proxy := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no CONNECT", http.StatusMethodNotAllowed)
	}))
	f := newFetcher(t, Config{Proxy: proxy.URL, Retries: 2})
	_, err := f.Fetch(context.Background(), urlnorm.MustParse("https://secure.test/"), nil)
	if ReasonOf(err) != ReasonProxy || Unreachable(err) {
		t.Fatalf("err = %v (reason %q), want a final proxy refusal", err, ReasonOf(err))
	}
	if n := len(proxy.requests()); n != 1 {
		t.Errorf("%d requests to the proxy, want 1 (no retry)", n)
	}
}
