package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"epsim/model"
)

// TestSelectorIndexFindsEverySelectingService checks that the Services applyTrace takes
// from the index, filtered by their selectors, are those a scan of every Service finds,
// in the same order: random Services in a few namespaces with overlapping selectors over a
// small label universe (empty, missing and shared selectors, Services without managed
// endpoints), and random pods.
func TestSelectorIndexFindsEverySelectingService(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	namespaces := []string{"a", "b", "c"}
	keys := []string{"app", "tier", "team", "version"}
	values := []string{"x", "y", "z"}
	randomLabels := func(n int) map[string]string {
		m := map[string]string{}
		for range n {
			m[keys[r.IntN(len(keys))]] = values[r.IntN(len(values))]
		}
		return m
	}
	for round := range 200 {
		var services []*serviceState
		for i := range 1 + r.IntN(40) {
			svc := &model.Service{Namespace: namespaces[r.IntN(len(namespaces))]}
			switch r.IntN(8) {
			case 0: // no selector: user-managed endpoints
			case 1:
				svc.Selector = model.SelectorFromMap(map[string]string{})
			default:
				svc.Selector = model.SelectorFromMap(randomLabels(1 + r.IntN(3)))
			}
			svc.ExternalName = svc.Selector != nil && r.IntN(10) == 0
			// Created or not (a Service created during the recording is indexed before it).
			services = append(services, &serviceState{idx: i, svc: svc, created: r.IntN(2) == 0})
		}
		x := newSelectorIndex(services)
		var got []int
		for range 50 {
			ns, labels := namespaces[r.IntN(len(namespaces))], randomLabels(r.IntN(5))
			if r.IntN(10) == 0 {
				labels = nil
			}
			var want []int
			for i, s := range services {
				if replayManaged(s) && s.svc.Namespace == ns && s.svc.Selector.Matches(labels) {
					want = append(want, i)
				}
			}
			got = x.candidates(got[:0], ns, labels)
			if len(slices.Compact(slices.Clone(got))) != len(got) {
				t.Fatalf("round %d: candidates %v repeat a Service", round, got)
			}
			got = slices.DeleteFunc(got, func(i int) bool { return !services[i].svc.Selector.Matches(labels) })
			if !slices.Equal(got, want) {
				t.Fatalf("round %d: pod %s %v: index finds %v, a scan %v", round, ns, labels, got, want)
			}
		}
	}
}

