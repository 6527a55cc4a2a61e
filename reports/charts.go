package reports

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"epsim/sim"
)

// HeadlineChartName is the file stem of the headline chart, the one a run report leads with.
const HeadlineChartName = "phases-bytes"

// Charts builds every chart for a run, in a fixed order: the headline (bytes fanned out per
// phase, both modes side by side on a log scale, the ratio above each pair), the cumulative
// bytes fanned out, the API server egress per second, the propagation latency, the API
// writes per phase and, when layout samples exist and the EndpointSlice mode ran, the
// EndpointSlice layout over time. series may be sparse.
func Charts(s *Summary, series []sim.Bucket, layout []sim.LayoutSample) ([]*Chart, error) {
	dense := DenseSeriesTo(series, s.Total.EndSeconds)
	var charts []*Chart
	for _, build := range []func() (*Chart, error){
		func() (*Chart, error) { return HeadlineChart(s) },
		func() (*Chart, error) { return CumulativeFanoutChart(s, dense) },
		func() (*Chart, error) { return EgressChart(s, dense) },
		func() (*Chart, error) { return LatencyChart(s, dense) },
		func() (*Chart, error) { return PhaseWritesChart(s) },
		func() (*Chart, error) {
			if len(layout) == 0 || s.Total.EndpointSlices == nil {
				return nil, nil
			}
			return SliceLayoutChart(s, layout)
		},
	} {
		c, err := build()
		if err != nil {
			return nil, err
		}
		if c != nil {
			charts = append(charts, c)
		}
	}
	return charts, nil
}

// runContext names the run in subtitles: "5000-nodes, seed 1, 5,000 nodes".
func runContext(s *Summary) string {
	return fmt.Sprintf("%s, seed %d, %s", s.Scenario, s.Seed, plural(s.Nodes, "node"))
}

// runPhases are the run's phases as time spans, numbered from 1.
func runPhases(s *Summary) []phaseSpan {
	out := make([]phaseSpan, len(s.Phases))
	for i, ph := range s.Phases {
		out[i] = phaseSpan{number: i + 1, name: ph.Name, start: ph.StartSeconds, end: ph.EndSeconds}
	}
	return out
}

// compareModes states which mode has more of a figure over the run, and by how much:
// "Endpoints send 63× more bytes than EndpointSlices". verb is third person plural ("send"),
// noun the figure ("bytes"). With one mode it gives the figure.
func compareModes(s *Summary, value func(*ModeSummary) int64, verb, noun string, format func(int64) string) string {
	// amount is a figure with its noun, once: "1.7 GB" (FormatBytes says the unit),
	// "3,000 API writes".
	amount := func(v int64) string {
		if noun == "bytes" {
			return format(v)
		}
		return format(v) + " " + noun
	}
	e, es := s.Total.Endpoints, s.Total.EndpointSlices
	switch {
	case e == nil && es == nil:
		return "No mode ran"
	case e == nil:
		return fmt.Sprintf("EndpointSlices %s %s", verb, amount(value(es)))
	case es == nil:
		return fmt.Sprintf("Endpoints %s %s", verb, amount(value(e)))
	}
	a, b := value(e), value(es)
	switch {
	case a == 0 && b == 0:
		return fmt.Sprintf("Neither mode %s any %s", singularVerb(verb), noun)
	case b == 0:
		return fmt.Sprintf("Endpoints %s %s; EndpointSlices none", verb, amount(a))
	case a == 0:
		return fmt.Sprintf("EndpointSlices %s %s; Endpoints none", verb, amount(b))
	}
	more, less := "Endpoints", "EndpointSlices"
	r := float64(a) / float64(b)
	if r < 1 {
		more, less, r = less, more, 1/r
	}
	if r < 1.05 {
		return fmt.Sprintf("Endpoints and EndpointSlices %s about as many %s (%s and %s)", verb, noun, format(a), format(b))
	}
	return fmt.Sprintf("%s %s %s more %s than %s", more, verb, FormatRatio(r, true), noun, less)
}

// singularVerb is verb ("fan out", "send") for one subject ("fans out", "sends").
func singularVerb(verb string) string {
	first, rest, _ := strings.Cut(verb, " ")
	if rest != "" {
		return first + "s " + rest
	}
	return first + "s"
}

// bothModes reports whether both modes ran, so that a chart or a table can show their ratio.
func bothModes(s *Summary) bool { return s.Total.Endpoints != nil && s.Total.EndpointSlices != nil }

// pairNote is what a phase bar chart's subtitle says of the ratio above each pair of bars:
// nothing when one mode ran (one bar per phase, no ratio).
func pairNote(s *Summary) string {
	if !bothModes(s) {
		return ""
	}
	return ", Endpoints/EndpointSlices above each pair"
}

// gapFactor is how far apart a phase's Endpoints figure a and EndpointSlices figure b are:
// the larger over the smaller (≥ 1), +Inf when only one is 0, 0 when both are.
func gapFactor(a, b int64) float64 {
	switch {
	case a == 0 && b == 0:
		return 0
	case a == 0 || b == 0:
		return math.Inf(1)
	case a >= b:
		return float64(a) / float64(b)
	}
	return float64(b) / float64(a)
}

// widestGap returns the index of the phase where the modes' figures are furthest apart
// (gapFactor, in either direction; of phases where one mode has none, the one where the
// other has the most), or -1 when no phase has any.
func widestGap(s *Summary, value func(*ModeSummary) int64) int {
	best, bestFactor, bestMost := -1, 0.0, int64(0)
	for i := range s.Phases {
		p := &s.Phases[i]
		if p.Endpoints == nil || p.EndpointSlices == nil {
			continue
		}
		a, b := value(p.Endpoints), value(p.EndpointSlices)
		f, most := gapFactor(a, b), max(a, b)
		if f > bestFactor || (f == bestFactor && f > 0 && most > bestMost) {
			best, bestFactor, bestMost = i, f, most
		}
	}
	return best
}

