package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Defaults a grid's charts hold fixed while another parameter varies: the
// listed value nearest each is used (see Grid.Defaults).
const (
	GridDefaultK         = 1000
	GridDefaultWindow    = 10
	GridDefaultThreshold = 0.76
)

// Grid is the measure of a grid of crawls over one collection: every
// combination of topic set, strategy, frontier, number of features K,
// link-context window n and threshold that was run, each with its crawl
// report and the cross-validated quality of the classifier it used.
type Grid struct {
	// Command is the command line that ran the grid.
	Command string `json:"command,omitempty"`
	// Budget is the pages each crawl could fetch (0: no limit).
	Budget int `json:"budget"`
	// Seconds is the wall time of the run that finished the grid,
	// training included.
	Seconds float64 `json:"seconds"`
	// Resumed counts the cells an earlier, interrupted run finished; this
	// run's Seconds does not include them.
	Resumed int         `json:"resumed_cells,omitempty"`
	Cells   []*GridCell `json:"cells"`
}

// GridCell is one crawl of a grid. K, Window, Threshold and Frontier are
// zero for a breadth-first crawl, which has no classifier.
type GridCell struct {
	Name      string   `json:"name"`
	Topics    []string `json:"topics"`
	Strategy  string   `json:"strategy"`
	Frontier  string   `json:"frontier,omitempty"`
	K         int      `json:"k,omitempty"`
	Window    int      `json:"window,omitempty"`
	Threshold float64  `json:"threshold,omitempty"`
	// Seconds is the wall time of the cell's crawl and report.
	Seconds float64 `json:"seconds"`
	// Training is the cross-validated quality of the cell's classifier,
	// one entry per topic; nil for bfs or when training ran no folds.
	Training []TrainingScore `json:"training,omitempty"`
	Report   *Report         `json:"report"`
}

// TrainingScore is the cross-validated precision and recall of a model's
// page and segment classification for one topic, as training measured it.
type TrainingScore struct {
	Topic string `json:"topic"`
	Folds int    `json:"folds"`
	// Documents counts the topic's example pages; Backlinks the backlink
	// segments trained on.
	Documents int `json:"documents"`
	Backlinks int `json:"backlink_segments"`
	// Page is the classification of held-out example pages; Segment that
	// of the labelled links among them (nil when there were none).
	Page    *PR `json:"page_cv,omitempty"`
	Segment *PR `json:"segment_cv,omitempty"`
}

// PR is one precision/recall measure.
type PR struct {
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	// Support is the number of held-out items of the topic.
	Support int `json:"support"`
}

// TopicSet names a set of topics crawled together: the topics joined by
// '+'.
func TopicSet(topics []string) string { return strings.Join(topics, "+") }

// training returns the cell's training score of topic, or nil.
func (c *GridCell) training(topic string) *TrainingScore {
	for i := range c.Training {
		if c.Training[i].Topic == topic {
			return &c.Training[i]
		}
	}
	return nil
}

// Series is how the cell's line is named in a chart: its strategy and
// frontier ("link best-first"), or "bfs".
func (c *GridCell) Series() string {
	if c.Frontier == "" {
		return c.Strategy
	}
	return c.Strategy + " " + c.Frontier
}

// classified reports whether the cell crawled with a classifier (not bfs).
func (c *GridCell) classified() bool { return c.K > 0 }

// GridDefaults are the parameter values a grid's charts hold fixed.
type GridDefaults struct {
	K         int
	Window    int
	Threshold float64
}

