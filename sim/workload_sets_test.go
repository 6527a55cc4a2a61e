package sim

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"epsim/model"
)

// TestSetCreatesInSlowStartBatches checks the calls of a DaemonSet's and of a Parallel
// StatefulSet's first sync: their creates go in slow-start batches of 1, 2, 4… (the
// StatefulSet's over its ordinals, the DaemonSet's over the nodes that need a pod), each
// batch when the previous one's calls have returned (5 ms here), not all at once.
// upstream: pkg/controller/daemon/daemon_controller.go syncNodes;
// pkg/controller/statefulset/stateful_set_control.go runForAll, slowStartBatch.
func TestSetCreatesInSlowStartBatches(t *testing.T) {
	for _, tc := range []struct {
		kind, policy string
		replicas     int
		want         []int
	}{
		{KindDaemonSet, "", 1, []int{1, 2, 4, 8, 16, 19}}, // 50 nodes
		{KindStatefulSet, PodManagementParallel, 40, []int{1, 2, 4, 8, 16, 9}},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			w := testWorkloads()
			w.StatefulSet.QPS, w.DaemonSet.QPS = 0, 0 // unlimited: the batches show the slow start only
			times := createSet(t, w, tc.kind, tc.policy, tc.replicas)
			if got := batches(times); !slices.Equal(got, tc.want) {
				t.Fatalf("create batches = %v, want %v", got, tc.want)
			}
			if d := times[1] - times[0]; d != Time(5*time.Millisecond) {
				t.Errorf("second batch %v after the first, want one 5ms API call", d)
			}
		})
	}
}

// TestStatefulSetParallel checks a Parallel StatefulSet against upstream: every pod is
// created at once, not waiting for the lower ordinals to be ready; a rolling update deletes
// pods of the old revision from the highest ordinal down while fewer than maxUnavailable
// replicas are unavailable; a scale-down deletes every condemned pod at once.
// upstream: pkg/controller/statefulset/stateful_set_control.go updateStatefulSet
// (monotonic false), updateStatefulSetAfterInvariantEstablished (Parallel's two phases).
func TestStatefulSetParallel(t *testing.T) {
	const n = 6
	cfg := workloadConfig(n, testWorkloads(),
		Action{Name: "create", Kind: ActionCreate},
		Action{Name: "rollout", Kind: ActionRollout, MaxUnavailable: IntOrPercent{Value: 2}},
		Action{Name: "scale", Kind: ActionScale, Replicas: 2},
	)
	cfg.Services[0].WorkloadKind = KindStatefulSet
	cfg.Services[0].PodManagementPolicy = PodManagementParallel
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := e.services[0]
	created, readyBeforeAll := 0, false
	worst := 0
	terminatingAtOnce := 0
	var deleted []int
	runEngine(t, e, func() {
		switch e.phase {
		case 0:
			live, ready := 0, 0
			for _, p := range s.set.ordinals {
				if p != nil {
					live++
					if p.pod.Ready {
						ready++
					}
				}
			}
			readyBeforeAll = readyBeforeAll || ready > 0 && live < n
			created = max(created, live)
		case 1:
			down := 0
			for _, p := range s.set.ordinals {
				if p == nil || p.pod.Terminating || !p.available {
					down++
				}
			}
			worst = max(worst, down)
		case 2:
			term := 0
			for i, p := range s.set.ordinals {
				if p != nil && p.pod.Terminating {
					term++
					if !slices.Contains(deleted, i) {
						deleted = append(deleted, i)
					}
				}
			}
			terminatingAtOnce = max(terminatingAtOnce, term)
		}
	})
	if created != n || readyBeforeAll {
		t.Errorf("created %d pods, a pod ready before all were created: %v; want all %d created at once", created, readyBeforeAll, n)
	}
	if worst != 2 {
		t.Errorf("at most %d of %d pods unavailable during the rollout, want maxUnavailable 2", worst, n)
	}
	if want := []int{5, 4, 3, 2}; !slices.Equal(deleted, want) || terminatingAtOnce != 4 {
		t.Errorf("scale-down to 2 deleted ordinals %v, %d terminating at once; want %v all at once", deleted, terminatingAtOnce, want)
	}
	for i := range 2 {
		if p := s.set.ordinals[i]; p == nil || p.hash() != s.templateHash() {
			t.Fatalf("ordinal %d not updated", i)
		}
	}
}

