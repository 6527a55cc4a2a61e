package reports

import (
	"bytes"
	"strings"
	"testing"

	"epsim/sim"
)

// withFanout returns the fixture's summary with each phase's bytes fanned out set to e[i]
// (Endpoints) and es[i] (EndpointSlices).
func withFanout(t *testing.T, e, es []int64) *Summary {
	t.Helper()
	res := fixtureResults()
	if len(res.Phases) != len(e) || len(e) != len(es) {
		t.Fatalf("the fixture has %d phases, the test gives %d and %d", len(res.Phases), len(e), len(es))
	}
	for i := range res.Phases {
		res.Phases[i].Endpoints.FanoutBytes, res.Phases[i].EndpointSlices.FanoutBytes = e[i], es[i]
	}
	return NewSummary(res, nil)
}

// TestWidestGapEitherWay: the headline's widest phase and the phases-bytes chart's title
// take the gap in either direction, say which mode sends more, and a phase where one mode
// sends nothing for what it is (quick.yaml with apiServer.objectSizeLimit=20000: Endpoints
// send half as much in the first phase, nothing after).
func TestWidestGapEitherWay(t *testing.T) {
	for _, tc := range []struct {
		name            string
		e, es           []int64
		widest, finding string
	}{
		{"endpoints send less", []int64{100e6, 1e6, 50e6}, []int64{200e6, 1e6, 400e6},
			"The gap is widest in phase `rollout`: EndpointSlices fan out 8.0× as many bytes as Endpoints.",
			"EndpointSlices fan out more bytes than Endpoints in 2 of 3 phases (up to 8.0×), as many in 1"},
		{"endpoints send nothing", []int64{166e6, 0, 0}, []int64{330e6, 1e6, 600e6},
			"The gap is widest in phase `rollout`: EndpointSlices fan out 600.0 MB, Endpoints nothing.",
			"EndpointSlices fan out more bytes than Endpoints in every phase (2.0×; Endpoints none in 2)"},
		{"each way", []int64{300e6, 1e6, 100e6}, []int64{100e6, 1e6, 500e6},
			"The gap is widest in phase `rollout`: EndpointSlices fan out 5.0× as many bytes as Endpoints.",
			"Endpoints fan out more bytes in 1 of 3 phases (up to 3.0×), EndpointSlices in 1 (up to 5.0×)"},
		{"endpoints send more", []int64{300e6, 77e6, 100e6}, []int64{100e6, 1e6, 50e6},
			"The gap is widest in phase `one-endpoint-not-ready`: Endpoints fan out 77× as many bytes as EndpointSlices.",
			"Endpoints fan out 2.0–77× more bytes than EndpointSlices in every phase"},
		// A phase where neither mode sends anything (zone-outage's recovery) is not one
		// where the modes differ: "every phase" read as if it were.
		{"a phase without traffic", []int64{300e6, 0, 100e6}, []int64{100e6, 0, 20e6},
			"The gap is widest in phase `rollout`: Endpoints fan out 5.0× as many bytes as EndpointSlices.",
			"Endpoints fan out 3.0–5.0× more bytes than EndpointSlices in every phase but one-endpoint-not-ready (no traffic)"},
		{"a phase without traffic, some phases", []int64{100e6, 0, 50e6}, []int64{200e6, 0, 400e6},
			"The gap is widest in phase `rollout`: EndpointSlices fan out 8.0× as many bytes as Endpoints.",
			"EndpointSlices fan out 2.0–8.0× more bytes than Endpoints in every phase but one-endpoint-not-ready (no traffic)"},
		{"phases without traffic, as many", []int64{100e6, 0, 0}, []int64{100e6, 0, 0},
			"", "Endpoints and EndpointSlices fan out as many bytes in every phase but one-endpoint-not-ready and rollout (no traffic)"},
		{"each way and a phase without traffic", []int64{300e6, 0, 100e6}, []int64{100e6, 0, 500e6},
			"The gap is widest in phase `rollout`: EndpointSlices fan out 5.0× as many bytes as Endpoints.",
			"Endpoints fan out more bytes in 1 of 2 phases (up to 3.0×), EndpointSlices in 1 (up to 5.0×); no traffic in one-endpoint-not-ready"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := withFanout(t, tc.e, tc.es)
			if h := RunHeadline(s); !strings.Contains(h, tc.widest) {
				t.Errorf("headline %q\nlacks %q", h, tc.widest)
			}
			if f := headlineFinding(s); !strings.Contains(f, tc.finding) {
				t.Errorf("phases-bytes title %q\nlacks %q", f, tc.finding)
			}
		})
	}
	// A run where the modes send about as much everywhere names no widest phase.
	if h := RunHeadline(withFanout(t, []int64{100, 100, 100}, []int64{100, 101, 100})); strings.Contains(h, "widest") {
		t.Errorf("headline %q names a widest gap where there is none", h)
	}
}

// TestSingleModeWording: a run of one mode has no ratio; the report and the charts do not
// speak of one, nor of pairs of bars, and no title says the unit twice.
func TestSingleModeWording(t *testing.T) {
	res := fixtureResults()
	for _, m := range []sim.Mode{sim.ModeEndpoints, sim.ModeEndpointSlices} {
		s := NewSummary(res, []sim.Mode{m})
		charts, err := Charts(s, res.Series, res.Layout)
		if err != nil {
			t.Fatal(err)
		}
		r := &RunReport{File: "scenarios/5000-nodes.yaml", Summary: s, Config: fixtureConfig(), Charts: charts}
		var buf bytes.Buffer
		if err := WriteRunMarkdown(&buf, r); err != nil {
			t.Fatal(err)
		}
		md := buf.String()
		for _, bad := range []string{"ratio", "Endpoints / EndpointSlices", "both modes together"} {
			if strings.Contains(md, bad) {
				t.Errorf("%s: report.md says %q:\n%s", m, bad, md)
			}
		}
		for _, c := range charts {
			if strings.Contains(c.Subtitle, "above each pair") || strings.Contains(c.Subtitle, "Endpoints/EndpointSlices") {
				t.Errorf("%s: chart %s subtitle %q speaks of pairs of bars", m, c.Name, c.Subtitle)
			}
			if strings.Contains(c.Title, "B bytes") {
				t.Errorf("%s: chart %s title %q says the unit twice", m, c.Name, c.Title)
			}
		}
	}
}
