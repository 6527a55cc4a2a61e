package sim

import (
	"slices"
	"strings"
	"testing"
	"time"

	"epsim/model"
)

// upstreamDaemonStatus computes s's DaemonSet status as upstream's updateDaemonSetStatus
// does, by a pass over every node and every pod: a node should run a pod when it is ready
// (one that is not has a NoSchedule taint its pods do not tolerate); its pods are those
// not both terminal and being deleted (getNodesToDaemonPods), the oldest of them counted
// (podByCreationTimestampAndPhase: scheduled first, then creation time in whole seconds,
// then name).
func upstreamDaemonStatus(e *Engine, s *serviceState) daemonStatus {
	byNode := make([][]*podState, len(e.nodes))
	for _, p := range s.pods {
		if p.stage == stageGone || p.pod.Terminating && p.pod.Phase.Terminal() {
			continue
		}
		n := p.pinned()
		byNode[n] = append(byNode[n], p)
	}
	var st daemonStatus
	for n, pods := range byNode {
		if !e.nodes[n].Ready {
			if len(pods) > 0 {
				st.misscheduled++
			}
			continue
		}
		st.desired++
		if len(pods) == 0 {
			continue
		}
		st.current++
		slices.SortFunc(pods, func(a, b *podState) int {
			if sa, sb := a.pod.NodeName != "", b.pod.NodeName != ""; sa != sb {
				if sa {
					return -1
				}
				return 1
			}
			ta, tb := a.pod.CreationTimestamp.Time().Unix(), b.pod.CreationTimestamp.Time().Unix()
			if ta != tb {
				return int(ta - tb)
			}
			return strings.Compare(a.pod.Name, b.pod.Name)
		})
		oldest := pods[0]
		if oldest.pod.Ready {
			st.ready++
			if oldest.available {
				st.available++
			}
		}
		if oldest.hash() == s.templateHash() {
			st.updated++
		}
	}
	return st
}

// TestDaemonSetStatus checks the status every DaemonSet sync computes against upstream's
// pass over the nodes (upstreamDaemonStatus), through rollouts with and without surge, with
// minReadySeconds, and a node failure (its pod stays, misscheduled, while the node is not
// ready). It also counts the status writes of a rollout on 3 nodes without surge, one node
// at a time, worked out from upstream's code: the sync of the new generation writes
// observedGeneration and updatedNumberScheduled 0; then on each node
//   - the old pod's deletion and the kubelet's status while it stops change nothing: it is
//     still the node's oldest pod, ready and available;
//   - its containers stop: terminal and deleted, it no longer counts (current, ready and
//     available one less): a write, and the same sync creates the new pod;
//   - the new pod observed: current and updated one more: a write;
//   - it turns ready: ready and available one more: a write.
//
// 1 + 3×3 = 10. (The model before counted pod changes: 5 a node, 16 in all.)
// upstream: daemon_controller.go updateDaemonSetStatus, storeDaemonSetStatus.
func TestDaemonSetStatus(t *testing.T) {
	fixedTiming := func(cfg *Config) {
		cfg.Services[0].Timing.Start = Fixed(time.Second)
		cfg.Services[0].Timing.Ready = Fixed(2 * time.Second)
	}
	for _, tc := range []struct {
		name   string
		nodes  int
		change func(cfg *Config)
		action Action
		writes int // in the second phase; 0: not counted
		// misscheduled wants a write reporting a misscheduled pod.
		misscheduled bool
	}{
		{name: "rollout", nodes: 3, change: fixedTiming, writes: 10,
			action: Action{Name: "rollout", Kind: ActionRollout, MaxUnavailable: IntOrPercent{Value: 1}}},
		{name: "rollout-in-pairs", nodes: 20,
			action: Action{Name: "rollout", Kind: ActionRollout, MaxUnavailable: IntOrPercent{Value: 2}}},
		{name: "surge", nodes: 20,
			action: Action{Name: "rollout", Kind: ActionRollout, MaxSurge: IntOrPercent{Value: 3}}},
		{name: "min-ready", nodes: 10, change: func(cfg *Config) { cfg.Services[0].MinReady = 5 * time.Second },
			action: Action{Name: "rollout", Kind: ActionRollout, MaxUnavailable: IntOrPercent{Value: 1}}},
		{name: "node-failure", nodes: 10, misscheduled: true,
			action: Action{Name: "fail", Kind: ActionFailNodes, Nodes: 2, Duration: 2 * time.Minute}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := workloadConfig(1, testWorkloads(), Action{Name: "create", Kind: ActionCreate}, tc.action)
			cfg.Cluster.Nodes = tc.nodes
			cfg.Services[0].WorkloadKind = KindDaemonSet
			if tc.change != nil {
				tc.change(&cfg)
			}
			e, err := newEngine(cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			checked, writes, misscheduled := 0, 0, false
			daemonStatusCheck = func(e *Engine, s *serviceState, got daemonStatus) {
				checked++
				if want := upstreamDaemonStatus(e, s); got != want {
					t.Fatalf("at %v: status %+v, upstream's %+v", e.now, got, want)
				}
			}
			setStatusWritten = func(s *serviceState, st setStatus) {
				if e.phase == 1 {
					writes++
				}
				misscheduled = misscheduled || st.daemon.misscheduled > 0
			}
			defer func() { daemonStatusCheck, setStatusWritten = nil, nil }()
			runEngine(t, e, nil)
			if checked < 2*tc.nodes {
				t.Errorf("%d syncs checked, want at least %d", checked, 2*tc.nodes)
			}
			if tc.writes > 0 && writes != tc.writes {
				t.Errorf("%d status writes in the %s, want %d", writes, tc.action.Name, tc.writes)
			}
			if misscheduled != tc.misscheduled {
				t.Errorf("a status with misscheduled pods written: %v, want %v", misscheduled, tc.misscheduled)
			}
		})
	}
}

