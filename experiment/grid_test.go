package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/internal/collectiontest"
	"github.com/scent-crawler/scent/report"
	"github.com/scent-crawler/scent/training"
)

func gridOpts(archive, out string) Grid {
	o := Grid{Spec: Spec{Archive: archive, Out: out, Group: "misc", Budget: 15, Workers: 4, Discovery: 20},
		TopicSets: []string{"course"}, Strategies: []string{"bfs", "link", "page"}, Frontiers: []string{"stack"}, Ks: []string{"5,20"}, Windows: []string{"10"},
		Thresholds: []string{"0.76"}}
	o.Model.M, o.Model.Event, o.Model.Folds, o.Model.Documents = 1, "binary", 5, "windows"
	return o
}

func TestRunGrid(t *testing.T) {
	archive := collectiontest.Write(t)
	out := filepath.Join(t.TempDir(), "grid")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	o := gridOpts(archive, out)
	cells, err := o.cells()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"course-bfs", "course-link-stack-k5-n10-t0.76", "course-link-stack-k20-n10-t0.76",
		"course-page-stack-k5-n10-t0.76", "course-page-stack-k20-n10-t0.76"}
	var stdout, progress bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	g, err := runGrid(ctx, o, cells, &stdout, &progress)
	if err != nil {
		t.Fatalf("runGrid: %v\n%s", err, progress.String())
	}
	if !strings.Contains(stdout.String(), "grid of 5 cells in ") {
		t.Errorf("stdout lacks the grid's time:\n%s", stdout.String())
	}
	if n := strings.Count(progress.String(), "\ncell ") + 1; !strings.HasPrefix(progress.String(), "cell 1/5 course-bfs: ") || n != 5 {
		t.Errorf("progress: want a line per cell, got:\n%s", progress.String())
	}
	for _, name := range want {
		if _, err := os.Stat(filepath.Join(out, "cells", name, cellFile)); err != nil {
			t.Errorf("cell %s: %v", name, err)
		}
		if _, err := os.Stat(filepath.Join(out, "cells", name, "report.json")); err == nil {
			t.Errorf("cell %s: a report.json beside cell.json repeats the grid's report", name)
		}
	}
	for _, f := range []string{"command", "report.json", "report.md", "report.csv", "report.html"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("grid output: %v", err)
		}
	}

	// report.json lists every cell with its parameters and sane results.
	data, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var back report.Grid
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.Budget != 15 || back.Seconds <= 0 || len(back.Cells) != len(want) || len(g.Cells) != len(want) {
		t.Fatalf("report.json: budget %d, %.1f s, %d cells; want 15, > 0, %d", back.Budget, back.Seconds, len(back.Cells), len(want))
	}
	for i, c := range back.Cells {
		if c.Name != want[i] {
			t.Errorf("cell %d is %s, want %s", i, c.Name, want[i])
		}
		r := c.Report
		if r == nil || len(r.Topics) != 1 || r.Topics[0].Topic != "course" {
			t.Errorf("cell %s: report %+v lacks the course topic", c.Name, r)
			continue
		}
		ts := r.Topics[0]
		// 24 course pages are reachable from the four department pages.
		if r.Pages < 1 || r.Pages > 15 || ts.Targets != 24 || ts.Recall < 0 || ts.Recall > 1 || r.PagesPerSecond <= 0 || c.Seconds <= 0 {
			t.Errorf("cell %s: %d pages, %d targets, recall %.3f, %.0f pages/s, %.2f s", c.Name, r.Pages, ts.Targets, ts.Recall, r.PagesPerSecond, c.Seconds)
		}
		if ts.Relevant != int(ts.Recall*24+0.5) {
			t.Errorf("cell %s: %d relevant but recall %.3f of 24", c.Name, ts.Relevant, ts.Recall)
		}
		if c.Strategy == "bfs" {
			if c.K != 0 || c.Frontier != "" || c.Training != nil {
				t.Errorf("bfs cell has classifier parameters: %+v", c)
			}
			// Breadth-first fetches the budget: the sites have 52 pages.
			if r.Pages != 15 {
				t.Errorf("bfs fetched %d pages, want 15", r.Pages)
			}
			continue
		}
		if c.K != 5 && c.K != 20 || c.Window != 10 || c.Threshold != 0.76 || c.Frontier != "stack" {
			t.Errorf("cell %s: parameters K %d n %d threshold %v frontier %q", c.Name, c.K, c.Window, c.Threshold, c.Frontier)
		}
		if len(c.Training) != 1 || c.Training[0].Page == nil || c.Training[0].Folds != 5 || c.Training[0].Documents != 8 ||
			c.Training[0].Page.Support != 8 || c.Training[0].Page.Precision < 0 || c.Training[0].Page.Precision > 1 {
			t.Errorf("cell %s: training %+v, want 5-fold page scores of 8 course examples", c.Name, c.Training)
		}
	}
	// The link crawler finds course pages: the department pages link to
	// them with course words.
	if ts := back.Cells[2].Report.Topics[0]; ts.Relevant < 5 {
		t.Errorf("link K 20 found %d course pages, want at least 5", ts.Relevant)
	}

	// Nothing in the output names a page of the collection.
	err = filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, s := range []string{"a.test", "m.test", "homework", "syllabus"} {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s contains collection content %q", p, s)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("the crawls' temporary folder was left behind: %v", left)
	}
}

