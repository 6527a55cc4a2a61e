package sim

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"epsim/model"
)

// failRun fails the given nodes of a cluster of 3 zones × 20 nodes, each with one pod of
// "web" (replicas 60), and returns when each failed node's pods turned not ready and when
// they were evicted (relative to the failure), in node order; zero when never.
func failRun(t *testing.T, fail func(e *Engine) []int) (notReady, evicted [][]Time) {
	t.Helper()
	cfg := testConfig(60, 60)
	cfg.RunEndpoints = false
	cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate}, {Name: "wait", Kind: ActionWait, Duration: time.Second}}
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var failed []int
	var at Time
	notReadyAt, evictedAt := map[*podState]Time{}, map[*podState]Time{}
	runEngine(t, e, func() {
		if e.phase == 1 && failed == nil {
			at = e.now
			failed = fail(e)
			for _, n := range failed {
				e.failNode(n)
			}
		}
		for _, n := range failed {
			for _, p := range e.podsOnNode[n] {
				if !p.pod.Ready && notReadyAt[p] == 0 {
					notReadyAt[p] = e.now - at
				}
				if p.pod.Terminating && evictedAt[p] == 0 {
					evictedAt[p] = e.now - at
				}
			}
		}
	})
	for _, n := range failed {
		var nr, ev []Time
		for _, p := range e.podsOnNode[n] {
			nr, ev = append(nr, notReadyAt[p]), append(ev, evictedAt[p])
		}
		notReady, evicted = append(notReady, nr), append(evicted, ev)
	}
	return notReady, evicted
}

// zoneNodes returns the nodes of zone z (0..2) of e.
func zoneNodes(e *Engine, z int) []int {
	var out []int
	for i, n := range e.nodes {
		if n.Zone == e.cfg.Cluster.Zones[z] {
			out = append(out, i)
		}
	}
	return out
}

// TestNodeLifecycleEvictionRates checks the pace of taint-based eviction: the node lifecycle
// controller taints a zone's not-ready nodes one at a time, at 0.1 nodes/s when the zone is
// wholly down or mostly healthy, at 0 in a partially disrupted zone of 50 nodes or fewer,
// and not at all when every zone is down; the pods go 300 s after their node's taint.
// upstream: node_lifecycle_controller.go handleDisruption, ComputeZoneState,
// setLimiterInZone, ReducedQPSFunc, HealthyQPSFunc; scheduler.EvictionRateLimiterBurst 1.
func TestNodeLifecycleEvictionRates(t *testing.T) {
	s := Time(time.Second)
	for _, tc := range []struct {
		name string
		fail func(e *Engine) []int
		// want is each failed node's eviction time, in order of taint (0: never).
		want []Time
	}{
		{"one node", func(e *Engine) []int { return zoneNodes(e, 1)[:1] }, []Time{350 * s}},
		{"a whole zone", func(e *Engine) []int { return zoneNodes(e, 0) }, func() []Time {
			var w []Time
			for k := range 20 {
				w = append(w, 350*s+Time(k)*10*s)
			}
			return w
		}()},
		{"most of a small zone", func(e *Engine) []int { return zoneNodes(e, 2)[:12] }, make([]Time, 12)},
		{"every zone", func(e *Engine) []int { return slices.Concat(zoneNodes(e, 0), zoneNodes(e, 1), zoneNodes(e, 2)) }, make([]Time, 60)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, evicted := failRun(t, tc.fail)
			var got []Time
			for _, ev := range evicted {
				if len(ev) != 1 {
					t.Fatalf("a node with %d pods", len(ev))
				}
				got = append(got, ev[0]/s*s)
			}
			slices.Sort(got)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("evictions at %v, want %v", got, tc.want)
			}
		})
	}
}

// TestPodsMarkedNotReadyAtTheClientsPace checks MarkPodsNotReady: one status update per pod
// through the node lifecycle controller's client (20 qps, burst 30), so of 40 pods on failed
// nodes the first 30 turn not ready 50 s (node-monitor-grace-period) and one API latency
// after the failure, and the next one every 50 ms.
// upstream: node_lifecycle_controller.go monitorNodeHealth; controller_utils.go
// MarkPodsNotReady (UpdateStatus per pod).
func TestPodsMarkedNotReadyAtTheClientsPace(t *testing.T) {
	notReady, _ := failRun(t, func(e *Engine) []int { return slices.Concat(zoneNodes(e, 0), zoneNodes(e, 1)) })
	var got []Time
	for _, nr := range notReady {
		got = append(got, nr...)
	}
	slices.Sort(got)
	if len(got) != 40 {
		t.Fatalf("%d pods on the failed nodes, want 40", len(got))
	}
	for k, at := range got {
		want := 50*Time(time.Second) + nodeLifecycleLatency + Time(max(0, k-29))*50*Time(time.Millisecond)
		if at != want {
			t.Fatalf("pod %d turned not ready %v after the failure, want %v", k, at, want)
		}
	}
}

