package sim

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"epsim/model"
)

// TestResolveFenceposts checks maxSurge/maxUnavailable resolution against upstream's rules:
// percentages of replicas, surge rounded up, unavailability rounded down, and unavailability
// forced to 1 when both are 0 (upstream: pkg/controller/deployment/util/deployment_util.go
// ResolveFenceposts; cases as in its TestResolveFenceposts).
func TestResolveFenceposts(t *testing.T) {
	pct := func(v int) IntOrPercent { return IntOrPercent{Value: v, IsPercent: true} }
	num := func(v int) IntOrPercent { return IntOrPercent{Value: v} }
	for _, tc := range []struct {
		surge, unavail             IntOrPercent
		replicas                   int
		wantSurge, wantUnavailable int
	}{
		{pct(25), pct(25), 10, 3, 2},
		{pct(25), pct(25), 10000, 2500, 2500},
		{pct(25), pct(25), 1, 1, 0},
		{num(0), num(0), 10, 0, 1},
		{pct(0), pct(0), 10, 0, 1},
		{num(0), num(1), 10, 0, 1},
		{num(2), num(1), 10, 2, 1},
		{pct(50), pct(50), 5, 3, 2},
		{pct(10), pct(10), 4, 1, 0},
		{pct(100), pct(100), 3, 3, 3},
	} {
		t.Run(fmt.Sprintf("%+v/%+v of %d", tc.surge, tc.unavail, tc.replicas), func(t *testing.T) {
			s, u := resolveFenceposts(tc.surge, tc.unavail, tc.replicas)
			if s != tc.wantSurge || u != tc.wantUnavailable {
				t.Errorf("got surge %d unavailable %d, want %d %d", s, u, tc.wantSurge, tc.wantUnavailable)
			}
		})
	}
}

