package reports

import (
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// lineColumns is how many columns decimateLine keeps a line's shape for: the PNG's width in
// pixels, more than its data area has, so that each column is narrower than a pixel.
const lineColumns = int(chartWidth / 72 * pngDPI)

// decimateLine thins a line of many more points than the chart has pixel columns, keeping
// in each of lineColumns equal slices of its x range the first, lowest, highest and last
// point, in x order (M4 aggregation: Jugel et al., "M4: A Visualization-Oriented Time Series
// Data Aggregation", VLDB 2014). Drawn as a line or as steps it covers the same pixels as
// every point would: within a column the stroke spans the column's lowest to highest value,
// and it enters and leaves the column at the same first and last points. It spares the
// rasteriser, whose cost grows with the square of the segments crossing a pixel row: a
// day's egress rate, 42,000 spiky seconds on 1,400 pixels, took 17 s to draw.
//
// xys must be in x order; a line with a NaN or infinite coordinate, or with few enough
// points, is returned as it is.
func decimateLine(xys plotter.XYs) plotter.XYs {
	if len(xys) <= 4*lineColumns {
		return xys
	}
	lo, hi, ok := finiteXRange(xys)
	if !ok {
		return xys
	}
	out := make(plotter.XYs, 0, 4*lineColumns)
	for start := 0; start < len(xys); {
		c := columnOf(xys[start].X, lo, hi)
		end, low, high := start+1, start, start
		for end < len(xys) && columnOf(xys[end].X, lo, hi) == c {
			if xys[end].Y < xys[low].Y {
				low = end
			}
			if xys[end].Y > xys[high].Y {
				high = end
			}
			end++
		}
		last := end - 1
		// The four points' indices in order, each once.
		keep := [4]int{start, min(low, high), max(low, high), last}
		for i, k := range keep {
			if i == 0 || k != keep[i-1] {
				out = append(out, xys[k])
			}
		}
		start = end
	}
	return out
}

// finiteXRange returns the least and greatest x of xys; ok is false when a coordinate is
// NaN or infinite or all points share one x (nothing to thin by column).
func finiteXRange(xys plotter.XYs) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, p := range xys {
		if math.IsNaN(p.X) || math.IsInf(p.X, 0) || math.IsNaN(p.Y) || math.IsInf(p.Y, 0) {
			return 0, 0, false
		}
		lo, hi = min(lo, p.X), max(hi, p.X)
	}
	return lo, hi, hi > lo
}

// columnOf is the column, of lineColumns over [lo, hi], that x falls in.
func columnOf(x, lo, hi float64) int {
	return min(int((x-lo)/(hi-lo)*float64(lineColumns)), lineColumns-1)
}

// denseLine is a plotter.Line (no fill) that strokes its path in pieces of lineChunk
// segments. The rasteriser's cost grows with the square of the segments that cross one
// pixel row within one stroke, and a dense, spiky line crosses every row at every column:
// a day's egress rate, thinned to 6,000 points, still took 6.7 s to draw as one stroke,
// 0.1 s in pieces. Each piece starts one segment before the last one ended, so the
// joint between them is drawn with the line's own join rather than two butt ends, and
// carries on the dash pattern where the last piece left it: the pieces draw the same line.
type denseLine struct {
	*plotter.Line
}

// Plot implements plot.Plotter as plotter.Line does: transform, clip, expand the steps,
// stroke.
func (l denseLine) Plot(c draw.Canvas, plt *plot.Plot) {
	if l.LineStyle.Width == 0 {
		return
	}
	trX, trY := plt.Transforms(&c)
	ps := make([]vg.Point, len(l.XYs))
	for i, p := range l.XYs {
		ps[i] = vg.Point{X: trX(p.X), Y: trY(p.Y)}
	}
	for _, line := range c.ClipLinesXY(ps) {
		if len(line) == 0 {
			continue
		}
		path := []vg.Point{line[0]}
		for i, pt := range line[1:] {
			prev := line[i]
			switch l.StepStyle {
			case plotter.PreStep:
				path = append(path, vg.Point{X: prev.X, Y: pt.Y})
			case plotter.MidStep:
				path = append(path, vg.Point{X: (prev.X + pt.X) / 2, Y: prev.Y}, vg.Point{X: (prev.X + pt.X) / 2, Y: pt.Y})
			case plotter.PostStep:
				path = append(path, vg.Point{X: pt.X, Y: prev.Y})
			}
			path = append(path, pt)
		}
		strokeInPieces(c, l.LineStyle, path)
	}
}

