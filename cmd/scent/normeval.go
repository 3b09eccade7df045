package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/scent-crawler/scent/sitenorm"
	"github.com/scent-crawler/scent/sqlite"
)

// normReport is "scent normalize-eval --json" and normalize.json.
type normReport struct {
	Crawl  string            `json:"crawl"`
	Stats  sqlite.FetchStats `json:"stats"`
	Table  []normRow         `json:"table"`
	Rules  []normRule        `json:"rules"`
	Policy normPolicy        `json:"policy"`
}

type normPolicy struct {
	Sample     int     `json:"sample"`
	MinAnalogy float64 `json:"min_analogy"`
	MaxShare   float64 `json:"max_share"`
}

type normRow struct {
	EN          string  `json:"en"`
	Pairs       int     `json:"pairs"`
	Loss        int     `json:"loss"`
	Gain        int     `json:"gain"`
	Change      int     `json:"change"`
	NonLoss     int     `json:"non_loss"`
	LR          float64 `json:"lr"`
	GR          float64 `json:"gr"`
	CR          float64 `json:"cr"`
	NR          float64 `json:"nr"`
	E           float64 `json:"e"`
	MinA        float64 `json:"min_a"`
	Sites       int     `json:"sites"`
	URLsPerSite float64 `json:"urls_per_site"`
	Adopted     int     `json:"hosts_adopted"`
	Rejected    int     `json:"hosts_rejected"`
	Dropped     int     `json:"hosts_dropped"`
}

type normRule struct {
	Host    string  `json:"host"`
	EN      string  `json:"en"`
	State   string  `json:"state"`
	Loss    int     `json:"loss"`
	Gain    int     `json:"gain"`
	Change  int     `json:"change"`
	NonLoss int     `json:"non_loss"`
	A       float64 `json:"a"`
}

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
			return runNormEval(cmd.Context(), cmd.OutOrStdout(), db, crawl, out, asJSON)
		},
	}
	cmd.Flags().StringVar(&db, "db", "scent.db", "SQLite database")
	cmd.Flags().StringVar(&crawl, "crawl", "", "crawl name (default: the latest)")
	cmd.Flags().StringVar(&out, "out", "", "folder to write normalize.md and normalize.json into (default: print Markdown)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of Markdown")
	return cmd
}

func runNormEval(ctx context.Context, w io.Writer, db, crawl, out string, asJSON bool) error {
	store, info, err := openCrawl(ctx, db, crawl)
	if err != nil {
		return err
	}
	defer store.Close()
	rules, err := store.NormRules(ctx, info.Name)
	if err != nil {
		return err
	}
	stats, err := store.FetchStats(ctx, info.ID)
	if err != nil {
		return err
	}
	p := sitenorm.NewRules(sitenorm.Policy{}).Policy()
	rep := normReport{Crawl: info.Name, Stats: stats, Policy: normPolicy{p.Sample, p.MinAnalogy, p.MaxShare}}
	rows := sitenorm.Table(rules)
	for _, r := range rows {
		rep.Table = append(rep.Table, normRow{r.Ext.String(), r.Pairs, r.Loss, r.Gain, r.Change, r.NonLoss,
			r.LR, r.GR, r.CR, r.NR, r.E, r.MinA, r.Sites, r.URLsPerSite, r.Adopted, r.Rejected, r.Dropped})
	}
	for _, ru := range rules {
		c := ru.Counts
		rep.Rules = append(rep.Rules, normRule{ru.Host, ru.Ext.String(), ru.State.String(), c.Loss, c.Gain, c.Change, c.NonLoss, c.Analogy()})
	}
	writeMD := func(w io.Writer) error {
		fmt.Fprintf(w, "# Site-based URL normalization: crawl %s\n\n", info.Name)
		fmt.Fprintf(w, "fetches %d, pages %d, redirect aliases %d, final URLs stored as two pages %d, groups of byte-identical originals %d, distinct bodies %d, normalization requests %d (%.1f %% of the fetches)\n\n",
			stats.Fetches, stats.Pages, stats.Aliases, stats.FinalURLsTwice, stats.IdenticalOriginals, stats.DistinctBodies, stats.Measurements,
			100*float64(stats.Measurements)/float64(max(1, stats.Fetches)))
		fmt.Fprintf(w, "Rule: an EN is adopted for a host once %d pairs whose original page was present are all non-losses served directly (A_i ≥ %.2f with NR_i dominant); a loss, a change or a redirect rejects it; a later loss drops it. Measurements are capped at %.0f %% of the crawl's fetches.\n\n",
			p.Sample, p.MinAnalogy, 100*p.MaxShare)
		return sitenorm.WriteMarkdown(w, rows, rules)
	}
	if out != "" {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return err
		}
		if err := writeFileAtomic(filepath.Join(out, "normalize.md"), func(f *os.File) error { return writeMD(f) }); err != nil {
			return err
		}
		return writeFileAtomic(filepath.Join(out, "normalize.json"), func(f *os.File) error {
			enc := json.NewEncoder(f)
			enc.SetIndent("", "  ")
			return enc.Encode(rep)
		})
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return writeMD(w)
}
