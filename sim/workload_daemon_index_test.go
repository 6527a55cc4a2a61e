package sim

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"
)

// TestMain checks every DaemonSet and StatefulSet sync of the package's tests against a pass
// over all nodes or ordinals (scanDaemonSet, checkStatefulPlan), and every scale-down an
// index chose, and every ranking read from a candidate list, against the ranking of every
// pod's record (checkVictims): the indexes must plan what the passes plan.
func TestMain(m *testing.M) {
	daemonPlanCheck = checkDaemonPlan
	statefulPlanCheck = checkStatefulPlan
	replicaSetPlanCheck = checkReplicaSetPlan
	victimsCheck = checkVictims
	victimCandsCheck = checkVictims
	os.Exit(m.Run())
}

// daemonPlanMismatches counts the plans of planDaemonSet that differed from scanDaemonSet's
// (checkDaemonPlan panics at the first, unless a test counts them instead).
var daemonPlanMismatches *int

func checkDaemonPlan(e *Engine, s *serviceState, create []int, del []*podState) {
	wantCreate, wantDel := scanDaemonSet(e, s)
	if slices.Equal(create, wantCreate) && slices.Equal(del, wantDel) {
		return
	}
	if daemonPlanMismatches != nil {
		*daemonPlanMismatches++
		return
	}
	panic(fmt.Sprintf("at %v, DaemonSet %s: the index plans creates on %v and deletes %d pods, a pass over the nodes creates on %v and deletes %d",
		e.now, s.svc.Name, create, len(del), wantCreate, len(wantDel)))
}

// scanDaemonSet plans a sync of s as upstream's rollingUpdate reads it: one pass over every
// node, in node order.
// upstream: daemon_controller.go podsShouldBeOnNode; update.go rollingUpdate.
func scanDaemonSet(e *Engine, s *serviceState) (create []int, del []*podState) {
	if s.surge > 0 {
		return scanSurgingDaemonSet(e, s)
	}
	var replace, candidates, excess []*podState
	unavailable := 0
	for n := range e.nodes {
		p := s.set.daemonOn[n]
		if nw := s.set.surgeOn[n]; nw != nil {
			// Two pods not being deleted: manage deletes the newer.
			excess = append(excess, nw)
			unavailable++
			continue
		}
		switch {
		case p == nil && !e.nodes[n].Ready:
			if s.set.terminatingOn[n] > 0 {
				unavailable++
			}
		case p == nil:
			unavailable++
			if s.set.terminatingOn[n] == 0 {
				create = append(create, n)
			}
		case !p.available:
			unavailable++
			if p.hash() != s.templateHash() {
				replace = append(replace, p)
			}
		case p.hash() != s.templateHash():
			candidates = append(candidates, p)
		}
	}
	if len(create) > 0 || len(excess) > 0 {
		return create[:min(len(create), daemonSetBurstReplicas)], excess[:min(len(excess), daemonSetBurstReplicas)]
	}
	_, unavail := s.daemonStrategy(readyNodes(e))
	budget := min(max(unavail-unavailable, 0), len(candidates))
	del = append(replace, candidates[:budget]...)
	return nil, del[:min(len(del), daemonSetBurstReplicas)]
}

// readyNodes counts the nodes that should run a DaemonSet's pod: the ready ones (the others
// have a NoSchedule taint its pods do not tolerate).
func readyNodes(e *Engine) int {
	n := 0
	for _, node := range e.nodes {
		if node.Ready {
			n++
		}
	}
	return n
}

