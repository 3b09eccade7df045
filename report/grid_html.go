package report

import (
	"fmt"
	"html/template"
	"io"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Chart kinds of a grid's HTML page (the data-chart attribute of each
// chart's figure).
const (
	// ChartGridHarvest: relevant pages against pages fetched, one line
	// per strategy and frontier, at the default K, window and threshold.
	ChartGridHarvest = "grid-harvest"
	// ChartGridRecallK: recall at the budget against K (log scale), one
	// line per strategy and frontier, at the default window and threshold.
	ChartGridRecallK = "grid-recall-k"
	// ChartGridClassifierK: the classifier's cross-validated page and
	// segment precision and recall against K, at the default window.
	ChartGridClassifierK = "grid-classifier-k"
	// ChartGridRecallWindow: recall at the budget against the window n,
	// one line per strategy and frontier, at the default K and threshold.
	ChartGridRecallWindow = "grid-recall-window"
)

// series is one line of a grid chart.
type series struct {
	name string
	xys  plotter.XYs
	// flat draws the line dashed without point marks: a reference that
	// does not depend on the x parameter (bfs against K).
	flat bool
}

// axisSpec says how a grid chart's x axis is drawn.
type axisSpec struct {
	label string
	log   bool
	ticks []float64 // the x values that get a tick; nil: default ticks
}

// legendPlace says where a chart's legend goes, clear of its lines.
type legendPlace int

const (
	// legendBottomRight suits curves rising from the bottom left.
	legendBottomRight legendPlace = iota
	// legendTopLeft suits recall against a parameter: low at the left.
	legendTopLeft
	// legendAbove raises a 0–1 axis to 1.3 and puts the legend in the
	// space above 1, for lines that may run anywhere between 0 and 1.
	legendAbove
)

// gridChartSVG draws lines as an inline SVG element titled title. It
// returns "" when no line has a point.
func gridChartSVG(title string, x axisSpec, ylabel string, yUnit bool, legend legendPlace, lines []series) (string, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x.label
	p.Y.Label.Text = ylabel
	p.Y.Min = 0
	if yUnit {
		p.Y.Max = 1
		p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 0.25}, {Value: 0.5, Label: "0.5"}, {Value: 0.75}, {Value: 1, Label: "1"}})
		if legend == legendAbove {
			p.Y.Max = 1.3
		}
	} else {
		p.Y.Tick.Marker = plainTicks{}
	}
	if x.log {
		p.X.Scale = plot.LogScale{}
	}
	if len(x.ticks) > 0 {
		ts := make([]plot.Tick, len(x.ticks))
		for i, v := range x.ticks {
			ts[i] = plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)}
		}
		p.X.Tick.Marker = plot.ConstantTicks(ts)
		lo, hi := slices.Min(x.ticks), slices.Max(x.ticks)
		if x.log {
			p.X.Min, p.X.Max = lo/1.3, hi*1.3
		} else {
			pad := (hi - lo) * 0.05
			p.X.Min, p.X.Max = lo-pad, hi+pad
		}
	} else {
		p.X.Min = 0
		p.X.Tick.Marker = plainTicks{}
	}
	switch legend {
	case legendBottomRight:
		p.Legend.Top, p.Legend.Left = false, false
		p.Legend.YOffs = vg.Points(28)
	case legendTopLeft:
		p.Legend.Top, p.Legend.Left = true, true
		p.Legend.XOffs = vg.Points(8)
	case legendAbove:
		p.Legend.Top, p.Legend.Left = true, false
	}
	p.Add(plotter.NewGrid())
	drawn := 0
	for i, s := range lines {
		if len(s.xys) == 0 {
			continue
		}
		l, err := plotter.NewLine(s.xys)
		if err != nil {
			return "", fmt.Errorf("chart %q, line %s: %w", title, s.name, err)
		}
		l.Color = plotutil.Color(i)
		l.Width = vg.Points(1.5)
		if s.flat {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			p.Add(l)
			p.Legend.Add(s.name, l)
		} else {
			l.Dashes = plotutil.Dashes(i / len(plotutil.SoftColors))
			sc, err := plotter.NewScatter(s.xys)
			if err != nil {
				return "", fmt.Errorf("chart %q, line %s: %w", title, s.name, err)
			}
			sc.GlyphStyle.Color = l.Color
			sc.GlyphStyle.Shape = plotutil.Shape(i)
			sc.GlyphStyle.Radius = vg.Points(2.5)
			if len(s.xys) > 50 {
				p.Add(l)
				p.Legend.Add(s.name, l)
			} else {
				p.Add(l, sc)
				p.Legend.Add(s.name, l, sc)
			}
		}
		drawn++
	}
	if drawn == 0 {
		return "", nil
	}
	svg, err := inlineSVG(p)
	if err != nil {
		return "", fmt.Errorf("chart %q: %w", title, err)
	}
	return svg, nil
}

