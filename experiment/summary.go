package experiment

import (
	"fmt"
	"io"
	"strings"

	"github.com/scent-crawler/scent/report"
)

// WriteSummary writes one line per topic of an experiment's report: the
// held-out figures, breadth-first's and the plan's beside them, or that
// the topic has no held-out target.
func WriteSummary(w io.Writer, rep *report.Report) {
	for _, t := range rep.Topics {
		if t.Targets == 0 {
			// A recall of 0 would read as a crawl that found nothing.
			fmt.Fprintf(w, "%s %s: %d pages (%d fetches), no held-out targets: every page labelled %s that the seeds reach was learnt from, or none is reached; %.0f pages/s, %.0f fetches/s\n",
				rep.Strategy, t.Topic, rep.Pages, rep.Fetches, t.Topic, rep.PagesPerSecond, rep.FetchesPerSecond)
			continue
		}
		fmt.Fprintf(w, "%s %s: %d pages (%d fetches), %d of %d held-out targets: recall %.3f (all labels %.3f)%s; %.0f pages/s, %.0f fetches/s\n",
			rep.Strategy, t.Topic, rep.Pages, rep.Fetches, t.Found, t.Targets, t.Recall, t.RecallAll, headline(t), rep.PagesPerSecond, rep.FetchesPerSecond)
	}
}

// headline is "; pages to 25/50/75 %: a/b/c, breadth-first d/e/f, plan
// g/h/i; speed-up x / y" for the shares a topic has.
func headline(t *report.TopicStats) string {
	if len(t.PagesTo) == 0 {
		return ""
	}
	shares := func(m []report.ShareMark) string {
		var parts []string
		for _, s := range report.Shares {
			p := "–"
			for _, x := range m {
				if x.Share == s && x.Pages != nil {
					p = fmt.Sprint(*x.Pages)
				}
			}
			parts = append(parts, p)
		}
		return strings.Join(parts, "/")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "; pages to 25/50/75 %%: %s", shares(t.PagesTo))
	if t.BFS != nil {
		fmt.Fprintf(&b, ", breadth-first %s", shares(t.BFS.PagesTo))
	}
	if len(t.Plan) > 0 {
		fmt.Fprintf(&b, ", plan %s", shares(t.Plan))
	}
	if len(t.SpeedUp) > 0 {
		r := func(v *float64) string {
			if v == nil {
				return "–"
			}
			return fmt.Sprintf("%.2f×", *v)
		}
		fmt.Fprintf(&b, "; speed-up over breadth-first %s at 50 %%, %s at 75 %%", r(t.SpeedUpAt(0.5)), r(t.SpeedUpAt(0.75)))
	}
	return b.String()
}