// scanSurgingDaemonSet is scanDaemonSet for a rollout with maxSurge: manage creates a pod
// on each node with none and deletes each old pod beside a new one that is not ready, or
// whose new one is available; rollingUpdate runs only when manage sent nothing, and
// deletes the old pods on nodes that should not run one (not ready) with no new one beside
// them: at once when not available, else while more nodes have an available pod than
// should run one.
// upstream: daemon_controller.go updateDaemonSet (rollingUpdate once expectations are
// satisfied), podsShouldBeOnNode (allowSurge: oldestOldPod deleted when not ready or
// oldestNewPod available); update.go rollingUpdate (numAvailable, oldPodsToDelete,
// shouldNotRunPodsToDelete).
func scanSurgingDaemonSet(e *Engine, s *serviceState) (create []int, del []*podState) {
	var manage, candidates []int
	var drop, dropCandidates, excess []*podState
	numSurge, numAvailable := 0, 0
	for n := range e.nodes {
		old, nw := s.set.daemonOn[n], s.set.surgeOn[n]
		if nw != nil && nw.hash() != s.templateHash() {
			// Two pods, neither of the current template: manage deletes the newer.
			excess = append(excess, nw)
			numSurge++
			continue
		}
		if old != nil && old.available {
			numAvailable++
		}
		switch {
		case old == nil && !e.nodes[n].Ready:
		case old == nil:
			// Pods being deleted do not count: a node needs one that is not
			// (podsShouldBeOnNode, AllowsSurge: no running pod, create one).
			manage = append(manage, n)
		case old.hash() == s.templateHash():
		case nw == nil && !e.nodes[n].Ready && !old.available:
			drop = append(drop, old)
		case nw == nil && !e.nodes[n].Ready:
			dropCandidates = append(dropCandidates, old)
		case nw == nil && !old.available:
			create = append(create, n)
		case nw == nil:
			candidates = append(candidates, n)
		case !nw.available && old.pod.Ready:
			numSurge++
		default:
			del = append(del, old)
		}
	}
	if len(manage) > 0 || len(del) > 0 || len(excess) > 0 {
		del = append(excess, del...)
		return manage[:min(len(manage), daemonSetBurstReplicas)], del[:min(len(del), daemonSetBurstReplicas)]
	}
	surge, _ := s.daemonStrategy(readyNodes(e))
	room := min(max(surge-numSurge, 0), len(candidates))
	create = append(create, candidates[:room]...)
	del = append(del, drop...)
	if extra := min(numAvailable-readyNodes(e), len(dropCandidates)); extra > 0 && surge > 0 {
		del = append(del, dropCandidates[:extra]...)
	}
	return create[:min(len(create), daemonSetBurstReplicas)], del[:min(len(del), daemonSetBurstReplicas)]
}

