package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestCrawl_metricsAddrCheckedFirst: a --metrics-addr that cannot be
// served (no address, a port in use) is refused, naming the flag, before
// any example is fetched or any model trained; one that can is served
// while the crawl runs.
func TestCrawl_metricsAddrCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	seeds, hits := countedSeeds(t, dir)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	db := filepath.Join(dir, "c.db")
	crawl := []string{"crawl", "--seeds", seeds, "--db", db, "--delay", "0", "--ignore-robots", "--quiet", "--max-pages", "1"}
	for _, addr := range []string{"nonsense:xx", busy.Addr().String()} {
		out, err := runScent(t, append(crawl, "--metrics-addr", addr)...)
		if err == nil || !strings.HasPrefix(err.Error(), "--metrics-addr "+addr+": ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("--metrics-addr %s: error %v, want one line naming the flag", addr, err)
		}
		if strings.Contains(out, "training") {
			t.Errorf("--metrics-addr %s: the model was trained before the refusal:\n%s", addr, out)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests made before --metrics-addr was refused", n)
	}
	for _, p := range []string{db, db + ".model.json"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written by a crawl whose --metrics-addr was refused", p)
		}
	}
	out, err := runScent(t, append(crawl, "--metrics-addr", "127.0.0.1:0")...)
	if err != nil || !strings.Contains(out, "metrics at http://127.0.0.1:") {
		t.Errorf("--metrics-addr 127.0.0.1:0: %v, want the crawl served its metrics:\n%s", err, out)
	}
}

// TestCrawl_metricsServedWhileTraining: the metrics are answered from the
// start, while the model is trained from the example pages (here, a scrape
// made from within the fetch of an example), not only once the crawl runs.
func TestCrawl_metricsServedWhileTraining(t *testing.T) {
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := free.Addr().String()
	free.Close()
	var scraped atomic.Value // the scrape's status line, or its error
	client := &http.Client{Timeout: 5 * time.Second}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<html><body>department <a href="/c1">course one</a></body></html>`)
		case "/c1":
			if scraped.Load() == nil {
				resp, err := client.Get("http://" + addr + "/metrics")
				if err != nil {
					scraped.Store(err.Error())
				} else {
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					scraped.Store(fmt.Sprintf("%s, %d bytes", resp.Status, len(body)))
				}
			}
			fmt.Fprint(w, `<html><body>course lecture homework syllabus</body></html>`)
		case "/o1":
			fmt.Fprint(w, `<html><body>news of the garden</body></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	seeds := writeSeeds(t, dir, fewTopicSeeds(srv.URL))
	out, err := runScent(t, "crawl", "--seeds", seeds, "--db", filepath.Join(dir, "c.db"), "--delay", "0", "--ignore-robots", "--quiet",
		"--max-pages", "1", "--metrics-addr", addr)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got, _ := scraped.Load().(string); !strings.HasPrefix(got, "200 OK") || strings.HasSuffix(got, " 0 bytes") {
		t.Errorf("a scrape while the model trained: %q, want 200 OK with the metrics", got)
	}
}
