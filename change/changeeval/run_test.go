package changeeval

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/change"
)

func TestConfig_Validate(t *testing.T) {
	ok := Config{Out: "x", Costs: change.DefaultCosts()}
	tests := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"defaults", ok, true},
		{"no out", Config{Costs: change.DefaultCosts()}, false},
		{"bad cost", Config{Out: "x", Costs: change.Costs{S: 2, T: 0.5}}, false},
		{"small doc", Config{Out: "x", Costs: change.DefaultCosts(), Words: 10}, false},
		{"bad sizes", Config{Out: "x", Costs: change.DefaultCosts(), MinExp: 5, MaxExp: 3}, false},
		{"negative pairs", Config{Out: "x", Costs: change.DefaultCosts(), MaxPairs: -1}, false},
	}
	for _, tt := range tests {
		if err := tt.cfg.Validate(); (err == nil) != tt.ok {
			t.Errorf("%s: Validate() = %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	changes := filepath.Join(dir, "history.jsonl.gz")
	if err := os.WriteFile(changes, gz(t, history(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	var progress bytes.Buffer
	rep, err := Run(context.Background(), Config{
		Out: out, Costs: change.DefaultCosts(), Words: 100, MinExp: 2, MaxExp: 6,
		Changes: changes, Progress: &progress,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"fig7.csv", "fig7.svg", "fig8.csv", "fig8.svg", "fig5.csv", "fig5.svg", "fig6.csv", "fig6.svg", "summary.json"}
	if strings.Join(rep.Files, " ") != strings.Join(want, " ") {
		t.Fatalf("files %v, want %v", rep.Files, want)
	}
	for _, name := range want {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(name, ".svg") && !bytes.Contains(b[:min(len(b), 200)], []byte("<svg")) {
			t.Errorf("%s is not SVG: %.60q", name, b)
		}
	}
	if rows := readCSV(t, filepath.Join(out, "fig7.csv")); len(rows) != 1+6*19 || rows[0][3] != "criterion" || rows[0][9] != "IED" {
		t.Errorf("fig7.csv: %d rows, header %v", len(rows), rows[0])
	}
	if rows := readCSV(t, filepath.Join(out, "fig8.csv")); len(rows) != 1+6*5 {
		t.Errorf("fig8.csv: %d rows", len(rows))
	}
	if rows := readCSV(t, filepath.Join(out, "fig5.csv")); len(rows) != 7 || rows[1][0] != "BW" || rows[1][1] != "1.000000" {
		t.Errorf("fig5.csv: %v", rows)
	}
	var sum struct {
		Fig7 map[string]map[string]float64 `json:"fig7_max_abs_deviation"`
		Fig5 struct {
			Measured int `json:"pairs_measured"`
		} `json:"fig5"`
	}
	b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Fig7["move"]["IED"] > 0.01 || sum.Fig7["move"]["WD"] < 0.1 || sum.Fig5.Measured != 1 {
		t.Errorf("summary: %s", b)
	}
	if !strings.Contains(progress.String(), "fig. 5") {
		t.Errorf("no progress for fig. 5: %q", progress.String())
	}
	// No temporary files are left behind.
	entries, _ := os.ReadDir(out)
	if len(entries) != len(want) {
		t.Errorf("%d entries in the output directory, want %d", len(entries), len(want))
	}
}

func TestRun_missingHistory(t *testing.T) {
	_, err := Run(context.Background(), Config{Out: t.TempDir(), Costs: change.DefaultCosts(), Words: 100, MinExp: 2, MaxExp: 3,
		Changes: filepath.Join(t.TempDir(), "absent.jsonl.gz")})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v, want not-exist", err)
	}
}
