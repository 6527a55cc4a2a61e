package sim

import (
	"fmt"
	"io"
	"testing"
	"time"

	"epsim/model"
)

// sliceSource is a TraceSource over events in memory.
type sliceSource struct {
	events []TraceEvent
	i      int
}

func (s *sliceSource) Next() (TraceEvent, error) {
	if s.i >= len(s.events) {
		return TraceEvent{}, io.EOF
	}
	s.i++
	return s.events[s.i-1], nil
}

// staleTrace lists n ready pods of the "web" Service, then takes pod i not ready at each of
// the given times.
func staleTrace(n int, nodes []*model.Node, at ...time.Duration) *sliceSource {
	pod := func(i int, ready bool) *model.Pod {
		return &model.Pod{PodIdentity: model.NewPodIdentity("default", fmt.Sprintf("web-%d", i), fmt.Sprintf("uid-%d", i)),
			NodeName: nodes[i%len(nodes)].Name, Phase: model.PodRunning,
			IPs: []string{fmt.Sprintf("10.1.%d.%d", i/256, i%256)}, Ready: ready}
	}
	src := &sliceSource{}
	web := map[string]string{"app": "web"}
	for i := range n {
		src.events = append(src.events, TraceEvent{Type: model.EventAdded, Pod: pod(i, true), Labels: web, ResourceVersion: fmt.Sprint(i + 1), Listed: true})
	}
	for j, t := range at {
		src.events = append(src.events, TraceEvent{At: Time(t), Type: model.EventModified, Pod: pod(j, false), Labels: web, ResourceVersion: fmt.Sprint(n + j + 1)})
	}
	return src
}

// createdWithTheRecording dates Services created as the recording begins (time 0, the
// replay's first second): they have no objects yet, and the controllers' first syncs create
// them.
func createdWithTheRecording(svcs []*model.Service, nodes []*model.Node, err error) ([]*model.Service, []*model.Node, error) {
	for _, s := range svcs {
		s.CreationTimestamp = timestamp(0)
	}
	return svcs, nodes, err
}

// staleCreation is when staleRun's Service is created: after its listed pods are mapped
// (podQueue), which would queue it again during its first sync had it existed then.
const staleCreation = 2 * time.Second

