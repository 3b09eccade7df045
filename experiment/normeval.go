package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/scent-crawler/scent/sitenorm"
	"github.com/scent-crawler/scent/sqlite"
)

// NormReport is "scent normalize-eval --json" and normalize.json.
type NormReport struct {
	Crawl  string            `json:"crawl"`
	Stats  sqlite.FetchStats `json:"stats"`
	Table  []NormRow         `json:"table"`
	Rules  []NormRule        `json:"rules"`
	Policy NormPolicy        `json:"policy"`
}

type NormPolicy struct {
	Sample     int     `json:"sample"`
	MinAnalogy float64 `json:"min_analogy"`
	MaxShare   float64 `json:"max_share"`
}

type NormRow struct {
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

type NormRule struct {
	Host    string  `json:"host"`
	EN      string  `json:"en"`
	State   string  `json:"state"`
	Loss    int     `json:"loss"`
	Gain    int     `json:"gain"`
	Change  int     `json:"change"`
	NonLoss int     `json:"non_loss"`
	A       float64 `json:"a"`
}

// NormEval writes the site-based normalization report of crawl of db:
// to w as Markdown (or JSON with asJSON), or, with out, as normalize.md
// and normalize.json in the folder out.
func NormEval(ctx context.Context, w io.Writer, db, crawl, out string, asJSON bool) error {
	store, info, err := OpenCrawl(ctx, db, crawl)
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
	rep := NormReport{Crawl: info.Name, Stats: stats, Policy: NormPolicy{p.Sample, p.MinAnalogy, p.MaxShare}}
	rows := sitenorm.Table(rules)
	for _, r := range rows {
		rep.Table = append(rep.Table, NormRow{r.Ext.String(), r.Pairs, r.Loss, r.Gain, r.Change, r.NonLoss,
			r.LR, r.GR, r.CR, r.NR, r.E, r.MinA, r.Sites, r.URLsPerSite, r.Adopted, r.Rejected, r.Dropped})
	}
	for _, ru := range rules {
		c := ru.Counts
		rep.Rules = append(rep.Rules, NormRule{ru.Host, ru.Ext.String(), ru.State.String(), c.Loss, c.Gain, c.Change, c.NonLoss, c.Analogy()})
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
