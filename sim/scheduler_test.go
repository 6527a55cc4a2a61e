package sim

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// capConfig is a one-zone cluster of nodes nodes that take maxPods pods each (0: the
// default), with one Deployment of replicas pods, scheduled 1 s after their creation.
func capConfig(nodes, maxPods, replicas int, timeline ...Action) Config {
	cfg := testConfig(nodes, replicas)
	cfg.Cluster.Zones = []string{"us-east-1a"}
	cfg.Cluster.MaxPodsPerNode = maxPods
	cfg.RunEndpoints = false
	cfg.Network = NetworkConfig{}
	cfg.Timeline = timeline
	return cfg
}

// podCounts counts s's pods in the API by whether they are bound to a node, and the most
// pods bound to one node and not terminal (what the scheduler's cache counts).
func podCounts(e *Engine, s *serviceState) (bound, pending, most int) {
	for _, p := range s.pods {
		switch {
		case p.stage == stageGone:
		case p.node >= 0:
			bound++
		default:
			pending++
		}
	}
	for _, on := range e.podsOnNode {
		n := 0
		for _, p := range on {
			if !p.pod.Phase.Terminal() {
				n++
			}
		}
		most = max(most, n)
	}
	return bound, pending, most
}

// TestMaxPodsPerNodeCapsPodsPerNode checks that the scheduler binds no pod to a node that
// already holds maxPods pods (NodeResourcesFit's "Too many pods"): the rest stay Pending.
// upstream: pkg/scheduler/framework/plugins/noderesources/fit.go fitsRequest; the kubelet's
// default maxPods, 110 (pkg/kubelet/apis/config/v1beta1/defaults.go).
func TestMaxPodsPerNodeCapsPodsPerNode(t *testing.T) {
	for _, tc := range []struct {
		name                         string
		nodes, maxPods, replicas     int
		wantBound, wantPending, most int
	}{
		{"3 nodes of 5, 20 replicas", 3, 5, 20, 15, 5, 5},
		{"room for all", 4, 5, 20, 20, 0, 5},
		{"default 110 on 2 nodes, 600 replicas", 2, 0, 600, 220, 380, 110},
		{"one pod a node", 7, 1, 9, 7, 2, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := runEngineOf(t, capConfig(tc.nodes, tc.maxPods, tc.replicas, Action{Name: "create", Kind: ActionCreate}), nil)
			if e.sched.firstAttempts != 0 {
				t.Errorf("%d first attempts still counted at the end; want 0", e.sched.firstAttempts)
			}
			bound, pending, most := podCounts(e, e.services[0])
			if bound != tc.wantBound || pending != tc.wantPending || most != tc.most {
				t.Errorf("%d bound, %d pending, at most %d a node; want %d, %d, %d", bound, pending, most, tc.wantBound, tc.wantPending, tc.most)
			}
		})
	}
}

// bindLog notes, at every event of a run, when each pod was bound and when it turned
// terminal.
type bindLog struct {
	created, bound, terminal map[*podState]Time
	phaseOf                  map[*podState]int
	starts                   []Time         // each phase's start
	readyAgain               map[int32]Time // when a node not ready was last ready again
}

func watchBinds(t *testing.T, e *Engine) *bindLog {
	t.Helper()
	l := &bindLog{created: map[*podState]Time{}, bound: map[*podState]Time{}, terminal: map[*podState]Time{}, phaseOf: map[*podState]int{}, readyAgain: map[int32]Time{}}
	var all []*podState
	ready := make([]bool, len(e.nodes))
	for n := range ready {
		ready[n] = true
	}
	runEngine(t, e, func() {
		for len(l.starts) <= e.phase {
			l.starts = append(l.starts, e.phaseStart)
		}
		for n, node := range e.nodes {
			if node.Ready && !ready[n] {
				l.readyAgain[int32(n)] = e.now
			}
			ready[n] = node.Ready
		}
		for _, s := range e.services {
			for _, p := range s.pods {
				if _, ok := l.created[p]; !ok {
					l.created[p], l.phaseOf[p] = e.now, e.phase
					all = append(all, p)
				}
			}
		}
		for _, p := range all {
			if _, ok := l.bound[p]; !ok && p.node >= 0 {
				l.bound[p] = e.now
			}
			if _, ok := l.terminal[p]; !ok && p.pod.Phase.Terminal() {
				l.terminal[p] = e.now
			}
		}
	})
	return l
}

