package reports

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"epsim/sim"
)

// TestChartsGolden records each chart's finding (title and subtitle, computed from the data),
// its series (name, point count, last point) and a digest of the plotted data instead of
// pixels (asim style), and checks every chart renders as a valid PNG and SVG.
func TestChartsGolden(t *testing.T) {
	res := fixtureResults()
	charts, err := Charts(NewSummary(res, nil), res.Series, res.Layout)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, c := range charts {
		fmt.Fprintf(&buf, "%s (%s)\n  title: %s\n  subtitle: %s\n", c.Name, c.Digest(), c.Title, c.Subtitle)
		for _, s := range c.Series {
			last := "-"
			if n := len(s.XYs); n > 0 {
				last = fmt.Sprintf("(%g, %g)", s.XYs[n-1].X, s.XYs[n-1].Y)
			}
			fmt.Fprintf(&buf, "  %-16s %4d points, last %s\n", s.Name, len(s.XYs), last)
		}
		checkRendered(t, c)
	}
	checkGolden(t, "charts.golden", buf.Bytes())
}

// checkRendered renders c in both formats and checks the PNG header decodes and the SVG is
// well-formed XML with an <svg> root.
func checkRendered(t *testing.T, c *Chart) {
	t.Helper()
	var p bytes.Buffer
	if err := c.Render(&p, "png"); err != nil {
		t.Fatalf("%s png: %v", c.Name, err)
	}
	cfg, err := png.DecodeConfig(&p)
	if err != nil {
		t.Fatalf("%s png: %v", c.Name, err)
	}
	// 8 × 4.5 in at 192 dpi: twice the 768×432 pixels of a plain 96 dpi canvas, sharp on a
	// slide.
	if want := int(math.Round(float64(c.height()/vg.Inch) * 192)); cfg.Width != 1536 || cfg.Height != want {
		t.Errorf("%s png is %dx%d, want 1536x%d (192 dpi)", c.Name, cfg.Width, cfg.Height, want)
	}
	var s bytes.Buffer
	if err := c.Render(&s, "svg"); err != nil {
		t.Fatalf("%s svg: %v", c.Name, err)
	}
	dec := xml.NewDecoder(&s)
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s svg is not well-formed XML: %v", c.Name, err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		t.Errorf("%s svg root element is %q, want svg", c.Name, root)
	}
}

func TestChartsEdgeCases(t *testing.T) {
	for name, res := range map[string]*sim.Results{
		"empty":     {Scenario: "empty"},
		"quiet":     {Scenario: "quiet", Phases: []sim.PhaseResult{{Name: "wait", End: sim.Time(5e9)}}, Series: []sim.Bucket{{Second: 3}}},
		"one-phase": fixtureResultsOnePhase(),
	} {
		t.Run(name, func(t *testing.T) {
			for _, modes := range [][]sim.Mode{nil, {sim.ModeEndpoints}, {sim.ModeEndpointSlices}} {
				charts, err := Charts(NewSummary(res, modes), res.Series, res.Layout)
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range charts {
					checkRendered(t, c)
				}
			}
		})
	}
}

func fixtureResultsOnePhase() *sim.Results {
	res := fixtureResults()
	res.Phases = res.Phases[1:2]
	return res
}

func TestChartRenderUnknownFormat(t *testing.T) {
	res := fixtureResults()
	charts, err := Charts(NewSummary(res, nil), res.Series, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := charts[0].Render(io.Discard, "gif"); err == nil {
		t.Error("Render accepted format gif")
	}
}

func TestChartsDeterministicSVG(t *testing.T) {
	res := fixtureResults()
	render := func() []byte {
		charts, err := Charts(NewSummary(res, nil), res.Series, res.Layout)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		for _, c := range charts {
			if err := c.Render(&buf, "svg"); err != nil {
				t.Fatal(err)
			}
		}
		return buf.Bytes()
	}
	if !bytes.Equal(render(), render()) {
		t.Error("two renders of the same results differ")
	}
}

// TestEgressFindingCoarseBuckets checks the time at capacity in the egress chart's title on a
// run longer than sim.MaxSeriesBuckets seconds, where the dense series has 2-second buckets:
// each saturated bucket stands for 2 s, so 100 saturated seconds must read 1m40s, not the 50
// buckets (cluster-day read 3h32m for 7h4m at capacity).
func TestEgressFindingCoarseBuckets(t *testing.T) {
	res := fixtureResults()
	res.EgressCapacityBytesPerSec = 1_000_000
	res.Series = nil
	for s := int64(0); s < 100; s++ { // saturated seconds 0..99: 50 two-second buckets
		res.Series = append(res.Series, sim.Bucket{Second: s,
			Endpoints:      sim.BucketMode{Writes: 1, FanoutBytes: 1_000_000},
			EndpointSlices: sim.BucketMode{Writes: 1, FanoutBytes: 1_000}})
	}
	// Seconds 1000..1003 saturated for EndpointSlices only: 2 buckets, 4 s.
	for s := int64(1000); s < 1004; s++ {
		res.Series = append(res.Series, sim.Bucket{Second: s,
			EndpointSlices: sim.BucketMode{Writes: 1, FanoutBytes: 1_000_000}})
	}
	res.Series = append(res.Series, sim.Bucket{Second: 2*sim.MaxSeriesBuckets - 1,
		Endpoints: sim.BucketMode{Writes: 1, FanoutBytes: 1}})
	dense := DenseSeries(res.Series)
	if w := dense[0].Seconds(); w != 2 {
		t.Fatalf("dense buckets are %d s wide, want 2 (the case under test)", w)
	}
	c, err := EgressChart(NewSummary(res, nil), dense)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Egress at capacity: Endpoints for 1m40s, EndpointSlices for 4s"; c.Title != want {
		t.Errorf("title %q, want %q", c.Title, want)
	}
}

