package sim

import (
	"testing"
	"time"
)

// TestReconnectAfterLoss follows a reflector's retries with no jitter: the delays 0.8, 1.6,
// 3.2, 6.4 s …, a 30 s dial per request (SYNs 0, 1, 3, 7, 15 s in), a watch list then a
// LIST for EndpointSlices, a LIST for Endpoints.
func TestReconnectAfterLoss(t *testing.T) {
	s := func(x float64) Time { return Time(x * float64(time.Second)) }
	noJitter := func() float64 { return 0 }
	for _, tc := range []struct {
		name       string
		m          Mode
		lost, back Time
		want       reconnect
	}{
		{"back at once: the first attempt's first SYN", ModeEndpointSlices, s(45), s(45), reconnect{s(45.8), true}},
		{"back during the watch list's dial", ModeEndpointSlices, s(45), s(46), reconnect{s(46.8), true}},
		// The watch list's dial timed out at 75.8 s; the LIST's SYNs: 75.8, 76.8, 78.8,
		// 82.8, 90.8 s.
		{"back during the LIST's dial", ModeEndpointSlices, s(45), s(90), reconnect{s(90.8), false}},
		// Both dials timed out (105.8 s), then 1.6 s of delay.
		{"back during the delay", ModeEndpointSlices, s(45), s(105.9), reconnect{s(107.4), true}},
		// One request a try: dials at 45.8 and 77.4 s (SYNs 77.4, 78.4, 80.4, 84.4, 92.4).
		{"Endpoints: a LIST a try", ModeEndpoints, s(45), s(90), reconnect{s(92.4), false}},
		// Tries at 0.8, 32.4, 65.6 and 102 s; at 132 s two minutes have passed since the
		// backoff started, so it starts again: 0.8 s, not 12.8 s.
		{"backoff reset after two minutes", ModeEndpoints, 0, s(132.5), reconnect{s(132.8), false}},
	} {
		if got := reconnectAfterLoss(tc.m, tc.lost, tc.back, noJitter); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	// With jitter, a kube-proxy gets through within 75 s of its network's return (the rest of
	// a dial after its last SYN, then at most 60 s of delay), and never before.
	rng := newStream(1, streamReconnectEndpointSlices)
	for i := range 2000 {
		m := []Mode{ModeEndpoints, ModeEndpointSlices}[i%2]
		lost := s(45)
		back := lost + Time(rng.Int64N(int64(30*time.Minute)))
		r := reconnectAfterLoss(m, lost, back, rng.Float64)
		if r.at < back || r.at-back > s(75) || r.watchList && m == ModeEndpoints {
			t.Fatalf("%s, back %v after the loss: %+v", m, back-lost, r)
		}
	}
}

// TestKubeProxiesGetThroughAfterTheirRetries: nodes cut off for 90 s are back, but their
// kube-proxies list again only when their retries get through: EndpointSlices' at the
// LIST's SYN 15 s into its dial (0.8 to 1.6 s of delay after the loss at 45 s, then two
// dials: 90.8 to 91.6 s in), Endpoints' at its second try's (92.4 to 94.8 s in). Until then
// the writes reach the other watchers only.
func TestKubeProxiesGetThroughAfterTheirRetries(t *testing.T) {
	cfg := testConfig(20, 200)
	cfg.Timeline = []Action{
		{Name: "create", Kind: ActionCreate, Settle: time.Minute},
		{Name: "cut", Kind: ActionFailNodes, Nodes: 5, Duration: 90 * time.Second},
	}
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.run()
	if err != nil {
		t.Fatal(err)
	}
	cut := res.Phases[1]
	sec := func(x float64) Time { return cut.Start + Time(x*float64(time.Second)) }
	through := map[Mode][2]Time{ModeEndpointSlices: {sec(90.8), sec(91.6)}, ModeEndpoints: {sec(92.4), sec(94.8)}}
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