// TestDaemonSetIndexAgainstScan runs DaemonSets through what changes their nodes' classes
// (rollouts with several maxUnavailable, nodes failing and coming back, drains, readiness
// flips, pod restarts) on more nodes than burstReplicas, and checks that every sync's plan
// was the full pass's (TestMain's check), and that the check is not idle: a corrupted index
// is caught.
func TestDaemonSetIndexAgainstScan(t *testing.T) {
	build := func(maxSurge, maxUnavailable int) Config {
		cfg := workloadConfig(1, testWorkloads(),
			// Nodes down when the DaemonSet is made get its pods when they are back.
			Action{Name: "fail-first", Kind: ActionFailNodes, Nodes: 30, Duration: 10 * time.Minute},
			Action{Name: "create", Kind: ActionCreate},
			Action{Name: "fail", Kind: ActionFailNodes, Nodes: 40, Duration: 2 * time.Minute},
			Action{Name: "rollout", Kind: ActionRollout, MaxSurge: IntOrPercent{Value: maxSurge}, MaxUnavailable: IntOrPercent{Value: maxUnavailable}},
			Action{Name: "flip", Kind: ActionFlipReadiness, Pods: 30, NotReadyFor: 20 * time.Second},
			Action{Name: "restart", Kind: ActionRestartPods, Pods: 20},
			Action{Name: "drain", Kind: ActionDrainNodes, Nodes: 50},
			Action{Name: "fail-again", Kind: ActionFailNodes, Nodes: 10},
			Action{Name: "rollout-again", Kind: ActionRollout, MaxUnavailable: IntOrPercent{Value: maxSurge + maxUnavailable}},
		)
		cfg.Cluster.Nodes = 300
		cfg.Services[0].WorkloadKind = KindDaemonSet
		return cfg
	}
	for _, c := range []struct{ maxSurge, maxUnavailable int }{{0, 1}, {0, 7}, {0, 400}, {1, 0}, {9, 0}, {400, 0}, {5, 3}} {
		t.Run(fmt.Sprintf("maxSurge=%d,maxUnavailable=%d", c.maxSurge, c.maxUnavailable), func(t *testing.T) {
			e, err := newEngine(build(c.maxSurge, c.maxUnavailable), nil)
			if err != nil {
				t.Fatal(err)
			}
			syncs := 0
			daemonPlanCheck = func(e *Engine, s *serviceState, create []int, del []*podState) {
				syncs++
				checkDaemonPlan(e, s, create, del)
			}
			defer func() { daemonPlanCheck = checkDaemonPlan }()
			runEngine(t, e, nil)
			if syncs < 100 {
				t.Errorf("%d DaemonSet syncs checked, want the rollouts' hundreds", syncs)
			}
		})
	}

	// The check is not idle: an index that loses track of a node (here, each sync's first
	// candidate is silently taken for up to date afterwards) is caught.
	e, err := newEngine(build(0, 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	mismatches := 0
	daemonPlanMismatches = &mismatches
	daemonPlanCheck = func(e *Engine, s *serviceState, create []int, del []*podState) {
		checkDaemonPlan(e, s, create, del)
		if x := &s.set.daemon; x.built {
			if lost := x.appendNodes(nil, 2, 1); len(lost) > 0 {
				x.set(lost[0], daemonNothing)
			}
		}
	}
	defer func() { daemonPlanCheck, daemonPlanMismatches = checkDaemonPlan, nil }()
	runEngine(t, e, nil)
	if mismatches == 0 {
		t.Error("an index that loses nodes planned as the full pass: the check is idle")
	}
}

// TestDaemonSetIndexFollowsNodeReadiness: a node with no daemon pod gets one only while it
// is ready, so the index must see readiness change. No timeline reaches this today (a node's
// pod cannot finish terminating while the node is down, and actions do not overlap a node's
// failure), so the test removes the pod by hand.
func TestDaemonSetIndexFollowsNodeReadiness(t *testing.T) {
	cfg := workloadConfig(1, testWorkloads(), Action{Name: "create", Kind: ActionCreate})
	cfg.Services[0].WorkloadKind = KindDaemonSet
	e := ranEngine(t, cfg)
	s := e.services[0]
	const n = 5
	plan := func() []int {
		create, del := e.planDaemonSet(s)
		checkDaemonPlan(e, s, create, del)
		return create
	}
	if create := plan(); len(create) != 0 {
		t.Fatalf("after the create phase, a sync creates on %v", create)
	}
	e.setNodeReady(n, false)
	s.setPodGone(s.set.daemonOn[n])
	if create := plan(); len(create) != 0 {
		t.Fatalf("node %d not ready and without its pod: a sync creates on %v, want none", n, create)
	}
	e.setNodeReady(n, true)
	if create := plan(); !slices.Equal(create, []int{n}) {
		t.Fatalf("node %d ready again: a sync creates on %v, want [%d]", n, create, n)
	}
}

// TestDaemonSetIndexRandomTimelines runs DaemonSets through random timelines (cluster sizes
// from one node, rollouts with and without surge, nodes failing for a while or for good,
// drains, readiness flips, restarts), with every sync's plan checked against the pass over
// the nodes (TestMain).
func TestDaemonSetIndexRandomTimelines(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 3))
	syncs := 0
	daemonPlanCheck = func(e *Engine, s *serviceState, create []int, del []*podState) {
		syncs++
		checkDaemonPlan(e, s, create, del)
	}
	defer func() { daemonPlanCheck = checkDaemonPlan }()
	for trial := range 30 {
		nodes := 1 + rng.IntN(400)
		timeline := []Action{{Name: "create", Kind: ActionCreate}}
		for i := range 3 + rng.IntN(4) {
			name := fmt.Sprintf("a%d", i)
			if rng.IntN(3) > 0 {
				timeline = append(timeline, randomDisruption(rng, name, nodes, nodes))
				continue
			}
			a := Action{Name: name, Kind: ActionRollout, MaxUnavailable: IntOrPercent{Value: 1 + rng.IntN(20)}}
			if rng.IntN(2) == 0 {
				a.MaxSurge, a.MaxUnavailable = IntOrPercent{Value: 1 + rng.IntN(20)}, IntOrPercent{}
			}
			timeline = append(timeline, a)
		}
		cfg := workloadConfig(1, testWorkloads(), timeline...)
		cfg.Cluster.Nodes = nodes
		cfg.Services[0].WorkloadKind = KindDaemonSet
		cfg.Services[0].Count = 1 + rng.IntN(3)
		e, err := newEngine(cfg, nil)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		runEngine(t, e, nil)
	}
	if syncs < 1000 {
		t.Errorf("%d DaemonSet syncs checked in 30 runs, want thousands", syncs)
	}
}

