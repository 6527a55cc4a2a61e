package reports

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image/color"
	"image/png"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	stdfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"epsim/sim"
)

// ChartFormats are the image formats every chart is written in.
var ChartFormats = []string{"png", "svg"}

// Chart size in points (a 16:9 slide at 8 in wide), and the PNG pixel density: 192 dpi, twice
// the 96 dpi of a plain vgimg canvas, so a PNG stays sharp on a projector or a HiDPI screen.
// SVGs scale on their own.
const (
	chartWidth  = 8 * vg.Inch
	chartHeight = 4.5 * vg.Inch
	pngDPI      = 192
)

// The Okabe–Ito palette: distinguishable with every common colour-vision deficiency. The two
// mode colours also differ in lightness (orange is light, blue dark), so they stay apart in
// greyscale, and every mode line or marker has its own dash or glyph as well.
var (
	okabeOrange     = color.RGBA{R: 0xe6, G: 0x9f, B: 0x00, A: 0xff}
	okabeSkyBlue    = color.RGBA{R: 0x56, G: 0xb4, B: 0xe9, A: 0xff}
	okabeGreen      = color.RGBA{R: 0x00, G: 0x9e, B: 0x73, A: 0xff}
	okabeBlue       = color.RGBA{R: 0x00, G: 0x72, B: 0xb2, A: 0xff}
	okabeVermillion = color.RGBA{R: 0xd5, G: 0x5e, B: 0x00, A: 0xff}
	okabePurple     = color.RGBA{R: 0xcc, G: 0x79, B: 0xa7, A: 0xff}
	inkColor        = color.Gray{Y: 0x20}
	mutedColor      = color.Gray{Y: 0x55}
	gridColor       = color.Gray{Y: 0xe0}
	bandColor       = color.Gray{Y: 0xf2}
)

// seriesStyle is how one series is drawn: colour, dashes for lines, glyph for markers.
type seriesStyle struct {
	color  color.Color
	dashes []vg.Length
	glyph  draw.GlyphDrawer
}

// modeStyles give each mode the same look in every chart: legacy Endpoints orange, solid,
// circles; EndpointSlices blue, dashed, triangles.
var modeStyles = map[sim.Mode]seriesStyle{
	sim.ModeEndpoints:      {color: okabeOrange, glyph: draw.CircleGlyph{}},
	sim.ModeEndpointSlices: {color: okabeBlue, dashes: []vg.Length{vg.Points(5), vg.Points(2)}, glyph: draw.TriangleGlyph{}},
}

// lineWidth is the width of every data line.
const lineWidth = 1.75

// ChartSeries is one plotted series, kept beside the plot so tests can digest the data
// instead of comparing pixels.
type ChartSeries struct {
	Name string
	XYs  plotter.XYs
}

// Chart is one chart. Name is the file stem ("cumulative-fanout"); Title states the chart's
// finding, computed from the data; Subtitle says what is plotted and for which run. Plots
// are the panels, laid out in rows below a legend row (which never covers data); on a time
// axis the phases are numbered above the top panel and named in a key below the panels.
type Chart struct {
	Name     string
	Title    string
	Subtitle string
	Series   []ChartSeries
	Plots    [][]*plot.Plot
	Height   vg.Length

	legend []legendItem
	// phases are numbered above the top panel (when markers is true) and listed in the key.
	phases  []phaseSpan
	markers bool
}

// legendItem is one legend entry: its thumbnails drawn over each other, then its name.
type legendItem struct {
	name   string
	thumbs []plot.Thumbnailer
}

// phaseSpan is a phase of the run on the time axis; number is its 1-based index in the run.
type phaseSpan struct {
	number     int
	name       string
	start, end float64
}

// within returns the part [lo, hi] of the phase that lies on an axis from min to max; ok is
// false when none of it does: the phase lies beyond the axis, or only touches its end
// while going on past it (slice-layout's axis ends at the last change, which can fall on
// the first instant of the last phase). A phase of no length on the axis, its ends
// included, is on it. The charts mark and shade only the phases on their axis; the key
// lists them all.
func (ph phaseSpan) within(min, max float64) (lo, hi float64, ok bool) {
	lo, hi = math.Max(ph.start, min), math.Min(ph.end, max)
	if lo > hi || (lo == hi && ph.end > ph.start) {
		return 0, 0, false
	}
	return lo, hi, true
}

