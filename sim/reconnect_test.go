package sim

import (
	"fmt"
	"math"
	"testing"
	"time"

	"epsim/model"
)

// TestRewatch: the kube-proxies of nodes that come back watch again. Down for 44 s (some of
// their pods found not ready meanwhile), under the 45 s in which their client finds the
// connection lost, they resume from their resourceVersion: the watch cache still holds the
// events they missed and sends them, the kube-proxy events of the writes made while they
// were down, and nothing else. Down for 46 s, they found their connection lost, and each
// lists everything it watches; so do those down for 10 minutes, through their pods'
// eviction, who also missed more events than the cache holds, and an upgraded node's
// kube-proxy, which starts again.
func TestRewatch(t *testing.T) {
	base := testConfig(20, 200)
	base.Network = NetworkConfig{Enabled: true, NodeIngressBitsPerSec: 1e9, ListCompressionRatio: 1}
	base.APIServer.EgressBitsPerSec = 10e9
	base.Timeline = []Action{{Name: "create", Kind: ActionCreate, Settle: time.Minute}}
	run := func(t *testing.T, cfg Config) *Results {
		t.Helper()
		res, err := Run(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for _, network := range []bool{true, false} {
		t.Run(fmt.Sprintf("resume/network=%v", network), func(t *testing.T) {
			cfg := base
			cfg.Network.Enabled = network
			cfg.Timeline = append(cfg.Timeline, Action{Name: "blip", Kind: ActionFailNodes, Nodes: 10, Duration: 44 * time.Second})
			res := run(t, cfg)
			blip := res.Phases[1]
			for _, m := range []Mode{ModeEndpoints, ModeEndpointSlices} {
				var missed int64
				for _, w := range res.Writes {
					if w.Mode == m && w.Phase == "blip" && w.Outcome == "ok" && w.At-blip.Start <= Time(44*time.Second) {
						missed += w.EventBytes
					}
				}
				r := blip.Mode(m)
				if missed == 0 || r.ResentBytes != 10*missed || r.Relists != 0 {
					t.Errorf("%s: resent %d B, %d relists; want the %d B of events each of the 10 nodes missed, no relist", m, r.ResentBytes, r.Relists, missed)
				}
			}
		})
	}
	for _, tc := range []struct {
		name    string
		network bool
		down    time.Duration
	}{
		{"relist/connection lost", true, 46 * time.Second},
		{"relist/connection lost, network=false", false, 46 * time.Second},
		{"relist/cache overflowed", true, 10 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := base
			cfg.Network.Enabled = tc.network
			cfg.Timeline = append(cfg.Timeline, Action{Name: "outage", Kind: ActionFailNodes, Nodes: 6, Duration: tc.down})
			res := run(t, cfg)
			for _, m := range []Mode{ModeEndpoints, ModeEndpointSlices} {
				if r := res.Phases[1].Mode(m); r.Relists != 6 || r.ResentBytes <= 0 {
					t.Errorf("%s: %d relists, %d B resent; want 6 LISTs", m, r.Relists, r.ResentBytes)
				}
			}
		})
	}
	t.Run("upgrade", func(t *testing.T) {
		cfg := base
		cfg.Timeline = append(cfg.Timeline, Action{Name: "upgrade", Kind: ActionDrainNodes, Nodes: 20, Waves: 4, Spread: 4 * time.Minute})
		res := run(t, cfg)
		for _, m := range []Mode{ModeEndpoints, ModeEndpointSlices} {
			r := res.Phases[1].Mode(m)
			if r.Relists != 20 || r.ResentBytes <= 0 {
				t.Errorf("%s: %d relists, %d B resent; want a LIST by each of the 20 upgraded nodes", m, r.Relists, r.ResentBytes)
			}
			var egress int64
			for _, b := range res.Series {
				if m == ModeEndpoints {
					egress += b.Endpoints.ResentBytes
				} else {
					egress += b.EndpointSlices.ResentBytes
				}
			}
			if egress != res.Total.Mode(m).ResentBytes {
				t.Errorf("%s: the time series sends %d B again, the total says %d", m, egress, res.Total.Mode(m).ResentBytes)
			}
		}
	})
}

// TestRelistSize: a kube-proxy of EndpointSlices relists through a watch list, its events
// (the objects with their watch-event framing) gzipped whatever their size; one of Endpoints
// with a LIST of the objects, gzipped only from 128 KiB. A set listCompressionRatio replaces
// the measured ratios, and 1 sends relists whole.
func TestRelistSize(t *testing.T) {
	var small, large listing
	for range 10 {
		small.add(1000)
		large.add(100_000)
	}
	if small.events <= small.bytes || small.events-small.bytes > 10*30 {
		t.Fatalf("10 events of 1000 B objects take %d B: want the objects' %d B and some framing", small.events, small.bytes)
	}
	round := func(x int64, r float64) int64 { return int64(math.Round(float64(x) * r)) }
	for _, tt := range []struct {
		name      string
		m         Mode
		l         listing
		ratio     float64
		raw, sent int64
	}{
		{"slices, measured", ModeEndpointSlices, small, 0, small.events, round(small.events, model.RelistGzipRatioEndpointSlices)},
		{"slices, set", ModeEndpointSlices, large, 0.5, large.events, large.events / 2},
		{"slices, uncompressed", ModeEndpointSlices, large, 1, large.events, large.events},
		{"endpoints under 128 KiB", ModeEndpoints, small, 0, small.bytes, small.bytes},
		{"endpoints under 128 KiB, set", ModeEndpoints, small, 0.5, small.bytes, small.bytes},
		{"endpoints, measured", ModeEndpoints, large, 0, large.bytes, round(large.bytes, model.RelistGzipRatioEndpoints)},
		{"endpoints, set", ModeEndpoints, large, 0.5, large.bytes, large.bytes / 2},
	} {
		n := &network{e: &Engine{cfg: Config{Network: NetworkConfig{ListCompressionRatio: tt.ratio}}}}
		if raw, sent := n.relistSize(tt.m, tt.l); raw != tt.raw || sent != tt.sent {
			t.Errorf("%s: %d B serialized, %d sent; want %d, %d", tt.name, raw, sent, tt.raw, tt.sent)
		}
	}
}

// TestRelistAfterGoneWaitsABackoffStep: a kube-proxy back before finding its connection
// lost, whose missed events the watch cache no longer holds, is answered 410 Gone; its
// reflector lists again one backoff step later (0.8-1.6 s), not at once, and receives no
// event meanwhile. upstream: client-go tools/cache/reflector.go watch (an expired error
// returns nil), Run (wait.BackoffUntil with the 800 ms backoff manager, jitter 1.0).
func TestRelistAfterGoneWaitsABackoffStep(t *testing.T) {
	cfg := testConfig(5, 20)
	cfg.Network = NetworkConfig{Enabled: true, NodeIngressBitsPerSec: 1e9, ListCompressionRatio: 1}
	cfg.APIServer.EgressBitsPerSec = 10e9
	cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate}}
	e := ranEngine(t, cfg)
	e.phase = 0 // what follows counts in the create phase
	const node = 2
	e.nodeEpoch = make([]int, len(e.nodes))
	e.markWatch(node)
	e.proxiesAway(node)
	// Ten seconds away, and more events missed than the cache holds.
	e.now += Time(10 * time.Second)
	for mi := range e.api.events {
		e.api.events[mi] += int64(e.api.net.queues[mi].history.len()) + 1
	}
	relists := func(m Mode) int64 { return e.stats.mode(m).Relists }
	before := [2]int64{relists(ModeEndpoints), relists(ModeEndpointSlices)}
	back := e.now
	e.proxiesBack(node)
	for _, c := range e.ctls {
		mi := modeIndex(c.mode)
		if !e.proxyAway[mi][node] || relists(c.mode) != before[mi] {
			t.Errorf("%s: at the return, away %v with %d relists: want still away, no relist yet", c.mode, e.proxyAway[mi][node], relists(c.mode)-before[mi])
		}
	}
	for e.q.Len() > 0 {
		it := e.q.pop()
		e.now = it.at
		it.ev.apply(e)
		if _, ok := it.ev.(evProxyBack); !ok {
			continue
		}
		ev := it.ev.(evProxyBack)
		if d := e.now - back; d < Time(800*time.Millisecond) || d >= Time(1600*time.Millisecond) {
			t.Errorf("%s: listed again %v after the return, want 0.8-1.6 s", ev.mode, time.Duration(d))
		}
		if got := relists(ev.mode) - before[modeIndex(ev.mode)]; got != 1 || e.proxyAway[modeIndex(ev.mode)][node] {
			t.Errorf("%s: %d relists, away %v after the backoff step; want 1, watching", ev.mode, got, e.proxyAway[modeIndex(ev.mode)][node])
		}
	}
	for _, c := range e.ctls {
		if e.proxyAway[modeIndex(c.mode)][node] {
			t.Errorf("%s: never watching again", c.mode)
		}
	}
}
