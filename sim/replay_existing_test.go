package sim

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"epsim/model"
)

// storedSlicesOf returns the EndpointSlices engine e's API server stores at the end of its
// run, as a listing of them would give them.
func storedSlicesOf(t *testing.T, e *Engine) []*model.EndpointSlice {
	t.Helper()
	var out []*model.EndpointSlice
	for _, c := range e.ctls {
		if y, ok := c.syncer.(*sliceSyncer); ok {
			for _, st := range y.stored {
				for _, ss := range st.list {
					out = append(out, ss.slice)
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("the run stores no EndpointSlice")
	}
	return out
}

// TestWarmReplayFromTheClustersSlices is TestWarmReplayReproducesAPhase for a Service of
// several slices, whose layout the generated run packed as its pods came. The warm replay
// that starts from the slices the cluster had when the rollout began (a listing of them:
// the same run's create phase alone) reproduces the rollout's writes; its start-up writes
// no slice, as a restarted controller that finds its slices up to date. The replay that
// packs the start-up's slices from the listing writes otherwise.
func TestWarmReplayFromTheClustersSlices(t *testing.T) {
	cfg := testConfig(20, 250)
	e, rollout, events, svcs := recordedRollout(t, cfg)
	created := cfg
	created.Timeline = []Action{{Name: "create", Kind: ActionCreate, Settle: time.Minute}}
	ce, _, _, _ := recordedRun(t, created)
	listing := storedSlicesOf(t, ce)
	if len(listing) < 3 {
		t.Fatalf("the create phase left %d slices, want 3 or more", len(listing))
	}
	replay := func(opts ReplayOptions) (*Results, *ReplayStats) {
		t.Helper()
		opts.Warm = true
		res, stats, err := ReplayWith(opts, cfg, svcs, e.nodes, &recorder{events: events}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res, stats
	}
	res, stats := replay(ReplayOptions{Slices: listing})
	if stats.SeededSlices != int64(len(listing)) || stats.UnseededSlices != 0 {
		t.Errorf("seeded %d slices, left out %d; want %d, 0", stats.SeededSlices, stats.UnseededSlices, len(listing))
	}
	startUp := res.Phases[0]
	if got := startUp.EndpointSlices.Writes; got != (WriteCounts{}) {
		t.Errorf("start-up EndpointSlice writes %+v, want none: the slices are up to date", got)
	}
	if got := startUp.Endpoints.Writes; got != (WriteCounts{}) {
		t.Errorf("start-up Endpoints writes %+v, want none: the one built from the listing is up to date", got)
	}
	if got := startUp.EndpointSlices.Objects; got != int64(len(listing)) {
		t.Errorf("start-up EndpointSlice objects %d, want the %d listed", got, len(listing))
	}
	if diff := replayedDifference(rollout, res.Phases[1], int64(len(e.nodes))); diff != "" {
		t.Error(diff)
	}
	packed, _ := replay(ReplayOptions{})
	if replayedDifference(rollout, packed.Phases[1], int64(len(e.nodes))) == "" {
		t.Error("the replay packed from the listing also reproduces the rollout: the test does not tell the layouts apart")
	}
}

// TestReplaySeededLayout replays three pods whose cluster had two slices, {a, b} and {c}
// (an older layout the controller keeps): the start-up writes nothing, and deleting c
// deletes its slice, where a replay packing one slice of three updates it. A listing that
// lags its pods is reconciled in the start-up, and the write continues the cluster's
// resourceVersions; slices of another manager or Service are left out and counted.
func TestReplaySeededLayout(t *testing.T) {
	cfg := testConfig(3, 3)
	cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate, Settle: time.Minute}}
	e, _, rec, svcs := recordedRun(t, cfg)
	one := storedSlicesOf(t, e)[0]
	if len(one.Endpoints) != 3 {
		t.Fatalf("the run's slice has %d endpoints, want 3", len(one.Endpoints))
	}
	// The listing: each pod's last state.
	last := map[string]TraceEvent{}
	for _, ev := range rec.events {
		ev.At, ev.Type, ev.Listed = 0, model.EventAdded, true
		last[ev.Pod.Name] = ev
	}
	var listed []TraceEvent
	for _, ep := range one.Endpoints {
		listed = append(listed, last[ep.TargetRef.Name])
	}
	deleteC := listed[2]
	deleteC.At, deleteC.Type, deleteC.Listed = Time(time.Second), model.EventDeleted, false
	slice := func(name, rv string, eps ...int) *model.EndpointSlice {
		s := *one
		s.Name, s.UID, s.ResourceVersion = name, "uid-"+name, rv
		s.Endpoints = nil
		for _, i := range eps {
			s.Endpoints = append(s.Endpoints, one.Endpoints[i])
		}
		return &s
	}
	run := func(seeded ...*model.EndpointSlice) (*Results, *ReplayStats) {
		t.Helper()
		src := &recorder{events: append(slices.Clone(listed), deleteC)}
		res, stats, err := ReplayWith(ReplayOptions{Warm: true, Slices: seeded}, cfg, svcs, e.nodes, src, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res, stats
	}
	other := slice("web-other", "123456701", 0)
	other.Labels = other.Labels.Clone()
	other.Labels.Set(model.LabelManagedBy, "someone-else")
	stray := slice("gone-abcde", "123456702", 0)
	stray.Labels = stray.Labels.Clone()
	stray.Labels.Set(model.LabelServiceName, "gone")
	res, stats := run(slice("web-xyz12", "123456703", 2), slice("web-abc12", "123456704", 0, 1), other, stray)
	if stats.SeededSlices != 2 || stats.UnseededSlices != 2 {
		t.Errorf("seeded %d, left out %d; want 2 and 2 (another manager's, another Service's)", stats.SeededSlices, stats.UnseededSlices)
	}
	if got := res.Phases[0].EndpointSlices.Writes; got != (WriteCounts{}) {
		t.Errorf("start-up slice writes %+v, want none", got)
	}
	if got := res.Phases[1].EndpointSlices.Writes; got != (WriteCounts{Delete: 1}) {
		t.Errorf("deleting c: slice writes %+v, want its slice deleted", got)
	}
	packed, _ := run()
	if got := packed.Phases[1].EndpointSlices.Writes; got != (WriteCounts{Update: 1}) {
		t.Errorf("packed from the listing: slice writes %+v, want the one slice updated", got)
	}
	// The listing of slices lags the pods: c is missing from them, and the start-up adds
	// it. Its write's resourceVersion follows the slices': 9 digits, against 4.
	long, _ := run(slice("web-abc12", "123456700", 0, 1))
	short, _ := run(slice("web-abc12", "1200", 0, 1))
	if got := long.Phases[0].EndpointSlices.Writes; got != (WriteCounts{Update: 1}) {
		t.Errorf("a listing without c: start-up slice writes %+v, want one update", got)
	}
	if a, b := long.Phases[0].EndpointSlices.EtcdBytes, short.Phases[0].EndpointSlices.EtcdBytes; a-b != 5 {
		t.Errorf("the update stored %d bytes after slices of resourceVersion 123456700, %d after 1200: want 5 more", a, b)
	}
}

// TestReplayContinuesTheRecordedResourceVersions: the writes of a replay whose recording
// carries a cluster's resourceVersions (9 digits here) continue from them, and are sized
// with them: each object 5 bytes longer than with the 4 digits a run starts at.
func TestReplayContinuesTheRecordedResourceVersions(t *testing.T) {
	cfg := testConfig(3, 3)
	cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate, Settle: time.Minute}}
	e, _, rec, svcs := recordedRun(t, cfg)
	last := map[string]TraceEvent{}
	var order []string
	for _, ev := range rec.events {
		ev.At, ev.Type, ev.Listed = 0, model.EventAdded, true
		if _, ok := last[ev.Pod.Name]; !ok {
			order = append(order, ev.Pod.Name)
		}
		last[ev.Pod.Name] = ev
	}
	run := func(rv func(i int) string) *Results {
		t.Helper()
		var events []TraceEvent
		for i, name := range order {
			ev := last[name]
			ev.ResourceVersion = rv(i)
			events = append(events, ev)
		}
		res, _, err := ReplayWith(ReplayOptions{Warm: true}, cfg, svcs, e.nodes, &recorder{events: events}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	short := run(func(i int) string { return "" })
	long := run(func(i int) string { return "12345678" + string(rune('0'+i)) })
	for _, m := range []Mode{ModeEndpoints, ModeEndpointSlices} {
		a, b := long.Phases[0].Mode(m), short.Phases[0].Mode(m)
		if a.Writes != (WriteCounts{Create: 1}) || a.EtcdBytes-b.EtcdBytes != 5 {
			t.Errorf("%s: start-up %+v of %d bytes after pods of 9-digit resourceVersions, %d without: want one create, 5 bytes more",
				m, a.Writes, a.EtcdBytes, b.EtcdBytes)
		}
	}
}

// TestReplayExistingObjects: a cold replay (a restart of the controllers as the recording
// begins) of ten listed pods, one of which turns not ready at 5 s. A Service created before
// the recording had its Endpoints and slice then: the controllers' first syncs find them up
// to date and write nothing, and the change is the run's one write per control plane. A
// Service created as the recording began has none yet: its first syncs create them.
func TestReplayExistingObjects(t *testing.T) {
	cfg := testConfig(3, 1)
	for _, tc := range []struct {
		name    string
		created Time
		want    WriteCounts
		seeded  int64
		// during: the Service counts as created during the recording (a warning).
		during int64
	}{
		{"created an hour before", -Time(time.Hour), WriteCounts{Update: 1}, 1, 0},
		{"created with the recording", 0, WriteCounts{Create: 1, Update: 1}, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svcs, nodes, err := ClusterObjects(cfg)
			if err != nil {
				t.Fatal(err)
			}
			svcs[0].CreationTimestamp = timestamp(tc.created)
			src := staleTrace(10, nodes, 5*time.Second)
			src.events[10].Pod.ReadyTransition = timestamp(Time(5 * time.Second))
			res, stats, err := Replay(cfg, svcs, nodes, src, nil)
			if err != nil {
				t.Fatal(err)
			}
			if stats.SeededServices != tc.seeded || stats.CreatedDuring != tc.during {
				t.Errorf("%d Services began with their objects, %d were created during the recording; want %d, %d",
					stats.SeededServices, stats.CreatedDuring, tc.seeded, tc.during)
			}
			for _, m := range []Mode{ModeEndpoints, ModeEndpointSlices} {
				r := res.Total.Mode(m)
				if r.Writes != tc.want || r.Objects != 1 {
					t.Errorf("%s: writes %+v, %d objects; want %+v and 1", m, r.Writes, r.Objects, tc.want)
				}
				if r.Programming.Count != 1 {
					t.Errorf("%s: %d programming latencies, want the change's", m, r.Programming.Count)
				}
			}
		})
	}
}

// TestReplayNodeJoins: a node created 30 s into the recording (an autoscaler's) is no
// watcher before: a change at 10 s reaches the kube-proxies of 2 nodes, one at 60 s those
// of 3. When it joins, its kube-proxy lists everything it watches, in either start.
func TestReplayNodeJoins(t *testing.T) {
	cfg := testConfig(3, 1)
	svcs, nodes, err := ClusterObjects(cfg)
	if err != nil {
		t.Fatal(err)
	}
	nodes[2].CreationTimestamp = timestamp(Time(30 * time.Second))
	for _, warm := range []bool{false, true} {
		src := staleTrace(10, nodes[:2], 10*time.Second, 60*time.Second)
		res, _, err := ReplayWith(ReplayOptions{Warm: warm}, cfg, svcs, nodes, src, nil)
		if err != nil {
			t.Fatal(err)
		}
		churn := res.Phases[len(res.Phases)-1]
		for _, m := range []Mode{ModeEndpoints, ModeEndpointSlices} {
			var watchers []int64
			for _, w := range res.Writes {
				if w.Mode == m && w.Phase == churn.Name && w.Outcome == "ok" {
					watchers = append(watchers, w.Watchers)
				}
			}
			if !slices.Equal(watchers, []int64{2, 3}) {
				t.Errorf("warm=%v, %s: the changes reached %v kube-proxies, want 2 then 3", warm, m, watchers)
			}
			if r := churn.Mode(m); r.Relists != 1 || r.ResentBytes <= 0 {
				t.Errorf("warm=%v, %s: %d relists, %d B sent again; want the joining node's LIST", warm, m, r.Relists, r.ResentBytes)
			}
		}
	}
}

// TestReplayNodeJoinsTheZones: the EndpointSlice controller weighs the zones by their ready
// nodes' CPU, and a node created during the recording counts from when it joins. Ten pods
// on the nodes of two zones have hints (topology mode Auto) for those two while the third
// zone has no node; when its node joins at 30 s, the weights change and the controller
// writes the hints again, some endpoints now hinted for the third zone (one update). With
// the node there from the start, nothing changes then.
func TestReplayNodeJoinsTheZones(t *testing.T) {
	cfg := testConfig(3, 1)
	cfg.Services[0].TopologyMode = "Auto"
	for _, joins := range []bool{true, false} {
		svcs, nodes, err := ClusterObjects(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if nodes[0].Zone == nodes[2].Zone || nodes[1].Zone == nodes[2].Zone {
			t.Fatalf("nodes in zones %s, %s, %s: want the third one's alone", nodes[0].Zone, nodes[1].Zone, nodes[2].Zone)
		}
		if joins {
			nodes[2].CreationTimestamp = timestamp(Time(30 * time.Second))
		}
		// A pod's change at a minute keeps the replay going past the join.
		res, _, err := Replay(cfg, svcs, nodes, staleTrace(10, nodes[:2], time.Minute), nil)
		if err != nil {
			t.Fatal(err)
		}
		var late []Time
		for _, w := range res.Writes {
			if w.Mode == ModeEndpointSlices && w.Outcome == "ok" && w.At >= Time(30*time.Second) && w.At < Time(time.Minute) {
				late = append(late, w.At)
			}
		}
		if want := map[bool]int{true: 1, false: 0}[joins]; len(late) != want {
			t.Errorf("node joining at 30 s: %v; slice writes from then on at %v, want %d", joins, late, want)
		}
	}
}

// TestReplayRelist: kubectl's watch started again lists every pod as ADDED, and pods
// deleted while it was down are missing from that list. The replay deletes them at the
// relist, as an informer's Replace does: each control plane writes the removal then. A
// relist that lists every pod deletes nothing, and a new pod listed first in the burst,
// before the first pod the replay has, stays.
func TestReplayRelist(t *testing.T) {
	cfg := testConfig(3, 1)
	for _, tc := range []struct {
		name    string
		relist  []int // the pods the relist lists, in order; 3 is new
		deleted int64
		writes  int64
	}{
		{"web-2 deleted meanwhile", []int{0, 1}, 1, 1},
		{"all listed", []int{0, 1, 2}, 0, 0},
		// web-3 joins at 10s, web-2 leaves when the burst ends 2 ms later: the controllers
		// sync each (the replay applies a recording's events at their times).
		{"a new pod first", []int{3, 0, 1}, 1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svcs, nodes, err := ClusterObjects(cfg)
			if err != nil {
				t.Fatal(err)
			}
			svcs[0].CreationTimestamp = timestamp(-Time(time.Hour))
			src := staleTrace(4, nodes)
			listed := src.events[:3] // web-3 is not in the first listing
			src.events = append([]TraceEvent(nil), listed...)
			for k, i := range tc.relist {
				ev := staleTrace(4, nodes).events[i]
				ev.Listed, ev.At = false, Time(10*time.Second)+Time(k)*Time(time.Millisecond)
				src.events = append(src.events, ev)
			}
			// A minute later, web-0 again at its version (a resync: nothing to write). The
			// relist's deletions come at its end, not with this next event.
			later := src.events[len(src.events)-1]
			later.Type, later.At = model.EventModified, Time(time.Minute)
			later.Pod, later.ResourceVersion = listed[0].Pod, listed[0].ResourceVersion
			src.events = append(src.events, later)
			res, stats, err := Replay(cfg, svcs, nodes, src, nil)
			if err != nil {
				t.Fatal(err)
			}
			if stats.Relists != 1 || stats.RelistDeleted != tc.deleted {
				t.Errorf("%d relists deleting %d pods, want 1 deleting %d", stats.Relists, stats.RelistDeleted, tc.deleted)
			}
			for _, m := range []Mode{ModeEndpoints, ModeEndpointSlices} {
				r := res.Total.Mode(m)
				if r.Writes.Total() != tc.writes {
					t.Errorf("%s: %d writes, want %d", m, r.Writes.Total(), tc.writes)
				}
				for _, w := range res.Writes {
					if w.Mode == m && (w.At < Time(10*time.Second) || w.At > Time(15*time.Second)) {
						t.Errorf("%s: a write at %v, want one soon after the relist at 10s", m, w.At)
					}
				}
			}
		})
	}
}

// TestReplayServiceCreatedDuring: a Service created 30 s into the recording of ten pods,
// one of which turns not ready at 10 s and another at 60 s. Until its creation the
// controllers do not know it: the 10 s change is no write of its, and its first syncs, at
// 30 s, create its objects with the ten pods as they are then; the 60 s change is
// the one update. A Service created after the recording's last event is left out, and
// counted. Either start.
func TestReplayServiceCreatedDuring(t *testing.T) {
	cfg := testConfig(3, 1)
	for _, tc := range []struct {
		name    string
		created time.Duration
		want    WriteCounts
		after   int64
		firstAt Time
	}{
		{"created at 30 s", 30 * time.Second, WriteCounts{Create: 1, Update: 1}, 0, Time(30 * time.Second)},
		{"created after the recording", 2 * time.Minute, WriteCounts{}, 1, 0},
	} {
		for _, warm := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, warm %t", tc.name, warm), func(t *testing.T) {
				svcs, nodes, err := ClusterObjects(cfg)
				if err != nil {
					t.Fatal(err)
				}
				svcs[0].CreationTimestamp = timestamp(Time(tc.created))
				src := staleTrace(10, nodes, 10*time.Second, 60*time.Second)
				res, stats, err := ReplayWith(ReplayOptions{Warm: warm}, cfg, svcs, nodes, src, nil)
				if err != nil {
					t.Fatal(err)
				}
				if stats.CreatedDuring != 1 || stats.CreatedAfterEnd != tc.after || stats.SeededServices != 0 {
					t.Errorf("created during %d, after the end %d, seeded %d; want 1, %d, 0",
						stats.CreatedDuring, stats.CreatedAfterEnd, stats.SeededServices, tc.after)
				}
				churn := res.Phases[len(res.Phases)-1]
				start := churn.Start
				for _, m := range []Mode{ModeEndpoints, ModeEndpointSlices} {
					if got := res.Total.Mode(m).Writes; got != tc.want || churn.Mode(m).Writes != tc.want {
						t.Errorf("%s: writes %+v (replay phase %+v), want %+v", m, got, churn.Mode(m).Writes, tc.want)
					}
					for _, w := range res.Writes {
						if w.Mode == m && w.Verb == "create" {
							if at := w.At - start; at < tc.firstAt || at > tc.firstAt+Time(time.Second) {
								t.Errorf("%s: created at %v of the recording, want within a second of %v", m, at, tc.firstAt)
							}
							if w.Endpoints != 10 {
								t.Errorf("%s: created with %d endpoints, want 10", m, w.Endpoints)
							}
						}
					}
				}
			})
		}
	}
}