// seriesOrder returns the series names of cells in order of first
// appearance.
func seriesOrder(cells []*GridCell) []string {
	var names []string
	for _, c := range cells {
		if !slices.Contains(names, c.Series()) {
			names = append(names, c.Series())
		}
	}
	return names
}

// distinct returns the sorted distinct values of f over the classified
// cells.
func distinct(cells []*GridCell, f func(*GridCell) float64) []float64 {
	var out []float64
	for _, c := range cells {
		if c.classified() && !slices.Contains(out, f(c)) {
			out = append(out, f(c))
		}
	}
	slices.Sort(out)
	return out
}

// recallAgainst builds, for a section, one line per series of the recall
// against the parameter x, over the cells keep accepts; bfs becomes a
// flat reference line across xs.
func recallAgainst(s GridSection, xs []float64, x func(*GridCell) float64, keep func(*GridCell) bool) []series {
	var out []series
	for _, name := range seriesOrder(s.Cells) {
		line := series{name: name}
		for _, c := range s.Cells {
			if c.Series() != name || c.Report == nil {
				continue
			}
			t := c.Report.Topic(s.Topic)
			if t == nil || t.Targets == 0 {
				continue
			}
			if !c.classified() {
				line.flat = true
				line.xys = plotter.XYs{{X: xs[0], Y: t.Recall}, {X: xs[len(xs)-1], Y: t.Recall}}
				break
			}
			if keep(c) {
				line.xys = append(line.xys, plotter.XY{X: x(c), Y: t.Recall})
			}
		}
		slices.SortFunc(line.xys, func(a, b plotter.XY) int {
			switch {
			case a.X < b.X:
				return -1
			case a.X > b.X:
				return 1
			}
			return 0
		})
		out = append(out, line)
	}
	return out
}

type gridChart struct {
	Kind, Title string
	SVG         template.HTML
}

type gridSectionPage struct {
	Title    string
	Defaults GridDefaults
	Charts   []gridChart
	Missing  []string
}

type gridPage struct {
	Grid     *Grid
	Columns  []string
	Rows     [][]string
	Sections []gridSectionPage
}

