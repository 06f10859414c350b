package table

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Plot is a line chart: one series per system (accuracy or evidence recall
// against the answer-time budget, paper §6.3).
type Plot struct {
	Title  string `json:"title"`
	XLabel string `json:"x_label"`
	YLabel string `json:"y_label"`
	// LogX puts the x axis on a log scale (budgets double from 256 to 32K).
	LogX bool `json:"log_x,omitempty"`
	// XTicks labels the x axis at these values ("1K", "32K"); empty means a
	// tick at every x value present, labelled with %g.
	XTicks []Tick    `json:"x_ticks,omitempty"`
	Series []Series  `json:"series"`
	Width  vg.Length `json:"-"` // default 7in
	Height vg.Length `json:"-"` // default 4in
}

// Tick is a labelled position on an axis.
type Tick struct {
	Value float64 `json:"value"`
	Label string  `json:"label"`
}

// Series is one named line; X and Y pair up by index. Points where either
// coordinate is not finite (or x ≤ 0 on a log axis) are left out.
type Series struct {
	Name string    `json:"name"`
	X    []float64 `json:"x"`
	Y    []float64 `json:"y"`
	// Lo and Hi, when set, are each point's confidence interval, drawn as
	// error bars; a point whose bounds are missing or not finite has none.
	Lo []float64 `json:"lo,omitempty"`
	Hi []float64 `json:"hi,omitempty"`
}

// errorBars are a series' points with their intervals, for plotter.YErrorBars.
type errorBars struct {
	plotter.XYs
	plotter.YErrors
}

// seriesColors is Tableau's ten-colour palette: the paper compares nine
// systems, more than gonum's seven default colours tell apart.
var seriesColors = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xff, 0x7f, 0x0e, 0xff}, {0x2c, 0xa0, 0x2c, 0xff},
	{0xd6, 0x27, 0x28, 0xff}, {0x94, 0x67, 0xbd, 0xff}, {0x8c, 0x56, 0x4b, 0xff},
	{0xe3, 0x77, 0xc2, 0xff}, {0x7f, 0x7f, 0x7f, 0xff}, {0xbc, 0xbd, 0x22, 0xff},
	{0x17, 0xbe, 0xcf, 0xff},
}

// LinePlotSVG draws p as SVG to w: on an opaque white page, with y grid
// lines, the legend inside the plotting area, and a colour, dash pattern
// and marker per series so that overlapping lines stay distinguishable.
func LinePlotSVG(w io.Writer, p Plot) (err error) {
	// gonum panics on degenerate ranges; a table run must get an error.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("plot %q: %v", p.Title, r)
		}
	}()
	width, height := p.Width, p.Height
	if width <= 0 {
		width = 7 * vg.Inch
	}
	if height <= 0 {
		height = 4 * vg.Inch
	}

	pl := plot.New()
	pl.Title.Text = p.Title
	pl.X.Label.Text = p.XLabel
	pl.Y.Label.Text = p.YLabel
	pl.BackgroundColor = color.White
	// Horizontal grid lines only: values are read off the y axis.
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil
	grid.Horizontal.Color = color.Gray{Y: 0xdd}
	grid.Horizontal.Width = vg.Points(0.5)
	pl.Add(grid)
	// The legend sits inside the plotting area, in the upper left corner,
	// which budget curves (rising to the right) leave mostly empty.
	legend := &pl.Legend
	legend.Top, legend.Left = true, true
	legend.XOffs, legend.YOffs = vg.Points(6), -vg.Points(6)
	legend.Padding = vg.Points(2)

	var xs []float64
	seen := map[float64]bool{}
	minY := math.Inf(1)
	points := 0
	for i, s := range p.Series {
		var xy plotter.XYs
		var bars errorBars
		for j := range min(len(s.X), len(s.Y)) {
			x, y := s.X[j], s.Y[j]
			if !finite(x) || !finite(y) || (p.LogX && x <= 0) {
				continue
			}
			xy = append(xy, plotter.XY{X: x, Y: y})
			if j < len(s.Lo) && j < len(s.Hi) && finite(s.Lo[j]) && finite(s.Hi[j]) && s.Lo[j] <= y && y <= s.Hi[j] {
				bars.XYs = append(bars.XYs, plotter.XY{X: x, Y: y})
				bars.YErrors = append(bars.YErrors, struct{ Low, High float64 }{y - s.Lo[j], s.Hi[j] - y})
				minY = math.Min(minY, s.Lo[j])
			}
			if !seen[x] {
				seen[x] = true
				xs = append(xs, x)
			}
			minY = math.Min(minY, y)
		}
		if len(xy) == 0 {
			continue
		}
		points += len(xy)
		line, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return fmt.Errorf("plot %q: series %d (%q): %w", p.Title, i, s.Name, err)
		}
		c := seriesColors[i%len(seriesColors)]
		line.Color = c
		line.Width = vg.Points(1.5)
		// Systems that score alike draw the same line: a dash pattern and a
		// marker per series keep each visible under the other.
		line.Dashes = plotutil.Dashes(i)
		pts.Color = c
		pts.Shape = plotutil.Shape(i)
		pts.Radius = vg.Points(3)
		pl.Add(line, pts)
		if len(bars.XYs) > 0 {
			eb, err := plotter.NewYErrorBars(bars)
			if err != nil {
				return fmt.Errorf("plot %q: series %d (%q): error bars: %w", p.Title, i, s.Name, err)
			}
			eb.Color = c
			eb.LineStyle.Width = vg.Points(0.8)
			pl.Add(eb)
		}
		legend.Add(s.Name, line, pts)
	}
	if points == 0 {
		return fmt.Errorf("plot %q: no finite points to draw", p.Title)
	}
	if minY >= 0 {
		pl.Y.Min = 0
	}
	if p.LogX {
		pl.X.Scale = plot.LogScale{}
	}
	ticks := plot.ConstantTicks{}
	if len(p.XTicks) > 0 {
		for _, t := range p.XTicks {
			if finite(t.Value) && (!p.LogX || t.Value > 0) {
				ticks = append(ticks, plot.Tick{Value: t.Value, Label: t.Label})
			}
		}
	} else {
		for _, x := range xs {
			ticks = append(ticks, plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'g', -1, 64)})
		}
	}
	pl.X.Tick.Marker = ticks
	pl.Y.Tick.Marker = shortTicks{}

	canvas := vgsvg.New(width, height)
	dc := draw.New(canvas)
	// An opaque page: a transparent SVG is unreadable on a dark viewer.
	dc.SetColor(color.White)
	dc.Fill(rectPath(0, 0, width, height))
	pl.Draw(dc)
	if _, err := canvas.WriteTo(w); err != nil {
		return fmt.Errorf("plot %q: write svg: %w", p.Title, err)
	}
	return nil
}

// rectPath is the outline of a rectangle.
func rectPath(x0, y0, x1, y1 vg.Length) vg.Path {
	var p vg.Path
	p.Move(vg.Point{X: x0, Y: y0})
	p.Line(vg.Point{X: x1, Y: y0})
	p.Line(vg.Point{X: x1, Y: y1})
	p.Line(vg.Point{X: x0, Y: y1})
	p.Close()
	return p
}

// shortTicks is gonum's default ticker with labels in shortest form ("75"
// rather than "75.00").
type shortTicks struct{}

func (shortTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', 6, 64)
		}
	}
	return ts
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
