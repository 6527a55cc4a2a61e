package reports

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"epsim/sim"
)

// layoutOf lays c out on a canvas of its own size and returns where everything went.
func layoutOf(c *Chart) chartLayout {
	return c.draw(draw.New(vgimg.New(chartWidth, c.height())))
}

func overlaps(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

func inside(inner, outer vg.Rectangle) bool {
	const eps = 1e-6
	return inner.Min.X >= outer.Min.X-eps && inner.Max.X <= outer.Max.X+eps && inner.Min.Y >= outer.Min.Y-eps && inner.Max.Y <= outer.Max.Y+eps
}

// withPhases returns the fixture run with its timeline replaced by phases of the given
// lengths (seconds), each phase carrying the fixture's create-phase figures, and a series
// with traffic in every second.
func withPhases(lengths []float64) *sim.Results {
	res := fixtureResults()
	template := res.Phases[0]
	res.Phases = nil
	start := 0.0
	for i, l := range lengths {
		ph := template
		ph.Name = fmt.Sprintf("phase-with-a-long-name-%d", i+1)
		ph.Start, ph.End = sim.Time(start*1e9), sim.Time((start+l)*1e9)
		res.Phases = append(res.Phases, ph)
		start += l
	}
	res.EndTime = sim.Time(start * 1e9)
	res.Series = nil
	for s := int64(0); float64(s) < start; s++ {
		res.Series = append(res.Series, sim.Bucket{Second: s,
			Endpoints:      sim.BucketMode{Writes: 1, FanoutBytes: 1_000_000 * (1 + s%5), MaxLatencySeconds: 2},
			EndpointSlices: sim.BucketMode{Writes: 1, FanoutBytes: 20_000 * (1 + s%3), MaxLatencySeconds: 0.05}})
	}
	return res
}

// adversarialPhases are timelines whose phase labels would pile up if drawn at their phases:
// the case (a long phase, then three short ones), many zero-length phases at one
// instant, short phases at both ends, forty alternating long and tiny phases, and sixty
// one-second phases in a long run.
var adversarialPhases = map[string][]float64{
	"issue-410s":      {410, 1.7, 13, 800},
	"zero-length":     {100, 0, 0, 0, 0, 0, 0, 0, 100},
	"short-at-edges":  {0.1, 0.2, 0.1, 1000, 0.1, 0.3, 0.1},
	"alternating-40":  slices.Repeat([]float64{300, 0.5}, 20),
	"one-second-60":   append(slices.Repeat([]float64{1}, 60), 5000),
	"one-phase":       {60},
	"equal-twelve":    slices.Repeat([]float64{30}, 12),
	"last-is-instant": {500, 0},
}

// TestPhaseMarkersNeverOverlap: for every adversarial timeline, each time chart numbers
// every phase once, above the data area and inside the chart; no two numbers overlap; the
// key items overlap neither each other nor the panels; the legend stays off the data.
func TestPhaseMarkersNeverOverlap(t *testing.T) {
	for name, lengths := range adversarialPhases {
		t.Run(name, func(t *testing.T) {
			res := withPhases(lengths)
			s := NewSummary(res, nil)
			charts, err := Charts(s, res.Series, res.Layout)
			if err != nil {
				t.Fatal(err)
			}
			canvas := vg.Rectangle{Max: vg.Point{X: chartWidth, Y: chartHeight}}
			for _, c := range charts {
				if c.Name == "slice-layout" {
					continue // its time axis ends at the last layout sample
				}
				canvas.Max.Y = c.height()
				lay := layoutOf(c)
				if c.markers && len(lay.markers) != len(lengths) {
					t.Errorf("%s: %d phase markers for %d phases", c.Name, len(lay.markers), len(lengths))
				}
				for i, a := range lay.markers {
					if !inside(a, canvas) {
						t.Errorf("%s: marker %d %v is outside the chart", c.Name, i+1, a)
					}
					if a.Min.Y < lay.data[0].Max.Y {
						t.Errorf("%s: marker %d %v is not above the data area %v", c.Name, i+1, a, lay.data[0])
					}
					for j, b := range lay.markers[i+1:] {
						if overlaps(a, b) {
							t.Errorf("%s: markers %d %v and %d %v overlap", c.Name, i+1, a, i+j+2, b)
						}
					}
				}
				for i, a := range lay.key {
					if overlaps(a, lay.plots) {
						t.Errorf("%s: key item %d %v overlaps the panels %v", c.Name, i+1, a, lay.plots)
					}
					for j, b := range lay.key[i+1:] {
						if overlaps(a, b) {
							t.Errorf("%s: key items %d and %d overlap", c.Name, i+1, i+j+2)
						}
					}
				}
				for _, l := range lay.legend {
					for _, d := range lay.data {
						if overlaps(l, d) {
							t.Errorf("%s: legend item %v covers the data area %v", c.Name, l, d)
						}
					}
				}
			}
		})
	}
}

// TestPlaceRow: labels keep their order, keep gap between them, stay in bounds, and sit on
// their anchors when there is room.
func TestPlaceRow(t *testing.T) {
	for _, tc := range []struct {
		name            string
		anchors, widths []float64
		lo, hi          float64
		fits            bool
	}{
		{"room", []float64{10, 50, 90}, []float64{5, 5, 5}, 0, 100, true},
		{"same anchor", []float64{50, 50, 50, 50}, []float64{6, 6, 6, 6}, 0, 100, true},
		{"piled at the right edge", []float64{99, 99.5, 100, 100}, []float64{8, 8, 8, 8}, 0, 100, true},
		{"piled at the left edge", []float64{0, 0, 0.5}, []float64{8, 8, 8}, 0, 100, true},
		{"too many", slices.Repeat([]float64{50}, 20), slices.Repeat([]float64{8}, 20), 0, 100, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			left, ok := placeRow(tc.anchors, tc.widths, 2, tc.lo, tc.hi)
			if ok != tc.fits {
				t.Fatalf("fits = %v, want %v", ok, tc.fits)
			}
			if !ok {
				return
			}
			for i := range left {
				if left[i] < tc.lo-1e-9 || left[i]+tc.widths[i] > tc.hi+1e-9 {
					t.Errorf("label %d at [%g, %g] is outside [%g, %g]", i, left[i], left[i]+tc.widths[i], tc.lo, tc.hi)
				}
				if i > 0 && left[i] < left[i-1]+tc.widths[i-1]+2-1e-9 {
					t.Errorf("labels %d and %d are closer than the gap: %v", i-1, i, left)
				}
			}
			if tc.name == "room" {
				for i := range left {
					if c := left[i] + tc.widths[i]/2; c != tc.anchors[i] {
						t.Errorf("label %d centred at %g, want its anchor %g", i, c, tc.anchors[i])
					}
				}
			}
		})
	}
}

