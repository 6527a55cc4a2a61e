package reports

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"epsim/sim"
)

// sliceColors tell the EndpointSlice layouts apart (the Endpoints line keeps its red).
var sliceColors = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
	color.RGBA{R: 0x17, G: 0xbe, B: 0xcf, A: 0xff},
	color.RGBA{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff},
	color.RGBA{R: 0xbc, G: 0xbd, B: 0x22, A: 0xff},
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

// PlanCharts builds the charts the grid allows: bytes fanned out per rollout against
// endpoints per service, per-node ingress against cluster size, and API writes against the
// batch period. A chart is drawn when its x figure takes at least two values in the grid;
// every chart has one line for Endpoints and one per maxEndpointsPerSlice. Where other axes
// vary too, each line keeps them at their first value (the point with the lowest index).
func PlanCharts(r *PlanResults) ([]*Chart, error) {
	var charts []*Chart
	perDay := len(r.Plan.Churn) > 0
	for _, spec := range []struct {
		name, title, xLabel, yLabel string
		x                           func(*PlanPoint) float64
		y                           func(*PlanPoint, sim.Mode) (float64, bool)
		logY                        bool
		ticks                       func(int64) string
		need                        func(*PlanPoint) bool
	}{
		{
			name: "bytes-per-rollout", title: "Bytes fanned out per rolling update",
			xLabel: "endpoints per service", yLabel: "bytes fanned out (log scale, SI)",
			x: func(p *PlanPoint) float64 { return float64(p.EndpointsPerService) },
			y: func(p *PlanPoint, m sim.Mode) (float64, bool) {
				v, ok := p.rolloutBytes(m)
				return float64(v), ok && v > 0
			},
			logY: true, ticks: FormatBytes,
			need: func(p *PlanPoint) bool { return p.RolloutPhase != "" },
		},
		{
			name: "per-node-ingress", title: perNodeTitle(perDay),
			xLabel: "nodes", yLabel: "bytes per kube-proxy (log scale, SI)",
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
			logY: true, ticks: FormatBytes,
		},
		{
			name: "writes-vs-batch-period", title: "API writes over the run against the batch period",
			xLabel: "batch period (s)", yLabel: "API writes",
			x: func(p *PlanPoint) float64 { return p.BatchPeriodSeconds },
			y: func(p *PlanPoint, m sim.Mode) (float64, bool) {
				ms := p.mode(m)
				if ms == nil {
					return 0, false
				}
				return float64(ms.Writes.Total), true
			},
			ticks: formatCount,
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
		c, err := r.planChart(spec.name, spec.title, spec.xLabel, spec.yLabel, spec.x, spec.y, spec.logY, spec.ticks)
		if err != nil {
			return nil, err
		}
		charts = append(charts, c)
	}
	return charts, nil
}

func perNodeTitle(perDay bool) string {
	if perDay {
		return "Ingress per node per day (phases weighed by the plan's churn)"
	}
	return "Ingress per node over the run"
}

// planChart draws y against x with one line per planSeries.
func (r *PlanResults) planChart(name, title, xLabel, yLabel string, xOf func(*PlanPoint) float64,
	yOf func(*PlanPoint, sim.Mode) (float64, bool), logY bool, ticks func(int64) string) (*Chart, error) {
	c := &Chart{Name: name, Title: title}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s\nplan %s, %d grid points", title, r.Plan.Name, r.Plan.GridPoints)
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())

	series := r.chartSeries()
	minX, maxX, minY, maxY := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for k, s := range series {
		// For each x, the lowest-index point of this series (other axes at their first value).
		chosen := map[float64]*PlanPoint{}
		var xs []float64
		for i := range r.Points {
			pt := &r.Points[i]
			if s.mode == sim.ModeEndpointSlices && pt.MaxEndpointsPerSlice != s.perSlice {
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
		var xys plotter.XYs
		for _, x := range xs {
			if y, ok := yOf(chosen[x], s.mode); ok {
				xys = append(xys, plotter.XY{X: x, Y: y})
				minX, maxX, minY, maxY = math.Min(minX, x), math.Max(maxX, x), math.Min(minY, y), math.Max(maxY, y)
			}
		}
		c.Series = append(c.Series, ChartSeries{Name: s.name(), XYs: xys})
		if len(xys) == 0 {
			continue
		}
		clr := modeColors[sim.ModeEndpoints]
		var dashes []vg.Length
		if s.mode == sim.ModeEndpointSlices {
			clr = sliceColors[(k-1)%len(sliceColors)]
		} else {
			dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("reports: %s: %w", name, err)
		}
		l.Color, l.Width, l.Dashes = clr, vg.Points(1.5), dashes
		pts.Color, pts.Shape = clr, draw.CircleGlyph{}
		pts.Radius = vg.Points(2.5)
		p.Add(l, pts)
		p.Legend.Add(s.name(), l, pts)
	}
	if math.IsInf(minX, 0) {
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	} else {
		if minX > 0 && maxX/minX >= 10 {
			p.X.Scale = plot.LogScale{}
			p.X.Tick.Marker = logCountTicks{}
		} else {
			p.X.Tick.Marker = countTicks{format: func(n int64) string { return formatCount(n) }}
		}
		if logY && minY > 0 {
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = byteTicks{log: true}
			// Room above the lines for the legend.
			p.Y.Max = maxY * math.Pow(maxY/minY, 0.6) * 2
			p.Y.Min = minY / 2
		} else {
			p.Y.Min = 0
			p.Y.Max = math.Max(maxY*1.6, 1)
			p.Y.Tick.Marker = countTicks{format: ticks}
		}
		if name == "writes-vs-batch-period" {
			p.X.Tick.Marker = plot.DefaultTicks{}
		}
	}
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

// logCountTicks labels a logarithmic count axis.
type logCountTicks struct{}

// Ticks implements plot.Ticker.
func (logCountTicks) Ticks(min, max float64) []plot.Tick {
	ticks := logTicks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = formatCount(int64(math.Round(ticks[i].Value)))
		}
	}
	return ticks
}
