package reports

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// ProgrammingChart draws network programming latency per phase and mode, in the house style:
// a vertical line from p50 to max, a marker at p99, the SLO as a labelled reference line,
// and a log scale when the latencies span decades. It is the consumer-side companion of the
// propagation chart: what kube-proxy's kubeproxy_network_programming_duration_seconds (and
// clusterloader2's NetworkProgrammingLatency) would show. Its title states each mode's
// largest phase p99: a percentile of the changes the representative kube-proxy programmed in
// that phase, not a bound for every node or change; the subtitle says what a sample is, and
// which phases missed the SLO.
func ProgrammingChart(s *Summary) (*Chart, error) {
	c := &Chart{Name: "programming-latency"}
	c.Title, c.Subtitle = programmingFinding(s)
	names := make([]string, len(s.Phases))
	for i, ph := range s.Phases {
		names[i] = ph.Name
	}
	if len(names) == 0 {
		names = []string{"(no phases)"}
	}
	p := newBarPlot("phase", "network programming latency")
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
	c.phaseTicks(p, s, names)

	type rangeOf struct{ p50, p99, max plotter.XYs }
	ranges := make([]rangeOf, len(s.Modes))
	lo, hi := math.Inf(1), 0.0
	for k, m := range s.Modes {
		offset := (float64(k) - float64(len(s.Modes)-1)/2) * 0.2
		for i := range s.Phases {
			ms := s.Phases[i].Mode(m)
			if ms == nil || ms.Programming.Count == 0 {
				continue
			}
			l, x := ms.Programming, float64(i)+offset
			ranges[k].p50 = append(ranges[k].p50, plotter.XY{X: x, Y: l.P50Seconds})
			ranges[k].p99 = append(ranges[k].p99, plotter.XY{X: x, Y: l.P99Seconds})
			ranges[k].max = append(ranges[k].max, plotter.XY{X: x, Y: l.MaxSeconds})
			if l.P50Seconds > 0 {
				lo = min(lo, l.P50Seconds)
			}
			hi = max(hi, l.MaxSeconds)
		}
		c.Series = append(c.Series,
			ChartSeries{Name: string(m) + " p50", XYs: ranges[k].p50},
			ChartSeries{Name: string(m) + " p99", XYs: ranges[k].p99},
			ChartSeries{Name: string(m) + " max", XYs: ranges[k].max})
	}
	top := max(hi, s.SLOSeconds)
	bottom := lo
	if s.SLOSeconds > 0 {
		bottom = min(bottom, s.SLOSeconds)
	}
	logScale := !math.IsInf(bottom, 1) && useLog(bottom, top)
	if logScale {
		p.Y.Scale = plot.LogScale{}
		p.Y.Min, p.Y.Max = logBounds(bottom, top, math.Inf(1))
		p.Y.Tick.Marker = siTicks{unit: "s", log: true}
		c.Subtitle = strings.Replace(c.Subtitle, scaleMark, " (log scale)", 1)
	} else {
		p.Y.Min, p.Y.Max = 0, linearTop(max(top, 1))
		p.Y.Tick.Marker = siTicks{unit: "s"}
	}
	c.Subtitle = strings.Replace(c.Subtitle, scaleMark, "", 1)
	floor := func(v float64) float64 { return max(v, p.Y.Min) } // a zero cannot sit on a log axis
	for k, m := range s.Modes {
		st := modeStyles[m]
		rg := ranges[k]
		for i := range rg.p99 {
			span := plotter.XYs{{X: rg.p50[i].X, Y: floor(rg.p50[i].Y)}, {X: rg.max[i].X, Y: floor(rg.max[i].Y)}}
			if err := c.addSeriesLine(p, "", seriesStyle{color: st.color}, span, plotter.NoStep); err != nil {
				return nil, err
			}
		}
		if len(rg.p99) == 0 {
			continue
		}
		dots := make(plotter.XYs, len(rg.p99))
		for i, pt := range rg.p99 {
			dots[i] = plotter.XY{X: pt.X, Y: floor(pt.Y)}
		}
		sc, err := plotter.NewScatter(dots)
		if err != nil {
			return nil, fmt.Errorf("reports: %s: %s: %w", c.Name, m, err)
		}
		sc.Color, sc.Shape, sc.Radius = st.color, st.glyph, vg.Points(3.5)
		p.Add(sc)
		c.addLegend(modeTitle(m)+" p99 (line: p50 to max)", sc)
	}
	if s.SLOSeconds > 0 {
		p.Add(refLine{y: s.SLOSeconds, label: "SLO p99 " + formatSI(s.SLOSeconds, "s")})
	}
	c.Plots = [][]*plot.Plot{{p}}
	return c, nil
}

// programmingFinding gives each mode's p99 in its worst phase and how many phases missed the
// SLO. The title was "Rules in place on every node within: … p99 up to …", which read as a
// bound for every node and change; it is a percentile of the changes of one phase.
func programmingFinding(s *Summary) (title, subtitle string) {
	var worst, missed []string
	for _, m := range s.Modes {
		p99, n, of := 0.0, 0, 0
		for i := range s.Phases {
			pm := s.Phases[i].Mode(m)
			if pm == nil || pm.Programming.Count == 0 {
				continue
			}
			p99 = max(p99, pm.Programming.P99Seconds)
			if pm.ProgrammingWithinSLO != nil {
				of++
				if !*pm.ProgrammingWithinSLO {
					n++
				}
			}
		}
		if of == 0 && p99 == 0 {
			continue
		}
		// As the table's "programming p99" row formats it (formatLatency), so that the two
		// read the same (formatClock's three digits made 1.935s "1.94s").
		worst = append(worst, fmt.Sprintf("%s %s", modeTitle(m), FormatSeconds(p99)))
		if s.SLOSeconds > 0 {
			missed = append(missed, fmt.Sprintf("%s in %d of %d", modeTitle(m), n, of))
		}
	}
	title = "Nothing programmed"
	if len(worst) > 0 {
		title = "Network programming latency p99, worst phase: " + strings.Join(worst, ", ")
	}
	subtitle = "Per phase, each change's latency from trigger to rules in place on a node" + scaleMark
	if len(missed) > 0 {
		subtitle += fmt.Sprintf(" · phases over the %s p99 SLO: %s", FormatSeconds(s.SLOSeconds), strings.Join(missed, ", "))
	}
	return title, subtitle + " · " + runContext(s)
}