// TestRolloutRespectsSurgeAndUnavailability steps a rolling update event by event and checks
// the Deployment controller's guarantee at every instant: the ReplicaSets' spec.replicas
// never add up to more than replicas+maxSurge (upstream counts surge by spec, rolling.go
// reconcileNewReplicaSet / NewRSNewReplicas); and at the end every pod is of the new
// template and available, and no old ReplicaSet wants pods.
func TestRolloutRespectsSurgeAndUnavailability(t *testing.T) {
	for _, tc := range []struct {
		replicas       int
		surge, unavail IntOrPercent
	}{
		{200, IntOrPercent{Value: 25, IsPercent: true}, IntOrPercent{Value: 25, IsPercent: true}},
		{50, IntOrPercent{Value: 1}, IntOrPercent{Value: 0}},
		{50, IntOrPercent{Value: 0}, IntOrPercent{Value: 10}},
		{7, IntOrPercent{Value: 100, IsPercent: true}, IntOrPercent{Value: 0}},
	} {
		t.Run(fmt.Sprintf("%d pods %+v %+v", tc.replicas, tc.surge, tc.unavail), func(t *testing.T) {
			cfg := testConfig(30, tc.replicas)
			cfg.Timeline = []Action{
				{Name: "create", Kind: ActionCreate},
				{Name: "rollout", Kind: ActionRollout, MaxSurge: tc.surge, MaxUnavailable: tc.unavail},
			}
			e, err := newEngine(cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			surge, unavail := resolveFenceposts(tc.surge, tc.unavail, tc.replicas)
			s := e.services[0]
			minAvailable := tc.replicas
			failures, retrying := 0, false
			runEngine(t, e, func() {
				if s.dcRetrying && !retrying {
					// Only a conflict fails a sync; a stale old status does not. The
					// syncs that create a ReplicaSet (one a phase) fail so, once each; so
					// does a sync whose write of the new ReplicaSet meets a status its
					// controller wrote since the sync listed it.
					if failures++; s.dcFailures > 1 {
						t.Fatalf("at %v: a Deployment sync failed %d times in a row", e.now, s.dcFailures)
					}
				}
				retrying = s.dcRetrying
				if e.phase != 1 || len(s.oldRSs) == 0 {
					return
				}
				spec, available := s.newRS.spec, s.newRS.available
				for _, o := range s.oldRSs {
					spec += o.spec
					available += o.available
				}
				if int(spec) > tc.replicas+surge {
					t.Fatalf("at %v: ReplicaSets want %d pods, more than %d+%d", e.now, spec, tc.replicas, surge)
				}
				minAvailable = min(minAvailable, int(available))
			})
			if failures < 2 {
				t.Errorf("%d Deployment syncs failed, want 2 at least: those that create a ReplicaSet", failures)
			}
			if len(s.oldRSs) != 1 {
				t.Fatalf("%d old ReplicaSets after one rollout, want 1", len(s.oldRSs))
			}
			if old := s.oldRSs[0]; int(s.newRS.live) != tc.replicas || old.live != 0 || old.spec != 0 || int(s.newRS.available) != tc.replicas {
				t.Fatalf("after the rollout: new %d (available %d), old %d (spec %d)", s.newRS.live, s.newRS.available, old.live, old.spec)
			}
			if s.rollout != nil {
				t.Errorf("the rollout is still marked in progress")
			}
			// The old ReplicaSet is scaled down only as far as the statuses show available
			// pods, which lag the pods: never below replicas − maxUnavailable. (A sync that
			// sees an old status counting more available pods than its spec scales nothing
			// down, as upstream's cleanupUnhealthyReplicas does, rather than trust that count.)
			if minAvailable < tc.replicas-unavail {
				t.Errorf("%d pods available during the rollout, fewer than %d−%d", minAvailable, tc.replicas, unavail)
			}
			t.Logf("fewest available during the rollout: %d of %d", minAvailable, tc.replicas)
		})
	}
}

// podLog records the pod events of a generated workload.
type podLog struct{ events []TraceEvent }

func (l *podLog) Progress(Time, int, int) {}
func (l *podLog) PodEvent(ev TraceEvent)  { l.events = append(l.events, ev) }

// added returns the times pods were created, in order.
func (l *podLog) added() []Time {
	var out []Time
	for _, ev := range l.events {
		if ev.Type == "ADDED" {
			out = append(out, ev.At)
		}
	}
	return out
}

// batches groups creation times into runs of equal times.
func batches(times []Time) []int {
	var out []int
	for i, t := range times {
		if i == 0 || t != times[i-1] {
			out = append(out, 0)
		}
		out[len(out)-1]++
	}
	return out
}

// workloadConfig is a one-Service scenario with replicas pods and the given workload pace.
func workloadConfig(replicas int, w WorkloadsConfig, timeline ...Action) Config {
	cfg := testConfig(50, replicas)
	cfg.ControlPlane.Workloads = w
	cfg.RunEndpoints = false
	cfg.Network = NetworkConfig{}
	cfg.Timeline = timeline
	return cfg
}

// TestSlowStartBatches checks the ReplicaSet controller's pod creates against upstream's
// slowStartBatch and burstReplicas: a sync creates at most 500 pods, in batches of 1, 2,
// 4… (the last one what remains), each batch starting when the previous one's calls have
// returned; the next 500 wait for a new sync, after every expected create was observed.
// upstream: pkg/controller/replicaset/replica_set.go manageReplicas, slowStartBatch
// (TestSlowStartBatch), BurstReplicas.
func TestSlowStartBatches(t *testing.T) {
	w := testWorkloads()
	w.ReplicaSet.QPS = 0 // unlimited, so batches show only slow start
	cfg := workloadConfig(1200, w, Action{Name: "create", Kind: ActionCreate})
	log := &podLog{}
	if _, err := Run(cfg, log); err != nil {
		t.Fatal(err)
	}
	got := batches(log.added())
	want := []int{
		1, 2, 4, 8, 16, 32, 64, 128, 245, // first sync: 500 (1+…+128 = 255, then 245)
		1, 2, 4, 8, 16, 32, 64, 128, 245, // second sync: 500 more
		1, 2, 4, 8, 16, 32, 64, 73, // third: the last 200
	}
	if !slices.Equal(got, want) {
		t.Fatalf("create batches = %v, want %v", got, want)
	}
	times := log.added()
	// One batch per API round trip (5 ms) within a sync.
	if d := times[1] - times[0]; d != Time(5*time.Millisecond) {
		t.Errorf("second batch %v after the first, want one 5ms API call", d)
	}
}

// TestPodCreatesArePacedByTheClient checks the ReplicaSet controller's client token bucket
// (20 qps, burst 30): the k-th pod create goes no sooner than (k−30)/20 s, and 1,000 pods
// take at least 48.5 s.
func TestPodCreatesArePacedByTheClient(t *testing.T) {
	cfg := workloadConfig(1000, testWorkloads(), Action{Name: "create", Kind: ActionCreate})
	log := &podLog{}
	if _, err := Run(cfg, log); err != nil {
		t.Fatal(err)
	}
	times := log.added()
	if len(times) != 1000 {
		t.Fatalf("%d pods created, want 1000", len(times))
	}
	for k, at := range times {
		// Token k+1 is there at (k+1−30)/20 s; the call then takes 5 ms; the Deployment
		// controller's RS create comes first (≥ 5 ms).
		if earliest := Time(float64(k+1-30) / 20 * 1e9); at < earliest {
			t.Fatalf("pod %d created at %v, before its token at %v", k+1, at, earliest)
		}
	}
	if last := times[len(times)-1]; last < Time(48500*time.Millisecond) || last > Time(60*time.Second) {
		t.Errorf("last of 1000 pods created at %v, want about (1000−30)/20 = 48.5 s", last)
	}
}

// TestRolloutTakesTwoCallsPerPod checks the pace a rollout inherits: replacing N pods takes
// N creates and N deletes through the ReplicaSet controller's 20 qps client, so at least
// 2N/20 s of virtual time (DESIGN.md "The engine": ~1,000 s for 10,000 pods), and no more
// than a modest overhead for status writes and the Deployment controller's reaction.
func TestRolloutTakesTwoCallsPerPod(t *testing.T) {
	n := 10000
	if testing.Short() {
		n = 2000
	}
	cfg := workloadConfig(n, testWorkloads(),
		Action{Name: "create", Kind: ActionCreate},
		Action{Name: "rollout", Kind: ActionRollout, MaxSurge: IntOrPercent{Value: 25, IsPercent: true}, MaxUnavailable: IntOrPercent{Value: 25, IsPercent: true}},
	)
	// Room for every pod of the rollout, surge included, at the kubelet's default of 110
	// pods a node: the pace is the controllers', not the nodes'.
	cfg.Cluster.Nodes = max(cfg.Cluster.Nodes, n*5/4/DefaultMaxPodsPerNode+1)
	log := &podLog{}
	res, err := Run(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	var creates, deletes int
	start := res.Phases[1].Start
	var last Time
	for _, ev := range log.events {
		if ev.At < start {
			continue
		}
		switch {
		case ev.Type == "ADDED":
			creates++
			last = max(last, ev.At)
		case ev.Type == "MODIFIED" && ev.Pod.Terminating && ev.Pod.Ready:
			deletes++ // the delete call's deletionTimestamp (the pod still ready)
			last = max(last, ev.At)
		}
	}
	if creates != n {
		t.Errorf("rollout created %d pods, want %d", creates, n)
	}
	took := (last - start).Seconds()
	floor := float64(2*n-30) / 20
	if took < floor || took > 1.25*floor {
		t.Errorf("rollout's pod calls took %.0f s, want between %.0f and %.0f s", took, floor, 1.25*floor)
	}
	t.Logf("%d-pod rollout: %d creates, %d deletes of ready pods, calls over %.0f s (floor %.0f s)", n, creates, deletes, took, floor)
}

// TestExpectationsPreventDoubleCreates checks ControllerExpectations: while its creates are
// in flight, a ReplicaSet's syncs (triggered by every pod event) create nothing more, so a
// Deployment of N replicas never has more than N pods, even with slow API calls.
// upstream: replica_set.go syncReplicaSet (SatisfiedExpectations), controller_utils.go.
func TestExpectationsPreventDoubleCreates(t *testing.T) {
	w := testWorkloads()
	w.ReplicaSet.APILatency = Fixed(3 * time.Second)
	cfg := workloadConfig(300, w, Action{Name: "create", Kind: ActionCreate})
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := e.services[0]
	peak := 0
	runEngine(t, e, func() { peak = max(peak, len(s.pods)) })
	if peak != 300 || s.newRS.live != 300 {
		t.Fatalf("peak %d pods, %d at the end; want 300 and 300", peak, s.newRS.live)
	}
}

// TestFailedPodCreatesAreRetried checks that a failing pod create ends the slow start
// (the pods it never tried are not expected) and the sync is retried with backoff until the
// ReplicaSet has its replicas. upstream: replica_set.go manageReplicas (skippedPods),
// processNextWorkItem (AddRateLimited).
func TestFailedPodCreatesAreRetried(t *testing.T) {
	w := testWorkloads()
	w.PodCreateFailureRate = 0.2
	cfg := workloadConfig(200, w, Action{Name: "create", Kind: ActionCreate})
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := e.services[0]
	runEngine(t, e, func() {})
	if s.newRS.live != 200 || s.newRS.available != 200 {
		t.Fatalf("%d pods (%d available), want 200", s.newRS.live, s.newRS.available)
	}
	if s.newRS.expectCreates != 0 || s.newRS.expectDeletes != 0 {
		t.Errorf("expectations left: %d creates, %d deletes", s.newRS.expectCreates, s.newRS.expectDeletes)
	}
}

// TestStatefulSetHostnames: a StatefulSet's pod has its name as hostname and the set's
// serviceName as subdomain, so the endpoints of the Service of that name carry the
// hostname, in the Endpoints object and in the slices; with another serviceName they do not.
// upstream: pkg/controller/statefulset/stateful_set_utils.go initIdentity;
// k8s.io/endpointslice util ShouldSetHostname; endpoints_controller.go syncService.
func TestStatefulSetHostnames(t *testing.T) {
	for _, tc := range []struct {
		serviceName string
		hostnames   bool
	}{{"", true}, {"web", true}, {"web-headless", false}} {
		cfg := workloadConfig(3, testWorkloads(), Action{Name: "create", Kind: ActionCreate})
		cfg.RunEndpoints = true
		cfg.Services[0].WorkloadKind = KindStatefulSet
		cfg.Services[0].ServiceName = tc.serviceName
		e, err := newEngine(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.run(); err != nil {
			t.Fatal(err)
		}
		for _, p := range e.services[0].pods {
			wantSub := cmp.Or(tc.serviceName, "web")
			if p.pod.Hostname != p.pod.Name || p.pod.Subdomain != wantSub {
				t.Errorf("serviceName %q: pod %s has hostname %q, subdomain %q; want %q, %q", tc.serviceName, p.pod.Name, p.pod.Hostname, p.pod.Subdomain, p.pod.Name, wantSub)
			}
		}
		check := func(plane, hostname string, ref *model.ObjectReference) {
			t.Helper()
			want := ""
			if tc.hostnames {
				want = ref.Name
			}
			if hostname != want {
				t.Errorf("serviceName %q: %s endpoint of %s has hostname %q, want %q", tc.serviceName, plane, ref.Name, hostname, want)
			}
		}
		seen := map[string]int{}
		for _, c := range e.ctls {
			switch sy := c.syncer.(type) {
			case *sliceSyncer:
				for _, sl := range sy.reconcilers[0].Stored() {
					for _, ep := range sl.Endpoints {
						check("slice", *cmp.Or(ep.Hostname, new(string)), ep.TargetRef)
						seen["slice"]++
					}
				}
			case *endpointsSyncer:
				for _, ss := range sy.builders[0].Object().Subsets {
					for _, a := range append(ss.Addresses, ss.NotReadyAddresses...) {
						check("Endpoints", a.Hostname, a.TargetRef)
						seen["Endpoints"]++
					}
				}
			}
		}
		if seen["slice"] != 3 || seen["Endpoints"] != 3 {
			t.Fatalf("serviceName %q: endpoints checked %v, want 3 of each", tc.serviceName, seen)
		}
	}
}

// TestStatefulSetOrderedReady checks an OrderedReady StatefulSet against upstream: pod i is
// created only once pods 0…i−1 are Running, Ready and available, with the stable names
// name-0, name-1…; a rolling update replaces pods from the highest ordinal down, one at a
// time, deleting the next only when the previous replacement is available.
// upstream: pkg/controller/statefulset/stateful_set_control.go updateStatefulSet
// (TestStatefulSetControlRollingUpdate's order).
func TestStatefulSetOrderedReady(t *testing.T) {
	const n = 6
	cfg := workloadConfig(n, testWorkloads(),
		Action{Name: "create", Kind: ActionCreate},
		Action{Name: "rollout", Kind: ActionRollout, MaxSurge: IntOrPercent{Value: 25, IsPercent: true}, MaxUnavailable: IntOrPercent{Value: 25, IsPercent: true}},
	)
	cfg.Services[0].WorkloadKind = KindStatefulSet
	log := &podLog{}
	if _, err := Run(cfg, log); err != nil {
		t.Fatal(err)
	}
	var order []string
	ready := map[string]bool{}
	firstHash := map[string]string{}
	for _, ev := range log.events {
		name := ev.Pod.Name
		switch {
		case ev.Type == "ADDED":
			// Every lower ordinal must be ready (and not terminating) when a pod is created.
			var ord int
			fmt.Sscanf(name, "web-%d", &ord)
			for i := range ord {
				if lower := fmt.Sprintf("web-%d", i); !ready[lower] {
					t.Fatalf("at %v: %s created before %s was ready", ev.At, name, lower)
				}
			}
			order = append(order, "+"+name)
			ready[name] = false
			if _, ok := firstHash[name]; !ok {
				firstHash[name] = ev.Labels["pod-template-hash"]
			}
		case ev.Type == "MODIFIED" && ev.Pod.Terminating && !ready[name+"/deleting"]:
			ready[name+"/deleting"] = true
			for other, r := range ready {
				if !strings.Contains(other, "/") && other != name && !r {
					t.Fatalf("at %v: %s deleted while %s is not ready", ev.At, name, other)
				}
			}
			order = append(order, "-"+name)
			ready[name] = false
		case ev.Type == "MODIFIED":
			ready[name] = ev.Pod.Ready && !ev.Pod.Terminating
		case ev.Type == "DELETED":
			delete(ready, name+"/deleting")
			delete(ready, name)
		}
	}
	want := []string{"+web-0", "+web-1", "+web-2", "+web-3", "+web-4", "+web-5",
		"-web-5", "+web-5", "-web-4", "+web-4", "-web-3", "+web-3", "-web-2", "+web-2", "-web-1", "+web-1", "-web-0", "+web-0"}
	if !slices.Equal(order, want) {
		t.Fatalf("pod creates (+) and deletes (-) = %v\nwant %v", order, want)
	}
}

// TestDaemonSetRollout checks a DaemonSet: one pod per node, created in slow-start batches
// of at most burstReplicas (250) a sync; a rolling update with maxSurge 0 never has more than
// maxUnavailable nodes without an available pod, and replaces a node's pod only after the
// old one is gone; draining a node leaves its daemon pod (kubectl drain
// --ignore-daemonsets). upstream: pkg/controller/daemon/update.go rollingUpdate,
// daemon_controller.go podsShouldBeOnNode, syncNodes.
func TestDaemonSetRollout(t *testing.T) {
	cfg := workloadConfig(1, testWorkloads(),
		Action{Name: "create", Kind: ActionCreate},
		Action{Name: "rollout", Kind: ActionRollout, MaxUnavailable: IntOrPercent{Value: 3}},
		Action{Name: "drain", Kind: ActionDrainNodes, Nodes: 2},
	)
	cfg.Services[0].WorkloadKind = KindDaemonSet
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := e.services[0]
	nodes := len(e.nodes)
	worst := 0
	runEngine(t, e, func() {
		if e.phase != 1 {
			return
		}
		for n := range nodes {
			if k := s.set.terminatingOn[n]; k > 0 && s.set.daemonOn[n] != nil {
				t.Fatalf("at %v: node %d has a new daemon pod while its old one terminates", e.now, n)
			}
		}
		worst = max(worst, nodes-int(s.newRS.available))
	})
	if worst > 3 {
		t.Errorf("%d nodes without an available daemon pod at once, want at most maxUnavailable 3", worst)
	}
	if int(s.newRS.live) != nodes || int(s.newRS.available) != nodes {
		t.Fatalf("%d daemon pods (%d available) on %d nodes", s.newRS.live, s.newRS.available, nodes)
	}
	for n, p := range s.set.daemonOn {
		if p == nil || int(p.node) != n || p.hash() != s.templateHash() {
			t.Fatalf("node %d: daemon pod %v", n, p)
		}
	}
}

// TestScalingEventAsUpstream checks the Deployment controller's sync on a scaling event
// against every case of upstream's TestScale. Each ReplicaSet is annotated for the
// Deployment before the scale (desired-replicas = oldReplicas unless the case says
// otherwise, max-replicas = that + oldSurge); like upstream's, no ReplicaSet has available
// pods unless the case says so, and the old ones are created before the new one, in order.
// upstream: pkg/controller/deployment/sync_test.go TestScale; sync.go scale.
func TestScalingEventAsUpstream(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		oldReplicas, oldSurge int
		replicas, surge       int
		newSpec               int   // -1: no new ReplicaSet
		old                   []int // the old ReplicaSets' specs, oldest first
		desired               map[int]int
		wantNew               int
		wantOld               []int
	}{
		{name: "normal scaling event: 10 -> 12", oldReplicas: 10, replicas: 12, newSpec: 10, wantNew: 12},
		{name: "normal scaling event: 10 -> 5", oldReplicas: 10, replicas: 5, newSpec: 10, wantNew: 5},
		{name: "proportional scaling: 5 -> 10", oldReplicas: 5, replicas: 10, newSpec: 2, old: []int{3}, wantNew: 4, wantOld: []int{6}},
		{name: "proportional scaling: 5 -> 3", oldReplicas: 5, replicas: 3, newSpec: 2, old: []int{3}, wantNew: 1, wantOld: []int{2}},
		{name: "proportional scaling: 9 -> 4", oldReplicas: 9, replicas: 4, newSpec: 8, old: []int{1}, wantNew: 4, wantOld: []int{0}},
		{name: "proportional scaling: 7 -> 10", oldReplicas: 7, replicas: 10, newSpec: 2, old: []int{2, 3}, wantNew: 3, wantOld: []int{3, 4}},
		{name: "proportional scaling: 13 -> 8", oldReplicas: 13, replicas: 8, newSpec: 2, old: []int{3, 8}, wantNew: 1, wantOld: []int{2, 5}},
		{name: "leftover distribution: 3 -> 4", oldReplicas: 3, replicas: 4, newSpec: 1, old: []int{1, 1}, wantNew: 2, wantOld: []int{1, 1}},
		{name: "leftover distribution: 3 -> 2", oldReplicas: 3, replicas: 2, newSpec: 1, old: []int{1, 1}, wantNew: 1, wantOld: []int{0, 1}},
		{name: "proportional scaling (no new rs): 4 -> 5", oldReplicas: 4, replicas: 5, newSpec: -1, old: []int{2, 2}, wantNew: -1, wantOld: []int{2, 3}},
		{name: "proportional scaling: 6 -> 0", oldReplicas: 6, replicas: 0, newSpec: 3, old: []int{1, 2}, wantNew: 0, wantOld: []int{0, 0}},
		{name: "proportional scaling: 0 -> 6", oldReplicas: 6, replicas: 6, newSpec: 0, old: []int{0, 0}, wantNew: 6, wantOld: []int{0, 0}},
		{name: "failed rs update", oldReplicas: 5, replicas: 5, newSpec: 2, old: []int{1, 1}, desired: map[int]int{1: 3}, wantNew: 2, wantOld: []int{1, 2}},
		{name: "deployment with surge pods", oldReplicas: 10, oldSurge: 2, replicas: 20, surge: 2, newSpec: 6, old: []int{6}, wantNew: 11, wantOld: []int{11}},
		{name: "change both surge and size", oldReplicas: 10, oldSurge: 3, replicas: 50, surge: 6, newSpec: 5, old: []int{8}, wantNew: 22, wantOld: []int{34}},
		{name: "change both size and template", oldReplicas: 10, replicas: 14, newSpec: -1, old: []int{3, 7}, wantNew: -1, wantOld: []int{4, 10}},
		{name: "saturated but broken new replica set does not affect old pods", oldReplicas: 2, oldSurge: 1, replicas: 2, surge: 1, newSpec: 2, old: []int{1}, wantNew: 2, wantOld: []int{1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &serviceState{replicas: tc.replicas, surge: int32(tc.surge)}
			annotate := func(spec, i int) *replicaSet {
				desired := tc.oldReplicas
				if d, ok := tc.desired[i]; ok {
					desired = d
				}
				return &replicaSet{svc: s, spec: int32(spec), desired: int32(desired), maxReplicas: int32(desired + tc.oldSurge),
					created: model.Timestamp(i + 1), hash: fmt.Sprintf("v%d", i+1)}
			}
			for i, spec := range tc.old {
				s.oldRSs = append(s.oldRSs, annotate(spec, i))
			}
			s.newRS = annotate(max(tc.newSpec, 0), len(tc.old))
			s.newRSCreated = tc.newSpec >= 0
			if tc.oldReplicas != tc.replicas && !s.scalingEvent() {
				t.Fatalf("scalingEvent() = false, want true")
			}
			p := newDeploymentPlan(s, nil)
			p.scale()
			if tc.wantNew >= 0 && p.newSpec != tc.wantNew {
				t.Errorf("new ReplicaSet: %d replicas, upstream %d", p.newSpec, tc.wantNew)
			}
			for i, o := range p.old {
				if o.spec != tc.wantOld[i] {
					t.Errorf("old ReplicaSet %d: %d replicas, upstream %d", i+1, o.spec, tc.wantOld[i])
				}
			}
		})
	}
}

// TestReconcileOldReplicaSetsAsUpstream checks a rolling-update sync's scale-down of the old
// ReplicaSets: upstream's TestDeploymentController_reconcileOldReplicaSets (one old
// ReplicaSet, maxSurge 0), and cases of several old ReplicaSets worked by hand from
// rolling.go. Unavailable pods go first (cleanupUnhealthyReplicas), then available ones
// while availability allows (scaleDownOldReplicaSetsForRollingUpdate), each in creation
// order. An old ReplicaSet whose status still counts more available pods than its spec (a
// status not written since its last scale-down) makes the clean-up fail: nothing more is
// scaled down in that sync, but the sync does not fail (reconcileOldReplicaSets drops the
// error): no retry, and the Deployment's status is written as usual.
// upstream: pkg/controller/deployment/rolling_test.go; rolling.go reconcileOldReplicaSets,
// cleanupUnhealthyReplicas, scaleDownOldReplicaSetsForRollingUpdate.
func TestReconcileOldReplicaSetsAsUpstream(t *testing.T) {
	type rs struct{ spec, available int }
	for _, tc := range []struct {
		name              string
		replicas, unavail int
		newRS             rs
		old               []rs // oldest first
		wantOld           []int
		wantCalls         int
	}{
		{name: "upstream 1: maxUnavailable 0 (1 when maxSurge is 0 too)", replicas: 10, unavail: 1, newRS: rs{0, 0}, old: []rs{{10, 10}}, wantOld: []int{9}, wantCalls: 1},
		{name: "upstream 2: maxUnavailable 2", replicas: 10, unavail: 2, newRS: rs{0, 0}, old: []rs{{10, 10}}, wantOld: []int{8}, wantCalls: 1},
		{name: "upstream 3: unhealthy cleaned up", replicas: 10, unavail: 2, newRS: rs{0, 0}, old: []rs{{10, 8}}, wantOld: []int{8}, wantCalls: 1},
		{name: "upstream 4: one unhealthy, one available", replicas: 10, unavail: 2, newRS: rs{0, 0}, old: []rs{{10, 9}}, wantOld: []int{8}, wantCalls: 2},
		{name: "upstream 5: new pods unavailable", replicas: 10, unavail: 2, newRS: rs{2, 0}, old: []rs{{8, 8}}, wantOld: []int{8}, wantCalls: 0},
		{name: "clean-up takes the oldest first", replicas: 10, unavail: 2, newRS: rs{2, 2}, old: []rs{{3, 1}, {5, 5}}, wantOld: []int{1, 5}, wantCalls: 1},
		{name: "scale-down takes the oldest first", replicas: 10, unavail: 3, newRS: rs{5, 5}, old: []rs{{2, 1}, {3, 3}}, wantOld: []int{0, 2}, wantCalls: 3},
		{name: "a stale status stops the clean-up", replicas: 10, unavail: 2, newRS: rs{4, 4}, old: []rs{{3, 5}, {3, 2}}, wantOld: []int{3, 3}, wantCalls: 0},
		{name: "after cleaning an older one", replicas: 10, unavail: 2, newRS: rs{4, 4}, old: []rs{{3, 2}, {3, 5}}, wantOld: []int{2, 3}, wantCalls: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &serviceState{replicas: tc.replicas, unavail: int32(tc.unavail), newRSCreated: true}
			s.newRS = &replicaSet{svc: s, spec: int32(tc.newRS.spec), status: rsStatus{available: int32(tc.newRS.available)}, desired: int32(tc.replicas), maxReplicas: int32(tc.replicas)}
			for i, o := range tc.old {
				s.oldRSs = append(s.oldRSs, &replicaSet{svc: s, spec: int32(o.spec), status: rsStatus{available: int32(o.available)},
					desired: int32(tc.replicas), maxReplicas: int32(tc.replicas), created: model.Timestamp(i)})
			}
			if s.scalingEvent() {
				t.Fatal("a scaling event")
			}
			p := newDeploymentPlan(s, nil)
			p.rollingUpdate()
			if p.writeNew {
				t.Errorf("the new ReplicaSet scaled to %d", p.newSpec)
			}
			for i, o := range p.old {
				if o.spec != tc.wantOld[i] {
					t.Errorf("old ReplicaSet %d: %d replicas, want %d", i+1, o.spec, tc.wantOld[i])
				}
			}
			if len(p.steps) != tc.wantCalls {
				t.Errorf("%d calls, want %d", len(p.steps), tc.wantCalls)
			}
		})
	}
}

// TestPodEventsTakeTheClientsTokens checks the Events of the ReplicaSet controller: each
// pod create records a SuccessfulCreate Event, written through the controller's own client
// (its 20 qps bucket) unless the per-object spam filter (25, then one per 5 minutes) drops
// it. With the bucket's burst at 1, token k is there at k × 50 ms. A slow-start batch's
// creates all ask for their tokens when the batch begins; its Events are recorded as the
// creates return, so they take the tokens after the batch's creates and before the next
// batch's. 20 pods (batches of 1, 2, 4, 8 and 5) take 20 creates and the 15 Events of the
// first four batches before the last create, 200 pods 200 creates and 25 Events.
// upstream: pkg/controller/controller_utils.go RealPodControl.createPods (Eventf);
// replica_set.go slowStartBatch (a batch's calls in goroutines at once), Run
// (StartRecordingToSink on the controller's kubeClient); client-go
// tools/record/events_cache.go (defaultSpamBurst 25, defaultSpamQPS 1/300).
func TestPodEventsTakeTheClientsTokens(t *testing.T) {
	for _, tc := range []struct {
		pods   int
		tokens int // creates and Events before the last create
	}{
		{20, 20 + 15},
		{200, 200 + 25},
	} {
		w := testWorkloads()
		w.ReplicaSet.Burst = 1
		cfg := workloadConfig(tc.pods, w, Action{Name: "create", Kind: ActionCreate})
		log := &podLog{}
		if _, err := Run(cfg, log); err != nil {
			t.Fatal(err)
		}
		times := log.added()
		if len(times) != tc.pods {
			t.Fatalf("%d pods created, want %d", len(times), tc.pods)
		}
		// Status writes take a few tokens too; without Events the last create would be at
		// about pods × 50 ms.
		last := times[len(times)-1].Seconds()
		if want := float64(tc.tokens-1) * 0.05; last < want || last > want+1 {
			t.Errorf("%d pods: last created at %.2f s, want %.2f to %.2f s (a token per create and per Event)", tc.pods, last, want, want+1)
		}
	}
}

// TestReplicaSetStatusWrites follows one Deployment of one pod through the statuses its
// controllers write. The ReplicaSet controller writes after the sync that follows a spec
// change even when no pod changed (metadata.generation moved past status.observedGeneration),
// and counts a pod with minReadySeconds 0 ready and available in the same sync. The
// Deployment controller syncs on each of those writes, and on its own ReplicaSet writes, but
// writes its status only when what it computes changed: on the create (unavailableReplicas
// counts the new ReplicaSet's spec), then when the ReplicaSet's status counts the pod, then
// when it counts it available; not for the generation-only write.
// upstream: replica_set_utils.go updateReplicaSetStatus, calculateStatus;
// pkg/api/v1/pod/util.go IsPodAvailable; deployment/sync.go calculateStatus,
// syncRolloutStatus.
func TestReplicaSetStatusWrites(t *testing.T) {
	cfg := workloadConfig(1, testWorkloads(), Action{Name: "create", Kind: ActionCreate})
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := e.services[0]
	var rsWrites, dcWrites []string
	var rsLast rsStatus
	var dcLast deploymentStatus
	runEngine(t, e, func() {
		if st := s.newRS.status; st != rsLast {
			rsLast = st
			rsWrites = append(rsWrites, fmt.Sprintf("generation=%d replicas=%d ready=%d available=%d", st.generation, st.live, st.ready, st.available))
		}
		// The Progressing condition aside: the revision write after the create sets it.
		st := s.dcStatus
		st.progress = 0
		if st != dcLast {
			dcLast = st
			dcWrites = append(dcWrites, fmt.Sprintf("replicas=%d available=%d unavailable=%d", st.replicas, st.available, st.unavailable))
		}
	})
	want := []string{"generation=1 replicas=0 ready=0 available=0", "generation=1 replicas=1 ready=0 available=0", "generation=1 replicas=1 ready=1 available=1"}
	if !slices.Equal(rsWrites, want) {
		t.Errorf("ReplicaSet status writes %q, want %q", rsWrites, want)
	}
	want = []string{"replicas=0 available=0 unavailable=1", "replicas=1 available=0 unavailable=1", "replicas=1 available=1 unavailable=0"}
	if !slices.Equal(dcWrites, want) {
		t.Errorf("Deployment status writes %q, want %q", dcWrites, want)
	}
}

// TestAvailableAfterTheLastReadyTransition checks minReadySeconds across a readiness flap: a
// pod that turns ready, not ready and ready again is available minReadySeconds after its
// last transition, not after the first.
// upstream: pkg/api/v1/pod/util.go IsPodAvailable (lastTransitionTime + minReadySeconds).
func TestAvailableAfterTheLastReadyTransition(t *testing.T) {
	cfg := workloadConfig(1, testWorkloads(), Action{Name: "create", Kind: ActionCreate})
	cfg.Services[0].MinReady = 10 * time.Second
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := e.services[0]
	var readyAgain, available Time
	flapped := false
	runEngine(t, e, func() {
		if len(s.pods) == 0 {
			return
		}
		p := s.pods[0]
		switch {
		case !flapped && p.pod.Ready:
			// Ready: not ready at once, ready again 3 s later.
			flapped = true
			e.setReady(p, false)
			e.after(Time(3*time.Second), e.arenas.setReady.put(evPodSetReady{p, p.epoch, true}))
		case flapped && readyAgain == 0 && p.pod.Ready:
			readyAgain = e.now
		case available == 0 && p.available:
			available = e.now
		}
	})
	if readyAgain == 0 || available == 0 {
		t.Fatalf("ready again at %v, available at %v", readyAgain, available)
	}
	// The Ready transition has whole seconds: available from its second + 10 s, by the
	// event of the second transition (the ReplicaSet's sync plans its next check then).
	if want := virtualTime(timestamp(readyAgain)) + Time(10*time.Second); available != want || readyAgain%Time(time.Second) == 0 {
		t.Errorf("ready again at %v, available at %v: want %v, 10 s after its whole second", readyAgain, available, want)
	}
}

// TestAvailableAfterMinReadySeconds checks when a pod that turned ready at 12.7 s, say, is
// available with minReadySeconds 10: at 22 s, its Ready transition being stored as 12 s. A
// ReplicaSet's or StatefulSet's sync that sees the pod ready plans its next check for then;
// a DaemonSet sees it at its next sync (TestDaemonSetMinReadyRequeue).
// upstream: controller_utils.go FindMinNextPodAvailabilityCheck; pkg/api/v1/pod/util.go
// IsPodAvailable.
func TestAvailableAfterMinReadySeconds(t *testing.T) {
	for _, kind := range []string{KindDeployment, KindStatefulSet, KindDaemonSet} {
		t.Run(kind, func(t *testing.T) {
			cfg := workloadConfig(3, testWorkloads(), Action{Name: "create", Kind: ActionCreate})
			cfg.Services[0].MinReady = 10 * time.Second
			cfg.Services[0].WorkloadKind = kind
			e, err := newEngine(cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			ready := map[*podState]Time{}
			checked := 0
			runEngine(t, e, func() {
				for _, p := range e.services[0].pods {
					if _, seen := ready[p]; !seen && p.pod.Ready {
						ready[p] = e.now
					}
					if r, seen := ready[p]; seen && p.available && r >= 0 {
						want := virtualTime(timestamp(r)) + Time(10*time.Second)
						if e.now != want {
							t.Errorf("%s ready at %v, available at %v, want %v", p.pod.Name, r, e.now, want)
						}
						ready[p] = -1
						checked++
					}
				}
			})
			if checked == 0 {
				t.Fatal("no pod turned available")
			}
		})
	}
}

// TestDaemonSetRolloutWaitsForAFailedNode checks a DaemonSet rollout while a node is down:
// its old pod is deleted (it is not available) but stays terminating, as the kubelet never
// confirms, and upstream counts that node as unavailable until the pod object is gone. With
// maxUnavailable 1 the rollout makes no progress on the healthy nodes.
// upstream: pkg/controller/daemon/update.go rollingUpdate (findUpdatedPodsOnNode skips
// deleted pods: neither old nor new, numUnavailable++).
func TestDaemonSetRolloutWaitsForAFailedNode(t *testing.T) {
	cfg := workloadConfig(1, testWorkloads(),
		Action{Name: "create", Kind: ActionCreate},
		Action{Name: "fail", Kind: ActionFailNodes, Nodes: 1},
		Action{Name: "rollout", Kind: ActionRollout, MaxUnavailable: IntOrPercent{Value: 1}},
	)
	cfg.Services[0].WorkloadKind = KindDaemonSet
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := e.services[0]
	runEngine(t, e, nil)
	updated := 0
	for _, p := range s.set.daemonOn {
		if p != nil && p.hash() == s.templateHash() {
			updated++
		}
	}
	if updated != 0 {
		t.Errorf("%d healthy nodes got the new daemon pod while a failed node's old pod terminates, want 0", updated)
	}
}

// TestStatefulSetMaxUnavailable checks a StatefulSet rollout with maxUnavailable 3 of 6:
// once every replica is available, up to 3 pods of the old revision are deleted at once,
// from the highest ordinal down (MaxUnavailableStatefulSet, on by default since 1.37).
// upstream: stateful_set_control.go updateStatefulSetAfterInvariantEstablished.
func TestStatefulSetMaxUnavailable(t *testing.T) {
	cfg := workloadConfig(6, testWorkloads(),
		Action{Name: "create", Kind: ActionCreate},
		Action{Name: "rollout", Kind: ActionRollout, MaxUnavailable: IntOrPercent{Value: 3}},
	)
	cfg.Services[0].WorkloadKind = KindStatefulSet
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := e.services[0]
	worst := 0
	runEngine(t, e, func() {
		if e.phase != 1 {
			return
		}
		down := 0
		for _, p := range s.set.ordinals {
			if p == nil || p.pod.Terminating || !p.available {
				down++
			}
		}
		worst = max(worst, down)
	})
	if worst != 3 {
		t.Errorf("at most %d of 6 pods unavailable during the rollout, want maxUnavailable 3", worst)
	}
	for i, p := range s.set.ordinals {
		if p == nil || p.hash() != s.templateHash() {
			t.Fatalf("ordinal %d not updated", i)
		}
	}
}

// TestDaemonSetStrategyRoundsUp checks a DaemonSet's maxUnavailable and maxSurge: both are
// rounded up (10% of 15 nodes is 2), and a strategy with neither takes unavailability 1.
// upstream: pkg/controller/daemon/util/daemonset_util.go UnavailableCount, SurgeCount;
// update.go updatedDesiredNodeCounts.
func TestDaemonSetStrategyRoundsUp(t *testing.T) {
	s := &serviceState{replicas: 15, cfg: &ServiceConfig{WorkloadKind: KindDaemonSet}}
	for _, tc := range []struct {
		surge, unavail         IntOrPercent
		wantSurge, wantUnavail int
	}{
		{IntOrPercent{}, IntOrPercent{Value: 10, IsPercent: true}, 0, 2},
		{IntOrPercent{Value: 10, IsPercent: true}, IntOrPercent{}, 2, 0},
		{IntOrPercent{}, IntOrPercent{}, 0, 1},
		{IntOrPercent{}, IntOrPercent{Value: 4}, 0, 4},
	} {
		if su, un := s.resolveStrategy(tc.surge, tc.unavail); su != tc.wantSurge || un != tc.wantUnavail {
			t.Errorf("surge %+v unavailable %+v of 15: %d, %d; want %d, %d", tc.surge, tc.unavail, su, un, tc.wantSurge, tc.wantUnavail)
		}
	}
}

// TestEndpointGoesWhenThePodIsTerminal follows a pod deleted by a scale-down: its endpoint
// turns terminating at the delete, and goes when its containers have stopped, with the
// kubelet's terminal status; the pod object's deletion 500 ms later changes no slice.
// upstream: kubelet_pods.go getPhase (podIsTerminal); k8s.io/endpointslice
// util.ShouldPodBeInEndpoints (a terminal pod has no endpoint).
func TestEndpointGoesWhenThePodIsTerminal(t *testing.T) {
	cfg := testConfig(3, 2)
	cfg.RunEndpoints = false
	cfg.Services[0].Timing.Stop = Fixed(2 * time.Second)
	cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate}, {Name: "down", Kind: ActionScale, Replicas: 1}}
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := e.services[0]
	var deleted, stopped, gone Time
	var victim *podState
	runEngine(t, e, func() {
		if e.phase != 1 {
			return
		}
		for _, p := range s.pods {
			if p.pod.Terminating && victim == nil {
				victim, deleted = p, e.now
			}
		}
		if victim != nil && stopped == 0 && victim.pod.Phase == model.PodSucceeded {
			stopped = e.now
		}
		if victim != nil && gone == 0 && victim.stage == stageGone {
			gone = e.now
		}
	})
	if victim == nil || stopped == 0 || gone == 0 {
		t.Fatalf("no pod deleted, stopped and gone (%v %v %v)", deleted, stopped, gone)
	}
	res := e.stats.results(e.stats.finishRun())
	var after []Time
	for _, w := range res.Writes {
		if w.At > deleted {
			after = append(after, w.At)
		}
	}
	// Two slice writes: the endpoint terminating, then gone; each commits one sync and one
	// API latency after its change.
	if len(after) != 2 || after[1] < stopped || after[1] > stopped+Time(time.Second) {
		t.Errorf("slice writes after the delete at %v: %v; want two, the last soon after the terminal status at %v (the pod object went at %v)", deleted, after, stopped, gone)
	}
}

