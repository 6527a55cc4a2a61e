package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// checkStatefulPlan compares a StatefulSet sync's batches with the pass over every ordinal's
// pod (scanOrderedStatefulSet, scanParallelStatefulSet): TestMain sets it for every test of
// the package.
func checkStatefulPlan(s *serviceState, batches []setBatch) {
	want := &setSync{s: s}
	if s.cfg.PodManagementPolicy == PodManagementParallel {
		scanParallelStatefulSet(s, want)
	} else {
		scanOrderedStatefulSet(s, want)
	}
	if !slices.EqualFunc(batches, want.batches, func(a, b setBatch) bool {
		return slices.Equal(a.create, b.create) && slices.Equal(a.delete, b.delete)
	}) {
		panic(fmt.Sprintf("StatefulSet %s: the index plans %d batches, the pass over the ordinals %d: %v, want %v",
			s.svc.Name, len(batches), len(want.batches), batches, want.batches))
	}
}

// scanOrderedStatefulSet plans an OrderedReady sync by reading every ordinal's pod.
// upstream: stateful_set_control.go processReplica, processCondemned (monotonic).
func scanOrderedStatefulSet(s *serviceState, y *setSync) {
	for i := 0; i < s.replicas; i++ {
		p := s.set.ordinals[i]
		if p == nil {
			y.add(setBatch{create: []int{i}})
			return
		}
		if p.pod.Terminating || !p.available {
			return // wait for it (terminating, not yet Running and Ready, or not available)
		}
	}
	// Condemned pods, highest ordinal first. One that is not available waits for the others
	// unless it is the first unhealthy pod: the lowest condemned one not available.
	var firstUnhealthy *podState
	for i := s.replicas; i < len(s.set.ordinals); i++ {
		if p := s.set.ordinals[i]; p != nil && (p.pod.Terminating || !p.available) {
			firstUnhealthy = p
			break
		}
	}
	for i := len(s.set.ordinals) - 1; i >= s.replicas; i-- {
		if p := s.set.ordinals[i]; p != nil {
			if !p.pod.Terminating && (p.available || p == firstUnhealthy) {
				y.add(setBatch{delete: []*podState{p}})
			}
			return
		}
	}
	// Every replica is there, available and not terminating (the loop above returned
	// otherwise): delete up to maxUnavailable pods of an old revision, from the highest
	// ordinal down.
	budget := max(int(s.unavail), 1)
	for i := s.replicas - 1; i >= 0 && budget > 0; i-- {
		if p := s.set.ordinals[i]; p.hash() != s.templateHash() && !p.pod.Terminating {
			y.add(setBatch{delete: []*podState{p}})
			budget--
		}
	}
}

// scanParallelStatefulSet plans a Parallel sync by reading every ordinal's pod.
// upstream: stateful_set_control.go runForAll, processReplica, processCondemned,
// updateStatefulSetAfterInvariantEstablished.
func scanParallelStatefulSet(s *serviceState, y *setSync) {
	slowStart(s.replicas, statefulSetMaxBatchSize, func(lo, hi int) {
		var b setBatch
		for i := lo; i < hi; i++ {
			if s.set.ordinals[i] == nil {
				b.create = append(b.create, i)
			}
		}
		y.add(b)
	})
	var condemned []*podState // highest ordinal first
	for i := len(s.set.ordinals) - 1; i >= s.replicas; i-- {
		if p := s.set.ordinals[i]; p != nil {
			condemned = append(condemned, p)
		}
	}
	deleteCondemned(y, condemned)
	unavailable, needUpdate := 0, 0
	for i := range s.replicas {
		p := s.set.ordinals[i]
		if p == nil || p.pod.Terminating || !p.available {
			unavailable++
			if p != nil && p.hash() != s.templateHash() && !p.pod.Terminating {
				needUpdate++
			}
		}
	}
	budget := max(int(s.unavail), 1)
	if unavailable >= budget && needUpdate == 0 {
		return
	}
	for i := s.replicas - 1; i >= 0; i-- {
		if p := s.set.ordinals[i]; p != nil && p.hash() != s.templateHash() && !p.available && !p.pod.Terminating {
			y.add(setBatch{delete: []*podState{p}})
		}
	}
	for i, left := s.replicas-1, budget-unavailable; i >= 0 && left > 0; i-- {
		if p := s.set.ordinals[i]; p != nil && p.hash() != s.templateHash() && p.available && !p.pod.Terminating {
			y.add(setBatch{delete: []*podState{p}})
			left--
		}
	}
}

