package model

import (
	"fmt"
	"maps"
	"math"
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

// hintsByService returns the cache's hints as upstream's endpointsByService holds them: per
// Service key, per address type, the hinted endpoints per zone.
func (t *TopologyCache) hintsByService() map[string]map[AddressType]map[string]int {
	out := map[string]map[AddressType]map[string]int{}
	for _, h := range t.sorted {
		byType := map[AddressType]map[string]int{}
		for _, th := range h.types {
			byType[th.at] = th.byZone
		}
		out[h.key] = byType
	}
	return out
}

// TestNodeChangedMatchesSetNodes changes random nodes one at a time (readiness, zone, CPU,
// control-plane role, added and removed) and checks that NodeChanged leaves the weights
// SetNodes computes from all the nodes, and that it keeps the allocations memo exactly when
// the weights stay the same.
func TestNodeChangedMatchesSetNodes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	newNode := func(i, zones int) *Node {
		n := &Node{
			Name:                fmt.Sprint("node-", i),
			Zone:                fmt.Sprint("zone-", r.IntN(zones)),
			Ready:               r.IntN(8) > 0,
			ControlPlane:        r.IntN(30) == 0,
			AllocatableMilliCPU: int64(1000 * (1 + r.IntN(4))),
		}
		switch r.IntN(200) {
		case 0:
			n.Zone = ""
		case 1:
			n.AllocatableMilliCPU = 0
		}
		return n
	}
	enabled, kept, dropped := 0, 0, 0
	for c := range 40 {
		zones := 1 + r.IntN(6)
		nodes := make([]*Node, 1+r.IntN(60))
		for i := range nodes {
			nodes[i] = newNode(i, zones)
		}
		inc, full := NewTopologyCache(), NewTopologyCache()
		inc.SetNodes(nodes)
		for step := range 300 {
			var old, now *Node
			switch i := r.IntN(len(nodes) + 1); {
			case i == len(nodes):
				now = newNode(len(nodes), zones)
				nodes = append(nodes, now)
			case r.IntN(10) == 0 && len(nodes) > 1:
				old = nodes[i]
				nodes = slices.Delete(nodes, i, i+1)
			default:
				old = nodes[i]
				next := *old
				switch r.IntN(4) {
				case 0:
					next.Zone = fmt.Sprint("zone-", r.IntN(zones))
				case 1:
					next.AllocatableMilliCPU = int64(1000 * r.IntN(4))
				case 2:
					next.ControlPlane = !next.ControlPlane
				}
				if r.IntN(2) == 0 {
					next.Ready = !next.Ready
				}
				now = &next
				nodes[i] = now
			}
			if inc.zones != nil {
				inc.getAllocations(len(nodes) + 10) // something in the memo
			}
			memo, before := inc.allocations, slices.Clone(inc.zones)
			inc.NodeChanged(old, now)
			full.SetNodes(nodes)
			if !slices.Equal(inc.zones, full.zones) {
				t.Fatalf("case %d step %d: NodeChanged(%+v, %+v) gives zones %v, SetNodes %v", c, step, old, now, inc.zones, full.zones)
			}
			if inc.zones != nil {
				enabled++
				if memo != nil {
					same := slices.Equal(before, inc.zones)
					if (inc.allocations != nil) != same {
						t.Fatalf("case %d step %d: weights %v → %v, the memo kept: %v", c, step, before, inc.zones, inc.allocations != nil)
					}
					if same {
						kept++
					} else {
						dropped++
					}
				}
			}
		}
	}
	if enabled < 2000 || kept < 100 || dropped < 100 {
		t.Errorf("%d steps with hints enabled, %d kept the memo and %d dropped it: the test no longer covers them", enabled, kept, dropped)
	}
}