// TestDaemonSetSurge checks a DaemonSet rollout with maxSurge 2 and maxUnavailable 0: each
// node gets its new pod beside the old one, the old one goes once the new one is
// available, no node is ever without an available daemon pod, and at most two new pods
// are not yet available at once.
// upstream: pkg/controller/daemon/update.go rollingUpdate (maxSurge > 0).
func TestDaemonSetSurge(t *testing.T) {
	cfg := workloadConfig(1, testWorkloads(),
		Action{Name: "create", Kind: ActionCreate},
		Action{Name: "rollout", Kind: ActionRollout, MaxSurge: IntOrPercent{Value: 2}, MaxUnavailable: IntOrPercent{Value: 0}},
	)
	cfg.Services[0].WorkloadKind = KindDaemonSet
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := e.services[0]
	worstSurge := 0
	runEngine(t, e, func() {
		if e.phase != 1 {
			return
		}
		surging := 0
		for n := range e.nodes {
			old, nw := s.set.daemonOn[n], s.set.surgeOn[n]
			if (old == nil || !old.available) && (nw == nil || !nw.available) {
				t.Fatalf("at %v: node %d has no available daemon pod", e.now, n)
			}
			if nw != nil && !nw.available {
				surging++
			}
		}
		worstSurge = max(worstSurge, surging)
	})
	if worstSurge != 2 {
		t.Errorf("at most %d new pods not yet available at once, want maxSurge 2", worstSurge)
	}
	for n, p := range s.set.daemonOn {
		if p == nil || p.hash() != s.templateHash() || s.set.surgeOn[n] != nil {
			t.Fatalf("node %d: daemon pod %v, surge %v after the rollout", n, p, s.set.surgeOn[n])
		}
	}
}

