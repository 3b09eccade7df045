package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
