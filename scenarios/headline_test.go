package scenarios

import (
	"math"
	"testing"

	"epsim/model"
	"epsim/sim"
)

// TestShipped5000NodesHeadline runs the shipped 5000-nodes scenario and checks its
// one-endpoint-not-ready phase against the size model: one write per mode, each fanned out
// as one watch event to each of the 5,000 kube-proxies, Endpoints in the published 5–6 GB
// range and about 80× EndpointSlices. Reference: issue 4 "The headline comes out of the
// shipped scenario"; KEP-752 "single endpoint update"; the 2020 EndpointSlices blog.
func TestShipped5000NodesHeadline(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the 5000-nodes scenario")
	}
	_, cfg, err := Load("5000-nodes", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	const phase = "one-endpoint-not-ready"
	var p *sim.PhaseResult
	for i := range res.Phases {
		if res.Phases[i].Name == phase {
			p = &res.Phases[i]
		}
	}
	if p == nil {
		t.Fatalf("no phase %q", phase)
	}
	for _, m := range []sim.Mode{sim.ModeEndpoints, sim.ModeEndpointSlices} {
		r := p.Mode(m)
		if r.Writes.Total() != 1 || r.Writes.Update != 1 {
			t.Fatalf("%s: writes %+v, want exactly one update", m, r.Writes)
		}
		var w *sim.WriteRecord
		for i := range res.Writes {
			if res.Writes[i].Phase == phase && res.Writes[i].Mode == m {
				w = &res.Writes[i]
			}
		}
		want := model.WatchEventSize(w.ObjectBytes, model.EventModified, model.Protobuf) * int64(res.Nodes)
		if r.FanoutBytes != want || r.WatchEvents != int64(res.Nodes) {
			t.Errorf("%s: fan-out %d B in %d events, want %d B (event of a %d B object × %d nodes)",
				m, r.FanoutBytes, r.WatchEvents, want, w.ObjectBytes, res.Nodes)
		}
	}
	// The consumer side, from first principles: every kube-proxy decodes the one event and
	// runs one partial iptables sync of the one Service (3 rules for its port, 4 per each of
	// its 9,999 ready endpoints, and the KUBE-SERVICES rule), starting as the event is
	// decoded or, if kube-proxy is still busy with the previous phase's last changes, after
	// that sync and minSyncPeriod. So programming latency is propagation + decode + sync,
	// plus at most minSyncPeriod and the previous phase's longest sync.
	kp := cfg.KubeProxy
	c := kp.Costs
	all := c.RulesPerServicePort + c.RulesPerEndpoint*9_999
	sync := c.SyncBase.Seconds() + (c.GenerateNanosPerRule*all+c.WriteNanosPerRule*(all+1))/1e9
	for _, m := range []sim.Mode{sim.ModeEndpoints, sim.ModeEndpointSlices} {
		r := p.Mode(m)
		var eventBytes int64
		for i := range res.Writes {
			if res.Writes[i].Phase == phase && res.Writes[i].Mode == m {
				eventBytes = res.Writes[i].EventBytes
			}
		}
		decode := float64(eventBytes) * c.DecodeProtobufNanosPerByte / 1e9
		if r.KubeProxySyncs != 1 || r.KubeProxyFullSyncs != 0 || math.Abs(r.PeakSyncSeconds-sync) > 1e-6 {
			t.Errorf("%s: %d syncs (%d full), longest %.6fs; want one partial sync of %.6fs", m, r.KubeProxySyncs, r.KubeProxyFullSyncs, r.PeakSyncSeconds, sync)
		}
		if math.Abs(r.KubeProxyCPUSeconds-(sync+decode)) > 1e-6 {
			t.Errorf("%s: kube-proxy CPU %.6fs, want sync %.6fs + decode %.6fs", m, r.KubeProxyCPUSeconds, sync, decode)
		}
		least := r.Propagation.MaxSeconds + decode + sync
		most := least + kp.MinSyncPeriod.Seconds() + res.Phases[0].Mode(m).PeakSyncSeconds
		if got := r.Programming.MaxSeconds; r.Programming.Count != 1 || got < least-1e-6 || got > most+1e-6 {
			t.Errorf("%s: programming %d samples, max %.6fs; want 1, between propagation + decode + sync = %.6fs and %.6fs", m, r.Programming.Count, got, least, most)
		}
	}
	t.Logf("programming: Endpoints %.3fs, EndpointSlices %.3fs", p.Endpoints.Programming.MaxSeconds, p.EndpointSlices.Programming.MaxSeconds)
	ep, es := p.Endpoints.FanoutBytes, p.EndpointSlices.FanoutBytes
	ratio := float64(ep) / float64(es)
	t.Logf("Endpoints %.2f GB, EndpointSlices %.1f MB, %.0f×", float64(ep)/1e9, float64(es)/1e6, ratio)
	if ep < 5e9 || ep > 7e9 {
		t.Errorf("Endpoints fan out %.2f GB; the published figures for this case are 5–6 GB", float64(ep)/1e9)
	}
	if ratio < 60 || ratio > 110 {
		t.Errorf("ratio %.0f×, want about 80× (a 10,000-address object against a 100-endpoint slice)", ratio)
	}
}