// TestDaemonSetSurgeManageFirst follows a surging DaemonSet rollout (20 nodes, maxSurge 2)
// in which some old pods go not ready beside their new one. upstream's sync runs manage
// first: it deletes each old pod beside a new one once the new one is available or the
// old one is not ready; a sync whose manage sent calls does not go on to rollingUpdate
// (the informer has not observed them yet), so no sync both retires old pods and surges
// new ones; and an old pod that is not ready is deleted while its new one is still
// unavailable. upstream: daemon_controller.go updateDaemonSet, podsShouldBeOnNode
// (allowSurge).
func TestDaemonSetSurgeManageFirst(t *testing.T) {
	cfg := workloadConfig(1, testWorkloads(),
		Action{Name: "create", Kind: ActionCreate},
		Action{Name: "rollout", Kind: ActionRollout, MaxSurge: IntOrPercent{Value: 2}, MaxUnavailable: IntOrPercent{Value: 0}},
	)
	cfg.Cluster.Nodes = 20
	cfg.Services[0].WorkloadKind = KindDaemonSet
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	mixed, retiredUnready, surged := 0, 0, 0
	daemonPlanCheck = func(e *Engine, s *serviceState, create []int, del []*podState) {
		checkDaemonPlan(e, s, create, del)
		rolling := false
		for _, n := range create {
			if s.set.daemonOn[n] != nil {
				rolling = true // a new pod beside an old one: rollingUpdate's
				surged++
			}
		}
		if rolling && len(del) > 0 {
			mixed++
		}
		for _, p := range del {
			n := p.node
			if nw := s.set.surgeOn[n]; nw != nil && !nw.available && !p.pod.Ready {
				retiredUnready++
			}
		}
	}
	defer func() { daemonPlanCheck = checkDaemonPlan }()
	flipped := 0
	runEngine(t, e, func() {
		// Every other old pod that gets a new one beside it goes not ready.
		s := e.services[0]
		for n, nw := range s.set.surgeOn {
			if old := s.set.daemonOn[n]; nw != nil && !nw.available && old != nil && old.pod.Ready && n%2 == 0 && flipped < 5 {
				e.setReady(old, false)
				flipped++
			}
		}
	})
	if surged == 0 || mixed != 0 || retiredUnready == 0 {
		t.Errorf("%d surge creates, %d syncs that also retired old pods (want 0), %d old pods retired not ready beside an unavailable new one (want some)",
			surged, mixed, retiredUnready)
	}
}

