package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/scent-crawler/scent/urlnorm"
)

// DefaultBudgets are the budgets, in pages fetched successfully, at which
// a report gives recall (those the crawl reached).
var DefaultBudgets = []int{250, 500, 1000, 2000, 4000}

// Shares are the shares of the held-out targets a report gives the pages
// needed for (TopicStats.PagesTo).
var Shares = []float64{0.25, 0.5, 0.75}

// BudgetRecall is a crawl's held-out recall after Pages pages.
type BudgetRecall struct {
	Pages  int     `json:"pages"`
	Found  int     `json:"found"`
	Recall float64 `json:"recall"`
}

// ShareMark is when a crawl had found Share of the held-out targets: after
// Pages pages fetched successfully (the budget unit) and Fetches fetches,
// failed ones included. Both are nil when it did not; Fetches is nil for
// a plan, which fetches no failing page.
type ShareMark struct {
	Share   float64 `json:"share"`
	Pages   *int    `json:"pages"`
	Fetches *int    `json:"fetches,omitempty"`
}

// ShareRatio is a speed-up for one share: the pages breadth-first needs
// over the pages the crawl needs (nil when either did not get there).
type ShareRatio struct {
	Share float64  `json:"share"`
	Ratio *float64 `json:"ratio"`
}

// Baseline is another crawl's measure of the same held-out targets.
type Baseline struct {
	Crawl    string         `json:"crawl,omitempty"`
	Pages    int            `json:"pages"`
	Targets  int            `json:"targets"`
	Found    int            `json:"found"`
	RecallAt []BudgetRecall `json:"recall_at,omitempty"`
	PagesTo  []ShareMark    `json:"pages_to,omitempty"`
}

// mark is when a held-out target was found: pages and fetches so far.
type mark struct{ pages, fetches int }

// HeldOut returns labels without the pages of learnt, each found under its
// own URL or as an index alias as a report finds fetched pages: the
// held-out targets of a model that learnt from learnt.
func HeldOut(labels Labels, learnt []urlnorm.URL) Labels {
	out := make(Labels, len(labels))
	for u, l := range labels {
		out[u] = l
	}
	byDir := indexAliases(labels)
	for _, u := range learnt {
		if key, _, ok := lookup(labels, byDir, u); ok {
			delete(out, key)
		}
	}
	return out
}

// Exclude leaves the pages a model learnt from (its examples, the parents
// of its backlink segments) out of the targets: fetching one costs budget
// but finds nothing. Call it before Add; without labels it only records
// the count.
func (r *Report) Exclude(learnt []urlnorm.URL) {
	r.HeldOut = true
	seen := make(map[urlnorm.URL]bool)
	for _, u := range learnt {
		if seen[u] {
			continue
		}
		seen[u] = true
		if key, _, ok := lookup(r.labels, r.byDir, u); ok {
			r.learnt[key] = true
		}
	}
	r.LearntFrom = len(seen)
}

func (r *Report) budgets() []int {
	if len(r.Budgets) > 0 {
		return r.Budgets
	}
	return DefaultBudgets
}

// headline computes RecallAt and PagesTo from when each target was found.
func (t *TopicStats) headline(pages int, budgets []int) {
	t.RecallAt, t.PagesTo = nil, nil
	if t.Targets == 0 {
		t.found = nil
		return
	}
	for _, b := range budgets {
		if b > pages {
			continue
		}
		n := 0
		for n < len(t.found) && t.found[n].pages <= b {
			n++
		}
		t.RecallAt = append(t.RecallAt, BudgetRecall{Pages: b, Found: n, Recall: float64(n) / float64(t.Targets)})
	}
	for _, s := range Shares {
		m := ShareMark{Share: s}
		if need := Needed(s, t.Targets); need <= len(t.found) {
			f := t.found[need-1]
			m.Pages, m.Fetches = &f.pages, &f.fetches
		}
		t.PagesTo = append(t.PagesTo, m)
	}
	t.found = nil
}

// Needed is how many of total targets make share of them: the fewest n
// with n ≥ share × total (at least 1).
func Needed(share float64, total int) int {
	return max(1, int(math.Ceil(share*float64(total)-1e-9)))
}

// Compare sets every topic's BFS from a breadth-first crawl's report of
// the same targets (same labels, scope and Exclude) and the speed-up over
// it at each share.
func (r *Report) Compare(bfs *Report) {
	for _, t := range r.Topics {
		b := bfs.Topic(t.Topic)
		if b == nil || b.Targets == 0 {
			continue
		}
		t.BFS = &Baseline{Crawl: bfs.Crawl, Pages: bfs.Pages, Targets: b.Targets, Found: b.Found, RecallAt: b.RecallAt, PagesTo: b.PagesTo}
		t.SpeedUp = nil
		for _, s := range Shares {
			sr := ShareRatio{Share: s}
			mine, theirs := pagesTo(t.PagesTo, s), pagesTo(b.PagesTo, s)
			if mine != nil && theirs != nil && *mine > 0 {
				v := float64(*theirs) / float64(*mine)
				sr.Ratio = &v
			}
			t.SpeedUp = append(t.SpeedUp, sr)
		}
	}
}

// pagesTo returns the pages of share in marks, or nil.
func pagesTo(marks []ShareMark, share float64) *int {
	for _, m := range marks {
		if m.Share == share {
			return m.Pages
		}
	}
	return nil
}

