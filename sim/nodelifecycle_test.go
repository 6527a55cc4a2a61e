package sim

import (
	"math"
	"slices"
	"testing"
	"time"

	"epsim/model"
)

// failRun fails the given nodes of a cluster of 3 zones × 20 nodes, each with one pod of
// "web" (replicas 60), and returns when each failed node's pods turned not ready and when
// they were evicted (relative to the failure), in node order; zero when never. prepare, if
// not nil, runs first on the engine (to set the node lifecycle controller's phases).
func failRun(t *testing.T, prepare func(e *Engine), fail func(e *Engine) []int) (notReady, evicted [][]Time) {
	t.Helper()
	e := failureEngine(t, 60, 60, time.Second)
	if prepare != nil {
		prepare(e)
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

// failureEngine returns an engine of the given nodes (3 zones) and replicas of "web",
// without the Endpoints controller, whose timeline creates the pods and then waits for
// wait: phase 1, in which a test fails nodes.
func failureEngine(t *testing.T, nodes, replicas int, wait time.Duration) *Engine {
	t.Helper()
	cfg := testConfig(nodes, replicas)
	cfg.RunEndpoints = false
	cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate}, {Name: "wait", Kind: ActionWait, Duration: wait}}
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// samePhases gives every node's kubelet Lease renewals one phase, and the monitor passes
// the same, so that nodes failed at once are found not ready by one pass, 50 s later.
func samePhases(e *Engine) {
	nl := e.lifecycle()
	nl.grid = 0
	for i := range nl.leasePhase {
		nl.leasePhase[i] = 0
	}
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

// TestNodeFoundNotReadyFromItsLastRenewal fails one node at a time: it is found not ready
// by the first monitor pass (every 5 s, at the passes' phase) at or after 50 s from the pass
// that saw its kubelet's last Lease renewal (every 10 s, at the node's phase) before the
// failure: 40–55 s after it. Its live Lease GET and then its status update return, and the
// node is not ready.
// upstream: node_lifecycle_controller.go tryUpdateNodeHealth (probeTimestamp, set when a
// pass sees the Lease renewed; gracePeriod; the live Lease GET of
// NodeControllerLeaseCircuitBreaker), monitorNodeHealth (nodeMonitorPeriod);
// kubelet.go (the Lease's renewInterval, 0.25 of its 40 s duration).
func TestNodeFoundNotReadyFromItsLastRenewal(t *testing.T) {
	s := Time(time.Second)
	for _, node := range []int{0, 7, 21, 42, 59} {
		e := failureEngine(t, 60, 60, 2*time.Minute)
		var failedAt, notReadyAt, grid Time
		runEngine(t, e, func() {
			if failedAt == 0 && e.phase == 1 {
				failedAt = e.now
				e.failNode(node)
				grid = e.nodeLC.grid
			}
			if failedAt != 0 && notReadyAt == 0 && !e.nodes[node].Ready {
				notReadyAt = e.now
			}
		})
		nl := e.nodeLC
		renewed := nl.leasePhase[node]
		for renewed+10*s <= failedAt {
			renewed += 10 * s
		}
		seen := grid
		for seen < renewed {
			seen += 5 * s
		}
		for seen-5*s >= renewed {
			seen -= 5 * s
		}
		want := seen + 50*s + 2*nodeLifecycleLatency
		if notReadyAt != want {
			t.Errorf("node %d failed at %v: not ready at %v, want %v (renewed %v, seen %v)", node, failedAt, notReadyAt, want, renewed, seen)
		}
		if d := notReadyAt - 2*nodeLifecycleLatency - failedAt; d <= 40*s || d > 55*s {
			t.Errorf("node %d found %v after its failure, want 40–55 s", node, d)
		}
	}
}

// TestNodeLifecycleEvictionRates checks the pace of taint-based eviction: the node lifecycle
// controller taints a zone's not-ready nodes one at a time, at 0.1 nodes/s when the zone is
// wholly down or mostly healthy; a partially disrupted zone of 50 nodes or fewer stops at
// the end of the pass that finds it so (the nodes the first passes found and a Normal
// zone's limiter let through are tainted), and nothing is when every zone is down. Each
// taint is a GET and a PATCH, by a taint pass (every 100 ms from the end of the last); the
// pods go 300 s after it, their deletes a GET, a status patch and a DELETE later.
// upstream: node_lifecycle_controller.go handleDisruption, ComputeZoneState,
// setLimiterInZone, ReducedQPSFunc, HealthyQPSFunc, doNoExecuteTaintingPass;
// scheduler.EvictionRateLimiterBurst 1; taint_eviction.go addConditionAndDeletePod.
func TestNodeLifecycleEvictionRates(t *testing.T) {
	s := Time(time.Second)
	t.Run("one node", func(t *testing.T) {
		notReady, evicted := failRun(t, nil, func(e *Engine) []int { return zoneNodes(e, 1)[:1] })
		// Found at a pass: its status update returns, then its pod's (notReady); tainted by
		// the first taint pass after the node's returned (the passes run every 100 ms from
		// the start, none having had anything to do) with a GET and a PATCH; the eviction's
		// GET, patch and DELETE.
		queued := notReady[0][0] - nodeLifecycleLatency
		pass := (queued + taintPassPeriod - 1) / taintPassPeriod * taintPassPeriod
		if want := pass + 5*nodeLifecycleLatency + 300*s; evicted[0][0] != want {
			t.Errorf("evicted %v after the failure, want %v (marked at %v, tainted by the pass at %v)", evicted[0][0], want, notReady[0][0], pass)
		}
	})
	t.Run("a whole zone", func(t *testing.T) {
		_, evicted := failRun(t, samePhases, func(e *Engine) []int { return zoneNodes(e, 0) })
		var got []Time
		for _, ev := range evicted {
			got = append(got, ev[0])
		}
		slices.Sort(got)
		if got[0] == 0 || got[0] > 360*s {
			t.Fatalf("first eviction at %v", got[0])
		}
		// The first taint waits for the client, busy marking; then one every 10 s and 10 ms:
		// the zone's token comes 10 s after the pass that took the last one started, and the
		// passes run 100 ms apart from the end of that one, 10 ms (its GET and PATCH) later.
		if d := got[1] - got[0]; d > 10*s+taintPassPeriod {
			t.Errorf("the second eviction came %v after the first, want at most 10.1 s", d)
		}
		for k := 2; k < len(got); k++ {
			if d := got[k] - got[k-1]; d != 10*s+2*nodeLifecycleLatency {
				t.Errorf("eviction %d came %v after the one before, want 10.01 s (all at %v)", k, d, got)
				break
			}
		}
	})
	t.Run("most of a small zone", func(t *testing.T) {
		_, evicted := failRun(t, samePhases, func(e *Engine) []int { return zoneNodes(e, 2)[:12] })
		n := 0
		for _, ev := range evicted {
			if ev[0] != 0 {
				n++
			}
		}
		// The one pass finds all 12 together: the zone's limiter, Normal till the pass ends,
		// lets the first node found through.
		if n != 1 {
			t.Errorf("%d nodes evicted, want 1", n)
		}
	})
	t.Run("every zone", func(t *testing.T) {
		_, evicted := failRun(t, samePhases, func(e *Engine) []int {
			return slices.Concat(zoneNodes(e, 0), zoneNodes(e, 1), zoneNodes(e, 2))
		})
		for _, ev := range evicted {
			if ev[0] != 0 {
				t.Fatalf("a node evicted %v after the failure with every zone down", ev[0])
			}
		}
	})
}

// TestEveryZoneDownTakesTheTaintsOff fails zone a, and zones b and c 100 s later: zone a's
// first nodes are tainted meanwhile, but when the pass finds every zone wholly down, every
// taint comes off and their pods' evictions with it: nothing is evicted.
// upstream: node_lifecycle_controller.go handleDisruption (allAreFullyDisrupted:
// markNodeAsReachable for every node, SwapLimiter(0)); taint_eviction.go
// (cancelWorkWithEvent when the taints are gone).
func TestEveryZoneDownTakesTheTaintsOff(t *testing.T) {
	e := failureEngine(t, 60, 60, 20*time.Minute)
	var at Time
	tainted, evicted := 0, 0
	runEngine(t, e, func() {
		switch {
		case e.phase == 1 && at == 0:
			at = e.now
			for _, i := range zoneNodes(e, 0) {
				e.failNode(i)
			}
		case at != 0 && e.now >= at+Time(100*time.Second) && !e.nodeDown[zoneNodes(e, 1)[0]]:
			for _, i := range slices.Concat(zoneNodes(e, 1), zoneNodes(e, 2)) {
				e.failNode(i)
			}
		}
		if e.nodeLC != nil {
			n := 0
			for _, on := range e.nodeLC.tainted {
				if on {
					n++
				}
			}
			tainted = max(tainted, n)
		}
	})
	for _, p := range e.services[0].pods {
		if p.pod.Terminating {
			evicted++
		}
	}
	if tainted == 0 {
		t.Fatal("no node was tainted before every zone was down")
	}
	if evicted != 0 {
		t.Errorf("%d pods evicted, want none", evicted)
	}
}

// TestSwapLimiter: a zone's new limiter has its token at once when the old one had one,
// and is drained (its token a period away) when it had none, as after a rate of 0.
// upstream: scheduler/rate_limited_queue.go SwapLimiter.
func TestSwapLimiter(t *testing.T) {
	e := &Engine{now: Time(100 * time.Second)}
	z := &evictionZone{qps: 0.1, next: Time(90 * time.Second)}
	e.swapLimiter(z, 0.01)
	if z.qps != 0.01 || z.next != e.now {
		t.Errorf("from a limiter with its token: rate %v, token at %v, want 0.01 at %v", z.qps, z.next, e.now)
	}
	z = &evictionZone{qps: 0.1, next: Time(105 * time.Second)}
	e.swapLimiter(z, 0.01)
	if want := e.now + Time(100*time.Second); z.next != want {
		t.Errorf("from a limiter without its token: token at %v, want %v", z.next, want)
	}
	z = &evictionZone{qps: 0, next: 0}
	e.swapLimiter(z, 0.1)
	if want := e.now + Time(10*time.Second); z.next != want {
		t.Errorf("from a rate of 0: token at %v, want %v", z.next, want)
	}
	z = &evictionZone{qps: 0.1, next: Time(105 * time.Second)}
	e.swapLimiter(z, 0.1)
	if z.next != Time(105*time.Second) {
		t.Errorf("the same rate replaced the limiter: token at %v", z.next)
	}
}

// TestPodsMarkedNotReadyAtTheClientsPace fails 40 nodes of one pod each, found by one pass:
// its 8 workers each take a node, whose live Lease GET and status update return first (8
// nodes not ready at once); each pod's status update follows, one after another on each
// worker. Every call shares the controller's client (20 qps, burst 30) with each node's
// NoSchedule taint (a GET and a PATCH) and the Events it records (one per node and one per
// pod), which its event broadcaster writes one at a time: 120 calls of the workers and 80
// of the taints, with the writer taking about one token in nine (8 workers and it wait on
// the bucket), so the last pod is marked about (200 + 20 − 30) / 20 ≈ 9.5 s into the pass,
// where the pod updates alone would take 0.5 s. (Writing each Event before the next pod, as
// if recording one waited, makes it 12.5 s.)
// upstream: node_lifecycle_controller.go monitorNodeHealth (ParallelizeUntil,
// nodeUpdateWorkerSize 8), tryUpdateNodeHealth (the live Lease GET of
// NodeControllerLeaseCircuitBreaker); controller_utils.go MarkPodsNotReady (UpdateStatus, then
// recorder.Event per pod), RecordNodeStatusChange; doNoScheduleTaintingPass; client-go
// tools/record/event.go (the broadcaster's one writer).
func TestPodsMarkedNotReadyAtTheClientsPace(t *testing.T) {
	notReady, _ := failRun(t, samePhases, func(e *Engine) []int { return slices.Concat(zoneNodes(e, 0), zoneNodes(e, 1)) })
	var got []Time
	for _, nr := range notReady {
		got = append(got, nr...)
	}
	slices.Sort(got)
	if len(got) != 40 {
		t.Fatalf("%d pods on the failed nodes, want 40", len(got))
	}
	first, last := got[0], got[len(got)-1]
	if first-3*nodeLifecycleLatency > 55*Time(time.Second) || first < 40*Time(time.Second) {
		t.Errorf("first pod marked %v after the failure", first)
	}
	if d := last - first; d < 9*Time(time.Second) || d > 10*Time(time.Second) {
		t.Errorf("marking took %v, want about 9.5 s", d)
	}
	// The workers mark at once, till the client's burst is spent (a worker alone marks one
	// pod at a time).
	n := 0
	for _, at := range got {
		if at == first {
			n++
		}
	}
	if n < 2 || n > nodeUpdateWorkers {
		t.Errorf("%d pods marked first, at once, want 2 to %d", n, nodeUpdateWorkers)
	}
}

// TestNodesBackBeforeTheirTurnAreNotMarked fails all 30 nodes (6 pods each) and brings them back 1 s into
// the pass that found them: a node its worker took has all its pods marked, even those
// marked after it is back; a node whose kubelet renewed its Lease (0-10 s after it is back,
// at its own phase) before its worker reached it is found healthy and none of its pods is
// marked; one its worker reached before the renewal is found not ready though back. Every
// marked pod's kubelet writes Ready back at its next status reconcile, and every node's
// Ready comes back.
// upstream: node_lifecycle_controller.go monitorNodeHealth (tryUpdateNodeHealth goes by
// the Lease's renewTime); controller_utils.go MarkPodsNotReady (every pod of the node);
// status_manager.go syncBatch; pkg/kubelet/nodelease.
func TestNodesBackBeforeTheirTurnAreNotMarked(t *testing.T) {
	e := failureEngine(t, 30, 180, time.Minute) // 6 pods a node
	samePhases(e)
	var found, back Time
	// heldAt: when a worker first took the node (its Lease found stale).
	heldAt := map[int]Time{}
	marked := map[*podState]bool{}
	runEngine(t, e, func() {
		switch {
		case e.phase == 1 && found == 0 && !e.nodeDown[0]:
			for i := range e.nodes {
				e.failNode(i)
			}
		case found == 0 && !e.nodes[0].Ready:
			found = e.now
		case found != 0 && back == 0 && e.now >= found+Time(time.Second):
			back = e.now
			for i := range e.nodes {
				evNodeRecover{i, e.nodeEpoch[i]}.apply(e)
			}
		}
		if e.nodeLC != nil {
			for _, wk := range e.nodeLC.workers {
				if _, ok := heldAt[wk.node]; wk.node >= 0 && !ok {
					heldAt[wk.node] = e.now
				}
			}
		}
		for _, p := range e.services[0].pods {
			if found != 0 && p.stage == stageRunning && !p.pod.Ready {
				marked[p] = true
			}
		}
	})
	n := 0
	for _, p := range e.services[0].pods {
		_, held := heldAt[int(p.node)]
		if marked[p] != held {
			t.Errorf("pod %s marked %v, its node taken by a worker %v", p.pod.Name, marked[p], held)
		}
		if marked[p] {
			n++
		}
		if !p.pod.Ready {
			t.Errorf("pod %s not ready at the end", p.pod.Name)
		}
	}
	if n == 0 || n == len(e.services[0].pods) {
		t.Errorf("%d pods marked, want some but not all", n)
	}
	lateButStale := 0
	for i, at := range heldAt {
		if at > back {
			lateButStale++
			if at >= e.nodeLC.renewedAt[i] {
				t.Errorf("node %d taken at %v, after its Lease renewed at %v", i, at, e.nodeLC.renewedAt[i])
			}
		}
	}
	if lateButStale == 0 {
		t.Errorf("no node taken after it was back, before its Lease renewed")
	}
	for i := range e.nodes {
		if !e.nodes[i].Ready {
			t.Errorf("node %d not Ready at the end", i)
		}
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
// marks its pods not ready 40–55 s in; when the node is back, its kubelet's status manager
// (which never saw them not ready) writes Ready back for all of them at its next reconcile
// tick (every 10 s, at the kubelet's own phase), with the Ready condition it kept: the old
// transition time. An older time is no trigger: the
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
	readyAgain := map[*podState]Time{}
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
			if p.pod.Ready && slices.Contains(marked, p) && readyAgain[p] == 0 {
				readyAgain[p] = e.now
			}
		}
	})
	if len(marked) < 2 {
		t.Fatalf("%d pods marked not ready, want the failed node's 2", len(marked))
	}
	// One status manager, one tick: the node's pods are written back together, at a tick
	// of the node's phase.
	at := readyAgain[marked[0]]
	for _, p := range marked {
		if readyAgain[p] != at {
			t.Errorf("pod %s ready again at %v, pod %s at %v: want one tick", p.pod.Name, readyAgain[p], marked[0].pod.Name, at)
		}
		if ph := e.nodeLC.statusPhase[p.node]; (at-ph)%statusReconcilePeriod != 0 {
			t.Errorf("ready again at %v, not a tick of the node's status manager (phase %v)", at, ph)
		}
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
	c.podUpdated(p, &old)
	if got := c.triggerTime(p.svc(), k); got != 0 {
		t.Errorf("an older Ready transition gave the trigger time %v", time.Duration(got))
	}
}

// TestTaintEvictionAtItsClientsPace fails a node of 30 pods: 300 s after its taint the taint
// eviction controller evicts them all at once, each an Event, a GET, a status patch and a
// DELETE through its client (20 qps, burst 30): the 30 GETs and Events come first, then the
// patches, then the DELETEs, the last of 120 calls (120 − 30) / 20 = 4.5 s in. So the pods
// turn terminating over the last 30 calls' 1.45 s, not at one instant.
// upstream: tainteviction/taint_eviction.go processPodOnNode (a timer per pod),
// deletePodHandler, addConditionAndDeletePod.
func TestTaintEvictionAtItsClientsPace(t *testing.T) {
	e := failureEngine(t, 3, 90, 10*time.Minute)
	var pods []*podState
	deleted := map[*podState]Time{}
	runEngine(t, e, func() {
		if e.phase == 1 && pods == nil {
			pods = slices.Clone(e.podsOnNode[0])
			e.failNode(0)
		}
		for _, p := range pods {
			if p.pod.Terminating && deleted[p] == 0 {
				deleted[p] = e.now
			}
		}
	})
	if len(pods) != 30 || len(deleted) != 30 {
		t.Fatalf("%d pods on the node, %d evicted, want 30", len(pods), len(deleted))
	}
	first, last := Time(math.MaxInt64), Time(0)
	for _, at := range deleted {
		first, last = min(first, at), max(last, at)
	}
	if d := last - first; d != Time(29*50*time.Millisecond) {
		t.Errorf("evictions over %v, want 1.45 s", d)
	}
}

// TestNextPassAPeriodAfterALongOne: a node past its grace period while a pass is marking 40
// nodes' pods waits for the next pass, which starts 5 s after the last worker is done; its
// live Lease GET, among the 40 others' (in node order, within the client's burst), and its
// status update follow.
// upstream: node_lifecycle_controller.go Run (wait.UntilWithContext(monitorNodeHealth,
// nodeMonitorPeriod): the period runs from the end of a pass).
func TestNextPassAPeriodAfterALongOne(t *testing.T) {
	e := failureEngine(t, 60, 60, 2*time.Minute)
	samePhases(e)
	late := zoneNodes(e, 2)[0]
	var failed []int
	var lastMarked, lateFound Time
	started, seen := false, map[*podState]bool{}
	runEngine(t, e, func() {
		if e.phase == 1 && failed == nil {
			failed = slices.Concat(zoneNodes(e, 0), zoneNodes(e, 1))
			for _, i := range failed {
				e.failNode(i)
			}
		}
		if !started && failed != nil && e.nodeLC.busy > 0 {
			started = true
			e.failNode(late)
			evNodeDue{late, e.nodeEpoch[late]}.apply(e) // past its grace period now, mid-pass
		}
		for _, i := range failed {
			for _, p := range e.podsOnNode[i] {
				if !p.pod.Ready && p.stage == stageRunning && !seen[p] {
					seen[p] = true
					lastMarked = max(lastMarked, e.now)
				}
			}
		}
		if lateFound == 0 && started && !e.nodes[late].Ready {
			lateFound = e.now
		}
	})
	if want := lastMarked + nodeMonitorPeriod + 2*nodeLifecycleLatency; lateFound != want {
		t.Errorf("the late node found not ready at %v, want %v (the pass ended at %v)", lateFound, want, lastMarked)
	}
}

// TestBackJustBeforeItsEviction fails a node and brings it back shortly before its pods'
// toleration runs out: the taint stays until the kubelet has written the node Ready (at its
// next node status update, every 10 s) and the next monitor pass has seen it, so a node
// back 0.1 s before the eviction, whose kubelet writes 5 s later, has its pods evicted; one
// back 20 s before keeps them.
// upstream: kubelet_node_status.go tryUpdateNodeStatus (nodeStatusUpdateFrequency);
// node_lifecycle_controller.go monitorNodeHealth (markNodeAsReachable);
// taint_eviction.go (a taint removed cancels the pods' timers).
func TestBackJustBeforeItsEviction(t *testing.T) {
	for _, tc := range []struct {
		before  Time
		evicted bool
	}{
		{Time(100 * time.Millisecond), true},
		{Time(20 * time.Second), false},
	} {
		e := failureEngine(t, 60, 60, 10*time.Minute)
		node := zoneNodes(e, 1)[0]
		pods := slices.Clone(e.podsOnNode[node])
		var taintedAt Time
		back, evicted := false, false
		runEngine(t, e, func() {
			if e.phase == 1 && e.nodeLC == nil {
				pods = slices.Clone(e.podsOnNode[node])
				e.failNode(node)
			}
			if e.nodeLC == nil {
				return
			}
			if taintedAt == 0 && e.nodeLC.tainted[node] {
				taintedAt = e.now
				// The taint's GET and PATCH return 2 latencies after the pass; the eviction
				// fires 300 s after that.
				e.schedule(taintedAt+2*nodeLifecycleLatency+defaultTolerationSeconds-tc.before, evNodeRecover{node, e.nodeEpoch[node]})
			}
			if !back && taintedAt != 0 && !e.nodeDown[node] {
				back = true
				e.nodeLC.nodeStatusPhase[node] = posMod(e.now+Time(5*time.Second), nodeStatusUpdatePeriod)
			}
			for _, p := range pods {
				evicted = evicted || p.pod.Terminating
			}
		})
		if !back {
			t.Fatalf("%v before: the node never came back", tc.before)
		}
		if evicted != tc.evicted {
			t.Errorf("back %v before the eviction: evicted %v, want %v", tc.before, evicted, tc.evicted)
		}
	}
}

// TestEvictedPodsReadyAgainBeforeTheyStop fails a node for 10 minutes: its pods are marked
// not ready, then evicted 300 s after the taint; they stay terminating while the node is
// away. When it is back, each one's kubelet takes up the deletion with a status write that
// carries the Ready condition it kept (the readiness probe runs on while a pod terminates):
// ready again, with its transition time from before the failure, then terminal when its
// containers stop (2 s later here).
// upstream: pkg/kubelet/kubelet.go SyncTerminatingPod; prober/worker.go doProbe;
// status/status_manager.go mergePodStatus, updateLastTransitionTime.
func TestEvictedPodsReadyAgainBeforeTheyStop(t *testing.T) {
	cfg := testConfig(3, 6)
	cfg.Timeline = []Action{
		{Name: "create", Kind: ActionCreate},
		{Name: "fail", Kind: ActionFailNodes, Nodes: 1, Duration: 10 * time.Minute},
	}
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	type seen struct {
		before        model.Timestamp
		readyAgain    Time
		readySince    model.Timestamp
		stillStopping bool
	}
	pods := map[*podState]*seen{}
	var order []*podState
	var backAt Time
	node := -1
	runEngine(t, e, func() {
		if e.phase != 1 {
			return
		}
		for _, p := range e.services[0].pods {
			if pods[p] == nil && p.pod.Ready {
				pods[p] = &seen{before: p.pod.ReadyTransition}
				order = append(order, p)
			}
		}
		if node < 0 {
			for i, down := range e.nodeDown {
				if down {
					node = i
				}
			}
		}
		if node >= 0 && backAt == 0 && !e.nodeDown[node] {
			backAt = e.now
		}
		for _, p := range order {
			if s := pods[p]; backAt > 0 && s.readyAgain == 0 && p.pod.Terminating && p.pod.Ready {
				s.readyAgain, s.readySince, s.stillStopping = e.now, p.pod.ReadyTransition, !p.pod.Phase.Terminal()
			}
		}
	})
	if node < 0 || backAt == 0 {
		t.Fatal("no node failed and came back")
	}
	evicted := 0
	for _, p := range order {
		if int(p.node) != node || !p.pod.Terminating {
			continue
		}
		evicted++
		s := pods[p]
		if s.readyAgain != backAt+kubeletTerminatingStatus {
			t.Errorf("pod %s ready again at %v, want %v (the kubelet's status %v after the node is back at %v)",
				p.pod.Name, s.readyAgain, backAt+kubeletTerminatingStatus, kubeletTerminatingStatus, backAt)
		}
		if s.readySince != s.before || !s.stillStopping {
			t.Errorf("pod %s ready again since %v (before the failure: %v), terminating %v: want the kept time, still stopping",
				p.pod.Name, s.readySince, s.before, s.stillStopping)
		}
		if p.pod.Ready || !p.pod.Phase.Terminal() {
			t.Errorf("pod %s ends ready %v, phase %v: want stopped", p.pod.Name, p.pod.Ready, p.pod.Phase)
		}
	}
	if evicted == 0 {
		t.Fatal("no pod of the failed node was evicted")
	}
}

// TestFoundNodesLeasesCheckedAgain fails two zones' 40 nodes, and once their pods are
// marked, the cluster's last node: the pass that finds it checks the live Lease of each of
// the 40 again (they are still past their grace period), in node order before its own, as
// every pass since has. With the client's burst of 30 refilled in the 5 s between passes,
// its GET, the 41st call, waits (41 − 30) / 20 = 0.55 s; then its status update. Without
// the checks it would be found 10 ms into the pass.
// upstream: node_lifecycle_controller.go monitorNodeHealth (every node, every pass),
// tryUpdateNodeHealth (NodeControllerLeaseCircuitBreaker: a live Lease GET for every node
// past its grace period).
func TestFoundNodesLeasesCheckedAgain(t *testing.T) {
	e := failureEngine(t, 60, 60, 3*time.Minute)
	samePhases(e)
	late := len(e.nodes) - 1
	var failed []int
	var lateFailed, pass, lateFound Time
	runEngine(t, e, func() {
		if e.phase == 1 && failed == nil {
			failed = slices.Concat(zoneNodes(e, 0), zoneNodes(e, 1))
			for _, i := range failed {
				e.failNode(i)
			}
		}
		if lateFailed == 0 && failed != nil && e.nodeLC.busy == 0 && !e.nodes[failed[0]].Ready {
			lateFailed = e.now
			e.failNode(late)
		}
		if pass == 0 && lateFailed != 0 && e.nodeLC.busy > 0 && e.nodeLC.lastPass == e.now &&
			slices.Contains(e.nodeLC.todo, dueNode{node: late, epoch: e.nodeEpoch[late]}) {
			pass = e.now // the pass that finds the late node starts
		}
		if lateFound == 0 && lateFailed != 0 && !e.nodes[late].Ready {
			lateFound = e.now
		}
	})
	if slices.Contains(failed, late) || lateFound == 0 {
		t.Fatalf("the late node (%d) failed with the others, or was never found", late)
	}
	if d := lateFound - pass; d < 550*Time(time.Millisecond) || d > 650*Time(time.Millisecond) {
		t.Errorf("the late node found %v into its pass, want 0.55 s and its status update", d)
	}
}

// TestLeaseCheckedOncePerNode: a node back and failed again before its kubelet wrote it
// Ready is both newly past its grace period and found not ready before; its pass checks
// its Lease once, as a node newly past its grace period (its status update follows).
func TestLeaseCheckedOncePerNode(t *testing.T) {
	e := failureEngine(t, 6, 6, time.Minute)
	runEngine(t, e, nil)
	nl := e.lifecycle()
	node := 2
	e.failNode(node)
	e.setNodeReady(node, false) // not ready from the failure before, not yet written Ready
	nl.due = append(nl.due, dueNode{node: node, epoch: e.nodeEpoch[node]})
	evMonitorPass{}.apply(e)
	var got []dueNode
	for _, d := range nl.todo {
		if d.node == node {
			got = append(got, d)
		}
	}
	if len(got) != 1 || got[0].found {
		t.Errorf("node %d in the pass: %+v, want it once, newly past its grace period", node, got)
	}
}

// TestEventWriterQueuesAndDrops records 1,200 Events at once: the writer takes the first,
// 1,000 wait and the other 199 are dropped, as client-go's broadcaster drops Events beyond
// maxQueuedEvents; the writer writes them one after another through its client (20 qps,
// burst 30), the last (1,001 − 30) / 20 ≈ 48.55 s later, and an Event recorded meanwhile
// waits behind them.
// upstream: client-go tools/record/event.go (maxQueuedEvents, DropIfChannelFull).
func TestEventWriterQueuesAndDrops(t *testing.T) {
	e, err := newEngine(testConfig(3, 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	w := &eventWriter{client: newTokenBucket(nodeLifecycleQPS, nodeLifecycleBurst)}
	for range 1200 {
		e.recordEvent(w)
	}
	written, last := 0, Time(0)
	for e.q.Len() > 0 {
		it := e.q.pop()
		e.now = it.at
		if _, ok := it.ev.(evEventWritten); ok {
			written++
			last = e.now
		}
		it.ev.apply(e)
	}
	want := Time(float64(1001-nodeLifecycleBurst)/nodeLifecycleQPS*float64(time.Second)) + nodeLifecycleLatency
	if written != 1001 || w.dropped != 199 || w.writing || w.waiting != 0 {
		t.Errorf("written %d, dropped %d, writing %v, waiting %d; want 1001, 199, false, 0", written, w.dropped, w.writing, w.waiting)
	}
	if d := last - want; d < -Time(time.Millisecond) || d > Time(time.Millisecond) {
		t.Errorf("last Event written at %v, want %v", last, want)
	}
}

// TestVoidedEvictionHoldsNoPhase fails a node for 2 minutes, and for good: its taint comes
// on 40–55 s in, and its pods' eviction 300 s after. Back in 2 minutes, the taint is off
// and the eviction void, so the phase ends once the node's return has settled, not 300 s
// after the taint (it did, idle for some 250 s, which moved every later phase). Down for
// good, nothing else is to come, but the eviction runs, and the phase holds open for it
// and the replacements it causes.
// upstream: pkg/controller/tainteviction/taint_eviction.go handleNodeUpdate (the pods'
// scheduled deletions cancelled when the node has no NoExecute taint).
func TestVoidedEvictionHoldsNoPhase(t *testing.T) {
	for _, tc := range []struct {
		down    time.Duration
		evicted bool
	}{
		{2 * time.Minute, false},
		{0, true}, // for good
	} {
		cfg := testConfig(6, 12)
		cfg.Timeline = []Action{
			{Name: "create", Kind: ActionCreate},
			{Name: "fail", Kind: ActionFailNodes, Nodes: 1, Duration: tc.down},
		}
		res, err := Run(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		fail := res.Phases[1]
		back := fail.Start + Time(tc.down)
		evictionAt := fail.Start + Time(40*time.Second) + defaultTolerationSeconds // the earliest
		if !tc.evicted {
			// Within a minute of the return: the kube-proxies' reconnects and the pods'
			// readiness written back take seconds.
			if fail.End < back || fail.End > back+Time(time.Minute) {
				t.Errorf("down %v: the phase ended %v after the node was back, want within a minute (the eviction, void, was due %v after it)",
					tc.down, fail.End-back, evictionAt-back)
			}
			continue
		}
		if evicted := res.Total.Endpoints.Writes.Update; fail.End < evictionAt || evicted == 0 {
			t.Errorf("down for good: the phase ended at %v, the eviction due at %v or later, with %d Endpoints updates: want it held open for the eviction",
				fail.End, evictionAt, evicted)
		}
	}
}

// TestAvailableOnAFailedNode: a pod ready, but not yet for minReadySeconds, when its node
// fails stays Ready until the node lifecycle controller marks it not ready (40–55 s later),
// and its controller counts it available once minReadySeconds have passed: availability is
// the controller's reading of the Ready condition, not the kubelet's to write. The
// ReplicaSet's and the StatefulSet's status count it. upstream: pkg/api/v1/pod/util.go
// IsPodAvailable; replica_set.go and stateful_set.go (the availability check planned).
func TestAvailableOnAFailedNode(t *testing.T) {
	for _, kind := range []string{KindDeployment, KindStatefulSet} {
		t.Run(kind, func(t *testing.T) {
			cfg := workloadConfig(3, testWorkloads(), Action{Name: "create", Kind: ActionCreate})
			cfg.Cluster.Nodes = 3
			cfg.Services[0].WorkloadKind = kind
			cfg.Services[0].MinReady = 10 * time.Second
			e, err := newEngine(cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			s := e.services[0]
			var victim *podState
			var crossing Time
			seen := false // the victim seen available while still Ready on its failed node
			runEngine(t, e, func() {
				if victim == nil {
					if victim, crossing = readyNotAvailable(s); victim != nil {
						e.failNode(int(victim.node))
					}
					return
				}
				if e.now > crossing && victim.pod.Ready && victim.available {
					seen = true
				}
			})
			if victim == nil {
				t.Fatal("no pod was ever ready and not yet available")
			}
			if !seen {
				t.Errorf("pod %s, ready since %v on a failed node, not available after %v while still ready", victim.pod.Name, virtualTime(victim.pod.ReadyTransition), crossing)
			}
		})
	}
}

// TestTaintQueueTakesNodesBackInTurn fails a zone of 8 nodes for 60-75 s: they are found
// not ready together and tainted one every 10 s, so that most are still queued when they
// come back. Each entry the taint pass takes uses the zone's token: a node back whose kubelet
// has not yet written Ready is tainted all the same (its taint comes off when a monitor
// pass finds it Ready, before its pods' eviction), and one already Ready is let go, the
// next node waiting for the token after it; a node the monitor pass found Ready is off
// the queue. upstream: scheduler/rate_limited_queue.go Try; node_lifecycle_controller.go
// doNoExecuteTaintingPass, markNodeAsReachable.
func TestTaintQueueTakesNodesBackInTurn(t *testing.T) {
	backTainted := 0
	for down := 60 * time.Second; down <= 75*time.Second; down += time.Second {
		e := failureEngine(t, 24, 24, 10*time.Minute)
		var at Time
		var taintTimes []Time
		var tainted []bool
		runEngine(t, e, func() {
			if e.phase == 1 && at == 0 {
				at = e.now
				samePhases(e)
				for _, i := range zoneNodes(e, 0) {
					e.failNode(i)
					e.after(Time(down), evNodeRecover{i, e.nodeEpoch[i]})
				}
			}
			if e.nodeLC == nil {
				return
			}
			if tainted == nil {
				tainted = make([]bool, len(e.nodes))
			}
			for _, i := range zoneNodes(e, 0) {
				if on := e.nodeLC.tainted[i]; on != tainted[i] {
					tainted[i] = on
					if !on {
						continue // untainted
					}
					taintTimes = append(taintTimes, e.now)
					if !e.nodeDown[i] {
						backTainted++
					}
				}
			}
		})
		for k := 1; k < len(taintTimes); k++ {
			if d := taintTimes[k] - taintTimes[k-1]; d < Time(10*time.Second) {
				t.Errorf("down %v: zone taints %v apart (at %v), want 10 s at least", down, d, taintTimes)
				break
			}
		}
		for _, p := range e.services[0].pods {
			if p.pod.Terminating {
				t.Errorf("down %v: pod %s evicted: every node was back long before its eviction", down, p.pod.Name)
				break
			}
		}
		for _, i := range zoneNodes(e, 0) {
			if e.nodeLC.tainted[i] {
				t.Errorf("down %v: node %d still tainted at the end", down, i)
			}
		}
	}
	if backTainted == 0 {
		t.Error("no node back but not yet Ready was tainted: the test does not test")
	}
}

// TestMonitorPassesRunWhileNodesAreDown fails 200 of 300 nodes. Once they are found not
// ready, every pass GETs each one's live Lease: 200 calls, the first 30 from the client's
// burst and the other 170 at 20 qps, so a pass takes about 8.5 s (a little more with the
// taints' and Events' calls), and the next starts 5 s after it ends: 13.5 s apart, not 5. Twenty nodes come back after 3 minutes, the others
// after 6: a node back is found Ready by the first pass that starts after its kubelet wrote
// Ready, up to a pass and a period later, and its taints come off then.
// upstream: node_lifecycle_controller.go Run (wait.UntilWithContext: the period from a
// pass's end), monitorNodeHealth, tryUpdateNodeHealth (NodeControllerLeaseCircuitBreaker),
// processTaintBaseEviction (markNodeAsReachable).
func TestMonitorPassesRunWhileNodesAreDown(t *testing.T) {
	e := failureEngine(t, 300, 300, 10*time.Minute)
	samePhases(e)
	var failed []int
	var starts []Time
	var calls []int64
	var failAt, reported, found Time
	foundAtStart := false
	runEngine(t, e, func() {
		nl := e.nodeLC
		if e.phase == 1 && failed == nil {
			failed = slices.Concat(zoneNodes(e, 0), zoneNodes(e, 1))
			failAt = e.now
			for k, i := range failed {
				back := 6 * Time(time.Minute)
				if k < 20 {
					back = 3 * Time(time.Minute)
				}
				e.failNode(i)
				e.after(back, evNodeRecover{i, e.nodeEpoch[i]})
			}
		}
		if nl == nil || failed == nil {
			return
		}
		if nl.busy > 0 && nl.lastPass == e.now && (len(starts) == 0 || starts[len(starts)-1] != e.now) {
			starts = append(starts, e.now)
			calls = append(calls, nl.client.taken)
		}
		if reported == 0 && len(nl.reported) > 0 {
			reported = e.now
		}
		if reported != 0 && found == 0 && len(nl.reported) == 0 {
			found, foundAtStart = e.now, nl.lastPass == e.now && nl.passQueued == false
		}
	})
	if len(failed) != 200 {
		t.Fatalf("%d nodes failed, want 200", len(failed))
	}
	// The passes between the first minutes' marking and the first nodes back.
	steady := 0
	for k := 1; k < len(starts); k++ {
		if starts[k-1] < failAt+2*Time(time.Minute) || starts[k] > failAt+3*Time(time.Minute) {
			continue
		}
		gap := starts[k] - starts[k-1]
		if gap < 13*Time(time.Second) || gap > 15*Time(time.Second) {
			t.Errorf("passes at %v and %v: %v apart, want 13.5 s or a little more (8.5 s of Lease GETs, the taints' and Events' calls, then 5 s)",
				starts[k-1]-failAt, starts[k]-failAt, gap)
		}
		if n := calls[k] - calls[k-1]; n < 200 {
			t.Errorf("pass at %v: %d calls, want a Lease GET for each of the 200 nodes down", starts[k-1]-failAt, n)
		}
		steady++
	}
	if steady < 3 {
		t.Errorf("%d passes from 2 to 3 minutes into the failure, want 4 or so", steady)
	}
	if reported == 0 || found == 0 {
		t.Fatal("the nodes back were never found Ready")
	}
	if !foundAtStart {
		t.Errorf("the nodes back were found at %v, not at a pass's start", found-failAt)
	}
	if d := found - reported; d <= 0 || d > 14*Time(time.Second) {
		t.Errorf("the nodes back were found %v after their kubelet wrote Ready, want within a pass and its period", d)
	}
}

// TestTaintPassWaitsForEachTaint: one taint pass with a node to taint in each of two zones
// taints the first zone's (a GET, then a PATCH), and only once its PATCH has returned the
// second's; the pass ends when the second's PATCH returns, and the next starts 100 ms
// later at the earliest.
// upstream: node_lifecycle_controller.go doNoExecuteTaintingPass (Try of each zone's queue
// in turn, SwapNodeControllerTaint's calls made in the pass), Run (UntilWithContext).
func TestTaintPassWaitsForEachTaint(t *testing.T) {
	e := failureEngine(t, 6, 6, time.Minute)
	runEngine(t, e, nil)
	nl := e.lifecycle()
	a, b := zoneNodes(e, 0)[0], zoneNodes(e, 1)[0]
	for _, i := range []int{a, b} {
		e.failNode(i)
		e.setNodeReady(i, false)
		z := nl.zones[e.nodes[i].Zone]
		z.next = e.now
		z.queue = append(z.queue, dueNode{node: i, epoch: e.nodeEpoch[i]})
	}
	start := e.now
	nl.taintPassQueued = true
	evTaintPass{nl.taintGen}.apply(e)
	got := map[int]Time{} // when each node's GET returned
	var ended Time
	for nl.tainting && e.q.Len() > 0 {
		if g, ok := applyNext(e).ev.(evTaintGot); ok {
			got[g.node] = e.now
		}
		if !nl.tainting {
			ended = e.now
		}
	}
	lat := nodeLifecycleLatency
	if got[a] != start+lat || got[b] != start+3*lat || ended != start+4*lat {
		t.Errorf("GETs returned at +%v (zone 0) and +%v (zone 1), pass ended at +%v; want +5ms, +15ms (after zone 0's PATCH) and +20ms",
			got[a]-start, got[b]-start, ended-start)
	}
	if !nl.tainted[a] || !nl.tainted[b] {
		t.Errorf("tainted: %v and %v, want both", nl.tainted[a], nl.tainted[b])
	}
	if nl.taintGrid != ended {
		t.Errorf("the passes' period runs from %v, want the pass's end %v", nl.taintGrid, ended)
	}
}

// TestTaintPassComesSoonerForAnotherZone: zone 0 has just tainted a node and has another
// queued, so the next pass with something to do is the one 10 s on, when its token comes.
// A node of zone 1, whose token is there, then joins its queue: the pass on the 100 ms
// period comes for it, not the one 10 s on (upstream runs a pass every 100 ms whatever).
// upstream: node_lifecycle_controller.go Run (UntilWithContext(doNoExecuteTaintingPass,
// NodeEvictionPeriod)).
func TestTaintPassComesSoonerForAnotherZone(t *testing.T) {
	e := failureEngine(t, 6, 6, time.Minute)
	runEngine(t, e, nil)
	nl := e.lifecycle()
	zone0, zone1 := zoneNodes(e, 0), zoneNodes(e, 1)
	fail := func(i int) {
		e.failNode(i)
		e.setNodeReady(i, false)
	}
	fail(zone0[0])
	fail(zone0[1])
	z0 := nl.zones[e.nodes[zone0[0]].Zone]
	z0.next = e.now
	z0.queue = append(z0.queue, dueNode{node: zone0[0], epoch: e.nodeEpoch[zone0[0]]}, dueNode{node: zone0[1], epoch: e.nodeEpoch[zone0[1]]})
	step := func(until func() bool) {
		for !until() && e.q.Len() > 0 {
			applyNext(e)
		}
	}
	e.queueTaintPass()
	step(func() bool { return nl.tainted[zone0[0]] && !nl.tainting })
	if !nl.taintPassQueued || nl.taintPassAt < e.now+9*Time(time.Second) {
		t.Fatalf("after zone 0's first taint: a pass queued %v at %v, want one 10 s on", nl.taintPassQueued, nl.taintPassAt-e.now)
	}
	b := zone1[0]
	fail(b)
	queued := e.now
	e.queueForTaint(b, e.nodeEpoch[b])
	step(func() bool { return nl.tainted[b] })
	if d := e.now - queued; d > taintPassPeriod {
		t.Errorf("zone 1's node tainted %v after it was queued, want within a pass period (%v)", d, taintPassPeriod)
	}
	if nl.tainted[zone0[1]] {
		t.Error("zone 0's second node tainted before its zone's token came")
	}
}

// TestNodeBackThenFailedAgainLosesItsTaints: a node found not ready and tainted comes back,
// its kubelet writes Ready, and it fails again before the next monitor pass. The pass sees
// the node object Ready and takes its taints off (markNodeAsReachable), as upstream's does;
// back again within its grace period, it is never found not ready again, and keeps no
// taint (its pods are not evicted for the old one).
// upstream: node_lifecycle_controller.go monitorNodeHealth (every node, every pass),
// processTaintBaseEviction (markNodeAsReachable when the observed Ready is True).
func TestNodeBackThenFailedAgainLosesItsTaints(t *testing.T) {
	e := failureEngine(t, 30, 30, 20*time.Minute)
	node := 4
	stage := 0
	runEngine(t, e, func() {
		nl := e.nodeLC
		switch {
		case stage == 0 && e.phase == 1:
			e.failNode(node)
			stage = 1
		case stage == 1 && nl != nil && nl.tainted[node]:
			e.schedule(e.now, evNodeRecover{node, e.nodeEpoch[node]})
			stage = 2
		case stage == 2 && e.nodes[node].Ready && len(nl.reported) > 0:
			e.failNode(node) // before the pass that would find it Ready
			e.after(10*Time(time.Second), evNodeRecover{node, e.nodeEpoch[node]})
			stage = 3
		}
	})
	if stage != 3 {
		t.Fatalf("the test's failure sequence stopped at stage %d", stage)
	}
	nl := e.nodeLC
	if e.nodeDown[node] || !e.nodes[node].Ready || nl.tainted[node] || nl.unreachable[node] {
		t.Errorf("node at the end: down %v, Ready %v, tainted %v, unreachable %v; want up, Ready, no taint",
			e.nodeDown[node], e.nodes[node].Ready, nl.tainted[node], nl.unreachable[node])
	}
	for _, p := range e.podsOnNode[node] {
		if p.pod.Terminating {
			t.Errorf("pod %s evicted for a taint that should have come off", p.pod.Name)
		}
	}
}