// TestSurgingDaemonSetDropsPodsOfNodesDown follows a surging DaemonSet rollout (20 nodes,
// maxSurge 2) while 5 nodes are down for good. Those nodes should not run the pod (the
// NoSchedule taint of a node not ready) and get no new one; their old pods, not ready
// since the node went, are deleted by the rollout at once. The rest roll as usual. Found by
// `make upstream-daemonset`: the model left them.
// upstream: update.go rollingUpdate (surging: an old pod not available on a node that
// should not run one goes into oldPodsToDelete).
func TestSurgingDaemonSetDropsPodsOfNodesDown(t *testing.T) {
	cfg := workloadConfig(1, testWorkloads(),
		Action{Name: "create", Kind: ActionCreate},
		Action{Name: "fail", Kind: ActionFailNodes, Nodes: 5},
		Action{Name: "rollout", Kind: ActionRollout, MaxSurge: IntOrPercent{Value: 2}},
	)
	cfg.Cluster.Nodes = 20
	cfg.Services[0].WorkloadKind = KindDaemonSet
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	dropped := map[int]bool{}
	daemonPlanCheck = func(e *Engine, s *serviceState, create []int, del []*podState) {
		checkDaemonPlan(e, s, create, del)
		for _, n := range create {
			if !e.nodes[n].Ready {
				t.Errorf("at %v: a new pod on node %d, which is down", e.now, n)
			}
		}
		for _, p := range del {
			if n := int(p.pinned()); !e.nodes[n].Ready {
				dropped[n] = true
			}
		}
	}
	defer func() { daemonPlanCheck = checkDaemonPlan }()
	runEngine(t, e, nil)
	if len(dropped) != 5 {
		t.Errorf("the rollout deleted the old pods of %d nodes that are down (%v), want all 5", len(dropped), dropped)
	}
	s := e.services[0]
	for n := range e.nodes {
		p := s.set.daemonOn[n]
		switch {
		case !e.nodes[n].Ready && p != nil:
			t.Errorf("node %d is down and still has pod %s", n, p.pod.Name)
		case e.nodes[n].Ready && (p == nil || p.hash() != s.templateHash()):
			t.Errorf("node %d is up without a pod of the new template", n)
		}
	}
}

// TestDaemonSetRolloutOverSurgedPods: a rollout without surge that begins while a surging
// one still has a new pod beside an old one on some nodes (56 nodes: maxSurge 10%, then
// maxUnavailable 25% at once). Both of those pods are old now, and a node may keep one
// only: the sync's manage deletes the newer of the two, and that sync replaces nothing
// else (upstream deleted 4 such pods where the model replaced 14 available old ones; found
// by `make upstream-daemonset`, seed 292).
// upstream: daemon_controller.go podsShouldBeOnNode (no surge: all but the oldest running
// pod deleted); update.go findUpdatedPodsOnNode (more than one old pod: not ok).
func TestDaemonSetRolloutOverSurgedPods(t *testing.T) {
	cfg := workloadConfig(1, testWorkloads(),
		Action{Name: "create", Kind: ActionCreate},
		Action{Name: "restart", Kind: ActionRestartPods, Pods: 56},
		Action{Name: "roll", Kind: ActionRollout, MaxUnavailable: IntOrPercent{Value: 19}},
		Action{Name: "surge", Kind: ActionRollout, MaxSurge: IntOrPercent{Value: 10, IsPercent: true}},
		Action{Name: "again", Kind: ActionRollout, MaxUnavailable: IntOrPercent{Value: 25, IsPercent: true}},
	)
	cfg.Cluster.Nodes = 56
	cfg.Services[0].WorkloadKind = KindDaemonSet
	cfg.Services[0].MinReady = 10 * time.Second
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	thinned := 0
	daemonPlanCheck = func(e *Engine, s *serviceState, create []int, del []*podState) {
		checkDaemonPlan(e, s, create, del)
		excess := 0
		for _, p := range del {
			if n := p.pinned(); s.set.surgeOn[n] == p && p.hash() != s.templateHash() {
				excess++
			}
		}
		if excess == 0 {
			return
		}
		thinned += excess
		if len(create) > 0 || excess != len(del) {
			t.Errorf("at %v: a sync deletes %d excess pods, %d pods in all, and creates %d; want the excess ones only",
				e.now, excess, len(del), len(create))
		}
	}
	defer func() { daemonPlanCheck = checkDaemonPlan }()
	runEngine(t, e, nil)
	if thinned == 0 {
		t.Error("no sync deleted the newer of two old pods on a node: the case did not arise")
	}
}

// daemonTerminatingMismatch returns the first node whose count of terminating DaemonSet
// pods (s.set.terminatingOn) is not that of its pods being deleted and not yet terminal, as
// a message, or "".
func daemonTerminatingMismatch(e *Engine, s *serviceState) string {
	count := make([]int32, len(e.nodes))
	for _, p := range s.pods {
		if n := p.pinned(); n >= 0 && p.stage != stageGone && p.pod.Terminating && !p.pod.Phase.Terminal() && p.node >= 0 {
			count[n]++
		}
	}
	for n := range count {
		if count[n] != s.set.terminatingOn[n] {
			return fmt.Sprintf("at %v, node %d counts %d terminating pods, its pods %d", e.now, n, s.set.terminatingOn[n], count[n])
		}
	}
	return ""
}

