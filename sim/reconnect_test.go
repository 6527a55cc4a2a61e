package sim

import (
	"fmt"
	"testing"
	"time"
)

// TestRewatch: the kube-proxies of nodes that come back watch again. Down for a minute
// (their pods found not ready meanwhile), they resume from their resourceVersion: the watch
// cache still holds the events they missed and sends them, the kube-proxy events of the
// writes made while they were down, and nothing else. Down for 10 minutes, through their
// pods' eviction, they missed more events than the cache holds: each lists everything it
// watches. Without the network model (which keeps the cache's history) a watch down longer
// than the history's least (75 s) relists, as an upgraded node's kube-proxy, which starts
// again, always does.
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
			cfg.Timeline = append(cfg.Timeline, Action{Name: "blip", Kind: ActionFailNodes, Nodes: 2, Duration: time.Minute})
			res := run(t, cfg)
			blip := res.Phases[1]
			for _, m := range []Mode{ModeEndpoints, ModeEndpointSlices} {
				var missed int64
				for _, w := range res.Writes {
					if w.Mode == m && w.Phase == "blip" && w.Outcome == "ok" && w.At-blip.Start <= Time(time.Minute) {
						missed += w.EventBytes
					}
				}
				r := blip.Mode(m)
				if missed == 0 || r.ResentBytes != 2*missed || r.Relists != 0 {
					t.Errorf("%s: resent %d B, %d relists; want the %d B of events each of the 2 nodes missed, no relist", m, r.ResentBytes, r.Relists, missed)
				}
			}
		})
	}
	for _, tc := range []struct {
		name    string
		network bool
		down    time.Duration
	}{
		{"relist/cache overflowed", true, 10 * time.Minute},
		{"relist/network=false", false, 2 * time.Minute},
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
