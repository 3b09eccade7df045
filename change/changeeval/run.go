package changeeval

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/scent-crawler/scent/change"
	"github.com/scent-crawler/scent/internal/atomicfile"
)

// Config says what to evaluate and where to write it.
type Config struct {
	// Out is the directory the CSV, SVG and JSON files are written to; it
	// is created if missing. Required.
	Out string
	// Costs are IED's costs; the criteria use α = S and β = T. The paper
	// uses change.DefaultCosts (0.75 and 0.75).
	Costs change.Costs
	// Words is the document size of Fig. 7 (default 1,000, as the paper).
	Words int
	// MinExp and MaxExp bound the document sizes 2^MinExp … 2^MaxExp of
	// Fig. 8 (defaults 2 and 13, as the paper).
	MinExp, MaxExp int
	// Seed fixes where the synthetic clusters go (default 1).
	Seed uint64
	// Changes is the path of a change history (JSON lines, optionally
	// gzip-compressed) for Fig. 5 and 6; empty skips them.
	Changes string
	// MaxPairs bounds the version pairs measured for Fig. 5; 0 means all.
	MaxPairs int
	// Progress receives progress lines; nil discards them.
	Progress io.Writer
}

// withDefaults returns cfg with zero fields set to their defaults.
func (cfg Config) withDefaults() Config {
	if cfg.Words == 0 {
		cfg.Words = 1000
	}
	if cfg.MinExp == 0 && cfg.MaxExp == 0 {
		cfg.MinExp, cfg.MaxExp = 2, 13
	}
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	return cfg
}

// Validate reports whether the configuration, after defaults, can run.
func (cfg Config) Validate() error {
	cfg = cfg.withDefaults()
	if cfg.Out == "" {
		return errors.New("change evaluation: an output directory is required")
	}
	if err := cfg.Costs.Validate(); err != nil {
		return fmt.Errorf("change evaluation: %w", err)
	}
	if cfg.Words < 20 {
		return fmt.Errorf("change evaluation: fig. 7 document of %d words is too small (at least 20)", cfg.Words)
	}
	if cfg.MinExp < 2 || cfg.MaxExp < cfg.MinExp || cfg.MaxExp > 24 {
		return fmt.Errorf("change evaluation: fig. 8 sizes 2^%d…2^%d: need 2 ≤ min ≤ max ≤ 24", cfg.MinExp, cfg.MaxExp)
	}
	if cfg.MaxPairs < 0 {
		return fmt.Errorf("change evaluation: max pairs %d is negative", cfg.MaxPairs)
	}
	return nil
}

// Report is what Run computed; summary.json holds all but the raw points.
type Report struct {
	Costs change.Costs `json:"costs"`
	Seed  uint64       `json:"seed"`
	// Fig7 and Fig8 are the synthetic measurements.
	Fig7 []Point `json:"-"`
	Fig8 []Point `json:"-"`
	// Fig7MaxDeviation and Fig8MaxDeviation give, per kind and metric,
	// the largest |metric − criterion| over the sweep.
	Fig7MaxDeviation map[string]map[string]float64 `json:"fig7_max_abs_deviation"`
	Fig8MaxDeviation map[string]map[string]float64 `json:"fig8_max_abs_deviation"`
	// Real is the Fig. 5 result, nil when no change history was given.
	Real *RealSummary `json:"fig5,omitempty"`
	// Files are the files written, relative to Config.Out.
	Files []string `json:"files"`
}

// RealSummary is the part of RealResult that goes into summary.json.
type RealSummary struct {
	Versions       int                `json:"versions"`
	Pages          int                `json:"pages"`
	Pairs          int                `json:"pairs_with_text"`
	Measured       int                `json:"pairs_measured"`
	SkippedOmitted int                `json:"pairs_skipped_text_omitted"`
	SkippedDeleted int                `json:"pairs_skipped_deleted"`
	Mean           map[string]float64 `json:"mean_change_degree"`
	MeanOps        MeanOps            `json:"mean_ied_ops"`
	Seconds        float64            `json:"seconds"`
}