// staleRun replays staleTrace through the Endpoints controller alone, its Service created at
// staleCreation and the pod changes at the given times after that.
func staleRun(t *testing.T, buildPerPod time.Duration, at ...time.Duration) ModeResult {
	t.Helper()
	cfg := testConfig(3, 1)
	cfg.RunEndpointSlices = false
	cfg.ControlPlane.InformerLag = 20 * time.Millisecond
	cfg.ControlPlane.EndpointsBuildPerPod = buildPerPod
	svcs, nodes, err := ClusterObjects(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range svcs {
		s.CreationTimestamp = timestamp(Time(staleCreation))
	}
	shifted := make([]time.Duration, len(at))
	for i, d := range at {
		shifted[i] = staleCreation + d
	}
	res, _, err := Replay(cfg, svcs, nodes, staleTrace(100, nodes, shifted...), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Total.Endpoints
}

// TestEndpointsStaleCheck follows upstream's syncService and staleEndpointsTracker: the cached
// Endpoints is stale only when it is still the version the controller's own last update
// replaced, and the check comes after the address list is built, so a sync whose build
// outlasts the informer's lag is not stale. A cache that does not have the object the
// controller just created makes the sync create it again, which the API server refuses
// (409): that sync fails too, after its call.
// upstream: endpoints_controller.go syncService; endpoints_tracker_test.go; the controller
// test TestSyncServiceStaleInformer.
func TestEndpointsStaleCheck(t *testing.T) {
	// 100 pods listed; from the Service's creation (the times below are after it), the
	// create commits at 1 ms (build) + 5 ms, and the informer has it at 26 ms.
	for _, tc := range []struct {
		name        string
		buildPerPod time.Duration
		at          []time.Duration
		writes      int64
		stale       int64
	}{
		// Pod 0 goes not ready at 30 ms: its update commits at 36 ms, and the informer has it
		// at 56 ms. A sync at 40 ms, built by 41 ms, reads the version its update replaced:
		// stale, retried 5 ms later (stale again: built at 47 ms), then 10 ms later (built at
		// 58 ms: the informer has the update).
		{"after the controller's own update", 10 * time.Microsecond, []time.Duration{30 * time.Millisecond, 40 * time.Millisecond}, 3, 2},
		// With 200 µs a pod the builds take 20 ms: pod 0's update starts at 100 ms and
		// commits at 125 ms; a sync starting at 130 ms, within the lag, is built at 150 ms,
		// when the informer has had the update for 5 ms: not stale.
		{"build outlasts the lag", 200 * time.Microsecond, []time.Duration{100 * time.Millisecond, 130 * time.Millisecond}, 3, 0},
		// With 100 µs a pod (10 ms builds) the update commits at 115 ms and a sync starting
		// at 120 ms is built at 130 ms, before the informer has the update (135 ms): stale,
		// and its retry 5 ms after it ended is built at 145 ms: not stale.
		{"build within the lag", 100 * time.Microsecond, []time.Duration{100 * time.Millisecond, 120 * time.Millisecond}, 3, 1},
		// Right after the create: a sync at 8 ms, built at 9 ms, finds no Endpoints and
		// creates it again: refused at 14 ms, retried 5 ms later (built at 20 ms: refused
		// again at 25 ms), then 10 ms later (built at 36 ms: the informer has it), when it
		// updates.
		{"after the controller's own create", 10 * time.Microsecond, []time.Duration{8 * time.Millisecond}, 2, 2},
		// Once the informer has the update, nothing is stale.
		{"after the lag", 10 * time.Microsecond, []time.Duration{30 * time.Millisecond, 70 * time.Millisecond}, 3, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := staleRun(t, tc.buildPerPod, tc.at...)
			if r.Writes.Total() != tc.writes || r.StaleSyncs != tc.stale || r.FailedWrites != 0 {
				t.Errorf("writes %+v, stale syncs %d, failed %d; want %d writes, %d stale", r.Writes, r.StaleSyncs, r.FailedWrites, tc.writes, tc.stale)
			}
		})
	}
}

// TestEndpointsStaleSyncConsumesTriggerTime: upstream computes the trigger time (moving the
// tracker's state) before the stale check, so the retry after a stale sync writes without
// the last-change-trigger-time annotation.
// upstream: endpoints_controller.go syncService (ComputeEndpointLastChangeTriggerTime "even
// if the sync turns out to be no-op"), util/trigger_time_tracker.go.
func TestEndpointsStaleSyncConsumesTriggerTime(t *testing.T) {
	cfg := testConfig(3, 1)
	cfg.RunEndpointSlices = false
	cfg.ControlPlane.InformerLag = 20 * time.Millisecond
	svcs, nodes, err := createdWithTheRecording(ClusterObjects(cfg))
	if err != nil {
		t.Fatal(err)
	}
	src := staleTrace(100, nodes, 2*time.Second, 2*time.Second+10*time.Millisecond)
	// Both changes are readiness transitions, with trigger times (whole seconds, as stored).
	for _, ev := range src.events[100:] {
		ev.Pod.ReadyTransition = timestamp(Time(2 * time.Second))
	}
	res, _, err := Replay(cfg, svcs, nodes, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Total.Endpoints; r.StaleSyncs == 0 {
		t.Fatalf("no stale sync: %+v", r)
	}
	// The first update carries the annotation (and its managedFields key); the update after
	// the stale sync has no trigger time left and drops both.
	w := res.Writes
	if len(w) != 3 || w[1].Verb != "update" || w[2].Verb != "update" {
		t.Fatalf("writes %+v", w)
	}
	annotation := int64(len(model.AnnotationTriggerTime) + len("2026-01-01T00:00:02Z"))
	if d := w[1].ObjectBytes - w[2].ObjectBytes; d < annotation {
		t.Errorf("the retry's object is %d B smaller than the first update's, want at least the annotation's %d B", d, annotation)
	}
}

func TestReplaySharesAPodsIdentityAcrossVersions(t *testing.T) {
	decoded := func(uid string) *model.Pod { // as a trace decodes each version
		id := model.NewPodIdentity("default", "web-0", uid)
		id.ContainerPorts = []model.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: model.ProtocolTCP}}
		return &model.Pod{PodIdentity: id, Phase: model.PodRunning}
	}
	first := decoded("uid-1")
	cur := []*podState{{pod: first}}

	same := decoded("uid-1")
	shareIdentity(same, cur)
	if same.PodIdentity != first.PodIdentity {
		t.Error("a version with an equal identity did not take the one before")
	}
	recreated := decoded("uid-2")
	own := recreated.PodIdentity
	shareIdentity(recreated, cur)
	if recreated.PodIdentity != own || recreated.UID != "uid-2" {
		t.Error("a pod recreated under its name (another UID) took the old pod's identity")
	}
	listed := decoded("uid-1")
	own = listed.PodIdentity
	shareIdentity(listed, nil)
	if listed.PodIdentity != own {
		t.Error("a new pod's identity changed")
	}
}

