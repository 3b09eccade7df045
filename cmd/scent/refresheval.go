package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/scent-crawler/scent/refresh"
)

// refreshEvalFlags are the settings of scent refresh-eval.
type refreshEvalFlags struct {
	changes    string
	capacities []float64
	reallocate time.Duration
	forget     float64
	train      float64
	scoreFrom  float64
	scoreUntil float64
	out        string
	title      string
}

// newRefreshEvalCmd builds "scent refresh-eval": replay a change history
// against revisit policies with a simulated clock.
func newRefreshEvalCmd() *cobra.Command {
	var rf refreshEvalFlags
	cmd := &cobra.Command{
		Use:   "refresh-eval --changes FILE [--capacity N,…] [--train F] [--score-from F] [--out DIR]",
		Short: "Replay a change history against revisit policies: freshness, age, fetches, missed changes",
		Long: `refresh-eval replays a change history (JSON lines: url, time, deleted) with a
simulated clock. Rates are learnt from the first --train share of the
history (checked hourly), then each policy fetches every page at the
interval it sets for the capacity (fetches per day), learning from what its
own fetches show. The scored period runs from --score-from (a share of the
history's span; default --train) to --score-until (default the end). Per policy and capacity it reports
freshness (share of page-time with the live copy stored), mean age, fetches
and the share of changes never seen. Policies: default (square root of the
learnt rates), optimal (Cho and Garcia-Molina's allocation of learnt
rates), uniform, groups and groups6 (the paper's, scaled to the capacity,
with its hours), proportional, and oracle (the optimal allocation of the
true rates of the scored period). With --out it writes results.csv,
results.json and freshness.svg.`,
		Example: `  scent refresh-eval --changes ../shared/changes/stalker-2021-2024.jsonl.gz --capacity 5,20,100
  scent refresh-eval --changes history.jsonl.gz --train 0.33 --score-from 0.67 --out results/refresh/late`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRefreshEval(cmd, &rf)
		},
	}
	f := cmd.Flags()
	f.StringVar(&rf.changes, "changes", "", "change history (JSON lines, gzip optional); required")
	f.Float64SliceVar(&rf.capacities, "capacity", []float64{2, 5, 10, 20, 50, 100, 200}, "capacities tried, in fetches per day")
	f.Float64Var(&rf.train, "train", 0.5, "share of the history's time span learnt from, in (0, 1)")
	f.Float64Var(&rf.scoreFrom, "score-from", 0, "share of the span where scoring starts (default --train)")
	f.Float64Var(&rf.scoreUntil, "score-until", 1, "share of the span where scoring ends")
	f.StringVar(&rf.out, "out", "", "directory for results.csv, results.json and freshness.svg (empty: none)")
	f.StringVar(&rf.title, "title", "refresh", "title of the chart")
	f.Float64Var(&rf.forget, "forget", refresh.DefaultForget, "weeks over which a page's older checks fade (e^-1) in the rates of the default, optimal and proportional policies; 0: every check counts alike")
	f.DurationVar(&rf.reallocate, "reallocate", 7*24*time.Hour, "how often the policies turn the rates learnt so far into new intervals")
	_ = cmd.MarkFlagRequired("changes")
	return cmd
}

