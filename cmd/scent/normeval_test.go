package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/experiment"
	"github.com/scent-crawler/scent/sitenorm"
	"github.com/scent-crawler/scent/sqlite"
	"github.com/scent-crawler/scent/urlnorm"
)

// TestNormEval writes Table 2 from a database holding one host's pairs.
func TestNormEval(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "n.db")
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	u := func(p string) urlnorm.URL { return urlnorm.MustParse("http://h.test" + p) }
	cs, err := st.OpenCrawl(ctx, crawler.CrawlSpec{Name: "c", Strategy: crawler.StrategyBFS, Stacks: []string{""}, Seeds: []urlnorm.URL{u("/")}})
	if err != nil {
		t.Fatal(err)
	}
	rules := sitenorm.NewRules(sitenorm.Policy{})
	var pages []*crawler.Page
	for i, p := range []string{"/a/index.html", "/b/index.html", "/c/index.html"} {
		pg := &crawler.Page{URL: u(p), FinalURL: u(p), Status: 200, ContentHash: strings.Repeat("a", i+1), Text: "page"}
		pr := sitenorm.Pair{Host: "h.test", Ext: urlnorm.EN5IndexHTML, URL: u(p), Normalized: u(p).Extend(urlnorm.EN5IndexHTML),
			Outcome: sitenorm.NonLoss, Present: true, Direct: true, Fetches: 1, At: time.Now()}
		pg.NormPairs = []sitenorm.Pair{pr}
		pg.NormRules = []sitenorm.Rule{rules.Observe(pr)}
		pages = append(pages, pg)
	}
	if err := st.Commit(ctx, cs.ID, pages, nil); err != nil {
		t.Fatal(err)
	}
	st.Close()
	out := filepath.Join(dir, "out")
	if err := experiment.NormEval(ctx, &bytes.Buffer{}, db, "c", out, false); err != nil {
		t.Fatal(err)
	}
	var rep experiment.NormReport
	b, err := os.ReadFile(filepath.Join(out, "normalize.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Table) != 1 || rep.Table[0].EN != "EN5" || rep.Table[0].Pairs != 3 || rep.Table[0].Adopted != 1 || rep.Table[0].E != 1 {
		t.Errorf("table %+v", rep.Table)
	}
	if rep.Stats.Pages != 3 || rep.Stats.Measurements != 3 {
		t.Errorf("stats %+v", rep.Stats)
	}
	md, _ := os.ReadFile(filepath.Join(out, "normalize.md"))
	if !strings.Contains(string(md), "| h.test | EN5 | adopted | 3 |") {
		t.Errorf("normalize.md:\n%s", md)
	}
}

// TestStoredNormRules restores a crawl's stored rules, the ones measured
// longest ago first, so that the latest are the ones a bounded set keeps.
func TestStoredNormRules(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "n.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cs, err := st.OpenCrawl(ctx, crawler.CrawlSpec{Name: "c", Strategy: crawler.StrategyBFS, Stacks: []string{""}, Seeds: []urlnorm.URL{urlnorm.MustParse("http://z.test/")}})
	if err != nil {
		t.Fatal(err)
	}
	rules := sitenorm.NewRules(sitenorm.Policy{Sample: 1})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var pages []*crawler.Page
	// z.test is measured first, a.test last: by host the order is the other way.
	for i, h := range []string{"z.test", "m.test", "a.test"} {
		u := urlnorm.MustParse("http://" + h + "/A")
		pr := sitenorm.Pair{Host: h, Ext: urlnorm.EN1LowerPath, URL: u, Normalized: u.Extend(urlnorm.EN1LowerPath),
			Outcome: sitenorm.NonLoss, Present: true, Direct: true, At: t0.Add(time.Duration(i) * time.Hour)}
		pages = append(pages, &crawler.Page{URL: u, FinalURL: u, Status: 200, ContentHash: h, Text: "page",
			NormPairs: []sitenorm.Pair{pr}, NormRules: []sitenorm.Rule{rules.Observe(pr)}})
	}
	if err := st.Commit(ctx, cs.ID, pages, nil); err != nil {
		t.Fatal(err)
	}
	var order []string
	if err := st.EachNormRule(ctx, "c", func(ru sitenorm.Rule) error {
		order = append(order, ru.Host)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(order, " "); got != "z.test m.test a.test" {
		t.Errorf("rules restored in the order %s, want the one measured longest ago first", got)
	}
	restored, err := storedNormRules(ctx, st, "c")
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"z.test", "m.test", "a.test"} {
		if got := restored.Canonical(urlnorm.MustParse("http://" + h + "/A")).String(); got != "http://"+h+"/a" {
			t.Errorf("restored rules give %s", got)
		}
	}
}
