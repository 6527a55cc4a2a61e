package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestVictimCandsRandomTimelines rolls Deployments of 1,024 to 3,000 pods by a quarter or
// more at a time and scales them down by hundreds, through random disruptions (nodes
// failing or drained, readiness flips, restarts: the node, liveness and class of the
// candidates change), with every ranking read from a candidate list checked against the
// ranking of the pods' records (TestMain).
func TestVictimCandsRandomTimelines(t *testing.T) {
	if testing.Short() {
		t.Skip("thousands of pods a trial")
	}
	rng := rand.New(rand.NewPCG(15, 6))
	rankings := countVictimChecks(t, &victimCandsCheck)
	for trial := range 6 {
		replicas := victimsCandsMin + rng.IntN(2000)
		timeline := []Action{{Name: "create", Kind: ActionCreate}}
		for i := range 3 + rng.IntN(3) {
			name := fmt.Sprintf("a%d", i)
			switch rng.IntN(3) {
			case 0:
				pct := IntOrPercent{Value: 25 + rng.IntN(50), IsPercent: true}
				timeline = append(timeline, Action{Name: name, Kind: ActionRollout, MaxSurge: pct, MaxUnavailable: pct})
			case 1:
				timeline = append(timeline, Action{Name: name, Kind: ActionScale, Replicas: replicas - 100 - rng.IntN(900)},
					Action{Name: name + "-back", Kind: ActionScale, Replicas: replicas})
			default:
				timeline = append(timeline, randomDisruption(rng, name, 20, 300))
			}
		}
		timeline = append(timeline, Action{Name: "roll", Kind: ActionRollout})
		e, err := newEngine(workloadConfig(replicas, testWorkloads(), timeline...), nil)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		runEngine(t, e, nil)
		if s := e.services[0]; s.victims != nil && len(s.victims.cands) > 0 {
			t.Errorf("trial %d: %d candidate lists kept after the last rollout", trial, len(s.victims.cands))
		}
	}
	if *rankings < 30 {
		t.Errorf("%d rankings read from a candidate list, want dozens", *rankings)
	}
	t.Logf("%d rankings read from a candidate list", *rankings)
}