// TestStatefulSetParallelReplacesUnavailableFirst checks Parallel's first rollout phase: pods
// of the old revision that are not available are deleted whatever the budget, as upstream
// does so that a budget spent on healthy pods does not leave them for last.
// upstream: stateful_set_control.go updateStatefulSetAfterInvariantEstablished (Phase 1).
func TestStatefulSetParallelReplacesUnavailableFirst(t *testing.T) {
	s := &serviceState{replicas: 4, unavail: 1, cfg: &ServiceConfig{WorkloadKind: KindStatefulSet, PodManagementPolicy: PodManagementParallel}}
	old := &replicaSet{hash: "old"}
	s.set = &setState{ordinals: make([]*podState, 4), revision: &replicaSet{hash: "new"}}
	for i := range 4 {
		p := &podState{owner: old, available: i != 1 && i != 2, pod: &model.Pod{PodIdentity: model.NewPodIdentity("default", fmt.Sprintf("p-%d", i), "")}}
		s.set.ordinals[i] = p
	}
	y := &setSync{s: s}
	planParallelStatefulSet(s, y)
	var got []string
	for _, b := range y.batches {
		got = append(got, fmt.Sprint(len(b.create), len(b.delete)))
		for _, p := range b.delete {
			got = append(got, p.pod.Name)
		}
	}
	// Two unavailable of the old revision ≥ the budget of 1: both go, one call after another,
	// and no available one.
	if want := []string{"0 1", "p-2", "0 1", "p-1"}; !slices.Equal(got, want) {
		t.Errorf("batches %v, want %v", got, want)
	}
}

// TestSetEventsTakeTheClientsTokens checks that the DaemonSet and StatefulSet controllers'
// Events (SuccessfulCreate, one per pod, about the workload, under its spam filter of 25)
// are written through their own clients: with a burst of 1 at 20 qps, 50 daemon pods take
// 50 creates and 25 Events, token k at k × 50 ms.
// upstream: daemon_controller.go (StartRecordingToSink on its kubeClient), controller_utils.go
// RealPodControl; statefulset/stateful_pod_control.go recordPodEvent; client-go
// tools/record/events_cache.go (defaultSpamBurst 25).
func TestSetEventsTakeTheClientsTokens(t *testing.T) {
	for _, tc := range []struct {
		kind, policy string
		replicas     int
	}{
		{KindDaemonSet, "", 1}, // 50 nodes
		{KindStatefulSet, PodManagementParallel, 50},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			w := testWorkloads()
			w.StatefulSet.Burst, w.DaemonSet.Burst = 1, 1
			times := createSet(t, w, tc.kind, tc.policy, tc.replicas)
			if len(times) != 50 {
				t.Fatalf("%d pods created, want 50", len(times))
			}
			// The last create's token is one of the last few: the Events of its own batch
			// take theirs when the calls return.
			last := times[len(times)-1].Seconds()
			if lo, hi := 0.05*(50+25-12), 0.05*(50+25)+0.1; last < lo || last > hi {
				t.Errorf("last pod created at %.2f s, want %.2f to %.2f s (a token per create and per Event)", last, lo, hi)
			}
		})
	}
}

// createSet runs the creation of one StatefulSet or DaemonSet of replicas pods at the pace w
// and returns the times its pods were created, in order.
func createSet(t *testing.T, w WorkloadsConfig, kind, policy string, replicas int) []Time {
	t.Helper()
	cfg := workloadConfig(replicas, w, Action{Name: "create", Kind: ActionCreate})
	cfg.Services[0].WorkloadKind, cfg.Services[0].PodManagementPolicy = kind, policy
	log := &podLog{}
	if _, err := Run(cfg, log); err != nil {
		t.Fatal(err)
	}
	return log.added()
}