// TestReplayListingOnlyLeavesLaterServicesOut: a recording that is only its listing ends
// at once; a Service created after it is left out, and counted, in either start.
func TestReplayListingOnlyLeavesLaterServicesOut(t *testing.T) {
	cfg := testConfig(3, 1)
	for _, warm := range []bool{false, true} {
		svcs, nodes, err := ClusterObjects(cfg)
		if err != nil {
			t.Fatal(err)
		}
		svcs[0].CreationTimestamp = timestamp(Time(time.Minute))
		res, stats, err := ReplayWith(ReplayOptions{Warm: warm}, cfg, svcs, nodes, staleTrace(5, nodes), nil)
		if err != nil {
			t.Fatal(err)
		}
		if stats.CreatedDuring != 1 || stats.CreatedAfterEnd != 1 {
			t.Errorf("warm %t: created during %d, after the end %d; want 1 and 1", warm, stats.CreatedDuring, stats.CreatedAfterEnd)
		}
		for _, m := range []Mode{ModeEndpoints, ModeEndpointSlices} {
			if w := res.Total.Mode(m).Writes; w != (WriteCounts{}) {
				t.Errorf("warm %t, %s: writes %+v, want none", warm, m, w)
			}
		}
	}
}

// TestNodeJoinQueuesOverloadedServices: a node that joins not ready changes no zone weight,
// but the EndpointSlice controller's node add handler still runs its topology check, which
// queues at once every Service whose hints the weights overload, one waiting out the backoff
// of a stale sync included (upstream: endpointslice_controller.go addNode →
// checkNodeTopologyDistribution → serviceQueue.Add). Here a zone's nodes go not ready right
// after the hinted Service's writes, so that its sync finds a stale cache and is retried
// after 1 s; a node joining meanwhile queues it.
func TestNodeJoinQueuesOverloadedServices(t *testing.T) {
	cfg := testConfig(30, 60)
	cfg.RunEndpoints = false
	cfg.Services[0].TopologyMode = "Auto"
	cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate}}
	e := ranEngine(t, cfg)
	c := e.ctls[0]
	if !c.syncer.(*sliceSyncer).opts.Topology.HasPopulatedHints("default/web") {
		t.Fatal("the hinted Service has no hints after the create phase")
	}
	k := &c.keys[0]
	c.informerLag = Time(time.Hour) // the next sync finds a stale cache
	for i, n := range e.nodes {
		if n.Zone == "us-east-1b" {
			e.setNodeReady(i, false)
		}
	}
	// The sync the node changes queued finds a stale cache: its retry waits 1 s.
	for k.queued || k.processing {
		it := e.q.pop()
		e.now = it.at
		it.ev.apply(e)
	}
	if !k.delayed {
		t.Fatal("the hinted Service's sync after the node changes was not retried later")
	}
	evNodeJoin{node: 0, ready: false}.apply(e)
	if !k.queued {
		t.Error("a node joining not ready did not queue the Service its zone weights overload")
	}
}

