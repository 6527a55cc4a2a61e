package reports

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"epsim/sim"
)

// sliceStyles tell the EndpointSlice layouts of a plan apart: the first keeps the
// EndpointSlices blue, the rest follow the Okabe–Ito palette, each with its own glyph and
// dashes so they stay apart in greyscale (Endpoints keeps its orange circles).
var sliceStyles = []seriesStyle{
	{color: okabeBlue, dashes: []vg.Length{vg.Points(5), vg.Points(2)}, glyph: draw.TriangleGlyph{}},
	{color: okabeGreen, dashes: []vg.Length{vg.Points(2), vg.Points(2)}, glyph: draw.BoxGlyph{}},
	{color: okabePurple, dashes: []vg.Length{vg.Points(7), vg.Points(2), vg.Points(2), vg.Points(2)}, glyph: draw.PyramidGlyph{}},
	{color: okabeVermillion, dashes: []vg.Length{vg.Points(1), vg.Points(2)}, glyph: draw.CrossGlyph{}},
	{color: okabeSkyBlue, dashes: []vg.Length{vg.Points(8), vg.Points(3)}, glyph: draw.RingGlyph{}},
	{color: inkColor, dashes: []vg.Length{vg.Points(3), vg.Points(4)}, glyph: draw.PlusGlyph{}},
}

// planSeries is one line of a plan chart: a mode, and for EndpointSlices one
// maxEndpointsPerSlice.
type planSeries struct {
	mode     sim.Mode
	perSlice int
}

func (s planSeries) name() string {
	if s.mode == sim.ModeEndpoints {
		return "Endpoints"
	}
	return fmt.Sprintf("EndpointSlices, %d per slice", s.perSlice)
}

// short names the series in findings: "Endpoints", "100-endpoint slices".
func (s planSeries) short() string {
	if s.mode == sim.ModeEndpoints {
		return "Endpoints"
	}
	return fmt.Sprintf("%d-endpoint slices", s.perSlice)
}

// planLineSpec is one plan line chart: y against x, one line per planSeries.
type planLineSpec struct {
	name, what, xLabel, yLabel string
	x                          func(*PlanPoint) float64
	y                          func(*PlanPoint, sim.Mode) (float64, bool)
	logY                       bool
	unit                       string
	need                       func(*PlanPoint) bool
	// finding states the chart's point from its series (name → points).
	finding func(series []planSeries, lines []plotter.XYs) string
}