// TestPodNamesPerWorkloadKind checks the names the workload controllers give their pods, as
// upstream's do: a StatefulSet's pods are <set>-<ordinal> in each namespace (two sets "web"
// in two namespaces both have web-0, web-1, web-2: names are unique within a namespace
// only); a DaemonSet's are <set>-<5 random characters> (generateName "<set>-"); a
// Deployment's are <Deployment>-<template hash>-<5 random>, the generateName cut to 58
// characters when longer (63 in all).
// upstream: statefulset/stateful_set_utils.go getPodName; controller_utils.go
// getPodsPrefix; deployment/sync.go getNewReplicaSet (the ReplicaSet's name);
// apiserver storage/names/generate.go.
func TestPodNamesPerWorkloadKind(t *testing.T) {
	cfg := workloadConfig(3, testWorkloads(), Action{Name: "create", Kind: ActionCreate})
	long := "a-deployment-named-at-length-fifty-characters-xxxx"
	base := cfg.Services[0]
	cfg.Services = nil
	for _, c := range []struct{ name, namespace, kind string }{
		{"web", "team-a", KindStatefulSet},
		{"web", "team-b", KindStatefulSet},
		{"agent", "default", KindDaemonSet},
		{long, "default", KindDeployment},
	} {
		s := base
		s.Name, s.Namespace, s.WorkloadKind = c.name, c.namespace, c.kind
		cfg.Services = append(cfg.Services, s)
	}
	e := ranEngine(t, cfg)
	names := func(i int) []string {
		var got []string
		for _, p := range e.services[i].pods {
			got = append(got, p.pod.Name)
		}
		slices.Sort(got)
		return got
	}
	for i := range 2 {
		if got, want := names(i), []string{"web-0", "web-1", "web-2"}; !slices.Equal(got, want) {
			t.Errorf("StatefulSet %s/web: pods %v, want %v", cfg.Services[i].Namespace, got, want)
		}
	}
	daemon := names(2)
	if len(daemon) != 50 { // a pod on each node
		t.Fatalf("DaemonSet: %d pods, want 50", len(daemon))
	}
	for _, n := range daemon {
		if !strings.HasPrefix(n, "agent-") || len(n) != len("agent-")+5 || strings.Trim(n[6:], alphanums) != "" {
			t.Errorf("DaemonSet pod %q: want agent-<5 random characters>", n)
		}
	}
	rsName := long + "-" + e.services[3].newRS.hash
	for _, n := range names(3) {
		if len(n) != 63 || n[:58] != (rsName + "-")[:58] {
			t.Errorf("Deployment pod %q: want the first 58 characters of %q and 5 random ones", n, rsName+"-")
		}
	}
}

