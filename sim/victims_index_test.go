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

// countVictimChecks sets hook (victimsCheck or victimCandsCheck) to checkVictims and a
// count of its calls, until t ends, and returns the count.
func countVictimChecks(t *testing.T, hook *func(a, b []*podState)) *int {
	n := new(int)
	*hook = func(a, b []*podState) {
		*n++
		checkVictims(a, b)
	}
	t.Cleanup(func() { *hook = checkVictims })
	return n
}

// TestVictimIndexRandomTimelines rolls Deployments a pod or a few at a time (maxSurge 1 to
// 3, maxUnavailable 0) through random disruptions and scales down, with every choice of the
// victim index checked against the ranking of every pod (TestMain).
func TestVictimIndexRandomTimelines(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 5))
	choices := countVictimChecks(t, &victimsCheck)
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
	if *choices < 1000 {
		t.Errorf("%d scale-downs chosen by an index, want thousands", *choices)
	}
}

// TestVictimIndexOnlyForFewAtATime checks when a ReplicaSet keeps a victim index: from its
// victimsIndexAfter-th scale-down of a few pods in a row, not for the few that fall between
// a quarter rollout's scale-downs of hundreds, and no longer once a scale-down of many
// comes or its last pods go (its Service's counts of pods on nodes go with it).
func TestVictimIndexOnlyForFewAtATime(t *testing.T) {
	const replicas = 300
	quarter := IntOrPercent{Value: 25, IsPercent: true}
	// byOne scales the Deployment down by one pod, times times, from replicas.
	byOne := func(name string, replicas, times int) []Action {
		var out []Action
		for i := range times {
			out = append(out, Action{Name: fmt.Sprintf("%s-%d", name, i), Kind: ActionScale, Replicas: replicas - 1 - i})
		}
		return out
	}
	// interrupted is victimsIndexAfter+4 scale-downs of one pod, with one of 20 in the middle.
	half := victimsIndexAfter/2 + 2
	interrupted := append(byOne("a", replicas, half), Action{Name: "many", Kind: ActionScale, Replicas: replicas - half - 20})
	interrupted = append(interrupted, byOne("b", replicas-half-20, half)...)
	tests := []struct {
		name     string
		replicas int
		timeline []Action
		// wantChoices is how many scale-downs an index chose (-1: some), wantKept whether
		// an index is kept at the end.
		wantChoices int
		wantKept    bool
	}{
		{"a quarter at a time, surging", 2000, []Action{{Name: "roll", Kind: ActionRollout, MaxSurge: quarter, MaxUnavailable: IntOrPercent{}}}, 0, false},
		{"a pod at a time", replicas, byOne("down", replicas, 20), 20 - victimsIndexAfter + 1, true},
		{"a pod at a time, then many", replicas, append(byOne("down", replicas, 20), Action{Name: "many", Kind: ActionScale, Replicas: 200}), 20 - victimsIndexAfter + 1, false},
		{"a pod at a time, interrupted by many", replicas, interrupted, 0, false},
		{"a rollout a pod at a time", replicas, []Action{{Name: "roll", Kind: ActionRollout, MaxSurge: IntOrPercent{Value: 1}}}, -1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			choices := countVictimChecks(t, &victimsCheck)
			timeline := append([]Action{{Name: "create", Kind: ActionCreate}}, tt.timeline...)
			e, err := newEngine(workloadConfig(tt.replicas, testWorkloads(), timeline...), nil)
			if err != nil {
				t.Fatal(err)
			}
			runEngine(t, e, nil)
			if tt.wantChoices >= 0 && *choices != tt.wantChoices || tt.wantChoices < 0 && *choices == 0 {
				t.Errorf("an index chose %d scale-downs' victims, want %d (-1: some)", *choices, tt.wantChoices)
			}
			s := e.services[0]
			kept := s.victims != nil
			for _, rs := range append(slices.Clone(s.oldRSs), s.newRS) {
				if rs.rare != nil && rs.rare.victims != nil && !kept {
					t.Errorf("ReplicaSet %s keeps an index its Service does not count for", rs.hash)
				}
			}
			if kept != tt.wantKept {
				t.Errorf("an index is kept at the end: %v, want %v", kept, tt.wantKept)
			}
			if e.workloads.victims.calls == 0 {
				t.Error("no scale-down was ranked")
			}
		})
	}
}

// TestPrunedReplicaSetDropsItsVictimIndex checks that an old ReplicaSet pruned with its
// index and candidate list still kept (its last pods gone by other means than a
// scale-down) lets go of them.
func TestPrunedReplicaSetDropsItsVictimIndex(t *testing.T) {
	timeline := []Action{{Name: "create", Kind: ActionCreate}}
	for i := range victimsIndexAfter + 1 {
		timeline = append(timeline, Action{Name: fmt.Sprintf("down-%d", i), Kind: ActionScale, Replicas: 299 - i})
	}
	e, err := newEngine(workloadConfig(300, testWorkloads(), timeline...), nil)
	if err != nil {
		t.Fatal(err)
	}
	runEngine(t, e, nil)
	s := e.services[0]
	rs := s.newRS
	if rs.rare == nil || rs.rare.victims == nil || s.victims == nil {
		t.Fatal("no index was built: the test needs one")
	}
	e.workloads.buildVictimCands(rs)
	// rs as an old ReplicaSet with nothing left, behind a newer one.
	rs.spec, rs.live, rs.available, rs.ready, rs.status = 0, 0, 0, 0, rsStatus{}
	s.oldRSs = []*replicaSet{rs, {svc: s, hash: "newer"}}
	s.pruneOldRSs()
	if len(s.oldRSs) != 1 {
		t.Fatalf("%d old ReplicaSets after pruning, want 1", len(s.oldRSs))
	}
	if rs.rare.victims != nil || rs.rare.cands != nil || s.victims != nil {
		t.Errorf("the pruned ReplicaSet still keeps its index (%v) or list (%v), or its Service their counts (%v)",
			rs.rare.victims != nil, rs.rare.cands != nil, s.victims != nil)
	}
}