// PlanCharts builds the charts the grid allows: bytes fanned out per rollout against
// endpoints per service, per-node ingress against cluster size, and API writes against the
// batch period, each drawn when its x figure takes at least two values in the grid; and,
// when the grid varies only maxEndpointsPerSlice, the bytes fanned out per phase for each
// layout. Every chart has one series for Endpoints and one per maxEndpointsPerSlice. Where
// other axes vary too, each series keeps them at their first value (the point with the
// lowest index), and the subtitle names the values held.
func PlanCharts(r *PlanResults) ([]*Chart, error) {
	var charts []*Chart
	perDay := len(r.Plan.Churn) > 0
	for _, spec := range []planLineSpec{
		{
			name: "bytes-per-rollout", what: "Bytes fanned out per rolling update",
			xLabel: "endpoints per service", yLabel: "bytes fanned out per rollout",
			x: func(p *PlanPoint) float64 { return float64(p.EndpointsPerService) },
			y: func(p *PlanPoint, m sim.Mode) (float64, bool) {
				v, ok := p.rolloutBytes(m)
				return float64(v), ok && v > 0
			},
			logY: true, unit: "B",
			need: func(p *PlanPoint) bool { return p.RolloutPhase != "" },
			finding: func(series []planSeries, lines []plotter.XYs) string {
				return compareAtLargestX(series, lines, "At %s endpoints per service a rolling update fans out ")
			},
		},
		{
			name: "per-node-ingress", what: perNodeTitle(perDay),
			xLabel: "nodes", yLabel: "bytes per kube-proxy",
			x: func(p *PlanPoint) float64 { return float64(p.Nodes) },
			y: func(p *PlanPoint, m sim.Mode) (float64, bool) {
				if perDay {
					v, ok := p.perNodeBytesPerDay(r.Plan.Churn, m)
					return float64(v), ok && v > 0
				}
				ms := p.mode(m)
				if ms == nil {
					return 0, false
				}
				return float64(ms.PerNodeBytes), ms.PerNodeBytes > 0
			},
			logY: true, unit: "B",
			finding: func(series []planSeries, lines []plotter.XYs) string {
				phrase := "At %s nodes the ingress of each kube-proxy over the run is "
				if perDay {
					phrase = "At %s nodes the daily ingress of each kube-proxy is "
				}
				return compareAtLargestX(series, lines, phrase)
			},
		},
		{
			name: "writes-vs-batch-period", what: "API writes over the run against the batch period",
			xLabel: "batch period", yLabel: "API writes",
			x: func(p *PlanPoint) float64 { return p.BatchPeriodSeconds },
			y: func(p *PlanPoint, m sim.Mode) (float64, bool) {
				ms := p.mode(m)
				if ms == nil {
					return 0, false
				}
				return float64(ms.Writes.Total), true
			},
			finding: func(series []planSeries, lines []plotter.XYs) string {
				var parts []string
				lo, hi := math.Inf(1), math.Inf(-1)
				for k, s := range series {
					if n := len(lines[k]); n >= 2 {
						parts = append(parts, fmt.Sprintf("%s %s → %s", s.short(), countFormat(lines[k][0].Y), countFormat(lines[k][n-1].Y)))
						lo, hi = min(lo, lines[k][0].X), max(hi, lines[k][n-1].X)
					}
				}
				if len(parts) == 0 {
					return "API writes against the batch period"
				}
				return fmt.Sprintf("Batch period %s → %s, API writes: %s", formatClock(lo), formatClock(hi), strings.Join(parts, ", "))
			},
		},
	} {
		var xs []float64
		for i := range r.Points {
			p := &r.Points[i]
			if spec.need != nil && !spec.need(p) {
				continue
			}
			if x := spec.x(p); !slices.Contains(xs, x) {
				xs = append(xs, x)
			}
		}
		if len(xs) < 2 {
			continue
		}
		c, err := r.planChart(spec)
		if err != nil {
			return nil, err
		}
		charts = append(charts, c)
	}
	if r.onlyLayoutVaries() {
		c, err := r.planPhaseChart()
		if err != nil {
			return nil, err
		}
		if c != nil {
			charts = append(charts, c)
		}
	}
	return charts, nil
}

func perNodeTitle(perDay bool) string {
	if perDay {
		return "Ingress per node per day (phases weighed by the plan's churn)"
	}
	return "Ingress per node over the run"
}

// compareAtLargestX compares, at the largest x of the chart, Endpoints with the slice layout
// of the fewest: "At 1,600 endpoints per service a rolling update fans out 1.2 GB with
// Endpoints, 95 MB with 100-endpoint slices (13× less)". phrase has one %s, for x.
func compareAtLargestX(series []planSeries, lines []plotter.XYs, phrase string) string {
	xMax := math.Inf(-1)
	for _, l := range lines {
		for _, p := range l {
			xMax = max(xMax, p.X)
		}
	}
	at := func(k int) (float64, bool) {
		for _, p := range lines[k] {
			if p.X == xMax {
				return p.Y, true
			}
		}
		return 0, false
	}
	var e float64
	haveE := false
	best, bestK := math.Inf(1), -1
	for k, s := range series {
		v, ok := at(k)
		if !ok {
			continue
		}
		if s.mode == sim.ModeEndpoints {
			e, haveE = v, true
		} else if v < best {
			best, bestK = v, k
		}
	}
	if math.IsInf(xMax, 0) {
		return "No point of the plan ran"
	}
	out := fmt.Sprintf(phrase, formatCount(int64(xMax)))
	switch {
	case haveE && bestK >= 0:
		out += fmt.Sprintf("%s with Endpoints, %s with %s", FormatBytes(int64(e)), FormatBytes(int64(best)), series[bestK].short())
		if best > 0 && e > 0 {
			if e >= best {
				out += " (" + FormatRatio(e/best, true) + " less)"
			} else {
				out += " (" + FormatRatio(best/e, true) + " more)"
			}
		}
	case haveE:
		out += FormatBytes(int64(e)) + " with Endpoints"
	case bestK >= 0:
		out += FormatBytes(int64(best)) + " with " + series[bestK].short()
	}
	return out
}

