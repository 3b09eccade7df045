package report

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Chart kinds, the data-chart attribute of a chart's figure in WriteHTML.
const (
	ChartHarvest = "harvest"
	ChartRecall  = "recall"
)

// Name is how a report is named in legends and tables: the crawl and its
// strategy.
func (r *Report) Name() string {
	if r.Strategy == "" {
		return r.Crawl
	}
	return r.Crawl + " (" + r.Strategy + ")"
}

// topicNames returns the topics of reports in order of first appearance.
func topicNames(reports []*Report) []string {
	var names []string
	seen := make(map[string]bool)
	for _, r := range reports {
		for _, t := range r.Topics {
			if !seen[t.Topic] {
				seen[t.Topic] = true
				names = append(names, t.Topic)
			}
		}
	}
	return names
}

// chartKind says what a chart plots against the pages fetched.
type chartKind struct {
	name, title, ylabel string
	y                   func(Point) float64
	usable              func(*TopicStats) bool
}

var (
	harvestChart = chartKind{ChartHarvest, "Harvest: %s", "relevant pages",
		func(p Point) float64 { return float64(p.Relevant) }, func(*TopicStats) bool { return true }}
	recallChart = chartKind{ChartRecall, "Recall against budget: %s", "recall",
		func(p Point) float64 { return p.Recall }, func(t *TopicStats) bool { return t.Targets > 0 }}
)

// chartSVG draws one chart of topic, a line per report that measured it,
// as an SVG element. It returns "" when no report has data for it.
func chartSVG(kind chartKind, topic string, reports []*Report) (string, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf(kind.title, topic)
	p.X.Label.Text = "pages fetched"
	p.Y.Label.Text = kind.ylabel
	p.X.Min, p.Y.Min = 0, 0
	if kind.name == ChartRecall {
		p.Y.Max = 1
	}
	p.X.Tick.Marker = plainTicks{}
	if kind.name != ChartRecall {
		p.Y.Tick.Marker = plainTicks{}
	}
	// Curves rise from the bottom left; the bottom right stays clear.
	p.Legend.Top, p.Legend.Left = false, false
	p.Legend.YOffs = vg.Points(28)
	p.Add(plotter.NewGrid())
	lines := 0
	for i, r := range reports {
		t := r.Topic(topic)
		if t == nil || !kind.usable(t) {
			continue
		}
		xys := make(plotter.XYs, 0, len(t.Curve)+1)
		xys = append(xys, plotter.XY{})
		for _, pt := range t.Curve {
			xys = append(xys, plotter.XY{X: float64(pt.Pages), Y: kind.y(pt)})
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return "", fmt.Errorf("%s chart of %s, %s: %w", kind.name, topic, r.Name(), err)
		}
		l.Color = plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i / len(plotutil.SoftColors))
		l.Width = vg.Points(1.5)
		p.Add(l)
		name := r.Name()
		if t.Estimated {
			name += " – estimated"
		}
		p.Legend.Add(name, l)
		lines++
	}
	// A crawl of no page, or of no relevant one, has a range of 0: drawn
	// as it is, its axis would run from -1 to 1, counting negative pages.
	p.X.Max, p.Y.Max = max(p.X.Max, 1), max(p.Y.Max, 1)
	if lines == 0 {
		return "", nil
	}
	svg, err := inlineSVG(p)
	if err != nil {
		return "", fmt.Errorf("%s chart of %s: %w", kind.name, topic, err)
	}
	return svg, nil
}

// inlineSVG draws p as an SVG element to put inline in a page: no XML
// prelude, scaling with the page, labelled with p's title.
func inlineSVG(p *plot.Plot) (string, error) {
	c := vgsvg.New(6*vg.Inch, 4*vg.Inch)
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return "", err
	}
	svg := buf.String()
	i := strings.Index(svg, "<svg")
	if i < 0 {
		return "", errors.New("no <svg> element drawn")
	}
	return `<svg class="chart" role="img" aria-label="` + template.HTMLEscapeString(p.Title.Text) + `" style="max-width:100%;height:auto"` + svg[i+len("<svg"):], nil
}

// plainTicks labels the default ticks with their shortest decimal form
// (50 rather than 50.00), for page counts.
type plainTicks struct{}