// TestNoReadinessProbeOneUpdate checks a pod with no readiness probe (timing.ready 0): it is
// ready in the same status update that gives it its IPs, so its endpoint appears ready in
// one slice write, not not-ready and then ready.
// upstream: pkg/kubelet/prober/prober_manager.go UpdatePodStatus (no readinessProbe: ready).
func TestNoReadinessProbeOneUpdate(t *testing.T) {
	cfg := testConfig(3, 1)
	cfg.Services[0].Timing.Ready = Fixed(0)
	cfg.Timeline = cfg.Timeline[:1]
	res, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Mode{ModeEndpointSlices, ModeEndpoints} {
		// The object's create (empty) and the update that adds the ready pod.
		if w := res.Total.Mode(m).Writes; w.Total() != 2 {
			t.Errorf("%s: writes %+v, want a create and one update", m, w)
		}
	}
}

// TestDeploymentRetriesShareTheQueuesBucket fails 150 Deployment syncs at once (their
// status writes conflict with a template change made while they ran): each retry
// waits for its own backoff (5 ms at the first failure) and for a token of the workqueue's
// overall bucket (10 qps, burst 100), so 100 retry at 5 ms and the last 50 over the next
// 5 s.
// upstream: client-go util/workqueue default_rate_limiters.go DefaultTypedControllerRateLimiter
// (MaxOf the per-item exponential and the overall bucket).
func TestDeploymentRetriesShareTheQueuesBucket(t *testing.T) {
	cfg := testConfig(3, 1)
	cfg.Services[0].Count = 150
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.services) != 150 {
		t.Fatalf("%d services", len(e.services))
	}
	for _, s := range e.services {
		// The status write of a sync planned for an older generation conflicts.
		d := &dcCall{s: s, plan: deploymentPlan{s: s, steps: []dcStep{{kind: stepStatus}}}}
		d.plan.status.generation = s.generation - 1
		evDeploymentCall{d}.apply(e)
	}
	var at []Time
	for _, s := range e.services {
		if !s.dcRetrying {
			t.Fatalf("%s: no retry", s.svc.Name)
		}
		at = append(at, s.dcRetryAt)
	}
	slices.Sort(at)
	ms := Time(time.Millisecond)
	if at[99] != 5*ms || at[100] <= 5*ms || at[149] < 5*Time(time.Second) || at[149] > 5*Time(time.Second)+5*ms {
		t.Errorf("retries at %v … %v, %v … %v; want 100 at 5 ms, the last at 5 s", at[0], at[99], at[100], at[149])
	}
}