// strokeInPieces strokes the polyline path in pieces of lineChunk segments (see denseLine).
func strokeInPieces(c draw.Canvas, sty draw.LineStyle, path []vg.Point) {
	if len(path) <= lineChunk+1 {
		c.StrokeLines(sty, path)
		return
	}
	var along vg.Length // the path's length from its start to path[from]
	from := 0
	for start := 0; start < len(path)-1; start += lineChunk {
		first := max(start-1, 0)
		for ; from < first; from++ {
			along += distance(path[from], path[from+1])
		}
		piece := sty
		piece.DashOffs = sty.DashOffs + along
		c.StrokeLines(piece, path[first:min(start+lineChunk, len(path)-1)+1])
	}
}

func distance(a, b vg.Point) vg.Length {
	return vg.Length(math.Hypot(float64(b.X-a.X), float64(b.Y-a.Y)))
}

// lineChunk is how many segments of a line one stroke draws (denseLine).
const lineChunk = 128

// scatterRows is how many rows thinScatter tells apart: more than the PNG's height in pixels.
const scatterRows = 1024

// thinScatter drops the points of a scatter that land in the same cell, a column
// (lineColumns of the points' x range) by a row (scatterRows of the y axis, through its
// scale), as an earlier point: each cell is smaller than a pixel and the glyphs are several
// pixels wide, so the chart looks the same. A day of seconds is 86,400 points, each one a
// glyph box the plot lays out several times over and a glyph it draws: most of the 3.6 s a
// 50,000-Service run took to write its outputs. Few points, or points with a NaN or
// infinite coordinate, are returned as they are.
func thinScatter(xys plotter.XYs, y *plot.Axis) plotter.XYs {
	if len(xys) <= lineColumns {
		return xys
	}
	lo, hi, ok := finiteXRange(xys)
	if !ok || !(y.Max > y.Min) {
		return xys
	}
	seen := make([]uint64, (lineColumns*(scatterRows+2)+63)/64)
	out := make(plotter.XYs, 0, len(xys)/4)
	for _, p := range xys {
		col := columnOf(p.X, lo, hi)
		v := y.Scale.Normalize(y.Min, y.Max, p.Y)
		row := min(max(int(v*float64(scatterRows)), -1), scatterRows) // off the axis: one cell each side
		cell := col*(scatterRows+2) + row + 1
		if seen[cell/64]&(1<<(cell%64)) != 0 {
			continue
		}
		seen[cell/64] |= 1 << (cell % 64)
		out = append(out, p)
	}
	return out
}

// GlyphBoxes implements plot.GlyphBoxer as plotter.Line does, with only the boxes that can
// set the plot's padding (padGlyphBoxes).
func (l denseLine) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	return padGlyphBoxes(l.Line.GlyphBoxes(p))
}

// paddedScatter is a plotter.Scatter with only the glyph boxes that can set the plot's
// padding (padGlyphBoxes).
type paddedScatter struct {
	*plotter.Scatter
}

// GlyphBoxes implements plot.GlyphBoxer.
func (s paddedScatter) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	return padGlyphBoxes(s.Scatter.GlyphBoxes(p))
}

