package reports_test

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"strings"
	"testing"

	"epsim/reports"
	"epsim/sim"
)

// Issue 12: timeseries.csv's fan-out column included re-sent bytes (its sum differed from
// fanoutBytes by exactly resentBytes). Run with slow watchers closed, each column must sum
// to its summary figure. (Closed watchers that watch again are replayed what they missed,
// which is no bytes again; only a relist's LIST is, and this run has none.)
func TestTimeseriesColumnsSumToSummary(t *testing.T) {
	_, res := runSaturatedQuick(t)
	s := reports.NewSummary(res, nil)
	if s.Total.Endpoints.WatcherTerminations == 0 {
		t.Fatal("no watcher was closed; this test needs closed watchers")
	}
	var buf bytes.Buffer
	if err := reports.WriteTimeseriesCSV(&buf, res.Series, s.Total.EndSeconds); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	sum := func(name string) int64 {
		var n int64
		for _, r := range rows[1:] {
			v, err := strconv.ParseInt(r[col[name]], 10, 64)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			n += v
		}
		return n
	}
	for _, m := range []struct {
		name string
		ms   *reports.ModeSummary
	}{{"endpoints", s.Total.Endpoints}, {"endpointslices", s.Total.EndpointSlices}} {
		if got := sum(m.name + "_fanoutBytes"); got != m.ms.FanoutBytes {
			t.Errorf("%s_fanoutBytes sums to %d, fanoutBytes is %d", m.name, got, m.ms.FanoutBytes)
		}
		if got := sum(m.name + "_resentBytes"); got != m.ms.ResentBytes {
			t.Errorf("%s_resentBytes sums to %d, resentBytes is %d", m.name, got, m.ms.ResentBytes)
		}
		if got := sum(m.name + "_writes"); got != m.ms.Writes.Total {
			t.Errorf("%s_writes sums to %d, writes is %d", m.name, got, m.ms.Writes.Total)
		}
	}
	if !strings.HasSuffix(strings.Join(rows[0], ","), "endpoints_resentBytes,endpointslices_resentBytes,seconds") {
		t.Errorf("header %v", rows[0])
	}
}

// Issue 12: "meets latency SLO yes" hid a 22-minute delay (p99 9.4 s, max 21m59s). The table
// shows the max next to p99 and says when the max breaks the SLO.
func TestTableShowsMaxLatencyAgainstSLO(t *testing.T) {
	res := &sim.Results{Scenario: "slow", Seed: 1, Nodes: 3, Watchers: 3, SLOSeconds: 30,
		Phases: []sim.PhaseResult{{Name: "rollout"}}}
	for _, p := range []*sim.PhaseResult{&res.Phases[0], &res.Total} {
		p.Endpoints.Writes.Update = 1
		p.Endpoints.Propagation = sim.Latency{Count: 1000, P50Seconds: 1, P90Seconds: 2, P99Seconds: 9.4, MaxSeconds: 1319}
		p.EndpointSlices.Writes.Update = 1
		p.EndpointSlices.Propagation = sim.Latency{Count: 1000, P50Seconds: 1, P90Seconds: 2, P99Seconds: 3, MaxSeconds: 4}
	}
	res.Total.Name = "total"
	var buf bytes.Buffer
	if err := reports.WriteTable(&buf, reports.NewSummary(res, nil)); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	squeeze := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	for _, want := range []string{"propagation p99 9.4s 3s", "propagation max 21m59s 4s", "meets latency SLO p99 yes, max NO yes"} {
		if !strings.Contains(squeeze(out), want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}