// TestReplayEndTimeCountsFromTheRecordingsEnd replays a recording longer than
// guards.endTime: the guard is for a run that never settles, and starts at the recording's
// last event, so the replay runs to the recording's end and counts every event.
func TestReplayEndTimeCountsFromTheRecordingsEnd(t *testing.T) {
	cfg := testConfig(3, 1)
	cfg.EndTime = time.Hour
	svcs, nodes, err := ClusterObjects(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, stats, err := Replay(cfg, svcs, nodes, staleTrace(10, nodes, 30*time.Minute, 90*time.Minute, 3*time.Hour), nil)
	if err != nil {
		t.Fatalf("a 3-hour recording with guards.endTime 1h: %v", err)
	}
	if stats.Events != 13 || res.EndTime < Time(3*time.Hour) {
		t.Fatalf("replayed %d events, to %v; want 13, past 3h", stats.Events, res.EndTime)
	}
}

// TestEndTimeStopsARun: outside a replay the guard counts from time 0.
func TestEndTimeStopsARun(t *testing.T) {
	cfg := testConfig(3, 1)
	cfg.EndTime = time.Millisecond
	_, err := Run(cfg, nil)
	if !errors.Is(err, ErrEndTime) {
		t.Fatalf("a run longer than guards.endTime 1ms: %v, want %v", err, ErrEndTime)
	}
	// The message names the limit, not the nanosecond of the next queued event.
	if want := ErrEndTime.Error() + `: past guards.endTime 1ms in phase "create"`; err.Error() != want {
		t.Fatalf("error %q, want %q", err, want)
	}
}

// TestWarmReplayReproducesAPhase records a generated run of two phases (create, then a
// rolling update) and replays from a warm start the recording a user would have made of the
// second: its initial listing the pods that existed when the rollout began, its churn the
// rollout's pod events. The start-up phase makes the listing's first syncs; the replay
// phase must then make the writes the rollout made in the generated run, with the same
// bytes. (80 pods, one slice: with more, the replay takes the slices the cluster had to be
// those the listing packs into at once, where the generated run packed them as pods came,
// and a rollout of other slices writes otherwise, unless the replay is given the cluster's
// slices: TestWarmReplayFromTheClustersSlices.)
func TestWarmReplayReproducesAPhase(t *testing.T) {
	cfg := testConfig(20, 80)
	e, rollout, events, svcs := recordedRollout(t, cfg)
	replay := func(warm bool) *Results {
		t.Helper()
		src := &recorder{events: events}
		res, _, err := ReplayWith(ReplayOptions{Warm: warm}, cfg, svcs, e.nodes, src, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	warm := replay(true)
	if len(warm.Phases) != 2 || warm.Phases[0].Name != ReplayStartUpPhase || warm.Phases[1].Name != ReplayPhase {
		t.Fatalf("a warm replay's phases: %+v, want start-up and replay", warm.Phases)
	}
	// The Service existed before the recording: its objects did too, and the start-up's
	// first syncs find them up to date.
	startUp, churned := warm.Phases[0], warm.Phases[1]
	for _, m := range []Mode{ModeEndpointSlices, ModeEndpoints} {
		if got := startUp.Mode(m); got.Writes != (WriteCounts{}) || got.Objects != 1 {
			t.Errorf("start-up %s writes %+v, %d objects; want none, and the one the cluster had", m, got.Writes, got.Objects)
		}
	}
	if churned.Start <= startUp.End {
		t.Errorf("the replay phase starts at %v, before the start-up's end %v", churned.Start, startUp.End)
	}
	if diff := replayedDifference(rollout, churned, int64(len(e.nodes))); diff != "" {
		t.Error(diff)
	}
	if cold := replay(false); len(cold.Phases) != 1 || cold.Phases[0].Name != ReplayPhase {
		t.Errorf("a cold replay's phases: %+v, want replay alone", cold.Phases)
	}
}

// recordedRollout runs cfg's Services through two phases, create and a rolling update
// (25% / 25%), recording the pod events, and returns the engine, the rollout's phase and the
// recording a user would have made of the rollout: its initial listing the pods that
// existed when the rollout began, its churn the rollout's pod events, its time 0 the
// rollout's start (the pods' timestamps, which the trigger times read, are of the
// generated run's clock).
func recordedRollout(t *testing.T, cfg Config) (*Engine, PhaseResult, []TraceEvent, []*model.Service) {
	t.Helper()
	cfg.Timeline = []Action{
		{Name: "create", Kind: ActionCreate, Settle: time.Minute},
		{Name: "rolling-update", Kind: ActionRollout,
			MaxSurge: IntOrPercent{Value: 25, IsPercent: true}, MaxUnavailable: IntOrPercent{Value: 25, IsPercent: true}},
	}
	e, generated, rec, svcs := recordedRun(t, cfg)
	rollout := generated.Phases[1]
	type key struct{ ns, name string }
	live := map[key]TraceEvent{}
	var order []key
	var churn []TraceEvent
	for _, ev := range rec.events {
		if ev.At >= rollout.Start {
			ev.At -= rollout.Start
			churn = append(churn, ev)
			continue
		}
		k := key{ev.Pod.Namespace, ev.Pod.Name}
		if ev.Type == model.EventDeleted {
			delete(live, k)
			continue
		}
		if _, ok := live[k]; !ok {
			order = append(order, k)
		}
		live[k] = ev
	}
	var listed []TraceEvent
	for _, k := range order {
		if ev, ok := live[k]; ok {
			ev.At, ev.Type, ev.Listed = 0, model.EventAdded, true
			listed = append(listed, ev)
		}
	}
	pods := 0
	for _, s := range cfg.Services {
		pods += s.Replicas
	}
	if len(listed) != pods || len(churn) < 2*pods {
		t.Fatalf("the recording has %d listed pods and %d events of churn, want %d and more than %d", len(listed), len(churn), pods, 2*pods)
	}
	events := slices.Concat(listed, churn)
	for i := range events {
		events[i].Origin = timestamp(rollout.Start)
	}
	return e, rollout, events, svcs
}

// replayedDifference says how a replay's phase differs from the generated one it replays
// (nodes the cluster's): their writes and programming latencies must be the same. The
// bytes may differ by a digit of resourceVersion a write: the generated run had made more
// writes when the phase began. The generated phase may end a few milliseconds later: its
// workload controllers' last status writes, which a replay does not run, come after the
// last endpoint write.
func replayedDifference(generated, replayed PhaseResult, nodes int64) string {
	var out []string
	for _, m := range []Mode{ModeEndpointSlices, ModeEndpoints} {
		a, b := generated.Mode(m), replayed.Mode(m)
		writes := a.Writes.Create + a.Writes.Update + a.Writes.Delete
		if a.Writes != b.Writes || abs(a.EtcdBytes-b.EtcdBytes) > writes || abs(a.FanoutBytes-b.FanoutBytes) > writes*nodes ||
			a.Programming != b.Programming {
			out = append(out, fmt.Sprintf("%s: the generated phase wrote %+v (fan-out %d, etcd %d, programming %+v); its warm replay %+v (fan-out %d, etcd %d, programming %+v)",
				m, a.Writes, a.FanoutBytes, a.EtcdBytes, a.Programming, b.Writes, b.FanoutBytes, b.EtcdBytes, b.Programming))
		}
	}
	if got, want := replayed.End-replayed.Start, generated.End-generated.Start; got > want || got < want-Time(50*time.Millisecond) {
		out = append(out, fmt.Sprintf("the replay phase lasted %v, the generated one %v", got, want))
	}
	return strings.Join(out, "\n")
}

func abs(x int64) int64 { return max(x, -x) }

// recordedRun runs cfg, recording its pod events, and returns the engine, its results, the
// recording and the run's Services.
func recordedRun(t *testing.T, cfg Config) (*Engine, *Results, *recorder, []*model.Service) {
	t.Helper()
	rec := &recorder{}
	e, res := runEngineOf(t, cfg, rec)
	var svcs []*model.Service
	for _, s := range e.services {
		svcs = append(svcs, s.svc)
	}
	return e, res, rec, svcs
}

// TestReplayProgrammingFromTheRecordingsStart replays a recording of Services created two
// days before it: the first syncs' trigger time is the Service's creation (upstream's
// tracker, for a Service it has not seen), which a kube-proxy that started after it does
// not count (trackerStartTime). A replay's kube-proxies start with the recording, so no
// latency counts from before it; a run's started before every Service it creates.
func TestReplayProgrammingFromTheRecordingsStart(t *testing.T) {
	cfg := testConfig(20, 50)
	cfg.Timeline = cfg.Timeline[:1] // create
	e, generated, rec, generatedSvcs := recordedRun(t, cfg)
	var svcs []*model.Service
	for _, svc := range generatedSvcs {
		svc := *svc
		svc.CreationTimestamp = timestamp(-48 * Time(time.Hour))
		svcs = append(svcs, &svc)
	}
	res, _, err := Replay(cfg, svcs, e.nodes, rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Mode{ModeEndpointSlices, ModeEndpoints} {
		got := res.Total.Mode(m).Programming
		if got.Count == 0 || got.MaxSeconds > 60 {
			t.Errorf("%s: programming latency %+v, want some, none from the Service's creation two days before", m, got)
		}
		if g := generated.Total.Mode(m).Programming; g.Count != got.Count+1 {
			t.Errorf("%s: the generated run counted %d latencies, the replay %d: want one more (its first sync's)", m, g.Count, got.Count)
		}
	}
}