// sectionCharts draws the four charts of one section.
func sectionCharts(s GridSection) (gridSectionPage, error) {
	d := Defaults(s.Cells)
	sp := gridSectionPage{Title: s.Title(), Defaults: d}
	add := func(kind, title, svg string) {
		if svg == "" {
			sp.Missing = append(sp.Missing, fmt.Sprintf("No %s chart: no crawl has labelled targets for it.", title))
			return
		}
		sp.Charts = append(sp.Charts, gridChart{Kind: kind, Title: title, SVG: template.HTML(svg)})
	}
	atDefaults := func(c *GridCell) bool {
		return !c.classified() || c.K == d.K && c.Window == d.Window && c.Threshold == d.Threshold
	}

	// Harvest curves at the default parameters.
	var harvest []series
	for _, c := range s.Cells {
		if !atDefaults(c) || c.Report == nil {
			continue
		}
		t := c.Report.Topic(s.Topic)
		if t == nil {
			continue
		}
		xys := plotter.XYs{{}}
		for _, pt := range t.Curve {
			xys = append(xys, plotter.XY{X: float64(pt.Pages), Y: float64(pt.Relevant)})
		}
		if len(xys) > 1 {
			harvest = append(harvest, series{name: c.Series(), xys: xys})
		}
	}
	title := fmt.Sprintf("Harvest: %s (K %d, n %d, threshold %g)", s.Title(), d.K, d.Window, d.Threshold)
	svg, err := gridChartSVG(title, axisSpec{label: "pages fetched"}, "relevant pages", false, legendBottomRight, harvest)
	if err != nil {
		return sp, err
	}
	add(ChartGridHarvest, title, svg)

	ks := distinct(s.Cells, func(c *GridCell) float64 { return float64(c.K) })
	if len(ks) >= 2 {
		title := fmt.Sprintf("Recall against K: %s (n %d, threshold %g)", s.Title(), d.Window, d.Threshold)
		lines := recallAgainst(s, ks, func(c *GridCell) float64 { return float64(c.K) },
			func(c *GridCell) bool { return c.Window == d.Window && c.Threshold == d.Threshold })
		svg, err := gridChartSVG(title, axisSpec{label: "features K", log: true, ticks: ks}, "recall at the budget", true, legendTopLeft, lines)
		if err != nil {
			return sp, err
		}
		add(ChartGridRecallK, title, svg)

		title = fmt.Sprintf("Classifier against K: %s (n %d, cross-validated)", s.Title(), d.Window)
		svg, err = gridChartSVG(title, axisSpec{label: "features K", log: true, ticks: ks}, "precision, recall", true, legendAbove, classifierLines(s, d))
		if err != nil {
			return sp, err
		}
		if svg == "" {
			sp.Missing = append(sp.Missing, fmt.Sprintf("No %s chart: training ran no cross-validation.", title))
		} else {
			sp.Charts = append(sp.Charts, gridChart{Kind: ChartGridClassifierK, Title: title, SVG: template.HTML(svg)})
		}
	} else {
		sp.Missing = append(sp.Missing, "No chart against K: the grid has one K.")
	}

	ns := distinct(s.Cells, func(c *GridCell) float64 { return float64(c.Window) })
	if len(ns) >= 2 {
		title := fmt.Sprintf("Recall against window n: %s (K %d, threshold %g)", s.Title(), d.K, d.Threshold)
		lines := recallAgainst(s, ns, func(c *GridCell) float64 { return float64(c.Window) },
			func(c *GridCell) bool { return c.K == d.K && c.Threshold == d.Threshold })
		svg, err := gridChartSVG(title, axisSpec{label: "window n (tokens each side)", ticks: ns}, "recall at the budget", true, legendTopLeft, lines)
		if err != nil {
			return sp, err
		}
		add(ChartGridRecallWindow, title, svg)
	} else {
		sp.Missing = append(sp.Missing, "No chart against the window: the grid has one window n.")
	}
	return sp, nil
}