// Ticks returns the default ticks between min and max, relabelled.
func (plainTicks) Ticks(min, max float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'f', -1, 64)
		}
	}
	return ts
}

type htmlChart struct {
	Kind, Title string
	SVG         template.HTML
}

type htmlTopic struct {
	Name    string
	Charts  []htmlChart
	Missing []string // charts not drawn, with the reason
}

type htmlRow struct {
	Report *Report
	T      *TopicStats
}

type htmlPage struct {
	Title   string
	Reports []*Report
	Topics  []htmlTopic
	Rows    []htmlRow
	Links   []htmlRow
}

var pageTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"f3":    func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) },
	"f2":    func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) },
	"to":    func(m []ShareMark, share float64) string { return fmtInt(pagesTo(m, share)) },
	"ratio": fmtRatio,
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font-family: sans-serif; margin: 2em auto; max-width: 80em; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.charts { display: flex; flex-wrap: wrap; gap: 1em; }
figure.chart { margin: 0; flex: 1 1 28em; max-width: 40em; }
.estimated { color: #a33; font-weight: bold; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p>Crawls compared: {{range $i, $r := .Reports}}{{if $i}}, {{end}}<strong>{{$r.Name}}</strong>{{end}}.</p>
{{range .Reports}}{{if not .Labelled}}<p class="estimated">{{.Name}}: relevance is estimated by the page classifier (no labels were given).</p>
{{end}}{{end}}<h2>Summary</h2>
<p>Recall, found and targets are over the held-out targets: the labelled pages of the topic that the model did not learn from. Pages to a share: pages fetched successfully until that share of them was found. Relevant, precision, harvest rate and recall (all labels) count every labelled page.</p>
<table id="summary">
<thead><tr><th>crawl</th><th>strategy</th><th>topic</th><th>pages</th><th>fetches</th><th>targets</th><th>found</th><th>recall</th><th>pages to 25 %</th><th>pages to 50 %</th><th>pages to 75 %</th><th>bfs pages to 75 %</th><th>plan pages to 75 %</th><th>speed-up 75 %</th><th>relevant</th><th>targets (all labels)</th><th>precision</th><th>recall (all labels)</th><th>harvest rate</th><th>failed</th><th>duplicates</th><th>from its stack</th></tr></thead>
<tbody>
{{range .Rows}}<tr><td>{{.Report.Crawl}}</td><td>{{.Report.Strategy}}</td><td>{{.T.Topic}}{{if .T.Estimated}} <span class="estimated">(estimated)</span>{{end}}</td><td class="n">{{.Report.Pages}}</td><td class="n">{{.Report.Fetches}}</td><td class="n">{{.T.Targets}}</td><td class="n">{{.T.Found}}</td><td class="n">{{if .T.Targets}}{{f3 .T.Recall}}{{else}}–{{end}}</td><td class="n">{{to .T.PagesTo 0.25}}</td><td class="n">{{to .T.PagesTo 0.5}}</td><td class="n">{{to .T.PagesTo 0.75}}</td><td class="n">{{if .T.BFS}}{{to .T.BFS.PagesTo 0.75}}{{else}}–{{end}}</td><td class="n">{{to .T.Plan 0.75}}</td><td class="n">{{ratio (.T.SpeedUpAt 0.75)}}</td><td class="n">{{.T.Relevant}}</td><td class="n">{{.T.TargetsAll}}</td><td class="n">{{f3 .T.Precision}}</td><td class="n">{{if .T.TargetsAll}}{{f3 .T.RecallAll}}{{else}}–{{end}}</td><td class="n">{{f3 .T.Harvest}}</td><td class="n">{{.Report.Failed}}</td><td class="n">{{.Report.Duplicates}}</td><td class="n">{{.T.FromStack}}</td></tr>
{{end}}</tbody>
</table>
{{if .Links}}<h2>Link classifier on labelled links</h2>
<p>A link is relevant when its target is labelled with the topic, and predicted relevant when its score is at least the threshold.</p>
<table id="links">
<thead><tr><th>crawl</th><th>topic</th><th>threshold</th><th>scored links</th><th>labelled</th><th>true pos.</th><th>false pos.</th><th>false neg.</th><th>precision</th><th>recall</th><th>F1</th></tr></thead>
<tbody>
{{range .Links}}<tr><td>{{.Report.Name}}</td><td>{{.T.Topic}}</td>{{with .T.Links}}<td class="n">{{f2 .Threshold}}</td><td class="n">{{.Scored}}</td><td class="n">{{.Labelled}}</td><td class="n">{{.TruePos}}</td><td class="n">{{.FalsePos}}</td><td class="n">{{.FalseNeg}}</td><td class="n">{{f3 .Precision}}</td><td class="n">{{f3 .Recall}}</td><td class="n">{{f3 .F1}}</td></tr>
{{end}}{{end}}</tbody>
</table>
{{end}}{{range .Topics}}<section class="topic" data-topic="{{.Name}}">
<h2>Topic: {{.Name}}</h2>
<div class="charts">
{{range .Charts}}<figure class="chart" data-chart="{{.Kind}}">
{{.SVG}}
<figcaption>{{.Title}}</figcaption>
</figure>
{{end}}</div>
{{range .Missing}}<p>{{.}}</p>
{{end}}</section>
{{end}}</body>
</html>
`))

// WriteHTML writes one self-contained HTML page (inline SVG, no external
// assets) comparing reports side by side: the summary table, the link
// classifier's table when any report has one, and per topic the harvest
// curve (relevant pages against pages fetched) and the recall-against-
// budget curve, one line per report. The recall chart is left out, with a
// note, when no report of the topic knows its targets (no labels).
func WriteHTML(w io.Writer, reports ...*Report) error {
	if len(reports) == 0 {
		return fmt.Errorf("write html report: no reports")
	}
	pg := htmlPage{Title: "Crawl report", Reports: reports}
	if len(reports) == 1 {
		pg.Title = "Crawl report: " + reports[0].Crawl
	}
	for _, r := range reports {
		for _, t := range r.Topics {
			pg.Rows = append(pg.Rows, htmlRow{r, t})
			if t.Links != nil {
				pg.Links = append(pg.Links, htmlRow{r, t})
			}
		}
	}
	for _, name := range topicNames(reports) {
		ht := htmlTopic{Name: name}
		for _, kind := range []chartKind{harvestChart, recallChart} {
			svg, err := chartSVG(kind, name, reports)
			if err != nil {
				return fmt.Errorf("write html report: %w", err)
			}
			if svg == "" {
				ht.Missing = append(ht.Missing, fmt.Sprintf("No %s chart for %s: no report has labelled targets for it.", kind.name, name))
				continue
			}
			ht.Charts = append(ht.Charts, htmlChart{Kind: kind.name, Title: fmt.Sprintf(kind.title, name), SVG: template.HTML(svg)})
		}
		pg.Topics = append(pg.Topics, ht)
	}
	if err := pageTmpl.Execute(w, pg); err != nil {
		return fmt.Errorf("write html report: %w", err)
	}
	return nil
}

// WriteCSV writes the curve points of reports, one row per point, with
// the header crawl, strategy, topic, pages, found (held-out targets
// found), recall (held-out; empty when the topic's targets are unknown),
// relevant (all labels), harvest_rate, recall_all_labels and estimated.
func WriteCSV(w io.Writer, reports ...*Report) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"crawl", "strategy", "topic", "pages", "found", "recall", "relevant", "harvest_rate", "recall_all_labels", "estimated"}); err != nil {
		return fmt.Errorf("write csv report: %w", err)
	}
	for _, r := range reports {
		for _, t := range r.Topics {
			for _, p := range t.Curve {
				recall, all := "", ""
				if t.Targets > 0 {
					recall = strconv.FormatFloat(p.Recall, 'f', 4, 64)
				}
				if t.TargetsAll > 0 {
					all = strconv.FormatFloat(p.RecallAll, 'f', 4, 64)
				}
				rec := []string{r.Crawl, r.Strategy, t.Topic, strconv.Itoa(p.Pages), strconv.Itoa(p.Found), recall, strconv.Itoa(p.Relevant),
					strconv.FormatFloat(p.Rate, 'f', 4, 64), all, strconv.FormatBool(t.Estimated)}
				if err := cw.Write(rec); err != nil {
					return fmt.Errorf("write csv report: %w", err)
				}
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write csv report: %w", err)
	}
	return nil
}
