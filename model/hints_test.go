package model

import (
	"slices"
	"testing"
)

// TestCloseHintsUpdate checks the hints trafficDistribution sets on a slice's ready
// endpoints (upstream: trafficdist preferCloseHeuristic.update), and that an endpoint
// keeps a shared hint only when it holds exactly what the update would set: a stored copy
// mostly carries its hint already, and update checks it rather than look it up.
func TestCloseHintsUpdate(t *testing.T) {
	zoneA, zoneB, node1, node2 := "zone-a", "zone-b", "node-1", "node-2"
	shared := func(zones, nodes []string) *EndpointHints {
		return sharedHints(&EndpointHints{ForZones: zones, ForNodes: nodes})
	}
	unshared := &EndpointHints{ForZones: []string{zoneA}}
	cases := []struct {
		name       string
		sameNode   bool
		kept       bool // the update's hints are known right (ServiceSlices.hintsKept)
		zone, node *string
		ready      bool
		had        *EndpointHints
		wantZones  []string
		wantNodes  []string
		keeps      bool // the endpoint keeps the hint object it had
	}{
		{name: "zone hint set", zone: &zoneA, node: &node1, ready: true, wantZones: []string{zoneA}},
		{name: "right shared zone hint kept", zone: &zoneA, ready: true, had: shared([]string{zoneA}, nil), wantZones: []string{zoneA}, keeps: true},
		{name: "another zone's hint replaced", zone: &zoneA, ready: true, had: shared([]string{zoneB}, nil), wantZones: []string{zoneA}},
		{name: "unshared hint replaced by the shared one", zone: &zoneA, ready: true, had: unshared, wantZones: []string{zoneA}},
		{name: "node hint too many for PreferClose", zone: &zoneA, node: &node1, ready: true, had: shared([]string{zoneA}, []string{node1}), wantZones: []string{zoneA}},
		{name: "two zones replaced", zone: &zoneA, ready: true, had: shared([]string{zoneA, zoneB}, nil), wantZones: []string{zoneA}},
		{name: "same node: zone and node set", sameNode: true, zone: &zoneA, node: &node1, ready: true, wantZones: []string{zoneA}, wantNodes: []string{node1}},
		{name: "same node: right hint kept", sameNode: true, zone: &zoneA, node: &node1, ready: true, had: shared([]string{zoneA}, []string{node1}), wantZones: []string{zoneA}, wantNodes: []string{node1}, keeps: true},
		{name: "same node: another node's hint replaced", sameNode: true, zone: &zoneA, node: &node1, ready: true, had: shared([]string{zoneA}, []string{node2}), wantZones: []string{zoneA}, wantNodes: []string{node1}},
		{name: "same node: zone hint alone replaced", sameNode: true, zone: &zoneA, node: &node1, ready: true, had: shared([]string{zoneA}, nil), wantZones: []string{zoneA}, wantNodes: []string{node1}},
		{name: "same node, no zone: node hint", sameNode: true, node: &node2, ready: true, had: shared([]string{zoneA}, []string{node2}), wantNodes: []string{node2}},
		{name: "no zone, no node: hint cleared", ready: true, had: shared([]string{zoneA}, nil)},
		{name: "not ready: left alone", zone: &zoneA, had: shared([]string{zoneB}, nil), wantZones: []string{zoneB}, keeps: true},
		{name: "known right: a hint kept unchecked", kept: true, zone: &zoneA, ready: true, had: unshared, wantZones: []string{zoneA}, keeps: true},
		{name: "known right: a missing hint set", kept: true, zone: &zoneA, ready: true, wantZones: []string{zoneA}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ep := Endpoint{Addresses: []string{"10.0.0.1"}, Zone: c.zone, NodeName: c.node, Hints: c.had}
			if c.ready {
				ep.Conditions.Ready = ConditionTrue
			}
			s := &EndpointSlice{Endpoints: []Endpoint{ep}}
			var hints closeHints
			hints.update(s, c.sameNode, c.kept)
			got := s.Endpoints[0].Hints
			var zones, nodes []string
			if got != nil {
				zones, nodes = got.ForZones, got.ForNodes
			}
			if !slices.Equal(zones, c.wantZones) || !slices.Equal(nodes, c.wantNodes) {
				t.Fatalf("hints %v/%v, want %v/%v", zones, nodes, c.wantZones, c.wantNodes)
			}
			if kept := got == c.had && got != nil; kept != c.keeps {
				t.Errorf("kept the hint it had: %v, want %v", kept, c.keeps)
			}
			if got != nil && got != unshared && got.pbSize != int32(pbHintsField(got)) {
				t.Errorf("hint's cached size %d, its size %d", got.pbSize, pbHintsField(got))
			}
		})
	}
}