// TestDaemonPodOrder checks the order of a node's pods in a DaemonSet's status against
// upstream's podByCreationTimestampAndPhase: scheduled first, then older first by the
// creation time as stored (whole seconds), then by name.
func TestDaemonPodOrder(t *testing.T) {
	pod := func(name string, node int32, created time.Duration) *podState {
		p := &podState{node: node, pod: &model.Pod{PodIdentity: &model.PodIdentity{}}}
		p.pod.Name, p.pod.CreationTimestamp = name, model.Timestamp(created)
		return p
	}
	for _, tc := range []struct {
		a, b *podState
		want bool
	}{
		{pod("b", 0, 5*time.Second), pod("a", -1, time.Second), true}, // scheduled first
		{pod("a", -1, time.Second), pod("b", 0, 5*time.Second), false},
		{pod("b", 0, time.Second), pod("a", 0, 2*time.Second), true},          // older first
		{pod("b", 0, time.Second), pod("a", 0, 1900*time.Millisecond), false}, // same second: by name
		{pod("a", 0, 1900*time.Millisecond), pod("b", 0, time.Second), true},
	} {
		if got := daemonPodBefore(tc.a, tc.b); got != tc.want {
			t.Errorf("%s (node %d, %v) before %s (node %d, %v): %v, want %v", tc.a.pod.Name, tc.a.node,
				tc.a.pod.CreationTimestamp.Time(), tc.b.pod.Name, tc.b.node, tc.b.pod.CreationTimestamp.Time(), got, tc.want)
		}
	}
}