// TestDaemonSetPendingPodDeleted: a surge pod left Pending on a full node and deleted by
// the next rollout (as an excess pod) goes at once, and holds the node no pod: the node's
// count of terminating pods stays that of its pods (it went to -1, and a later replacement
// without surge no longer waited for the old pod to stop). upstream:
// daemon_controller.go podsShouldBeOnNode; pkg/registry/core/pod/strategy.go
// CheckGracefulDelete (no node: deleted at once).
func TestDaemonSetPendingPodDeleted(t *testing.T) {
	cfg := workloadConfig(1, testWorkloads(),
		Action{Name: "create", Kind: ActionCreate},
		Action{Name: "surge-roll", Kind: ActionRollout, MaxSurge: IntOrPercent{Value: 1}, MaxUnavailable: IntOrPercent{Value: 0}},
		Action{Name: "roll", Kind: ActionRollout, MaxSurge: IntOrPercent{Value: 0}, MaxUnavailable: IntOrPercent{Value: 1}},
	)
	cfg.Cluster.Nodes = 3
	cfg.Cluster.MaxPodsPerNode = 1
	cfg.Services[0].WorkloadKind = KindDaemonSet
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := e.services[0]
	pending := map[*podState]bool{} // the DaemonSet's pods seen Pending
	pendingDeleted, mismatch := 0, ""
	runEngine(t, e, func() {
		for _, p := range s.pods {
			if p.pinned() >= 0 && p.node < 0 && p.stage != stageGone {
				pending[p] = true
			}
		}
		for p := range pending {
			if p.stage == stageGone {
				delete(pending, p)
				if p.node < 0 {
					pendingDeleted++
				}
			}
		}
		if mismatch == "" {
			mismatch = daemonTerminatingMismatch(e, s)
		}
	})
	if pendingDeleted == 0 {
		t.Fatal("no Pending DaemonSet pod was deleted: the test does not test")
	}
	if mismatch != "" {
		t.Error(mismatch)
	}
}

// TestDaemonSetSurgeWithNoNodeReady: with every node not ready no node should run a pod,
// and a percentage maxSurge resolves to 0 of 0: the rolling update takes the path without
// surge, whose maxUnavailable is 0 too, and deletes only the old pods that are not
// available. The ready old pods stay until their nodes' pods are marked not ready.
// upstream: daemon/update.go rollingUpdate (updatedDesiredNodeCounts, the maxSurge == 0
// path); util/daemonset_util.go SurgeCount.
func TestDaemonSetSurgeWithNoNodeReady(t *testing.T) {
	synced, wrong := 0, 0
	daemonPlanCheck = func(e *Engine, s *serviceState, create []int, del []*podState) {
		checkDaemonPlan(e, s, create, del)
		if readyNodes(e) > 0 {
			return
		}
		synced++
		for _, p := range del {
			if p.available {
				wrong++
			}
		}
	}
	defer func() { daemonPlanCheck = checkDaemonPlan }()
	for seed := range uint64(10) {
		for _, nodes := range []int{3, 10} {
			// The surge pods stay Pending on the full nodes: the rollout stalls.
			cfg := workloadConfig(1, testWorkloads(),
				Action{Name: "create", Kind: ActionCreate},
				Action{Name: "roll", Kind: ActionRollout, MaxSurge: IntOrPercent{Value: 34, IsPercent: true}, MaxUnavailable: IntOrPercent{Value: 0}},
				Action{Name: "fail", Kind: ActionFailNodes, Nodes: nodes},
			)
			cfg.Seed = seed
			cfg.Cluster.Nodes = nodes
			cfg.Cluster.MaxPodsPerNode = 1
			cfg.Services[0].WorkloadKind = KindDaemonSet
			ranEngine(t, cfg)
		}
	}
	if synced == 0 {
		t.Fatal("no sync with every node not ready: the test does not test")
	}
	if wrong > 0 {
		t.Errorf("%d available old pods deleted with no node ready (%d syncs)", wrong, synced)
	}
}