// Run reproduces the paper's evaluation and writes into cfg.Out:
// fig7.csv/svg (change degree against changed words), fig8.csv/svg
// (against document size) and, with a change history, fig5.csv/svg (mean
// change degree of real consecutive versions) and fig6.csv/svg (per pair,
// ordered by 10-SH), plus summary.json. Files are replaced atomically.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, fmt.Errorf("change evaluation: create %s: %w", cfg.Out, err)
	}
	rep := &Report{Costs: cfg.Costs, Seed: cfg.Seed}
	write := func(name string, f func(io.Writer) error) error {
		if err := writeAtomic(filepath.Join(cfg.Out, name), f); err != nil {
			return fmt.Errorf("change evaluation: write %s: %w", name, err)
		}
		rep.Files = append(rep.Files, name)
		return nil
	}

	var err error
	fmt.Fprintf(cfg.Progress, "fig. 7: %d-word document, 5%%…95%% changed\n", cfg.Words)
	if rep.Fig7, err = ChangedWords(cfg.Words, cfg.Costs, cfg.Seed); err != nil {
		return nil, err
	}
	rep.Fig7MaxDeviation = maxDeviation(rep.Fig7)
	fmt.Fprintf(cfg.Progress, "fig. 8: 2^%d…2^%d words, a quarter changed\n", cfg.MinExp, cfg.MaxExp)
	if rep.Fig8, err = DocumentSizes(cfg.MinExp, cfg.MaxExp, cfg.Costs, cfg.Seed); err != nil {
		return nil, err
	}
	rep.Fig8MaxDeviation = maxDeviation(rep.Fig8)

	for _, fig := range []struct {
		name   string
		points []Point
		title  string
		xLabel string
		xOf    func(Point) float64
		ticks  plot.Ticker
	}{
		{"fig7", rep.Fig7, "Fig. 7", fmt.Sprintf("changed words (of %d)", cfg.Words), func(p Point) float64 { return float64(p.X) }, nil},
		{"fig8", rep.Fig8, "Fig. 8", "words in the document (a quarter changed)",
			func(p Point) float64 { return math.Log2(float64(p.N)) }, powerTicks(cfg.MinExp, cfg.MaxExp)},
	} {
		if err := write(fig.name+".csv", func(w io.Writer) error { return writePointsCSV(w, fig.points) }); err != nil {
			return nil, err
		}
		plots, err := sweepPlots(fig.points, fig.title, fig.xLabel, fig.xOf, fig.ticks)
		if err != nil {
			return nil, err
		}
		if err := write(fig.name+".svg", func(w io.Writer) error {
			return panelsSVG(w, plots, 2, 26*vg.Centimeter, 36*vg.Centimeter)
		}); err != nil {
			return nil, err
		}
	}

	if cfg.Changes != "" {
		if err := runReal(ctx, cfg, rep, write); err != nil {
			return nil, err
		}
	}

	if err := write("summary.json", func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}); err != nil {
		return nil, err
	}
	return rep, nil
}