// TestAxesEndAtData: a time axis runs from 0 to the end of the run (or of the data, if
// later), the slice layout's to its last sample, a bar chart's value axis to its tallest
// bar and a plan chart's x axis from the first grid value to the last; a y axis of lines
// ends above the data but within one 1-2-5 step of it, so the data never touches the edge
// and no empty decade is left.
func TestAxesEndAtData(t *testing.T) {
	// Nine decades between the bars: 106.5 TB of Endpoints beside 74.3 MB of EndpointSlices
	// (5000-nodes' rollout and single-endpoint phases).
	decades := fixtureResults()
	decades.Phases[1].EndpointSlices.FanoutBytes = 74_300_000
	decades.Phases[2].Endpoints.FanoutBytes = 106_500_000_000_000
	// And seconds of EndpointSlice traffic seven decades below the Endpoints ones.
	for i := range decades.Series {
		decades.Series[i].EndpointSlices.FanoutBytes = 1000
	}
	for _, res := range []*sim.Results{fixtureResults(), withPhases([]float64{12, 0.4, 11, 20}), decades} {
		checkAxesEndAtData(t, res)
	}
}

func checkAxesEndAtData(t *testing.T, res *sim.Results) {
	t.Helper()
	s := NewSummary(res, nil)
	charts, err := Charts(s, res.Series, res.Layout)
	if err != nil {
		t.Fatal(err)
	}
	plans, err := PlanCharts(fixturePlan())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range append(charts, plans...) {
		p := c.Plots[0][0]
		xMax, yMax, yMin := math.Inf(-1), math.Inf(-1), math.Inf(1)
		for _, sr := range c.Series {
			for _, pt := range sr.XYs {
				xMax, yMax = max(xMax, pt.X), max(yMax, pt.Y)
				if pt.Y > 0 {
					yMin = min(yMin, pt.Y)
				}
			}
		}
		_, logY := p.Y.Scale.(plot.LogScale)
		switch c.Name {
		case "cumulative-fanout", "egress-rate", "propagation-latency":
			// The series runs to the end of the run (its last phase's end), quiet or not.
			want := max(s.EndTimeSeconds, xMax)
			if c.Name != "cumulative-fanout" {
				want = max(s.EndTimeSeconds, math.Ceil(s.Total.EndSeconds), xMax+1) // per-second buckets end a second later
			}
			if p.X.Min != 0 || p.X.Max != want {
				t.Errorf("%s: x axis [%g, %g], want [0, %g]", c.Name, p.X.Min, p.X.Max, want)
			}
		case "slice-layout":
			last := res.Layout[len(res.Layout)-1].At.Seconds()
			for _, panel := range c.Plots {
				if panel[0].X.Min != 0 || panel[0].X.Max != last {
					t.Errorf("%s: x axis [%g, %g], want [0, %g]", c.Name, panel[0].X.Min, panel[0].X.Max, last)
				}
			}
			continue
		case HeadlineChartName, "phases-writes":
			if p.Y.Max != yMax {
				t.Errorf("%s: y axis ends at %g, want the tallest bar %g", c.Name, p.Y.Max, yMax)
			}
			if p.Y.Min >= yMin {
				t.Errorf("%s: y axis starts at %g, hiding the smallest bar %g", c.Name, p.Y.Min, yMin)
			}
			continue
		default: // plan charts
			xMin := math.Inf(1)
			for _, sr := range c.Series {
				for _, pt := range sr.XYs {
					xMin = min(xMin, pt.X)
				}
			}
			if p.X.Min != xMin || p.X.Max != xMax {
				t.Errorf("%s: x axis [%g, %g], want the grid's [%g, %g]", c.Name, p.X.Min, p.X.Max, xMin, xMax)
			}
		}
		if c.Name == "propagation-latency" || c.Name == "egress-rate" {
			// Reference lines (SLO, capacity) are part of the range.
			yMax = max(yMax, s.SLOSeconds, float64(s.EgressCapacityBytesPerSec))
		}
		if yMax <= 0 {
			if p.Y.Max <= 0 {
				t.Errorf("%s: y axis ends at %g", c.Name, p.Y.Max)
			}
			continue // nothing to end at (the fixture's series has no latencies)
		}
		if p.Y.Max <= yMax || p.Y.Max > 2.5*yMax {
			t.Errorf("%s: y axis ends at %g for data up to %g, want just above it", c.Name, p.Y.Max, yMax)
		}
		if logY && (p.Y.Min > yMin || p.Y.Min <= 0) && c.Name != "cumulative-fanout" && c.Name != "egress-rate" {
			t.Errorf("%s: log y axis starts at %g, above the smallest value %g", c.Name, p.Y.Min, yMin)
		}
		// Every series' peak is well above the bottom of a log axis (two decades for the
		// lines that may start lower).
		for _, sr := range c.Series {
			peak := 0.0
			for _, pt := range sr.XYs {
				peak = max(peak, pt.Y)
			}
			timeLine := c.Name == "cumulative-fanout" || c.Name == "egress-rate"
			if timeLine && logY && peak > 0 && peak < 100*p.Y.Min && p.Y.Min > yMin {
				t.Errorf("%s: %s peaks at %g, within two decades of the axis bottom %g", c.Name, sr.Name, peak, p.Y.Min)
			}
		}
	}
}

