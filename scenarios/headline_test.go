package scenarios

import (
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