// Defaults returns, among the values cells list, those nearest
// GridDefaultK, GridDefaultWindow and GridDefaultThreshold (the smaller on
// a tie). Cells without a classifier are ignored.
func Defaults(cells []*GridCell) GridDefaults {
	var d GridDefaults
	bestK, bestN, bestT := math.Inf(1), math.Inf(1), math.Inf(1)
	for _, c := range cells {
		if !c.classified() {
			continue
		}
		if dk := math.Abs(float64(c.K - GridDefaultK)); dk < bestK || dk == bestK && c.K < d.K {
			bestK, d.K = dk, c.K
		}
		if dn := math.Abs(float64(c.Window - GridDefaultWindow)); dn < bestN || dn == bestN && c.Window < d.Window {
			bestN, d.Window = dn, c.Window
		}
		// Distances within 1e-9 are a tie: 0.70 and 0.82 are as near 0.76.
		if dt := math.Abs(c.Threshold - GridDefaultThreshold); dt < bestT-1e-9 || math.Abs(dt-bestT) <= 1e-9 && c.Threshold < d.Threshold {
			bestT, d.Threshold = dt, c.Threshold
		}
	}
	return d
}

// GridSection is the part of a grid about one topic of one topic set.
type GridSection struct {
	TopicSet string
	Topic    string
	Cells    []*GridCell
}

// Title names the section: the topic, and the topic set when the topic
// was crawled together with others.
func (s GridSection) Title() string {
	if s.TopicSet == s.Topic {
		return s.Topic
	}
	return s.Topic + " (crawled as " + s.TopicSet + ")"
}

// Sections splits the grid by topic set and topic, in order of first
// appearance.
func (g *Grid) Sections() []GridSection {
	var out []GridSection
	index := make(map[[2]string]int)
	for _, c := range g.Cells {
		set := TopicSet(c.Topics)
		for _, t := range c.Topics {
			key := [2]string{set, t}
			i, ok := index[key]
			if !ok {
				i = len(out)
				index[key] = i
				out = append(out, GridSection{TopicSet: set, Topic: t})
			}
			out[i].Cells = append(out[i].Cells, c)
		}
	}
	return out
}

// WriteJSON writes the grid as indented JSON.
func (g *Grid) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(g); err != nil {
		return fmt.Errorf("write grid json: %w", err)
	}
	return nil
}

// gridRow is one line of the grid's tables: a cell and one of its topics.
type gridRow struct {
	Cell  *GridCell
	Topic *TopicStats
	Train *TrainingScore
}

func (g *Grid) rows() []gridRow {
	var out []gridRow
	for _, c := range g.Cells {
		if c.Report == nil {
			continue
		}
		for _, t := range c.Topics {
			if ts := c.Report.Topic(t); ts != nil {
				out = append(out, gridRow{Cell: c, Topic: ts, Train: c.training(t)})
			}
		}
	}
	return out
}

// gridColumns are the columns of the grid's Markdown table and CSV.
var gridColumns = []string{"cell", "topics", "strategy", "frontier", "k", "window", "threshold", "topic",
	"pages", "failed", "relevant", "targets", "recall", "precision", "harvest_rate",
	"page_precision", "page_recall", "segment_precision", "segment_recall", "pages_per_second", "seconds"}

// fields returns the row's values in gridColumns order; values that do
// not apply are empty.
func (r gridRow) fields() []string {
	c, t := r.Cell, r.Topic
	f3 := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	out := []string{c.Name, TopicSet(c.Topics), c.Strategy, c.Frontier, "", "", "", t.Topic,
		strconv.Itoa(c.Report.Pages), strconv.Itoa(c.Report.Failed), strconv.Itoa(t.Relevant), strconv.Itoa(t.Targets),
		"", f3(t.Precision), f3(t.Harvest), "", "", "", "",
		strconv.FormatFloat(c.Report.PagesPerSecond, 'f', 1, 64), strconv.FormatFloat(c.Seconds, 'f', 2, 64)}
	if c.classified() {
		out[4], out[5], out[6] = strconv.Itoa(c.K), strconv.Itoa(c.Window), strconv.FormatFloat(c.Threshold, 'g', -1, 64)
	}
	if t.Targets > 0 {
		out[12] = f3(t.Recall)
	}
	if r.Train != nil && r.Train.Page != nil {
		out[15], out[16] = f3(r.Train.Page.Precision), f3(r.Train.Page.Recall)
	}
	if r.Train != nil && r.Train.Segment != nil {
		out[17], out[18] = f3(r.Train.Segment.Precision), f3(r.Train.Segment.Recall)
	}
	return out
}