// TestEgressChartDenseGolden draws the egress chart of two hours of spiky seconds, too many
// to draw one by one: each mode is drawn as a line of 30 s means over a band of the seconds'
// range, says so in the subtitle, and shows band and line in its legend entry. The golden
// file holds the finding and a digest of the buckets and of the columns drawn.
func TestEgressChartDenseGolden(t *testing.T) {
	res := spikyResults(7200)
	res.EgressCapacityBytesPerSec = 5_000_000_000
	s := NewSummary(res, nil)
	dense := DenseSeriesTo(res.Series, s.Total.EndSeconds)
	c, err := EgressChart(s, dense)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "egress-dense.golden", describeDenseChart(c))
	if !strings.Contains(c.Subtitle, "line: mean per 30s, band: 1s min–max") {
		t.Errorf("subtitle %q does not say how the lines were drawn", c.Subtitle)
	}
	checkRendered(t, c)
	for _, format := range ChartFormats {
		var one, two bytes.Buffer
		if err := c.Render(&one, format); err != nil {
			t.Fatal(err)
		}
		if err := c.Render(&two, format); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(one.Bytes(), two.Bytes()) {
			t.Errorf("two %s renders of the same chart differ", format)
		}
	}
}

// A long run with no buckets at all (EgressChart called with an empty series) draws no
// columns, so its subtitle must not say how they are drawn.
func TestEgressChartNoBucketsNoColumnNote(t *testing.T) {
	res := fixtureResults()
	res.EndTime = sim.Time(7200e9)
	c, err := EgressChart(NewSummary(res, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(c.Subtitle, "line: mean") {
		t.Errorf("subtitle %q speaks of columns that are not drawn", c.Subtitle)
	}
	checkRendered(t, c)
}

// spikyLatencyResults is spikyResults with a propagation latency for each second with
// writes: mostly tenths of a second, Endpoints about ten times EndpointSlices, a few
// seconds where nobody watched (0), and stretches where a mode wrote nothing at all.
func spikyLatencyResults(seconds int) *sim.Results {
	res := spikyResults(seconds)
	rng := rand.New(rand.NewPCG(9, 10))
	for s := range res.Series {
		bk := &res.Series[s]
		if bk.Endpoints.Writes > 0 {
			bk.Endpoints.MaxLatencySeconds = math.Round(rng.ExpFloat64()*2000) / 1000
		}
		if bk.EndpointSlices.Writes > 0 {
			bk.EndpointSlices.MaxLatencySeconds = math.Round(rng.ExpFloat64()*200) / 1000
		}
		if rng.IntN(50) == 0 {
			bk.EndpointSlices.MaxLatencySeconds = 0 // nobody watching
		}
		if s%3600 >= 1000 && s%3600 < 1100 {
			bk.EndpointSlices = sim.BucketMode{} // 100 s without writes: whole columns of none
		}
	}
	return res
}

// TestLatencyChartDenseGolden draws the propagation latency of two hours of seconds, too
// many to draw one by one: each mode is drawn as a line of the 30 s columns' largest latency
// over a band from their least to greatest second, broken where a mode wrote nothing, says
// so in the subtitle, and shows band and line in its legend entry; the title (the run's
// largest latency) is the finding's, as with points. The golden file holds the finding and
// a digest of the buckets and of the columns drawn.
func TestLatencyChartDenseGolden(t *testing.T) {
	res := spikyLatencyResults(7200)
	s := NewSummary(res, nil)
	dense := DenseSeriesTo(res.Series, s.Total.EndSeconds)
	c, err := LatencyChart(s, dense)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "latency-dense.golden", describeDenseChart(c))
	if title, _ := latencyFinding(s); c.Title != title {
		t.Errorf("title %q, want the finding's %q", c.Title, title)
	}
	if !strings.Contains(c.Subtitle, "Largest propagation latency of each second's writes · line: max per 30s, band: least–greatest second · ") {
		t.Errorf("subtitle %q does not say how the lines were drawn", c.Subtitle)
	}
	// Each mode's highest column is its largest latency; EndpointSlices' columns stop
	// where it wrote nothing (2 of every 120 columns an hour) and never count those as 0.
	for k, m := range s.Modes {
		high, low := seriesNamed(t, c, string(m)+" high"), seriesNamed(t, c, string(m)+" low")
		top, peak := math.Inf(-1), math.Inf(-1)
		for _, p := range high {
			top = max(top, p.Y)
		}
		for _, p := range c.Series[k].XYs {
			peak = max(peak, p.Y)
		}
		if top != peak {
			t.Errorf("%s: highest column %g, largest latency %g", m, top, peak)
		}
		want := 240
		if m == sim.ModeEndpointSlices {
			want -= 2 * 2
		}
		if len(high) != want || len(low) != want {
			t.Errorf("%s: %d and %d columns, want %d", m, len(high), len(low), want)
		}
	}
	checkRendered(t, c)
	for _, format := range ChartFormats {
		var one, two bytes.Buffer
		if err := c.Render(&one, format); err != nil {
			t.Fatal(err)
		}
		if err := c.Render(&two, format); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(one.Bytes(), two.Bytes()) {
			t.Errorf("two %s renders of the same chart differ", format)
		}
	}
}

// seriesNamed is the chart's series of that name.
func seriesNamed(t *testing.T, c *Chart, name string) plotter.XYs {
	t.Helper()
	for _, s := range c.Series {
		if s.Name == name {
			return s.XYs
		}
	}
	t.Fatalf("%s: no series %q", c.Name, name)
	return nil
}

// A latency that is not a finite number (from a hand-edited timeseries.csv) gets, in a long
// run, what it got as a point: on a log axis a NaN or negative one is not drawn, as a zero
// latency is not, and the rest are drawn by column; otherwise the chart draws every point,
// which fails for a NaN or infinite latency (gonum refuses them) and puts -Inf on the axis.
func TestLatencyChartDenseOddLatency(t *testing.T) {
	for _, tc := range []struct {
		name    string
		slo     float64 // an SLO below the latencies makes a log axis
		latency float64
		want    string // "columns", "points" or "error"
	}{
		{"linear NaN", 0, math.NaN(), "error"},
		{"linear +Inf", 0, math.Inf(1), "error"},
		{"linear -Inf", 0, math.Inf(-1), "points"},
		{"log NaN", 1e-4, math.NaN(), "columns"},
		{"log +Inf", 1e-4, math.Inf(1), "error"},
		{"log -Inf", 1e-4, math.Inf(-1), "columns"},
		{"log finite", 1e-4, 3, "columns"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := spikyLatencyResults(7200)
			s := NewSummary(res, nil)
			s.SLOSeconds = tc.slo
			dense := DenseSeriesTo(res.Series, s.Total.EndSeconds)
			dense[500].Endpoints.Writes, dense[500].Endpoints.MaxLatencySeconds = 1, tc.latency
			c, err := LatencyChart(s, dense)
			got := "error"
			if err == nil {
				got = "points"
				if slices.ContainsFunc(c.Series, func(s ChartSeries) bool { return strings.HasSuffix(s.Name, " high") }) {
					got = "columns"
					if !strings.Contains(c.Subtitle, "line: max per 30s") {
						t.Errorf("subtitle %q does not say how the lines were drawn", c.Subtitle)
					}
					// Nor is a zero latency (nobody watching, 1 second in 50 of EndpointSlices').
					for _, s := range c.Series {
						for _, p := range s.XYs {
							if strings.HasSuffix(s.Name, " low") && !(p.Y > 0) {
								t.Fatalf("%s: %v on a log axis", s.Name, p)
							}
						}
					}
				} else if strings.Contains(c.Subtitle, "line: ") || len(c.legend[0].thumbs) != 1 {
					t.Errorf("points drawn, subtitle %q, %d thumbnails", c.Subtitle, len(c.legend[0].thumbs))
				}
				checkRendered(t, c)
			}
			if got != tc.want {
				t.Errorf("drawn as %s (%v), want %s", got, err, tc.want)
			}
		})
	}
}

// describeDenseChart is what a dense chart's golden file holds: its name, digest, title and
// subtitle, each series' size and last point, and its legend entries' thumbnails.
func describeDenseChart(c *Chart) []byte {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "%s (%s)\n  title: %s\n  subtitle: %s\n", c.Name, c.Digest(), c.Title, c.Subtitle)
	for _, s := range c.Series {
		fmt.Fprintf(&buf, "  %-20s %4d points, last (%g, %g)\n", s.Name, len(s.XYs), s.XYs[len(s.XYs)-1].X, s.XYs[len(s.XYs)-1].Y)
	}
	for _, it := range c.legend {
		fmt.Fprintf(&buf, "  legend %s: %d thumbnails\n", it.name, len(it.thumbs))
	}
	return buf.Bytes()
}