// TestDaemonSetNodeBack checks the status writes of a DaemonSet on 5 nodes while one node
// fails for two minutes, worked out from upstream's code:
//   - the node found not ready gets the NoSchedule taint: the DaemonSet controller's node
//     update queues nothing (the last written status has no misscheduled pod), but the
//     node lifecycle controller marks the pod not ready, and that pod update's sync writes
//     the node as misscheduled (desired 4, misscheduled 1, ready 4);
//   - back, its kubelet writes the node Ready (which takes the taint off) and the pod
//     Ready, each at its own period's next tick. The pod first: its sync sees a
//     misscheduled node and writes nothing; the node update then queues the DaemonSet,
//     whose written status says 1 misscheduled, and its sync writes all 5 ready. The node
//     first: its sync writes desired 5 with the pod still not ready (ready 4), and the
//     pod's writes ready 5.
//
// Before the node update was modelled, nothing queued the DaemonSet when the pod came
// first, and its status said 1 misscheduled for good.
// upstream: daemon_controller.go updateNode, syncNodeUpdate (the misscheduled case),
// updateDaemonSetStatus.
func TestDaemonSetNodeBack(t *testing.T) {
	healthy := daemonStatus{desired: 5, current: 5, ready: 5, updated: 5, available: 5}
	down := daemonStatus{desired: 4, current: 4, misscheduled: 1, ready: 4, updated: 4, available: 4}
	nodeFirst := daemonStatus{desired: 5, current: 5, ready: 4, updated: 5, available: 4}
	sawOrder := map[bool]bool{}
	defer func() { daemonStatusCheck, setStatusWritten = nil, nil }()
	for seed := range uint64(8) {
		cfg := workloadConfig(1, testWorkloads(), Action{Name: "create", Kind: ActionCreate},
			Action{Name: "fail", Kind: ActionFailNodes, Nodes: 1, Duration: 2 * time.Minute})
		cfg.Seed = seed
		cfg.Cluster.Nodes = 5
		cfg.Services[0].WorkloadKind = KindDaemonSet
		e, err := newEngine(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		var written []daemonStatus
		podFirst := false
		setStatusWritten = func(s *serviceState, st setStatus) {
			if e.phase == 1 {
				written = append(written, st.daemon)
			}
		}
		daemonStatusCheck = func(e *Engine, s *serviceState, st daemonStatus) {
			// The pod ready again while its node is not: the pod came first.
			podFirst = podFirst || e.phase == 1 && st.misscheduled == 1 && st.ready == 4 &&
				slices.ContainsFunc(s.pods, func(p *podState) bool { return p.pod.Ready && !e.nodes[p.pinned()].Ready })
		}
		runEngine(t, e, nil)
		want := []daemonStatus{down, nodeFirst, healthy}
		if podFirst {
			want = []daemonStatus{down, healthy}
		}
		sawOrder[podFirst] = true
		if !slices.Equal(written, want) {
			t.Errorf("seed %d (pod first: %v): status writes while a node fails and returns:\n got %+v\nwant %+v", seed, podFirst, written, want)
		}
	}
	if !sawOrder[true] || !sawOrder[false] {
		t.Errorf("8 seeds gave only one order of the node's and the pod's return (pod first: %v)", sawOrder[true])
	}
}

// TestDaemonSetMinReadyRequeue checks when a DaemonSet with minReadySeconds 30 on 3 nodes
// counts its new pods available, their Ready times spread over a few seconds. Upstream's
// DaemonSet controller has no per-pod availability check: a pod turning ready queues the
// DaemonSet 31 s later, and a sync whose status has ready pods not yet available queues it
// 30 s later, but its workqueue keeps one delayed add a key, the earliest. So the sync of
// the first pod's update (at r1) sets r1+30s, the later pods' adds are dropped, the sync at
// r1+30s sees available the pods that turned ready within r1's whole second (Ready
// transitions are whole seconds) and sets r1+60s, when the others are seen:
// (ready, available) = (1,0) (2,0) (3,0) at r1 r2 r3, (3,k) at r1+30s, (3,3) at r1+60s.
// The model before saw each pod available 30 s after it turned ready, each with a sync and
// a write of its own. upstream: daemon_controller.go updatePod (changedToReady),
// updateDaemonSetStatus, enqueueDaemonSetAfter; client-go delaying_queue.go insert.
func TestDaemonSetMinReadyRequeue(t *testing.T) {
	const m = 30 * time.Second
	type write struct {
		at               Time
		ready, available int32
	}
	for seed := range uint64(6) {
		cfg := workloadConfig(1, testWorkloads(), Action{Name: "create", Kind: ActionCreate})
		cfg.Seed = seed
		cfg.Cluster.Nodes = 3
		cfg.Services[0].WorkloadKind = KindDaemonSet
		cfg.Services[0].MinReady = m
		cfg.Services[0].Timing.Start = Fixed(time.Second)
		cfg.Services[0].Timing.Ready = Distribution{Kind: DistUniform, Min: 2 * time.Second, Max: 9 * time.Second}
		e, err := newEngine(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []write
		setStatusWritten = func(s *serviceState, st setStatus) {
			if st.daemon.ready > 0 {
				got = append(got, write{e.now, st.daemon.ready, st.daemon.available})
			}
		}
		readyAt := map[*podState]Time{}
		runEngine(t, e, func() {
			for _, p := range e.services[0].pods {
				if _, ok := readyAt[p]; !ok && p.pod.Ready {
					readyAt[p] = e.now
				}
			}
		})
		setStatusWritten = nil
		var r []Time
		for _, at := range readyAt {
			r = append(r, at)
		}
		slices.Sort(r)
		if len(r) != 3 {
			t.Fatalf("seed %d: %d pods turned ready, want 3", seed, len(r))
		}
		k := int32(0)
		for _, at := range r {
			if virtualTime(timestamp(at)) <= r[0] {
				k++
			}
		}
		want := []write{{r[0], 1, 0}, {r[1], 2, 0}, {r[2], 3, 0}, {r[0] + Time(m), 3, k}}
		if k < 3 {
			want = append(want, write{r[0] + 2*Time(m), 3, 3})
		}
		if !slices.Equal(got, want) {
			t.Errorf("seed %d: status writes (time, ready, available)\n got %v\nwant %v", seed, got, want)
		}
	}
}