var trailingZero = regexp.MustCompile(`\.\d*0(\D|$)|\d\.(\D|$)|\de[+-]?\d`)

// TestTickLabelsHaveNoTrailingZeros: every labelled tick of every axis of every chart (run
// and plan) reads like "250 GB", "1.5 TB", "20k", "5m", never "250.00", "2.50" or "1e+09".
func TestTickLabelsHaveNoTrailingZeros(t *testing.T) {
	res := fixtureResults()
	charts, err := Charts(NewSummary(res, nil), res.Series, res.Layout)
	if err != nil {
		t.Fatal(err)
	}
	plans, err := PlanCharts(fixturePlan())
	if err != nil {
		t.Fatal(err)
	}
	quick := withPhases([]float64{12, 0.4, 11, 20})
	more, err := Charts(NewSummary(quick, nil), quick.Series, quick.Layout)
	if err != nil {
		t.Fatal(err)
	}
	labelled := 0
	for _, c := range slices.Concat(charts, plans, more) {
		for _, row := range c.Plots {
			for _, p := range row {
				for _, ax := range []*plot.Axis{&p.X, &p.Y} {
					for _, tk := range ax.Tick.Marker.Ticks(ax.Min, ax.Max) {
						if tk.Label == "" {
							continue
						}
						labelled++
						if trailingZero.MatchString(tk.Label) {
							t.Errorf("%s: tick label %q has a trailing zero or exponent", c.Name, tk.Label)
						}
					}
				}
			}
		}
	}
	if labelled < 20 {
		t.Errorf("only %d labelled ticks checked", labelled)
	}
}

