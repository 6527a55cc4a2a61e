package sim

import (
	"fmt"
	"maps"
	"testing"
	"time"

	"epsim/model"
)

func TestPodQueueTakesTheWorkerFreeFirst(t *testing.T) {
	q := &podQueue{free: make([]Time, 2), perService: Time(time.Millisecond)}
	// Each item lists a namespace of 1 Service: (1 + podMapFixed) ms.
	cost := Time(1+podMapFixed) * Time(time.Millisecond)
	for i, want := range []Time{cost, cost, 2 * cost, 2 * cost, 3 * cost} {
		if got := q.take(0, 0, 1, 1); got != want {
			t.Errorf("item %d at 0 ends at %v, want %v", i, got, want)
		}
	}
	// A worker free before the item comes starts it at once; two listings cost twice.
	if got, want := q.take(10*cost, 0, 1, 2), 12*cost; got != want {
		t.Errorf("a relabelled pod's item at %v ends at %v, want %v", 10*cost, got, want)
	}
	// The pod states of one recorded event share its item; the next event takes its own.
	first := q.take(20*cost, 7, 4, 1)
	if again := q.take(20*cost, 7, 4, 1); again != first {
		t.Errorf("a second state of one pod event ends at %v, want the first's %v", again, first)
	}
	if next := q.take(20*cost, 8, 4, 1); next != first {
		t.Errorf("the next pod event, on the other free worker, ends at %v, want %v", next, first)
	}
	if q.take(20*cost, 9, 4, 1) == first {
		t.Error("a third pod event with both workers busy did not wait")
	}
	// Items of unequal cost: the next goes to the worker free first, not the next in turn.
	q = &podQueue{free: make([]Time, 2), perService: Time(time.Millisecond)}
	ms := Time(time.Millisecond)
	long, short := q.take(0, 0, 10, 1), q.take(0, 0, 1, 1)
	if long != 15*ms || short != 6*ms {
		t.Fatalf("items of 15 and 6 ms end at %v and %v", long, short)
	}
	if got := q.take(0, 0, 1, 1); got != 12*ms {
		t.Errorf("the third item ends at %v, want 12ms (on the worker free at 6ms)", got)
	}
}

// podQueueTrace lists the "web" Service's pods web-0 … web-(ready-1), all ready, and other
// pods no Service selects (unmatched), then applies changes.
func podQueueTrace(nodes []*model.Node, ready, unmatched int, changes ...TraceEvent) *sliceSource {
	src := &sliceSource{}
	rv := 0
	for i := range ready + unmatched {
		name, labels := fmt.Sprintf("web-%d", i), map[string]string{"app": "web"}
		if i >= ready {
			name, labels = fmt.Sprintf("job-%d", i), map[string]string{"app": "job"}
		}
		rv++
		src.events = append(src.events, TraceEvent{Type: model.EventAdded, Pod: queuePod(nodes, i, name, true),
			Labels: labels, ResourceVersion: fmt.Sprint(rv), Listed: true})
	}
	for _, ev := range changes {
		rv++
		ev.ResourceVersion = fmt.Sprint(rv)
		src.events = append(src.events, ev)
	}
	return src
}

// queuePod is pod name (the i-th of podQueueTrace), ready or not.
func queuePod(nodes []*model.Node, i int, name string, ready bool) *model.Pod {
	return &model.Pod{PodIdentity: model.NewPodIdentity("default", name, "uid-"+name),
		NodeName: nodes[i%len(nodes)].Name, Phase: model.PodRunning,
		IPs: []string{fmt.Sprintf("10.1.%d.%d", i/256, i%256)}, Ready: ready}
}

// webNotReady is pod web-i of podQueueTrace going not ready at at.
func webNotReady(nodes []*model.Node, i int, at time.Duration) TraceEvent {
	return TraceEvent{At: Time(at), Type: model.EventModified, Pod: queuePod(nodes, i, fmt.Sprintf("web-%d", i), false),
		Labels: map[string]string{"app": "web"}}
}