// TestFreedRoomBindsTheOldestUnschedulablePod checks that a pod turning terminal on a full
// node (the scheduler's informer drops it: an AssignedPodDelete event) moves the oldest
// unschedulable pod back to the queue; its backoff (1 s) long over and the active queue
// empty, it is tried at once and bound the scheduling latency (1 s) later.
// upstream: scheduling_queue.go MoveAllToActiveOrBackoffQueue; noderesources/fit.go
// isSchedulableAfterAssignedPodDelete; scheduler.go newPodInformer (no terminal pods).
func TestFreedRoomBindsTheOldestUnschedulablePod(t *testing.T) {
	cfg := capConfig(3, 5, 20, Action{Name: "create", Kind: ActionCreate}, Action{Name: "restart", Kind: ActionRestartPods, Pods: 2})
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := watchBinds(t, e)
	var freed []Time
	for p, at := range l.terminal {
		if p.node >= 0 {
			freed = append(freed, at)
		}
	}
	var rebound []Time // pods of the create phase bound in the restart phase
	for p, at := range l.bound {
		if l.phaseOf[p] == 0 && at >= l.starts[1] {
			rebound = append(rebound, at)
		}
	}
	if len(freed) != 2 || len(rebound) != 2 {
		t.Fatalf("%d pods turned terminal, %d pending pods of the create phase bound after; want 2, 2", len(freed), len(rebound))
	}
	for _, at := range rebound {
		if at != freed[0]+Time(time.Second) && at != freed[1]+Time(time.Second) {
			t.Errorf("a pending pod bound at %v; want 1 s after a pod turned terminal (%v)", at, freed)
		}
	}
	if bound, pending, most := podCounts(e, e.services[0]); bound != 15 || pending != 5 || most != 5 {
		t.Errorf("%d bound, %d pending, at most %d a node; want 15, 5, 5", bound, pending, most)
	}
}

// TestUnschedulablePodsBindWhenTheNodeIsUncordoned checks that pods left without a node by
// a drain (every other node full, the drained one cordoned) are bound once the node is
// uncordoned: a node update that the NodeUnschedulable plugin's hint lets through. Two
// waves: the first node's replacements wait for it to be back, when the second is
// drained, and the second's replacements (the first node full again) wait for the second.
// upstream: pkg/scheduler/eventhandlers.go updateNodeInCache; scheduling_queue.go
// MoveAllToActiveOrBackoffQueue.
func TestUnschedulablePodsBindWhenTheNodeIsUncordoned(t *testing.T) {
	const spread = 4 * time.Minute
	cfg := capConfig(3, 4, 12, Action{Name: "create", Kind: ActionCreate},
		Action{Name: "upgrade", Kind: ActionDrainNodes, Nodes: 2, Waves: 2, Spread: spread})
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := watchBinds(t, e)
	// The waves start at the phase's start and spread/2 later; each wave's nodes are
	// uncordoned when the next starts.
	first, second := l.starts[1]+Time(spread/2), l.starts[1]+Time(spread)
	boundAt := map[Time]int{}
	for p, at := range l.created {
		if l.phaseOf[p] != 1 {
			continue
		}
		got, ok := l.bound[p]
		if !ok {
			t.Errorf("replacement created at %v never bound", at)
			continue
		}
		boundAt[got]++
	}
	want := map[Time]int{first + Time(time.Second): 4, second + Time(time.Second): 4}
	if !maps.Equal(boundAt, want) {
		t.Errorf("replacements bound at %v; want 4 a second after each uncordon, %v", boundAt, want)
	}
	if bound, pending, most := podCounts(e, e.services[0]); bound != 12 || pending != 0 || most != 4 {
		t.Errorf("%d bound, %d pending, at most %d a node; want 12, 0, 4", bound, pending, most)
	}
}