// WriteCSV writes one row per cell and topic with the columns cell,
// topics, strategy, frontier, k, window, threshold, topic, pages, failed,
// relevant, targets, recall, precision, harvest_rate, page_precision,
// page_recall, segment_precision, segment_recall (the classifier's
// cross-validated measures), pages_per_second and seconds. Fields that do
// not apply (K of a bfs crawl, recall without targets) are empty.
func (g *Grid) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(gridColumns); err != nil {
		return fmt.Errorf("write grid csv: %w", err)
	}
	for _, r := range g.rows() {
		if err := cw.Write(r.fields()); err != nil {
			return fmt.Errorf("write grid csv: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write grid csv: %w", err)
	}
	return nil
}

// WriteMarkdown writes the grid as a Markdown document: the best recall of
// each topic and one table of every cell.
func (g *Grid) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Experiment grid\n\n%d crawls", len(g.Cells))
	if g.Budget > 0 {
		fmt.Fprintf(&b, " of %d pages each", g.Budget)
	}
	fmt.Fprintf(&b, " in %.0f s", g.Seconds)
	if g.Resumed > 0 {
		fmt.Fprintf(&b, " (%d of them finished by an earlier run, not counted in the time)", g.Resumed)
	}
	b.WriteString(".")
	if g.Command != "" {
		fmt.Fprintf(&b, " Command:\n\n```\n%s\n```\n", g.Command)
	}
	b.WriteString("\n")
	if best := g.best(); len(best) > 0 {
		b.WriteString("## Best recall\n\n| topic | cell | recall | pages |\n|---|---|---:|---:|\n")
		for _, r := range best {
			fmt.Fprintf(&b, "| %s | %s | %.3f | %d |\n", r.section.Title(), r.row.Cell.Name, r.row.Topic.Recall, r.row.Cell.Report.Pages)
		}
		b.WriteString("\n")
	}
	b.WriteString("## All crawls\n\nPage and segment P / R are the classifier's cross-validated precision and recall on the training examples.\n\n")
	b.WriteString("| cell | topic | strategy | frontier | K | n | threshold | pages | failed | relevant | targets | recall | precision | harvest rate | page P / R | segment P / R | pages/s | s |\n")
	b.WriteString("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	dash := func(s string) string {
		if s == "" {
			return "–"
		}
		return s
	}
	for _, r := range g.rows() {
		f := r.fields()
		pr := func(p, q string) string {
			if p == "" {
				return "–"
			}
			return p + " / " + q
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			f[0], f[7], f[2], dash(f[3]), dash(f[4]), dash(f[5]), dash(f[6]), f[8], f[9], f[10], f[11], dash(f[12]), f[13], f[14],
			pr(f[15], f[16]), pr(f[17], f[18]), f[19], f[20])
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write grid markdown: %w", err)
	}
	return nil
}

type bestRow struct {
	section GridSection
	row     gridRow
}

// best returns, per section with labelled targets, the cell of highest
// recall (the first on a tie).
func (g *Grid) best() []bestRow {
	var out []bestRow
	for _, s := range g.Sections() {
		var b *bestRow
		for _, c := range s.Cells {
			if c.Report == nil {
				continue
			}
			t := c.Report.Topic(s.Topic)
			if t == nil || t.Targets == 0 {
				continue
			}
			if b == nil || t.Recall > b.row.Topic.Recall {
				b = &bestRow{section: s, row: gridRow{Cell: c, Topic: t}}
			}
		}
		if b != nil {
			out = append(out, *b)
		}
	}
	return out
}
