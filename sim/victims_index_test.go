package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// checkVictims panics when an index chose other victims than the ranking of every pod.
func checkVictims(index, ranked []*podState) {
	if !slices.Equal(index, ranked) {
		name := func(ps []*podState) []string {
			var out []string
			for _, p := range ps {
				out = append(out, p.pod.Name)
			}
			return out
		}
		panic(fmt.Sprintf("scale-down victims: the index chose %v, the ranking %v", name(index), name(ranked)))
	}
}

// TestVictimIndexRandomTimelines rolls Deployments a pod or a few at a time (maxSurge 1 to
// 3, maxUnavailable 0) through random disruptions and scales down, with every choice of the
// victim index checked against the ranking of every pod (TestMain).
func TestVictimIndexRandomTimelines(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 5))
	choices := 0
	victimsCheck = func(index, ranked []*podState) {
		choices++
		checkVictims(index, ranked)
	}
	defer func() { victimsCheck = checkVictims }()
	for trial := range 12 {
		replicas := victimsIndexMin + rng.IntN(300)
		timeline := []Action{{Name: "create", Kind: ActionCreate}}
		for i := range 2 + rng.IntN(3) {
			name := fmt.Sprintf("a%d", i)
			switch rng.IntN(3) {
			case 0:
				timeline = append(timeline, Action{Name: name, Kind: ActionRollout,
					MaxSurge: IntOrPercent{Value: 1 + rng.IntN(3)}, MaxUnavailable: IntOrPercent{}})
			case 1:
				timeline = append(timeline, Action{Name: name, Kind: ActionScale, Replicas: replicas - 1 - rng.IntN(8)})
			default:
				timeline = append(timeline, randomDisruption(rng, name, 20, 30))
			}
		}
		timeline = append(timeline, Action{Name: "roll", Kind: ActionRollout, MaxSurge: IntOrPercent{Value: 1}})
		cfg := workloadConfig(replicas, testWorkloads(), timeline...)
		e, err := newEngine(cfg, nil)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		runEngine(t, e, nil)
	}
	if choices < 1000 {
		t.Errorf("%d scale-downs chosen by an index, want thousands", choices)
	}
}
