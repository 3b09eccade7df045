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

// gridColumns are the columns of the grid's CSV and HTML table: the
// held-out figures first, then breadth-first's and the plan's, then the
// all-labels figures and the classifier's.
var gridColumns = []string{"cell", "topics", "strategy", "frontier", "k", "window", "threshold", "topic",
	"pages", "fetches", "targets", "found", "recall",
	"recall_at_250", "recall_at_500", "recall_at_1000", "recall_at_2000", "recall_at_4000",
	"pages_to_25", "pages_to_50", "pages_to_75",
	"bfs_pages_to_50", "bfs_pages_to_75", "plan_pages_to_50", "plan_pages_to_75", "speedup_50", "speedup_75",
	"failed", "relevant", "targets_all_labels", "recall_all_labels", "precision", "harvest_rate",
	"page_precision", "page_recall", "segment_precision", "segment_recall", "pages_per_second", "seconds"}

// fields returns the row's values by column name (see gridColumns);
// values that do not apply are empty.
func (r gridRow) fields() map[string]string {
	c, t := r.Cell, r.Topic
	f3 := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	opt := func(n *int) string {
		if n == nil {
			return ""
		}
		return strconv.Itoa(*n)
	}
	f := map[string]string{"cell": c.Name, "topics": TopicSet(c.Topics), "strategy": c.Strategy, "frontier": c.Frontier, "topic": t.Topic,
		"pages": strconv.Itoa(c.Report.Pages), "fetches": strconv.Itoa(c.Report.Pages + c.Report.Failed), "found": strconv.Itoa(t.Found),
		"failed": strconv.Itoa(c.Report.Failed), "relevant": strconv.Itoa(t.Relevant), "precision": f3(t.Precision), "harvest_rate": f3(t.Harvest),
		"pages_per_second": strconv.FormatFloat(c.Report.PagesPerSecond, 'f', 1, 64), "seconds": strconv.FormatFloat(c.Seconds, 'f', 2, 64)}
	if c.classified() {
		f["k"], f["window"], f["threshold"] = strconv.Itoa(c.K), strconv.Itoa(c.Window), strconv.FormatFloat(c.Threshold, 'g', -1, 64)
	}
	if t.Targets > 0 {
		f["targets"], f["recall"] = strconv.Itoa(t.Targets), f3(t.Recall)
		for _, b := range t.RecallAt {
			f["recall_at_"+strconv.Itoa(b.Pages)] = f3(b.Recall)
		}
		for _, s := range Shares {
			p := strconv.Itoa(int(100 * s))
			f["pages_to_"+p] = opt(t.PagesToShare(s))
			if t.BFS != nil {
				f["bfs_pages_to_"+p] = opt(pagesTo(t.BFS.PagesTo, s))
			}
			f["plan_pages_to_"+p] = opt(pagesTo(t.Plan, s))
			if v := t.SpeedUpAt(s); v != nil {
				f["speedup_"+p] = strconv.FormatFloat(*v, 'f', 2, 64)
			}
		}
	}
	if t.TargetsAll > 0 {
		f["targets_all_labels"], f["recall_all_labels"] = strconv.Itoa(t.TargetsAll), f3(t.RecallAll)
	}
	if r.Train != nil && r.Train.Page != nil {
		f["page_precision"], f["page_recall"] = f3(r.Train.Page.Precision), f3(r.Train.Page.Recall)
	}
	if r.Train != nil && r.Train.Segment != nil {
		f["segment_precision"], f["segment_recall"] = f3(r.Train.Segment.Precision), f3(r.Train.Segment.Recall)
	}
	return f
}

// values returns the row's fields in gridColumns order.
func (r gridRow) values() []string {
	f := r.fields()
	out := make([]string, len(gridColumns))
	for i, c := range gridColumns {
		out[i] = f[c]
	}
	return out
}

// WriteCSV writes one row per cell and topic with the columns of
// gridColumns: the cell's parameters; its held-out figures (pages,
// fetches with failed ones, held-out targets, found, recall, recall at
// each budget of DefaultBudgets, pages to 25, 50 and 75 % of the
// targets); breadth-first's and the all-knowing plan's pages to 50 and
// 75 % and the speed-up over breadth-first; then failed fetches and the
// all-labels figures (relevant, targets_all_labels, recall_all_labels,
// precision, harvest_rate), the classifier's cross-validated measures,
// pages_per_second and seconds. Fields that do not apply (K of a bfs
// crawl, recall without targets, a share not reached) are empty.
func (g *Grid) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(gridColumns); err != nil {
		return fmt.Errorf("write grid csv: %w", err)
	}
	for _, r := range g.rows() {
		if err := cw.Write(r.values()); err != nil {
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
		b.WriteString("## Best held-out recall\n\nRecall over the held-out targets (labelled pages the model did not learn from); pages to 75 % and the speed-up over breadth-first at the same share.\n\n")
		b.WriteString("| topic | cell | recall | targets | pages | pages to 75 % | breadth-first | speed-up |\n|---|---|---:|---:|---:|---:|---:|---:|\n")
		for _, r := range best {
			t := r.row.Topic
			var bfs *int
			if t.BFS != nil {
				bfs = pagesTo(t.BFS.PagesTo, 0.75)
			}
			fmt.Fprintf(&b, "| %s | %s | %.3f | %d | %d | %s | %s | %s |\n", r.section.Title(), r.row.Cell.Name, t.Recall, t.Targets, r.row.Cell.Report.Pages,
				fmtInt(t.PagesToShare(0.75)), fmtInt(bfs), fmtRatio(t.SpeedUpAt(0.75)))
		}
		b.WriteString("\n")
	}
	b.WriteString("## All crawls\n\nRecall, found and targets are held-out; pages to a share count pages fetched successfully until that share of the held-out targets was found (breadth-first's and the all-knowing plan's beside them); recall (all labels) counts the pages the model learnt from too. Page and segment P / R are the classifier's cross-validated precision and recall on the training examples.\n\n")
	b.WriteString("| cell | topic | strategy | frontier | K | n | threshold | pages | fetches | targets | found | recall | pages to 50 % | 75 % | bfs 50 % | bfs 75 % | plan 50 % | plan 75 % | speed-up 50 % | speed-up 75 % | recall (all labels) | precision | harvest rate | page P / R | segment P / R | pages/s | s |\n")
	b.WriteString("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
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
		cols := []string{f["cell"], f["topic"], f["strategy"], dash(f["frontier"]), dash(f["k"]), dash(f["window"]), dash(f["threshold"]),
			f["pages"], f["fetches"], dash(f["targets"]), f["found"], dash(f["recall"]),
			dash(f["pages_to_50"]), dash(f["pages_to_75"]), dash(f["bfs_pages_to_50"]), dash(f["bfs_pages_to_75"]),
			dash(f["plan_pages_to_50"]), dash(f["plan_pages_to_75"]), dash(f["speedup_50"]), dash(f["speedup_75"]),
			dash(f["recall_all_labels"]), f["precision"], f["harvest_rate"],
			pr(f["page_precision"], f["page_recall"]), pr(f["segment_precision"], f["segment_recall"]), f["pages_per_second"], f["seconds"]}
		b.WriteString("| " + strings.Join(cols, " | ") + " |\n")
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
// held-out recall (the first on a tie).
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
