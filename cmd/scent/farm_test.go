package main

import (
	"database/sql"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/crawler"
)

// linkFarm is an endless web site: every page /f/N has 200 links to new
// pages and a paragraph of text, so a crawl of it never runs out of URLs.
func linkFarm() http.Handler {
	words := strings.Fields("offers cheap deals every day click here for more great value links pages and products from our partners")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		h := fnv.New64a()
		h.Write([]byte(r.URL.Path))
		seed := h.Sum64()
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><head><title>farm %x</title></head><body><p>", seed)
		for i := 0; i < 60; i++ {
			fmt.Fprint(w, words[(seed>>uint(i%50)+uint64(i))%uint64(len(words))], " ")
		}
		fmt.Fprint(w, "</p><ul>")
		for k := 0; k < 200; k++ {
			seed = seed*6364136223846793005 + 1442695040888963407
			fmt.Fprintf(w, `<li>see <a href="/f/%x">%s %s</a> and %s</li>`, seed, words[seed%uint64(len(words))],
				words[(seed>>8)%uint64(len(words))], words[(seed>>16)%uint64(len(words))])
		}
		fmt.Fprint(w, "</ul></body></html>")
	})
}

// TestCrawl_linkFarmDiskBounded: 3,000 pages of an endless link farm (200
// new links a page) stay under 50 MB of database in a text-only crawl
// (--raw=false), and under 70 MB with the raw responses kept (they add
// about 4.6 KB a page): the frontier is capped per host, what it drops is
// counted, links are stored compactly and the search index keeps no copy
// of the text.
func TestCrawl_linkFarmDiskBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and crawls 3,000 pages in a child process")
	}
	bin := scentBinary(t)
	site := httptest.NewServer(linkFarm())
	defer site.Close()
	for _, tt := range []struct {
		name  string
		flags []string
		limit float64 // bytes
	}{
		{"text only", []string{"--raw=false"}, 50e6},
		{"raw responses kept", nil, 70e6},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			seeds := writeSeeds(t, dir, "seed "+site.URL+"/f/0\n")
			db := filepath.Join(dir, "farm.db")
			out, err := outageCrawl(bin, seeds, db, append([]string{"--max-pages", "3000"}, tt.flags...)...).CombinedOutput()
			if err != nil {
				t.Fatalf("crawl: %v\n%s", err, out)
			}
			if n := countPages(db); n != 3000 {
				t.Fatalf("%d pages stored, want 3000\n%s", n, out)
			}
			var size int64
			for _, suffix := range []string{"", "-wal"} {
				if fi, err := os.Stat(db + suffix); err == nil {
					size += fi.Size()
				}
			}
			d, err := sql.Open("sqlite3", "file:"+db+"?mode=ro")
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			var waiting, counted, dropped int
			if err := d.QueryRow(`SELECT COUNT(*) FROM urls WHERE state = 0`).Scan(&waiting); err != nil {
				t.Fatal(err)
			}
			if err := d.QueryRow(`SELECT COALESCE(SUM(waiting), 0), COALESCE(SUM(dropped), 0) FROM hosts`).Scan(&counted, &dropped); err != nil {
				t.Fatal(err)
			}
			t.Logf("database %.1f MB (%.1f KB a page), %d URLs waiting, %d dropped\n%s", float64(size)/1e6, float64(size)/3000/1e3, waiting, dropped, out)
			if float64(size) > tt.limit {
				t.Errorf("database is %.1f MB after 3,000 pages of a link farm, want under %.0f MB", float64(size)/1e6, tt.limit/1e6)
			}
			if waiting > crawler.DefaultMaxFrontierPerHost {
				t.Errorf("%d URLs of the farm wait, more than the bound %d", waiting, crawler.DefaultMaxFrontierPerHost)
			}
			if counted != waiting {
				t.Errorf("the store counts %d URLs waiting, the urls table has %d", counted, waiting)
			}
			// 3,000 pages of 200 new links each: all but the queued ones dropped.
			if want := 3000*200 - waiting - 3000; dropped < want*9/10 {
				t.Errorf("%d new URLs recorded as dropped, want about %d", dropped, want)
			}
			if !strings.Contains(string(out), "frontier full: ") {
				t.Errorf("the crawl does not say that its frontier was full:\n%s", out)
			}
		})
	}
}