// TestUnschedulablePodsBindWhenTheNodeRecovers checks the replacements of the pods evicted
// from a failed node, with every other node full after two of them: the other two wait
// for the node to be back. Its evicted pods stop once its kubelet is back, before it
// reports ready (while it is not ready, the room they leave lets no pod in); they are
// bound as soon as it is ready: the not-ready taint off is a node update the
// TaintToleration plugin's hint lets through.
// upstream: pkg/scheduler/eventhandlers.go updateNodeInCache;
// framework/plugins/tainttoleration isSchedulableAfterNodeChange.
func TestUnschedulablePodsBindWhenTheNodeRecovers(t *testing.T) {
	cfg := capConfig(3, 5, 12, Action{Name: "create", Kind: ActionCreate},
		Action{Name: "outage", Kind: ActionFailNodes, Nodes: 1, Duration: 400 * time.Second})
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := watchBinds(t, e)
	var failed int32 = -1
	var ready Time = -1 // when the failed node was ready again
	for p, at := range l.terminal {
		if l.phaseOf[p] == 0 && at > l.starts[1] {
			failed = p.node
		}
	}
	var binds []Time
	for p := range l.created {
		if l.phaseOf[p] != 1 {
			continue
		}
		at, ok := l.bound[p]
		if !ok {
			t.Errorf("replacement %s never bound", p.pod.Name)
			continue
		}
		if p.node == failed {
			binds = append(binds, at)
		}
	}
	slices.Sort(binds)
	if failed >= 0 {
		ready = l.readyAgain[failed]
	}
	if len(binds) != 2 || binds[0] != ready+Time(time.Second) || binds[1] != binds[0] {
		t.Errorf("replacements bound to the failed node %d at %v; want two, 1 s after it was ready again at %v", failed, binds, ready)
	}
	if bound, pending, most := podCounts(e, e.services[0]); bound != 12 || pending != 0 || most != 5 {
		t.Errorf("%d bound, %d pending, at most %d a node; want 12, 0, 5", bound, pending, most)
	}
}

// TestDaemonSetPodOnAFullNode checks that a DaemonSet pod is held to its node's maxPods
// too (upstream's DaemonSet pods go through the default scheduler's filters), and takes
// the room a pod of its node leaves before a pod that may go anywhere.
func TestDaemonSetPodOnAFullNode(t *testing.T) {
	cfg := capConfig(2, 3, 6,
		Action{Name: "web", Kind: ActionCreate, Services: []string{"web"}},
		Action{Name: "agents", Kind: ActionCreate, Services: []string{"agent"}},
		Action{Name: "restart", Kind: ActionRestartPods, Services: []string{"web"}, Pods: 1})
	ds := cfg.Services[0]
	ds.Name, ds.WorkloadKind, ds.Replicas = "agent", KindDaemonSet, 0
	cfg.Services = append(cfg.Services, ds)
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := watchBinds(t, e)
	web, agent := e.services[0], e.services[1]
	wb, wp, _ := podCounts(e, web)
	ab, ap, most := podCounts(e, agent)
	if wb != 5 || wp != 1 || ab != 1 || ap != 1 || most != 3 {
		t.Errorf("web %d bound, %d pending; agents %d bound, %d pending; at most %d a node; want 5, 1; 1, 1; 3", wb, wp, ab, ap, most)
	}
	for _, p := range agent.pods {
		if at, ok := l.bound[p]; ok && p.node != p.pinned() {
			t.Errorf("agent pod bound at %v to node %d, pinned to %d", at, p.node, p.pinned())
		}
	}
}