// padGlyphBoxes returns, of one plotter's glyph boxes, those that can set the plot's padding,
// in their order. gonum pads the data area for the first box that reaches furthest left,
// right, down and up among those inside the axes (plot.go padX, padY: leftMost and the
// others, over Plot.GlyphBoxes); where the boxes are all of one size, that is the first box
// of the least or greatest X or Y, or, as the canvas's coordinates are rounded, one whose X
// or Y is next to that: the first of each value within glyphPadBand of the least and
// greatest is kept, a handful in all. Boxes of several sizes are returned as they are. A
// line of 50,000 points gave 50,000 boxes, which Plot.GlyphBoxes copies one by one for each
// side of each image: drawing one run's charts allocated 800 MB, 40% of it boxes.
func padGlyphBoxes(boxes []plot.GlyphBox) []plot.GlyphBox {
	if len(boxes) <= 4 {
		return boxes
	}
	for _, b := range boxes[1:] {
		if b.Rectangle != boxes[0].Rectangle {
			return boxes
		}
	}
	size := boxes[0].Size()
	inside := func(b plot.GlyphBox) bool {
		return !(size.X > 0 && (b.X < 0 || b.X > 1)) && !(size.Y > 0 && (b.Y < 0 || b.Y > 1))
	}
	loX, hiX, loY, hiY := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, b := range boxes {
		if !inside(b) {
			continue
		}
		if !math.IsNaN(b.X) { // a NaN is never picked, and min would return it
			loX, hiX = min(loX, b.X), max(hiX, b.X)
		}
		if !math.IsNaN(b.Y) {
			loY, hiY = min(loY, b.Y), max(hiY, b.Y)
		}
	}
	var kept []plot.GlyphBox
	var seenX, seenY []float64 // the values kept
	for _, b := range boxes {
		if !inside(b) {
			continue
		}
		nearX := b.X <= loX+glyphPadBand || b.X >= hiX-glyphPadBand
		nearY := b.Y <= loY+glyphPadBand || b.Y >= hiY-glyphPadBand
		newX := nearX && !slices.Contains(seenX, b.X)
		newY := nearY && !slices.Contains(seenY, b.Y)
		if newX {
			seenX = append(seenX, b.X)
		}
		if newY {
			seenY = append(seenY, b.Y)
		}
		if newX || newY {
			kept = append(kept, b)
		}
	}
	return kept
}

// glyphPadBand is how far, in the axes' normalised coordinates, a box's X or Y may be from
// the least or greatest and still be the one padX or padY picks: canvas coordinates (a
// point is 1/72 inch, charts a few hundred wide) are rounded near 1e-13 of a point, so
// values 1e-9 apart never round to the same place.
const glyphPadBand = 1e-9

// bandColumns thins the step band between lower and upper (same x, in x order, each value
// holding until the next sample and the last until end) to one sample a column, of
// lineColumns over [the first x, end]: the column's least lower and greatest upper among
// the samples that hold in it. Filled, it covers the same columns as the whole band (a
// column is narrower than a pixel), without a polygon of a point per sample: a day's
// slice layout, 176,000 samples, drew a 700,000-point polygon (2.35 s, a 10 MB SVG). A
// band of few samples, or one with a coordinate that is not finite, is returned as it is.
func bandColumns(lower, upper plotter.XYs, end float64) (plotter.XYs, plotter.XYs) {
	if len(upper) <= 4*lineColumns || len(lower) != len(upper) {
		return lower, upper
	}
	lo, hi := upper[0].X, end
	for _, xys := range []plotter.XYs{lower, upper} {
		if _, top, ok := finiteXRange(xys); !ok || top > hi {
			return lower, upper
		}
	}
	if !(hi > lo) || math.IsInf(hi, 0) {
		return lower, upper
	}
	least := make([]float64, lineColumns)
	most := make([]float64, lineColumns)
	for c := range least {
		least[c], most[c] = math.Inf(1), math.Inf(-1)
	}
	width := (hi - lo) / float64(lineColumns)
	for i := range upper {
		next := end
		if i+1 < len(upper) {
			next = upper[i+1].X
		}
		first, last := columnOf(upper[i].X, lo, hi), columnOf(next, lo, hi)
		if last > first && lo+float64(last)*width >= next {
			last-- // it ends where that column begins
		}
		for c := first; c <= last; c++ {
			least[c], most[c] = min(least[c], lower[i].Y), max(most[c], upper[i].Y)
		}
	}
	var outLower, outUpper plotter.XYs
	for c := range least {
		if least[c] > most[c] {
			continue // no sample holds here (not for a band that covers [lo, end])
		}
		x := lo + float64(c)*width
		outLower = append(outLower, plotter.XY{X: x, Y: least[c]})
		outUpper = append(outUpper, plotter.XY{X: x, Y: most[c]})
	}
	return outLower, outUpper
}