func TestFormatSI(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		unit string
		want string
	}{
		{0, "B", "0 B"},
		{250, "B", "250 B"},
		{1000, "B", "1 KB"},
		{1e5, "B/s", "100 KB/s"}, // zone-outage's egress-rate axis read "100 kB/s"
		{2.5e9, "B", "2.5 GB"},
		{250e9, "B", "250 GB"},
		{1.5e12, "B", "1.5 TB"},
		{999.6e3, "B", "1 MB"},
		{1.25e9, "B/s", "1.25 GB/s"},
		{20000, "", "20k"},
		{0.025, "s", "25 ms"},
		{0.5, "s", "500 ms"},
		{30, "s", "30 s"},
		{1000, "s", "1000 s"},
		{-2e6, "B", "-2 MB"},
	} {
		if got := formatSI(tc.v, tc.unit); got != tc.want {
			t.Errorf("formatSI(%g, %q) = %q, want %q", tc.v, tc.unit, got, tc.want)
		}
	}
}

func TestFormatClock(t *testing.T) {
	for _, tc := range []struct {
		s    float64
		want string
	}{
		{0, "0"}, {0.025, "25ms"}, {1.68, "1.68s"}, {12.34, "12.3s"}, {45, "45s"},
		{60, "1m"}, {410, "6m50s"}, {600, "10m"}, {1219.7, "20m20s"}, {3600, "1h"}, {5400, "1h30m"},
	} {
		if got := formatClock(tc.s); got != tc.want {
			t.Errorf("formatClock(%g) = %q, want %q", tc.s, got, tc.want)
		}
	}
}

// TestChartOrderAndFindings: the headline comes first and the order is fixed; every title
// is a finding with the figures of the run.
func TestChartOrderAndFindings(t *testing.T) {
	res := fixtureResults()
	charts, err := Charts(NewSummary(res, nil), res.Series, res.Layout)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range charts {
		names = append(names, c.Name)
	}
	want := []string{HeadlineChartName, "cumulative-fanout", "egress-rate", "propagation-latency", "phases-writes", "slice-layout"}
	if !slices.Equal(names, want) {
		t.Fatalf("charts %v, want %v", names, want)
	}
	// The fixture: Endpoints 7.2 TB against EndpointSlices 1.5 TB (4.7×); per phase 4.7×
	// (rollout) to 77× (one endpoint not ready).
	for name, wantTitle := range map[string]string{
		HeadlineChartName:   "Endpoints fan out 4.7–77× more bytes than EndpointSlices in every phase",
		"cumulative-fanout": "Endpoints send 4.7× more bytes than EndpointSlices over the run",
		"phases-writes":     "EndpointSlices make 16× more API writes than Endpoints over the run",
	} {
		i := slices.Index(names, name)
		if charts[i].Title != wantTitle {
			t.Errorf("%s title %q, want %q", name, charts[i].Title, wantTitle)
		}
	}
}