// podQueueCluster is testConfig's cluster with one mode's controller alone and the pod
// queue's cost perService, with its Services and nodes.
func podQueueCluster(t *testing.T, mode Mode, perService time.Duration) (Config, []*model.Service, []*model.Node) {
	t.Helper()
	cfg := testConfig(3, 1)
	cfg.RunEndpoints, cfg.RunEndpointSlices = mode == ModeEndpoints, mode == ModeEndpointSlices
	cfg.ControlPlane.PodMapPerService = perService
	svcs, nodes, err := ClusterObjects(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, svcs, nodes
}

// podQueueRun replays src through the Endpoints controller alone, with workers workers
// (Service and pod workers alike), the pod queue's cost perService, and others more
// Services in the "default" namespace that select no pod. It returns the Endpoints updates'
// times, and the replay's stats.
func podQueueRun(t *testing.T, perService time.Duration, workers, others int, src func(nodes []*model.Node) *sliceSource) ([]Time, *ReplayStats) {
	t.Helper()
	cfg, svcs, nodes := podQueueCluster(t, ModeEndpoints, perService)
	cfg.ControlPlane.Endpoints.Workers = workers
	for i := range others {
		o := *svcs[0]
		o.Name, o.Selector = fmt.Sprintf("other-%d", i), model.SelectorFromMap(map[string]string{"app": fmt.Sprintf("other-%d", i)})
		svcs = append(svcs, &o)
	}
	res, stats, err := Replay(cfg, svcs, nodes, src(nodes), nil)
	if err != nil {
		t.Fatal(err)
	}
	var updates []Time
	for _, w := range res.Writes {
		if w.Mode == ModeEndpoints && w.Verb == "update" && w.Name == "web" {
			updates = append(updates, w.At)
		}
	}
	return updates, stats
}

// TestPodQueueDelaysTheService: a pod's change reaches the Service queue only once a pod
// worker has listed every Service of the pod's namespace, podMapPerService each (and a
// fixed part worth podMapFixed Services), so the write that carries it comes that much
// later, the more so the more Services the namespace has.
// upstream: endpoints_controller.go onPodUpdate, syncPod; k8s.io/endpointslice util
// GetServicesToUpdate (Services(namespace).List).
func TestPodQueueDelaysTheService(t *testing.T) {
	notReady := func(nodes []*model.Node) *sliceSource {
		return podQueueTrace(nodes, 10, 0, webNotReady(nodes, 0, 10*time.Second))
	}
	for _, others := range []int{0, 20} {
		fast, _ := podQueueRun(t, time.Nanosecond, 5, others, notReady)
		slow, _ := podQueueRun(t, time.Millisecond, 5, others, notReady)
		if len(fast) != 1 || len(slow) != 1 {
			t.Fatalf("%d other Services: updates %v and %v, want one each", others, fast, slow)
		}
		services := Time(1 + others + podMapFixed)
		if got, want := slow[0]-fast[0], services*Time(time.Millisecond-time.Nanosecond); got != want {
			t.Errorf("%d other Services: the update came %v later at 1 ms a Service, want %v", others, got, want)
		}
	}
}

// TestPodQueueStartUpMapsEveryListedPod: at start-up the pod workers take every listed pod
// in order, those no Service selects too, and a change after the listing waits behind
// them. 5 workers at 100 ms a Service (600 ms an item): the Service's one pod is mapped at
// 0.6 s, and its change at 1 s is mapped at 1.6 s; behind 40 more listed pods, which keep
// the workers busy until 4.8 s (one of them until 5.4 s), at 5.4 s.
func TestPodQueueStartUpMapsEveryListedPod(t *testing.T) {
	run := func(unmatched int) ([]Time, *ReplayStats) {
		return podQueueRun(t, 100*time.Millisecond, 5, 0, func(nodes []*model.Node) *sliceSource {
			return podQueueTrace(nodes, 1, unmatched, webNotReady(nodes, 0, time.Second))
		})
	}
	alone, aloneStats := run(0)
	behind, behindStats := run(40)
	if aloneStats.ListingMappedSeconds != 0.6 || behindStats.ListingMappedSeconds != 5.4 {
		t.Errorf("the listing mapped by %gs and %gs, want 0.6s and 5.4s", aloneStats.ListingMappedSeconds, behindStats.ListingMappedSeconds)
	}
	if len(alone) != 1 || len(behind) != 1 {
		t.Fatalf("updates %v and %v, want one each", alone, behind)
	}
	if got, want := behind[0]-alone[0], Time(3800*time.Millisecond); got != want {
		t.Errorf("behind 40 unmatched listed pods the update came %v later, want %v", got, want)
	}
	if alone[0] < Time(1600*time.Millisecond) {
		t.Errorf("the update came at %v, before its mapping ended (1.6 s)", alone[0])
	}
}

// TestPodQueueRelabelListsTwice: an update that changes a pod's labels lists the
// namespace's Services twice (for the old labels and the new), even when it moves the pod
// into no Service and out of none; one that changes nothing endpoints show is no item.
// With one pod worker, the change after it waits for both listings.
func TestPodQueueRelabelListsTwice(t *testing.T) {
	run := func(labels map[string]string) []Time {
		updates, _ := podQueueRun(t, 100*time.Millisecond, 1, 0, func(nodes []*model.Node) *sliceSource {
			return podQueueTrace(nodes, 10, 0,
				TraceEvent{At: Time(20 * time.Second), Type: model.EventModified, Pod: queuePod(nodes, 1, "web-1", true), Labels: labels},
				webNotReady(nodes, 0, 20*time.Second))
		})
		return updates
	}
	same := run(map[string]string{"app": "web"})
	relabelled := run(map[string]string{"app": "web", "tier": "front"})
	if len(same) != 1 || len(relabelled) != 1 {
		t.Fatalf("updates %v and %v, want one each", same, relabelled)
	}
	// One Service in the namespace: 600 ms a listing.
	if got, want := relabelled[0]-same[0], Time(1200*time.Millisecond); got != want {
		t.Errorf("after a relabelled pod the update came %v later, want %v (two listings)", got, want)
	}
}

// TestPodQueuesSharedByEqualWorkers: both controllers see the same pod events at the same
// cost, so with as many workers each they share one queue; with different workers each has
// its own.
func TestPodQueuesSharedByEqualWorkers(t *testing.T) {
	for _, tc := range []struct {
		slice, endpoints int
		queues           int
	}{{5, 5, 1}, {5, 3, 2}, {1, 0, 1}} { // 0 workers is 1
		cfg := testConfig(3, 1)
		cfg.ControlPlane.EndpointSlice.Workers, cfg.ControlPlane.Endpoints.Workers = tc.slice, tc.endpoints
		e, err := newEngine(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(e.podQueues) != tc.queues {
			t.Errorf("workers %d and %d: %d pod queues, want %d", tc.slice, tc.endpoints, len(e.podQueues), tc.queues)
		}
		n := 0
		for _, q := range e.podQueues {
			n += len(q.ctls)
			for _, c := range q.ctls {
				if max(c.cfg.Workers, 1) != len(q.free) {
					t.Errorf("workers %d and %d: the %s controller's queue has %d workers", tc.slice, tc.endpoints, c.mode, len(q.free))
				}
			}
		}
		if n != len(e.ctls) {
			t.Errorf("workers %d and %d: %d controllers on the queues, want %d", tc.slice, tc.endpoints, n, len(e.ctls))
		}
	}
}

// TestNamespacesSpreadTheCopies: an entry's copies spread over its namespaces round robin,
// their pods and objects with them, each namespace counting its own Services for the pod
// queues; actions name the copies by the entry's namespace field.
func TestNamespacesSpreadTheCopies(t *testing.T) {
	cfg := testConfig(3, 2)
	cfg.Services[0].Count, cfg.Services[0].Namespace, cfg.Services[0].Namespaces = 5, "team", 3
	cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate},
		{Name: "restart", Kind: ActionRestartPods, Pods: 1, Services: []string{"team/web-4"}}}
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range []string{"team-0", "team-1", "team-2", "team-0", "team-1"} {
		if ns := e.services[k].svc.Namespace; ns != want {
			t.Errorf("web-%d in namespace %q, want %q", k, ns, want)
		}
		if !e.services[k].named("team/web") || e.services[k].named(want+"/web") {
			t.Errorf("web-%d: an action names it by the entry's namespace, team, not by %s", k, want)
		}
	}
	res, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	byNamespace := map[string]int{}
	for _, w := range res.Writes {
		if w.Kind == "Endpoints" && w.Verb == "create" {
			byNamespace[w.Namespace]++
		}
	}
	if want := map[string]int{"team-0": 2, "team-1": 2, "team-2": 1}; !maps.Equal(byNamespace, want) {
		t.Errorf("Endpoints created by namespace %v, want %v", byNamespace, want)
	}
	restarted := map[string]bool{}
	for _, w := range res.Writes {
		if w.Phase == "restart" && w.Kind == "Endpoints" {
			restarted[w.Namespace+"/"+w.Name] = true
		}
	}
	if want := map[string]bool{"team-1/web-4": true}; !maps.Equal(restarted, want) {
		t.Errorf("the restart of team/web-4 wrote the Endpoints of %v, want %v", restarted, want)
	}
}

