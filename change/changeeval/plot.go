package changeeval

import (
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// panelsSVG lays plots out in a grid of cols columns and writes one SVG.
func panelsSVG(w io.Writer, plots []*plot.Plot, cols int, width, height vg.Length) error {
	rows := (len(plots) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for i := range grid {
		grid[i] = make([]*plot.Plot, cols)
		for j := range cols {
			if k := i*cols + j; k < len(plots) {
				grid[i][j] = plots[k]
			}
		}
	}
	c := vgsvg.New(width, height)
	dc := draw.New(c)
	tiles := draw.Tiles{
		Rows: rows, Cols: cols,
		PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2,
		PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2,
	}
	canvases := plot.Align(grid, tiles, dc)
	for i := range grid {
		for j := range grid[i] {
			if grid[i][j] != nil {
				grid[i][j].Draw(canvases[i][j])
			}
		}
	}
	if _, err := c.WriteTo(w); err != nil {
		return fmt.Errorf("write svg: %w", err)
	}
	return nil
}

// metricColors are the colours of Metrics: BW red, COS green, WD blue, ED
// orange, 10SH purple, IED black.
var metricColors = []color.Color{
	color.RGBA{R: 220, G: 40, B: 40, A: 255},
	color.RGBA{R: 40, G: 160, B: 60, A: 255},
	color.RGBA{R: 40, G: 90, B: 220, A: 255},
	color.RGBA{R: 240, G: 140, B: 0, A: 255},
	color.RGBA{R: 150, G: 50, B: 180, A: 255},
	color.Black,
}

// metricStyle returns the colour and dash pattern of metric i.
func metricStyle(i int) (color.Color, []vg.Length) {
	return metricColors[i%len(metricColors)], plotutil.Dashes(i % 4)
}

// sweepPlots draws one panel per kind: the criterion and every metric
// against xOf(point), with ticks if not nil.
func sweepPlots(points []Point, title, xLabel string, xOf func(Point) float64, ticks plot.Ticker) ([]*plot.Plot, error) {
	var plots []*plot.Plot
	for idx, k := range Kinds {
		var pts []Point
		for _, p := range points {
			if p.Kind == k {
				pts = append(pts, p)
			}
		}
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s (%c) %s", title, 'a'+idx, k)
		p.X.Label.Text = xLabel
		p.Y.Label.Text = "change degree"
		p.Y.Min, p.Y.Max = 0, 1.05
		if ticks != nil {
			p.X.Tick.Marker = ticks
		}
		crit := make(plotter.XYs, len(pts))
		for i, pt := range pts {
			crit[i] = plotter.XY{X: xOf(pt), Y: pt.Criterion}
		}
		cl, err := plotter.NewLine(crit)
		if err != nil {
			return nil, fmt.Errorf("plot criterion: %w", err)
		}
		cl.Width = vg.Points(4)
		cl.Color = color.Gray{Y: 190}
		p.Add(cl)
		if idx == 0 {
			p.Legend.Add("criterion", cl)
		}
		for m, name := range Metrics {
			xy := make(plotter.XYs, len(pts))
			for i, pt := range pts {
				xy[i] = plotter.XY{X: xOf(pt), Y: pt.Values[m]}
			}
			l, s, err := plotter.NewLinePoints(xy)
			if err != nil {
				return nil, fmt.Errorf("plot %s: %w", name, err)
			}
			col, dash := metricStyle(m)
			l.Color, l.Dashes = col, dash
			s.Color, s.Shape = col, plotutil.Shape(m)
			s.Radius = vg.Points(2)
			p.Add(l, s)
			if idx == 0 {
				p.Legend.Add(name, l, s)
			}
		}
		// Right of the middle of the first panel, below BW's line at 1.
		p.Legend.Top = true
		p.Legend.YOffs = -vg.Centimeter
		p.Legend.XOffs = -vg.Centimeter / 2
		plots = append(plots, p)
	}
	return plots, nil
}

// barPlot draws one bar per metric.
func barPlot(title string, means [6]float64) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = "mean change degree"
	p.Y.Min, p.Y.Max = 0, 1
	bars, err := plotter.NewBarChart(plotter.Values(means[:]), vg.Points(30))
	if err != nil {
		return nil, fmt.Errorf("plot bars: %w", err)
	}
	bars.Color = metricColors[2]
	p.Add(bars)
	p.NominalX(Metrics...)
	labels := make([]string, len(means))
	xy := make(plotter.XYs, len(means))
	for i, v := range means {
		labels[i] = fmt.Sprintf("%.3f", v)
		xy[i] = plotter.XY{X: float64(i), Y: math.Min(v+0.03, 0.97)}
	}
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: xy, Labels: labels})
	if err != nil {
		return nil, fmt.Errorf("plot labels: %w", err)
	}
	p.Add(l)
	return p, nil
}

// rankPlotPoints bounds the points per series of rankPlot, to keep the
// SVG small; the CSV keeps every pair.
const rankPlotPoints = 600

// rankPlot draws, per pair ranked by the values of metric ref, the values
// of ref and of metric other (the paper's Fig. 6), for at most
// rankPlotPoints pairs evenly spread over the ranking.
func rankPlot(title string, ranked [][6]float64, ref, other int) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = fmt.Sprintf("page pair, ordered by %s", Metrics[ref])
	p.Y.Label.Text = "change degree"
	p.Y.Min, p.Y.Max = 0, 1.05
	step := max(1, (len(ranked)+rankPlotPoints-1)/rankPlotPoints)
	for _, m := range []int{other, ref} {
		var xy plotter.XYs
		for i := 0; i < len(ranked); i += step {
			xy = append(xy, plotter.XY{X: float64(i), Y: ranked[i][m]})
		}
		s, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, fmt.Errorf("plot %s: %w", Metrics[m], err)
		}
		s.Color, _ = metricStyle(m)
		s.Radius = vg.Points(1)
		s.Shape = plotutil.Shape(0)
		p.Add(s)
		p.Legend.Add(Metrics[m], s)
	}
	p.Legend.Top = true
	p.Legend.Left = true
	return p, nil
}