// randomDisruption is a random action of those that disturb a workload without changing it:
// up to nodes nodes failing (for a while or for good) or drained, up to pods pods' readiness
// flipped or restarted.
func randomDisruption(rng *rand.Rand, name string, nodes, pods int) Action {
	switch rng.IntN(4) {
	case 0:
		d := []time.Duration{0, 30 * time.Second, 10 * time.Minute}[rng.IntN(3)]
		return Action{Name: name, Kind: ActionFailNodes, Nodes: 1 + rng.IntN(nodes), Duration: d}
	case 1:
		return Action{Name: name, Kind: ActionDrainNodes, Nodes: 1 + rng.IntN(nodes)}
	case 2:
		return Action{Name: name, Kind: ActionFlipReadiness, Pods: 1 + rng.IntN(pods), NotReadyFor: 15 * time.Second}
	}
	return Action{Name: name, Kind: ActionRestartPods, Pods: 1 + rng.IntN(pods)}
}

// TestStatefulSetIndexRandomTimelines runs StatefulSets of both pod management policies
// through random timelines (scaling up and down, rollouts with several maxUnavailable,
// nodes failing, drains, readiness flips, restarts), with every sync's batches checked
// against the pass over the ordinals (TestMain).
func TestStatefulSetIndexRandomTimelines(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 4))
	syncs := 0
	statefulPlanCheck = func(s *serviceState, batches []setBatch) {
		syncs++
		checkStatefulPlan(s, batches)
	}
	defer func() { statefulPlanCheck = checkStatefulPlan }()
	for trial := range 43 {
		replicas := 1 + rng.IntN(150)
		if trial >= 40 {
			// Past the slow start's doubling (511 ordinals), into batches of 500.
			replicas = 1000 + rng.IntN(1000)
		}
		timeline := []Action{{Name: "create", Kind: ActionCreate}}
		for i := range 3 + rng.IntN(4) {
			name := fmt.Sprintf("a%d", i)
			switch rng.IntN(4) {
			case 0, 1:
				timeline = append(timeline, Action{Name: name, Kind: ActionRollout, MaxUnavailable: IntOrPercent{Value: 1 + rng.IntN(10)}})
			case 2:
				timeline = append(timeline, Action{Name: name, Kind: ActionScale, Replicas: rng.IntN(2 * replicas)})
			default:
				timeline = append(timeline, randomDisruption(rng, name, 50, replicas))
			}
		}
		cfg := workloadConfig(replicas, testWorkloads(), timeline...)
		cfg.Services[0].WorkloadKind = KindStatefulSet
		if trial%2 == 0 {
			cfg.Services[0].PodManagementPolicy = PodManagementParallel
		}
		e, err := newEngine(cfg, nil)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		runEngine(t, e, nil)
	}
	if syncs < 1000 {
		t.Errorf("%d StatefulSet syncs checked in 43 runs, want thousands", syncs)
	}
}

// TestOrderedStatefulSetCondemnedWaits: scaling an OrderedReady StatefulSet down deletes the
// highest ordinal first, and one that is not available only when it is the lowest
// condemned pod that is not: else it waits for the others.
// upstream: stateful_set_control.go processCondemned (monotonic: firstUnhealthyPod).
func TestOrderedStatefulSetCondemnedWaits(t *testing.T) {
	cfg := workloadConfig(10, testWorkloads(), Action{Name: "create", Kind: ActionCreate})
	cfg.Services[0].WorkloadKind = KindStatefulSet
	e := ranEngine(t, cfg)
	s := e.services[0]
	s.replicas = 5
	plan := func() []setBatch {
		y := &setSync{s: s}
		planOrderedStatefulSet(s, y)
		checkStatefulPlan(s, y.batches)
		return y.batches
	}
	ord := s.set.ordinals
	s.setAvailable(ord[9], false)
	if b := plan(); len(b) != 1 || !slices.Equal(b[0].delete, []*podState{ord[9]}) {
		t.Fatalf("ordinal 9 the only one not available: batches %v, want ordinal 9 deleted", b)
	}
	s.setAvailable(ord[7], false)
	if b := plan(); len(b) != 0 {
		t.Fatalf("ordinal 7 not available either: batches %v, want ordinal 9 to wait", b)
	}
	s.setAvailable(ord[9], true)
	if b := plan(); len(b) != 1 || !slices.Equal(b[0].delete, []*podState{ord[9]}) {
		t.Fatalf("ordinal 9 available again: batches %v, want it deleted", b)
	}
}