// gapSentence says which mode fans out more bytes in p, and how many times more; a mode
// that fanned out none is said so.
func gapSentence(p *PhaseSummary) string {
	a, b := p.Endpoints.FanoutBytes, p.EndpointSlices.FanoutBytes
	switch f := gapFactor(a, b); {
	case f == 0:
		return "neither mode fans out any bytes"
	case b == 0:
		return fmt.Sprintf("Endpoints fan out %s, EndpointSlices nothing", FormatBytes(a))
	case a == 0:
		return fmt.Sprintf("EndpointSlices fan out %s, Endpoints nothing", FormatBytes(b))
	case f < 1.05:
		return fmt.Sprintf("Endpoints and EndpointSlices fan out about as many bytes (%s and %s)", FormatBytes(a), FormatBytes(b))
	case a > b:
		return fmt.Sprintf("Endpoints fan out %s as many bytes as EndpointSlices", FormatRatio(f, true))
	default:
		return fmt.Sprintf("EndpointSlices fan out %s as many bytes as Endpoints", FormatRatio(f, true))
	}
}

// modeTotals lists each mode's figure: "Endpoints 4.4 TB, EndpointSlices 70.4 GB".
func modeTotals(s *Summary, value func(*ModeSummary) int64, format func(int64) string) string {
	var parts []string
	for _, m := range s.Modes {
		if ms := s.Total.Mode(m); ms != nil {
			parts = append(parts, modeTitle(m)+" "+format(value(ms)))
		}
	}
	return strings.Join(parts, ", ")
}

func fanoutBytes(m *ModeSummary) int64 { return m.FanoutBytes }
func writesTotal(m *ModeSummary) int64 { return m.Writes.Total }

// keepVisible returns the span (top / bottom) of a log axis: span, widened so that every
// line's peak is at least two decades above the bottom of the axis; a mode far below the
// other then still shows its shape instead of lying on the axis.
func keepVisible(span, top float64, lines []plotter.XYs) float64 {
	for _, l := range lines {
		peak := 0.0
		for _, p := range l {
			peak = max(peak, p.Y)
		}
		if peak > 0 {
			span = max(span, top/(peak/100))
		}
	}
	return span
}

// timeEnd is where a time axis ends: the end of the run or of the data, whichever is later.
func timeEnd(s *Summary, xys ...plotter.XYs) float64 {
	end := s.EndTimeSeconds
	for _, x := range xys {
		if n := len(x); n > 0 {
			end = max(end, x[n-1].X)
		}
	}
	if end <= 0 {
		end = 1
	}
	return end
}

// newTimePlot returns a panel over the run's virtual time, from 0 to end, with the phases
// shaded; c numbers them above the panel and lists them in its key.
func (c *Chart) newTimePlot(s *Summary, yLabel string, end float64) *plot.Plot {
	c.phases, c.markers = runPhases(s), true
	p := newChartPlot("virtual time", yLabel, phaseBands{phases: c.phases})
	p.X.Min, p.X.Max = 0, end
	p.X.Tick.Marker = timeTicks{}
	return p
}

// CumulativeFanoutChart draws the bytes fanned out to watchers since the start of the run,
// per mode, on a log scale. dense is DenseSeries of the run's series.
func CumulativeFanoutChart(s *Summary, dense []sim.Bucket) (*Chart, error) {
	c := &Chart{Name: "cumulative-fanout",
		Title:    compareModes(s, fanoutBytes, "send", "bytes", FormatBytes) + " over the run",
		Subtitle: fmt.Sprintf("Bytes fanned out to watchers since the start, log scale: %s · %s", modeTotals(s, fanoutBytes, FormatBytes), runContext(s))}
	lines := make([]plotter.XYs, len(s.Modes))
	lo, hi := math.Inf(1), 0.0
	for k, m := range s.Modes {
		// A point at the end of each second; zero totals are left out (log axis).
		var total int64
		for _, b := range dense {
			total += bucketMode(b, m).FanoutBytes
			if total > 0 {
				lines[k] = append(lines[k], plotter.XY{X: float64(b.Second + b.Seconds()), Y: float64(total)})
				lo, hi = min(lo, float64(total)), max(hi, float64(total))
			}
		}
		c.Series = append(c.Series, ChartSeries{Name: string(m), XYs: lines[k]})
	}
	end := timeEnd(s, lines...)
	p := c.newTimePlot(s, "bytes fanned out (log)", end)
	for k, m := range s.Modes {
		xys := lines[k]
		if n := len(xys); n > 0 && xys[n-1].X < end {
			// The total holds until the end of the run.
			xys = append(xys[:n:n], plotter.XY{X: end, Y: xys[n-1].Y})
		}
		if err := c.addSeriesLine(p, modeTitle(m), modeStyles[m], xys, plotter.NoStep); err != nil {
			return nil, err
		}
	}
	if hi > 0 {
		p.Y.Scale = plot.LogScale{}
		p.Y.Min, p.Y.Max = logBounds(lo, hi, keepVisible(1e7, hi, lines))
		p.Y.Tick.Marker = siTicks{unit: "B", log: true}
	} else {
		p.Y.Min, p.Y.Max = 0, 1
		p.Y.Tick.Marker = siTicks{unit: "B"}
	}
	c.Plots = [][]*plot.Plot{{p}}
	return c, nil
}