// TestNodesBackBeforeTheirTurnAreNotMarked fails all 60 nodes for 51 s: the node lifecycle
// controller starts marking their pods at 50 s, 30 at once and then one every 50 ms, and
// the nodes it reaches after they are back (at 51 s) are healthy again: 50 pods are marked.
func TestNodesBackBeforeTheirTurnAreNotMarked(t *testing.T) {
	cfg := testConfig(60, 60)
	cfg.RunEndpoints = false
	cfg.Timeline = []Action{
		{Name: "create", Kind: ActionCreate},
		{Name: "blip", Kind: ActionFailNodes, Nodes: 60, Duration: 51 * time.Second},
	}
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	marked := map[*podState]bool{}
	runEngine(t, e, func() {
		if e.phase != 1 {
			return
		}
		for _, p := range e.services[0].pods {
			if p.stage == stageRunning && !p.pod.Ready {
				marked[p] = true
			}
		}
	})
	if len(marked) != 50 {
		t.Errorf("%d pods marked not ready, want the 50 whose turn came before their node was back", len(marked))
	}
}

// TestAFailedNodesKubeletWritesNothing fails every node a second after the pods were
// created, when they are bound but not started (start takes 3 s): no pod gets an IP or
// turns ready while the nodes are down, and the scheduler, which learns of the failure only
// when the node lifecycle controller marks the nodes not ready (50 s), keeps binding pods
// to them meanwhile. When the nodes come back their kubelets start every pod.
// upstream: the kubelet writes a pod's status; node_lifecycle_controller.go (the
// unreachable taint the scheduler filters on comes with the not-ready mark).
func TestAFailedNodesKubeletWritesNothing(t *testing.T) {
	cfg := testConfig(6, 12)
	cfg.RunEndpoints = false
	cfg.Services[0].Timing.Schedule = Fixed(500 * time.Millisecond)
	cfg.Services[0].Timing.Start = Fixed(3 * time.Second)
	cfg.Timeline = []Action{
		{Name: "create", Kind: ActionCreate},
	}
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := e.services[0]
	failed, back := false, false
	runningAtFailure := map[*podState]bool{}
	runEngine(t, e, func() {
		if !failed && e.now >= Time(time.Second) {
			failed = true
			for _, p := range s.pods {
				runningAtFailure[p] = p.stage == stageRunning
			}
			for i := range e.nodes {
				e.failNode(i)
				e.after(Time(2*time.Minute), evNodeRecover{i, e.nodeEpoch[i]})
			}
		}
		if failed && !back {
			if back = !e.nodeDown[0]; back {
				return
			}
			for _, p := range s.pods {
				if p.stage == stageRunning && !runningAtFailure[p] {
					t.Fatalf("at %v, with every node down, pod %s started", e.now, p.pod.Name)
				}
			}
		}
	})
	if !back {
		t.Fatal("the nodes never came back")
	}
	bound := 0
	for _, p := range s.pods {
		if p.node >= 0 {
			bound++
		}
		if p.stage != stageRunning || !p.pod.Ready {
			t.Errorf("pod %s: stage %v, ready %v after the nodes came back", p.pod.Name, p.stage, p.pod.Ready)
		}
	}
	if bound != len(s.pods) {
		t.Errorf("%d of %d pods bound", bound, len(s.pods))
	}
}

// TestReadyAgainWithTheKeptTransition fails a node for 60 s: the node lifecycle controller
// marks its pods not ready at 50 s; when the node is back, its kubelet's status manager
// (which never saw them not ready) writes Ready back within its 10 s reconcile period, with
// the Ready condition it kept: the old transition time. An older time is no trigger: the
// controllers' trackers count only times that moved forward.
// upstream: pkg/kubelet/status/status_manager.go syncBatch, syncPod; k8s.io/endpointslice
// util/trigger_time_tracker.go (podTriggerTime.After(last)).
func TestReadyAgainWithTheKeptTransition(t *testing.T) {
	cfg := testConfig(3, 6)
	cfg.Timeline = []Action{
		{Name: "create", Kind: ActionCreate},
		{Name: "blip", Kind: ActionFailNodes, Nodes: 1, Duration: 60 * time.Second},
	}
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := map[*podState]model.Timestamp{}
	var marked []*podState
	runEngine(t, e, func() {
		if e.phase != 1 {
			return
		}
		for _, p := range e.services[0].pods {
			if _, ok := before[p]; !ok {
				before[p] = p.pod.ReadyTransition
			}
			if !p.pod.Ready && !slices.Contains(marked, p) {
				marked = append(marked, p)
			}
		}
	})
	if len(marked) == 0 {
		t.Fatal("no pod was marked not ready")
	}
	for _, p := range marked {
		if !p.pod.Ready || p.pod.ReadyTransition != before[p] {
			t.Errorf("pod %s: ready %v since %v after the node came back, want ready since %v", p.pod.Name, p.pod.Ready, p.pod.ReadyTransition, before[p])
		}
	}
	// A transition time moving back is no trigger time: the sync after it has none.
	c, p := e.ctls[0], marked[0]
	k := &c.keys[p.svc().idx]
	c.triggerTime(p.svc(), k) // a sync: the tracker has p's time
	old := *p.pod
	next := old
	next.ReadyTransition = old.ReadyTransition - model.Timestamp(time.Second)
	p.setPod(&next)
	c.podUpdated(p, &old, false)
	if got := c.triggerTime(p.svc(), k); got != 0 {
		t.Errorf("an older Ready transition gave the trigger time %v", time.Duration(got))
	}
}