// rateColumn is one column of a dense rate series as the egress chart draws it: the
// column's span of virtual time [start, end), the time-weighted mean rate over that span and
// the least and greatest bucket in it.
type rateColumn struct {
	start, end      float64
	mean, low, high float64
}

// rateColumnsTarget is about how many columns rateColumnWidth divides a time axis into: one
// every 4 PNG pixels (2 points) of a data area some 1,250 pixels wide. A mean over a pixel's
// worth of spiky seconds is as spiky as the seconds themselves; over four, the line settles
// enough to read a level and compare two of them, and still shows a burst of a few columns.
const rateColumnsTarget = 320

// rateColumnSteps are the column widths, in seconds, rateColumnWidth picks from: round
// figures that read well in the subtitle ("mean per 20s"), as a monitoring tool's step.
var rateColumnSteps = []float64{1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600, 900, 1200, 1800, 3600, 7200, 10800, 21600, 43200, 86400}

// rateColumnWidth is the width, in seconds, of the columns a rate series of buckets width
// seconds wide over span seconds is averaged in: the narrowest of rateColumnSteps that is a
// whole number of buckets and gives at most rateColumnsTarget columns (a column never
// splits a bucket), or width itself when the buckets are few enough to draw one by one.
func rateColumnWidth(span, width float64) float64 {
	if !(width > 0) || !(span/width > rateColumnsTarget) {
		return width
	}
	for _, step := range rateColumnSteps {
		if step >= width && math.Mod(step, width) == 0 && span/step <= rateColumnsTarget {
			return step
		}
	}
	// Beyond the longest step (years of virtual time): whole buckets, target columns.
	return math.Ceil(span/rateColumnsTarget/width) * width
}

// columnSpan checks a series of buckets of width for drawing in columns of column seconds
// from time 0 (rateColumns, maxColumns): ok is false for an empty series, a NaN or infinite
// coordinate, points out of x order, a width or column that is not positive and finite, or
// absurdly many columns. base is the first column's start and n the columns from it to the
// last bucket's end.
func columnSpan(xys plotter.XYs, width, column float64) (base float64, n int, ok bool) {
	if len(xys) == 0 || !(width > 0) || !(column > 0) || math.IsInf(width, 0) || math.IsInf(column, 0) {
		return 0, 0, false
	}
	for i, p := range xys {
		if math.IsNaN(p.X) || math.IsInf(p.X, 0) || math.IsNaN(p.Y) || math.IsInf(p.Y, 0) || (i > 0 && p.X < xys[i-1].X) {
			return 0, 0, false
		}
	}
	from, to := xys[0].X, xys[len(xys)-1].X+width
	base = math.Floor(from/column) * column
	n = int(math.Ceil((to - base) / column))
	if n <= 0 || n > 1<<24 {
		return 0, 0, false // no room, or absurdly many columns for a chart
	}
	return base, n, true
}