// TestSetRevisionAndObservedGeneration counts the calls of the StatefulSet controller's
// client for a set of no replicas, where no pod call hides them, as upstream makes them:
// the first sync of a new set creates its ControllerRevision (getStatefulSetRevisions finds
// none equal) and writes a status whose observedGeneration is 1 (inconsistentStatus); a
// rollout does both again (a new template: a new revision, generation 2); a scale to the
// same replicas changes no generation and makes no call; a scale to other replicas makes
// a status write (observedGeneration) before any pod. It also checks that the revision
// goes before the first pod create: with 5 ms calls, a one-pod set's pod appears 10 ms
// after its first sync starts.
// upstream: statefulset/stateful_set_control.go performUpdate, getStatefulSetRevisions,
// updateStatefulSetStatus; stateful_set_utils.go inconsistentStatus.
func TestSetRevisionAndObservedGeneration(t *testing.T) {
	for _, tc := range []struct {
		name     string
		timeline []Action
		want     int64
	}{
		{"create", nil, 2},
		{"rollout", []Action{{Name: "rollout", Kind: ActionRollout}}, 4},
		{"same-scale", []Action{{Name: "scale", Kind: ActionScale, Replicas: 0}}, 2},
	} {
		cfg := workloadConfig(0, testWorkloads(), append([]Action{{Name: "create", Kind: ActionCreate}}, tc.timeline...)...)
		cfg.Services[0].WorkloadKind = KindStatefulSet
		e, err := newEngine(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		runEngine(t, e, nil)
		if got := e.workloads.statefulSets.bucket.taken; got != tc.want {
			t.Errorf("%s: the StatefulSet controller made %d calls, want %d", tc.name, got, tc.want)
		}
	}

	cfg := workloadConfig(1, testWorkloads(), Action{Name: "create", Kind: ActionCreate})
	cfg.Services[0].WorkloadKind = KindStatefulSet
	log := &podLog{}
	if _, err := Run(cfg, log); err != nil {
		t.Fatal(err)
	}
	if len(log.events) == 0 || log.events[0].Type != "ADDED" || log.events[0].At != Time(10*time.Millisecond) {
		t.Errorf("first pod event %+v, want the pod ADDED at 10ms (the revision's call, then the create)", log.events[0])
	}
}

// TestSetFailedPodCreates checks podCreateFailureRate for the StatefulSet and DaemonSet
// controllers: a failed create makes no pod, the sync sends none of its later slow-start
// batches, and the set is synced again after the workqueue's backoff until every pod
// exists and is ready. upstream: stateful_set_control.go runForAll (slowStartBatch stops
// at a batch with an error), performUpdate (the status written, the error returned);
// daemon_controller.go syncNodes (skippedPods), syncDaemonSet; processNextWorkItem
// (AddRateLimited) in both.
func TestSetFailedPodCreates(t *testing.T) {
	for _, tc := range []struct {
		name, kind, policy string
	}{
		{"ordered", KindStatefulSet, PodManagementOrderedReady},
		{"parallel", KindStatefulSet, PodManagementParallel},
		{"daemon", KindDaemonSet, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := testWorkloads()
			w.PodCreateFailureRate = 0.3
			cfg := workloadConfig(40, w, Action{Name: "create", Kind: ActionCreate})
			cfg.Services[0].WorkloadKind = tc.kind
			cfg.Services[0].PodManagementPolicy = tc.policy
			e, err := newEngine(cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			syncs := 0
			statefulPlanCheck = func(*serviceState, []setBatch) { syncs++ }
			daemonPlanCheck = func(*Engine, *serviceState, []int, []*podState) { syncs++ }
			defer func() { statefulPlanCheck, daemonPlanCheck = nil, nil }()
			roll := e.workloads.failRoll
			// A batch's creates are sent together, at one instant: a create of the failed
			// one's sync at a later instant is of a later batch.
			failures, failedIn, failedAt := 0, -1, Time(0)
			e.workloads.failRoll = func() bool {
				if syncs == failedIn && e.now > failedAt {
					t.Fatalf("sync %d sent a batch after one of its creates failed", syncs)
				}
				fail := roll()
				if fail {
					failures++
					failedIn, failedAt = syncs, e.now
				}
				return fail
			}
			runEngine(t, e, nil)
			s := e.services[0]
			want := 40
			if tc.kind == KindDaemonSet {
				want = len(e.nodes)
			}
			ready := 0
			for _, p := range s.pods {
				if p.pod.Ready && !p.pod.Terminating {
					ready++
				}
			}
			if len(s.pods) != want || ready != want {
				t.Errorf("%d pods, %d ready; want %d", len(s.pods), ready, want)
			}
			if failures < 3 {
				t.Errorf("%d creates failed, want several at a rate of 0.3", failures)
			}
			if s.set.failures != 0 {
				t.Errorf("the set ends with %d failures in a row, want 0 (forgotten)", s.set.failures)
			}
		})
	}
}

// upstreamStatefulStatus is upstream's StatefulSet status as a sync computes and writes it,
// recomputed at each of the model's syncs from the same pods: computeReplicaStatus
// (replicas: every pod object; ready and available: Running and Ready, terminating ones
// too; current and updated: not terminating, by revision), currentReplicas lowered by each
// rolling-update delete of the sync, completeUpdate, and a write when the status or the
// generation differs from the last written (inconsistentStatus).
// upstream: statefulset/stateful_set_control.go.
type upstreamStatefulStatus struct {
	written    statefulStatusFields
	currentRev string
}

type statefulStatusFields struct {
	generation                                   int32
	replicas, ready, available, current, updated int32
	currentRev, updateRev                        string
}

// sync returns whether upstream's sync of s, making the calls of batches, writes its status.
func (u *upstreamStatefulStatus) sync(s *serviceState, batches []setBatch) bool {
	updateRev := s.templateHash()
	if u.currentRev == "" {
		u.currentRev = updateRev
	}
	st := statefulStatusFields{generation: s.generation, currentRev: u.currentRev, updateRev: updateRev}
	for _, p := range s.pods {
		if p.stage == stageGone {
			continue
		}
		st.replicas++
		if p.pod.Phase == model.PodRunning && p.pod.Ready {
			st.ready++
			if p.available {
				st.available++
			}
		}
		if !p.pod.Terminating {
			if p.hash() == u.currentRev {
				st.current++
			}
			if p.hash() == updateRev {
				st.updated++
			}
		}
	}
	for _, b := range batches {
		for _, p := range b.delete {
			if int(p.ordinal()) < s.replicas {
				st.current--
			}
		}
	}
	if n := int32(s.replicas); st.updated == n && st.ready == n && st.replicas == n {
		st.current, st.currentRev, u.currentRev = st.updated, updateRev, updateRev
	}
	if st == u.written {
		return false
	}
	u.written = st
	return true
}

// TestStatefulSetStatusWrites checks, sync by sync, that a StatefulSet sync writes its
// status when upstream's would (upstreamStatefulStatus), through rollouts, scale-downs and
// restarts of both policies. Before, a rolling update's delete was written by the next
// sync rather than its own, and a terminating pod's stop (readyReplicas one less) wrote
// nothing: Parallel 50 → 10 made 17 writes where upstream makes 32. With a node failed for
// good, a rollout never completes: the next leaves pods of a third revision, which the
// status counts in neither currentReplicas nor updatedReplicas, so the sync after a
// rolling-update delete of one writes again (its delete lowered currentReplicas all the
// same) and their evictions write nothing (once, one write each way).
func TestStatefulSetStatusWrites(t *testing.T) {
	stuck := []Action{{Name: "fail", Kind: ActionFailNodes, Nodes: 1},
		{Name: "r1", Kind: ActionRollout, MaxUnavailable: IntOrPercent{Value: 4}},
		{Name: "r2", Kind: ActionRollout, MaxUnavailable: IntOrPercent{Value: 4}},
		{Name: "restart", Kind: ActionRestartPods, Pods: 6}}
	for _, tc := range []struct {
		name     string
		policy   string
		replicas int
		minReady time.Duration
		action   Action
		// more follow action, on 3 nodes of maxPods pods each (0: no limit).
		more    []Action
		maxPods int
	}{
		{"ordered-rollout", PodManagementOrderedReady, 10, 0, Action{Name: "rollout", Kind: ActionRollout, MaxUnavailable: IntOrPercent{Value: 1}}, nil, 0},
		{"ordered-rollout-3", PodManagementOrderedReady, 10, 0, Action{Name: "rollout", Kind: ActionRollout, MaxUnavailable: IntOrPercent{Value: 3}}, nil, 0},
		{"ordered-min-ready", PodManagementOrderedReady, 3, 5 * time.Second, Action{Name: "rollout", Kind: ActionRollout, MaxUnavailable: IntOrPercent{Value: 1}}, nil, 0},
		{"parallel-rollout", PodManagementParallel, 50, 0, Action{Name: "rollout", Kind: ActionRollout, MaxUnavailable: IntOrPercent{Value: 5}}, nil, 0},
		{"parallel-scale-down", PodManagementParallel, 50, 0, Action{Name: "scale", Kind: ActionScale, Replicas: 10}, nil, 0},
		{"ordered-scale-down", PodManagementOrderedReady, 10, 0, Action{Name: "scale", Kind: ActionScale, Replicas: 5}, nil, 0},
		{"ordered-restart", PodManagementOrderedReady, 10, 0, Action{Name: "restart", Kind: ActionRestartPods, Pods: 3}, nil, 0},
		{"parallel-restart", PodManagementParallel, 100, 0, Action{Name: "restart", Kind: ActionRestartPods, Pods: 60}, nil, 0},
		{"parallel-three-revisions", PodManagementParallel, 6, 0, stuck[0], stuck[1:], 0},
		{"ordered-three-revisions", PodManagementOrderedReady, 6, 0, stuck[0], stuck[1:], 0},
		// Pods Pending on full nodes: a delete of one is gone at once.
		{"parallel-three-revisions-full", PodManagementParallel, 12, 0, stuck[0], stuck[1:], 3},
		{"ordered-three-revisions-full", PodManagementOrderedReady, 12, 0, stuck[0], stuck[1:], 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := workloadConfig(tc.replicas, testWorkloads(), append([]Action{{Name: "create", Kind: ActionCreate}, tc.action}, tc.more...)...)
			if tc.more != nil {
				cfg.Cluster.Nodes, cfg.Cluster.MaxPodsPerNode = 3, tc.maxPods
			}
			cfg.Services[0].WorkloadKind = KindStatefulSet
			cfg.Services[0].PodManagementPolicy = tc.policy
			cfg.Services[0].MinReady = tc.minReady
			cfg.Services[0].Timing.Start = Fixed(time.Second)
			cfg.Services[0].Timing.Ready = Fixed(2 * time.Second)
			e, err := newEngine(cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			var up upstreamStatefulStatus
			var want, got []bool
			statefulPlanCheck = func(s *serviceState, batches []setBatch) {
				want = append(want, up.sync(s, batches))
				got = append(got, false)
			}
			setStatusWritten = func(*serviceState, setStatus) { got[len(got)-1] = true }
			defer func() { statefulPlanCheck, setStatusWritten = nil, nil }()
			runEngine(t, e, nil)
			differ, writes, upstreamWrites := 0, 0, 0
			for i := range want {
				if want[i] != got[i] {
					differ++
				}
				if got[i] {
					writes++
				}
				if want[i] {
					upstreamWrites++
				}
			}
			if differ > 0 || len(want) < tc.replicas {
				t.Errorf("%d syncs: %d wrote where upstream's would not or the other way round (%d writes, upstream %d)",
					len(want), differ, writes, upstreamWrites)
			}
		})
	}
}

// TestDaemonSetDeletesAfterAFailedCreate: a DaemonSet sync whose create fails still sends
// its deletes (a surging rollout plans both); a StatefulSet's sends nothing more.
// upstream: daemon_controller.go syncNodes (the deletes after the create batches);
// stateful_set_control.go runForAll, updateStatefulSet (return on the error).
func TestDaemonSetDeletesAfterAFailedCreate(t *testing.T) {
	for _, kind := range []string{KindDaemonSet, KindStatefulSet} {
		cfg := workloadConfig(4, testWorkloads(), Action{Name: "create", Kind: ActionCreate})
		cfg.Cluster.Nodes = 4
		cfg.Services[0].WorkloadKind = kind
		e, err := newEngine(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		runEngine(t, e, nil)
		s := e.services[0]
		victim := s.set.daemonOn
		if kind == KindStatefulSet {
			victim = s.set.ordinals
		}
		p := victim[3]
		w := e.workloads
		w.failRoll = func() bool { return true }
		y := newSetSync(w.setFor(s), s)
		y.add(setBatch{create: []int{0}})
		y.add(setBatch{delete: []*podState{p}})
		w.setFor(s).queue.add(s)
		w.setFor(s).queue.next()
		w.sendSetBatch(y)
		// The creates keep failing: the set is retried with backoff for ever. Its calls
		// return within milliseconds.
		until := e.now + Time(time.Second)
		for e.q.Len() > 0 {
			it := e.q.pop()
			if it.at > until {
				break
			}
			e.now = it.at
			it.ev.apply(e)
		}
		if deleted := p.pod.Terminating || p.stage == stageGone; deleted != (kind == KindDaemonSet) {
			t.Errorf("%s: the pod of the delete after a failed create deleted: %v", kind, deleted)
		}
	}
}

// TestDaemonSetBudgetFromReadyNodes: a DaemonSet's maxUnavailable of 50% on 10 nodes, 2 of
// them down through its rollout, allows ceil(50% × 8) = 4 unavailable nodes, not 5: each
// sync scales the percentage against the nodes that should run the pod. The 2 nodes down
// count as unavailable (their old pods, replaced at once, stay terminating), so at most 2
// ready nodes are without an available pod at any time, not 3.
// upstream: daemon/update.go updatedDesiredNodeCounts, rollingUpdate (numUnavailable,
// allowedReplacementPods, findUpdatedPodsOnNode skipping deleted pods).
func TestDaemonSetBudgetFromReadyNodes(t *testing.T) {
	cfg := workloadConfig(1, testWorkloads(), Action{Name: "create", Kind: ActionCreate},
		Action{Name: "fail", Kind: ActionFailNodes, Nodes: 2},
		Action{Name: "rollout", Kind: ActionRollout, MaxUnavailable: IntOrPercent{Value: 50, IsPercent: true}})
	cfg.Cluster.Nodes = 10
	cfg.Services[0].WorkloadKind = KindDaemonSet
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	most, updated, down := 0, 0, 0
	runEngine(t, e, func() {
		if e.phase != 2 {
			return
		}
		s := e.services[0]
		down, updated = 0, 0
		for n, node := range e.nodes {
			if !node.Ready {
				continue
			}
			p := s.set.daemonOn[n]
			if p == nil || !p.available {
				down++
			} else if p.hash() == s.templateHash() {
				updated++
			}
		}
		most = max(most, down)
	})
	if most != 2 || updated != 8 {
		t.Errorf("at most %d ready nodes without an available pod, %d updated in the end; want 2 and 8", most, updated)
	}
}

// TestSetRevisionHistoryCleanup checks that a StatefulSet and a DaemonSet keep
// revisionHistoryLimit (10) ControllerRevisions besides their live ones, each delete a call
// through the controller's client. A StatefulSet of no replicas makes no pod call, so its
// calls count exactly: the first sync creates its revision and writes its status (2), each
// rollout does both again (2 each), and the syncs that follow the status writes delete the
// revisions past 10 of history besides the current one (rollouts 11 to 13: one each).
// A DaemonSet keeps its current revision and 10 old ones once the old pods are gone.
// upstream: statefulset/stateful_set_control.go UpdateStatefulSet → truncateHistory;
// stateful_set_utils.go completeUpdate; daemon/daemon_controller.go updateDaemonSet →
// update.go cleanupHistory.
func TestSetRevisionHistoryCleanup(t *testing.T) {
	for _, tc := range []struct {
		kind            string
		replicas        int
		rollouts        int
		revisions       int32
		statefulSetCall int64 // 0: not checked
	}{
		{KindStatefulSet, 0, 5, 6, 12},
		{KindStatefulSet, 0, 10, 11, 22},
		{KindStatefulSet, 0, 13, 11, 31},
		{KindStatefulSet, 3, 13, 11, 0},
		{KindDaemonSet, 0, 9, 10, 0},
		{KindDaemonSet, 0, 13, 11, 0},
	} {
		timeline := []Action{{Name: "create", Kind: ActionCreate}}
		for i := range tc.rollouts {
			timeline = append(timeline, Action{Name: fmt.Sprintf("rollout-%d", i+1), Kind: ActionRollout})
		}
		cfg := workloadConfig(tc.replicas, testWorkloads(), timeline...)
		cfg.Cluster.Nodes = 4
		cfg.Services[0].WorkloadKind = tc.kind
		e, _ := runEngineOf(t, cfg, nil)
		s := e.services[0]
		name := fmt.Sprintf("%s of %d replicas, %d rollouts", tc.kind, tc.replicas, tc.rollouts)
		if s.set.revisions != tc.revisions {
			t.Errorf("%s: %d ControllerRevisions kept, want %d", name, s.set.revisions, tc.revisions)
		}
		if got := e.workloads.statefulSets.bucket.taken; tc.statefulSetCall > 0 && got != tc.statefulSetCall {
			t.Errorf("%s: the StatefulSet controller made %d calls, want %d", name, got, tc.statefulSetCall)
		}
	}
}

// TestStatefulSetCountsATerminatingPodAvailable: a StatefulSet's status counts a pod
// available minReadySeconds after it turned ready, terminating or not, and its sync plans
// the check for then. A pod evicted while ready but not yet available (a drain) becomes
// available while its containers stop: upstream's sync at that moment writes
// availableReplicas one more. Before, the delete cancelled the check, and nothing was
// written until the pod stopped. upstream: statefulset/stateful_set.go sync
// (FindMinNextPodAvailabilityCheck); stateful_set_control.go computeReplicaStatus.
func TestStatefulSetCountsATerminatingPodAvailable(t *testing.T) {
	for _, policy := range []string{PodManagementParallel, PodManagementOrderedReady} {
		t.Run(policy, func(t *testing.T) {
			cfg := workloadConfig(1, testWorkloads(), Action{Name: "create", Kind: ActionCreate})
			cfg.Services[0].WorkloadKind = KindStatefulSet
			cfg.Services[0].PodManagementPolicy = policy
			cfg.Services[0].MinReady = 20 * time.Second
			cfg.Services[0].Timing.Stop = Fixed(25 * time.Second)
			cfg.Services[0].Timing.GracePeriod = Fixed(30 * time.Second)
			e, err := newEngine(cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			s := e.services[0]
			var victim *podState
			var crossing Time
			var writes []Time
			// Each sync's write, against upstream's status computed from the same pods.
			var up upstreamStatefulStatus
			var want, got []bool
			statefulPlanCheck = func(s *serviceState, batches []setBatch) {
				want = append(want, up.sync(s, batches))
				got = append(got, false)
			}
			setStatusWritten = func(*serviceState, setStatus) {
				got[len(got)-1] = true
				writes = append(writes, e.now)
			}
			defer func() { statefulPlanCheck, setStatusWritten = nil, nil }()
			runEngine(t, e, func() {
				if victim == nil {
					if victim, crossing = readyNotAvailable(s); victim != nil {
						e.deletePod(victim)
					}
				}
			})
			if victim == nil {
				t.Fatal("no pod was ever ready and not yet available")
			}
			if !slices.Equal(want, got) {
				t.Errorf("syncs wrote %v, upstream's would %v", got, want)
			}
			stop := crossing + Time(5*time.Second) // before the 25 s stop
			found := false
			for _, w := range writes {
				if w >= crossing && w < stop {
					found = true
				}
			}
			if !found {
				t.Errorf("status writes at %v: none at the crossing of minReadySeconds (%v), with the pod terminating", writes, crossing)
			}
		})
	}
}

// readyNotAvailable returns a pod of s that is bound, ready and not yet available (nor
// terminating), and when minReadySeconds make it available; nil when none is.
func readyNotAvailable(s *serviceState) (*podState, Time) {
	for _, p := range s.pods {
		if p.stage != stageGone && p.node >= 0 && p.pod.Ready && !p.available && !p.pod.Terminating {
			return p, virtualTime(p.pod.ReadyTransition) + Time(s.cfg.MinReady)
		}
	}
	return nil, 0
}
