package replay

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestServe(t *testing.T) {
	a := openSite(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := Serve(ctx, a, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if host, port, err := net.SplitHostPort(s.Addr()); err != nil || host != "127.0.0.1" || port == "0" {
		t.Fatalf("Addr() = %q, want 127.0.0.1 with a bound port", s.Addr())
	}
	get := func(tr *http.Transport, url string) (int, string, error) {
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr}).Get(url)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body), err
	}
	transports := map[string]func() *http.Transport{
		"proxy": func() *http.Transport { return &http.Transport{Proxy: http.ProxyURL(s.ProxyURL())} },
		"dial":  func() *http.Transport { return &http.Transport{DialContext: s.DialContext} },
	}
	for name, tr := range transports {
		code, body, err := get(tr(), "http://a.test/people/bob.html")
		if err != nil || code != 200 || !strings.Contains(body, "Bob") {
			t.Errorf("%s: GET = %d %q %v, want 200 with Bob", name, code, body, err)
		}
	}
	cancel()
	if err := s.Wait(); err != nil {
		t.Errorf("Wait after cancel = %v, want nil", err)
	}
	if _, _, err := get(transports["proxy"](), "http://a.test/"); err == nil {
		t.Error("server still answers after its context was cancelled")
	}
}

func TestServer_Close(t *testing.T) {
	s, err := Serve(context.Background(), openSite(t), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	if err := s.Wait(); err != nil {
		t.Errorf("Wait after Close = %v", err)
	}
	if _, err := net.Dial("tcp", s.Addr()); err == nil {
		t.Error("listener still open after Close")
	}
}

func TestServe_badAddress(t *testing.T) {
	s, err := Serve(context.Background(), openSite(t), "256.0.0.1:-1")
	if err == nil {
		s.Close()
		t.Fatal("Serve on a bad address succeeded")
	}
	if !strings.Contains(err.Error(), "listen") {
		t.Errorf("error %q does not say what failed", err)
	}
}

// TestServe_concurrent fetches pages from many goroutines at once; run with
// -race it checks that the shared prepared responses are never written.
func TestServe_concurrent(t *testing.T) {
	a := openSite(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := Serve(ctx, a, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{Proxy: http.ProxyURL(s.ProxyURL()), MaxIdleConnsPerHost: 8}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	urls := []string{"http://a.test/", "http://a.test/people/", "http://a.test/courses", "http://a.test/moved", "http://a.test/nothing"}
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func() {
			for i := 0; i < 50; i++ {
				u := urls[(g+i)%len(urls)]
				method := "GET"
				if i%3 == 0 {
					method = "HEAD"
				}
				req, err := http.NewRequest(method, u, nil)
				if err != nil {
					errs <- err
					return
				}
				resp, err := client.Do(req)
				if err != nil {
					errs <- err
					return
				}
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil {
					errs <- err
					return
				}
				want := http.StatusOK // redirects are followed
				if u == "http://a.test/nothing" {
					want = http.StatusNotFound
				}
				if resp.StatusCode != want {
					errs <- fmt.Errorf("%s %s: status %d", method, u, resp.StatusCode)
					return
				}
			}
			errs <- nil
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	cancel()
	if err := s.Wait(); err != nil {
		t.Errorf("Wait = %v", err)
	}
}

// TestServeWith_logAndDelay: the request log has one line per request
// answered; a request given up during the delay is not answered.
func TestServeWith_logAndDelay(t *testing.T) {
	var log strings.Builder
	s, err := ServeWith(context.Background(), openSite(t), "127.0.0.1:0", ServeOptions{Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(s.ProxyURL())}}
	for _, u := range []string{"http://a.test/people/bob.html", "http://a.test/nowhere.html"} {
		resp, err := client.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	s.Close()
	want := "GET http://a.test/people/bob.html 200 \"Go-http-client/1.1\"\nGET http://a.test/nowhere.html 404 \"Go-http-client/1.1\"\n"
	if log.String() != want {
		t.Errorf("request log:\n%s\nwant:\n%s", log.String(), want)
	}

	slow, err := ServeWith(context.Background(), openSite(t), "127.0.0.1:0", ServeOptions{Delay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	client = &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(slow.ProxyURL())}, Timeout: 200 * time.Millisecond}
	if resp, err := client.Get("http://a.test/people/bob.html"); err == nil {
		resp.Body.Close()
		t.Error("a server answering after an hour answered at once")
	}
	if _, err := ServeWith(context.Background(), openSite(t), "127.0.0.1:0", ServeOptions{Delay: -time.Second}); err == nil {
		t.Error("a negative delay was accepted")
	}
}
