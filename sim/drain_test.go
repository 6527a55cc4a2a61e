package sim

import (
	"slices"
	"testing"
	"time"
)

// TestDrainOneNodeAtATime checks a drain of several nodes against kubectl drain: every node is
// cordoned first (no replacement lands on a node still to be drained), then the nodes are
// drained one after another: a node's pods are all evicted at once, and the next node's
// eviction starts at the first of kubectl's checks (right after the evictions, then every
// second) that finds every pod of the node before gone.
// upstream (kubectl): pkg/cmd/drain/drain.go RunDrain; pkg/drain/drain.go evictPods,
// waitForDelete.
func TestDrainOneNodeAtATime(t *testing.T) {
	cfg := testConfig(8, 40)
	cfg.RunEndpoints = false
	cfg.Network = NetworkConfig{}
	cfg.Services[0].Timing.Stop = Distribution{Kind: DistUniform, Min: time.Second, Max: 4 * time.Second}
	cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate}, {Name: "drain", Kind: ActionDrainNodes, Nodes: 5}}
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	type drained struct {
		node          int32
		evicted, gone Time
	}
	seen := map[*podState]*drained{}
	var order []*podState
	var drainStart Time = -1
	var placedLater []int32 // nodes of pods scheduled after the drain started
	runEngine(t, e, func() {
		for _, p := range e.services[0].pods {
			if seen[p] == nil && e.phase == 1 && p.pod.Terminating {
				if drainStart < 0 {
					drainStart = e.now
				}
				seen[p] = &drained{node: p.node, evicted: e.now, gone: -1}
				order = append(order, p)
			}
		}
		for _, p := range order { // (the Service's list drops gone pods)
			if d := seen[p]; d.gone < 0 && p.stage == stageGone {
				d.gone = e.now
			}
		}
		if e.phase == 1 && drainStart >= 0 {
			for _, p := range e.services[0].pods {
				if p.node >= 0 && seen[p] == nil && p.pod.CreationTimestamp > timestamp(drainStart) && !slices.Contains(placedLater, p.node) {
					placedLater = append(placedLater, p.node)
				}
			}
		}
	})
	// Group the evicted pods by node, in eviction order.
	var nodes []int32
	start := map[int32]Time{}
	lastGone := map[int32]Time{}
	for _, p := range order {
		d := seen[p]
		if _, ok := start[d.node]; !ok {
			nodes = append(nodes, d.node)
			start[d.node] = d.evicted
		}
		if d.evicted != start[d.node] {
			t.Errorf("node %d: a pod evicted at %v, the others at %v: want all at once", d.node, d.evicted, start[d.node])
		}
		if d.gone < 0 {
			t.Fatalf("pod %s never gone", p.pod.Name)
		}
		lastGone[d.node] = max(lastGone[d.node], d.gone)
	}
	if len(nodes) != 5 {
		t.Fatalf("pods evicted from %d nodes, want 5", len(nodes))
	}
	for i := 1; i < len(nodes); i++ {
		prev := nodes[i-1]
		wait := lastGone[prev] - start[prev]
		want := start[prev] + (wait+Time(time.Second)-1)/Time(time.Second)*Time(time.Second)
		if got := start[nodes[i]]; got != want {
			t.Errorf("node %d drained from %v, want %v (node %d's pods all gone at %v)", nodes[i], got, want, prev, lastGone[prev])
		}
	}
	for _, n := range placedLater {
		if slices.Contains(nodes, n) {
			t.Errorf("a replacement pod was scheduled on node %d, which the drain had cordoned", n)
		}
	}
}
