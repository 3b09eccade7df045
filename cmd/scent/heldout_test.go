package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/experiment"
	"github.com/scent-crawler/scent/internal/sharedtest"
	"github.com/scent-crawler/scent/report"
)

// TestExperiment_heldOut_webkb runs a breadth-first experiment on the real
// collection and checks its held-out scoring: the examples of the misc
// group are no targets, breadth-first's first 1,000 pages of the baseline
// give the crawl's own figures, and the all-knowing plan needs fewer
// pages than breadth-first.
func TestExperiment_heldOut_webkb(t *testing.T) {
	archive := sharedtest.Path(t, "corpus/webkb.tgz")
	if testing.Short() {
		t.Skip("corpus test skipped in -short mode")
	}
	out := filepath.Join(t.TempDir(), "bfs")
	if _, err := runScent(t, "experiment", archive, "--out", out, "--folds", "0", "--topic", "course", "--strategy", "bfs", "--budget", "1000"); err != nil {
		t.Fatal(err)
	}
	var rep report.Report
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	learnt, err := experiment.ReadTrained(filepath.Join(out, experiment.TrainedFile))
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Topic("course")
	if c == nil || !rep.HeldOut || rep.LearntFrom != len(learnt) || rep.LearntFrom < 1000 {
		t.Fatalf("report: held out %v, learnt from %d (trained.txt %d), course %+v", rep.HeldOut, rep.LearntFrom, len(learnt), c)
	}
	// The reachable misc course pages are examples: fewer targets than
	// labels, and fewer found than fetched.
	if c.Targets < 200 || c.Targets >= c.TargetsAll || c.Found >= c.Relevant || c.Recall != float64(c.Found)/float64(c.Targets) {
		t.Errorf("held-out %d of %d, all labels %d of %d", c.Found, c.Targets, c.Relevant, c.TargetsAll)
	}
	if rep.Fetches != rep.Pages+rep.Failed || rep.Pages != 1000 {
		t.Errorf("%d pages, %d fetches, %d failed", rep.Pages, rep.Fetches, rep.Failed)
	}
	if c.BFS == nil || len(c.Plan) != 3 || len(c.SpeedUp) != 3 {
		t.Fatalf("no baselines: bfs %+v, plan %+v, speed-up %+v", c.BFS, c.Plan, c.SpeedUp)
	}
	at := func(rs []report.BudgetRecall, pages int) float64 {
		for _, r := range rs {
			if r.Pages == pages {
				return r.Recall
			}
		}
		return -1
	}
	if own, base := at(c.RecallAt, 1000), at(c.BFS.RecallAt, 1000); own < 0.4 || own != base || c.BFS.Targets != c.Targets {
		t.Errorf("recall at 1,000: %v, breadth-first baseline %v (targets %d and %d): want the same", own, base, c.Targets, c.BFS.Targets)
	}
	if r := c.SpeedUpAt(0.25); r == nil || *r != 1 {
		t.Errorf("speed-up of breadth-first over itself at 25 %%: %v", r)
	}
	plan, bfs := c.Plan[2].Pages, c.BFS.PagesTo[2].Pages
	if plan == nil || bfs == nil || *plan >= *bfs || *plan < int(0.75*float64(c.Targets)) {
		t.Errorf("pages to 75 %%: plan %v, breadth-first %v", plan, bfs)
	}
	str := func(n *int) string {
		if n == nil {
			return "–"
		}
		return fmt.Sprint(*n)
	}
	t.Logf("course: %d held-out targets (%d labelled), recall@1000 %.3f; pages to 25/50/75 %%: bfs %s/%s/%s, plan %s/%s/%s",
		c.Targets, c.TargetsAll, at(c.RecallAt, 1000), str(c.BFS.PagesTo[0].Pages), str(c.BFS.PagesTo[1].Pages), str(bfs),
		str(c.Plan[0].Pages), str(c.Plan[1].Pages), str(plan))

	// scent report finds trained.txt beside the database and gives the
	// same held-out figures.
	md, err := runScent(t, "report", "--db", filepath.Join(out, "scent.db"), "--labels", filepath.Join(out, "labels.tsv"), "--targets", "all-labels", "--topics", "course")
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("### course: %d held-out targets", c.Targets); !strings.Contains(md, want) {
		t.Errorf("report lacks %q:\n%s", want, md)
	}
}
