package sim

import (
	"testing"
	"time"
)

// TestChangedSumsMatchWalk runs clusters whose rollouts and readiness flips update slices in
// place, and checks that every update whose endpoint sums commit read from the reconciler's
// changes (ChangedEndpoints) has the sums a walk of the whole slice gives: sizes in both
// encodings (kube-proxy reading JSON), ready and fallback counts.
func TestChangedSumsMatchWalk(t *testing.T) {
	slow := testConfig(30, 250) // writes in flight while pods change
	slow.ControlPlane.EndpointSlice.APILatency = Fixed(300 * time.Millisecond)
	asJSON := testConfig(40, 180)
	asJSON.APIServer.KubeProxyEncoding = EncodingJSON
	checked, differ := 0, 0
	sumsCheck = func(changed, walked endpointSums) {
		checked++
		if changed != walked {
			differ++
			if differ <= 3 {
				t.Errorf("sums of an update from its changes %+v, walked %+v", changed, walked)
			}
		}
	}
	defer func() { sumsCheck = nil }()
	specs, specsDiffer, same := 0, 0, 0
	specCheck = func(byChanges, whole bool) {
		specs++
		if byChanges {
			same++
		}
		if byChanges != whole {
			specsDiffer++
		}
	}
	defer func() { specCheck = nil }()
	// Topology hints (mode A) rewrite the hints of a written slice's copies too, and zones
	// whose names differ in length make a moved hint change an endpoint's size.
	hinted := withMax(testConfig(30, 250), 40)
	hinted.Cluster.Zones = []string{"zone-a", "zone-bb", "zone-ccc"}
	hinted.Services[0].TopologyMode = "Auto"
	// trafficDistribution's pass keeps the hints of a slice's ready copies when they are
	// what it sets: such an update is summed from its changes.
	preferClose, sameNode := withMax(testConfig(30, 250), 40), withMax(testConfig(30, 250), 40)
	preferClose.Cluster.Zones = hinted.Cluster.Zones
	preferClose.Services[0].TrafficDistribution = "PreferClose"
	sameNode.Services[0].TrafficDistribution = "PreferSameNode"
	for _, cfg := range []Config{testConfig(30, 250), withMax(testConfig(20, 57), 7), slow, asJSON, hinted, preferClose, sameNode} {
		before := checked
		if _, err := Run(cfg, nil); err != nil {
			t.Fatal(err)
		}
		if cfg.Services[0].TopologyMode != "" {
			// The hints pass may have changed any endpoint's hints: none is summed from
			// the changes alone.
			if checked != before {
				t.Errorf("topology hints: %d updates summed from their changes", checked-before)
			}
			continue
		}
		if checked == before {
			t.Errorf("%d nodes, %d pods, at most %d a slice: no update was summed from its changes", cfg.Cluster.Nodes, cfg.Services[0].Replicas, cfg.ControlPlane.MaxEndpointsPerSlice)
		}
	}
	if differ > 0 {
		t.Errorf("%d of %d updates summed from their changes differ from the walk", differ, checked)
	}
	// The same updates' spec comparison (generation, no-op) from the changes alone.
	if specsDiffer > 0 || specs < checked {
		t.Errorf("%d of %d updates compared from their changes differ from the whole comparison (%d summed)", specsDiffer, specs, checked)
	}
	t.Logf("%d updates summed from their changes, %d of them with the spec unchanged", specs, same)
}
