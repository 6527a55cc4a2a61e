package reports

import (
	"strings"
	"testing"
)

// TestProgrammingChart: the chart plots each phase's p50, p99 and max programming latency
// per mode, exactly as summary.json has them, and renders.
func TestProgrammingChart(t *testing.T) {
	res := fixtureResults()
	res.SLOSeconds = 30
	s := NewSummary(res, nil)
	c, err := ProgrammingChart(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Series) != 6 {
		t.Fatalf("%d series, want 6 (p50, p99, max per mode)", len(c.Series))
	}
	for k, m := range s.Modes {
		p99 := c.Series[3*k+1]
		if p99.Name != string(m)+" p99" || len(p99.XYs) != len(s.Phases) {
			t.Fatalf("series %q has %d points, want %d", p99.Name, len(p99.XYs), len(s.Phases))
		}
		for i := range s.Phases {
			if got, want := p99.XYs[i].Y, s.Phases[i].Mode(m).Programming.P99Seconds; got != want {
				t.Errorf("%s %s p99 = %g, want %g", s.Phases[i].Name, m, got, want)
			}
		}
	}
	// The title is a percentile of the changes of the worst phase, and says so: it read
	// "Rules in place on every node within: … p99 up to …", a bound for every node that the
	// chart does not show.
	var want []string
	for _, m := range s.Modes {
		worst := 0.0
		for i := range s.Phases {
			worst = max(worst, s.Phases[i].Mode(m).Programming.P99Seconds)
		}
		want = append(want, modeTitle(m)+" "+FormatSeconds(worst))
	}
	if title := "Network programming latency p99, worst phase: " + strings.Join(want, ", "); c.Title != title {
		t.Errorf("title %q, want %q", c.Title, title)
	}
	if strings.Contains(c.Title+c.Subtitle, "every node") || !strings.Contains(c.Subtitle, "each change") {
		t.Errorf("title %q, subtitle %q: want no claim for every node, and what a sample is", c.Title, c.Subtitle)
	}
	checkRendered(t, c)

	// The title shows a p99 as the table does, to the millisecond: 1.935s, not 1.94s.
	s.Phases[0].EndpointSlices.Programming.P99Seconds = 1.935
	for i := 1; i < len(s.Phases); i++ {
		s.Phases[i].EndpointSlices.Programming.P99Seconds = min(s.Phases[i].EndpointSlices.Programming.P99Seconds, 1)
	}
	if title, _ := programmingFinding(s); !strings.Contains(title, modeTitle("endpointslices")+" 1.935s") {
		t.Errorf("title %q, want the p99 as the table shows it, 1.935s", title)
	}
	empty := NewSummary(fixtureResults(), nil)
	for i := range empty.Phases {
		empty.Phases[i].Endpoints.Programming.Count = 0
		empty.Phases[i].EndpointSlices.Programming.Count = 0
	}
	c, err = ProgrammingChart(empty)
	if err != nil {
		t.Fatal(err)
	}
	checkRendered(t, c)
}

// The propagation chart's title gives each mode's worst latency as the table's
// "propagation max" row does (FormatSeconds): 1.935s, not the clock's 1.94s.
func TestLatencyTitleAsTable(t *testing.T) {
	s := NewSummary(fixtureResults(), nil)
	s.Total.EndpointSlices.Propagation.MaxSeconds = 1.935
	title, _ := latencyFinding(s)
	if !strings.Contains(title, "EndpointSlices up to 1.935s") {
		t.Errorf("title %q, want the max as the table shows it, 1.935s", title)
	}
}