func runRefreshEval(cmd *cobra.Command, rf *refreshEvalFlags) error {
	if !(rf.train > 0 && rf.train < 1) {
		return fmt.Errorf("--train must be in (0, 1), not %v", rf.train)
	}
	if rf.scoreFrom == 0 {
		rf.scoreFrom = rf.train
	}
	if rf.scoreFrom < rf.train || rf.scoreFrom >= 1 {
		return fmt.Errorf("--score-from must be in [--train, 1), not %v", rf.scoreFrom)
	}
	if rf.scoreUntil <= rf.scoreFrom || rf.scoreUntil > 1 {
		return fmt.Errorf("--score-until must be in (--score-from, 1], not %v", rf.scoreUntil)
	}
	start := time.Now()
	fh, err := os.Open(rf.changes)
	if err != nil {
		return fmt.Errorf("refresh-eval: %w", err)
	}
	h, err := refresh.ReadHistory(fh)
	fh.Close()
	if err != nil {
		return fmt.Errorf("refresh-eval: %w", err)
	}
	if len(h.Pages) == 0 {
		return noPageError(rf.changes, h)
	}
	at := func(share float64) time.Time {
		return h.Start.Add(time.Duration(share * float64(h.End.Sub(h.Start)))).Truncate(time.Hour)
	}
	if rf.reallocate <= 0 {
		return fmt.Errorf("--reallocate must be positive, not %v", rf.reallocate)
	}
	if rf.forget < 0 || math.IsNaN(rf.forget) || math.IsInf(rf.forget, 0) {
		return fmt.Errorf("--forget must be 0 or a positive number of weeks, not %v", rf.forget)
	}
	specs := refresh.DefaultSpecs()
	for i := range specs {
		if specs[i].Forget > 0 {
			specs[i].Forget = rf.forget
		}
	}
	cfg := refresh.SimConfig{TrainEnd: at(rf.train), ScoreStart: at(rf.scoreFrom), Capacities: rf.capacities, Reallocate: rf.reallocate, Specs: specs}
	if rf.scoreUntil < 1 {
		cfg.End = at(rf.scoreUntil)
	}
	rep, err := refresh.Simulate(cmd.Context(), h, cfg)
	if err != nil {
		return fmt.Errorf("refresh-eval: %w", err)
	}
	// The paper's groups as the paper ran them, at their own load, beside
	// the default at the same number of fetches; and the hour rules.
	natural, err := refresh.Simulate(cmd.Context(), h, refresh.SimConfig{TrainEnd: cfg.TrainEnd, ScoreStart: cfg.ScoreStart, End: cfg.End, Reallocate: cfg.Reallocate,
		Capacities: []float64{1}, Specs: []refresh.Spec{{Name: "groups at own load", Policy: refresh.Paper, Hour: refresh.PaperHours, Natural: true},
			{Name: "multiplicative", Multiplicative: true}}})
	if err != nil {
		return fmt.Errorf("refresh-eval: %w", err)
	}
	own := natural.Results[0]
	// Static daily collection of every page, beside the multiplicative
	// policy (interval ×0.5 on change, ×1.2 otherwise), which sets its own
	// load.
	daily, err := refresh.Simulate(cmd.Context(), h, refresh.SimConfig{TrainEnd: cfg.TrainEnd, ScoreStart: cfg.ScoreStart, End: cfg.End, Reallocate: cfg.Reallocate,
		Capacities: []float64{float64(rep.Pages)}, Specs: []refresh.Spec{{Name: "daily", Policy: refresh.Uniform}}})
	if err != nil {
		return fmt.Errorf("refresh-eval: %w", err)
	}
	same, err := refresh.Simulate(cmd.Context(), h, refresh.SimConfig{TrainEnd: cfg.TrainEnd, ScoreStart: cfg.ScoreStart, End: cfg.End, Reallocate: cfg.Reallocate,
		Capacities: []float64{own.FetchesPerDay}, Specs: []refresh.Spec{
			{Name: "default", Policy: refresh.DefaultPolicy, Forget: rf.forget},
			{Name: "groups, any hour", Policy: refresh.Paper},
			{Name: "groups, paper's hours", Policy: refresh.Paper, Hour: refresh.PaperHours},
			{Name: "groups, after changes", Policy: refresh.Paper, Hour: refresh.AfterChanges},
			{Name: "default, after changes", Policy: refresh.DefaultPolicy, Hour: refresh.AfterChanges, Forget: rf.forget},
		}})
	if err != nil {
		return fmt.Errorf("refresh-eval: %w", err)
	}
	// The default at the load daily collection and the multiplicative
	// policy set themselves.
	var atLoad []refresh.Result
	for _, r := range []refresh.Result{daily.Results[0], natural.Results[1]} {
		d, err := refresh.Simulate(cmd.Context(), h, refresh.SimConfig{TrainEnd: cfg.TrainEnd, ScoreStart: cfg.ScoreStart, End: cfg.End, Reallocate: cfg.Reallocate,
			Capacities: []float64{r.FetchesPerDay}, Specs: []refresh.Spec{{Name: "default", Policy: refresh.DefaultPolicy, Forget: rf.forget}}})
		if err != nil {
			return fmt.Errorf("refresh-eval: %w", err)
		}
		atLoad = append(atLoad, d.Results[0])
	}
	elapsed := time.Since(start)
	out := cmd.OutOrStdout()
	printRefreshReport(out, h, rep)
	fmt.Fprintf(out, "the paper's groups at their own load: %.1f fetches a day, freshness %.4f, mean age %.1f h, missed %.3f; at that capacity:\n",
		own.FetchesPerDay, own.Freshness, own.MeanAgeHours, own.MissedShare)
	for _, r := range same.Results {
		fmt.Fprintf(out, "  %-23s freshness %.4f, mean age %.1f h, missed %.3f, %.1f fetches a day\n", r.Policy, r.Freshness, r.MeanAgeHours, r.MissedShare, r.FetchesPerDay)
	}
	for i, r := range []refresh.Result{daily.Results[0], natural.Results[1]} {
		d := atLoad[i]
		fmt.Fprintf(out, "%s, at its own load: %.1f fetches a day, freshness %.4f, mean age %.1f h, missed %.3f; the default at that load: freshness %.4f, mean age %.1f h, missed %.3f, %.1f fetches a day\n",
			r.Policy, r.FetchesPerDay, r.Freshness, r.MeanAgeHours, r.MissedShare, d.Freshness, d.MeanAgeHours, d.MissedShare, d.FetchesPerDay)
	}
	fmt.Fprintf(out, "read and replayed in %.2f s\n", elapsed.Seconds())
	if rf.out == "" {
		return nil
	}
	if err := os.MkdirAll(rf.out, 0o755); err != nil {
		return err
	}
	files := []struct {
		name  string
		write func(io.Writer) error
	}{
		{"results.csv", rep.WriteCSV},
		{"results.json", func(w io.Writer) error {
			return jsonIndent(w).Encode(struct {
				Command []string `json:"command"`
				Bad     []refresh.BadLine
				*refresh.SimReport
			}{os.Args, h.Bad, rep})
		}},
		{"freshness.svg", func(w io.Writer) error { return rep.WriteSVG(w, rf.title) }},
	}
	for _, f := range files {
		if err := writeFileAtomic(filepath.Join(rf.out, f.name), func(fh *os.File) error { return f.write(fh) }); err != nil {
			return fmt.Errorf("refresh-eval: %w", err)
		}
	}
	fmt.Fprintf(out, "wrote results.csv, results.json and freshness.svg into %s\n", rf.out)
	return nil
}