// TestGracefulDeleteWrites follows a pod deleted by a scale-down through its writes, as
// upstream makes them: the delete (deletionTimestamp set); the kubelet's status with the
// bumped observedGeneration 50 ms later, still Ready; the terminal status when the
// containers stop (2 s here), not Ready; the kubelet's delete with grace period 0, an
// update and then the removal. The observedGeneration write changes nothing the
// controllers keep, but both compare deletionTimestamps by pointer: each syncs the Service
// once more, and writes nothing.
// upstream: apiserver pkg/registry/rest/delete.go BeforeDelete; pkg/kubelet/kubelet.go
// SyncTerminatingPod; k8s.io/endpointslice util/controller_utils.go podEndpointsChanged.
func TestGracefulDeleteWrites(t *testing.T) {
	run := func(t *testing.T) ([]TraceEvent, *Results) {
		cfg := testConfig(3, 2)
		cfg.Timeline = []Action{
			{Name: "create", Kind: ActionCreate},
			{Name: "scale", Kind: ActionScale, Replicas: 1},
		}
		log := &podLog{}
		res, err := Run(cfg, log)
		if err != nil {
			t.Fatal(err)
		}
		var deleted string
		for _, ev := range log.events {
			if ev.Type == model.EventDeleted {
				deleted = ev.Pod.Name
			}
		}
		var evs []TraceEvent
		for _, ev := range log.events {
			if ev.Pod.Name == deleted {
				evs = append(evs, ev)
			}
		}
		return evs, res
	}
	evs, res := run(t)
	var got []string
	var at []Time
	for _, ev := range evs {
		if ev.Pod.Terminating {
			got = append(got, fmt.Sprintf("%s ready=%v terminal=%v", ev.Type, ev.Pod.Ready, ev.Pod.Phase == model.PodSucceeded))
			at = append(at, ev.At)
		}
	}
	want := []string{
		"MODIFIED ready=true terminal=false", // the delete
		"MODIFIED ready=true terminal=false", // observedGeneration
		"MODIFIED ready=false terminal=true", // containers stopped
		"MODIFIED ready=false terminal=true", // grace period 0
		"DELETED ready=false terminal=true",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("writes of the deleted pod:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if d := at[1] - at[0]; d != kubeletTerminatingStatus {
		t.Errorf("observedGeneration written %v after the delete, want %v", d, kubeletTerminatingStatus)
	}
	if d := at[2] - at[0]; d != Time(2*time.Second) {
		t.Errorf("terminal status %v after the delete, want the 2s stop", d)
	}
	if at[4] != at[3] {
		t.Errorf("grace-0 update at %v, removal at %v: want one delete call", at[3], at[4])
	}
	// The scale phase: the delete, observedGeneration, terminal and the grace-0 update with
	// the removal (one sync, queued together) — four syncs per controller, and the slice
	// and Endpoints written for the delete and the terminal status only.
	scale := res.Phases[1]
	for _, m := range []struct {
		name string
		r    ModeResult
	}{{"Endpoints", scale.Endpoints}, {"EndpointSlices", scale.EndpointSlices}} {
		if m.r.Syncs != 4 {
			t.Errorf("%s: %d syncs in the scale phase, want 4", m.name, m.r.Syncs)
		}
	}
}

// TestFailedCreateWarningTakesAToken checks that a failed pod create's FailedCreate Warning
// Event is written through the ReplicaSet controller's client like the other Events: a
// slow-start batch of one failing create takes two tokens (the call and the Warning), one
// that succeeds two as well (the call and SuccessfulCreate), and a Warning spam filter of
// its own (by event type) lets 25 through however many Normal Events went before.
// upstream: controller_utils.go RealPodControl.createPods (Eventf Warning FailedCreate);
// client-go tools/record/events_cache.go getSpamKey (the event type is in the key).
func TestFailedCreateWarningTakesAToken(t *testing.T) {
	for _, fail := range []bool{false, true} {
		w := testWorkloads()
		w.ReplicaSet.QPS, w.ReplicaSet.Burst = 1e-9, 100 // no refill
		cfg := workloadConfig(1, w, Action{Name: "create", Kind: ActionCreate})
		e, err := newEngine(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		rs := &replicaSet{svc: e.services[0], hash: "h"}
		for range eventSpamBurst {
			rs.events.allow(0) // the Normal filter spent: a Warning must not be dropped by it
		}
		e.workloads.failRoll = func() bool { return fail }
		before := e.workloads.rsBucket.taken
		e.workloads.createBatch(rsCall{rs: rs}, 1, 1)
		taken := float64(e.workloads.rsBucket.taken - before)
		want := 1.0 // the call; a SuccessfulCreate is dropped by the spent Normal filter
		if fail {
			want = 2 // the call and the Warning
		}
		if math.Abs(taken-want) > 1e-6 {
			t.Errorf("create failing=%v: %.0f tokens taken, want %.0f", fail, taken, want)
		}
	}
}

// TestKubeletBackWritesObservedGenerationOnce: a pod whose kubelet wrote the observedGeneration
// of its deletion and whose node then fails is taken up again when the node is back; the
// status it patches then has nothing new, so the pod gets no second such write. A pod whose
// node failed before that write gets it when the node is back.
// upstream: pkg/kubelet/status/status_manager.go syncPod (no PATCH for an empty patch).
func TestKubeletBackWritesObservedGenerationOnce(t *testing.T) {
	for _, failAfter := range []Time{kubeletTerminatingStatus / 2, kubeletTerminatingStatus * 2} {
		cfg := testConfig(3, 1)
		cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate}}
		e, err := newEngine(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		runEngine(t, e, nil)
		p := e.services[0].pods[0]
		e.deletePod(p)
		writes := 0 // updates of the terminating pod that leave it Ready and not terminal
		var failAt Time = e.now + failAfter
		node := int(p.node)
		for e.q.Len() > 0 {
			it := e.q.pop()
			if failAt >= 0 && it.at > failAt {
				e.now = failAt
				e.failNode(node)
				e.after(Time(time.Minute), evNodeRecover{node, e.nodeEpoch[node]})
				failAt = -1
			}
			e.now = it.at
			before := e.podEvents
			it.ev.apply(e)
			if _, ok := it.ev.(*evPodObservedGeneration); ok && e.podEvents != before {
				writes++
			}
		}
		if writes != 1 || p.stage != stageGone {
			t.Errorf("node failed %v after the delete: %d observedGeneration writes (pod gone: %v), want 1", failAfter, writes, p.stage == stageGone)
		}
	}
}

// TestDropGoneBoundsGonePods checks how long a Service's pod list holds its gone pods: a
// list of up to dropGoneAtOnce pods drops each at once, a longer one until they are an
// eighth of it. Either way the live pods stay in creation order.
func TestDropGoneBoundsGonePods(t *testing.T) {
	for _, tc := range []struct {
		pods int
		// kept is how many gone pods the list holds after each of the first gone ones.
		kept []int
	}{
		{pods: 2, kept: []int{0, 0}},
		{pods: 10, kept: []int{0, 0, 0}},
		{pods: dropGoneAtOnce, kept: []int{0, 0}},
		{pods: dropGoneAtOnce + 1, kept: []int{1, 2, 0}},
		{pods: 40, kept: []int{1, 2, 3, 4, 0, 1}},
	} {
		s := &serviceState{}
		for i := range tc.pods {
			s.pods = append(s.pods, &podState{epoch: int32(i)})
		}
		for i, want := range tc.kept {
			var victim *podState
			for _, p := range s.pods {
				if p.stage != stageGone {
					victim = p
					break
				}
			}
			victim.stage = stageGone
			s.dropGone()
			gone := 0
			for _, p := range s.pods {
				if p.stage == stageGone {
					gone++
				}
			}
			if gone != want || int(s.gone) != gone || s.podCount() != tc.pods-i-1 {
				t.Errorf("%d pods, %d gone: list holds %d gone (counted %d), %d in the API; want %d gone, %d in the API",
					tc.pods, i+1, gone, s.gone, s.podCount(), want, tc.pods-i-1)
			}
			for _, p := range s.pods[len(s.pods):cap(s.pods)] {
				if p != nil {
					t.Fatalf("%d pods: the array keeps a pod past the list's end after %d gone", tc.pods, i+1)
				}
			}
			last := int32(-1)
			for _, p := range s.pods {
				if p.stage != stageGone && p.epoch <= last {
					t.Fatalf("%d pods: live pods out of creation order after %d gone", tc.pods, i+1)
				}
				if p.stage != stageGone {
					last = p.epoch
				}
			}
		}
	}
}

// TestDropGoneShrinksAfterScaleDown: a list compacted to fewer than half its array's
// capacity moves to an array of its size, so that a Service scaled down from thousands of
// pods does not keep the array of thousands; one compacted in place keeps the live pods'
// order.
func TestDropGoneShrinksAfterScaleDown(t *testing.T) {
	s := &serviceState{}
	for i := range 1000 {
		s.pods = append(s.pods, &podState{epoch: int32(i)})
	}
	for i, p := range s.pods {
		if i%10 != 0 {
			p.stage = stageGone
			s.gone++ // gone without compaction, as between compactions
		}
	}
	s.gone-- // the last one's dropGone compacts
	s.dropGone()
	if len(s.pods) != 100 || cap(s.pods) > 200 {
		t.Fatalf("after 900 of 1000 pods gone: %d pods in an array of %d, want 100 in at most 200", len(s.pods), cap(s.pods))
	}
	for i, p := range s.pods {
		if p.epoch != int32(10*i) {
			t.Fatalf("pod %d is the %dth created, want the %dth", i, p.epoch, 10*i)
		}
	}
}

// TestDaemonSetReplacesOnTerminal checks that a DaemonSet rollout without surge creates a
// node's new pod once the old one is terminal (its containers stopped), before the kubelet
// deletes the old object (podDeleteAfterStop later): the controller's sync leaves out a pod
// that is terminal and being deleted, so the node has no pod to it.
// upstream: daemon_controller.go getNodesToDaemonPods (includeDeletedTerminal false),
// podsShouldBeOnNode.
func TestDaemonSetReplacesOnTerminal(t *testing.T) {
	cfg := workloadConfig(1, testWorkloads(),
		Action{Name: "create", Kind: ActionCreate},
		Action{Name: "rollout", Kind: ActionRollout, MaxUnavailable: IntOrPercent{Value: 1}},
	)
	cfg.Cluster.Nodes = 4
	cfg.Services[0].WorkloadKind = KindDaemonSet
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := e.services[0]
	terminal := map[int32]Time{}
	created := map[int32]Time{}
	runEngine(t, e, func() {
		if e.phase != 1 {
			return
		}
		for _, p := range s.pods {
			n := p.pinned()
			if _, ok := terminal[n]; !ok && p.pod.Phase.Terminal() {
				terminal[n] = e.now
			}
			if _, ok := created[n]; !ok && p.hash() == s.templateHash() {
				created[n] = e.now
			}
		}
	})
	if len(created) != 4 || len(terminal) != 4 {
		t.Fatalf("%d old pods seen terminal and %d new pods created, want 4 each", len(terminal), len(created))
	}
	for n, at := range created {
		// Made by the sync the terminal status starts, well before the old object goes.
		if wait := at - terminal[n]; wait < 0 || wait >= podDeleteAfterStop/2 {
			t.Errorf("node %d: new pod %v after its old one turned terminal, want less than %v", n, wait, podDeleteAfterStop/2)
		}
	}
}

// TestRollingScaleDownCountsActiveOldReplicaSets checks the availability a rolling update's
// scale-down of old ReplicaSets reads: the new ReplicaSet's and the active (spec > 0) old
// ones'. An old ReplicaSet already scaled to 0 whose status still counts available pods
// (its controller has not written it since) is left out. 10 replicas, maxSurge 3,
// maxUnavailable 2; old A at 0 (status: 3 available), old B at 5 (5 available), new at 8
// (5 available): 10 available, 8 needed, so B goes to 3 (counting A, it went to 0).
// upstream: deployment/rolling.go rolloutRolling (FilterActiveReplicaSets(oldRSs)),
// reconcileOldReplicaSets, scaleDownOldReplicaSetsForRollingUpdate.
func TestRollingScaleDownCountsActiveOldReplicaSets(t *testing.T) {
	e, err := newEngine(workloadConfig(10, testWorkloads(), Action{Name: "create", Kind: ActionCreate}), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := e.services[0]
	s.replicas, s.surge, s.unavail = 10, 3, 2
	s.newRSCreated = true
	s.newRS = &replicaSet{svc: s, spec: 8, status: rsStatus{live: 8, ready: 5, available: 5}}
	a := &replicaSet{svc: s, spec: 0, status: rsStatus{live: 3, ready: 3, available: 3}}
	b := &replicaSet{svc: s, spec: 5, status: rsStatus{live: 5, ready: 5, available: 5}}
	s.oldRSs = []*replicaSet{a, b}
	p := newDeploymentPlan(s, nil)
	p.rollingUpdate()
	if p.newSpec != 8 || p.old[0].write || p.old[1].spec != 3 {
		t.Errorf("plan: new %d, old A %d (written %v), old B %d; want new 8, A not written, B 3",
			p.newSpec, p.old[0].spec, p.old[0].write, p.old[1].spec)
	}
}

// TestDeploymentCreatingSyncConflicts checks the sync that creates a Deployment's new
// ReplicaSet: it creates the ReplicaSet, writes the Deployment's status (the revision
// annotation and the Progressing condition) and drops the object that write returns, so
// its own status write at the end carries the old resourceVersion and fails with a
// conflict; the sync after it writes that status. The sync is one goroutine making
// blocking calls, so each call goes out when the one before it returned. Through a client
// of 1 qps (burst 1) and 5 ms calls: the create takes the token at 0 and returns at 5 ms,
// when the ReplicaSet exists; the revision write takes the token at 1 s (the
// ScalingReplicaSet Event, sent after the create, the one at 2 s); the status write the
// one at 3 s, and fails at 3.005 s.
// upstream: deployment/sync.go getNewReplicaSet (Create, Eventf, UpdateStatus),
// rolling.go rolloutRolling, progress.go syncRolloutStatus (UpdateStatus of the same
// object); client-go tools/record (the Event sent by the broadcaster's goroutine).
func TestDeploymentCreatingSyncConflicts(t *testing.T) {
	cfg := workloadConfig(3, testWorkloads(), Action{Name: "create", Kind: ActionCreate})
	cfg.ControlPlane.Workloads.Deployment.QPS, cfg.ControlPlane.Workloads.Deployment.Burst = 1, 1
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := e.services[0]
	scaledAt, failedAt, writtenAt := Time(-1), Time(-1), Time(-1)
	runEngine(t, e, func() {
		if scaledAt < 0 && s.newRS != nil && s.newRS.spec > 0 {
			scaledAt = e.now
		}
		if failedAt < 0 && s.dcFailures > 0 {
			failedAt = e.now
		}
		// Its counts: the revision write sets the Progressing condition only.
		st := s.dcStatus
		st.progress = 0
		if writtenAt < 0 && st != (deploymentStatus{}) {
			writtenAt = e.now
		}
	})
	ms := Time(time.Millisecond)
	if scaledAt != 5*ms {
		t.Errorf("the new ReplicaSet exists from %v, want 5ms (the create's return)", scaledAt)
	}
	if failedAt != 3*Time(time.Second)+5*ms {
		t.Errorf("the creating sync's status write failed at %v, want 3.005s", failedAt)
	}
	if writtenAt <= failedAt {
		t.Errorf("the Deployment's status first written at %v, want after the failed write at %v", writtenAt, failedAt)
	}
}

// TestDeploymentReplicaFailureCondition: with failing pod creates, the Deployment's status
// carries the ReplicaFailure condition of its ReplicaSets (syncRolloutStatus copies it, or
// removes it), so a sync whose counts are unchanged still writes when the condition comes
// or goes; it is gone once every pod exists. upstream: deployment/progress.go
// syncRolloutStatus, getReplicaFailures.
func TestDeploymentReplicaFailureCondition(t *testing.T) {
	w := testWorkloads()
	w.PodCreateFailureRate = 0.3
	cfg := workloadConfig(50, w, Action{Name: "create", Kind: ActionCreate},
		Action{Name: "rollout", Kind: ActionRollout, MaxSurge: IntOrPercent{Value: 25, IsPercent: true}, MaxUnavailable: IntOrPercent{Value: 25, IsPercent: true}})
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	conditionOnly, failing := 0, 0
	deploymentStatusWritten = func(s *serviceState, before, written deploymentStatus) {
		if written.failure {
			failing++
		}
		if before.failure != written.failure {
			before.failure = written.failure
			if before == written {
				conditionOnly++
			}
		}
	}
	defer func() { deploymentStatusWritten = nil }()
	runEngine(t, e, nil)
	if failing == 0 || conditionOnly == 0 {
		t.Errorf("%d status writes with ReplicaFailure, %d writing only it; want some of each", failing, conditionOnly)
	}
	if s := e.services[0]; s.dcStatus.failure || s.newRS.live != 50 {
		t.Errorf("at the end: ReplicaFailure %v with %d pods; want it gone with 50", s.dcStatus.failure, s.newRS.live)
	}
}

// TestNewReplicaSetAtZeroIsSynced: a rollout with maxSurge 0 creates its new ReplicaSet at 0
// replicas. The API server gives it generation 1, each scale after adds one, and the
// ReplicaSet controller's add handler queues it, so its status ends with
// observedGeneration 1 + its scales. (The model had the create leave generation 0.)
// upstream: registry/apps/replicaset/strategy.go PrepareForCreate, PrepareForUpdate;
// replica_set.go addRS, updateReplicaSetStatus.
func TestNewReplicaSetAtZeroIsSynced(t *testing.T) {
	cfg := workloadConfig(20, testWorkloads(), Action{Name: "create", Kind: ActionCreate},
		Action{Name: "rollout", Kind: ActionRollout, MaxUnavailable: IntOrPercent{Value: 10, IsPercent: true}})
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var rs *replicaSet // the rollout's
	scales, spec := 0, int32(0)
	runEngine(t, e, func() {
		if e.phase != 1 || !e.services[0].newRSCreated {
			return
		}
		if rs == nil {
			rs = e.services[0].newRS
		}
		if rs.spec != spec {
			scales++
			spec = rs.spec
		}
	})
	if rs == nil || scales == 0 {
		t.Fatalf("no new ReplicaSet scaled (%d scales)", scales)
	}
	if want := int32(scales + 1); rs.generation != want || rs.status.generation != want {
		t.Errorf("new ReplicaSet: generation %d, observed %d after %d scales; want %d", rs.generation, rs.status.generation, scales, want)
	}
}

// TestDeploymentSyncCallsInSequence follows the first sync of a rollout without surge (10
// replicas, maxUnavailable 2) call by call. upstream's sync is one goroutine making blocking
// calls, each when the one before it returned: getNewReplicaSet creates the new ReplicaSet
// at 0 replicas (back at 5 ms) and writes the revision to the Deployment's status (10 ms);
// reconcileOldReplicaSets scales the old ReplicaSet from 10 to 8 (15 ms), which its
// controller sees then and starts deleting; syncRolloutStatus's status write, carrying the
// resourceVersion the revision write replaced, fails at 20 ms. A scale of the Deployment
// while a sync runs makes that sync's status write fail too: the spec change moved the
// resourceVersion. upstream: deployment/sync.go getNewReplicaSet, rolling.go
// rolloutRolling, reconcileOldReplicaSets, progress.go syncRolloutStatus.
func TestDeploymentSyncCallsInSequence(t *testing.T) {
	w := testWorkloads()
	w.Deployment.QPS = 0 // unlimited: the calls wait only for each other
	two := IntOrPercent{Value: 2}
	cfg := workloadConfig(10, w, Action{Name: "create", Kind: ActionCreate},
		Action{Name: "rollout", Kind: ActionRollout, MaxUnavailable: two})
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := e.services[0]
	var start, createdAt, scaledAt, deletingAt, failedAt Time = -1, -1, -1, -1, -1
	var old *replicaSet
	runEngine(t, e, func() {
		if e.phase != 1 {
			return
		}
		if start < 0 {
			start, old = e.now, s.oldRSs[0]
		}
		if createdAt < 0 && s.newRS.generation > 0 {
			createdAt = e.now - start
		}
		if scaledAt < 0 && old.spec != 10 {
			if old.spec != 8 {
				t.Errorf("the old ReplicaSet scaled to %d, want 8", old.spec)
			}
			scaledAt = e.now - start
		}
		if deletingAt < 0 && old.expectDeletes > 0 {
			deletingAt = e.now - start
		}
		if failedAt < 0 && s.dcFailures > 0 {
			failedAt = e.now - start
		}
	})
	ms := Time(time.Millisecond)
	for _, c := range []struct {
		what      string
		got, want Time
	}{
		{"the new ReplicaSet created", createdAt, 5 * ms},
		{"the old ReplicaSet scaled down", scaledAt, 15 * ms},
		{"its controller deleting", deletingAt, 15 * ms},
		{"the status write failed", failedAt, 20 * ms},
	} {
		if c.got != c.want {
			t.Errorf("%s at %v after the rollout's start, want %v", c.what, c.got, c.want)
		}
	}

	// A scale while the sync runs: the status write conflicts.
	e, err = newEngine(workloadConfig(10, w, Action{Name: "create", Kind: ActionCreate}), nil)
	if err != nil {
		t.Fatal(err)
	}
	s = e.services[0]
	scaled, conflict := false, false
	runEngine(t, e, func() {
		// A sync after the creating one (whose status write fails anyway), in flight with
		// its status write still to come (not the no-op sync its last write queued).
		if !scaled && s.dcStatus.replicas > 0 && statusWriteToCome(e, s) {
			e.actOn(&Action{Kind: ActionScale, Replicas: 12}, s)
			scaled = true
		}
		conflict = conflict || scaled && s.dcFailures > 0
	})
	if !scaled || !conflict {
		t.Errorf("a scale during a sync (made: %v): its status write did not fail", scaled)
	}
	if s.newRS.spec != 12 || s.dcStatus.generation != 2 {
		t.Errorf("after the scale: the ReplicaSet at %d, status of generation %d; want 12 and 2", s.newRS.spec, s.dcStatus.generation)
	}
}

// TestReplicaSetStatusWriteConflicts checks the ReplicaSet controller's status write
// against a write of the ReplicaSet by the Deployment controller while its sync runs. The
// status write carries the resourceVersion the sync listed, so it fails with a conflict;
// updateReplicaSetStatus then reads the ReplicaSet (a GET) and writes the same status once
// more: two calls more through the controller's bucket, 10 ms more at 5 ms a call. A second
// conflict fails the sync, which the workqueue retries with the per-item backoff.
// upstream: replica_set_utils.go updateReplicaSetStatus (statusUpdateRetries 1);
// replica_set.go syncReplicaSet (the error returned), processNextWorkItem.
func TestReplicaSetStatusWriteConflicts(t *testing.T) {
	run := func(writeDuringSync bool) (calls int64, statusAt Time) {
		e, err := newEngine(workloadConfig(10, testWorkloads(), Action{Name: "create", Kind: ActionCreate}), nil)
		if err != nil {
			t.Fatal(err)
		}
		s := e.services[0]
		written := false
		runEngine(t, e, func() {
			rs := s.newRS
			if writeDuringSync && !written && rs.item.processing && rs.expectCreates > 0 {
				rs.version++ // the Deployment controller's write (its annotations, say)
				written = true
			}
			if statusAt == 0 && rs.status.live == 10 {
				statusAt = e.now
			}
		})
		if writeDuringSync && !written {
			t.Fatal("no ReplicaSet sync with pod creates in flight")
		}
		return e.workloads.rsBucket.taken, statusAt
	}
	calls, at := run(false)
	conflictCalls, conflictAt := run(true)
	if conflictCalls != calls+2 || conflictAt != at+Time(10*time.Millisecond) {
		t.Errorf("with a write during the sync: %d calls, status of 10 pods written at %v; want %d and %v (without: %d, %v)",
			conflictCalls, conflictAt, calls+2, at+Time(10*time.Millisecond), calls, at)
	}

	// The retry conflicts too: the sync fails, and is retried.
	e, err := newEngine(workloadConfig(10, testWorkloads(), Action{Name: "create", Kind: ActionCreate}), nil)
	if err != nil {
		t.Fatal(err)
	}
	rs := &replicaSet{svc: e.services[0]}
	rs.item.processing = true
	e.workloads.rsQueue.idle--
	retry := e.workloads.newRSCall(rsCall{rs: rs, st: rsStatus{live: 1}, version: rs.version, retried: true})
	rs.version++
	evRSStatusWritten{retry}.apply(e)
	if rs.status.live != 0 || rs.rare == nil || rs.rare.failures != 1 || rs.item.processing {
		t.Errorf("a second conflict: status %+v, processing %v, failures %v; want nothing written and the sync failed", rs.status, rs.item.processing, rs.rare)
	}
}

// runDeploymentSync runs sync d of a Deployment its worker has taken, from its first call
// (sent at time 0) through what follows for a second: its calls, and a retry if it failed.
func runDeploymentSync(e *Engine, d *dcCall) {
	d.s.dcItem.processing = true
	e.workloads.dcQueue.idle--
	e.schedule(e.workloads.dcBucket.reserve(0), evDeploymentCall{d})
	for e.q.Len() > 0 {
		it := e.q.pop()
		if it.at > Time(time.Second) {
			break
		}
		e.now = it.at
		it.ev.apply(e)
	}
}

// TestDeploymentRevisionWriteConflicts: the status write getNewReplicaSet makes after it
// created the new ReplicaSet carries the resourceVersion the sync read; when the
// Deployment's spec changed since (a scale), it fails, and the sync with it: its own status
// write is never sent. upstream: deployment/sync.go getNewReplicaSet (UpdateStatus, the
// error returned), rolling.go rolloutRolling.
func TestDeploymentRevisionWriteConflicts(t *testing.T) {
	for _, specChanged := range []bool{false, true} {
		e, err := newEngine(workloadConfig(10, testWorkloads()), nil)
		if err != nil {
			t.Fatal(err)
		}
		s := e.services[0]
		s.generation = 2
		d := &dcCall{s: s, plan: deploymentPlan{s: s, steps: []dcStep{{kind: stepRevision}, {kind: stepStatus}}}}
		d.plan.status.generation = s.generation
		if specChanged {
			d.plan.status.generation--
		}
		runDeploymentSync(e, d)
		wantCalls, wantFailures := int64(1), int32(1)
		if !specChanged {
			wantCalls, wantFailures = 2, 0
		}
		if got := e.workloads.dcBucket.taken; got != wantCalls || s.dcFailures != wantFailures {
			t.Errorf("spec changed %v: %d calls, %d failures; want %d and %d", specChanged, got, s.dcFailures, wantCalls, wantFailures)
		}
	}
}

// TestDeploymentReplicaSetWriteConflicts checks a Deployment sync whose write of a
// ReplicaSet carries a resourceVersion older than the object's (the ReplicaSet controller
// wrote its status since the sync listed it): the write fails with a conflict. A scale of
// the new ReplicaSet (reconcileNewReplicaSet, or a scaling event's scale) fails the sync:
// no status write, and the workqueue retries it. A rolling update's scale-down of an old
// ReplicaSet does not: reconcileOldReplicaSets drops the error, scales nothing more down,
// and the sync writes the Deployment's status. upstream: deployment/sync.go
// scaleReplicaSet (Update); rolling.go rolloutRolling, reconcileOldReplicaSets.
func TestDeploymentReplicaSetWriteConflicts(t *testing.T) {
	for _, tc := range []struct {
		name         string
		newStale     bool // the new ReplicaSet's scale carries an old version
		oldStale     bool // the first scale-down carries an old version
		wantNew      int32
		wantOld      [2]int32
		wantStatus   bool
		wantFailures int32
	}{
		{name: "no conflict", wantNew: 6, wantOld: [2]int32{3, 1}, wantStatus: true},
		{name: "the new ReplicaSet's scale conflicts", newStale: true, wantNew: 5, wantOld: [2]int32{5, 2}, wantFailures: 1},
		{name: "a scale-down conflicts", oldStale: true, wantNew: 6, wantOld: [2]int32{5, 2}, wantStatus: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := newEngine(workloadConfig(10, testWorkloads()), nil)
			if err != nil {
				t.Fatal(err)
			}
			s := e.services[0]
			newRS := &replicaSet{svc: s, spec: 5, version: 3}
			old := [2]*replicaSet{{svc: s, spec: 5, version: 7}, {svc: s, spec: 2, version: 9}}
			s.newRS, s.newRSCreated = newRS, true
			version := func(rs *replicaSet, stale bool) uint8 {
				if stale {
					return rs.version - 1
				}
				return rs.version
			}
			d := &dcCall{s: s, plan: deploymentPlan{s: s,
				status: deploymentStatus{generation: s.generation, replicas: 10},
				steps: []dcStep{
					{rs: newRS, spec: 6, kind: stepScale, version: version(newRS, tc.newStale)},
					{rs: old[0], spec: 3, kind: stepScaleDown, version: version(old[0], tc.oldStale)},
					{rs: old[1], spec: 1, kind: stepScaleDown, version: old[1].version},
					{kind: stepStatus},
				}}}
			runDeploymentSync(e, d)
			if newRS.spec != tc.wantNew || old[0].spec != tc.wantOld[0] || old[1].spec != tc.wantOld[1] {
				t.Errorf("ReplicaSets at %d, %d, %d; want %d, %d, %d", newRS.spec, old[0].spec, old[1].spec, tc.wantNew, tc.wantOld[0], tc.wantOld[1])
			}
			if written := s.dcStatus.replicas == 10; written != tc.wantStatus {
				t.Errorf("status written: %v, want %v", written, tc.wantStatus)
			}
			if s.dcFailures != tc.wantFailures {
				t.Errorf("%d failures, want %d", s.dcFailures, tc.wantFailures)
			}
		})
	}
}

// TestReplicaSetStatusCountsPodsAvailableDuringTheSync checks when a ReplicaSet's status
// judges availability: after the sync's pod calls, at that time, on the pods it listed
// before them. 10 pods with minReadySeconds 10 are all ready, none yet available, when the
// Deployment is scaled to 510 (at the instant the last turns ready, so the sync lists it in
// the second it turned ready): the sync that creates 500 pods takes about 24 s through the
// controller's 20 qps, and the status it then writes (of the 10 pods it listed) counts
// the 10 available, not the 0 it saw when it began. upstream: replica_set.go
// syncReplicaSet (now taken after manageReplicas), replica_set_utils.go calculateStatus
// (IsPodAvailable at now).
func TestReplicaSetStatusCountsPodsAvailableDuringTheSync(t *testing.T) {
	cfg := workloadConfig(10, testWorkloads(), Action{Name: "create", Kind: ActionCreate})
	cfg.Services[0].MinReady = 10 * time.Second
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := e.services[0]
	scaledAt, checked := Time(-1), false
	var generation int32
	runEngine(t, e, func() {
		rs := s.newRS
		if rs == nil {
			return
		}
		if scaledAt < 0 && rs.ready == 10 && rs.available == 0 {
			e.actOn(&Action{Kind: ActionScale, Replicas: 510}, s)
			scaledAt, generation = e.now, rs.generation+1
		}
		if !checked && scaledAt >= 0 && rs.status.generation == generation {
			checked = true
			if rs.status.live != 10 || rs.status.available != 10 || e.now-scaledAt < Time(20*time.Second) {
				t.Errorf("the scaled ReplicaSet's first status, %v after the scale: %d live, %d available; want 10 and 10, 20 s after at least",
					e.now-scaledAt, rs.status.live, rs.status.available)
			}
		}
	})
	if !checked {
		t.Fatal("no status written of the scaled ReplicaSet")
	}
}

// TestDeploymentStatusWriteQueuesItAgain: the Deployment controller's informer queues a
// Deployment on every update, its own status writes included, so each sync that writes the
// status is followed by another sync, which finds nothing to do once the rollout is done.
// upstream: deployment_controller.go updateDeployment (enqueueDeployment for any update).
func TestDeploymentStatusWriteQueuesItAgain(t *testing.T) {
	w := testWorkloads()
	w.Deployment.QPS = 0 // unlimited: the calls wait only for each other
	cfg := workloadConfig(4, w, Action{Name: "create", Kind: ActionCreate},
		Action{Name: "rollout", Kind: ActionRollout})
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := e.services[0]
	var writes, syncs, syncsAfterLastWrite int
	last := s.dcStatus
	processing := false
	runEngine(t, e, func() {
		if s.dcStatus != last {
			last = s.dcStatus
			writes++
			syncsAfterLastWrite = 0
		}
		if s.dcItem.processing && !processing {
			syncs++
			syncsAfterLastWrite++
		}
		processing = s.dcItem.processing
	})
	if writes == 0 {
		t.Fatal("no Deployment status was written")
	}
	// Each event is seen once it is applied: a sync that starts and writes the status within
	// one event counts before the write; the echo is the sync after the last write.
	if syncsAfterLastWrite == 0 {
		t.Errorf("%d status writes in %d syncs, none after the last write: the write did not queue the Deployment again", writes, syncs)
	}
	if s.dcItem.queued || s.dcItem.processing {
		t.Errorf("the Deployment still queued (%v) or in a sync (%v) at the end", s.dcItem.queued, s.dcItem.processing)
	}
}

// statusWriteToCome reports whether a Deployment sync of s is in flight with its status
// write still to be made.
func statusWriteToCome(e *Engine, s *serviceState) bool {
	for b := range e.q.buckets {
		items := e.q.buckets[b]
		if b == 0 {
			items = items[e.q.head:]
		}
		for _, it := range items {
			ev, ok := it.ev.(evDeploymentCall)
			if !ok || ev.c.s != s {
				continue
			}
			for _, step := range ev.c.plan.steps[ev.c.done:] {
				if step.kind == stepStatus {
					return true
				}
			}
		}
	}
	return false
}

// TestRevisionHistoryCleanup checks that a Deployment keeps revisionHistoryLimit (10) old
// ReplicaSets: once a rollout completes, the Deployment controller deletes the oldest past
// the limit, each a call through its client. upstream: deployment/sync.go
// cleanupDeployment, rolling.go rolloutRolling.
func TestRevisionHistoryCleanup(t *testing.T) {
	for _, tc := range []struct{ rollouts, kept int }{{5, 5}, {10, 10}, {13, 10}} {
		cfg := testConfig(10, 3)
		cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate}}
		for i := range tc.rollouts {
			cfg.Timeline = append(cfg.Timeline, Action{Name: fmt.Sprintf("rollout-%d", i+1), Kind: ActionRollout})
		}
		e, _ := runEngineOf(t, cfg, nil)
		s := e.services[0]
		if kept := int(s.retiredRSs) + len(s.oldRSs); kept != tc.kept {
			t.Errorf("%d rollouts: %d old ReplicaSets kept (%d of them dropped from memory); want %d",
				tc.rollouts, kept, s.retiredRSs, tc.kept)
		}
	}
}