// PagesToShare returns the pages the crawl needed for share of the held-out
// targets, or nil when it did not get there.
func (t *TopicStats) PagesToShare(share float64) *int { return pagesTo(t.PagesTo, share) }

// RecallAtBudget returns the recall after pages pages, or nil when the
// report does not give it.
func (t *TopicStats) RecallAtBudget(pages int) *float64 {
	for _, b := range t.RecallAt {
		if b.Pages == pages {
			return &b.Recall
		}
	}
	return nil
}

// SpeedUpAt returns the speed-up over breadth-first at share, or nil.
func (t *TopicStats) SpeedUpAt(share float64) *float64 {
	for _, s := range t.SpeedUp {
		if s.Share == share {
			return s.Ratio
		}
	}
	return nil
}

// fmtInt writes n or "–".
func fmtInt(n *int) string {
	if n == nil {
		return "–"
	}
	return fmt.Sprint(*n)
}

// fmtRatio writes a speed-up as "2.41×" or "–".
func fmtRatio(v *float64) string {
	if v == nil {
		return "–"
	}
	return fmt.Sprintf("%.2f×", *v)
}

// writeHeldOut writes the held-out section of a Markdown report: per
// topic, recall at the budgets and the pages to 25, 50 and 75 % of the
// held-out targets, for the crawl, breadth-first and the all-knowing
// plan, and the speed-up over breadth-first.
func writeHeldOut(b *strings.Builder, r *Report) {
	if !r.Labelled {
		return
	}
	b.WriteString("## Held-out targets\n\n")
	if r.HeldOut {
		fmt.Fprintf(b, "Recall counts the labelled pages of the topic that the model did not learn from: the %d pages it learnt from (its examples and the pages whose links it trained on) are no targets, even when fetched. ", r.LearntFrom)
	} else {
		b.WriteString("**No list of the pages the model learnt from was given: every labelled page is a target.** ")
	}
	b.WriteString("Budgets are pages fetched successfully; pages to a share is the page at which the crawl had found that share of the targets (fetches, failed included, in brackets).\n\n")
	var budgets []int
	for _, bu := range r.budgets() {
		if bu <= r.Pages {
			budgets = append(budgets, bu)
		}
	}
	for _, t := range r.Topics {
		if t.Targets == 0 {
			where := "on the hosts the crawl fetched from"
			if r.TargetScope == ScopeAllLabels {
				where = "in the labels"
			}
			if t.TargetsAll > 0 {
				fmt.Fprintf(b, "### %s: no held-out targets\n\nThe %d labelled pages of the topic %s are all pages the model learnt from: recall is not measured.\n\n", t.Topic, t.TargetsAll, where)
			} else {
				fmt.Fprintf(b, "### %s: no held-out targets\n\nNo page of the topic is labelled %s (are the labels those of the crawled collection?): recall is not measured.\n\n", t.Topic, where)
			}
			continue
		}
		fmt.Fprintf(b, "### %s: %d held-out targets (%d with the pages learnt from)\n\n| crawl | found |", t.Topic, t.Targets, t.TargetsAll)
		for _, bu := range budgets {
			fmt.Fprintf(b, " recall @%d |", bu)
		}
		for _, s := range Shares {
			fmt.Fprintf(b, " pages to %.0f %% |", 100*s)
		}
		b.WriteString("\n|---|---:|" + strings.Repeat("---:|", len(budgets)+len(Shares)) + "\n")
		row := func(name, found string, at []BudgetRecall, to []ShareMark, fetches bool) {
			fmt.Fprintf(b, "| %s | %s |", name, found)
			for _, bu := range budgets {
				v := "–"
				for _, x := range at {
					if x.Pages == bu {
						v = fmt.Sprintf("%.3f", x.Recall)
					}
				}
				fmt.Fprintf(b, " %s |", v)
			}
			for _, s := range Shares {
				v := "–"
				for _, m := range to {
					if m.Share == s && m.Pages != nil {
						v = fmt.Sprint(*m.Pages)
						if fetches && m.Fetches != nil {
							v += fmt.Sprintf(" (%d)", *m.Fetches)
						}
					}
				}
				fmt.Fprintf(b, " %s |", v)
			}
			b.WriteString("\n")
		}
		row(fmt.Sprintf("this crawl (%s)", r.Strategy), fmt.Sprintf("%d (recall %.3f)", t.Found, t.Recall), t.RecallAt, t.PagesTo, true)
		if t.BFS != nil {
			row(fmt.Sprintf("breadth-first (%d pages)", t.BFS.Pages), fmt.Sprint(t.BFS.Found), t.BFS.RecallAt, t.BFS.PagesTo, true)
		}
		if len(t.Plan) > 0 {
			row("all-knowing plan", "–", nil, t.Plan, false)
		}
		if len(t.SpeedUp) > 0 {
			b.WriteString("\nSpeed-up over breadth-first (its pages over this crawl's):")
			for i, s := range t.SpeedUp {
				sep := ","
				if i == 0 {
					sep = ""
				}
				fmt.Fprintf(b, "%s %s to %.0f %%", sep, fmtRatio(s.Ratio), 100*s.Share)
			}
			b.WriteString(".\n")
		}
		b.WriteString("\n")
	}
}
