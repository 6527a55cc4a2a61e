package model

import (
	"fmt"
	"strings"
	"testing"
)

// planString renders a sync result completely (names, metadata, every endpoint field), so
// that the incremental reconciler can be held to exactly the full twin's output.
func planString(res SyncResult) string {
	var b strings.Builder
	for _, p := range res.Plans {
		fmt.Fprintf(&b, "plan %s added=%d removed=%d skipped=%d\n", p.AddressType, p.Added, p.Removed, p.SkippedCreates)
		for _, l := range []struct {
			verb   string
			slices []*EndpointSlice
		}{{"create", p.ToCreate}, {"update", p.ToUpdate}, {"delete", p.ToDelete}} {
			for _, s := range l.slices {
				fmt.Fprintf(&b, " %s name=%q gen=%q ns=%s at=%s labels=%s ann=%s owners=%d ports=%q\n", l.verb, s.Name, s.GenerateName,
					s.Namespace, s.AddressType, mapString(s.Labels), mapString(s.Annotations), len(s.OwnerReferences), NewPortMapKey(s.Ports))
				if l.verb == "delete" {
					continue
				}
				for i := range s.Endpoints {
					fmt.Fprintf(&b, "   %s\n", endpointString(&s.Endpoints[i], true))
				}
			}
		}
	}
	if res.Err != nil {
		b.WriteString("err\n")
	}
	return b.String()
}

func TestIncrementalMatchesFull(t *testing.T) {
	seqs, steps := 300, 30
	if !testing.Short() {
		seqs, steps = 600, 60
	}
	for seed := uint64(1); seed <= uint64(seqs); seed++ {
		twinOneSequence(t, seed, steps)
		if t.Failed() {
			return
		}
	}
	if twinSpareReuses == 0 {
		t.Error("no sync had a spare endpoint array: the recycling path went untested")
	}
	if twinCachedSizes == 0 {
		t.Error("no stored endpoint had a cached size: the size cache went untested")
	}
}

func twinOneSequence(t *testing.T, seed uint64, steps int) {
	t.Helper()
	topo := seed%5 == 0
	w := newWorld(seed, topo)
	var fullTopo, incTopo *TopologyCache
	if topo {
		fullTopo, incTopo = NewTopologyCache(), NewTopologyCache()
	}
	inc := NewServiceSlices(w.svc, w.nodeGetter(), ReconcilerOptions{MaxEndpointsPerSlice: w.max, Topology: incTopo})
	nodes := w.nodeGetter()
	inc.nodes = dynamicNodes{w}
	nameSeq := 0
	log := append([]string(nil), w.ops...)
	for sync := 0; sync < steps; sync++ {
		nChanges := w.rng.IntN(4)
		for i := 0; i < nChanges; i++ {
			before := map[string]*Pod{}
			for k, v := range w.pods {
				before[k] = v
			}
			beforeNodes := map[string]Node{}
			for k, v := range w.nodes {
				beforeNodes[k] = *v
				if !w.present[k] {
					beforeNodes[k] = Node{}
				}
			}
			svc := w.svc
			log = append(log, w.step())
			if w.svc != svc {
				inc.SetService(w.svc)
			}
			for name, p := range w.pods {
				if before[name] != p {
					inc.SetPod(p)
				}
			}
			for name := range before {
				if w.pods[name] == nil {
					inc.DeletePod("ns", name)
				}
			}
			for k, v := range w.nodes {
				now := *v
				if !w.present[k] {
					now = Node{}
				}
				if now != beforeNodes[k] {
					inc.NodeChanged(k)
				}
			}
		}
		_ = nodes
		if topo {
			fullTopo.SetNodes(w.presentNodes())
			incTopo.SetNodes(w.presentNodes())
		}
		if mangled, what := w.mangle(inc.Stored()); what != "" {
			log = append(log, what)
			inc.SetStoredSlices(mangled)
		}
		trigger := Timestamp(0)
		if w.rng.IntN(4) != 0 {
			trigger = Timestamp(1_700_000_000_000_000_000 + int64(sync)*1_000_000)
		}
		want := ReconcileFull(w.svc, w.podList(), inc.Stored(), w.nodeGetter(), ReconcilerOptions{MaxEndpointsPerSlice: w.max, Topology: fullTopo}, trigger)
		got := inc.Sync(trigger)
		log = append(log, fmt.Sprintf("SYNC %d: %v", sync, planCounts(want)))
		if ps, ws := planString(got), planString(want); ps != ws {
			t.Errorf("seed %d sync %d: incremental plan differs from full:\nfull:\n%s\nincremental:\n%s\nshortest failing prefix:\n  %s", seed, sync, ws, ps, strings.Join(log, "\n  "))
			return
		}
		// Apply, failing a write now and then (the rest of that plan is then skipped).
		for _, p := range got.Plans {
			failAt := -1
			if w.rng.IntN(8) == 0 && p.Writes() > 0 {
				failAt = w.rng.IntN(p.Writes())
			}
			n := 0
			ok := func() bool {
				n++
				if n-1 == failAt {
					log = append(log, fmt.Sprintf("write %d of %s plan failed", failAt, p.AddressType))
					return p.AddressType == ""
				}
				return true
			}
			applied := true
			for _, c := range p.ToCreate {
				if applied = ok(); !applied {
					break
				}
				nameSeq++
				cc := *c
				cc.Name = fmt.Sprintf("%s%05d", c.GenerateName, nameSeq)
				inc.Applied("create", &cc)
			}
			for _, u := range p.ToUpdate {
				if !applied {
					break
				}
				if applied = ok(); !applied {
					break
				}
				inc.Applied("update", u)
			}
			for _, d := range p.ToDelete {
				if !applied {
					break
				}
				if applied = ok(); !applied {
					break
				}
				inc.Applied("delete", d)
			}
		}
		checkEndpointArrays(t, inc, seed, sync)
	}
}

