package reports

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ProgrammingChart draws network programming latency per phase and mode on a log scale: a
// vertical line from p50 to max, a dot at p99, and the SLO as a dashed line. It is the
// consumer-side companion of the propagation chart: what kube-proxy's
// kubeproxy_network_programming_duration_seconds (and clusterloader2's
// NetworkProgrammingLatency) would show.
func ProgrammingChart(s *Summary) (*Chart, error) {
	c := &Chart{Name: "programming-latency", Title: "Network programming latency per phase (p50–max, dot: p99)"}
	p := newPlot(s, c.Title, "phase", "seconds (log scale)", false)
	names := make([]string, len(s.Phases))
	for i, ph := range s.Phases {
		names[i] = ph.Name
	}
	if len(names) == 0 {
		names = []string{"(no phases)"}
	}
	p.NominalX(names...)
	lo, hi := math.Inf(1), 0.0
	for k, m := range s.Modes {
		offset := (float64(k) - float64(len(s.Modes)-1)/2) * 0.15
		var p50s, p99s, maxes plotter.XYs
		for i := range s.Phases {
			ms := s.Phases[i].Mode(m)
			if ms == nil || ms.Programming.Count == 0 || ms.Programming.P50Seconds <= 0 {
				continue
			}
			x := float64(i) + offset
			l := ms.Programming
			p50s = append(p50s, plotter.XY{X: x, Y: l.P50Seconds})
			p99s = append(p99s, plotter.XY{X: x, Y: l.P99Seconds})
			maxes = append(maxes, plotter.XY{X: x, Y: l.MaxSeconds})
			lo, hi = math.Min(lo, l.P50Seconds), math.Max(hi, l.MaxSeconds)
			line, err := plotter.NewLine(plotter.XYs{{X: x, Y: l.P50Seconds}, {X: x, Y: l.MaxSeconds}})
			if err != nil {
				return nil, fmt.Errorf("reports: programming chart: %w", err)
			}
			line.Color = modeColors[m]
			line.Width = vg.Points(2)
			p.Add(line)
		}
		c.Series = append(c.Series,
			ChartSeries{Name: string(m) + " p50", XYs: p50s},
			ChartSeries{Name: string(m) + " p99", XYs: p99s},
			ChartSeries{Name: string(m) + " max", XYs: maxes})
		if len(p99s) == 0 {
			continue
		}
		dots, err := plotter.NewScatter(p99s)
		if err != nil {
			return nil, fmt.Errorf("reports: programming chart: %w", err)
		}
		dots.Color = modeColors[m]
		dots.Radius = vg.Points(4)
		dots.Shape = draw.CircleGlyph{}
		p.Add(dots)
		p.Legend.Add(modeTitle(m)+" p99", dots)
	}
	if s.SLOSeconds > 0 {
		line := plotter.XYs{{X: -0.5, Y: s.SLOSeconds}, {X: float64(len(names)) - 0.5, Y: s.SLOSeconds}}
		if err := addStyledLine(p, fmt.Sprintf("SLO p99 %s", FormatSeconds(s.SLOSeconds)), color.Gray{Y: 90}, []vg.Length{vg.Points(6), vg.Points(3)}, line); err != nil {
			return nil, err
		}
		lo, hi = math.Min(lo, s.SLOSeconds), math.Max(hi, s.SLOSeconds)
	}
	if hi > 0 && lo > 0 && !math.IsInf(lo, 1) {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = secondsTicks{}
		p.Y.Min, p.Y.Max = lo/2, hi*2
	} else {
		p.Y.Min, p.Y.Max = 0, 1
	}
	c.Plots = [][]*plot.Plot{{p}}
	return c, nil
}

// secondsTicks labels a log axis of seconds as durations.
type secondsTicks struct{}

// Ticks implements plot.Ticker.
func (secondsTicks) Ticks(min, max float64) []plot.Tick {
	ticks := logTicks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = FormatSeconds(ticks[i].Value)
		}
	}
	return ticks
}