// chosenPoints returns, for series s, the lowest-index point of each x (other axes at their
// first value), and the xs in ascending order.
func (r *PlanResults) chosenPoints(s planSeries, xOf func(*PlanPoint) float64, need func(*PlanPoint) bool) (map[float64]*PlanPoint, []float64) {
	chosen := map[float64]*PlanPoint{}
	var xs []float64
	for i := range r.Points {
		pt := &r.Points[i]
		if s.mode == sim.ModeEndpointSlices && pt.MaxEndpointsPerSlice != s.perSlice {
			continue
		}
		if need != nil && !need(pt) {
			continue
		}
		x := xOf(pt)
		if _, ok := chosen[x]; ok {
			continue
		}
		chosen[x] = pt
		xs = append(xs, x)
	}
	slices.Sort(xs)
	return chosen, xs
}

// planSubtitle says what is plotted, which values the other axes are held at and the plan.
func (r *PlanResults) planSubtitle(what string, xOf func(*PlanPoint) float64, used []*PlanPoint) string {
	parts := []string{what}
	if held := r.heldAxes(xOf, used); held != "" {
		parts = append(parts, held)
	}
	parts = append(parts, fmt.Sprintf("plan %s, %s", r.Plan.Name, plural(r.Plan.GridPoints, "grid point")))
	return strings.Join(parts, " · ")
}

// heldAxes names the grid axes a chart holds fixed (neither its x nor the slice size) with
// the value its points have, and the cluster facts that are the same at every plotted point:
// "batch period held at 0, 100 nodes".
func (r *PlanResults) heldAxes(xOf func(*PlanPoint) float64, used []*PlanPoint) string {
	xAxes := r.axesAffecting(func(p *PlanPoint) int { return int(math.Float64bits(xOf(p)) >> 1) })
	sliceAxes := r.axesAffecting(func(p *PlanPoint) int { return p.MaxEndpointsPerSlice })
	var held []string
	for a, ax := range r.Plan.Axes {
		if xAxes[a] || sliceAxes[a] || len(ax.Values) < 2 {
			continue
		}
		v, same := "", true
		for i, p := range used {
			if a >= len(p.Values) {
				continue
			}
			if i == 0 {
				v = p.Values[a]
			} else if p.Values[a] != v {
				same = false
			}
		}
		if same && v != "" {
			held = append(held, fmt.Sprintf("%s held at %s", ax.Name, v))
		}
	}
	same := func(f func(*PlanPoint) int) (int, bool) {
		if len(used) == 0 {
			return 0, false
		}
		v := f(used[0])
		for _, p := range used[1:] {
			if f(p) != v {
				return 0, false
			}
		}
		return v, true
	}
	if n, ok := same(func(p *PlanPoint) int { return p.Nodes }); ok && !r.axisNamed(held, "nodes") {
		held = append(held, plural(n, "node"))
	}
	if n, ok := same(func(p *PlanPoint) int { return p.EndpointsPerService }); ok {
		if lo, ok := same(func(p *PlanPoint) int { return p.SmallestService }); ok && used[0].MixedSizes {
			held = append(held, serviceSizeText(n, true, lo)+" endpoints per service")
		} else {
			held = append(held, counted(int64(n), "endpoint per service", "endpoints per service"))
		}
	}
	return strings.Join(held, ", ")
}

func (r *PlanResults) axisNamed(held []string, word string) bool {
	for _, h := range held {
		if strings.HasPrefix(h, word) {
			return true
		}
	}
	return false
}