// runReal measures the change history for Fig. 5 and 6 and writes them.
func runReal(ctx context.Context, cfg Config, rep *Report, write func(string, func(io.Writer) error) error) error {
	f, err := os.Open(cfg.Changes)
	if err != nil {
		return fmt.Errorf("change evaluation: %w", err)
	}
	defer f.Close()
	fmt.Fprintf(cfg.Progress, "fig. 5: reading %s\n", cfg.Changes)
	res, err := RealChanges(ctx, f, cfg.Costs, cfg.MaxPairs, cfg.Progress)
	if err != nil {
		return fmt.Errorf("change evaluation: %s: %w", cfg.Changes, err)
	}
	sum := &RealSummary{
		Versions: res.Versions, Pages: res.Pages, Pairs: res.Pairs, Measured: res.Measured,
		SkippedOmitted: res.SkippedOmitted, SkippedDeleted: res.SkippedDeleted,
		Mean: map[string]float64{}, MeanOps: res.MeanOps, Seconds: res.Duration.Seconds(),
	}
	for i, m := range Metrics {
		sum.Mean[m] = res.Mean[i]
	}
	rep.Real = sum

	if err := write("fig5.csv", func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.Write([]string{"metric", "mean_change_degree", "pairs"})
		for i, m := range Metrics {
			cw.Write([]string{m, ftoa(res.Mean[i]), strconv.Itoa(res.Measured)})
		}
		cw.Flush()
		return cw.Error()
	}); err != nil {
		return err
	}
	bars, err := barPlot(fmt.Sprintf("Fig. 5: mean change degree of %d version pairs", res.Measured), res.Mean)
	if err != nil {
		return err
	}
	if err := write("fig5.svg", func(w io.Writer) error {
		return panelsSVG(w, []*plot.Plot{bars}, 1, 16*vg.Centimeter, 11*vg.Centimeter)
	}); err != nil {
		return err
	}

	const sh = 4 // index of 10SH in Metrics
	ranked := slices.Clone(res.Values)
	slices.SortStableFunc(ranked, func(a, b [6]float64) int {
		switch {
		case a[sh] < b[sh]:
			return -1
		case a[sh] > b[sh]:
			return 1
		}
		return 0
	})
	if err := write("fig6.csv", func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.Write(append([]string{"rank"}, Metrics...))
		for i, v := range ranked {
			row := []string{strconv.Itoa(i)}
			for _, x := range v {
				row = append(row, ftoa(x))
			}
			cw.Write(row)
		}
		cw.Flush()
		return cw.Error()
	}); err != nil {
		return err
	}
	cos, err := rankPlot("Fig. 6 (a) 10SH vs. COS", ranked, sh, 1)
	if err != nil {
		return err
	}
	ied, err := rankPlot("Fig. 6 (b) 10SH vs. IED", ranked, sh, IEDIndex)
	if err != nil {
		return err
	}
	return write("fig6.svg", func(w io.Writer) error {
		return panelsSVG(w, []*plot.Plot{cos, ied}, 1, 18*vg.Centimeter, 22*vg.Centimeter)
	})
}

// powerTicks labels log2 positions lo…hi with the powers of two, every
// other one to keep them readable.
func powerTicks(lo, hi int) plot.Ticker {
	var ticks plot.ConstantTicks
	for e := lo; e <= hi; e++ {
		label := ""
		if (e-lo)%2 == 0 {
			label = strconv.Itoa(1 << e)
		}
		ticks = append(ticks, plot.Tick{Value: float64(e), Label: label})
	}
	return ticks
}

// maxDeviation returns, per kind and metric, max |value − criterion|.
func maxDeviation(points []Point) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	for _, p := range points {
		m := out[p.Kind.String()]
		if m == nil {
			m = map[string]float64{}
			out[p.Kind.String()] = m
		}
		for i, name := range Metrics {
			m[name] = math.Max(m[name], math.Abs(p.Values[i]-p.Criterion))
		}
	}
	return out
}

// writePointsCSV writes one row per point with the criterion, every metric
// and IED's operation counts.
func writePointsCSV(w io.Writer, points []Point) error {
	cw := csv.NewWriter(w)
	header := []string{"kind", "words", "changed", "criterion"}
	header = append(header, Metrics...)
	header = append(header, "ied_add", "ied_copy", "ied_drop", "ied_shrink", "ied_replace", "ied_move")
	cw.Write(header)
	for _, p := range points {
		row := []string{p.Kind.String(), strconv.Itoa(p.N), strconv.Itoa(p.X), ftoa(p.Criterion)}
		for _, v := range p.Values {
			row = append(row, ftoa(v))
		}
		o := p.Ops
		for _, n := range []int{o.Add, o.Copy, o.Drop, o.Shrink, o.Replace, o.Move} {
			row = append(row, strconv.Itoa(n))
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }

// writeAtomic writes a file through a temporary file in the same
// directory, renamed into place once complete (atomicfile.Write).
func writeAtomic(path string, f func(io.Writer) error) error {
	return atomicfile.Write(path, func(file *os.File) error {
		w := bufio.NewWriter(file)
		if err := f(w); err != nil {
			return err
		}
		return w.Flush()
	})
}
