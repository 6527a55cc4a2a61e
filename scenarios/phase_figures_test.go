package scenarios

import (
	"testing"

	"epsim/sim"
)

// TestPhaseFiguresTakeInLateWrites runs the shipped dual-stack scenario, where a controller's
// delayed retries write after the create phase's work is done (a phase does not wait for
// them) and before the next phase starts, and checks that each phase's propagation figures
// count every write the write log gives it that has a latency, and that the phases add up
// to the total.
func TestPhaseFiguresTakeInLateWrites(t *testing.T) {
	_, cfg, err := Load("dual-stack", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []sim.Mode{sim.ModeEndpoints, sim.ModeEndpointSlices} {
		var sum int64
		for _, p := range res.Phases {
			var logged int64
			for _, w := range res.Writes {
				if w.Phase == p.Name && w.Mode == m && w.Outcome == "ok" && w.Latency > 0 {
					logged++
				}
			}
			if got := p.Mode(m).Propagation.Count; got != logged {
				t.Errorf("%s, %s: propagation of %d writes, the write log has %d", p.Name, m, got, logged)
			}
			sum += p.Mode(m).Propagation.Count
		}
		if total := res.Total.Mode(m).Propagation.Count; total != sum {
			t.Errorf("%s: total propagation of %d writes, the phases' add up to %d", m, total, sum)
		}
	}
}
