package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/experiment"
	"github.com/scent-crawler/scent/sqlite"
	"github.com/scent-crawler/scent/urlnorm"
)

func randomWords(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 3))
	w := make([]string, n)
	for i := range w {
		w[i] = fmt.Sprintf("w%d", r.IntN(4000))
	}
	return strings.Join(w, " ")
}

// dupStore writes a database with one crawl: /a, its copy /b, a near copy
// /c, an unrelated /d and a failed /e.
func dupStore(t *testing.T) string {
	t.Helper()
	text := "pangolin " + randomWords(1, 1500)
	// Three words inserted far apart: 24 of 1500 shingles change.
	ws := strings.Fields(text)
	for _, i := range []int{300, 800, 1300} {
		ws[i] = "inserted " + ws[i]
	}
	near := strings.Join(ws, " ")
	page := func(path, title, text string) *crawler.Page {
		return &crawler.Page{URL: urlnorm.MustParse("http://x.test" + path), Status: 200, Title: title, Text: text}
	}
	failed := page("/e", "", "")
	failed.Failure = "status: 404"
	pages := []*crawler.Page{page("/a", "Pangolins", text), page("/b", "Pangolins", text), page("/c", "Pangolins mirror", near),
		page("/d", "Other pangolin", "pangolin "+randomWords(2, 1500)), failed}
	return committedStore(t, crawler.CrawlSpec{Name: "c1", Strategy: crawler.StrategyBFS, Stacks: []string{""}}, pages)
}

// committedStore writes a SQLite database holding the crawl of spec with
// pages committed, and returns its path.
func committedStore(t *testing.T, spec crawler.CrawlSpec, pages []*crawler.Page) string {
	t.Helper()
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "d.db")
	s, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.OpenCrawl(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, st.ID, pages, nil); err != nil {
		t.Fatal(err)
	}
	return db
}

func TestRunDedup(t *testing.T) {
	db := dupStore(t)
	rep, err := runDedup(context.Background(), dedupOptions{db: db})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Pages != 4 || rep.Duplicates != 2 || rep.IdenticalText != 1 || rep.Disagree != 0 || len(rep.Clusters) != 1 {
		t.Fatalf("report = %+v", rep)
	}
	cl := rep.Clusters[0]
	if cl.Original != "http://x.test/a" || len(cl.Copies) != 2 {
		t.Fatalf("cluster = %+v", cl)
	}
	b, c := cl.Copies[0], cl.Copies[1]
	if b.URL != "http://x.test/b" || b.Resemblance != 1 || b.Features != 6 || !b.Identical {
		t.Errorf("copy b = %+v", b)
	}
	if c.URL != "http://x.test/c" || c.Resemblance < 0.9 || c.Resemblance == 1 || c.Identical {
		t.Errorf("copy c = %+v", c)
	}
	var out bytes.Buffer
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"4 pages checked, 1 clusters, 2 near-duplicates (1 with text identical", "original         http://x.test/a",
		"1.000  6/6  =   http://x.test/b"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("listing lacks %q:\n%s", want, out.String())
		}
	}
	if _, err := runDedup(context.Background(), dedupOptions{db: db, crawl: "nope"}); err == nil {
		t.Error("dedup of an unknown crawl: no error")
	}
}

func TestRunSearch(t *testing.T) {
	db := dupStore(t)
	var out bytes.Buffer
	if err := runSearch(context.Background(), &out, db, experiment.ReadOptions{}, "pangolin", 10, true); err != nil {
		t.Fatal(err)
	}
	var hits []searchHit
	if err := json.Unmarshal(out.Bytes(), &hits); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	var urls []string
	for _, h := range hits {
		urls = append(urls, h.URL)
		if !strings.Contains(h.Snippet, "[pangolin]") {
			t.Errorf("snippet %q does not mark the match", h.Snippet)
		}
	}
	// The copies /b and /c are never found.
	if strings.Join(urls, " ") != "http://x.test/d http://x.test/a" && strings.Join(urls, " ") != "http://x.test/a http://x.test/d" {
		t.Errorf("search pangolin = %v, want /a and /d", urls)
	}
	out.Reset()
	if err := runSearch(context.Background(), &out, db, experiment.ReadOptions{}, "mirror", 10, false); err != nil || !strings.Contains(out.String(), "no page matches") {
		t.Errorf("search mirror (only in a duplicate): %v\n%s", err, out.String())
	}
	out.Reset()
	if err := runSearch(context.Background(), &out, db, experiment.ReadOptions{}, "pangolins", 1, false); err != nil || !strings.HasPrefix(out.String(), "1. Pangolins  [") ||
		!strings.Contains(out.String(), "http://x.test/a") {
		t.Errorf("text output: %v\n%s", err, out.String())
	}
}

func TestExportReport_duplicates(t *testing.T) {
	db := dupStore(t)
	var out bytes.Buffer
	if err := experiment.ExportJSONL(context.Background(), db, "", experiment.ReadOptions{}, experiment.ExportOptions{}, &out); err != nil {
		t.Fatal(err)
	}
	dupOf := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var e experiment.ExportLine
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		dupOf[e.URL] = e.DuplicateOf
	}
	want := map[string]string{"http://x.test/a": "", "http://x.test/b": "http://x.test/a", "http://x.test/c": "http://x.test/a",
		"http://x.test/d": "", "http://x.test/e": ""}
	for u, w := range want {
		if dupOf[u] != w {
			t.Errorf("export %s: duplicate_of %q, want %q", u, dupOf[u], w)
		}
	}
	rep, err := buildReport(context.Background(), db, "", "", 100, []string{"any"}, "crawled-hosts")
	if err != nil {
		t.Fatal(err)
	}
	if ts := rep.Topic("any"); rep.Duplicates != 2 || ts.Unique != 2 || ts.Duplicates != 2 {
		t.Errorf("report: %d duplicates, topic %+v", rep.Duplicates, ts)
	}
}
