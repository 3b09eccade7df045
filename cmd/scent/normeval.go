package main

import (
	"github.com/spf13/cobra"

	"github.com/scent-crawler/scent/experiment"
)

// newNormEvalCmd builds "scent normalize-eval": the paper's Table 2 for
// a crawl made with --site-norm.
func newNormEvalCmd() *cobra.Command {
	var db, crawl, out string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "normalize-eval",
		Short: "Table 2 of site-based URL normalization for a crawl: pairs, outcomes, LR/GR/CR/NR, A_i, E, rules per host",
		Long: `Normalize-eval reads the normalized pairs a crawl made with --site-norm
measured and writes, per extended normalization (EN1 lower-case path, EN2
lower-case query, EN3 no trailing slash, EN4/EN5/EN6 no index.htm,
index.html, default.htm): the pairs tried, each outcome (loss, gain,
change, non-loss), the rates LR, GR, CR, NR over all pairs, E (the mean
analogy A_i over the hosts), the least A_i, the hosts and pairs per host,
beside the paper's Table 2; then every host's rule and its state
(adopted, rejected, dropped, sampling). It also counts the crawl's fetches,
pages, redirect aliases, final URLs stored as two pages, groups of
byte-identical pages stored twice as originals, and the requests the
measurements cost.`,
		Example: `  scent normalize-eval --db out/scent.db --crawl experiment --out results/urlnorm`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return experiment.NormEval(cmd.Context(), cmd.OutOrStdout(), db, crawl, out, asJSON)
		},
	}
	cmd.Flags().StringVar(&db, "db", "scent.db", "SQLite database")
	cmd.Flags().StringVar(&crawl, "crawl", "", "crawl name (default: the latest)")
	cmd.Flags().StringVar(&out, "out", "", "folder to write normalize.md and normalize.json into (default: print Markdown)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of Markdown")
	return cmd
}
