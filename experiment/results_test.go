package experiment

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/report"
)

// TestReadResults reads a single experiment's report and a grid's (whose
// best cell per topic is its row; its cells folder is skipped) and
// writes them as one table.
func TestReadResults(t *testing.T) {
	root := t.TempDir()
	pages := func(n int) *int { return &n }
	topic := func(name string, recall float64, to50 *int) *report.TopicStats {
		return &report.TopicStats{Topic: name, Targets: 40, Recall: recall,
			RecallAt: []report.BudgetRecall{{Pages: 250, Found: 10, Recall: 0.25}, {Pages: 500, Found: 30, Recall: recall}},
			PagesTo:  []report.ShareMark{{Share: 0.5, Pages: to50}},
			BFS:      &report.Baseline{PagesTo: []report.ShareMark{{Share: 0.5, Pages: pages(300)}}}}
	}
	write := func(dir string, v any, command string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(v)
		if err := os.WriteFile(filepath.Join(root, dir, "report.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, dir, "command"), []byte(command+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("one", &report.Report{Pages: 500, HeldOut: true, Topics: []*report.TopicStats{topic("course", 0.75, pages(120))}},
		"scent experiment ../shared/corpus/webkb.tgz --out out/one --budget 500 --topic course --preset paper")
	grid := &report.Grid{Cells: []*report.GridCell{
		{Name: "weak", Report: &report.Report{Pages: 500, HeldOut: true, Topics: []*report.TopicStats{topic("faculty", 0.5, nil)}}},
		{Name: "strong", Report: &report.Report{Pages: 500, HeldOut: true, Topics: []*report.TopicStats{topic("faculty", 0.9, pages(90))}}},
	}}
	write("grid", grid, "scent experiment c.tgz --out g --topic faculty --k 5,20")
	write("grid/cells/strong", grid.Cells[1].Report, "not read")
	rows, err := ReadResults(root, func(string) string { return "abc1234" })
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2 (the grid's cells folder skipped): %+v", len(rows), rows)
	}
	g, one := rows[0], rows[1]
	if g.Dir != "grid" || g.Cells != 2 || g.Config != "--k 5,20 → best cell strong" || *g.PagesTo50 != 90 || g.FinalRecall != 0.9 {
		t.Errorf("grid row %+v", g)
	}
	if one.Dir != "one" || one.Config != "--budget 500 --preset paper" || *one.Recall[1] != 0.75 || one.Recall[2] != nil || *one.BFSTo50 != 300 || one.Commit != "abc1234" {
		t.Errorf("single row %+v", one)
	}
	var b strings.Builder
	if err := WriteResultsTable(&b, rows, "scent results", root); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "Earlier reports") {
		t.Errorf("a table of held-out reports alone has a section of earlier reports:\n%s", b.String())
	}
	for _, want := range []string{"| [one](one/) | course | `--budget 500 --preset paper` | 40 | 500 | 0.750 | 0.250 | 0.750 | – | – | 120 | 300 | – | – | abc1234 |",
		"experiment under\n`" + filepath.ToSlash(root) + "/`",
		"`--k 5,20 → best cell strong (grid of 2)`", "- `one`: `scent experiment ../shared/corpus/webkb.tgz --out out/one --budget 500 --topic course --preset paper`"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}