// Digest is a short hash of the chart's title, subtitle and plotted data (series names and
// points with fixed precision), stable across font and rasteriser versions.
func (c *Chart) Digest() string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n", c.Title, c.Subtitle)
	for _, s := range c.Series {
		fmt.Fprintf(h, "%s\n", s.Name)
		for _, p := range s.XYs {
			fmt.Fprintf(h, "%s %s\n", strconv.FormatFloat(p.X, 'g', 12, 64), strconv.FormatFloat(p.Y, 'g', 12, 64))
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func (c *Chart) height() vg.Length {
	if c.Height == 0 {
		return chartHeight
	}
	return c.Height
}

// Render draws the chart in format ("png" or "svg") to w.
func (c *Chart) Render(w io.Writer, format string) error {
	switch format {
	case "png":
		img := vgimg.NewWith(vgimg.UseWH(chartWidth, c.height()), vgimg.UseDPI(pngDPI))
		c.draw(draw.New(img))
		// Fast compression: at twice the pixel density encoding is about half of a chart's
		// cost; BestSpeed saves a fifth of the total for files a few per cent larger.
		enc := png.Encoder{CompressionLevel: png.BestSpeed}
		return enc.Encode(w, img.Image())
	case "svg":
		canvas := vgsvg.New(chartWidth, c.height())
		c.draw(draw.New(canvas))
		_, err := canvas.WriteTo(w)
		return err
	}
	return fmt.Errorf("reports: unknown chart format %q (want png or svg)", format)
}

// chartLayout is where draw put each element, for the layout tests.
type chartLayout struct {
	header  vg.Rectangle   // title, subtitle and legend
	legend  []vg.Rectangle // one per legend item
	markers []vg.Rectangle // one per numbered phase marker
	leaders [][2]vg.Point  // one per marker: from under its label to its phase
	key     []vg.Rectangle // one per phase key item
	data    []vg.Rectangle // the data area of every panel, row by row
	plots   vg.Rectangle   // the area the panels (with their axes) were laid out in
}

// Text styles: a sans-serif face throughout; the title is bold.
func textStyle(size float64, bold bool, clr color.Color) text.Style {
	f := font.Font{Typeface: "Liberation", Variant: "Sans"}
	if bold {
		f.Weight = stdfont.WeightBold
	}
	return text.Style{Color: clr, Font: font.From(f, vg.Points(size)), Handler: plot.DefaultTextHandler,
		XAlign: draw.XLeft, YAlign: draw.YTop}
}

var (
	titleStyle    = textStyle(12, true, inkColor)
	subtitleStyle = textStyle(8.5, false, mutedColor)
	legendStyle   = textStyle(8.5, false, inkColor)
	markerStyle   = textStyle(7.5, true, inkColor)
	keyNameStyle  = textStyle(7.5, false, mutedColor)
	axisLabelSize = 9.0
	tickLabelSize = 8.0
	annotateStyle = textStyle(7.5, false, inkColor)
)

const (
	chartMargin   = 10 * vg.Millimeter / 3 // about 10 pt
	markerLeader  = 7                      // points between a marker row and the data area
	markerGap     = 3                      // points between two markers on a row
	legendThumbW  = 22                     // points
	itemSpacing   = 12                     // points between legend or key items
	lineSpacing   = 1.25                   // line height as a multiple of the font size
	maxMarkerRows = 64                     // more rows than any timeline has phases
)

// draw lays the chart out on dc and draws it: header, legend, phase markers, panels, key.
func (c *Chart) draw(dc draw.Canvas) chartLayout {
	var lay chartLayout
	area := dc.Rectangle
	area.Min.X += chartMargin
	area.Max.X -= chartMargin
	area.Min.Y += chartMargin
	area.Max.Y -= chartMargin
	width := area.Max.X - area.Min.X
	y := area.Max.Y
	lay.header.Max = vg.Point{X: area.Max.X, Y: y}
	for _, part := range []struct {
		text string
		sty  text.Style
	}{{c.Title, titleStyle}, {c.Subtitle, subtitleStyle}} {
		for _, line := range wrapText(part.text, part.sty, width) {
			dc.FillText(part.sty, vg.Point{X: area.Min.X, Y: y}, line)
			y -= lineHeight(part.sty)
		}
	}
	if len(c.legend) > 0 {
		y -= vg.Points(3)
		rects, h := flowItems(c.legendWidths(), width, lineHeight(legendStyle), area.Min.X, y)
		for i, it := range c.legend {
			r := rects[i]
			tc := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: r.Min.X, Y: r.Min.Y + vg.Points(1)},
				Max: vg.Point{X: r.Min.X + vg.Points(legendThumbW), Y: r.Max.Y - vg.Points(1)}}}
			for _, th := range it.thumbs {
				th.Thumbnail(&tc)
			}
			dc.FillText(legendStyle, vg.Point{X: r.Min.X + vg.Points(legendThumbW+4), Y: r.Max.Y}, it.name)
		}
		lay.legend = rects
		y -= h
	}
	lay.header.Min = vg.Point{X: area.Min.X, Y: y}
	y -= vg.Points(4)

	// The phase key at the bottom.
	bottom := area.Min.Y
	var keyItems []phaseSpan
	if len(c.phases) > 0 {
		keyItems = c.phases
		widths := make([]vg.Length, len(keyItems))
		texts := keyTexts(keyItems)
		for i, ph := range keyItems {
			widths[i] = markerStyle.Width(keyNumber(ph)) + vg.Points(3) + keyNameStyle.Width(texts[i])
		}
		// Measure first (at y=0) to know the height, then place from the bottom up.
		_, h := flowItems(widths, width, lineHeight(keyNameStyle), area.Min.X, 0)
		rects, _ := flowItems(widths, width, lineHeight(keyNameStyle), area.Min.X, bottom+h)
		for i, ph := range keyItems {
			r := rects[i]
			dc.FillText(markerStyle, vg.Point{X: r.Min.X, Y: r.Max.Y}, keyNumber(ph))
			dc.FillText(keyNameStyle, vg.Point{X: r.Min.X + markerStyle.Width(keyNumber(ph)) + vg.Points(3), Y: r.Max.Y}, texts[i])
		}
		lay.key = rects
		bottom += h + vg.Points(6)
	}

	// Panels, leaving a strip for the phase markers; the strip grows by a row until the
	// markers fit without overlap.
	rowH := lineHeight(markerStyle)
	rows := 0
	if c.markers && len(c.phases) > 0 {
		rows = 1
	}
	// The y-axis labels are drawn by the chart, rotated, left of the panels (gonum centres
	// them on the arithmetic middle of the axis, which is near the top of a log axis).
	yLabels := make([][]string, len(c.Plots))
	labelStrip := vg.Length(0)
	for i, row := range c.Plots {
		for _, p := range row {
			yLabels[i] = append(yLabels[i], p.Y.Label.Text)
			if p.Y.Label.Text != "" {
				labelStrip = lineHeight(p.Y.Label.TextStyle) + vg.Points(2)
			}
			p.Y.Label.Text = ""
		}
	}
	defer func() {
		for i, row := range c.Plots {
			for j, p := range row {
				p.Y.Label.Text = yLabels[i][j]
			}
		}
	}()
	var canvases [][]draw.Canvas
	var placed []placedLabel
	for {
		strip := vg.Length(0)
		if rows > 0 {
			strip = vg.Length(rows)*rowH + vg.Points(markerLeader)
		}
		plots := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: area.Min.X + labelStrip, Y: bottom}, Max: vg.Point{X: area.Max.X, Y: y - strip}}}
		lay.plots = plots.Rectangle
		canvases = plot.Align(c.Plots, draw.Tiles{Rows: len(c.Plots), Cols: len(c.Plots[0]), PadY: vg.Points(10), PadX: vg.Points(10)}, plots)
		if rows == 0 {
			break
		}
		var ok bool
		placed, ok = c.placeMarkers(canvases[0][0], rows)
		if ok || rows >= maxMarkerRows {
			break
		}
		rows++
	}
	lay.data = nil
	for i, row := range c.Plots {
		for j, p := range row {
			p.Draw(canvases[i][j])
			da := p.DataCanvas(canvases[i][j])
			lay.data = append(lay.data, da.Rectangle)
			if t := yLabels[i][j]; t != "" {
				sty := p.Y.Label.TextStyle
				sty.Rotation, sty.XAlign, sty.YAlign = math.Pi/2, draw.XCenter, draw.YTop
				dc.FillText(sty, vg.Point{X: canvases[i][j].Min.X - labelStrip, Y: (da.Min.Y + da.Max.Y) / 2}, t)
			}
		}
	}
	if len(placed) > 0 {
		top := c.Plots[0][0].DataCanvas(canvases[0][0]).Max.Y
		leader := draw.LineStyle{Color: mutedColor, Width: vg.Points(0.5)}
		for _, l := range placed {
			baseY := top + vg.Points(markerLeader) + vg.Length(l.row)*rowH
			r := vg.Rectangle{Min: vg.Point{X: l.left, Y: baseY}, Max: vg.Point{X: l.left + l.width, Y: baseY + rowH}}
			dc.FillText(markerStyle, vg.Point{X: r.Min.X, Y: r.Max.Y}, l.text)
			// The leader drops straight to its phase when the label is above it (a label
			// pushed against the data area's end by a phase at that end), else slants from the
			// label's middle: a slant from the middle of a label at the end to the corner
			// read as pointing out of the chart.
			from := l.left + l.width/2
			if l.anchor >= l.left && l.anchor <= l.left+l.width {
				from = l.anchor
			}
			dc.StrokeLines(leader, []vg.Point{{X: from, Y: baseY}, {X: l.anchor, Y: top}})
			lay.markers = append(lay.markers, r)
			lay.leaders = append(lay.leaders, [2]vg.Point{{X: from, Y: baseY}, {X: l.anchor, Y: top}})
		}
	}
	return lay
}