// TestOverloadedServicesInKeyOrder records and forgets hints of random Services and checks
// OverloadedServices against upstream's computation over a map of the hints, sorted:
// serviceOverloaded for each address type, from the sum of its hints per zone.
func TestOverloadedServicesInKeyOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 1))
	cache := NewTopologyCache()
	cache.SetNodes([]*Node{
		{Name: "a", Zone: "zone-a", Ready: true, AllocatableMilliCPU: 4000},
		{Name: "b", Zone: "zone-b", Ready: true, AllocatableMilliCPU: 2000},
		{Name: "c", Zone: "zone-c", Ready: true, AllocatableMilliCPU: 2000},
	})
	want := map[string]map[AddressType]map[string]int{}
	populated := map[string]bool{}
	overloaded, total := 0, 0
	for step := range 3000 {
		svc := &Service{Namespace: fmt.Sprint("ns-", r.IntN(3)), Name: fmt.Sprint("svc-", r.IntN(40))}
		key := svc.Key()
		at := []AddressType{AddressTypeIPv4, AddressTypeIPv6}[r.IntN(2)]
		if r.IntN(3) == 0 {
			if r.IntN(2) == 0 {
				cache.RemoveHints(key, at)
			} else {
				cache.removeServiceHints(svc, at)
			}
			delete(want[key], at)
			if len(want[key]) == 0 {
				delete(want, key)
			}
			// Upstream's hintsPopulatedByService loses the Service at any removal.
			delete(populated, key)
		} else {
			// About the weights (2:1:1), off by one or two, sometimes without a zone or
			// with one the cluster has not.
			k := 1 + r.IntN(10)
			byZone := map[string]int{"zone-a": 2*k + r.IntN(3) - 1, "zone-b": k + r.IntN(3) - 1, "zone-c": k + r.IntN(3) - 1}
			switch r.IntN(8) {
			case 0:
				delete(byZone, "zone-c")
			case 1:
				byZone["zone-d"] = 1
			}
			for z, n := range byZone {
				if n == 0 {
					delete(byZone, z)
				}
			}
			cache.setServiceHints(svc, at, byZone)
			populated[key] = true
			if want[key] == nil {
				want[key] = map[AddressType]map[string]int{}
			}
			want[key][at] = byZone
		}
		var keys []string
		for _, key := range slices.Sorted(maps.Keys(want)) {
			for _, byZone := range want[key] {
				sum := 0.0
				for _, n := range byZone {
					sum += float64(n)
				}
				over := false
				for _, z := range cache.zones {
					n, ok := byZone[z.zone]
					over = over || !ok || n < int(math.Ceil(sum*z.ratio*(1/(1+overloadThreshold))))
				}
				if over {
					keys = append(keys, key)
					break
				}
			}
		}
		if got := cache.OverloadedServices(); !slices.Equal(got, keys) {
			t.Fatalf("step %d: OverloadedServices %v, want %v", step, got, keys)
		}
		if got := cache.hintsByService(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("step %d: hints %v, want %v", step, got, want)
		}
		for _, key := range []string{key, "ns-0/svc-0"} {
			if cache.HasPopulatedHints(key) != populated[key] {
				t.Fatalf("step %d: HasPopulatedHints(%q) = %v", step, key, cache.HasPopulatedHints(key))
			}
		}
		overloaded, total = overloaded+len(keys), total+len(want)
	}
	if overloaded < total/10 || overloaded > total*9/10 {
		t.Errorf("%d of %d hinted Services were overloaded: the test no longer covers both outcomes", overloaded, total)
	}
}