// TestPlanChartsNameHeldAxes: with a third axis (batch period) in the grid, each chart says
// which value it holds the other axes at; a grid of slice sizes alone (kep-752) still draws
// a chart, of bytes per phase.
func TestPlanChartsNameHeldAxes(t *testing.T) {
	r := fixturePlan()
	r.Plan.Axes = append(r.Plan.Axes, PlanAxis{Name: "batch period", Paths: []string{"controlPlane.endpointSlice.batchPeriod"}, Values: []string{"0", "1s"}})
	var points []PlanPoint
	for i, p := range r.Points {
		for b, v := range []string{"0", "1s"} {
			q := p
			q.Index = 2*i + b
			q.Values = append(slices.Clone(p.Values), v)
			q.BatchPeriodSeconds = float64(b)
			points = append(points, q)
		}
	}
	r.Points, r.Plan.GridPoints = points, len(points)
	charts, err := PlanCharts(r)
	if err != nil {
		t.Fatal(err)
	}
	subtitles := map[string]string{}
	for _, c := range charts {
		subtitles[c.Name] = c.Subtitle
	}
	for name, want := range map[string]string{
		"bytes-per-rollout":      "batch period held at 0",
		"writes-vs-batch-period": "replicas held at 1000",
	} {
		if !strings.Contains(subtitles[name], want) {
			t.Errorf("%s subtitle %q does not say %q", name, subtitles[name], want)
		}
	}
	if !strings.Contains(subtitles["writes-vs-batch-period"], "5,000 nodes") {
		t.Errorf("writes-vs-batch-period subtitle %q does not name the node count", subtitles["writes-vs-batch-period"])
	}

	kep := fixturePlan()
	kep.Plan.Axes = kep.Plan.Axes[1:]
	kep.Points = kep.Points[:2]
	for i := range kep.Points {
		kep.Points[i].Values = kep.Points[i].Values[1:]
	}
	charts, err = PlanCharts(kep)
	if err != nil {
		t.Fatal(err)
	}
	if len(charts) != 1 || charts[0].Name != "bytes-per-phase" {
		t.Fatalf("a slice-size-only grid drew %d charts, want bytes-per-phase", len(charts))
	}
	if got, want := charts[0].Title, "In rollout: Endpoints fan out 710.7 GB, 100-endpoint slices 152.5 GB (4.7× less), 500-endpoint slices 762.5 GB (1.1× more)"; got != want {
		t.Errorf("title %q, want %q", got, want)
	}
	checkRendered(t, charts[0])
}

