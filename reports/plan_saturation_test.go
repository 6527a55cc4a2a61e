package reports_test

import (
	"strings"
	"testing"

	"epsim/reports"
	"epsim/scenarios"
	"epsim/sim"
)

// Issue 12: egressSaturated never fired, even at 99.8 % of capacity with 2,000 slow watchers
// closed, because its test fed a hand-made peak equal to the bandwidth. This test runs the
// network model and feeds the limit its real output.
func TestEgressSaturatedFiresFromTheNetworkModel(t *testing.T) {
	sc, res := runSaturatedQuick(t)
	p := reports.NewPlanPoint(0, nil, sc.Config, res, nil, 10)
	ms := p.Summary.Total.Endpoints
	share := float64(ms.PeakEgressBytesPerSec) / float64(p.EgressCapacityBytesPerSec)
	if share >= 1 || share < reports.EgressSaturatedShare {
		t.Fatalf("the network model's peak is %.4f of capacity; this test wants a saturated run just under 1", share)
	}
	r := &reports.PlanResults{Points: []reports.PlanPoint{p}}
	var kinds []string
	for _, l := range r.Limits(&r.Points[0], sim.ModeEndpoints) {
		kinds = append(kinds, l.Kind)
	}
	if !strings.Contains(strings.Join(kinds, ","), "egressSaturated") {
		t.Errorf("peak %.1f%% of capacity: limits %v, want egressSaturated", 100*share, kinds)
	}
}

// runSaturatedQuick runs the quick scenario with the network model on and a 20 Mbit/s API
// server, so that watchers fall behind, are closed and are sent to again.
func runSaturatedQuick(t *testing.T) (*scenarios.Scenario, *sim.Results) {
	t.Helper()
	sc, _, err := scenarios.Load("quick", []string{"apiServer.egressBandwidth=20Mbps", "network.enabled=true"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(sc.Config, nil)
	if err != nil {
		t.Fatal(err)
	}
	return sc, res
}