// TestFailedSyncWithoutAChange: a sync queued again by a pod mapping after it already read
// the change (upstream's serviceQueue.AddAfter of syncPod, the key processing: dirty) finds
// the EndpointSlice cache stale and fails, carrying no change. Its retry, a second later,
// still holds the run open, but no change's clock runs from the failure: a change after it
// is timed from its own event.
// upstream: endpointslice_controller.go syncPod, processNextServiceWorkItem (Done re-adds a
// dirty key), syncService (StaleSlices), handleErr (AddRateLimited).
func TestFailedSyncWithoutAChange(t *testing.T) {
	run := func(t *testing.T, later bool) (*Results, *ModeResult) {
		cfg, svcs, nodes := podQueueCluster(t, ModeEndpointSlices, 200*time.Millisecond) // 1.2 s an item
		svcs[0].CreationTimestamp = timestamp(Time(5 * time.Second))                     // after the listing is mapped
		// Pod 0 at 10 s, mapped at 11.2 s: its sync reads pod 1's change too, and pod 1's
		// mapping at 11.201 s queues the Service again while that sync writes.
		changes := []TraceEvent{webNotReady(nodes, 0, 10*time.Second), webNotReady(nodes, 1, 10*time.Second+time.Millisecond)}
		if later {
			changes = append(changes, webNotReady(nodes, 2, 11500*time.Millisecond))
		}
		res, _, err := Replay(cfg, svcs, nodes, podQueueTrace(nodes, 10, 0, changes...), nil)
		if err != nil {
			t.Fatal(err)
		}
		return res, res.Total.Mode(ModeEndpointSlices)
	}
	t.Run("retried", func(t *testing.T) {
		_, r := run(t, false)
		// The creation's sync, the two changes' (at 11.2 s), the stale one and its retry.
		if r.StaleSyncs != 1 || r.Syncs != 4 {
			t.Errorf("%d syncs, %d stale; want 4 and 1 (the stale sync's retry before the run's end)", r.Syncs, r.StaleSyncs)
		}
	})
	t.Run("a change after it", func(t *testing.T) {
		res, _ := run(t, true)
		var last *WriteRecord
		for i := range res.Writes {
			if w := &res.Writes[i]; w.Mode == ModeEndpointSlices && w.At > Time(12*time.Second) {
				last = w
			}
		}
		// The retry at about 12.205 s writes pod 2's change of 11.5 s: 0.7 s, not 1 s
		// from the failure at 11.205 s.
		if last == nil || last.Latency < Time(700*time.Millisecond) || last.Latency > Time(750*time.Millisecond) {
			t.Fatalf("the retry's write %+v, want one 0.70-0.75 s after pod 2's change", last)
		}
	})
}

