package model

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSetNodesZoneWeights checks SetNodes' zone weights against upstream's computation (a
// map of CPU per zone, each zone's share of the total, sorted by zone), on random node sets
// of 1 to 40 zones, with unready and control-plane nodes that do not count and, sometimes, a
// node without a zone or CPU that disables hints. The cache is reused from case to case, as
// a controller's is. (The reconciler's differential tests cover SetNodes only on the few
// clusters they build.)
func TestSetNodesZoneWeights(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	want := func(nodes []*Node) []zoneRatio {
		cpu := map[string]int64{}
		var total int64
		for _, n := range nodes {
			if n.ControlPlane || !n.Ready {
				continue
			}
			if n.Zone == "" || n.AllocatableMilliCPU == 0 {
				return nil
			}
			total += n.AllocatableMilliCPU
			cpu[n.Zone] += n.AllocatableMilliCPU
		}
		if total == 0 || len(cpu) < 2 {
			return nil
		}
		var out []zoneRatio
		for _, z := range slices.Sorted(maps.Keys(cpu)) {
			out = append(out, zoneRatio{z, float64(cpu[z]) / float64(total)})
		}
		return out
	}
	cache := NewTopologyCache()
	enabled := 0
	for c := range 400 {
		zones := 1 + r.IntN(40)
		nodes := make([]*Node, r.IntN(300))
		for i := range nodes {
			nodes[i] = &Node{
				Name:                fmt.Sprint("node-", i),
				Zone:                fmt.Sprint("zone-", r.IntN(zones)),
				Ready:               r.IntN(10) > 0,
				ControlPlane:        r.IntN(20) == 0,
				AllocatableMilliCPU: int64(1 + r.IntN(64000)),
			}
			if c%10 == 0 && r.IntN(100) == 0 {
				nodes[i].Zone = ""
			}
		}
		cache.SetNodes(nodes)
		w := want(nodes)
		if !slices.Equal(cache.zones, w) {
			t.Fatalf("case %d: zones %v, want %v", c, cache.zones, w)
		}
		if w != nil {
			enabled++
		}
	}
	if enabled < 100 || 400-enabled < 20 {
		t.Errorf("%d of 400 cases had hints enabled: the test no longer covers both outcomes", enabled)
	}
}