// TestDeploymentProgressDeadline checks the Progressing condition's timeout: a Deployment
// whose pods take 15 minutes to turn ready makes no progress for longer than
// progressDeadlineSeconds (600) after its new ReplicaSet is scaled up: once when created, and
// in its rollout (maxSurge 1, maxUnavailable 0, 2 replicas) once for each new pod. Each time, the sync requeueStuckDeployment queues a second after the
// deadline writes the status with ProgressDeadlineExceeded, its counts unchanged, and the
// pods turning ready write it with progress again. upstream: deployment/progress.go
// syncRolloutStatus, requeueStuckDeployment; util/deployment_util.go DeploymentTimedOut.
func TestDeploymentProgressDeadline(t *testing.T) {
	cfg := workloadConfig(2, testWorkloads(), Action{Name: "create", Kind: ActionCreate},
		Action{Name: "rollout", Kind: ActionRollout, MaxSurge: IntOrPercent{Value: 1}, MaxUnavailable: IntOrPercent{Value: 0}})
	cfg.Services[0].Timing.Ready = Fixed(15 * time.Minute)
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var timeouts []Time
	var progressAt []int32
	deploymentStatusWritten = func(s *serviceState, before, written deploymentStatus) {
		if written.progress == progressTimedOut && before.progress != progressTimedOut {
			timeouts = append(timeouts, e.now)
			progressAt = append(progressAt, s.progressAt)
			b, w := before, written
			b.progress, w.progress = 0, 0
			if b != w {
				t.Errorf("at %v: the timeout's write changes more than the condition: %+v to %+v", e.now, before, written)
			}
		}
	}
	defer func() { deploymentStatusWritten = nil }()
	runEngine(t, e, nil)
	if len(timeouts) != 3 {
		t.Fatalf("%d timeouts written at %v, want 3 (the create's, one for each of the rollout's pods)", len(timeouts), timeouts)
	}
	for i, at := range timeouts {
		deadline := Time(progressAt[i])*Time(time.Second) + progressDeadline + Time(time.Second)
		if at < deadline || at > deadline+Time(time.Second) {
			t.Errorf("timeout %d written at %v; want within a second after %v (last progress at %ds, +600 s, +1 s)", i, at, deadline, progressAt[i])
		}
	}
	if s := e.services[0]; s.dcStatus.progress != progressDone {
		t.Errorf("at the end: %+v, want the rollout complete (NewReplicaSetAvailable)", s.dcStatus)
	}
}