func (c *Chart) legendWidths() []vg.Length {
	out := make([]vg.Length, len(c.legend))
	for i, it := range c.legend {
		out[i] = vg.Points(legendThumbW+4) + legendStyle.Width(it.name)
	}
	return out
}

func keyNumber(ph phaseSpan) string { return strconv.Itoa(ph.number) }

// keyTexts returns the key's text of each phase, "name from–to", all times to one
// precision: the one formatClock gives the run's end, or finer until the boundaries read in
// the order they happen (each phase's start before its end, its end before the next start)
// and every start to the second, so that no phase seems to overlap the next or to start
// at another time than it did.
func keyTexts(phases []phaseSpan) []string {
	var bounds []float64
	for _, ph := range phases {
		bounds = append(bounds, ph.start, ph.end)
	}
	last := 0.0
	for _, b := range bounds {
		last = max(last, b)
	}
	step := clockStep(last)
	for _, finer := range []time.Duration{time.Second, 100 * time.Millisecond, 10 * time.Millisecond, time.Millisecond, time.Microsecond, 1} {
		if keepsOrder(bounds, step) {
			break
		}
		step = min(step, finer) // 1 ns at the finest: every time as it is
	}
	out := make([]string, len(phases))
	for i, ph := range phases {
		out[i] = fmt.Sprintf("%s %s–%s", ph.name, formatClockStep(ph.start, step), formatClockStep(ph.end, step))
	}
	return out
}