// TestSummarizeZonesCountsHints checks a slice's zone-hint summary against a count of its
// ready endpoints' hints zone by zone, on random slices whose endpoints share the hints of a
// few zones (as the controller's do), carry hints of their own (more than the summary keeps
// apart by object), several zones, none, or are not ready; the summary is reused from slice
// to slice, as a stored slice's is.
func TestSummarizeZonesCountsHints(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 4))
	zones := []string{"zone-a", "zone-b", "zone-c", "zone-d", "zone-e"}
	shared := map[string]*EndpointHints{}
	for _, z := range zones {
		shared[z] = &EndpointHints{ForZones: []string{z}}
	}
	var z zoneSummary
	overflowed := 0
	for c := range 500 {
		sl := &EndpointSlice{Endpoints: make([]Endpoint, r.IntN(120))}
		wantReady, wantLacking, want := 0, false, map[string]int{}
		distinct := map[*EndpointHints]bool{}
		for i := range sl.Endpoints {
			ep := &sl.Endpoints[i]
			ep.Conditions.Ready = ConditionTrue
			switch k := r.IntN(20); {
			case k == 0:
				ep.Conditions.Ready = ConditionFalse
				ep.Hints = shared[zones[r.IntN(len(zones))]]
			case k == 1:
				// no hints
			case k == 2:
				ep.Hints = &EndpointHints{}
			case k < 6 && c%2 == 0:
				ep.Hints = &EndpointHints{ForZones: []string{zones[r.IntN(len(zones))], zones[r.IntN(len(zones))]}}
			default:
				ep.Hints = shared[zones[r.IntN(len(zones))]]
			}
			if !endpointReady(ep) {
				continue
			}
			wantReady++
			if ep.Hints == nil || len(ep.Hints.ForZones) == 0 {
				wantLacking = true
				continue
			}
			distinct[ep.Hints] = true
			for _, zone := range ep.Hints.ForZones {
				want[zone]++
			}
		}
		if len(distinct) > 8 {
			overflowed++
		}
		summarizeZones(&z, sl)
		got := map[string]int{}
		for i, h := range z.hints {
			if i > 0 && z.hints[i-1].zone >= h.zone {
				t.Fatalf("case %d: zones out of order: %v", c, z.hints)
			}
			got[h.zone] = h.n
		}
		if z.ready != wantReady || z.lacking != wantLacking || !maps.Equal(got, want) {
			t.Fatalf("case %d: summary ready %d lacking %v hints %v; want %d %v %v", c, z.ready, z.lacking, got, wantReady, wantLacking, want)
		}
	}
	if overflowed < 100 {
		t.Errorf("%d cases had more hint objects than the summary keeps apart", overflowed)
	}
}

// TestSameZone: zone names compare equal exactly when they are, whether or not their last
// bytes (compared first) are.
func TestSameZone(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"us-east-1a", "us-east-1a", true},
		{"us-east-1a", "us-east-1b", false},
		{"us-east-1a", "us-west-1a", false}, // the same last byte
		{"zone-a", "zone-ab", false},
		{"a", "a", true},
	} {
		if got := sameZone(c.a, c.b); got != c.want {
			t.Errorf("sameZone(%q, %q) = %v", c.a, c.b, got)
		}
		if got := sameZone(c.b, c.a); got != c.want {
			t.Errorf("sameZone(%q, %q) = %v", c.b, c.a, got)
		}
	}
}

// TestMoveZonesIsTheDifference: moving a family's totals from one slice summary to another
// leaves what taking the first out and adding the second leaves, on random summaries with
// zones added, dropped and recounted, and lacking hints or not.
func TestMoveZonesIsTheDifference(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	zones := []string{"zone-a", "zone-b", "zone-c", "zone-d"}
	summary := func() *zoneSummary {
		z := &zoneSummary{ready: r.IntN(50), lacking: r.IntN(3) == 0}
		for _, zone := range zones {
			if r.IntN(3) > 0 {
				z.hints = append(z.hints, zoneCount{zone: zone, n: 1 + r.IntN(20)})
			}
		}
		return z
	}
	for c := range 500 {
		others, old, next := summary(), summary(), summary()
		moved, want := new(family), new(family)
		moved.addZones(others, 1)
		moved.addZones(old, 1)
		moved.moveZones(old, next)
		want.addZones(others, 1)
		want.addZones(next, 1)
		g, w := moved.hints, want.hints
		if g.zoneReady != w.zoneReady || g.zoneLacking != w.zoneLacking || !maps.Equal(g.zoneHints, w.zoneHints) {
			t.Fatalf("case %d: moved %d %d %v, want %d %d %v", c, g.zoneReady, g.zoneLacking, g.zoneHints, w.zoneReady, w.zoneLacking, w.zoneHints)
		}
	}
}
