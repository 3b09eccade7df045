package crawlertest

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// get requests path p of s with User-Agent agent and returns the status
// and body.
func get(t *testing.T, s *ChainSite, p, agent string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", s.Server.URL+p, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("User-Agent", agent)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// getAsync requests path p of s in a goroutine that sends the status on
// done when the answer comes, 0 when the request fails: for requests the
// site holds.
func getAsync(s *ChainSite, p string, done chan<- int) {
	go func() {
		resp, err := http.Get(s.Server.URL + p)
		if err != nil {
			done <- 0
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
}

func TestChainSite_pages(t *testing.T) {
	for _, c := range []struct {
		name  string
		chain Chain
		path  string
		want  string
	}{
		{"default", Chain{N: 10}, "/p3",
			`<html><head><title>page 3</title></head><body>page 3 <a href="/p4">page 4</a> <a href="/p7">page 7</a> <a href="/p1">page 1</a></body></html>`},
		{"links past N left out", Chain{N: 10}, "/p6",
			`<html><head><title>page 6</title></head><body>page 6 <a href="/p7">page 7</a> <a href="/p2">page 2</a></body></html>`},
		{"own links and text", Chain{N: 10,
			Links: func(i int) []int { return []int{i + 1, 2*i + 1, 3*i + 2} },
			Text:  func(i int) string { return fmt.Sprintf("page number %d", i) }}, "/p2",
			`<html><head><title>page 2</title></head><body>page number 2 <a href="/p3">page 3</a> <a href="/p5">page 5</a> <a href="/p8">page 8</a></body></html>`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := NewChainSite(t, c.chain)
			if status, body := get(t, s, c.path, "a"); status != 200 || body != c.want {
				t.Errorf("%s: %d %s, want 200 %s", c.path, status, body, c.want)
			}
		})
	}
}

func TestChainSite_notFound(t *testing.T) {
	s := NewChainSite(t, Chain{N: 10})
	for _, p := range []string{"/", "/p10", "/p-1", "/p01", "/p1x", "/robots.txt"} {
		if status, _ := get(t, s, p, "a"); status != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", p, status)
		}
	}
}

func TestChainSite_hits(t *testing.T) {
	s := NewChainSite(t, Chain{N: 10})
	get(t, s, "/p1", "a")
	get(t, s, "/p1", "b")
	get(t, s, "/p1", "b")
	get(t, s, "/robots.txt", "a")
	if h, a, b := s.Hits("/p1"), s.HitsBy("/p1", "a"), s.HitsBy("/p1", "b"); h != 3 || a != 1 || b != 2 {
		t.Errorf("/p1: %d hits, %d by a, %d by b; want 3, 1, 2", h, a, b)
	}
	if got := s.Paths(); len(got) != 2 || got["/p1"] != 3 || got["/robots.txt"] != 1 {
		t.Errorf("Paths() = %v", got)
	}
}

func TestChainSite_hold(t *testing.T) {
	s := NewChainSite(t, Chain{N: 10})
	s.Hold(5)
	if status, _ := get(t, s, "/p4", "a"); status != 200 {
		t.Errorf("/p4 before the held pages: %d", status)
	}
	done := make(chan int, 1)
	getAsync(s, "/p5", done)
	select {
	case status := <-done:
		t.Fatalf("/p5 held answered %d before Release", status)
	case <-time.After(50 * time.Millisecond):
	}
	s.Release()
	if status := <-done; status != 200 {
		t.Errorf("/p5 after Release: %d", status)
	}
	if status, body := get(t, s, "/p9", "a"); status != 200 || !strings.Contains(body, "page 9") {
		t.Errorf("/p9 after Release: %d %s", status, body)
	}
}

// TestChainSite_holdAfter: the pages requested after the first k wait
// for Release, whichever they are, and Held counts them.
func TestChainSite_holdAfter(t *testing.T) {
	s := NewChainSite(t, Chain{N: 10})
	s.HoldAfter(2)
	for _, p := range []string{"/p7", "/p3"} {
		if status, _ := get(t, s, p, "a"); status != 200 {
			t.Errorf("%s, among the first two: %d", p, status)
		}
	}
	done := make(chan int, 2)
	for _, p := range []string{"/p0", "/p1"} {
		getAsync(s, p, done)
	}
	for deadline := time.Now().Add(5 * time.Second); s.Held() < 2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d requests held, want 2", s.Held())
		}
	}
	select {
	case status := <-done:
		t.Fatalf("a held page answered %d before Release", status)
	case <-time.After(50 * time.Millisecond):
	}
	s.Release()
	for range 2 {
		if status := <-done; status != 200 {
			t.Errorf("a held page after Release: %d", status)
		}
	}
	if n := s.Held(); n != 0 {
		t.Errorf("%d requests held after Release", n)
	}
}

// TestChainSite_holdAfterAgain: HoldAfter called after Release holds the
// requests past its new mark until the next Release, and lets those
// before it answer.
func TestChainSite_holdAfterAgain(t *testing.T) {
	s := NewChainSite(t, Chain{N: 10})
	s.HoldAfter(1)
	if status, _ := get(t, s, "/p0", "a"); status != 200 {
		t.Errorf("/p0, the first request: %d", status)
	}
	request := func(p string) chan int {
		done := make(chan int, 1)
		getAsync(s, p, done)
		return done
	}
	waitHeld := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); s.Held() != n; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d requests held, want %d", s.Held(), n)
			}
		}
	}
	first := request("/p1")
	waitHeld(1)
	s.Release()
	if status := <-first; status != 200 {
		t.Errorf("the request held first, after Release: %d", status)
	}
	s.HoldAfter(3)
	if status, _ := get(t, s, "/p2", "a"); status != 200 {
		t.Errorf("/p2, the third request, after the second HoldAfter(3): %d", status)
	}
	second := request("/p3")
	waitHeld(1)
	select {
	case status := <-second:
		t.Fatalf("the fourth request answered %d before the second Release", status)
	case <-time.After(50 * time.Millisecond):
	}
	s.Release()
	if status := <-second; status != 200 {
		t.Errorf("the fourth request after the second Release: %d", status)
	}
	if status, _ := get(t, s, "/p4", "a"); status != 200 {
		t.Errorf("/p4 after the second Release: %d", status)
	}
}