// TestKeyTextsNeverOverlap: the phase key under a time axis gives every boundary to the
// precision that keeps the phases apart. 5000-nodes.yaml's phases end and start within a
// second of each other over a 6-hour run: at the minute its key read phase 2 "1h37m–1h38m",
// phase 3 inside it, and phase 4 starting at "1h38m" although it started at 1h37m39s.
func TestKeyTextsNeverOverlap(t *testing.T) {
	for _, tc := range []struct {
		name   string
		phases []phaseSpan
		want   []string
	}{
		{"5000-nodes", []phaseSpan{{1, "create", 0, 5848.153181263}, {2, "one-endpoint-not-ready", 5849, 5850.78037168},
			{3, "one-pod-restart", 5851, 5858.22282936}, {4, "rolling-update", 5859, 21251.593631413}},
			[]string{"create 0–1h37m28.2s", "one-endpoint-not-ready 1h37m29s–1h37m30.8s", "one-pod-restart 1h37m31s–1h37m38.2s", "rolling-update 1h37m39s–5h54m11.6s"}},
		{"zone-outage", []phaseSpan{{1, "create", 0, 391.131378407}, {2, "zone-a-fails", 392, 5728.199566961}, {3, "recovery", 5729, 5849}},
			[]string{"create 0–6m31s", "zone-a-fails 6m32s–1h35m28s", "recovery 1h35m29s–1h37m29s"}},
		{"far apart", []phaseSpan{{1, "create", 0, 3600}, {2, "later", 7200, 10800}},
			[]string{"create 0–1h", "later 2h–3h"}},
		{"a start off the minute", []phaseSpan{{1, "create", 0, 3600}, {2, "later", 7239, 10800}},
			[]string{"create 0–1h", "later 2h0m39s–3h"}},
		{"shorter than a millisecond", []phaseSpan{{1, "blip", 2, 2.0004}},
			[]string{"blip 2s–2.0004s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := keyTexts(tc.phases); !slices.Equal(got, tc.want) {
				t.Errorf("keyTexts = %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestPhaseWithin: the part of a phase on an axis; none when it lies beyond, or only
// touches the axis's end and goes on past it; an instant on the axis, ends included, is on it.
func TestPhaseWithin(t *testing.T) {
	for _, tc := range []struct {
		start, end float64
		lo, hi     float64
		ok         bool
	}{
		{10, 20, 10, 20, true},   // inside
		{-5, 20, 0, 20, true},    // cut at the start
		{90, 120, 90, 100, true}, // cut at the end
		{99.8, 120, 99.8, 100, true},
		{100, 120, 0, 0, false},    // starts where the axis ends: slice-layout's case
		{-10, 0, 0, 0, false},      // ends where the axis starts
		{150, 160, 0, 0, false},    // beyond
		{100, 100, 100, 100, true}, // an instant at the end
		{0, 0, 0, 0, true},
		{50, 50, 50, 50, true},
	} {
		lo, hi, ok := phaseSpan{start: tc.start, end: tc.end}.within(0, 100)
		if lo != tc.lo || hi != tc.hi || ok != tc.ok {
			t.Errorf("[%g, %g] on [0, 100]: %g, %g, %v; want %g, %g, %v", tc.start, tc.end, lo, hi, ok, tc.lo, tc.hi, tc.ok)
		}
	}
}

// TestPhaseMarkersAtTheAxisEnd: slice-layout's time axis ends at the last layout change.
// When that change falls on the first instant of the last phase, nothing of the phase is on
// the chart: it has no marker (zone-outage drew its "3" at the top right corner, its leader
// slanting out of the chart) and stays in the key. When a sliver of the phase is on the
// chart, its marker stands at the axis end, its leader dropping straight to the phase.
func TestPhaseMarkersAtTheAxisEnd(t *testing.T) {
	for _, tc := range []struct {
		name    string
		last    time.Duration // the last layout sample, into the rollout phase (from 75 s)
		markers int
	}{
		{"touching", 75 * time.Second, 2},
		{"a sliver", 75*time.Second + 200*time.Millisecond, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := fixtureResults()
			res.Layout = append(res.Layout[:3], res.Layout[3])
			res.Layout[3].At = sim.Time(tc.last)
			c, err := SliceLayoutChart(NewSummary(res, nil), res.Layout)
			if err != nil {
				t.Fatal(err)
			}
			lay := layoutOf(c)
			if len(lay.markers) != tc.markers || len(lay.key) != 3 {
				t.Fatalf("%d markers and %d key items, want %d and 3", len(lay.markers), len(lay.key), tc.markers)
			}
			data := lay.data[0]
			for i, l := range lay.leaders {
				for _, pt := range l {
					if pt.X < data.Min.X-1e-6 || pt.X > data.Max.X+1e-6 {
						t.Errorf("marker %d's leader %v leaves the data area's width %v", i+1, l, data)
					}
				}
			}
			if tc.markers == 3 {
				l, m := lay.leaders[2], lay.markers[2]
				if l[0].X != l[1].X || math.Abs(float64(l[1].X-data.Max.X)) > 1 {
					t.Errorf("the last marker's leader %v does not drop straight to the axis end %v", l, data.Max.X)
				}
				if m.Max.X > data.Max.X+1e-6 {
					t.Errorf("the last marker %v passes the data area's end %v", m, data.Max.X)
				}
			}
		})
	}
}