func TestRunExperiment_single(t *testing.T) {
	archive := collectiontest.Write(t)
	out := filepath.Join(t.TempDir(), "one")
	o := gridOpts(archive, out)
	o.Strategies, o.Ks = []string{"link"}, []string{"20"}
	cells, err := o.cells()
	if err != nil || len(cells) != 1 {
		t.Fatalf("cells = %v, %v; want one", cells, err)
	}
	rep, err := Run(context.Background(), o.single(cells[0]), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Strategy != "link" || rep.Pages < 1 || rep.Pages > 15 {
		t.Errorf("report: strategy %s, %d pages", rep.Strategy, rep.Pages)
	}
	for _, f := range []string{"command", "seeds.txt", "labels.tsv", "model.json", "train.json", "scent.db", "pages.jsonl", "report.json", "report.md"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("single experiment: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "cells")); err == nil {
		t.Error("single experiment wrote a cells folder")
	}
	var m struct {
		Params struct {
			K int `json:"k"`
		} `json:"params"`
	}
	if b, err := os.ReadFile(filepath.Join(out, "model.json")); err != nil || json.Unmarshal(b, &m) != nil || m.Params.K != 20 {
		t.Errorf("model.json: K %d (%v), want 20", m.Params.K, err)
	}
}

func TestExperimentOpts_cells(t *testing.T) {
	base := Grid{Spec: Spec{Out: "x"}, TopicSets: []string{"course"}, Strategies: []string{"link"}, Frontiers: []string{"stack"},
		Ks: []string{"1000"}, Windows: []string{"10"}, Thresholds: []string{"0.76"}}
	tests := []struct {
		name   string
		change func(*Grid)
		count  int
		first  string
		last   string
		err    string
	}{
		{"single", func(*Grid) {}, 1, "course-link-stack-k1000-n10-t0.76", "course-link-stack-k1000-n10-t0.76", ""},
		{"comma topic is one crawl", func(o *Grid) { o.TopicSets = []string{"course,faculty"} }, 1,
			"course+faculty-link-stack-k1000-n10-t0.76", "course+faculty-link-stack-k1000-n10-t0.76", ""},
		{"repeated topic is a dimension", func(o *Grid) { o.TopicSets = []string{"course", "faculty"} }, 2,
			"course-link-stack-k1000-n10-t0.76", "faculty-link-stack-k1000-n10-t0.76", ""},
		{"bfs once per topic set", func(o *Grid) {
			o.TopicSets = []string{"course", "faculty"}
			o.Strategies = []string{"bfs,page,link,link+backlinks"}
			o.Frontiers = []string{"stack,best-first"}
			o.Ks = []string{"50,200,1000,5000"}
			o.Windows = []string{"5,10,20"}
		}, 2 * (1 + 3*2*4*3), "course-bfs", "faculty-link+backlinks-best-first-k5000-n20-t0.76", ""},
		{"repeats dropped", func(o *Grid) { o.Ks = []string{"50,50", "200"}; o.Thresholds = []string{"0.5, 0.9"} }, 4,
			"course-link-stack-k50-n10-t0.5", "course-link-stack-k200-n10-t0.9", ""},
		{"bad k", func(o *Grid) { o.Ks = []string{"10,x"} }, 0, "", "", `--k "x"`},
		{"zero window", func(o *Grid) { o.Windows = []string{"0"} }, 0, "", "", `--window "0"`},
		{"window wider than a page", func(o *Grid) { o.Windows = []string{"10,200001"} }, 0, "", "", "--window 200001: want at most 200000"},
		{"threshold above 1", func(o *Grid) { o.Thresholds = []string{"1.5"} }, 0, "", "", `--threshold "1.5"`},
		{"bad strategy", func(o *Grid) { o.Strategies = []string{"link,dfs"} }, 0, "", "", "unknown strategy"},
		{"bad frontier", func(o *Grid) { o.Frontiers = []string{"queue"} }, 0, "", "", "unknown frontier"},
		{"no topic", func(o *Grid) { o.TopicSets = nil }, 0, "", "", "--topic"},
		{"empty topic", func(o *Grid) { o.TopicSets = []string{" , "} }, 0, "", "", "no topic"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := base
			tt.change(&o)
			cells, err := o.cells()
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(cells) != tt.count || cells[0].name() != tt.first || cells[len(cells)-1].name() != tt.last {
				t.Fatalf("%d cells %s … %s; want %d, %s … %s", len(cells), cells[0].name(), cells[len(cells)-1].name(), tt.count, tt.first, tt.last)
			}
			names := make(map[string]bool)
			for _, c := range cells {
				if names[c.name()] {
					t.Errorf("cell name %s twice", c.name())
				}
				names[c.name()] = true
			}
		})
	}
}

func TestGridCell_model(t *testing.T) {
	o := Grid{Spec: Spec{Out: "x"}, TopicSets: []string{"course"}, Strategies: []string{"page,link,link+backlinks"}, Frontiers: []string{"stack,best-first"},
		Ks: []string{"50,1000"}, Windows: []string{"5,10"}, Thresholds: []string{"0.5,0.76"}}
	cells, err := o.cells()
	if err != nil {
		t.Fatal(err)
	}
	models := make(map[modelKey]bool)
	for _, c := range cells {
		models[c.model()] = true
	}
	// K × window, with and without backlinks; strategies page and link,
	// frontiers and thresholds share.
	if len(cells) != 3*2*2*2*2 || len(models) != 2*2*2 {
		t.Errorf("%d cells, %d models; want 48 and 8", len(cells), len(models))
	}
}

func TestNearest(t *testing.T) {
	if got := nearest([]int{50, 200, 1000, 5000}, 1000); got != 1000 {
		t.Errorf("nearest K = %d", got)
	}
	if got := nearest([]int{5, 20}, 10); got != 5 {
		t.Errorf("nearest window = %d, want 5 (the nearer)", got)
	}
	if got := nearest([]float64{0.9, 0.5, 0.7}, 0.76); got != 0.7 {
		t.Errorf("nearest threshold = %v, want 0.7", got)
	}
}

func TestGridProgress_line(t *testing.T) {
	var buf bytes.Buffer
	p := newGridProgress(&buf, true, 4)
	now := p.start
	p.now = func() time.Time { return now }
	now = now.Add(30 * time.Second)
	p.done(0, "course-bfs", "")
	if got, want := buf.String(), "\r\033[K[######..................] 1/4 course-bfs  elapsed 30s  ETA 1m30s"; got != want {
		t.Errorf("bar = %q, want %q", got, want)
	}
	buf.Reset()
	p.tty = false
	p.done(1, "course-link", "10 pages")
	if got, want := buf.String(), "cell 2/4 course-link: 10 pages (30s elapsed)\n"; got != want {
		t.Errorf("line = %q, want %q", got, want)
	}
}

func FuzzExperimentOpts_cells(f *testing.F) {
	f.Add("course", "link,bfs", "stack", "50,1000", "5,10", "0.76")
	f.Add("course,faculty", "page", "best-first", "1", "1", "1")
	f.Add(" ,", "x", "", "-3", "0x10", "NaN")
	f.Fuzz(func(t *testing.T, topic, strategy, frontier, k, window, threshold string) {
		o := Grid{Spec: Spec{Out: "x"}, TopicSets: []string{topic}, Strategies: []string{strategy}, Frontiers: []string{frontier},
			Ks: []string{k}, Windows: []string{window}, Thresholds: []string{threshold}}
		cells, err := o.cells()
		if err != nil {
			return
		}
		if len(cells) == 0 {
			t.Fatal("no cells and no error")
		}
		for _, c := range cells {
			if c.k <= 0 || c.window <= 0 || !(c.threshold > 0 && c.threshold <= 1) || len(c.topics) == 0 || slices.Contains(c.topics, "") {
				t.Fatalf("invalid cell %+v", c)
			}
		}
	})
}

func BenchmarkExperimentOpts_cells(b *testing.B) {
	o := Grid{Spec: Spec{Out: "x"}, TopicSets: []string{"course", "faculty"}, Strategies: []string{"bfs,page,link,link+backlinks"},
		Frontiers: []string{"stack,best-first"}, Ks: []string{"50,200,1000,5000"}, Windows: []string{"5,10,20"}, Thresholds: []string{"0.76"}}
	for b.Loop() {
		if _, err := o.cells(); err != nil {
			b.Fatal(err)
		}
	}
}

func TestRunExperiment_oracle(t *testing.T) {
	// Scored by their targets' labels, the links of the department pages
	// lead to every course page and to no other page.
	archive := collectiontest.Write(t)
	out := filepath.Join(t.TempDir(), "oracle")
	o := gridOpts(archive, out)
	o.Strategies, o.Ks, o.Budget, o.Oracle = []string{"link"}, []string{"20"}, 100, true
	cells, err := o.cells()
	if err != nil || len(cells) != 1 {
		t.Fatalf("cells = %v, %v; want one", cells, err)
	}
	rep, err := Run(context.Background(), o.single(cells[0]), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "pages.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var seeds, courses int
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var p struct {
			URL string `json:"url"`
		}
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasSuffix(p.URL, ".test/"):
			seeds++
		case strings.Contains(p.URL, "/c"):
			courses++
		default:
			t.Errorf("fetched %s, which no on-topic link leads to", p.URL)
		}
	}
	if seeds != 4 || courses != 24 {
		t.Errorf("fetched %d seeds and %d course pages, want 4 and 24", seeds, courses)
	}
	if c := rep.Topic("course"); c == nil || c.Recall != 1 {
		t.Errorf("course stats = %+v, want recall 1", c)
	}
}

