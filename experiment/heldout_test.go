package experiment

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/internal/sharedtest"
	"github.com/scent-crawler/scent/training"
)

// TestRunGrid_heldOut_webkb runs a two-cell grid on the real collection
// with the baselines: every cell is measured on held-out targets beside
// breadth-first and the plan, and the best-recall line is held-out.
func TestRunGrid_heldOut_webkb(t *testing.T) {
	archive := sharedtest.Path(t, "corpus/webkb.tgz")
	if testing.Short() {
		t.Skip("corpus test skipped in -short mode")
	}
	out := filepath.Join(t.TempDir(), "grid")
	o := Grid{Spec: Spec{Archive: archive, Out: out, Group: "misc", Budget: 400, Workers: 16, Lockstep: true, Baseline: true},
		TopicSets: []string{"course"}, Strategies: []string{"bfs", "link"}, Frontiers: []string{"stack"}, Ks: []string{"1000"}, Windows: []string{"10"}, Thresholds: []string{"0.76"}}
	o.Model.M, o.Model.Event, o.Model.Folds, o.Model.Documents = 1, "binary", 0, "windows"
	cells, err := o.cells()
	if err != nil {
		t.Fatal(err)
	}
	var stdout strings.Builder
	g, err := runGrid(context.Background(), o, cells, &stdout, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range g.Cells {
		ts := c.Report.Topic("course")
		if ts == nil || ts.Targets == 0 || ts.Targets >= ts.TargetsAll || ts.BFS == nil || len(ts.Plan) != 3 || len(ts.RecallAt) != 1 {
			t.Errorf("cell %s: %+v", c.Name, ts)
		}
		if ts != nil && ts.BFS != nil && c.Strategy == "bfs" && (ts.SpeedUpAt(0.25) == nil || *ts.SpeedUpAt(0.25) != 1) {
			t.Errorf("cell %s: speed-up over itself %v", c.Name, ts.SpeedUp)
		}
	}
	if !strings.Contains(stdout.String(), "best held-out recall") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
	csv, err := os.ReadFile(filepath.Join(out, "report.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(csv), "cell,topics,strategy,frontier,k,window,threshold,topic,pages,fetches,targets,found,recall,") {
		t.Errorf("csv header: %s", strings.SplitN(string(csv), "\n", 2)[0])
	}
}

// TestLearntOf lists the examples and the parents of the backlinks file,
// and writeTrained and ReadTrained keep the list.
func TestLearntOf(t *testing.T) {
	dir := t.TempDir()
	seedPath := filepath.Join(dir, "seeds.txt")
	back := filepath.Join(dir, "back.csv")
	os.WriteFile(seedPath, []byte("seed http://d.test/\ncourse http://a.test/c1\nother http://a.test/o\n"), 0o644)
	os.WriteFile(back, []byte("parent_url,target_url\nhttp://b.test/list,http://a.test/c1\n"), 0o644)
	s, err := training.LoadSeeds(seedPath)
	if err != nil {
		t.Fatal(err)
	}
	mf := training.Settings{Backlinks: back}
	model := filepath.Join(dir, "course.json")
	if err := WriteLearnt(context.Background(), TrainedPathFor(model), s, &mf); err != nil {
		t.Fatal(err)
	}
	got, err := ReadTrained(filepath.Join(dir, "course.trained.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[http://a.test/c1 http://a.test/o http://b.test/list]" {
		t.Errorf("learnt from %v", got)
	}
	// A report finds the list beside its database, or takes the seed
	// file's examples.
	os.Rename(filepath.Join(dir, "course.trained.txt"), filepath.Join(dir, TrainedFile))
	if l, err := LearntFor(filepath.Join(dir, "scent.db"), "", "", io.Discard); err != nil || len(l) != 3 {
		t.Errorf("beside the database: %v, %v", l, err)
	}
	if l, err := LearntFor(filepath.Join(dir, "scent.db"), "", seedPath, io.Discard); err != nil || len(l) != 2 {
		t.Errorf("from the seed file: %v, %v", l, err)
	}
	if l, err := LearntFor(filepath.Join(t.TempDir(), "scent.db"), "", "", io.Discard); err != nil || l != nil {
		t.Errorf("without a list: %v, %v; want none known", l, err)
	}
}