// twinSpareReuses counts the syncs of TestIncrementalMatchesFull that started with spare
// endpoint arrays to reuse.
var twinSpareReuses int

// twinCachedSizes counts stored endpoints whose protobuf size was cached.
var twinCachedSizes int

// checkEndpointArrays requires that no two stored slices share an endpoint array and that no
// spare array is still stored (a recycled array must have no other user), and that every
// stored endpoint's cached size is its size.
func checkEndpointArrays(t *testing.T, s *ServiceSlices, seed uint64, sync int) {
	t.Helper()
	users := map[*Endpoint]string{}
	for name, ss := range s.stored {
		if cap(ss.s.Endpoints) == 0 {
			continue
		}
		id := &ss.s.Endpoints[:1][0]
		if other, ok := users[id]; ok {
			t.Fatalf("seed %d sync %d: slices %s and %s share an endpoint array", seed, sync, name, other)
		}
		users[id] = name
	}
	for _, sp := range s.spare {
		if name, ok := users[&sp[:1][0]]; ok {
			t.Fatalf("seed %d sync %d: spare array still stored by %s", seed, sync, name)
		}
	}
	// The size cached when an endpoint was built still holds after the hint passes.
	for name, ss := range s.stored {
		for i := range ss.s.Endpoints {
			ep := &ss.s.Endpoints[i]
			fresh := *ep
			fresh.pbBase = 0
			if got, want := EndpointSize(ep, Protobuf), EndpointSize(&fresh, Protobuf); got != want {
				t.Fatalf("seed %d sync %d: slice %s endpoint %d: cached size %d, fresh %d", seed, sync, name, i, got, want)
			}
			if ep.pbBase > 0 {
				twinCachedSizes++
			}
		}
	}
	if len(s.spare) > 0 {
		twinSpareReuses++
	}
}

// dynamicNodes reads the world's current nodes (a live node lister).
type dynamicNodes struct{ w *world }

func (d dynamicNodes) Node(name string) (*Node, bool) {
	n, ok := d.w.nodes[name]
	if !ok || !d.w.present[name] {
		return nil, false
	}
	return n, true
}