// TestEndpointSliceSyncTakesItsTime checks that an EndpointSlice sync reconciles the pods as
// listed at its start and writes when that is done, endpointSliceSyncPerPod per pod later:
// a change meanwhile waits for the next sync.
// upstream: endpointslice_controller.go syncService (List, then Reconcile, then the writes
// of finalize, the key held throughout).
func TestEndpointSliceSyncTakesItsTime(t *testing.T) {
	cfg := testConfig(3, 1)
	cfg.RunEndpoints = false
	cfg.ControlPlane.EndpointSliceSyncPerPod = time.Millisecond
	svcs, nodes, err := ClusterObjects(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// 100 pods listed; pod 0 not ready at 1 s, pod 1 at 1.05 s (during the first sync).
	res, _, err := Replay(cfg, svcs, nodes, staleTrace(100, nodes, time.Second, 1050*time.Millisecond), nil)
	if err != nil {
		t.Fatal(err)
	}
	var updates []Time
	for _, w := range res.Writes {
		if w.Verb == "update" && w.At >= Time(time.Second) {
			updates = append(updates, w.At)
		}
	}
	// The sync of 1 s writes at 1 s + 100 ms, committed 5 ms later, without pod 1's change.
	// The sync of pod 1 starts when that one ends, finds its cache without the update just
	// committed (stale: checked before the reconcile) and is retried after the 1 s backoff:
	// it writes at 2.105 s + 100 ms.
	ms := Time(time.Millisecond)
	want := []Time{1105 * ms, 2210 * ms}
	if fmt.Sprint(updates) != fmt.Sprint(want) {
		t.Errorf("slice updates committed at %v, want %v", updates, want)
	}
}

// A replayed update of the resourceVersion the pod already has is a resync: both controllers
// drop it (upstream: GetPodUpdateProjectionKey), however the pod differs. The same
// update under a new version takes the pod not ready, which both write. (It comes at 2 s,
// after the EndpointSlice controller's second sync of the slice it found, which would read
// the pod as cached, and each recording ends at 3 s with an update that changes nothing.)
func TestReplayDropsResyncs(t *testing.T) {
	cfg := testConfig(3, 1)
	svcs, nodes, err := ClusterObjects(cfg)
	if err != nil {
		t.Fatal(err)
	}
	run := func(rv string) Results {
		t.Helper()
		src := staleTrace(10, nodes) // versions 1–10, all ready
		if rv != "" {
			ev := src.events[3]
			pod := *ev.Pod
			pod.Ready = false
			src.events = append(src.events, TraceEvent{At: Time(2 * time.Second), Type: model.EventModified, Pod: &pod, Labels: ev.Labels, ResourceVersion: rv})
		}
		last := src.events[5]
		src.events = append(src.events, TraceEvent{At: Time(3 * time.Second), Type: model.EventModified, Pod: last.Pod, Labels: last.Labels, ResourceVersion: "12"})
		res, _, err := Replay(cfg, svcs, nodes, src, nil)
		if err != nil {
			t.Fatal(err)
		}
		return *res
	}
	none, resync, update := run(""), run("4"), run("11")
	for _, m := range []Mode{ModeEndpoints, ModeEndpointSlices} {
		n, r, u := none.Total.Mode(m), resync.Total.Mode(m), update.Total.Mode(m)
		if r.Writes != n.Writes || r.FanoutBytes != n.FanoutBytes {
			t.Errorf("%s: the resync wrote: %+v, %d B fanned out; without it %+v, %d B", m, r.Writes, r.FanoutBytes, n.Writes, n.FanoutBytes)
		}
		if u.Writes.Update <= n.Writes.Update {
			t.Errorf("%s: the update under a new version wrote no update: %+v", m, u.Writes)
		}
	}
}