// TestCreatingSyncProgressCondition checks the Progressing condition of the sync that
// creates a new ReplicaSet. getNewReplicaSet sets NewReplicaSetCreated on the object the sync
// goes on with, but SetDeploymentCondition leaves a condition of that reason as it is, time
// and all: a template changed again before any sync saw progress keeps the first create's
// time, and 700 s later the same sync finds the rollout past its deadline. And the sync's own
// status write is compared with that object: when the counts are the same, it writes no
// second status (which would fail with a conflict). Found by `make upstream-deployment`.
// upstream: deployment/sync.go getNewReplicaSet; util/deployment_util.go
// SetDeploymentCondition; progress.go syncRolloutStatus (reflect.DeepEqual(d.Status,
// newStatus)).
func TestCreatingSyncProgressCondition(t *testing.T) {
	for _, tc := range []struct {
		name          string
		stored        progressReason
		agoSeconds    int32
		want          progressReason
		wantAt        int32 // seconds before now
		wantStatusOps int   // the revision write, and the sync's own if any
	}{
		{"created, then changed again, 700 s ago", progressCreated, 700, progressTimedOut, 0, 2},
		{"created, then changed again, 100 s ago", progressCreated, 100, progressCreated, 100, 1},
		{"a rollout timed out", progressTimedOut, 700, progressCreated, 0, 1},
		{"a rollout complete", progressDone, 700, progressCreated, 0, 1},
		{"a rollout progressing", progressUpdated, 100, progressCreated, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := Time(10000 * time.Second)
			// 4 replicas of one old ReplicaSet, 1 ready and available; maxSurge 1: the new
			// ReplicaSet is created with 1, and the counts are those stored.
			s := &serviceState{replicas: 4, surge: 1, unavail: 1, generation: 2}
			s.newRS = &replicaSet{svc: s, hash: "new"}
			s.oldRSs = []*replicaSet{{svc: s, hash: "old", spec: 4, desired: 4, maxReplicas: 5,
				status: rsStatus{live: 4, ready: 1, available: 1}}}
			s.dcStatus = deploymentStatus{generation: 2, replicas: 4, ready: 1, available: 1, unavailable: 4, progress: tc.stored}
			s.progressAt = wholeSeconds(now) - tc.agoSeconds
			p := newDeploymentPlan(s, nil)
			p.plan(now)
			ops := 0
			for _, st := range p.steps {
				if st.kind == stepRevision || st.kind == stepStatus {
					ops++
				}
			}
			if p.status.unavailable != 4 || p.newSpec != 1 {
				t.Fatalf("plan: new ReplicaSet at %d, unavailable %d; want 1 and 4", p.newSpec, p.status.unavailable)
			}
			if p.status.progress != tc.want || p.progressAt != wholeSeconds(now)-tc.wantAt || ops != tc.wantStatusOps {
				t.Errorf("Progressing %d at %d s before now, %d status writes; want %d at %d s before, %d",
					p.status.progress, wholeSeconds(now)-p.progressAt, ops, tc.want, tc.wantAt, tc.wantStatusOps)
			}
		})
	}
}