// keepsOrder reports whether the times bounds (start, end of each phase in turn), rounded to
// step, still increase wherever they increase, and every start reads as it is to the second
// (phases start on whole seconds: a rounded start would say a phase began later or earlier
// than the key's neighbouring times show).
func keepsOrder(bounds []float64, step time.Duration) bool {
	for k := 0; k < len(bounds); k += 2 {
		if d := secondsDuration(bounds[k]); d.Round(step) != d.Round(min(step, time.Second)) {
			return false
		}
	}
	for k := 1; k < len(bounds); k++ {
		if bounds[k] > bounds[k-1] && secondsDuration(bounds[k]).Round(step) <= secondsDuration(bounds[k-1]).Round(step) {
			return false
		}
	}
	return true
}

// clockStep is the precision formatClock gives seconds s: coarser for longer times.
func clockStep(s float64) time.Duration {
	switch {
	case s >= 3600:
		return time.Minute
	case s >= 600:
		return time.Second
	case s >= 10:
		return 100 * time.Millisecond
	case s >= 1:
		return 10 * time.Millisecond
	}
	return time.Millisecond
}

// formatClock formats seconds of virtual time compactly: "0", "45s", "6m50s", "1h2m".
func formatClock(s float64) string { return formatClockStep(s, clockStep(s)) }

