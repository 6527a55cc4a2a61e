package sim

import (
	"fmt"
	"testing"
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
// the Deployment guarantees at every instant: never more than replicas+maxSurge pods that
// count as replicas, never fewer than replicas−maxUnavailable available ones; and at the end
// every pod is of the new template and available.
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
			e.startPhase(0)
			for {
				if e.quiescent() {
					if !e.endPhase() {
						break
					}
					continue
				}
				it := e.q.pop()
				if _, retry := it.ev.(evDelayedAdd); !retry {
					e.nonRetry--
				}
				e.now = it.at
				it.ev.apply(e)
				if e.phase != 1 || s.rollout == nil {
					continue
				}
				if live := s.newLive + s.oldLive; live > tc.replicas+surge {
					t.Fatalf("at %v: %d pods count as replicas, more than %d+%d", e.now, live, tc.replicas, surge)
				}
				if avail := s.newAvailable + s.oldAvailable; avail < tc.replicas-unavail {
					t.Fatalf("at %v: %d available, fewer than %d-%d", e.now, avail, tc.replicas, unavail)
				}
			}
			if s.newLive != tc.replicas || s.oldLive != 0 || s.newAvailable != tc.replicas {
				t.Fatalf("after the rollout: new %d (available %d), old %d", s.newLive, s.newAvailable, s.oldLive)
			}
		})
	}
}
