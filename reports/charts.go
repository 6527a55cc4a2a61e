package reports

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"epsim/sim"
)

// ChartFormats are the image formats every chart is written in.
var ChartFormats = []string{"png", "svg"}

// Chart size: wide enough for a phase-labelled time axis, readable when embedded in a page.
const (
	chartWidth  = 8 * vg.Inch
	chartHeight = 4.5 * vg.Inch
)

// Mode colours: warm for the legacy Endpoints, cool for EndpointSlices.
var modeColors = map[sim.Mode]color.Color{
	sim.ModeEndpoints:      color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	sim.ModeEndpointSlices: color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
}

// ChartSeries is one plotted series, kept beside the plot so tests can digest the data
// instead of comparing pixels.
type ChartSeries struct {
	Name string
	XYs  plotter.XYs
}

// Chart is one chart: Name is the file stem ("cumulative-fanout"), Plots the panels laid out
// in rows, and Series the data they plot.
type Chart struct {
	Name   string
	Title  string
	Series []ChartSeries
	Plots  [][]*plot.Plot
	Height vg.Length
}

// Digest is a short hash of the chart's plotted data (series names and points with fixed
// precision), stable across font and rasteriser versions.
func (c *Chart) Digest() string {
	h := sha256.New()
	for _, s := range c.Series {
		fmt.Fprintf(h, "%s\n", s.Name)
		for _, p := range s.XYs {
			fmt.Fprintf(h, "%s %s\n", strconv.FormatFloat(p.X, 'g', 12, 64), strconv.FormatFloat(p.Y, 'g', 12, 64))
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Render draws the chart in format ("png" or "svg") to w.
func (c *Chart) Render(w io.Writer, format string) error {
	height := c.Height
	if height == 0 {
		height = chartHeight
	}
	var canvas vg.CanvasWriterTo
	switch format {
	case "png":
		canvas = vgimg.PngCanvas{Canvas: vgimg.New(chartWidth, height)}
	case "svg":
		canvas = vgsvg.New(chartWidth, height)
	default:
		return fmt.Errorf("reports: unknown chart format %q (want png or svg)", format)
	}
	dc := draw.New(canvas)
	if len(c.Plots) == 1 && len(c.Plots[0]) == 1 {
		c.Plots[0][0].Draw(dc)
	} else {
		tiles := draw.Tiles{Rows: len(c.Plots), Cols: len(c.Plots[0]), PadY: vg.Millimeter * 2, PadX: vg.Millimeter * 2,
			PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
		canvases := plot.Align(c.Plots, tiles, dc)
		for i, row := range c.Plots {
			for j, p := range row {
				p.Draw(canvases[i][j])
			}
		}
	}
	_, err := canvas.WriteTo(w)
	return err
}

// Charts builds every chart for a run: cumulative bytes fanned out (log scale) and apiserver
// egress per second, both with the phases shaded; per-phase bars of writes and of bytes fanned
// out with the Endpoints/EndpointSlices ratio printed; and, when layout samples exist and the
// EndpointSlice mode ran, the EndpointSlice layout over time. series may be sparse.
func Charts(s *Summary, series []sim.Bucket, layout []sim.LayoutSample) ([]*Chart, error) {
	dense := DenseSeries(series)
	var charts []*Chart
	for _, build := range []func() (*Chart, error){
		func() (*Chart, error) { return cumulativeFanoutChart(s, dense) },
		func() (*Chart, error) { return egressChart(s, dense) },
		func() (*Chart, error) { return latencyChart(s, dense) },
		func() (*Chart, error) {
			return phaseBarsChart(s, "phases-writes", "API writes per phase", "API writes",
				func(m *ModeSummary) int64 { return m.Writes.Total }, formatCount)
		},
		func() (*Chart, error) {
			return phaseBarsChart(s, "phases-bytes", "Bytes fanned out per phase", "bytes fanned out (SI)",
				func(m *ModeSummary) int64 { return m.FanoutBytes }, FormatBytes)
		},
	} {
		c, err := build()
		if err != nil {
			return nil, err
		}
		charts = append(charts, c)
	}
	if len(layout) > 0 && s.Total.EndpointSlices != nil {
		c, err := layoutChart(s, layout)
		if err != nil {
			return nil, err
		}
		charts = append(charts, c)
	}
	return charts, nil
}

// newPlot returns a plot with the common title (chart title, scenario, seed) and grid;
// timeAxis adds the shaded, labelled phases underneath the grid.
func newPlot(s *Summary, title, xLabel, yLabel string, timeAxis bool) *plot.Plot {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s\n%s, seed %d, %d nodes", title, s.Scenario, s.Seed, s.Nodes)
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Legend.Top = true
	p.Legend.Left = true
	if timeAxis {
		p.Add(newPhaseBands(s))
	}
	p.Add(plotter.NewGrid())
	return p
}

func cumulativeFanoutChart(s *Summary, dense []sim.Bucket) (*Chart, error) {
	c := &Chart{Name: "cumulative-fanout", Title: "Bytes fanned out to watchers, cumulative"}
	p := newPlot(s, c.Title, "virtual time (s)", "bytes (log scale, SI)", true)
	positive := false
	for _, m := range s.Modes {
		// A point at the end of each second; zero totals are left out because the axis is
		// logarithmic.
		var xys plotter.XYs
		var total int64
		for _, b := range dense {
			total += bucketMode(b, m).FanoutBytes
			if total > 0 {
				xys = append(xys, plotter.XY{X: float64(b.Second + b.Seconds()), Y: float64(total)})
			}
		}
		c.Series = append(c.Series, ChartSeries{Name: string(m), XYs: xys})
		if len(xys) == 0 {
			continue
		}
		positive = true
		if err := addLine(p, m, xys); err != nil {
			return nil, err
		}
	}
	if positive {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = byteTicks{log: true}
	} else {
		p.Y.Min, p.Y.Max = 0, 1
	}
	c.Plots = [][]*plot.Plot{{p}}
	return c, nil
}

func egressChart(s *Summary, dense []sim.Bucket) (*Chart, error) {
	c := &Chart{Name: "egress-rate", Title: "API server egress (1 s buckets)"}
	p := newPlot(s, c.Title, "virtual time (s)", "bytes/s (SI)", true)
	p.Y.Min = 0
	p.Y.Tick.Marker = byteTicks{suffix: "/s"}
	for _, m := range s.Modes {
		xys := make(plotter.XYs, 0, len(dense))
		for _, b := range dense {
			bm := bucketMode(b, m)
			xys = append(xys, plotter.XY{X: float64(b.Second), Y: float64(bm.FanoutBytes+bm.ResentBytes) / float64(b.Seconds())})
		}
		c.Series = append(c.Series, ChartSeries{Name: string(m), XYs: xys})
		if len(xys) == 0 {
			continue
		}
		if err := addLine(p, m, xys); err != nil {
			return nil, err
		}
	}
	top := 0.0
	for _, sr := range c.Series {
		top = max(top, headroom(sr.XYs))
	}
	if cap := float64(s.EgressCapacityBytesPerSec); cap > 0 && len(dense) > 0 {
		end := &dense[len(dense)-1]
		line := plotter.XYs{{X: 0, Y: cap}, {X: float64(end.Second + end.Seconds()), Y: cap}}
		if err := addStyledLine(p, "egress capacity", color.Gray{Y: 90}, []vg.Length{vg.Points(6), vg.Points(3)}, line); err != nil {
			return nil, err
		}
		top = max(top, cap*1.05)
	}
	p.Y.Max = max(top, 1)
	c.Plots = [][]*plot.Plot{{p}}
	return c, nil
}

// latencyChart draws, per mode, the largest propagation latency of the writes committed in
// each second (trigger to last watcher), with the SLO as a dashed line.
func latencyChart(s *Summary, dense []sim.Bucket) (*Chart, error) {
	c := &Chart{Name: "propagation-latency", Title: "Propagation latency (largest per second)"}
	p := newPlot(s, c.Title, "virtual time (s)", "seconds", true)
	p.Y.Min = 0
	top := 0.0
	for _, m := range s.Modes {
		var xys plotter.XYs
		for _, b := range dense {
			bm := bucketMode(b, m)
			if bm.Writes > 0 {
				xys = append(xys, plotter.XY{X: float64(b.Second), Y: bm.MaxLatencySeconds})
				top = max(top, bm.MaxLatencySeconds)
			}
		}
		c.Series = append(c.Series, ChartSeries{Name: string(m), XYs: xys})
		if len(xys) == 0 {
			continue
		}
		// Points, not a line: seconds without writes have no latency to connect.
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, fmt.Errorf("reports: %s: %w", m, err)
		}
		sc.Color = modeColors[m]
		sc.Radius = vg.Points(1.5)
		sc.Shape = draw.CircleGlyph{}
		p.Add(sc)
		p.Legend.Add(modeTitle(m), sc)
	}
	if s.SLOSeconds > 0 && len(dense) > 0 {
		line := plotter.XYs{{X: 0, Y: s.SLOSeconds}, {X: float64(dense[len(dense)-1].Second + 1), Y: s.SLOSeconds}}
		if err := addStyledLine(p, fmt.Sprintf("SLO p99 %s", FormatSeconds(s.SLOSeconds)), color.Gray{Y: 90}, []vg.Length{vg.Points(6), vg.Points(3)}, line); err != nil {
			return nil, err
		}
		top = max(top, s.SLOSeconds)
	}
	p.Y.Max = max(top*1.1, 1)
	c.Plots = [][]*plot.Plot{{p}}
	return c, nil
}

// phaseBarsChart draws one group of bars per phase (one bar per mode) with the
// Endpoints/EndpointSlices ratio above each group.
func phaseBarsChart(s *Summary, name, title, yLabel string, value func(*ModeSummary) int64, format func(int64) string) (*Chart, error) {
	c := &Chart{Name: name, Title: title}
	p := newPlot(s, title, "phase", yLabel, false)
	names := make([]string, len(s.Phases))
	for i, ph := range s.Phases {
		names[i] = ph.Name
	}
	if len(names) == 0 {
		names = []string{"(no phases)"}
	}
	p.NominalX(names...)
	p.Y.Min = 0
	p.Y.Tick.Marker = countTicks{format: format}
	const barWidth = 14 * vg.Millimeter
	top := 0.0
	for k, m := range s.Modes {
		values := make(plotter.Values, len(names))
		xys := make(plotter.XYs, len(s.Phases))
		for i := range s.Phases {
			if ms := s.Phases[i].Mode(m); ms != nil {
				values[i] = float64(value(ms))
			}
			xys[i] = plotter.XY{X: float64(i), Y: values[i]}
			top = max(top, values[i])
		}
		c.Series = append(c.Series, ChartSeries{Name: string(m), XYs: xys})
		bars, err := plotter.NewBarChart(values, barWidth)
		if err != nil {
			return nil, fmt.Errorf("reports: %s: %w", name, err)
		}
		bars.Color = modeColors[m]
		bars.LineStyle.Width = 0
		bars.Offset = vg.Length(float64(k)-float64(len(s.Modes)-1)/2) * barWidth
		p.Add(bars)
		p.Legend.Add(modeTitle(m), bars)
	}
	if top == 0 {
		top = 1
	}
	p.Y.Max = top * 1.2
	if len(s.Modes) == 2 && len(s.Phases) > 0 {
		labels := plotter.XYLabels{}
		for i := range s.Phases {
			e, es := value(s.Phases[i].Endpoints), value(s.Phases[i].EndpointSlices)
			r, ok := ratio(e, es)
			labels.XYs = append(labels.XYs, plotter.XY{X: float64(i), Y: float64(max(e, es)) + top*0.03})
			labels.Labels = append(labels.Labels, FormatRatio(r, ok))
		}
		l, err := plotter.NewLabels(labels)
		if err != nil {
			return nil, fmt.Errorf("reports: %s: %w", name, err)
		}
		for i := range l.TextStyle {
			l.TextStyle[i].XAlign = draw.XCenter
		}
		p.Add(l)
	}
	c.Plots = [][]*plot.Plot{{p}}
	return c, nil
}

// layoutChart draws the EndpointSlice layout over time: the number of slices, and the
// minimum, median and maximum endpoints per slice.
func layoutChart(s *Summary, layout []sim.LayoutSample) (*Chart, error) {
	c := &Chart{Name: "slice-layout", Title: "EndpointSlice layout", Height: 7 * vg.Inch}
	count := newPlot(s, "EndpointSlices (all services)", "virtual time (s)", "slices", true)
	fill := newPlot(s, "Endpoints per EndpointSlice", "virtual time (s)", "endpoints per slice", true)
	slicesXY := make(plotter.XYs, len(layout))
	minXY := make(plotter.XYs, len(layout))
	medXY := make(plotter.XYs, len(layout))
	maxXY := make(plotter.XYs, len(layout))
	for i, l := range layout {
		x := l.At.Seconds()
		slicesXY[i] = plotter.XY{X: x, Y: float64(l.Slices)}
		minXY[i] = plotter.XY{X: x, Y: float64(l.Min)}
		medXY[i] = plotter.XY{X: x, Y: float64(l.Median)}
		maxXY[i] = plotter.XY{X: x, Y: float64(l.Max)}
	}
	c.Series = []ChartSeries{{"slices", slicesXY}, {"min", minXY}, {"median", medXY}, {"max", maxXY}}
	if err := addStyledLine(count, "slices", modeColors[sim.ModeEndpointSlices], nil, slicesXY); err != nil {
		return nil, err
	}
	grey := color.Gray{Y: 0x80}
	dashes := []vg.Length{vg.Points(4), vg.Points(2)}
	if err := addStyledLine(fill, "max", modeColors[sim.ModeEndpointSlices], nil, maxXY); err != nil {
		return nil, err
	}
	if err := addStyledLine(fill, "median", modeColors[sim.ModeEndpointSlices], dashes, medXY); err != nil {
		return nil, err
	}
	if err := addStyledLine(fill, "min", grey, nil, minXY); err != nil {
		return nil, err
	}
	// Headroom above the data keeps the legend (top left) off the lines.
	count.Y.Min, fill.Y.Min = 0, 0
	count.Y.Max = headroom(slicesXY)
	fill.Y.Max = headroom(maxXY)
	c.Plots = [][]*plot.Plot{{count}, {fill}}
	return c, nil
}

// headroom returns 1.3 × the largest y of xys (at least 1).
func headroom(xys plotter.XYs) float64 {
	top := 1.0
	for _, p := range xys {
		top = max(top, p.Y)
	}
	return top * 1.3
}

func addLine(p *plot.Plot, m sim.Mode, xys plotter.XYs) error {
	return addStyledLine(p, modeTitle(m), modeColors[m], nil, xys)
}

func addStyledLine(p *plot.Plot, name string, clr color.Color, dashes []vg.Length, xys plotter.XYs) error {
	l, err := plotter.NewLine(xys)
	if err != nil {
		return fmt.Errorf("reports: %s: %w", name, err)
	}
	l.Color = clr
	l.Width = vg.Points(1.5)
	l.Dashes = dashes
	p.Add(l)
	p.Legend.Add(name, l)
	return nil
}

func bucketMode(b sim.Bucket, m sim.Mode) sim.BucketMode {
	if m == sim.ModeEndpoints {
		return b.Endpoints
	}
	return b.EndpointSlices
}

// phaseBands shades every other phase and writes each phase's name at the top of its band.
type phaseBands struct {
	names      []string
	start, end []float64
}

func newPhaseBands(s *Summary) *phaseBands {
	b := &phaseBands{}
	for _, ph := range s.Phases {
		b.names = append(b.names, ph.Name)
		b.start = append(b.start, ph.StartSeconds)
		b.end = append(b.end, ph.EndSeconds)
	}
	return b
}

// Plot implements plot.Plotter.
func (b *phaseBands) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	shade := color.Gray{Y: 0xee}
	sty := p.Legend.TextStyle
	sty.Font.Size = vg.Points(8)
	sty.Color = color.Gray{Y: 0x55}
	sty.XAlign = draw.XLeft
	sty.YAlign = draw.YTop
	// Labels sit along the bottom, off the legend; each goes on the lowest row where it does
	// not overlap the label before it, so short phases stay readable.
	for i := 0; i < len(b.names); i += 2 {
		x0, x1 := trX(b.start[i]), trX(b.end[i])
		band := c.ClipPolygonX([]vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}})
		if len(band) > 0 {
			c.FillPolygon(shade, band)
		}
	}
	var rowEnds []vg.Length
	for i := range b.names {
		x := trX(b.start[i]) + vg.Points(2)
		if !c.ContainsX(x) {
			continue
		}
		row := 0
		for row < len(rowEnds) && rowEnds[row] > x {
			row++
		}
		if row == len(rowEnds) {
			rowEnds = append(rowEnds, 0)
		}
		rowEnds[row] = x + sty.Width(b.names[i]) + vg.Points(4)
		c.FillText(sty, vg.Point{X: x, Y: c.Min.Y + vg.Points(10)*vg.Length(row+1)}, b.names[i])
	}
}

