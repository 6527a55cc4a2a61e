package trace

import (
	"bytes"
	"math"
	"testing"

	"epsim/scenarios"
	"epsim/sim"
)

// secondPrecisionTolerance is how far (relative) the write counts of a replay of kubectl's own
// output (object timestamps of second precision, each second's events spread across it) may
// stray from a replay of the same churn with recorded arrival times.
const secondPrecisionTolerance = 0.25

// TestSecondPrecisionReplayAgrees: the same simulated churn (the quick scenario's create,
// not-ready, restart and rolling update), replayed from kubectl's raw watch output and from a
// 'sim record' trace, gives write counts within secondPrecisionTolerance of each other per
// mode.
func TestSecondPrecisionReplayAgrees(t *testing.T) {
	for _, sets := range [][]string{
		{"cluster.nodes=30", "services[0].replicas=150"},
		{"cluster.nodes=100", "services[0].replicas=500"},
	} {
		t.Run(sets[1], func(t *testing.T) {
			_, cfg, err := scenarios.Load("quick", sets)
			if err != nil {
				t.Fatal(err)
			}
			rec, _ := simulate(t, cfg, decorate)
			var tr bytes.Buffer
			if _, err := Record(bytes.NewReader(rec.watch.Bytes()), &tr, "watch.json", rec.clock()); err != nil {
				t.Fatal(err)
			}
			svcs, nodes := writeLists(t, rec.services, rec.nodes)
			exact, _, err := sim.Replay(cfg, svcs, nodes, NewPodReader(&tr, "trace.jsonl"), nil)
			if err != nil {
				t.Fatal(err)
			}
			raw := NewPodReader(bytes.NewReader(rec.watch.Bytes()), "watch.json")
			approx, _, err := sim.Replay(cfg, svcs, nodes, raw, nil)
			if err != nil {
				t.Fatal(err)
			}
			if raw.Stats().RecordedTimes || raw.Stats().Spread == 0 {
				t.Fatalf("raw stream stats %+v", raw.Stats())
			}
			for _, m := range []sim.Mode{sim.ModeEndpointSlices, sim.ModeEndpoints} {
				a, b := exact.Total.Mode(m).Writes.Total(), approx.Total.Mode(m).Writes.Total()
				d := float64(b-a) / float64(a)
				t.Logf("%s: %d writes with recorded times, %d with object times (%+.1f%%)", m, a, b, 100*d)
				if math.Abs(d) > secondPrecisionTolerance {
					t.Errorf("%s: %d writes from kubectl's output, %d from the trace: %+.1f%%, beyond ±%.0f%%", m, b, a, 100*d, 100*secondPrecisionTolerance)
				}
			}
		})
	}
}