// TestUnschedulablePodsFlushedAfterFiveMinutes checks the scheduling queue's flush: a pod
// unschedulable for longer than podMaxInUnschedulablePodsDuration is tried again at the
// next of the flushes every 30 s, even though no event said it may fit (here the node's
// room grows behind the scheduler's back).
// upstream: scheduling_queue.go flushUnschedulableEntitiesLeftover, Run.
func TestUnschedulablePodsFlushedAfterFiveMinutes(t *testing.T) {
	cfg := capConfig(1, 1, 2, Action{Name: "create", Kind: ActionCreate}, Action{Name: "wait", Kind: ActionWait, Duration: 10 * time.Minute})
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var failedAt, boundAt Time = -1, -1
	var pending *podState
	runEngine(t, e, func() {
		if pending == nil {
			for p, q := range e.sched.byPod {
				pending, failedAt = p, q.failedAt
			}
		}
		if e.phase == 1 && e.sched.maxPods == 1 {
			e.sched.maxPods = 2 // no event: only the flush finds the room
			e.refreshNode(0)
		}
		if pending != nil && boundAt < 0 && pending.node >= 0 {
			boundAt = e.now
		}
	})
	if pending == nil {
		t.Fatal("no pod was unschedulable")
	}
	flush := unschedulableFlushPeriod
	for flush-failedAt <= podMaxInUnschedulablePodsDuration {
		flush += unschedulableFlushPeriod
	}
	if want := flush + Time(time.Second); boundAt != want {
		t.Errorf("the pod unschedulable since %v bound at %v; want %v (the flush at %v, then 1 s)", failedAt, boundAt, want, flush)
	}
}

