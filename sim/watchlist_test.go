package sim

import (
	"testing"
	"time"

	"epsim/model"
)

// TestLiveEventsGzippedAfterAWatchList: a kube-proxy that relists (its node away 60 s) gets
// the EndpointSlice events of the next minutes gzipped, a member each, and after its watch's
// timeout (at most 10 minutes) uncompressed again. The Endpoints mode's kube-proxy lists
// with a LIST and watches uncompressed.
func TestLiveEventsGzippedAfterAWatchList(t *testing.T) {
	cfg := testConfig(10, 5)
	cfg.Timeline = []Action{
		{Name: "create", Kind: ActionCreate},
		{Name: "away", Kind: ActionFailNodes, Nodes: 1, Duration: time.Minute},
		{Name: "soon", Kind: ActionRestartPods, Pods: 2},
		{Name: "idle", Kind: ActionWait, Duration: 10 * time.Minute},
		{Name: "later", Kind: ActionRestartPods, Pods: 2},
	}
	run := func(cfg Config) *Results {
		t.Helper()
		res, err := Run(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run(cfg)
	// What the phase's writes fan out uncompressed (every watcher a kube-proxy), and with
	// one kube-proxy getting each event as a gzip member.
	sums := func(phase string, m Mode) (plain, oneGzipped int64) {
		for _, w := range res.Writes {
			if w.Phase == phase && w.Mode == m && w.Outcome == "ok" {
				plain += w.EventBytes * w.Watchers
				oneGzipped += w.EventBytes*(w.Watchers-1) + model.WatchGzipMemberBytes(w.EventBytes)
			}
		}
		return plain, oneGzipped
	}
	fanout := func(phase string, m Mode) int64 {
		for i := range res.Phases {
			if res.Phases[i].Name == phase {
				return res.Phases[i].Mode(m).FanoutBytes
			}
		}
		t.Fatalf("no phase %s", phase)
		return 0
	}
	for _, c := range []struct {
		phase   string
		m       Mode
		gzipped bool
	}{
		{"soon", ModeEndpointSlices, true},
		{"later", ModeEndpointSlices, false},
		{"soon", ModeEndpoints, false},
		{"later", ModeEndpoints, false},
	} {
		plain, one := sums(c.phase, c.m)
		want := plain
		if c.gzipped {
			want = one
		}
		if got := fanout(c.phase, c.m); plain == 0 || got != want {
			t.Errorf("%s, %s: %d bytes fanned out, want %d (uncompressed %d, one kube-proxy gzipped %d)", c.phase, c.m, got, want, plain, one)
		}
	}
	// A client that does not accept gzip (network.listCompressionRatio 1) gets nothing
	// gzipped.
	cfg.Network.ListCompressionRatio = 1
	res = run(cfg)
	if plain, _ := sums("soon", ModeEndpointSlices); fanout("soon", ModeEndpointSlices) != plain {
		t.Errorf("listCompressionRatio 1: %d bytes fanned out, want %d uncompressed", fanout("soon", ModeEndpointSlices), plain)
	}
}

// TestWatchListTimeouts: the gzipped watches end at their timeouts, drawn in whole seconds
// in [5, 10) minutes, and all at once when their watches are closed.
func TestWatchListTimeouts(t *testing.T) {
	var w watchLists
	rng := newStream(1, streamWatchTimeouts)
	w.start(0, 1000, rng)
	if got := w.live(Time(minWatchTimeout) - 1); got != 1000 {
		t.Errorf("before 5 minutes: %d live, want 1000", got)
	}
	half := w.live(Time(minWatchTimeout + (maxWatchTimeout-minWatchTimeout)/2))
	if half < 400 || half > 600 {
		t.Errorf("at 7.5 minutes: %d live, want about 500", half)
	}
	for _, end := range w.ends {
		if end%Time(time.Second) != 0 {
			t.Errorf("a timeout of %v is no whole number of seconds", end)
		}
	}
	if got := w.live(Time(maxWatchTimeout)); got != 0 {
		t.Errorf("at 10 minutes: %d live, want 0", got)
	}
	w.start(0, 3, rng)
	w.endAll()
	if got := w.live(0); got != 0 {
		t.Errorf("after endAll: %d live", got)
	}
}

// TestBackedUpEventsShareAMember: when the events back up on their way to the watchers (a
// slow network), the gzipped kube-proxy gets those written while one is still on its way in
// the member it began: the phase's fan-out lies between all shared and all members of their
// own, below the latter.
func TestBackedUpEventsShareAMember(t *testing.T) {
	cfg := testConfig(10, 20)
	cfg.Network = NetworkConfig{Enabled: true, NodeIngressBitsPerSec: 2e5}
	cfg.APIServer.EgressBitsPerSec = 1e9
	cfg.Timeline = []Action{
		{Name: "create", Kind: ActionCreate},
		{Name: "away", Kind: ActionFailNodes, Nodes: 1, Duration: time.Minute},
		{Name: "soon", Kind: ActionRestartPods, Pods: 10},
	}
	res, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var shared, own int64
	for _, w := range res.Writes {
		if w.Phase == "soon" && w.Mode == ModeEndpointSlices && w.Outcome == "ok" {
			shared += w.EventBytes*(w.Watchers-1) + model.WatchGzipSharedBytes(w.EventBytes)
			own += w.EventBytes*(w.Watchers-1) + model.WatchGzipMemberBytes(w.EventBytes)
		}
	}
	var got int64
	for i := range res.Phases {
		if res.Phases[i].Name == "soon" {
			got = res.Phases[i].Mode(ModeEndpointSlices).FanoutBytes
		}
	}
	if !(shared <= got && got < own) {
		t.Errorf("%d bytes fanned out; want from %d (every event in a shared member) to below %d (each its own)", got, shared, own)
	}
}