// cancelAfter is a progress writer that cancels a context once it has
// seen n finished cells.
type cancelAfter struct {
	bytes.Buffer
	n      int
	cancel context.CancelFunc
}

func (w *cancelAfter) Write(p []byte) (int, error) {
	n, err := w.Buffer.Write(p)
	if strings.Count(w.String(), "\ncell ")+boolInt(strings.HasPrefix(w.String(), "cell ")) >= w.n {
		w.cancel()
	}
	return n, err
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestRunGrid_resume(t *testing.T) {
	archive := collectiontest.Write(t)
	out := filepath.Join(t.TempDir(), "grid")
	t.Setenv("TMPDIR", t.TempDir())
	o := gridOpts(archive, out)
	cells, err := o.cells()
	if err != nil {
		t.Fatal(err)
	}

	// Interrupted once two cells are done.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ictx, icancel := context.WithCancel(ctx)
	progress := &cancelAfter{n: 2, cancel: icancel}
	if _, err := runGrid(ictx, o, cells, io.Discard, progress); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted grid: err = %v, want context.Canceled\n%s", err, progress.String())
	}
	var finished []string
	for _, c := range cells {
		if _, err := os.Stat(filepath.Join(out, "cells", c.name(), "cell.json")); err == nil {
			finished = append(finished, c.name())
		}
	}
	if len(finished) < 2 || len(finished) == len(cells) {
		t.Fatalf("after the interruption %d cells are finished (%v), want 2 or more but not all %d", len(finished), finished, len(cells))
	}
	first, err := readCell(filepath.Join(out, "cells", finished[0], "cell.json"))
	if err != nil {
		t.Fatal(err)
	}

	// The same command goes on: finished cells are kept, not run again.
	var stdout, again bytes.Buffer
	g, err := runGrid(ctx, o, cells, &stdout, &again)
	if err != nil {
		t.Fatalf("resumed grid: %v\n%s", err, again.String())
	}
	if want := fmt.Sprintf("%d of %d cells were finished by an earlier run", len(finished), len(cells)); !strings.Contains(again.String(), want) {
		t.Errorf("progress lacks %q:\n%s", want, again.String())
	}
	if n := strings.Count(again.String(), ", from an earlier run"); n != len(finished) {
		t.Errorf("%d cells reported as kept, want %d:\n%s", n, len(finished), again.String())
	}
	if g.Resumed != len(finished) || len(g.Cells) != len(cells) {
		t.Fatalf("grid: %d cells, %d resumed; want %d, %d", len(g.Cells), g.Resumed, len(cells), len(finished))
	}
	for i, c := range g.Cells {
		if c.Name != cells[i].name() || c.Report == nil || c.Report.Pages < 1 {
			t.Errorf("cell %d: %s with %v, want %s with pages", i, c.Name, c.Report, cells[i].name())
		}
	}
	// A kept cell is the earlier run's, measurements included.
	if k := g.Cells[0]; k.Name != first.Name || k.Seconds != first.Seconds || k.Report.Pages != first.Report.Pages {
		t.Errorf("kept cell %s: %.3f s, %d pages; the earlier run had %.3f s, %d pages", k.Name, k.Seconds, k.Report.Pages, first.Seconds, first.Report.Pages)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("(%d of them finished by an earlier run", len(finished)); !bytes.Contains(md, []byte(want)) {
		t.Errorf("report.md does not say %q", want)
	}

	// Other settings: the grid starts over.
	o.Budget = 10
	var over bytes.Buffer
	g, err = runGrid(ctx, o, cells, io.Discard, &over)
	if err != nil {
		t.Fatalf("grid with another budget: %v\n%s", err, over.String())
	}
	if !strings.Contains(over.String(), "other settings: starting over") || g.Resumed != 0 {
		t.Errorf("another budget kept %d cells; progress:\n%s", g.Resumed, over.String())
	}
	for _, c := range g.Cells {
		if c.Report.Pages > 10 {
			t.Errorf("cell %s fetched %d pages with a budget of 10", c.Name, c.Report.Pages)
		}
	}
}

func TestRunGrid_trainingPerThreshold(t *testing.T) {
	archive := collectiontest.Write(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	o := gridOpts(archive, filepath.Join(t.TempDir(), "grid"))
	o.Strategies, o.Ks, o.Thresholds, o.Keep = []string{"link"}, []string{"20"}, []string{"0.5,0.76,0.9"}, true
	cells, err := o.cells()
	if err != nil || len(cells) != 3 {
		t.Fatalf("cells = %v, %v; want 3", cells, err)
	}
	if _, err := runGrid(context.Background(), o, cells, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	// The one model of the three cells is cross-validated at each of
	// their thresholds.
	paths, _ := filepath.Glob(filepath.Join(tmp, "scent-grid-*", "models", "*.train.json"))
	if len(paths) != 1 {
		t.Fatalf("training reports kept: %v, want one", paths)
	}
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	var rep training.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	var got []float64
	for _, tc := range rep.ByThreshold {
		got = append(got, tc.Threshold)
		if tc.Page == nil {
			t.Errorf("threshold %v: no page evaluation", tc.Threshold)
		}
	}
	if !slices.Equal(got, []float64{0.5, 0.76, 0.9}) {
		t.Errorf("cross-validated at %v, want [0.5 0.76 0.9]", got)
	}
}

func TestTrainingScores_atThreshold(t *testing.T) {
	ev := func(recall float64) *classify.Evaluation {
		return &classify.Evaluation{Topics: []classify.TopicScore{{Class: "course", Recall: recall, Support: 4}}}
	}
	rep := &training.Report{Folds: 5, Topics: []training.TopicReport{{Name: "course", Documents: 4}}, Page: ev(0.5), Segment: ev(0.4),
		ByThreshold: []training.ThresholdCV{{Threshold: 0.3, Page: ev(0.9), Segment: ev(0.8)}}}
	for _, tc := range []struct {
		th            float64
		page, segment float64
	}{{0.3, 0.9, 0.8}, {0.76, 0.5, 0.4}} {
		got := trainingScores(rep, tc.th)
		if len(got) != 1 || got[0].Page.Recall != tc.page || got[0].Segment.Recall != tc.segment || got[0].Folds != 5 {
			t.Errorf("at %v: %+v, want page recall %v and segment %v", tc.th, got, tc.page, tc.segment)
		}
	}
	if trainingScores(&training.Report{}, 0.76) != nil {
		t.Error("a report without cross-validation gave scores")
	}
}