// TestWarmStartUpWaitsForTheListingsMapping: a warm replay's start-up phase lasts until
// the pod workers are done with the listing, pods no Service selects included: the churn
// after it would wait behind them.
func TestWarmStartUpWaitsForTheListingsMapping(t *testing.T) {
	cfg, svcs, nodes := podQueueCluster(t, ModeEndpoints, 100*time.Millisecond) // 600 ms an item
	svcs[0].CreationTimestamp = timestamp(-Time(time.Hour))
	src := podQueueTrace(nodes, 1, 40, webNotReady(nodes, 0, time.Second))
	res, stats, err := ReplayWith(ReplayOptions{Warm: true}, cfg, svcs, nodes, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	// 41 items for 5 workers: the last ends at 5.4 s.
	if stats.ListingMappedSeconds != 5.4 {
		t.Errorf("the listing mapped by %gs, want 5.4s", stats.ListingMappedSeconds)
	}
	if end := res.Phases[0].End; end < Time(5400*time.Millisecond) {
		t.Errorf("the start-up phase ended at %v, before the listing was mapped (5.4 s)", end)
	}
}

// TestPodQueueMapsUnselectedPodsChanges: an update of a pod no Service selects that changes
// what endpoints show (its readiness) takes an item of the pod queue like any other; one
// that changes nothing of it takes none. With one pod worker, a change after it waits.
func TestPodQueueMapsUnselectedPodsChanges(t *testing.T) {
	run := func(jobReady bool) []Time {
		updates, _ := podQueueRun(t, 100*time.Millisecond, 1, 0, func(nodes []*model.Node) *sliceSource {
			return podQueueTrace(nodes, 1, 1,
				TraceEvent{At: Time(time.Second), Type: model.EventModified, Pod: queuePod(nodes, 1, "job-1", jobReady),
					Labels: map[string]string{"app": "job"}},
				webNotReady(nodes, 0, time.Second))
		})
		return updates
	}
	unchanged, notReady := run(true), run(false)
	if len(unchanged) != 1 || len(notReady) != 1 {
		t.Fatalf("updates %v and %v, want one each", unchanged, notReady)
	}
	if got, want := notReady[0]-unchanged[0], Time(600*time.Millisecond); got != want {
		t.Errorf("behind an unselected pod's readiness change the update came %v later, want %v (one item)", got, want)
	}
}

// TestPodQueueCountsServicesFromTheirCreation: a replay's Service counts in its namespace's
// listings from its creation, one without a selector too (upstream's mapping lists it and
// skips it): created before a pod's change, it makes that change's mapping one Service
// longer; created after, it does not.
func TestPodQueueCountsServicesFromTheirCreation(t *testing.T) {
	run := func(created time.Duration) []Time {
		cfg, svcs, nodes := podQueueCluster(t, ModeEndpoints, time.Millisecond)
		manual := *svcs[0]
		manual.Name, manual.Selector, manual.CreationTimestamp = "manual", nil, timestamp(Time(created))
		svcs = append(svcs, &manual)
		res, _, err := Replay(cfg, svcs, nodes, podQueueTrace(nodes, 10, 0, webNotReady(nodes, 0, 10*time.Second),
			webNotReady(nodes, 1, 30*time.Second)), nil)
		if err != nil {
			t.Fatal(err)
		}
		var updates []Time
		for _, w := range res.Writes {
			if w.Verb == "update" && w.Name == "web" {
				updates = append(updates, w.At)
			}
		}
		return updates
	}
	before, after := run(5*time.Second), run(20*time.Second)
	if len(before) != 2 || len(after) != 2 {
		t.Fatalf("updates %v and %v, want two each", before, after)
	}
	if got, want := before[0]-after[0], Time(time.Millisecond); got != want {
		t.Errorf("a selector-less Service created before the change made its mapping %v longer, want %v", got, want)
	}
	if before[1] != after[1] {
		t.Errorf("once both exist, the mappings differ: %v and %v", before[1], after[1])
	}
}