// TestReplayQueuesTheSlicesItFinds: a restarted EndpointSlice controller's tracker knows
// none of the slices it finds, so the informer's add of each, as its cache syncs, queues
// the Service a second later, and so does the informer's update of each at every resync
// until the controller has written it: two syncs of the Service a resync, where the
// Endpoints controller makes one. At the start both controllers' pod queues map the listed
// pods while the Service's first sync runs, which queues it again: two syncs with
// Endpoints, three with EndpointSlices. A Service created during the recording (after
// its pods were mapped) has no such slices: one sync each, at its creation and at each
// resync. A change that writes the slice ends it (upstream, each measured with the real
// controller and a fake clientset).
func TestReplayQueuesTheSlicesItFinds(t *testing.T) {
	for _, tc := range []struct {
		name      string
		created   Time
		resync    time.Duration
		change    bool
		slicesPer func(endpoints int64) int64
	}{
		{"existing, no resync", -Time(time.Hour), 0, false, func(n int64) int64 { return n + 1 }},
		{"existing, resyncs", -Time(time.Hour), 20 * time.Second, false, func(n int64) int64 { return 2*n - 1 }},
		{"created during the recording, resyncs", Time(2 * time.Second), 20 * time.Second, false, func(n int64) int64 { return n }},
		// The change at 5 s writes the slice: the resyncs after it queue the Service once.
		{"existing, written at 5 s, resyncs", -Time(time.Hour), 20 * time.Second, true, func(n int64) int64 { return n + 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(3, 1)
			cfg.ControlPlane.MinResyncPeriod = tc.resync
			svcs, nodes, err := ClusterObjects(cfg)
			if err != nil {
				t.Fatal(err)
			}
			svcs[0].CreationTimestamp = timestamp(tc.created)
			src := staleTrace(10, nodes)
			last := src.events[len(src.events)-1]
			if tc.change {
				src = staleTrace(10, nodes, 5*time.Second)
			}
			// The recording ends at 100 s with an event that changes no endpoint.
			last.At, last.Listed, last.ResourceVersion = Time(100*time.Second), false, "1000"
			last.Type = model.EventModified
			src.events = append(src.events, last)
			res, _, err := Replay(cfg, svcs, nodes, src, nil)
			if err != nil {
				t.Fatal(err)
			}
			ep, es := res.Total.Mode(ModeEndpoints).Syncs, res.Total.Mode(ModeEndpointSlices).Syncs
			if tc.resync > 0 && ep < 3 {
				t.Fatalf("%d Endpoints syncs: want the start's and at least two resyncs'", ep)
			}
			if want := tc.slicesPer(ep); es != want {
				t.Errorf("%d EndpointSlice syncs for %d Endpoints syncs, want %d", es, ep, want)
			}
		})
	}
	// From a warm start, whose start-up writes nothing and so settles at once, the syncs
	// the pod queue and the slices' adds queue still fall in the start-up phase, which
	// waits for them.
	cfg := testConfig(3, 1)
	svcs, nodes, err := ClusterObjects(cfg)
	if err != nil {
		t.Fatal(err)
	}
	svcs[0].CreationTimestamp = timestamp(-Time(time.Hour))
	res, _, err := ReplayWith(ReplayOptions{Warm: true}, cfg, svcs, nodes, staleTrace(10, nodes, 5*time.Second), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int64{3, 1} {
		if got := res.Phases[i].EndpointSlices.Syncs; got != want {
			t.Errorf("warm start, phase %s: %d EndpointSlice syncs, want %d", res.Phases[i].Name, got, want)
		}
	}
}