// classifierLines are the cross-validated page and segment precision and
// recall of a section's topic against K at the default window, taken from
// the first cell of each K that has them (a model trained without
// backlinks when there is one).
func classifierLines(s GridSection, d GridDefaults) []series {
	byK := make(map[int]*TrainingScore)
	var order []int
	for _, plain := range []bool{true, false} {
		for _, c := range s.Cells {
			if !c.classified() || c.Window != d.Window || (c.Strategy != "link+backlinks") != plain {
				continue
			}
			ts := c.training(s.Topic)
			if ts == nil || ts.Page == nil {
				continue
			}
			if _, ok := byK[c.K]; !ok {
				byK[c.K] = ts
				order = append(order, c.K)
			}
		}
	}
	slices.Sort(order)
	lines := []series{{name: "page precision"}, {name: "page recall"}, {name: "segment precision"}, {name: "segment recall"}}
	for _, k := range order {
		ts := byK[k]
		x := float64(k)
		lines[0].xys = append(lines[0].xys, plotter.XY{X: x, Y: ts.Page.Precision})
		lines[1].xys = append(lines[1].xys, plotter.XY{X: x, Y: ts.Page.Recall})
		if ts.Segment != nil {
			lines[2].xys = append(lines[2].xys, plotter.XY{X: x, Y: ts.Segment.Precision})
			lines[3].xys = append(lines[3].xys, plotter.XY{X: x, Y: ts.Segment.Recall})
		}
	}
	return lines
}

var gridTmpl = template.Must(template.New("grid").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Experiment grid</title>
<style>
body { font-family: sans-serif; margin: 2em auto; max-width: 90em; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.charts { display: flex; flex-wrap: wrap; gap: 1em; }
figure.chart { margin: 0; flex: 1 1 28em; max-width: 40em; }
code { background: #f4f4f4; padding: 0.1em 0.3em; }
</style>
</head>
<body>
<h1>Experiment grid</h1>
<p>{{len .Grid.Cells}} crawls{{if .Grid.Budget}} of {{.Grid.Budget}} pages each{{end}}, {{printf "%.0f" .Grid.Seconds}} s in all{{if .Grid.Resumed}} ({{.Grid.Resumed}} of them finished by an earlier run, not counted in the time){{end}}.{{if .Grid.Command}} Command: <code>{{.Grid.Command}}</code>{{end}}</p>
{{range .Sections}}<section class="topic" data-topic="{{.Title}}">
<h2>Topic: {{.Title}}</h2>
<p>Charts hold K = {{.Defaults.K}}, n = {{.Defaults.Window}} and threshold {{.Defaults.Threshold}} fixed unless they vary them; bfs has no classifier and is drawn as a dashed reference.</p>
<div class="charts">
{{range .Charts}}<figure class="chart" data-chart="{{.Kind}}">
{{.SVG}}
<figcaption>{{.Title}}</figcaption>
</figure>
{{end}}</div>
{{range .Missing}}<p>{{.}}</p>
{{end}}</section>
{{end}}<h2>All crawls</h2>
<p>Recall, found and targets are over the held-out targets (labelled pages the model did not learn from); pages_to_N is the page at which a crawl had found N % of them, beside breadth-first's and the all-knowing plan's; the *_all_labels columns count the pages learnt from too. Page and segment precision and recall are the classifier's, cross-validated on the training examples.</p>
<table id="cells">
<thead><tr>{{range .Columns}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range $i, $v := .}}{{if or (lt $i 4) (eq $i 7)}}<td>{{$v}}</td>{{else}}<td class="n">{{$v}}</td>{{end}}{{end}}</tr>
{{end}}</tbody>
</table>
</body>
</html>
`))

// WriteHTML writes the grid as one self-contained HTML page (inline SVG):
// per topic of each topic set, the harvest curves of every strategy and
// frontier at the default parameters, recall against K, the classifier's
// cross-validated precision and recall against K, and recall against the
// window n (each drawn when the grid varies the parameter), then the
// table of every crawl.
func (g *Grid) WriteHTML(w io.Writer) error {
	pg := gridPage{Grid: g, Columns: gridColumns}
	for _, r := range g.rows() {
		pg.Rows = append(pg.Rows, r.values())
	}
	for _, s := range g.Sections() {
		sp, err := sectionCharts(s)
		if err != nil {
			return fmt.Errorf("write grid html: %w", err)
		}
		pg.Sections = append(pg.Sections, sp)
	}
	if err := gridTmpl.Execute(w, pg); err != nil {
		return fmt.Errorf("write grid html: %w", err)
	}
	return nil
}
