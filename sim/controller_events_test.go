package sim

import (
	"testing"
	"time"
)

// TestHintsEventsTakeTheClientsTokens: a Service in topology mode Auto with fewer ready
// endpoints than zones cannot have hints, and every sync of it records a
// TopologyAwareHintsDisabled Warning about the Service, which the EndpointSlice
// controller's client sends after the sync's writes; the recorder's spam filter lets 25
// through at once, then one per 5 minutes. So the client makes one call more than the
// slice writes for each sync, up to 25.
// upstream: endpointslice reconciler.go reconcileByAddressType; topologycache.go
// getAllocations (InsufficientNumberOfEndpoints); client-go events_cache.go
// EventSourceObjectSpamFilter.
func TestHintsEventsTakeTheClientsTokens(t *testing.T) {
	for _, tc := range []struct {
		mode string
		want func(syncs int) int
	}{
		{"Auto", func(syncs int) int { return min(syncs, eventSpamBurst) }},
		{"", func(int) int { return 0 }},
	} {
		cfg := testConfig(3, 2)
		cfg.RunEndpoints = false
		cfg.Services[0].TopologyMode = tc.mode
		cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate}}
		for i := range 30 {
			cfg.Timeline = append(cfg.Timeline, Action{Name: "flip", Kind: ActionFlipReadiness, Pods: 1, NotReadyFor: time.Second},
				Action{Name: "wait", Kind: ActionWait, Duration: time.Duration(i%2+2) * time.Second})
		}
		e, err := newEngine(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		runEngine(t, e, nil)
		c := e.ctls[0]
		res := e.stats.results(e.stats.finishRun())
		m := res.Total.Mode(ModeEndpointSlices)
		writes := m.Writes.Create + m.Writes.Update + m.Writes.Delete + m.NoopWrites + m.FailedWrites
		syncs := m.Syncs
		if syncs < 30 {
			t.Fatalf("mode %q: %d syncs, want 30 or more", tc.mode, syncs)
		}
		if got, want := int(c.bucket.taken)-int(writes), tc.want(int(syncs)); got != want {
			t.Errorf("mode %q: %d calls besides the %d writes in %d syncs, want %d Events", tc.mode, got, writes, syncs, want)
		}
	}
}
