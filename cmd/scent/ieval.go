package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/scent-crawler/scent/change"
	"github.com/scent-crawler/scent/change/changeeval"
)

// newChangeEvalCmd builds "scent change-eval": the IED paper's evaluation
// (Fig. 5, 6, 7 and 8) written as CSV and SVG files.
func newChangeEvalCmd() *cobra.Command {
	var cfg changeeval.Config
	cfg.Costs = change.DefaultCosts()
	cmd := &cobra.Command{
		Use:   "change-eval --out DIR [--changes PATH] [--max-pairs N]",
		Short: "Reproduce the IED paper's evaluation of change metrics as CSV and SVG",
		Long: `Change-eval measures synthetic changes of each of the six kinds (add, drop,
copy, shrink, replace, move) with IED and the baseline metrics and compares
them with the paper's criteria: Fig. 7 (a 1,000-word document, 5 %…95 % of
its words changed in one cluster) and Fig. 8 (documents of 4…8,192 words, a
quarter changed). With --changes it also measures consecutive versions of a
real change history (Fig. 5: mean change degree per metric; Fig. 6: per pair,
ordered by 10-SH). It writes figN.csv, figN.svg and summary.json into --out.`,
		Example: `  scent change-eval --out results/ied --changes ../shared/changes/stalker-2021-2024.jsonl.gz`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg.Progress = cmd.ErrOrStderr()
			rep, err := changeeval.Run(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "wrote %s into %s\n", strings.Join(rep.Files, ", "), cfg.Out)
			for _, fig := range []struct {
				name string
				dev  map[string]map[string]float64
			}{{"fig. 7", rep.Fig7MaxDeviation}, {"fig. 8", rep.Fig8MaxDeviation}} {
				worst := 0.0
				for _, m := range fig.dev {
					worst = max(worst, m["IED"])
				}
				fmt.Fprintf(out, "%s: largest |IED − criterion| %.4f\n", fig.name, worst)
			}
			if r := rep.Real; r != nil {
				fmt.Fprintf(out, "fig. 5: %d of %d version pairs, mean change degree:", r.Measured, r.Pairs)
				for _, m := range changeeval.Metrics {
					fmt.Fprintf(out, " %s %.3f", m, r.Mean[m])
				}
				fmt.Fprintln(out)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.Out, "out", "", "directory for the CSV, SVG and summary files (required)")
	f.StringVar(&cfg.Changes, "changes", "", "change history (JSON lines, gzip optional) for Fig. 5 and 6; empty skips them")
	f.IntVar(&cfg.MaxPairs, "max-pairs", 0, "measure at most this many version pairs, spread over the history (0: all)")
	f.Float64Var(&cfg.Costs.S, "s", cfg.Costs.S, "IED copy/shrink cost, also the criteria's α")
	f.Float64Var(&cfg.Costs.T, "t", cfg.Costs.T, "IED move cost, also the criteria's β")
	f.IntVar(&cfg.Words, "words", 1000, "document size of Fig. 7")
	f.Uint64Var(&cfg.Seed, "seed", 1, "seed of the synthetic change positions")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}