// TestPodBackoff checks the backoff of an unschedulable pod and when it is tried again.
// Values from upstream v1.37.2: backoff_queue.go calculateBackoffDuration (1 s doubling to
// 10 s), isEntityBackingoff and alignToWindow (whole-second windows); active_queue.go
// unlockedPop (SchedulerPopFromBackoffQ: an idle scheduler pops a backing-off pod).
func TestPodBackoff(t *testing.T) {
	s := func(x float64) Time { return Time(x * float64(time.Second)) }
	for failures, want := range []Time{0, s(1), s(2), s(4), s(8), s(10), s(10)} {
		if got := podBackoff(failures); got != want {
			t.Errorf("podBackoff(%d) = %v, want %v", failures, got, want)
		}
	}
	if got := podBackoff(1000); got != podMaxBackoff {
		t.Errorf("podBackoff(1000) = %v, want %v", got, podMaxBackoff)
	}
	for _, tc := range []struct {
		name                string
		failures            int
		failedAt, now, want Time
		busy                bool
	}{
		{"idle scheduler pops a backing-off pod", 3, s(10.2), s(11), s(11), false},
		{"busy: waits for the window after its backoff", 3, s(10.2), s(11), s(15), true},
		{"busy: backoff over", 1, s(10.2), s(12.5), s(12.5), true},
		{"busy: backoff ends in this window", 1, s(10.2), s(11.5), s(12), true},
		{"busy: capped at 10 s", 9, s(3.7), s(4), s(14), true},
	} {
		if got := retryAt(tc.failures, tc.failedAt, tc.now, tc.busy); got != tc.want {
			t.Errorf("%s: retryAt = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestPlacerMatchesAScan checks the placer's walk of the open nodes against a scan of
// every node from its cursor (the placer before there was an open set), on random open
// sets: the same nodes in the same order.
func TestPlacerMatchesAScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		nodes := 1 + rng.IntN(300)
		open := newBitWalk(nodes)
		isOpen := make([]bool, nodes)
		a := &placer{nodes: nodes, cursor: rng.IntN(nodes)}
		b := *a
		for range 50 {
			n := rng.IntN(nodes)
			isOpen[n] = rng.IntN(3) > 0
			open.set(n, isOpen[n])
			got := a.place(&open)
			want := -1
			for range b.nodes {
				i := b.cursor
				b.cursor = (b.cursor + 1) % b.nodes
				if isOpen[i] {
					want = i
					break
				}
			}
			if got != want || a.cursor != b.cursor {
				t.Fatalf("trial %d: placed on %d (cursor %d), the scan on %d (cursor %d)", trial, got, a.cursor, want, b.cursor)
			}
		}
	}
}

// TestScaleDownDropsUnschedulablePods checks that a scale-down deletes the unschedulable
// pods first (unassigned pods rank first for deletion) and that the scheduling queue
// forgets them: nothing is left to retry.
// upstream: pkg/controller/controller_utils.go ActivePods.Less (unassigned < assigned);
// pkg/scheduler/eventhandlers.go deletePodFromSchedulingQueue.
func TestScaleDownDropsUnschedulablePods(t *testing.T) {
	cfg := capConfig(3, 5, 20, Action{Name: "create", Kind: ActionCreate}, Action{Name: "down", Kind: ActionScale, Replicas: 15})
	e, _ := runEngineOf(t, cfg, nil)
	if bound, pending, _ := podCounts(e, e.services[0]); bound != 15 || pending != 0 {
		t.Errorf("%d bound, %d pending; want 15, 0", bound, pending)
	}
	if n := len(e.sched.byPod); n != 0 {
		t.Errorf("the scheduling queue holds %d pods; want none", n)
	}
}

// TestPodsThatFailAgainBackOffLonger checks the cost and the count of a pod's failed
// attempts with many pods unschedulable. Each pod turning terminal on a full node (an
// AssignedPodDelete) moves every pod NodeResourcesFit rejected back to the queue; one of
// them takes the room and the others fail again: each pending pod has failed once more for
// each such event since its first failure, and so backs off longer. 100 nodes of 2, 1,000
// replicas, 20 of them restarted: the 20 replacements find the nodes full while the pods
// they replace terminate, the 20 rooms go to the oldest pending pods, and the 800 pending
// at the end have all failed 21 times (their backoff at its 10 s cap), with no attempt
// queued for each.
// upstream: scheduling_queue.go MoveAllToActiveOrBackoffQueue, AddUnschedulablePodIfNotPresent
// (UnschedulableCount+1); noderesources/fit.go isSchedulableAfterAssignedPodDelete (Queue
// for any assigned pod deleted); backoff_queue.go calculateBackoffDuration.
func TestPodsThatFailAgainBackOffLonger(t *testing.T) {
	cfg := capConfig(100, 2, 1000, Action{Name: "create", Kind: ActionCreate}, Action{Name: "restart", Kind: ActionRestartPods, Pods: 20})
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	firstFailure := map[*podState]Time{}
	var freed []Time // the AssignedPodDelete events
	terminal := map[*podState]bool{}
	runEngine(t, e, func() {
		for p := range e.sched.byPod {
			if _, ok := firstFailure[p]; !ok {
				firstFailure[p] = e.now
			}
		}
		for _, on := range e.podsOnNode {
			for _, p := range on {
				if p.pod.Phase.Terminal() && !terminal[p] {
					terminal[p] = true
					freed = append(freed, e.now)
				}
			}
		}
	})
	bound, pending, _ := podCounts(e, e.services[0])
	if bound != 200 || pending != 800 || len(e.sched.byPod) != pending || len(freed) != 20 {
		t.Fatalf("%d bound, %d pending, %d in the queue, %d pods freed room; want 200, 800, 800, 20", bound, pending, len(e.sched.byPod), len(freed))
	}
	if e.now-freed[0] >= podMaxInUnschedulablePodsDuration {
		t.Fatalf("the run went on %v after the first room freed: a flush retried pods", e.now-freed[0])
	}
	allRooms := 0
	for p, q := range e.sched.byPod {
		e.sched.catchUp(q)
		want := 1
		for _, at := range freed {
			if at > firstFailure[p] {
				want++
			}
		}
		if q.failures != want {
			t.Errorf("pod %s first failed at %v: %d failures; want %d (1 and the rooms freed since)", p.pod.Name, firstFailure[p], q.failures, want)
		}
		if want == 21 {
			allRooms++
			if q.failedAt != freed[19] || podBackoff(q.failures) != podMaxBackoff {
				t.Errorf("pod %s last failed at %v, backoff %v; want at %v, %v", p.pod.Name, q.failedAt, podBackoff(q.failures), freed[19], podMaxBackoff)
			}
		}
	}
	if allRooms != 800 {
		t.Errorf("%d pods failed 21 times; want all 800 pending", allRooms)
	}
	if events := e.events; events > 20_000 {
		t.Errorf("%d events; want no attempt per pending pod per room freed", events)
	}
}

// TestPendingPodsReported checks that each phase's result counts the pods still Pending at
// its end for want of a node, and the total the run's end: the figures leave their
// endpoints out, and the user must be told. A scale-down that makes room binds them.
func TestPendingPodsReported(t *testing.T) {
	cfg := capConfig(3, 5, 20,
		Action{Name: "create", Kind: ActionCreate},
		Action{Name: "up", Kind: ActionScale, Replicas: 24},
		Action{Name: "down", Kind: ActionScale, Replicas: 15})
	_, res := runEngineOf(t, cfg, nil)
	var got []int64
	for _, p := range res.Phases {
		got = append(got, p.PendingPods)
	}
	if want := []int64{5, 9, 0}; !slices.Equal(got, want) {
		t.Errorf("pending pods at each phase's end: %v; want %v", got, want)
	}
	if res.Total.PendingPods != 0 {
		t.Errorf("total: %d pending pods; want the last phase's, 0", res.Total.PendingPods)
	}
	_, res = runEngineOf(t, capConfig(3, 5, 20, Action{Name: "create", Kind: ActionCreate}), nil)
	if res.Total.PendingPods != 5 {
		t.Errorf("total of a run ending with 5 pods pending: %d", res.Total.PendingPods)
	}
}

// TestFlushOfFullClusterQueuesNoAttempts checks that the five-minute flush fails the pods
// that cannot fit at once rather than queueing an attempt for each: a cluster short of room
// for many pods would otherwise pay events in proportion to its pending pods for every
// five minutes of the run. Over an extra hour with 25 pods pending, the run gains the
// flush's own ticks (120) and nothing for the pods.
func TestFlushOfFullClusterQueuesNoAttempts(t *testing.T) {
	events := func(wait time.Duration) int64 {
		_, res := runEngineOf(t, capConfig(3, 5, 40,
			Action{Name: "create", Kind: ActionCreate},
			Action{Name: "wait", Kind: ActionWait, Duration: wait}), nil)
		if res.Total.PendingPods != 25 {
			t.Fatalf("%d pods pending at the end; want 25", res.Total.PendingPods)
		}
		return res.Events
	}
	one, two := events(time.Hour), events(2*time.Hour)
	if extra := two - one; extra > 130 {
		t.Errorf("an hour more with 25 pods pending costs %d events; want the flush's 120 ticks or so", extra)
	}
}

// TestPodFIFOStaysBounded checks that a queue that never empties does not keep every entry
// it ever held.
func TestPodFIFOStaysBounded(t *testing.T) {
	var f podFIFO
	for i := range 10 {
		f.push(podEntry{gen: int32(i)})
	}
	for i := 10; i < 100_000; i++ {
		en, ok := f.front()
		if !ok || en.gen != int32(i-10) {
			t.Fatalf("front %+v, %v; want gen %d", en, ok, i-10)
		}
		f.pop()
		f.push(podEntry{gen: int32(i)})
	}
	if c := cap(f.entries); c > 64 {
		t.Errorf("10 entries held in an array of %d", c)
	}
}

// TestUnschedulableStatusWrittenWhenItChanges checks the scheduler's PodScheduled=False
// status patch at a failed attempt: written at a pod's first failure, and again only when
// its message changes, each a call of the scheduler's client (whose tokens its bindings
// take too). With 3 nodes of 5 and 20 replicas, 15 pods are bound (15 binding calls; an
// attempt that finds no node makes none), and the 5 that find no node patch their status
// once (5): the flushes every five minutes retry them with the same message, which writes
// nothing. A cordon changes
// the message ("1 node(s) were unschedulable" instead of "1 Too many pods"): the pending
// pod's next failure, at the flush, patches it again.
// upstream: schedule_one.go handleSchedulingFailure, updatePod; pkg/api/v1/pod/util.go
// UpdatePodCondition; framework/types.go FitError.Error; cmd/kube-scheduler/app/options
// createClients (one client for bindings and status patches); scheduleOnePod (no binding
// cycle after a failed scheduling cycle).
func TestUnschedulableStatusWrittenWhenItChanges(t *testing.T) {
	calls := func(cfg Config, cordon bool) (int64, int64) {
		t.Helper()
		e, err := newEngine(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		var pending *podState
		runEngine(t, e, func() {
			if cordon && e.phase == 1 && !e.cordoned[0] {
				e.setCordoned(0, true) // no event retries a pod: the flush finds the change
			}
			if pending == nil {
				for p := range e.sched.byPod {
					pending = p
				}
			}
		})
		if pending == nil || pending.node >= 0 {
			t.Fatal("no pod stayed pending")
		}
		return e.workloads.scheduler.taken, e.podEvents
	}
	wait := Action{Name: "wait", Kind: ActionWait, Duration: 10 * time.Minute}
	if got, _ := calls(capConfig(3, 5, 20, Action{Name: "create", Kind: ActionCreate}, wait), false); got != 20 {
		t.Errorf("3 nodes of 5, 20 replicas, 10 minutes: %d calls of the scheduler's client; want 15 bindings + 5 status patches", got)
	}
	one := capConfig(1, 1, 2, Action{Name: "create", Kind: ActionCreate}, wait)
	same, sameEvents := calls(one, false)
	changed, changedEvents := calls(one, true)
	if same != 2 || changed != 3 {
		t.Errorf("1 node of 1, 2 replicas: %d calls, %d with the node cordoned; want 1 binding + 1 patch, and a second patch", same, changed)
	}
	if changedEvents-sameEvents != 1 {
		t.Errorf("the second patch made %d pod events; want 1 (a pod update)", changedEvents-sameEvents)
	}
}

// TestNoNodeAttemptTakesNoBindingToken: one node with room for one pod, two pods, and a
// scheduler's client of one token every 10 s. The first pod's scheduling cycle finds the
// node and its binding takes the token; the second's, ending at the same time, finds no
// node: it fails then, with no binding call, rather than after waiting 10 s for a token
// it would not use.
// upstream: schedule_one.go scheduleOnePod (a failed scheduling cycle runs no binding
// cycle; handleSchedulingFailure at once).
func TestNoNodeAttemptTakesNoBindingToken(t *testing.T) {
	cfg := capConfig(1, 1, 2, Action{Name: "create", Kind: ActionCreate},
		Action{Name: "wait", Kind: ActionWait, Duration: time.Minute})
	cfg.ControlPlane.Workloads.SchedulerQPS, cfg.ControlPlane.Workloads.SchedulerBurst = 0.1, 1
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var created Time
	var failedAt Time = -1
	runEngine(t, e, func() {
		s := e.services[0]
		if created == 0 && len(s.pods) == 2 {
			created = e.now
		}
		for p, q := range e.sched.byPod {
			if failedAt < 0 && q.failures > 0 && p.node < 0 {
				failedAt = q.failedAt
			}
		}
	})
	if failedAt < 0 {
		t.Fatal("no pod failed to schedule")
	}
	// The pods are created one after the other; each scheduling cycle takes 1 s.
	if d := failedAt - created; d > 2*Time(time.Second) {
		t.Errorf("the pod with no node failed %v after the pods were created, want its scheduling cycle's end (1 s)", d)
	}
}
