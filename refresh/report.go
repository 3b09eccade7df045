package refresh

import (
	"encoding/csv"
	"fmt"
	"image/color"
	"io"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// WriteCSV writes one row per result with a header.
func (r *SimReport) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"policy", "capacity", "freshness", "mean_age_hours", "fetches", "fetches_per_day", "changes", "missed", "missed_share", "gap_to_oracle"})
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 6, 64) }
	for _, x := range r.Results {
		cw.Write([]string{x.Policy, f(x.Capacity), f(x.Freshness), f(x.MeanAgeHours), strconv.Itoa(x.Fetches), f(x.FetchesPerDay),
			strconv.Itoa(x.Changes), strconv.Itoa(x.Missed), f(x.MissedShare), f(x.GapToOracle)})
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write results csv: %w", err)
	}
	return nil
}

var chartColors = []color.Color{
	color.RGBA{R: 200, G: 30, B: 30, A: 255},
	color.RGBA{R: 240, G: 140, B: 0, A: 255},
	color.RGBA{R: 40, G: 90, B: 220, A: 255},
	color.RGBA{R: 40, G: 160, B: 60, A: 255},
	color.RGBA{R: 20, G: 160, B: 160, A: 255},
	color.RGBA{R: 150, G: 50, B: 180, A: 255},
	color.Black,
}

// WriteSVG draws freshness and the share of changes never seen against
// the capacity (fetches per day, log scale), one line per policy, side
// by side, as an SVG image titled title.
func (r *SimReport) WriteSVG(w io.Writer, title string) error {
	var names []string
	seen := map[string]bool{}
	for _, x := range r.Results {
		if !seen[x.Policy] {
			seen[x.Policy] = true
			names = append(names, x.Policy)
		}
	}
	panel := func(name string, y func(Result) float64, legendTop bool) (*plot.Plot, error) {
		p := plot.New()
		p.Title.Text = title + ": " + name
		p.X.Label.Text = "capacity (fetches per day, log scale)"
		p.Y.Label.Text = name
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		p.Add(plotter.NewGrid())
		for i, n := range names {
			var xy plotter.XYs
			for _, x := range r.Results {
				if x.Policy == n {
					xy = append(xy, plotter.XY{X: x.Capacity, Y: y(x)})
				}
			}
			l, s, err := plotter.NewLinePoints(xy)
			if err != nil {
				return nil, fmt.Errorf("chart %s: %w", n, err)
			}
			c := chartColors[i%len(chartColors)]
			l.Color, s.Color = c, c
			l.Dashes = plotutil.Dashes(i % 4)
			s.Shape = plotutil.Shape(i)
			p.Add(l, s)
			p.Legend.Add(n, l, s)
		}
		p.Legend.Top = legendTop
		p.Legend.Left = false
		p.Legend.XOffs = -vg.Millimeter * 3
		return p, nil
	}
	pf, err := panel("freshness", func(x Result) float64 { return x.Freshness }, false)
	if err != nil {
		return err
	}
	pm, err := panel("share of changes never seen", func(x Result) float64 { return x.MissedShare }, true)
	if err != nil {
		return err
	}
	width, height := 26*vg.Centimeter, 11*vg.Centimeter
	c := vgsvg.New(width, height)
	dc := draw.New(c)
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Millimeter * 6, PadTop: vg.Millimeter * 2,
		PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align([][]*plot.Plot{{pf, pm}}, tiles, dc)
	pf.Draw(canvases[0][0])
	pm.Draw(canvases[0][1])
	if _, err := c.WriteTo(w); err != nil {
		return fmt.Errorf("write chart: %w", err)
	}
	return nil
}
