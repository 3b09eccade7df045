package sitenorm

import (
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/scent-crawler/scent/urlnorm"
)

// Row is one line of the paper's Table 2 for one EN, over the hosts where
// it was measured.
type Row struct {
	Ext                         urlnorm.Extension
	Pairs                       int // pairs measured
	Loss, Gain, Change, NonLoss int
	LR, GR, CR, NR              float64 // over all pairs
	E                           float64 // mean A_i over the hosts
	MinA                        float64
	Sites                       int
	URLsPerSite                 float64
	Adopted, Rejected, Dropped  int // hosts
}

// Table summarizes rules per EN, in EN order; ENs never measured are left
// out.
func Table(rules []Rule) []Row {
	by := make(map[urlnorm.Extension]*Row)
	for _, ru := range rules {
		n := ru.Counts.N()
		if n == 0 {
			continue
		}
		row := by[ru.Ext]
		if row == nil {
			row = &Row{Ext: ru.Ext, MinA: math.Inf(1)}
			by[ru.Ext] = row
		}
		row.Pairs += n
		row.Loss += ru.Counts.Loss
		row.Gain += ru.Counts.Gain
		row.Change += ru.Counts.Change
		row.NonLoss += ru.Counts.NonLoss
		a := ru.Counts.Analogy()
		row.E += a
		row.MinA = math.Min(row.MinA, a)
		row.Sites++
		switch ru.State {
		case Adopted:
			row.Adopted++
		case Rejected:
			row.Rejected++
		case Dropped:
			row.Dropped++
		}
	}
	var out []Row
	for _, row := range by {
		c := Counts{row.Loss, row.Gain, row.Change, row.NonLoss}
		row.LR, row.GR, row.CR, row.NR = c.Rates()
		row.E /= float64(row.Sites)
		row.URLsPerSite = float64(row.Pairs) / float64(row.Sites)
		out = append(out, *row)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Ext < out[j].Ext })
	return out
}

// PaperTable2 is the paper's Table 2 (Korean web, July 2005): E, min A_i,
// sites and mean URLs per site for EN1–EN6.
var PaperTable2 = []Row{
	{Ext: urlnorm.EN1LowerPath, E: 0.91, MinA: 0.38, Sites: 1823, URLsPerSite: 143},
	{Ext: urlnorm.EN2LowerQuery, E: 0.86, MinA: 0.19, Sites: 2832, URLsPerSite: 102},
	{Ext: urlnorm.EN3TrailingSlash, E: 0.98, MinA: 0.41, Sites: 908, URLsPerSite: 24},
	{Ext: urlnorm.EN4IndexHTM, E: 0.93, MinA: 0.41, Sites: 234, URLsPerSite: 13},
	{Ext: urlnorm.EN5IndexHTML, E: 0.96, MinA: 0.45, Sites: 456, URLsPerSite: 18},
	{Ext: urlnorm.EN6DefaultHTM, E: 0.91, MinA: 0.60, Sites: 15, URLsPerSite: 7},
}

// WriteMarkdown writes rows as a Markdown table beside the paper's
// figures, then the rules adopted, rejected or dropped per host.
func WriteMarkdown(w io.Writer, rows []Row, rules []Rule) error {
	paper := make(map[urlnorm.Extension]Row)
	for _, r := range PaperTable2 {
		paper[r.Ext] = r
	}
	fmt.Fprintln(w, "| EN | pairs | loss | gain | change | non-loss | LR | GR | CR | NR | E | min A_i | sites | URLs/site | hosts adopting | paper E | paper min A_i | paper sites | paper URLs/site |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, r := range rows {
		p := paper[r.Ext]
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %d | %.1f | %d | %.2f | %.2f | %d | %.0f |\n",
			r.Ext, r.Pairs, r.Loss, r.Gain, r.Change, r.NonLoss, r.LR, r.GR, r.CR, r.NR, r.E, r.MinA, r.Sites, r.URLsPerSite,
			r.Adopted, p.E, p.MinA, p.Sites, p.URLsPerSite)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| host | EN | state | pairs | loss | gain | change | non-loss | A_i |")
	fmt.Fprintln(w, "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, ru := range rules {
		c := ru.Counts
		_, err := fmt.Fprintf(w, "| %s | %s | %s | %d | %d | %d | %d | %d | %.2f |\n",
			ru.Host, ru.Ext, ru.State, c.N(), c.Loss, c.Gain, c.Change, c.NonLoss, c.Analogy())
		if err != nil {
			return err
		}
	}
	return nil
}
