package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/internal/collectiontest"
	"github.com/scent-crawler/scent/internal/sharedtest"
	"github.com/scent-crawler/scent/linkgraph"
	"github.com/scent-crawler/scent/report"
)

func runScent(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	cmd := newRootCmd()
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	err := cmd.Execute()
	return out.String(), err
}

func TestLayoutCmd(t *testing.T) {
	archive := collectiontest.Write(t)
	// Four department sites, each linking six course and six other pages
	// that link on in a ring; 24 course pages in all.
	out, err := runScent(t, "layout", archive, "--topic", "course")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"pages reachable from 4 seeds, 24 labelled course", "course pages by links from the nearest seed: 1: 24",
		"department", "of the course pages: linked from", "a crawler that knew every page's label and links (greedy plan, seeds included) needs: 50% in "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	js, err := runScent(t, "layout", archive, "--topic", "course", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var l linkgraph.Layout
	if err := json.Unmarshal([]byte(js), &l); err != nil {
		t.Fatalf("--json: %v\n%s", err, js)
	}
	if l.Topic != "course" || l.TopicPages != 24 || l.Hubs < 4 || len(l.Cover) != 3 || l.Cover[2].Hubs < 1 || len(l.Plan) != 3 || l.Plan[2].Fetches < 4+22 {
		t.Errorf("layout %+v", l)
	}
	// One seed: one site's six course pages.
	js, err = runScent(t, "layout", archive, "--topic", "course", "--json", "--seed", "http://a.test/")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(js), &l); err != nil || l.TopicPages != 6 {
		t.Errorf("from one seed: %d course pages (%v), want 6", l.TopicPages, err)
	}
	if _, err := runScent(t, "layout", archive, "--topic", "cource"); err == nil || !strings.Contains(err.Error(), "its labels: course, department, other") {
		t.Errorf("a topic no page has: %v", err)
	}
	for _, args := range [][]string{{"layout", archive}, {"layout", archive, "--topic", "course", "--seed", "ftp://x/"}, {"layout", "/nonexistent.tgz", "--topic", "course"},
		{"layout", archive, "--topic", "course", "--db", filepath.Join(t.TempDir(), "none.db")}} {
		if _, err := runScent(t, args...); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}

// TestLayoutCmd_missed describes what a real breadth-first crawl of six
// pages missed: it fetches the four department pages, then two links of
// one of them (a course and an other page); the department pages
// link to every course page, so each missed page was linked from a
// fetched one.
func TestLayoutCmd_missed(t *testing.T) {
	archive := collectiontest.Write(t)
	out := filepath.Join(t.TempDir(), "bfs")
	if _, err := runScent(t, "experiment", archive, "--out", out, "--topic", "course", "--strategy", "bfs", "--k", "20",
		"--budget", "6", "--workers", "4", "--m", "1", "--baseline=false"); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(out, "scent.db")
	js, err := runScent(t, "layout", archive, "--topic", "course", "--db", db, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var l struct {
		linkgraph.Layout
		Missed *linkgraph.Missed `json:"missed"`
	}
	if err := json.Unmarshal([]byte(js), &l); err != nil {
		t.Fatalf("--json: %v\n%s", err, js)
	}
	m := l.Missed
	if l.TopicPages != 24 || m == nil || m.Fetched != 6 || m.Found != 1 || m.Missed != 23 || m.Linked != 23 || len(m.Behind) != 0 {
		t.Fatalf("layout %d course pages, missed %+v; want 6 fetched, 1 found, 23 missed, all linked", l.TopicPages, m)
	}
	text, err := runScent(t, "layout", archive, "--topic", "course", "--db", db)
	if err != nil || !strings.Contains(text, "the crawl fetched 6 distinct pages of these, 1 of the 24 course pages; it missed 23") ||
		!strings.Contains(text, "23 linked from pages the crawl fetched") ||
		!strings.Contains(text, "found by group: cornell 0 of 6, texas 0 of 6, washington 0 of 6, wisconsin 1 of 6\n") {
		t.Errorf("text output (%v):\n%s", err, text)
	}
}

// TestLayoutCmd_missed_webkb crawls the real collection with the paper's
// link strategy and checks that layout --db finds what the report counts:
// the same course pages (a labelled directory fetched under its index
// page counts, a course page served as text/plain, which the crawl does
// not accept, does not), out of the same targets.
func TestLayoutCmd_missed_webkb(t *testing.T) {
	archive := sharedtest.Path(t, "corpus/webkb.tgz")
	if testing.Short() {
		t.Skip("corpus test skipped in -short mode")
	}
	out := filepath.Join(t.TempDir(), "link")
	if _, err := runScent(t, "experiment", archive, "--out", out, "--folds", "0", "--topic", "course", "--strategy", "link", "--budget", "1000"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep report.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	js, err := runScent(t, "layout", archive, "--topic", "course", "--db", filepath.Join(out, "scent.db"), "--json")
	if err != nil {
		t.Fatal(err)
	}
	var l struct {
		Missed *linkgraph.Missed `json:"missed"`
	}
	if err := json.Unmarshal([]byte(js), &l); err != nil || l.Missed == nil {
		t.Fatalf("--json: %v\n%s", err, js)
	}
	c, m := rep.Topic("course"), l.Missed
	if c == nil || c.Relevant < 50 || m.Found != c.Relevant || m.Found+m.Missed != c.TargetsAll {
		t.Errorf("report: %+v; layout: found %d, missed %d", c, m.Found, m.Missed)
	}
}
