package experiment

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/report"
	"github.com/scent-crawler/scent/training"
)

// trainingScores turns a training report's cross-validation at threshold
// th into the grid's per-topic scores; nil when training ran no folds.
func trainingScores(rep *training.Report, th float64) []report.TrainingScore {
	if rep == nil || rep.Page == nil {
		return nil
	}
	page, segment := rep.CVAt(th)
	pr := func(ev *classify.Evaluation, topic string) *report.PR {
		if ev == nil {
			return nil
		}
		ts, ok := ev.Topic(topic)
		if !ok {
			return nil
		}
		return &report.PR{Precision: ts.Precision, Recall: ts.Recall, F1: ts.F1, Support: ts.Support}
	}
	var out []report.TrainingScore
	for _, t := range rep.Topics {
		out = append(out, report.TrainingScore{Topic: t.Name, Folds: rep.Folds, Documents: t.Documents, Backlinks: t.Backlinks,
			Page: pr(page, t.Name), Segment: pr(segment, t.Name)})
	}
	return out
}

// gridProgress shows a grid's progress: on a terminal a bar redrawn in
// place (cell i/N, its name, elapsed time and the estimated time left),
// otherwise a line per finished cell.
type gridProgress struct {
	w     io.Writer
	tty   bool
	n     int
	start time.Time
	now   func() time.Time
}

func newGridProgress(w io.Writer, tty bool, n int) *gridProgress {
	return &gridProgress{w: w, tty: tty, n: n, start: time.Now(), now: time.Now}
}

// begin shows that cell i (from 0) starts.
func (p *gridProgress) begin(i int, name string) {
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", p.line(i, name))
	}
}

// done shows that cell i finished, with a summary of its result.
func (p *gridProgress) done(i int, name, summary string) {
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", p.line(i+1, name))
		return
	}
	el := p.now().Sub(p.start)
	fmt.Fprintf(p.w, "cell %d/%d %s: %s (%s elapsed)\n", i+1, p.n, name, summary, el.Round(time.Second))
}

// end finishes the bar's line.
func (p *gridProgress) end() {
	if p.tty {
		fmt.Fprintln(p.w)
	}
}

// line draws the bar after finished cells have run.
func (p *gridProgress) line(finished int, name string) string {
	const width = 24
	el := p.now().Sub(p.start)
	fill := width * finished / max(p.n, 1)
	eta := "?"
	if finished > 0 {
		eta = (el / time.Duration(finished) * time.Duration(p.n-finished)).Round(time.Second).String()
	}
	return fmt.Sprintf("[%s%s] %d/%d %s  elapsed %s  ETA %s", strings.Repeat("#", fill), strings.Repeat(".", width-fill),
		finished, p.n, name, el.Round(time.Second), eta)
}