// EgressChart draws the bytes leaving the API servers in each second, per mode, with the
// egress capacity as a labelled reference line; a log scale when the values span decades
// (seconds without traffic then sit on the bottom of the axis). A run of more buckets than
// the chart can show one by one (rateColumnWidth) is drawn per column of several seconds:
// a line of each column's mean rate over a light band from its least to its greatest
// bucket, as the subtitle says. Every bucket drawn as a step filled the chart from the
// axis to the peaks (a day of spiky seconds on 1,250 pixels): the extremes were there, the
// typical rate of either mode, and how the two compare, were not.
func EgressChart(s *Summary, dense []sim.Bucket) (*Chart, error) {
	c := &Chart{Name: "egress-rate"}
	capacity := float64(s.EgressCapacityBytesPerSec)
	lo, hi := math.Inf(1), 0.0
	lines := make([]plotter.XYs, len(s.Modes))
	for k, m := range s.Modes {
		for _, b := range dense {
			v := egressPerSecond(b, m) // a coarse bucket (long runs) gives its average
			lines[k] = append(lines[k], plotter.XY{X: float64(b.Second), Y: v})
			if v > 0 {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
		c.Series = append(c.Series, ChartSeries{Name: string(m), XYs: lines[k]})
	}
	c.Title, c.Subtitle = egressFinding(s, dense, capacity)
	end := timeEnd(s)
	width := 1.0
	if n := len(dense); n > 0 {
		end = max(end, float64(dense[n-1].Second+dense[n-1].Seconds()))
		width = float64(dense[n-1].Seconds())
	}
	// Columns of several buckets when there are too many to draw one by one; every mode in
	// the same columns, so that their means compare column by column.
	column := rateColumnWidth(end, width)
	columns := make([][]rateColumn, len(s.Modes))
	byColumn := column > width && len(dense) > 0 && len(s.Modes) > 0
	for k := range s.Modes {
		if byColumn && len(lines[k]) > 0 {
			columns[k], byColumn = rateColumns(lines[k], width, column)
		}
	}
	var notes string
	if useLog(lo, max(hi, capacity)) {
		notes += ", log scale (quiet seconds on the axis)"
	}
	if byColumn {
		notes += fmt.Sprintf(" · line: mean per %s, band: %s min–max", formatClock(column), formatClock(width))
	}
	c.Subtitle = strings.Replace(c.Subtitle, " · ", notes+" · ", 1)
	p := c.newTimePlot(s, "bytes/s", end)
	top := max(hi, capacity)
	logScale := useLog(lo, top)
	if logScale {
		p.Y.Scale = plot.LogScale{}
		p.Y.Min, p.Y.Max = logBounds(lo, top, keepVisible(1e4, top, lines))
		p.Y.Tick.Marker = siTicks{unit: "B/s", log: true}
	} else {
		p.Y.Min, p.Y.Max = 0, linearTop(top)
		p.Y.Tick.Marker = siTicks{unit: "B/s"}
	}
	if byColumn {
		if err := c.addRateColumns(p, s.Modes, columns, end); err != nil {
			return nil, err
		}
	} else {
		for k, m := range s.Modes {
			if err := c.addSeriesLine(p, modeTitle(m), modeStyles[m], rateSteps(lines[k], width, end, p.Y.Min), plotter.PostStep); err != nil {
				return nil, err
			}
		}
	}
	if capacity > 0 {
		p.Add(refLine{y: capacity, label: "egress capacity " + formatSI(capacity, "B/s")})
	}
	c.Plots = [][]*plot.Plot{{p}}
	return c, nil
}

// rateSteps are the points of a step line (plotter.PostStep) of a rate series of buckets
// width seconds wide, each drawn as a step over its bucket (on a log axis, a quiet bucket on
// the bottom of the axis, floor), then nothing (floor) from the last bucket's end to end.
func rateSteps(xys plotter.XYs, width, end, floor float64) plotter.XYs {
	out := make(plotter.XYs, 0, len(xys)+3)
	for _, pt := range xys {
		out = append(out, plotter.XY{X: pt.X, Y: max(pt.Y, floor)})
	}
	if n := len(out); n > 0 {
		last := out[n-1].X + width
		out = append(out, plotter.XY{X: last, Y: out[n-1].Y})
		if last < end {
			out = append(out, plotter.XY{X: last, Y: floor}, plotter.XY{X: end, Y: floor})
		}
	}
	return out
}

// addRateColumns draws each mode's columns (rateColumns) on p: first every mode's band from
// its columns' least to greatest bucket, light and translucent so that both modes' bands
// show where they overlap, then every mode's line of its columns' means, in the mode's
// colour and dashes, over all the bands; the legend shows a mode's band and line together.
// As with every bucket drawn (rateSteps), values below the axis sit on its bottom, and the
// line drops to the bottom from the last column's end to end.
func (c *Chart) addRateColumns(p *plot.Plot, modes []sim.Mode, columns [][]rateColumn, end float64) error {
	floor := p.Y.Min
	bands := make([]*plotter.Polygon, len(modes))
	for k, m := range modes {
		cols := columns[k]
		if len(cols) == 0 {
			continue
		}
		lower, upper := make(plotter.XYs, len(cols)), make(plotter.XYs, len(cols))
		for i, col := range cols {
			lower[i] = plotter.XY{X: col.start, Y: max(col.low, floor)}
			upper[i] = plotter.XY{X: col.start, Y: max(col.high, floor)}
		}
		// What is drawn, beside the buckets, for the digest: each column's mean, low and high.
		means, lows, highs := make(plotter.XYs, len(cols)), make(plotter.XYs, len(cols)), make(plotter.XYs, len(cols))
		for i, col := range cols {
			means[i], lows[i], highs[i] = plotter.XY{X: col.start, Y: col.mean}, plotter.XY{X: col.start, Y: col.low}, plotter.XY{X: col.start, Y: col.high}
		}
		c.Series = append(c.Series, ChartSeries{Name: string(m) + " mean", XYs: means},
			ChartSeries{Name: string(m) + " low", XYs: lows}, ChartSeries{Name: string(m) + " high", XYs: highs})
		poly, err := c.addBand(p, m, lower, upper, cols[len(cols)-1].end)
		if err != nil {
			return err
		}
		bands[k] = poly
	}
	for k, m := range modes {
		cols := columns[k]
		if len(cols) == 0 {
			continue
		}
		xys := make(plotter.XYs, 0, len(cols)+3)
		for _, col := range cols {
			xys = append(xys, plotter.XY{X: col.start, Y: max(col.mean, floor)})
		}
		last := cols[len(cols)-1]
		xys = append(xys, plotter.XY{X: last.end, Y: max(last.mean, floor)})
		if last.end < end {
			xys = append(xys, plotter.XY{X: last.end, Y: floor}, plotter.XY{X: end, Y: floor})
		}
		l, err := c.addModeSteps(p, m, xys)
		if err != nil {
			return err
		}
		c.addLegend(modeTitle(m), bands[k], l)
	}
	return nil
}

// addBand adds to p mode m's band of columns from lower to upper (a point at each column's
// start; end is the last column's end), light and translucent in the mode's colour.
func (c *Chart) addBand(p *plot.Plot, m sim.Mode, lower, upper plotter.XYs, end float64) (*plotter.Polygon, error) {
	poly, err := plotter.NewPolygon(stepPolygon(lower, upper, end))
	if err != nil {
		return nil, fmt.Errorf("reports: %s: %s: %w", c.Name, m, err)
	}
	poly.Color = translucent(modeStyles[m].color, rateBandAlpha)
	poly.LineStyle.Width = 0
	p.Add(poly)
	return poly, nil
}

// addModeSteps adds to p mode m's line through xys as steps (each value held until the next
// point), in the mode's colour and dashes.
func (c *Chart) addModeSteps(p *plot.Plot, m sim.Mode, xys plotter.XYs) (*plotter.Line, error) {
	l, err := plotter.NewLine(xys)
	if err != nil {
		return nil, fmt.Errorf("reports: %s: %s: %w", c.Name, m, err)
	}
	st := modeStyles[m]
	l.Color, l.Width, l.Dashes, l.StepStyle = st.color, vg.Points(lineWidth), st.dashes, plotter.PostStep
	p.Add(denseLine{l})
	return l, nil
}

// rateBandAlpha is the opacity of a rate band (addRateColumns): light enough that the mean
// lines read over both modes' bands, dark enough that a band shows on the shaded phases.
const rateBandAlpha = 0x40

// translucent is clr with opacity alpha (of 0xff).
func translucent(clr color.Color, alpha uint8) color.NRGBA {
	n := color.NRGBAModel.Convert(clr).(color.NRGBA)
	n.A = alpha
	return n
}

// egressPerSecond is what left the API servers for mode m per second of bucket b: watch
// events and bytes re-sent to closed watchers, over the bucket's width.
func egressPerSecond(b sim.Bucket, m sim.Mode) float64 {
	bm := bucketMode(b, m)
	return float64(bm.FanoutBytes+bm.ResentBytes) / float64(b.Seconds())
}

// egressFinding says how long each mode held the API servers at their egress capacity, or
// compares the peaks when neither did.
func egressFinding(s *Summary, dense []sim.Bucket, capacity float64) (title, subtitle string) {
	subtitle = "API server egress per second"
	if capacity > 0 {
		subtitle += ", all replicas, against their " + formatSI(capacity, "B/s") + " capacity"
	}
	subtitle += " · " + runContext(s)
	// Seconds at capacity: a bucket counts for its whole width, as a coarse bucket (runs
	// longer than sim.MaxSeriesBuckets seconds) stands for that many seconds at its average.
	saturated := map[sim.Mode]int64{}
	for _, b := range dense {
		for _, m := range s.Modes {
			if capacity > 0 && egressPerSecond(b, m) >= 0.99*capacity {
				saturated[m] += b.Seconds()
			}
		}
	}
	var parts []string
	for _, m := range s.Modes {
		if saturated[m] > 0 {
			parts = append(parts, fmt.Sprintf("%s for %s", modeTitle(m), formatClock(float64(saturated[m]))))
		} else {
			parts = append(parts, fmt.Sprintf("%s never", modeTitle(m)))
		}
	}
	if len(saturated) > 0 {
		return "Egress at capacity: " + strings.Join(parts, ", "), subtitle
	}
	peak := func(m *ModeSummary) int64 { return m.PeakEgressBytesPerSec }
	title = "Peak egress: " + modeTotals(s, peak, FormatRate)
	if s.Total.Endpoints != nil && s.Total.EndpointSlices != nil {
		if r, ok := ratio(peak(s.Total.Endpoints), peak(s.Total.EndpointSlices)); ok && r > 0 {
			title += " (" + FormatRatio(r, true) + ")"
		}
	}
	if capacity > 0 {
		title += ", below capacity"
	}
	return title, subtitle
}

// LatencyChart draws, per mode, the largest propagation latency (trigger to last watcher) of
// the writes committed in each second, with the SLO as a labelled reference line; a log
// scale when the latencies span decades. A run of more buckets than the chart can show one
// by one (rateColumnWidth) is drawn per column of several seconds, in the egress chart's
// columns: a line of each column's largest latency over a light band from its least to its
// greatest bucket, as the subtitle says. A day of seconds drawn as points filled the chart
// with each mode's glyphs, those drawn last hiding the others: the two modes could not be
// compared, the chart's point. The title and the SLO line still come from the whole run.
func LatencyChart(s *Summary, dense []sim.Bucket) (*Chart, error) {
	c := &Chart{Name: "propagation-latency"}
	lo, hi := math.Inf(1), 0.0
	points := make([]plotter.XYs, len(s.Modes))
	for k, m := range s.Modes {
		for _, b := range dense {
			bm := bucketMode(b, m)
			if bm.Writes > 0 {
				points[k] = append(points[k], plotter.XY{X: float64(b.Second), Y: bm.MaxLatencySeconds})
				if bm.MaxLatencySeconds > 0 {
					lo, hi = min(lo, bm.MaxLatencySeconds), max(hi, bm.MaxLatencySeconds)
				}
			}
		}
		c.Series = append(c.Series, ChartSeries{Name: string(m), XYs: points[k]})
	}
	c.Title, c.Subtitle = latencyFinding(s)
	end := timeEnd(s)
	width := 1.0
	if n := len(dense); n > 0 {
		end = max(end, float64(dense[n-1].Second+dense[n-1].Seconds()))
		width = float64(dense[n-1].Seconds())
	}
	p := c.newTimePlot(s, "propagation latency", end)
	top := max(hi, s.SLOSeconds)
	logScale := useLog(min(lo, s.SLOSeconds), top)
	if logScale {
		bottom := lo
		if s.SLOSeconds > 0 {
			bottom = min(bottom, s.SLOSeconds)
		}
		p.Y.Scale = plot.LogScale{}
		// Every point is shown: a mode's latencies may sit decades below the other's.
		p.Y.Min, p.Y.Max = logBounds(bottom, top, math.Inf(1))
		p.Y.Tick.Marker = siTicks{unit: "s", log: true}
	} else {
		p.Y.Min, p.Y.Max = 0, linearTop(top)
		p.Y.Tick.Marker = siTicks{unit: "s"}
	}
	// Columns of several buckets when there are too many to draw one by one; every mode in
	// the same columns, so that their maxima compare column by column. A zero latency
	// (nobody watching) cannot sit on a log axis, and is not counted there.
	column := rateColumnWidth(end, width)
	columns := make([][]maxColumn, len(s.Modes))
	byColumn := column > width && len(dense) > 0 && len(s.Modes) > 0
	for k := 0; byColumn && k < len(s.Modes); k++ {
		var xys plotter.XYs
		for _, pt := range points[k] {
			if pt.Y > 0 || !logScale {
				xys = append(xys, pt)
			}
		}
		if len(xys) > 0 {
			columns[k], byColumn = maxColumns(xys, width, column)
		}
	}
	if byColumn {
		band := "second"
		if width != 1 {
			band = formatClock(width) + " bucket"
		}
		c.Subtitle = strings.Replace(c.Subtitle, " · ", fmt.Sprintf(" · line: max per %s, band: least–greatest %s · ", formatClock(column), band), 1)
		if err := c.addLatencyColumns(p, s.Modes, columns); err != nil {
			return nil, err
		}
	}
	for k, m := range s.Modes {
		if byColumn {
			break // drawn by column
		}
		var xys plotter.XYs
		for _, pt := range points[k] {
			// A zero latency (nobody watching) cannot sit on a log axis.
			if pt.Y > 0 || !logScale {
				xys = append(xys, plotter.XY{X: pt.X, Y: max(pt.Y, p.Y.Min)})
			}
		}
		if len(xys) == 0 {
			continue
		}
		// Points, not a line: seconds without writes have no latency to connect.
		sc, err := plotter.NewScatter(thinScatter(xys, &p.Y))
		if err != nil {
			return nil, fmt.Errorf("reports: %s: %s: %w", c.Name, m, err)
		}
		st := modeStyles[m]
		sc.Color, sc.Shape, sc.Radius = st.color, st.glyph, vg.Points(2)
		p.Add(paddedScatter{sc})
		c.addLegend(modeTitle(m), sc)
	}
	if s.SLOSeconds > 0 {
		p.Add(refLine{y: s.SLOSeconds, label: "SLO p99 " + formatSI(s.SLOSeconds, "s")})
	}
	c.Plots = [][]*plot.Plot{{p}}
	return c, nil
}

// addLatencyColumns draws each mode's columns (maxColumns) on p as addRateColumns draws a
// rate's: first every mode's band from its columns' least to greatest bucket, light and
// translucent so that both modes' bands show where they overlap, then every mode's line of
// its columns' maxima, in the mode's colour and dashes, over all the bands; the legend
// shows a mode's band and line together. A column without writes has no latency to draw:
// band and line break there, each run of adjacent columns drawn on its own. Values below
// the axis sit on its bottom, as the points would.
func (c *Chart) addLatencyColumns(p *plot.Plot, modes []sim.Mode, columns [][]maxColumn) error {
	floor := p.Y.Min
	bands := make([]*plotter.Polygon, len(modes))
	for k, m := range modes {
		cols := columns[k]
		if len(cols) == 0 {
			continue
		}
		// What is drawn, beside the buckets, for the digest: each column's low and high.
		lows, highs := make(plotter.XYs, len(cols)), make(plotter.XYs, len(cols))
		for i, col := range cols {
			lows[i], highs[i] = plotter.XY{X: col.start, Y: col.low}, plotter.XY{X: col.start, Y: col.high}
		}
		c.Series = append(c.Series, ChartSeries{Name: string(m) + " high", XYs: highs}, ChartSeries{Name: string(m) + " low", XYs: lows})
		for _, run := range columnRuns(cols) {
			lower, upper := make(plotter.XYs, len(run)), make(plotter.XYs, len(run))
			for i, col := range run {
				lower[i] = plotter.XY{X: col.start, Y: max(col.low, floor)}
				upper[i] = plotter.XY{X: col.start, Y: max(col.high, floor)}
			}
			poly, err := c.addBand(p, m, lower, upper, run[len(run)-1].end)
			if err != nil {
				return err
			}
			if bands[k] == nil {
				bands[k] = poly
			}
		}
	}
	for k, m := range modes {
		if len(columns[k]) == 0 {
			continue
		}
		var first *plotter.Line
		for _, run := range columnRuns(columns[k]) {
			xys := make(plotter.XYs, 0, len(run)+1)
			for _, col := range run {
				xys = append(xys, plotter.XY{X: col.start, Y: max(col.high, floor)})
			}
			last := run[len(run)-1]
			xys = append(xys, plotter.XY{X: last.end, Y: max(last.high, floor)})
			l, err := c.addModeSteps(p, m, xys)
			if err != nil {
				return err
			}
			if first == nil {
				first = l
			}
		}
		c.addLegend(modeTitle(m), bands[k], first)
	}
	return nil
}

// latencyFinding gives each mode's worst propagation latency and how many phases missed the
// SLO.
func latencyFinding(s *Summary) (title, subtitle string) {
	var worst, missed []string
	for _, m := range s.Modes {
		ms := s.Total.Mode(m)
		if ms == nil || ms.Propagation.Count == 0 {
			continue
		}
		worst = append(worst, fmt.Sprintf("%s up to %s", modeTitle(m), FormatSeconds(ms.Propagation.MaxSeconds)))
		n, of := 0, 0
		for i := range s.Phases {
			if pm := s.Phases[i].Mode(m); pm != nil && pm.WithinSLO != nil {
				of++
				if !*pm.WithinSLO {
					n++
				}
			}
		}
		if s.SLOSeconds > 0 {
			missed = append(missed, fmt.Sprintf("%s in %d of %d", modeTitle(m), n, of))
		}
	}
	title = "Nothing propagated"
	if len(worst) > 0 {
		title = "A change reaches every watcher in: " + strings.Join(worst, ", ")
	}
	subtitle = "Largest propagation latency of each second's writes"
	if len(missed) > 0 {
		subtitle += fmt.Sprintf(" · phases over the %s p99 SLO: %s", FormatSeconds(s.SLOSeconds), strings.Join(missed, ", "))
	}
	return title, subtitle + " · " + runContext(s)
}

// HeadlineChart draws the bytes fanned out in each phase, both modes side by side on a log
// scale (so a 30 GB bar stays visible beside a 1.5 TB one), each bar labelled with its value
// and each pair with the Endpoints/EndpointSlices ratio. Its title says how far apart the
// modes are. A run report leads with it.
func HeadlineChart(s *Summary) (*Chart, error) {
	c := &Chart{Name: HeadlineChartName, Title: headlineFinding(s),
		Subtitle: fmt.Sprintf("Bytes fanned out per phase%s%s · total %s · %s",
			scaleMark, pairNote(s), modeTotals(s, fanoutBytes, FormatBytes), runContext(s))}
	return c, c.phaseBars(s, fanoutBytes, "bytes fanned out", "B", func(v float64) string { return FormatBytes(int64(v)) })
}

// headlineFinding says by how much Endpoints and EndpointSlices differ per phase, in
// whichever direction: how many times more the mode that fans out more does, a phase where
// one mode fans out nothing counted on the other's side.
func headlineFinding(s *Summary) string {
	if !bothModes(s) {
		return compareModes(s, fanoutBytes, "fan out", "bytes", FormatBytes) + " over the run"
	}
	// side is one mode's phases where it fans out more: their factors over the other mode
	// (lo, hi, of the phases where the other fans out some), and where the other has none.
	type side struct {
		name, other    string
		phases, none   int
		lo, hi         float64
		slight, finite bool
	}
	e := side{name: "Endpoints", other: "EndpointSlices", lo: math.Inf(1)}
	es := side{name: "EndpointSlices", other: "Endpoints", lo: math.Inf(1)}
	phases := 0
	var quiet []string // phases where neither mode fans out anything
	for i := range s.Phases {
		a, b := s.Phases[i].Endpoints.FanoutBytes, s.Phases[i].EndpointSlices.FanoutBytes
		if a == 0 && b == 0 {
			quiet = append(quiet, s.Phases[i].Name)
			continue
		}
		phases++
		if a == b {
			continue // on neither side
		}
		sd := &e
		if a < b {
			sd = &es
		}
		sd.phases++
		if f := gapFactor(a, b); math.IsInf(f, 1) {
			sd.none++
		} else {
			sd.lo, sd.hi, sd.finite = min(sd.lo, f), max(sd.hi, f), true
		}
	}
	span := func(a, b float64) string {
		switch FormatRatio(a, true) {
		case FormatRatio(b, true):
			return FormatRatio(b, true)
		case "1.0×":
			return "up to " + FormatRatio(b, true)
		}
		return strings.TrimSuffix(FormatRatio(a, true), "×") + "–" + FormatRatio(b, true)
	}
	// everyPhase names the phases the findings below speak of: those with traffic, so the
	// phases without (zone-outage's recovery) are named apart, not counted in "every phase".
	everyPhase, quietNote := "every phase", ""
	switch {
	case len(quiet) == 0:
	case len(quiet) <= 2:
		everyPhase = "every phase but " + strings.Join(quiet, " and ") + " (no traffic)"
		quietNote = "; no traffic in " + strings.Join(quiet, " and ")
	default:
		everyPhase = fmt.Sprintf("every phase with traffic (%d without)", len(quiet))
		quietNote = fmt.Sprintf("; no traffic in %d phases", len(quiet))
	}
	// every says that sd fans out more in every phase.
	every := func(sd side) string {
		switch {
		case !sd.finite:
			return fmt.Sprintf("%s fan out bytes in %s, %s none", sd.name, everyPhase, sd.other)
		case sd.none > 0:
			return fmt.Sprintf("%s fan out more bytes than %s in %s (%s; %s none in %d)", sd.name, sd.other, everyPhase, span(sd.lo, sd.hi), sd.other, sd.none)
		case sd.hi < 1.2:
			return fmt.Sprintf("%s fan out slightly more bytes than %s in %s (%s)", sd.name, sd.other, everyPhase, span(sd.lo, sd.hi))
		}
		return fmt.Sprintf("%s fan out %s more bytes than %s in %s", sd.name, span(sd.lo, sd.hi), sd.other, everyPhase)
	}
	// upTo is how much more sd fans out at most, in its phases.
	upTo := func(sd side) string {
		var parts []string
		if sd.finite {
			parts = append(parts, "up to "+FormatRatio(sd.hi, true))
		}
		if sd.none > 0 {
			parts = append(parts, fmt.Sprintf("%s none in %d", sd.other, sd.none))
		}
		return strings.Join(parts, "; ")
	}
	// some says that sd fans out more in some phases and as many as the other in the rest.
	some := func(sd side) string {
		return fmt.Sprintf("%s fan out more bytes than %s in %d of %d phases (%s), as many in %d%s",
			sd.name, sd.other, sd.phases, phases, upTo(sd), phases-sd.phases, quietNote)
	}
	switch {
	case phases == 0:
		return "Neither mode fans out any bytes"
	case e.phases == phases:
		return every(e)
	case es.phases == phases:
		return every(es)
	case e.phases == 0 && es.phases == 0:
		return "Endpoints and EndpointSlices fan out as many bytes in " + everyPhase
	case es.phases == 0:
		return some(e)
	case e.phases == 0:
		return some(es)
	}
	return fmt.Sprintf("Endpoints fan out more bytes in %d of %d phases (%s), EndpointSlices in %d (%s)%s", e.phases, phases, upTo(e), es.phases, upTo(es), quietNote)
}

// PhaseWritesChart draws the API writes of each phase, both modes side by side, with the
// Endpoints/EndpointSlices ratio above each pair.
func PhaseWritesChart(s *Summary) (*Chart, error) {
	c := &Chart{Name: "phases-writes", Title: compareModes(s, writesTotal, "make", "API writes", formatCount) + " over the run",
		Subtitle: fmt.Sprintf("API writes per phase%s%s · total %s · %s",
			scaleMark, pairNote(s), modeTotals(s, writesTotal, formatCount), runContext(s))}
	return c, c.phaseBars(s, writesTotal, "API writes", "", countFormat)
}

// scaleMark stands in a bar chart's subtitle for the scale, which phaseBars chooses.
const scaleMark = "\x00"

// phaseBars fills c with one group of bars per phase (one bar per mode), on a log scale
// when the values span decades. Phase names label the groups when they fit under them;
// otherwise the groups are numbered and named in the key.
func (c *Chart) phaseBars(s *Summary, value func(*ModeSummary) int64, yLabel, unit string, format func(float64) string) error {
	names := make([]string, len(s.Phases))
	for i, ph := range s.Phases {
		names[i] = ph.Name
	}
	if len(names) == 0 {
		names = []string{"(no phases)"}
	}
	bars := &groupBars{format: format}
	lo, hi := math.Inf(1), 0.0
	for _, m := range s.Modes {
		values := make([]float64, len(names))
		xys := make(plotter.XYs, len(s.Phases))
		for i := range s.Phases {
			if ms := s.Phases[i].Mode(m); ms != nil {
				values[i] = float64(value(ms))
			}
			xys[i] = plotter.XY{X: float64(i), Y: values[i]}
			if values[i] > 0 {
				lo, hi = min(lo, values[i]), max(hi, values[i])
			}
		}
		c.Series = append(c.Series, ChartSeries{Name: string(m), XYs: xys})
		st := modeStyles[m]
		bars.series = append(bars.series, barSeries{name: modeTitle(m), st: st, values: values})
		c.addLegend(modeTitle(m), barThumb{color: st.color})
	}
	if len(s.Modes) == 2 {
		for i := range s.Phases {
			e, es := value(s.Phases[i].Endpoints), value(s.Phases[i].EndpointSlices)
			r, ok := ratio(e, es)
			note := ""
			if ok && e > 0 {
				note = FormatRatio(r, true)
			}
			bars.notes = append(bars.notes, note)
		}
	}
	p := newBarPlot("phase", yLabel)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
	slot := c.phaseTicks(p, s, names)
	if len(bars.series) > 0 {
		barW := slot * barGroupFraction / vg.Length(len(bars.series))
		widest := vg.Length(0)
		for _, sr := range bars.series {
			for _, v := range sr.values {
				widest = max(widest, annotateStyle.Width(format(v)))
			}
		}
		bars.labelValues = widest <= barW
	}
	if useLog(lo, hi) {
		c.Subtitle = strings.Replace(c.Subtitle, scaleMark, " (log scale)", 1)
		p.Y.Scale = plot.LogScale{}
		p.Y.Min, _ = logBounds(lo/3, hi, math.Inf(1)) // every bar stays visible
		p.Y.Max = hi
		p.Y.Tick.Marker = siTicks{unit: unit, log: true}
	} else {
		p.Y.Min, p.Y.Max = 0, max(hi, 1)
		p.Y.Tick.Marker = siTicks{unit: unit}
		if unit == "" {
			p.Y.Tick.Marker = countTicks{}
		}
	}
	c.Subtitle = strings.Replace(c.Subtitle, scaleMark, "", 1)
	p.Add(bars)
	c.Plots = [][]*plot.Plot{{p}}
	return nil
}

// countTicks labels a linear count axis: exact when every label is below 10,000 ("2,500"),
// otherwise all in SI ("5k", "10k", "15k"), so one axis never mixes the two.
type countTicks struct{}

// Ticks implements plot.Ticker.
func (countTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := linearTicks(lo, hi)
	si := false
	for _, t := range ticks {
		si = si || (t.Label != "" && math.Abs(t.Value) >= 10000)
	}
	for i := range ticks {
		if ticks[i].Label == "" {
			continue
		}
		if si {
			ticks[i].Label = formatSI(ticks[i].Value, "")
		} else {
			ticks[i].Label = formatCount(int64(math.Round(ticks[i].Value)))
		}
	}
	return ticks
}

// SliceLayoutName is the name of the chart SliceLayoutChart draws, from a run's layout.csv.
const SliceLayoutName = "slice-layout"

// SliceLayoutChart draws the EndpointSlice layout over time: the number of slices, and the
// range (minimum to maximum) and median of endpoints per slice. The time axis ends at the
// last sample (the layout holds from there to the end of the run).
func SliceLayoutChart(s *Summary, layout []sim.LayoutSample) (*Chart, error) {
	c := &Chart{Name: SliceLayoutName, Height: 6.5 * vg.Inch}
	n := len(layout)
	slicesXY := make(plotter.XYs, n)
	minXY := make(plotter.XYs, n)
	medXY := make(plotter.XYs, n)
	maxXY := make(plotter.XYs, n)
	peakSlices, peakFill := 0.0, 0.0
	for i, l := range layout {
		x := l.At.Seconds()
		slicesXY[i] = plotter.XY{X: x, Y: float64(l.Slices)}
		minXY[i] = plotter.XY{X: x, Y: float64(l.Min)}
		medXY[i] = plotter.XY{X: x, Y: float64(l.Median)}
		maxXY[i] = plotter.XY{X: x, Y: float64(l.Max)}
		peakSlices, peakFill = max(peakSlices, float64(l.Slices)), max(peakFill, float64(l.Max))
	}
	c.Series = []ChartSeries{{"slices", slicesXY}, {"min", minXY}, {"median", medXY}, {"max", maxXY}}
	first, last := layout[0], layout[n-1]
	peak := ""
	if int(peakSlices) > max(first.Slices, last.Slices) {
		peak = fmt.Sprintf(" (peak %s)", formatCount(int64(peakSlices)))
	}
	fill := fmt.Sprintf("at the end %d–%d endpoints per slice, median %d", last.Min, last.Max, last.Median)
	if last.Min == last.Max {
		fill = "at the end every slice holds " + plural(last.Max, "endpoint")
	}
	c.Title = fmt.Sprintf("EndpointSlices: %s → %s slices%s; %s",
		formatCount(int64(first.Slices)), formatCount(int64(last.Slices)), peak, fill)
	c.Subtitle = "EndpointSlice count and endpoints per slice, all services, until the last change · " + runContext(s)
	end := max(last.At.Seconds(), 1e-3)
	count := c.newTimePlot(s, "EndpointSlices", end)
	perSlice := newChartPlot("virtual time", "endpoints per slice", phaseBands{phases: c.phases})
	perSlice.X.Min, perSlice.X.Max = 0, end
	perSlice.X.Tick.Marker = timeTicks{}
	st := modeStyles[sim.ModeEndpointSlices]
	if err := c.addSeriesLine(count, "EndpointSlices (top)", seriesStyle{color: st.color}, slicesXY, plotter.PostStep); err != nil {
		return nil, err
	}
	// The min–max range as a band, the median as a line on top.
	bandMin, bandMax := bandColumns(minXY, maxXY, end)
	band := stepPolygon(bandMin, bandMax, end)
	if len(band) >= 3 {
		poly, err := plotter.NewPolygon(band)
		if err != nil {
			return nil, fmt.Errorf("reports: slice-layout: %w", err)
		}
		poly.Color = okabeSkyBlue
		poly.LineStyle.Width = 0
		perSlice.Add(poly)
		c.addLegend("min–max endpoints per slice", poly)
	}
	if err := c.addSeriesLine(perSlice, "median endpoints per slice", seriesStyle{color: inkColor}, medXY, plotter.PostStep); err != nil {
		return nil, err
	}
	count.Y.Min, count.Y.Max = 0, linearTop(peakSlices)
	perSlice.Y.Min, perSlice.Y.Max = 0, linearTop(peakFill)
	count.Y.Tick.Marker, perSlice.Y.Tick.Marker = countTicks{}, countTicks{}
	c.Plots = [][]*plot.Plot{{count}, {perSlice}}
	return c, nil
}

// stepPolygon returns the polygon between the step lines lower and upper (same x), each
// value holding until the next sample and the last until end.
func stepPolygon(lower, upper plotter.XYs, end float64) plotter.XYs {
	var top, bottom plotter.XYs
	for i := range upper {
		next := end
		if i+1 < len(upper) {
			next = upper[i+1].X
		}
		top = append(top, plotter.XY{X: upper[i].X, Y: upper[i].Y}, plotter.XY{X: next, Y: upper[i].Y})
		bottom = append(bottom, plotter.XY{X: lower[i].X, Y: lower[i].Y}, plotter.XY{X: next, Y: lower[i].Y})
	}
	for i := len(bottom) - 1; i >= 0; i-- {
		top = append(top, bottom[i])
	}
	return top
}

func bucketMode(b sim.Bucket, m sim.Mode) sim.BucketMode {
	if m == sim.ModeEndpoints {
		return b.Endpoints
	}
	return b.EndpointSlices
}

// phaseTicks puts one tick per phase on a bar chart's x axis: the phase names when they fit
// under their slots, or numbers with the phase key. It returns the width of one slot.
func (c *Chart) phaseTicks(p *plot.Plot, s *Summary, names []string) vg.Length {
	slot := (chartWidth - 1.2*vg.Inch) / vg.Length(len(names))
	fit := true
	ticks := make([]plot.Tick, len(names))
	for i, n := range names {
		ticks[i] = plot.Tick{Value: float64(i), Label: n}
		fit = fit && p.X.Tick.Label.Width(n) <= slot*0.95
	}
	if !fit {
		for i := range ticks {
			ticks[i].Label = fmt.Sprint(i + 1)
		}
		p.X.Label.Text = "phase (numbered as in the key)"
		c.phases = runPhases(s)
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Tick.Length = 0
	return slot
}