// shownBad is how many bad lines of a history with no page its error
// shows with their reason.
const shownBad = 3

// noPageError says why the history h read from path has no page: it is
// empty or blank, or its lines are bad, the first shownBad shown with
// their number and reason and the rest counted.
func noPageError(path string, h *refresh.History) error {
	switch {
	case h.Lines == 0:
		return fmt.Errorf("refresh-eval: %s has no page: it is empty", path)
	case h.BadCount == 0:
		return fmt.Errorf("refresh-eval: %s has no page: its %d line(s) are blank", path, h.Lines)
	}
	var why []string
	for _, b := range h.Bad {
		if b.Line > 0 && len(why) < shownBad {
			why = append(why, fmt.Sprintf("line %d: %s", b.Line, b.Err))
		}
	}
	if more := h.BadCount - len(why); more > 0 {
		why = append(why, fmt.Sprintf("and %d more", more))
	}
	return fmt.Errorf("refresh-eval: %s has no page: %d of its %d line(s) are not events (%s)", path, h.BadCount, h.Lines, strings.Join(why, "; "))
}

func printRefreshReport(out io.Writer, h *refresh.History, rep *refresh.SimReport) {
	day := "2006-01-02"
	fmt.Fprintf(out, "history: %d lines, %d pages, %d changes, %d bad lines; %s … %s\n",
		h.Lines, len(h.Pages), h.Changes(), h.BadCount, h.Start.Format(day), h.End.Format(day))
	for _, b := range h.Bad {
		if b.Line == 0 {
			fmt.Fprintf(out, "  … and %s\n", b.Err) // the count of those not kept
			continue
		}
		fmt.Fprintf(out, "  bad line %d: %s\n", b.Line, b.Err)
	}
	fmt.Fprintf(out, "learn %s … %s (%d pages, mean %.3f changes a week); score %s … %s (%d pages)\n",
		rep.TrainStart.Format(day), rep.TrainEnd.Format(day), rep.TrainPages, rep.PriorRate,
		rep.ScoreStart.Format(day), rep.End.Format(day), rep.Pages)
	fmt.Fprintf(out, "paper's groups at their own load: %.1f fetches a day for %d pages (%.1f %% of daily); six groups %.1f (%.1f %%)\n",
		rep.LoadPerDay, rep.TrainPages, 100*rep.LoadShare, rep.Load6PerDay, 100*rep.Load6Share)
	fmt.Fprint(out, "  groups:")
	for g := range refresh.Group(refresh.NumGroups) {
		if n := rep.Groups[g]; n > 0 {
			fmt.Fprintf(out, " %s %d", g, n)
		}
	}
	fmt.Fprintln(out)
	fmt.Fprintf(out, "%-13s %8s %9s %9s %8s %9s %8s %7s\n", "policy", "capacity", "freshness", "age (h)", "fetches", "per day", "missed", "gap")
	for _, r := range rep.Results {
		fmt.Fprintf(out, "%-13s %8g %9.4f %9.1f %8d %9.1f %8.3f %6.2f%%\n", r.Policy, r.Capacity, r.Freshness, r.MeanAgeHours,
			r.Fetches, r.FetchesPerDay, r.MissedShare, 100*r.GapToOracle)
	}
}