// rateColumns averages a rate series into columns of column seconds, aligned on multiples of
// column from time 0, from the first bucket's to the last's. xys are the buckets in x order,
// each the rate over [x, x+width). A column's mean is weighted by time, over the part of it
// the series spans: a second without a bucket (a gap) counts as 0, as a quiet second does,
// and makes the column's low 0; the first and last columns are cut to the series' ends, so a
// run's last few seconds are not averaged with seconds after it. ok is false, and nothing is
// returned, for an empty series, a NaN or infinite coordinate, points out of x order or a
// width or column that is not positive and finite: the caller then draws every bucket.
func rateColumns(xys plotter.XYs, width, column float64) (cols []rateColumn, ok bool) {
	base, n, ok := columnSpan(xys, width, column)
	if !ok {
		return nil, false
	}
	from, to := xys[0].X, xys[len(xys)-1].X+width
	cols = make([]rateColumn, n)
	covered := make([]float64, n) // seconds of each column some bucket spans
	for c := range cols {
		start := base + float64(c)*column
		cols[c] = rateColumn{start: max(start, from), end: min(start+column, to), low: math.Inf(1), high: math.Inf(-1)}
	}
	for _, p := range xys {
		first := int((p.X - base) / column)
		for c := first; c < n && cols[c].start < p.X+width; c++ {
			overlap := min(cols[c].end, p.X+width) - max(cols[c].start, p.X)
			if overlap <= 0 {
				continue
			}
			cols[c].mean += p.Y * overlap // a sum until divided below
			covered[c] += overlap
			cols[c].low, cols[c].high = min(cols[c].low, p.Y), max(cols[c].high, p.Y)
		}
	}
	for c := range cols {
		col := &cols[c]
		if covered[c] < col.end-col.start {
			col.low, col.high = min(col.low, 0), max(col.high, 0) // a gap: nothing was sent
		}
		col.mean /= col.end - col.start
	}
	return cols, true
}

// maxColumn is one column of a dense series of per-bucket maxima as the latency chart draws
// it: the column's span of virtual time [start, end), its greatest value (the column's
// maximum, the chart's quantity) and its least (how far below that the column's buckets go).
type maxColumn struct {
	start, end float64
	low, high  float64
}

// maxColumns gathers a series of per-bucket maxima into columns of column seconds, aligned
// on multiples of column from time 0, as rateColumns does: xys are the buckets that have a
// value, in x order, each holding for [x, x+width). A column's high is its greatest bucket,
// the column's maximum as each bucket's is the bucket's; its low the least. Unlike a rate, a
// bucket without a value (a second without writes has no latency, not a latency of 0) is
// not counted: a column with no bucket is left out, so the columns returned may have gaps
// between them. The first and last columns are cut to the series' ends. ok is false, and
// nothing is returned, for an empty series, a NaN or infinite coordinate, points out of x
// order or a width or column that is not positive and finite: the caller then draws every
// bucket.
func maxColumns(xys plotter.XYs, width, column float64) (cols []maxColumn, ok bool) {
	base, n, ok := columnSpan(xys, width, column)
	if !ok {
		return nil, false
	}
	from, to := xys[0].X, xys[len(xys)-1].X+width
	all := make([]maxColumn, n)
	held := make([]bool, n) // whether some bucket is in the column
	for c := range all {
		start := base + float64(c)*column
		all[c] = maxColumn{start: max(start, from), end: min(start+column, to), low: math.Inf(1), high: math.Inf(-1)}
	}
	for _, p := range xys {
		// Each column the bucket overlaps: one, unless a column splits a bucket
		// (rateColumnWidth never picks such a column).
		for c := int((p.X - base) / column); c < n && all[c].start < p.X+width; c++ {
			if min(all[c].end, p.X+width) <= max(all[c].start, p.X) {
				continue
			}
			all[c].low, all[c].high = min(all[c].low, p.Y), max(all[c].high, p.Y)
			held[c] = true
		}
	}
	for c := range all {
		if held[c] {
			cols = append(cols, all[c])
		}
	}
	return cols, true
}

// columnRuns splits columns (maxColumns, in order) where one is missing, into runs of
// adjacent columns, each drawn as one band and one line: a line or band across the gap would
// draw a latency where there was none.
func columnRuns(cols []maxColumn) [][]maxColumn {
	var runs [][]maxColumn
	for i := 0; i < len(cols); {
		j := i + 1
		for j < len(cols) && cols[j].start == cols[j-1].end {
			j++
		}
		runs = append(runs, cols[i:j])
		i = j
	}
	return runs
}