// TestRestoredReadyTimeIsAvailableAtOnce: with minReadySeconds, a pod whose Ready condition
// comes back with a transition time minReadySeconds or more ago (its kubelet, back after
// its node's outage, keeps the time it had) is available in the same update, as upstream's
// IsPodAvailable computes at the next sync; one that turns ready now is not, until
// minReadySeconds have passed. The model had made both wait for an event at the same
// instant, after the StatefulSet's sync the update started: found by `make
// upstream-statefulset` (seed 122: an OrderedReady set created no pod where upstream did).
// upstream: pkg/api/v1/pod/util.go IsPodAvailable; statefulset processReplica.
func TestRestoredReadyTimeIsAvailableAtOnce(t *testing.T) {
	cfg := workloadConfig(2, testWorkloads(), Action{Name: "create", Kind: ActionCreate})
	cfg.Services[0].MinReady = 13 * time.Second
	e := ranEngine(t, cfg)
	s := e.services[0]
	p, q := s.pods[0], s.pods[1]
	if !p.available || !q.available {
		t.Fatal("after the create phase, a pod is not available")
	}
	kept := p.pod.ReadyTransition
	e.now += Time(time.Minute)
	e.setReady(p, false)
	e.setReady(q, false)
	e.now += Time(time.Minute)
	e.setReadyWith(p, true, kept, nil) // the kubelet restores the time it had
	e.setReady(q, true)                // a new transition, now
	if !p.available {
		t.Errorf("ready again with its transition time of %v ago: not available at once", Time(timestamp(e.now)-kept))
	}
	if q.available {
		t.Error("ready now, with minReadySeconds 13 s: available at once")
	}
}
