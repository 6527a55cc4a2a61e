package sim

import (
	"testing"
	"time"
)

// TestReconnectAfterLoss follows a kube-proxy's tries with no jitter: 0.8 s after the loss
// the first, each a 30 s dial (SYNs 0, 1, 3, 7, 15 s in); for EndpointSlices watch lists,
// 1 s apart but after every eleventh; for Endpoints a LIST, then the delays 1.6, 3.2,
// 6.4 s …, never started again while it tries.
func TestReconnectAfterLoss(t *testing.T) {
	s := func(x float64) Time { return Time(x * float64(time.Second)) }
	noJitter := func() float64 { return 0 }
	for _, tc := range []struct {
		name       string
		m          Mode
		lost, back Time
		want       Time
	}{
		{"back at once: the first try's first SYN", ModeEndpointSlices, s(45), s(45), s(45.8)},
		{"back during the first dial", ModeEndpointSlices, s(45), s(46), s(46.8)},
		// The first dial timed out at 75.8 s; the second starts 1 s later: SYNs 76.8, 77.8,
		// 79.8, 83.8, 91.8 s.
		{"back during the second dial", ModeEndpointSlices, s(45), s(90), s(91.8)},
		// Between the second dial's last SYN (91.8 s) and the third's first (107.8 s).
		{"back between two dials", ModeEndpointSlices, s(45), s(92), s(107.8)},
		// Eleven tries at 45.8 + 31 s × i; the eleventh's dial ends at 385.8 s and the next
		// watch list dials at once, not 1 s later.
		{"a new watch after eleven tries", ModeEndpointSlices, s(45), s(385.5), s(385.8)},
		// A hundred rounds of eleven tries (340 s each) later: the round at 34,045.8 s,
		// SYNs 34,045.8, 34,046.8, 34,048.8, 34,052.8 s.
		{"a hundred rounds later", ModeEndpointSlices, s(45), s(34050.8), s(34052.8)},
		// One LIST a try: dials at 45.8 and 77.4 s (SYNs 77.4, 78.4, 80.4, 84.4, 92.4).
		{"Endpoints: the backoff between LISTs", ModeEndpoints, s(45), s(90), s(92.4)},
		// Tries at 0.8, 32.4, 65.6 and 102 s; the next 12.8 s after 132 s: the backoff
		// starts again only after two minutes without a try (1.18's backoff manager).
		{"Endpoints: the backoff does not start again", ModeEndpoints, 0, s(132.5), s(144.8)},
	} {
		if got := reconnectAfterLoss(tc.m, tc.lost, tc.back, noJitter); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	// With jitter, a kube-proxy gets through never before its network's return, and within
	// 16 s of it for EndpointSlices (the gap from a dial's last SYN to the next dial's
	// first), 75 s for Endpoints (the rest of a dial, then at most 60 s of delay).
	rng := newStream(1, streamReconnectEndpointSlices)
	for i := range 2000 {
		m := []Mode{ModeEndpoints, ModeEndpointSlices}[i%2]
		lost := s(45)
		span := 30 * time.Minute
		if i%10 == 0 {
			span = 990 * time.Hour // a cut of weeks: followed for its last hour (Endpoints)
		}
		back := lost + Time(rng.Int64N(int64(span)))
		at := reconnectAfterLoss(m, lost, back, rng.Float64)
		most := s(75)
		if m == ModeEndpointSlices {
			most = s(16)
		}
		if at < back || at-back > most {
			t.Fatalf("%s, back %v after the loss: through %v after", m, back-lost, at-back)
		}
	}
}

// TestKubeProxiesGetThroughAfterTheirRetries: nodes cut off for 90 s are back, but their
// kube-proxies list again only when their retries get through: EndpointSlices' at the SYN
// 15 s into its second watch list's dial (0.8 to 1.6 s after the loss at 45 s, a 30 s dial
// and 1 s: 91.8 to 92.6 s in), Endpoints' at its second LIST's (92.4 to 94.8 s in). Until
// then the writes reach the other watchers only.
func TestKubeProxiesGetThroughAfterTheirRetries(t *testing.T) {
	cfg := testConfig(20, 200)
	cfg.Timeline = []Action{
		{Name: "create", Kind: ActionCreate, Settle: time.Minute},
		{Name: "cut", Kind: ActionFailNodes, Nodes: 5, Duration: 90 * time.Second},
	}
	e, res := runEngineOf(t, cfg, nil)
	cut := res.Phases[1]
	sec := func(x float64) Time { return cut.Start + Time(x*float64(time.Second)) }
	through := map[Mode][2]Time{ModeEndpointSlices: {sec(91.8), sec(92.6)}, ModeEndpoints: {sec(92.4), sec(94.8)}}
	for _, m := range []Mode{ModeEndpointSlices, ModeEndpoints} {
		if r := cut.Mode(m); r.Relists != 5 {
			t.Errorf("%s: %d relists, want 5", m, r.Relists)
		}
		// The relists' bytes leave in the second they get through.
		var first int64 = -1
		for _, b := range res.Series {
			rb := b.EndpointSlices.ResentBytes
			if m == ModeEndpoints {
				rb = b.Endpoints.ResentBytes
			}
			if rb > 0 && Time(b.Second)*Time(time.Second) >= cut.Start {
				first = b.Second
				break
			}
		}
		lo, hi := int64(through[m][0]/Time(time.Second)), int64(through[m][1]/Time(time.Second))
		if first < lo || first > hi {
			t.Errorf("%s: the relists are sent from second %d, want within %d-%d", m, first, lo, hi)
		}
		var during, after int
		for _, w := range res.Writes {
			if w.Mode != m || w.Outcome != "ok" || w.At < cut.Start {
				continue
			}
			switch {
			case w.At < sec(90) && w.Watchers == 15:
				during++
			case w.At >= through[m][1] && w.Watchers == 20:
				after++
			case w.At < sec(90) || w.At >= through[m][1]:
				t.Errorf("%s: a write %v into the cut has %d watchers", m, w.At-cut.Start, w.Watchers)
			}
		}
		if during == 0 || after == 0 {
			t.Errorf("%s: %d writes to the 15 kube-proxies during the cut, %d to all 20 after; want some of each", m, during, after)
		}
	}
	if e.api.proxies != [2]int{20, 20} {
		t.Errorf("kube-proxies watching at the end: %v, want 20 each", e.api.proxies)
	}
}

// TestFailingAgainWhileGettingThrough: a node that fails again before its kube-proxies got
// through keeps, for each mode still getting through, the mark of its first failure, so
// that its retries go on from the connection lost then; a mode through already is marked
// afresh. A kube-proxy started afresh meanwhile (an upgrade) is through, and its pending
// return does not count it twice.
func TestFailingAgainWhileGettingThrough(t *testing.T) {
	cfg := testConfig(5, 5)
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	slices, endpoints := modeIndex(ModeEndpointSlices), modeIndex(ModeEndpoints)
	e.failNode(0)
	first := e.watchMarks[0].at
	e.now += Time(90 * time.Second)
	evNodeRecover{node: 0, epoch: e.nodeEpoch[0]}.apply(e)
	if !e.proxyAway[slices][0] || !e.proxyAway[endpoints][0] || e.api.proxies != [2]int{4, 4} {
		t.Fatalf("just back: away %v %v, %v watching; want both still getting through", e.proxyAway[slices][0], e.proxyAway[endpoints][0], e.api.proxies)
	}
	pending := evProxyBack{node: 0, mode: ModeEndpointSlices, epoch: e.nodeEpoch[0], mark: e.watchMarks[0]}
	e.now += Time(2 * time.Second)
	pending.apply(e) // EndpointSlices' kube-proxy through; Endpoints' not yet
	e.now += Time(time.Second)
	e.failNode(0)
	m := e.watchMarks[0]
	if m.at[endpoints] != first[endpoints] || m.at[slices] != e.now {
		t.Errorf("failed again: marks at %v, want Endpoints' first (%v) and EndpointSlices' now (%v)", m.at, first[endpoints], e.now)
	}
	if e.api.proxies != [2]int{4, 4} {
		t.Errorf("failed again: %v kube-proxies watching, want 4 each (none counted out twice)", e.api.proxies)
	}
	e.now += Time(90 * time.Second)
	evNodeRecover{node: 0, epoch: e.nodeEpoch[0]}.apply(e)
	late := evProxyBack{node: 0, mode: ModeEndpoints, epoch: e.nodeEpoch[0], mark: e.watchMarks[0]}
	e.rewatch(0, true) // upgraded: its kube-proxies start afresh
	if e.api.proxies != [2]int{5, 5} {
		t.Errorf("started afresh: %v kube-proxies watching, want 5 each", e.api.proxies)
	}
	late.apply(e)
	if e.api.proxies != [2]int{5, 5} {
		t.Errorf("a return pending from before the restart: %v kube-proxies watching, want 5 each", e.api.proxies)
	}
}
