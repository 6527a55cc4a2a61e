package sim

import (
	"errors"
	"math/rand/v2"
	"slices"
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
			created := svc.Selector != nil && r.IntN(10) > 0
			services = append(services, &serviceState{idx: i, svc: svc, created: created})
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
				if s.created && s.svc.Namespace == ns && s.svc.Selector.Matches(labels) {
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
	if _, err := Run(cfg, nil); !errors.Is(err, ErrEndTime) {
		t.Fatalf("a run longer than guards.endTime 1ms: %v, want %v", err, ErrEndTime)
	}
}