// planChart draws y against x with one line per planSeries.
func (r *PlanResults) planChart(spec planLineSpec) (*Chart, error) {
	c := &Chart{Name: spec.name}
	series := r.chartSeries()
	lines := make([]plotter.XYs, len(series))
	var used []*PlanPoint
	minX, maxX, minY, maxY := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for k, s := range series {
		chosen, xs := r.chosenPoints(s, spec.x, spec.need)
		for _, x := range xs {
			if y, ok := spec.y(chosen[x], s.mode); ok {
				lines[k] = append(lines[k], plotter.XY{X: x, Y: y})
				used = append(used, chosen[x])
				minX, maxX, minY, maxY = math.Min(minX, x), math.Max(maxX, x), math.Min(minY, y), math.Max(maxY, y)
			}
		}
		c.Series = append(c.Series, ChartSeries{Name: s.name(), XYs: lines[k]})
	}
	c.Title = spec.finding(series, lines)
	c.Subtitle = r.planSubtitle(spec.what, spec.x, used)
	p := newChartPlot(spec.xLabel, spec.yLabel)
	for k, s := range series {
		if len(lines[k]) == 0 {
			continue
		}
		st := modeStyles[sim.ModeEndpoints]
		if s.mode == sim.ModeEndpointSlices {
			st = sliceStyles[(k-1)%len(sliceStyles)]
		}
		l, pts, err := plotter.NewLinePoints(lines[k])
		if err != nil {
			return nil, fmt.Errorf("reports: %s: %w", spec.name, err)
		}
		l.Color, l.Width, l.Dashes = st.color, vg.Points(lineWidth), st.dashes
		pts.Color, pts.Shape, pts.Radius = st.color, st.glyph, vg.Points(3)
		p.Add(l, pts)
		c.addLegend(s.name(), l, pts)
	}
	if math.IsInf(minX, 0) {
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
		c.Plots = [][]*plot.Plot{{p}}
		return c, nil
	}
	// The x axis runs from the first grid value to the last (the glyphs get room from the
	// plot's padding, so the last marker is whole).
	p.X.Min, p.X.Max = minX, maxX
	switch {
	case minX > 0 && maxX/minX >= 10:
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = gridTicks{values: gridXs(lines), format: countsFormat(maxX)}
	case spec.name == "writes-vs-batch-period":
		p.X.Tick.Marker = gridTicks{values: gridXs(lines), format: formatClock}
	default:
		p.X.Tick.Marker = gridTicks{values: gridXs(lines), format: countsFormat(maxX)}
	}
	if spec.logY && minY > 0 && useLog(minY, maxY) {
		p.Y.Scale = plot.LogScale{}
		p.Y.Min, p.Y.Max = logBounds(minY, maxY, 1e9)
		p.Y.Tick.Marker = siTicks{unit: spec.unit, log: true}
	} else {
		p.Y.Min, p.Y.Max = 0, linearTop(math.Max(maxY, 1))
		p.Y.Tick.Marker = siTicks{unit: spec.unit}
		if spec.unit == "" {
			p.Y.Tick.Marker = countTicks{}
		}
	}
	_, logX := p.X.Scale.(plot.LogScale)
	_, logY := p.Y.Scale.(plot.LogScale)
	switch {
	case logX && logY:
		c.Subtitle = strings.Replace(c.Subtitle, " · ", ", log scales · ", 1)
	case logX:
		c.Subtitle = strings.Replace(c.Subtitle, " · ", ", log x scale · ", 1)
	case logY:
		c.Subtitle = strings.Replace(c.Subtitle, " · ", ", log y scale · ", 1)
	}
	c.Plots = [][]*plot.Plot{{p}}
	return c, nil
}

// gridXs are the distinct xs of the lines, ascending.
func gridXs(lines []plotter.XYs) []float64 {
	var xs []float64
	for _, l := range lines {
		for _, p := range l {
			if !slices.Contains(xs, p.X) {
				xs = append(xs, p.X)
			}
		}
	}
	slices.Sort(xs)
	return xs
}

// gridTicks labels an x axis at the grid's own values (the only xs with data).
// countsFormat formats the count ticks of an axis up to largest in one style, as countTicks
// does: all with thousands separators, or all in SI when one is 10,000 or more (a grid of
// 3,000, 6,000 and 10,000 nodes read "3,000", "6,000", "10k").
func countsFormat(largest float64) func(float64) string {
	if math.Abs(largest) >= 10000 {
		return func(v float64) string { return formatSI(v, "") }
	}
	return func(v float64) string { return formatCount(int64(math.Round(v))) }
}

type gridTicks struct {
	values []float64
	format func(float64) string
}

// Ticks implements plot.Ticker.
func (t gridTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for _, v := range t.values {
		if v >= lo && v <= hi {
			ticks = append(ticks, plot.Tick{Value: v, Label: t.format(v)})
		}
	}
	return ticks
}

// onlyLayoutVaries says whether every grid axis changes maxEndpointsPerSlice (as in
// kep-752, whose grid is the slice size alone), so no line chart has an x to draw against.
func (r *PlanResults) onlyLayoutVaries() bool {
	if len(r.Plan.Axes) == 0 {
		return false
	}
	for a, affects := range r.axesAffecting(func(p *PlanPoint) int { return p.MaxEndpointsPerSlice }) {
		if !affects && len(r.Plan.Axes[a].Values) > 1 {
			return false
		}
	}
	return true
}