// formatClockStep formats seconds s rounded to step, as formatClock does.
func formatClockStep(s float64, step time.Duration) string {
	if s <= 0 {
		return "0"
	}
	out := secondsDuration(s).Round(step).String()
	// "6m0s" → "6m", "1h0m0s" → "1h", "2h5m0s" → "2h5m".
	if strings.HasSuffix(out, "m0s") {
		out = strings.TrimSuffix(out, "0s")
	}
	if strings.HasSuffix(out, "h0m") {
		out = strings.TrimSuffix(out, "0m")
	}
	return out
}

// placedLabel is a phase marker after placement: its text, left edge, width, row (0 is the
// lowest) and the x it points at.
type placedLabel struct {
	text               string
	left, width        vg.Length
	anchor             vg.Length
	row                int
	phaseIndex, number int
}

// placeMarkers places the phase numbers above the data area of pc (the top-left panel) on
// rows rows, each label as near its phase's midpoint as the others allow; ok is false when
// they do not fit.
func (c *Chart) placeMarkers(pc draw.Canvas, rows int) ([]placedLabel, bool) {
	p := c.Plots[0][0]
	da := p.DataCanvas(pc)
	trX, _ := p.Transforms(&da)
	var labels []placedLabel
	for i, ph := range c.phases {
		lo, hi, ok := ph.within(p.X.Min, p.X.Max)
		if !ok {
			continue
		}
		t := keyNumber(ph)
		labels = append(labels, placedLabel{text: t, width: markerStyle.Width(t), anchor: trX((lo + hi) / 2), phaseIndex: i, number: ph.number})
	}
	anchors := make([]float64, len(labels))
	widths := make([]float64, len(labels))
	for i, l := range labels {
		anchors[i], widths[i] = float64(l.anchor), float64(l.width)
	}
	lefts, rowOf, ok := placeRows(anchors, widths, markerGap, float64(da.Min.X), float64(da.Max.X), rows)
	for i := range labels {
		labels[i].left, labels[i].row = vg.Length(lefts[i]), rowOf[i]
	}
	return labels, ok
}

// placeRows spreads labels (anchors are their wished centres, in order) over rows rows,
// label i on row i mod rows, and places each row with placeRow. ok is false when a row
// does not fit in [lo, hi].
func placeRows(anchors, widths []float64, gap, lo, hi float64, rows int) (lefts []float64, rowOf []int, ok bool) {
	lefts = make([]float64, len(anchors))
	rowOf = make([]int, len(anchors))
	ok = true
	for r := range rows {
		var idx []int
		for i := r; i < len(anchors); i += rows {
			idx = append(idx, i)
		}
		a := make([]float64, len(idx))
		w := make([]float64, len(idx))
		for k, i := range idx {
			a[k], w[k] = anchors[i], widths[i]
		}
		l, fits := placeRow(a, w, gap, lo, hi)
		ok = ok && fits
		for k, i := range idx {
			lefts[i], rowOf[i] = l[k], r
		}
	}
	return lefts, rowOf, ok
}

// placeRow places labels of the given widths on one line, in order, each centred on its
// anchor where possible, with at least gap between neighbours and all within [lo, hi]: a
// left-to-right pass pushes labels right off their predecessors, a right-to-left pass
// pulls them back inside hi. It returns the left edges and whether they fit.
func placeRow(anchors, widths []float64, gap, lo, hi float64) ([]float64, bool) {
	n := len(anchors)
	left := make([]float64, n)
	for i := range n {
		left[i] = max(anchors[i]-widths[i]/2, lo)
		if i > 0 {
			left[i] = max(left[i], left[i-1]+widths[i-1]+gap)
		}
	}
	for i := n - 1; i >= 0; i-- {
		left[i] = min(left[i], hi-widths[i])
		if i < n-1 {
			left[i] = min(left[i], left[i+1]-gap-widths[i])
		}
	}
	return left, n == 0 || left[0] >= lo-1e-9
}