// DataRange implements plot.DataRanger: the phases span the x axis and leave y alone.
func (b *phaseBands) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	for i := range b.start {
		xmin, xmax = math.Min(xmin, b.start[i]), math.Max(xmax, b.end[i])
	}
	return xmin, xmax, math.Inf(1), math.Inf(-1)
}

// byteTicks labels a byte axis in SI units; log selects decade ticks for a log axis.
type byteTicks struct {
	log    bool
	suffix string
}

// Ticks implements plot.Ticker.
func (t byteTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	if t.log {
		ticks = logTicks(min, max)
	} else {
		ticks = plot.DefaultTicks{}.Ticks(min, max)
	}
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = FormatBytes(int64(math.Round(ticks[i].Value))) + t.suffix
		}
	}
	return ticks
}

// logTicks returns ticks for a log axis: every power of ten labelled, and 2× and 5× labelled
// too when the axis spans fewer than three decades (otherwise it may show one label or none).
func logTicks(min, max float64) []plot.Tick {
	if min <= 0 || max <= 0 || min > max {
		return nil
	}
	lo, hi := math.Floor(math.Log10(min)), math.Ceil(math.Log10(max))
	dense := hi-lo < 3
	var ticks []plot.Tick
	for e := lo; e <= hi; e++ {
		decade := math.Pow(10, e)
		for m := 1; m < 10; m++ {
			v := decade * float64(m)
			if v < min*(1-1e-9) || v > max*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || (dense && (m == 2 || m == 5)) {
				t.Label = "x" // relabelled by the caller
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// countTicks labels an axis with format (counts or bytes).
type countTicks struct{ format func(int64) string }

// Ticks implements plot.Ticker.
func (t countTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = t.format(int64(math.Round(ticks[i].Value)))
		}
	}
	return ticks
}
