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