// flowItems lays items of the given widths left to right from x0 with itemSpacing between
// them, starting a new line when one would pass width; the first line's top is at top. It
// returns each item's rectangle and the total height.
func flowItems(widths []vg.Length, width, lineH, x0, top vg.Length) ([]vg.Rectangle, vg.Length) {
	rects := make([]vg.Rectangle, len(widths))
	x, line := vg.Length(0), 0
	for i, w := range widths {
		if x > 0 && x+w > width {
			x, line = 0, line+1
		}
		yTop := top - vg.Length(line)*lineH
		rects[i] = vg.Rectangle{Min: vg.Point{X: x0 + x, Y: yTop - lineH}, Max: vg.Point{X: x0 + x + w, Y: yTop}}
		x += w + vg.Points(itemSpacing)
	}
	if len(widths) == 0 {
		return rects, 0
	}
	return rects, vg.Length(line+1) * lineH
}

func lineHeight(sty text.Style) vg.Length { return sty.Font.Size * lineSpacing }

// wrapText breaks s into lines no wider than width at spaces.
func wrapText(s string, sty text.Style, width vg.Length) []string {
	if s == "" {
		return nil
	}
	var lines []string
	cur := ""
	for _, w := range strings.Fields(s) {
		next := w
		if cur != "" {
			next = cur + " " + w
		}
		if cur != "" && sty.Width(next) > width {
			lines = append(lines, cur)
			next = w
		}
		cur = next
	}
	return append(lines, cur)
}

// newChartPlot returns a panel with the house fonts and grid, no title and no legend (the
// chart draws both outside the data); under are drawn first, under the grid.
func newChartPlot(xLabel, yLabel string, under ...plot.Plotter) *plot.Plot {
	return newPanel(xLabel, yLabel, true, under...)
}

// newBarPlot returns a panel for grouped bars: horizontal grid lines only.
func newBarPlot(xLabel, yLabel string) *plot.Plot { return newPanel(xLabel, yLabel, false) }

func newPanel(xLabel, yLabel string, vertical bool, under ...plot.Plotter) *plot.Plot {
	p := plot.New()
	p.Add(under...)
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle = axisTextStyle(axisLabelSize, ax.Label.TextStyle)
		ax.Tick.Label = axisTextStyle(tickLabelSize, ax.Tick.Label)
		ax.Label.Padding = vg.Points(4)
		ax.Color = mutedColor
		ax.Tick.Color = mutedColor
		ax.Padding = 0
	}
	grid := plotter.NewGrid()
	grid.Vertical.Color, grid.Horizontal.Color = gridColor, gridColor
	grid.Vertical.Width, grid.Horizontal.Width = vg.Points(0.5), vg.Points(0.5)
	if !vertical {
		grid.Vertical.Width = 0
	}
	p.Add(grid)
	return p
}

func axisTextStyle(size float64, base text.Style) text.Style {
	s := textStyle(size, false, inkColor)
	s.XAlign, s.YAlign, s.Rotation = base.XAlign, base.YAlign, base.Rotation
	return s
}

// addSeriesLine adds a line in style st (and to the chart legend as name when name is set).
func (c *Chart) addSeriesLine(p *plot.Plot, name string, st seriesStyle, xys plotter.XYs, step plotter.StepKind) error {
	if len(xys) == 0 {
		return nil
	}
	l, err := plotter.NewLine(decimateLine(xys))
	if err != nil {
		return fmt.Errorf("reports: %s: %s: %w", c.Name, name, err)
	}
	l.Color, l.Width, l.Dashes, l.StepStyle = st.color, vg.Points(lineWidth), st.dashes, step
	p.Add(denseLine{l})
	if name != "" {
		c.addLegend(name, l)
	}
	return nil
}

// addLegend adds name to the legend once (a name seen before is kept as it was).
func (c *Chart) addLegend(name string, thumbs ...plot.Thumbnailer) {
	for _, it := range c.legend {
		if it.name == name {
			return
		}
	}
	c.legend = append(c.legend, legendItem{name: name, thumbs: thumbs})
}