// planPhaseChart draws the bytes fanned out in each phase for Endpoints and each slice size
// side by side, on a log scale, each bar labelled with its value.
func (r *PlanResults) planPhaseChart() (*Chart, error) {
	series := r.chartSeries()
	var phases []PhaseSummary
	var used []*PlanPoint
	points := make([]*PlanPoint, len(series))
	for k, s := range series {
		for i := range r.Points {
			pt := &r.Points[i]
			if pt.ok() && (s.mode == sim.ModeEndpoints || pt.MaxEndpointsPerSlice == s.perSlice) && pt.Summary.Total.Mode(s.mode) != nil {
				points[k] = pt
				used = append(used, pt)
				if phases == nil {
					phases = pt.Summary.Phases
				}
				break
			}
		}
	}
	if len(phases) == 0 {
		return nil, nil
	}
	c := &Chart{Name: "bytes-per-phase"}
	bars := &groupBars{format: func(v float64) string { return FormatBytes(int64(v)) }}
	lo, hi := math.Inf(1), 0.0
	names := make([]string, len(phases))
	for i, ph := range phases {
		names[i] = ph.Name
	}
	values := make([][]float64, len(series))
	for k, s := range series {
		values[k] = make([]float64, len(phases))
		xys := make(plotter.XYs, len(phases))
		if pt := points[k]; pt != nil {
			for i := range phases {
				if ph := pt.phase(phases[i].Name); ph != nil && ph.Mode(s.mode) != nil {
					values[k][i] = float64(ph.Mode(s.mode).FanoutBytes)
				}
				xys[i] = plotter.XY{X: float64(i), Y: values[k][i]}
				if values[k][i] > 0 {
					lo, hi = min(lo, values[k][i]), max(hi, values[k][i])
				}
			}
		}
		c.Series = append(c.Series, ChartSeries{Name: s.name(), XYs: xys})
		st := modeStyles[sim.ModeEndpoints]
		if s.mode == sim.ModeEndpointSlices {
			st = sliceStyles[(k-1)%len(sliceStyles)]
		}
		bars.series = append(bars.series, barSeries{name: s.name(), st: st, values: values[k]})
		c.addLegend(s.name(), barThumb{color: st.color})
	}
	// The finding: the phase where Endpoints fan out the most, against each slice size.
	top := 0
	for i := range phases {
		if values[0][i] > values[0][top] {
			top = i
		}
	}
	var parts []string
	for k, s := range series {
		v := values[k][top]
		part := fmt.Sprintf("%s fan out %s", s.short(), FormatBytes(int64(v)))
		if k > 0 {
			part = fmt.Sprintf("%s %s", s.short(), FormatBytes(int64(v)))
		}
		if e := values[0][top]; k > 0 && e > 0 && v > 0 && series[0].mode == sim.ModeEndpoints {
			if v <= e {
				part += " (" + FormatRatio(e/v, true) + " less)"
			} else {
				part += " (" + FormatRatio(v/e, true) + " more)"
			}
		}
		parts = append(parts, part)
	}
	c.Title = fmt.Sprintf("In %s: %s", phases[top].Name, strings.Join(parts, ", "))
	c.Subtitle = r.planSubtitle("Bytes fanned out per phase and layout, log scale", func(*PlanPoint) float64 { return 0 }, used)

	p := newBarPlot("phase", "bytes fanned out")
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
	ticks := make([]plot.Tick, len(names))
	for i, n := range names {
		ticks[i] = plot.Tick{Value: float64(i), Label: n}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Tick.Length = 0
	slot := (chartWidth - 1.2*vg.Inch) / vg.Length(len(names))
	barW := slot * barGroupFraction / vg.Length(len(series))
	widest := vg.Length(0)
	for _, sr := range bars.series {
		for _, v := range sr.values {
			widest = max(widest, annotateStyle.Width(bars.format(v)))
		}
	}
	bars.labelValues = widest <= barW
	if hi > 0 {
		p.Y.Scale = plot.LogScale{}
		p.Y.Min, _ = logBounds(lo/3, hi, math.Inf(1)) // every bar stays visible
		p.Y.Max = hi
		p.Y.Tick.Marker = siTicks{unit: "B", log: true}
	} else {
		p.Y.Min, p.Y.Max = 0, 1
	}
	p.Add(bars)
	c.Plots = [][]*plot.Plot{{p}}
	return c, nil
}

// chartSeries lists Endpoints (when it ran anywhere) and every maxEndpointsPerSlice of the
// grid, ascending.
func (r *PlanResults) chartSeries() []planSeries {
	out := []planSeries{{mode: sim.ModeEndpoints}}
	var per []int
	for i := range r.Points {
		if v := r.Points[i].MaxEndpointsPerSlice; !slices.Contains(per, v) {
			per = append(per, v)
		}
	}
	slices.Sort(per)
	for _, v := range per {
		out = append(out, planSeries{mode: sim.ModeEndpointSlices, perSlice: v})
	}
	return out
}
