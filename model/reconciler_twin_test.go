package model

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
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
					s.Namespace, s.AddressType, mapString(s.Labels.Map()), mapString(s.Annotations.Map()), len(s.OwnerReferences), NewPortMapKey(s.Ports))
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
	if twinRestored == 0 {
		t.Error("no settled reconciler was made again: Settled and PodOf went untested")
	}
	if twinEditsNoted == 0 {
		t.Error("no update was noted with its edits: updateStoredByEdits went untested")
	}
	if twinAppendsNoted == 0 {
		t.Error("no update was noted as appending only: the fill of a best-fitting slice went untested")
	}
	t.Logf("%d settled reconcilers made again", twinRestored)
}

func twinOneSequence(t *testing.T, seed uint64, steps int) {
	t.Helper()
	topo := seed%5 == 0
	twinRun(t, seed, newWorld(seed, topo), steps, (*world).step, nil)
}

// twinStats counts what the syncs of hinted sequences did, so that the test can require
// that every case it is meant to cover was reached.
type twinStats struct {
	hinted, populated, fallback, writtenHinted, walks int
}

// twinRun drives one random sequence through the incremental reconciler and ReconcileFull
// side by side: each sync's plan and the topology caches' hint records must be identical.
func twinRun(t *testing.T, seed uint64, w *world, steps int, step func(*world) string, stats *twinStats) {
	t.Helper()
	topo := w.topo
	var fullTopo, incTopo *TopologyCache
	if topo {
		fullTopo, incTopo = NewTopologyCache(), NewTopologyCache()
	}
	// Seeds that are multiples of 3 share inc's buffers with another reconciler that syncs
	// between inc's calls, as the Services of one controller do.
	var shared *SyncBuffers
	if seed%3 == 0 {
		shared = new(SyncBuffers)
	}
	inc := NewServiceSlices(w.svc, w.nodeGetter(), ReconcilerOptions{MaxEndpointsPerSlice: w.max, Topology: incTopo, Buffers: shared})
	nodes := w.nodeGetter()
	inc.nodes = dynamicNodes{w}
	// Even seeds pass pods with PodRefs: seeds 0, 4, 8, … as the simulator does (the
	// reconciler never looks a pod up by name), seeds 2, 6, 10, … some of them wrong on
	// purpose (another pod's, another reconciler's, one of a deleted pod): a ref is only a
	// shortcut, so the plans must not change.
	useRefs, mischief := seed%2 == 0, seed%4 == 2
	refRng := rand.New(rand.NewPCG(seed, 99))
	refs := map[string]*PodRef{}
	foreign := NewServiceSlices(w.svc, w.nodeGetter(), ReconcilerOptions{MaxEndpointsPerSlice: w.max, Buffers: shared})
	foreignSeq := 0
	interleave := func() {
		if shared == nil || refRng.IntN(2) != 0 {
			return
		}
		// foreign has the same pods and applies its plans at once, so that arrays of its
		// replaced slices go to the spares the two share, for inc's next Sync to take.
		for _, p := range foreign.Sync(0).Plans {
			for _, c := range p.ToCreate {
				foreignSeq++
				cc := *c
				cc.Name = fmt.Sprintf("foreign-%s%05d", c.GenerateName, foreignSeq)
				foreign.Applied("create", &cc)
			}
			for _, u := range p.ToUpdate {
				foreign.Applied("update", u)
			}
			for _, d := range p.ToDelete {
				foreign.Applied("delete", d)
			}
		}
	}
	refFor := func(name string) *PodRef {
		if !mischief {
			if refs[name] == nil {
				refs[name] = new(PodRef)
			}
			return refs[name]
		}
		return mischievousRef(refRng, refs, name, func(r *PodRef) {
			if p := w.pods[name]; p != nil {
				foreign.SetPodRef(r, p)
			}
		})
	}
	setPod := func(p *Pod) {
		if useRefs {
			inc.SetPodRef(refFor(p.Name), p)
		} else {
			inc.SetPod(p)
		}
		if shared != nil {
			foreign.SetPod(p)
		}
	}
	deletePod := func(name string) {
		if useRefs {
			inc.DeletePodRef(refFor(name), "ns", name)
		} else {
			inc.DeletePod("ns", name)
		}
		if shared != nil {
			foreign.DeletePod("ns", name)
		}
	}
	for _, p := range w.podList() {
		setPod(p)
	}
	// restore, half the time, drops a settled reconciler and makes another from its
	// Service, stored slices and pods (in its order), as the simulator does with small
	// Services' reconcilers: the plans that follow must still be the full reconciler's.
	restores := rand.New(rand.NewPCG(seed, 13))
	restore := func() {
		if !inc.Settled() || restores.IntN(2) != 0 {
			return
		}
		next := NewServiceSlices(inc.Service(), w.nodeGetter(), ReconcilerOptions{MaxEndpointsPerSlice: w.max, Topology: incTopo, Buffers: shared})
		next.nodes = dynamicNodes{w}
		next.SetStoredSlices(inc.Stored())
		refs = map[string]*PodRef{}
		for _, pe := range inc.pods {
			if pod, at := inc.PodOf(&PodRef{pe: pe}); pod != pe.pod || at != int(pe.at) {
				t.Fatalf("seed %d: PodOf gives %v at %d for the pod at %d", seed, pod, at, pe.at)
			}
			refs[pe.pod.Name] = new(PodRef)
			next.SetPodRef(refs[pe.pod.Name], pe.pod)
		}
		if !slices.Equal(next.Stored(), inc.Stored()) {
			t.Fatalf("seed %d: the reconciler made again stores other slices than the one it replaces", seed)
		}
		inc = next
		twinRestored++
	}
	nameSeq := 0
	log := append([]string(nil), w.ops...)
	inFlight := rand.New(rand.NewPCG(seed, 17))
	// change makes one random change of the world (pods, nodes or the Service) and gives it
	// to the reconciler.
	change := func() {
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
		log = append(log, step(w))
		if w.svc != svc {
			inc.SetService(w.svc)
		}
		for name, p := range w.pods {
			if before[name] != p {
				setPod(p)
			}
		}
		for name := range before {
			if w.pods[name] == nil {
				deletePod(name)
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
	for sync := 0; sync < steps; sync++ {
		if msg := storedIndexProblem(inc); msg != "" {
			t.Errorf("seed %d sync %d, after the last plan's writes: %s\nshortest failing prefix:\n  %s", seed, sync, msg, strings.Join(log, "\n  "))
			return
		}
		restore() // after the last plan's writes
		nChanges := w.rng.IntN(4)
		for i := 0; i < nChanges; i++ {
			change()
		}
		_ = nodes
		restore() // after changes, which may leave nothing to do
		if msg := identityRefsProblem(inc); msg != "" {
			t.Errorf("seed %d sync %d, before it: %s\nshortest failing prefix:\n  %s", seed, sync, msg, strings.Join(log, "\n  "))
			return
		}
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
		interleave()
		got := inc.Sync(trigger)
		if shared != nil {
			// The next Sync sharing the buffers reuses the plans' lists: keep copies, as the
			// simulator turns them into writes at once.
			plans := slices.Clone(got.Plans)
			for i := range plans {
				p := &plans[i]
				p.ToCreate, p.ToUpdate, p.ToDelete = slices.Clone(p.ToCreate), slices.Clone(p.ToUpdate), slices.Clone(p.ToDelete)
			}
			got.Plans = plans
		}
		log = append(log, fmt.Sprintf("SYNC %d: %v", sync, planCounts(want)))
		if msg := identityRefsProblem(inc); msg != "" {
			t.Errorf("seed %d sync %d, after it: %s\nshortest failing prefix:\n  %s", seed, sync, msg, strings.Join(log, "\n  "))
			return
		}
		if msg := copiedPrefixProblem(inc, got); msg != "" {
			t.Errorf("seed %d sync %d: %s\nshortest failing prefix:\n  %s", seed, sync, msg, strings.Join(log, "\n  "))
			return
		}
		if ps, ws := planString(got), planString(want); ps != ws {
			t.Errorf("seed %d sync %d: incremental plan differs from full:\nfull:\n%s\nincremental:\n%s\nshortest failing prefix:\n  %s", seed, sync, ws, ps, strings.Join(log, "\n  "))
			return
		}
		if got.Events != want.Events {
			t.Errorf("seed %d sync %d: Events: full %+v, incremental %+v\nshortest failing prefix:\n  %s", seed, sync, want.Events, got.Events, strings.Join(log, "\n  "))
			return
		}
		if topo {
			if fc, ic := fmt.Sprint(fullTopo.hintsByService()), fmt.Sprint(incTopo.hintsByService()); fc != ic {
				t.Errorf("seed %d sync %d: topology caches differ:\nfull:        %s\nincremental: %s\nshortest failing prefix:\n  %s", seed, sync, fc, ic, strings.Join(log, "\n  "))
				return
			}
		}
		if stats != nil && hintsModeFor(w.svc, inc.opts) == hintsTopology {
			stats.hinted++
			if inc.rare != nil {
				stats.walks += int(inc.rare.zoneWalks)
				inc.rare.zoneWalks = 0
			}
			if incTopo.HasPopulatedHints(w.svc.Key()) {
				stats.populated++
			} else {
				stats.fallback++
			}
			for _, p := range got.Plans {
				for _, l := range [][]*EndpointSlice{p.ToCreate, p.ToUpdate} {
					for _, sl := range l {
						if sliceHasHints(sl) {
							stats.writtenHinted++
						}
					}
				}
			}
		}
		// Now and then the world changes while the writes are in flight, as the simulator's
		// pods and Service do: the writes that follow are of the plan made before it.
		if inFlight.IntN(6) == 0 {
			log = append(log, "in flight:")
			change()
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
				interleave()
			}
			for _, u := range p.ToUpdate {
				if !applied {
					break
				}
				if applied = ok(); !applied {
					break
				}
				inc.Applied("update", u)
				interleave()
			}
			for _, d := range p.ToDelete {
				if !applied {
					break
				}
				if applied = ok(); !applied {
					break
				}
				inc.Applied("delete", d)
				interleave()
			}
		}
		checkEndpointArrays(t, seed, sync, inc, foreign)
		checkPodList(t, inc, w.pods, seed, sync)
	}
	if useRefs && !mischief && inc.names() != nil {
		t.Fatalf("seed %d: the reconciler indexed its pods by name, though every change came with its ref", seed)
	}
}

// twinRestored counts the settled reconcilers the twin runs made again.
var twinRestored int

// twinSpareReuses counts the syncs of TestIncrementalMatchesFull that started with spare
// endpoint arrays to reuse.
var twinSpareReuses int

// twinCachedSizes counts stored endpoints whose protobuf size was cached.
var twinCachedSizes int

// twinEditsNoted counts the updates the twin runs' syncs noted with their edits (see
// editsProblem), which Applied re-indexes by.
var twinEditsNoted int

// twinAppendsNoted counts those of them noted as appending only (sliceEdits.appendOnly).
var twinAppendsNoted int

// twinRehintedNoted counts those of them noted as rehinted: their copies' hints cleared, or
// rewritten by the hints pass (freshItem.hints.rehinted).
var twinRehintedNoted int

// checkPodList checks that s keeps exactly the pods of want, each once, at the position
// its entry records.
func checkPodList(t *testing.T, s *ServiceSlices, want map[string]*Pod, seed uint64, sync int) {
	t.Helper()
	seen := map[string]bool{}
	for i, pe := range s.pods {
		switch {
		case int(pe.at) != i:
			t.Fatalf("seed %d sync %d: pod %s is at %d of the list, its entry says %d", seed, sync, pe.pod.Name, i, pe.at)
		case pe.is(flagDeleted) || want[pe.pod.Name] != pe.pod:
			t.Fatalf("seed %d sync %d: the list keeps pod %s, deleted %v or changed since", seed, sync, pe.pod.Name, pe.is(flagDeleted))
		case seen[pe.pod.Name]:
			t.Fatalf("seed %d sync %d: the list keeps pod %s twice", seed, sync, pe.pod.Name)
		}
		seen[pe.pod.Name] = true
	}
	if len(seen) != len(want) {
		t.Fatalf("seed %d sync %d: the list keeps %d pods, want %d", seed, sync, len(seen), len(want))
	}
}

// checkEndpointArrays requires that no two stored slices of s and of the reconcilers that
// share its buffers (others) share an endpoint array and that no spare array is still
// stored (a recycled array must have no other user), and that every stored endpoint of s
// has its size cached right.
func checkEndpointArrays(t *testing.T, seed uint64, sync int, s *ServiceSlices, others ...*ServiceSlices) {
	t.Helper()
	users := map[*Endpoint]string{}
	for _, r := range append([]*ServiceSlices{s}, others...) {
		if r.opts.Buffers != s.opts.Buffers {
			continue
		}
		for name, ss := range r.stored.all() {
			if cap(ss.s.Endpoints) == 0 {
				continue
			}
			id := &ss.s.Endpoints[:1][0]
			if other, ok := users[id]; ok {
				t.Fatalf("seed %d sync %d: slices %s and %s share an endpoint array", seed, sync, name, other)
			}
			users[id] = name
		}
	}
	for sp := range s.opts.Buffers.spares.all() {
		if name, ok := users[&sp[:1][0]]; ok {
			t.Fatalf("seed %d sync %d: spare array still stored by %s", seed, sync, name)
		}
	}
	// An owned array keeps no endpoint past its slice (none the slice no longer has alive).
	for name, ss := range s.stored.all() {
		if !ss.owned {
			continue
		}
		tail := ss.s.Endpoints[len(ss.s.Endpoints):cap(ss.s.Endpoints)]
		for i := range tail {
			if !reflect.ValueOf(tail[i]).IsZero() {
				t.Fatalf("seed %d sync %d: slice %s keeps an old endpoint %d past its %d", seed, sync, name, len(ss.s.Endpoints)+i, len(ss.s.Endpoints))
			}
		}
	}
	// The size cached when an endpoint was built still holds after the hint passes.
	for name, ss := range s.stored.all() {
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
	if s.opts.Buffers.spares.n > 0 {
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

// TestIncrementalMatchesFullHinted holds the incremental reconciler to ReconcileFull for
// Services with the topology-mode annotation (hint mode A), in worlds sized for hints to be
// allocated: zones fail and recover (as in scenarios/zone-outage.yaml), nodes change capacity
// and lose their zone label (hints disabled), endpoints become too few for the zones
// (insufficient endpoints: hints removed), and the annotation goes on and off.
func TestIncrementalMatchesFullHinted(t *testing.T) {
	seqs, steps := 60, 40
	if !testing.Short() {
		seqs, steps = 150, 60
	}
	var stats twinStats
	checks, rehinted := cleanHintedChecks, twinRehintedNoted
	for seed := uint64(1); seed <= uint64(seqs); seed++ {
		twinRun(t, seed, newHintedWorld(seed), steps, (*world).hintedStep, &stats)
		if t.Failed() {
			return
		}
	}
	checks, rehinted = cleanHintedChecks-checks, twinRehintedNoted-rehinted
	t.Logf("%+v, %d clean hinted endpoints taken from the stored slices, %d updates noted as rehinted", stats, checks, rehinted)
	if rehinted < seqs {
		t.Errorf("%d updates noted with their edits in mode A in %d sequences: keptByRuns' mode A went (nearly) untested", rehinted, seqs)
	}
	// Every case must be reached, in more than a handful of syncs. (The clean endpoints were
	// 50 a sequence before step changed nodes' roles and CPU, which disable hints until the
	// nodes recover: 45 with -short, 70 without.)
	if stats.populated < 8*seqs || stats.fallback < 2*seqs || stats.writtenHinted < 10*seqs || stats.walks < 2*seqs || checks < 40*seqs {
		t.Errorf("sequences do not cover hinted syncs enough: %+v, %d clean hinted endpoints", stats, checks)
	}
}

// newHintedWorld is a world whose Service has the topology-mode annotation, with 12 nodes
// in three zones and enough pods for hints to be allocated.
func newHintedWorld(seed uint64) *world {
	w := newWorld(seed, true)
	w.keepPods = true
	svc := *w.svc
	svc.Annotations = map[string]string{AnnotationTopologyMode: "Auto"}
	w.svc = &svc
	if w.max > 40 {
		w.max = 5 + w.rng.IntN(30)
	}
	for i := 6; i < 12; i++ {
		n := &Node{Name: fmt.Sprintf("node-%d", i), Zone: zones[i%3], Ready: true, AllocatableMilliCPU: int64(2000 * (1 + i%3))}
		w.nodes[n.Name] = n
		w.present[n.Name] = true
	}
	for range 5 + w.rng.IntN(40) {
		w.addHintedPod()
	}
	return w
}

// addHintedPod adds a running pod on any of the 12 nodes.
func (w *world) addHintedPod() {
	p := w.addPod()
	if p.NodeName != "" {
		p.NodeName = fmt.Sprintf("node-%d", w.rng.IntN(12))
	}
}

// hintedStep is step with the changes that matter to hints made more likely.
func (w *world) hintedStep() string {
	r := w.rng.IntN(100)
	switch {
	case r < 6:
		// A zone fails: its nodes turn not ready and so do their pods.
		zone := zones[w.rng.IntN(3)]
		for _, n := range w.nodes {
			if n.Zone == zone {
				c := *n
				c.Ready = false
				w.nodes[n.Name] = &c
			}
		}
		for _, p := range w.podList() {
			if n := w.nodes[p.NodeName]; n != nil && n.Zone == zone && p.Ready {
				c := *p
				c.Ready = false
				w.pods[p.Name] = &c
			}
		}
		return "zone fails " + zone
	case r < 14:
		// Every node recovers (and a control-plane role or a CPU of 0 that step gave one
		// goes: those take a node out of the count for good).
		for name, n := range w.nodes {
			if !n.Ready || n.ControlPlane || n.AllocatableMilliCPU == 0 {
				c := *n
				c.Ready, c.ControlPlane = true, false
				if c.AllocatableMilliCPU == 0 {
					c.AllocatableMilliCPU = 2000
				}
				w.nodes[name] = &c
			}
		}
		return "nodes recover"
	case r < 20:
		n := w.nodes[fmt.Sprintf("node-%d", w.rng.IntN(12))]
		c := *n
		c.AllocatableMilliCPU = int64(1000 * (1 + w.rng.IntN(8)))
		w.nodes[n.Name] = &c
		return fmt.Sprintf("cpu %s=%d", c.Name, c.AllocatableMilliCPU)
	case r < 23:
		// A node loses its zone label (hints are then disabled), or gets one back.
		n := w.nodes[fmt.Sprintf("node-%d", w.rng.IntN(12))]
		for _, m := range w.nodes {
			if m.Zone == "" && w.rng.IntN(4) != 0 {
				n = m
				break
			}
		}
		c := *n
		if c.Zone == "" {
			c.Zone = zones[w.rng.IntN(3)]
		} else {
			c.Zone = ""
		}
		w.nodes[n.Name] = &c
		return fmt.Sprintf("zone label %s=%q", c.Name, c.Zone)
	case r < 40:
		n := 1 + w.rng.IntN(10)
		for range n {
			w.addHintedPod()
		}
		return fmt.Sprintf("add %d pods", n)
	case r < 50:
		// The annotation goes on (most often) or off (step's changes turn it off more often,
		// with values that disable hints).
		s := *w.svc
		s.Annotations, s.TrafficDistribution = nil, ""
		switch w.rng.IntN(6) {
		case 0:
		case 1:
			s.TrafficDistribution = TrafficDistributionPreferClose
		case 2:
			s.Annotations = map[string]string{AnnotationTopologyMode: "Disabled"}
		default:
			s.Annotations = map[string]string{AnnotationTopologyMode: "Auto"}
		}
		w.svc = &s
		return fmt.Sprintf("svc hints td=%q ann=%v", s.TrafficDistribution, s.Annotations)
	default:
		return w.step()
	}
}

// TestPodRefKeptPastDelete holds a ref whose pod was deleted by name and then created again
// under the same name: the ref names a deleted entry, which must not take the new pod.
func TestPodRefKeptPastDelete(t *testing.T) {
	w := newWorld(7, false)
	byRef := NewServiceSlices(w.svc, w.nodeGetter(), ReconcilerOptions{MaxEndpointsPerSlice: w.max})
	byName := NewServiceSlices(w.svc, w.nodeGetter(), ReconcilerOptions{MaxEndpointsPerSlice: w.max})
	p := w.addPod()
	p.IPs, p.Phase, p.NodeName = []string{"10.1.0.1"}, PodRunning, "node-0"
	var ref PodRef
	byRef.SetPodRef(&ref, p)
	byName.SetPod(p)
	byRef.DeletePod(p.Namespace, p.Name) // by name: ref still names the deleted entry
	byName.DeletePod(p.Namespace, p.Name)
	again := *p
	again.OwnIdentity().UID, again.IPs = "puid-again", []string{"10.1.0.2"}
	byRef.SetPodRef(&ref, &again)
	byName.SetPod(&again)
	got, want := planString(byRef.Sync(0)), planString(byName.Sync(0))
	if got != want {
		t.Fatalf("plan with a ref kept past its pod's deletion:\n%s\nwant (by name):\n%s", got, want)
	}
	if !strings.Contains(got, "10.1.0.2") {
		t.Fatalf("the recreated pod's address is missing from the plan:\n%s", got)
	}
}

// mischievousRef returns the ref a twin test keeps for key, after now and then making it
// wrong on purpose, as a careless caller might: one time in ten it becomes another key's ref
// (the first by key, unless that one is empty), one in ten one that another builder filled
// in (foreign). It never empties a ref: an empty ref says the pod is new to the builder,
// which a caller may rely on (the builders then skip the lookup by name).
func mischievousRef[R comparable](rng *rand.Rand, refs map[string]*R, key string, foreign func(*R)) *R {
	r := refs[key]
	if r == nil {
		r = new(R)
		refs[key] = r
	}
	switch rng.IntN(10) {
	case 0:
		keys := slices.Sorted(maps.Keys(refs))
		var empty R
		if i := slices.IndexFunc(keys, func(k string) bool { return k != key }); i >= 0 && *refs[keys[i]] != empty {
			*r = *refs[keys[i]]
		}
	case 1:
		foreign(r)
	}
	return r
}

// copiedPrefixProblem checks the prefixes of res's updates that the Sync noted as copies
// of the stored slices' endpoints (noteCopied), which alignUpdate pairs unseen: each endpoint
// of one must be its stored slice's endpoint at its place, as it is (hints too, but in an
// update noted as rehinted: see hintNotes); and that an update noted without hints has
// none. It returns what is wrong, or "".
func copiedPrefixProblem(s *ServiceSlices, res SyncResult) string {
	for _, p := range res.Plans {
		for _, sl := range p.ToUpdate {
			old := s.stored.at(sl.Name)
			if old == nil {
				continue
			}
			noted := s.noted(old.s, sl)
			rehinted := noted != nil && noted.hints.rehinted
			n, hintless := copiedPrefix(noted, old, sl)
			for i := range n {
				if o, e := &old.s.Endpoints[i], &sl.Endpoints[i]; old.hash(i) != hashEndpoint(e) || !copiedAs(*o, *e, rehinted) {
					return fmt.Sprintf("update of %s: endpoint %d of the %d noted as copied is %+v, stored %+v", sl.Name, i, n, *e, *o)
				}
			}
			if hintless && sliceHasHints(sl) {
				return fmt.Sprintf("update of %s: noted without hints, it has some", sl.Name)
			}
			if f := s.noted(old.s, sl); f != nil && f.edits.recorded() {
				twinEditsNoted++
				if f.edits.appendOnly {
					twinAppendsNoted++
				}
				if f.hints.rehinted {
					twinRehintedNoted++
				}
				if msg := editsProblem(old, sl, f.edits, f.hints.rehinted); msg != "" {
					return fmt.Sprintf("update of %s, noted with edits %v: %s", sl.Name, f.edits.at[:f.edits.n], msg)
				}
			}
		}
	}
	return ""
}

// editsProblem checks that update is old's stored slice with edits e (see sliceEdits):
// the endpoints between the edits its copies, in order (but for their hints when
// rehinted); at an edit, nothing or an endpoint of the same identity; after the last stored
// endpoint, only endpoints stored nowhere in old. It returns what is wrong, or "".
func editsProblem(old *storedSlice, update *EndpointSlice, e sliceEdits, rehinted bool) string {
	was, now := old.s.Endpoints, update.Endpoints
	i, j := 0, 0
	copyRun := func(to int) string {
		for ; i < to; i, j = i+1, j+1 {
			if j >= len(now) || !copiedAs(was[i], now[j], rehinted) {
				return fmt.Sprintf("stored endpoint %d is not copied at %d", i, j)
			}
		}
		return ""
	}
	for k, ed := range e.at[:e.n] {
		if ed.pos() >= len(was) || k > 0 && ed.pos() <= e.at[k-1].pos() {
			return fmt.Sprintf("edit %d at %d: out of order or past the %d stored", k, ed.pos(), len(was))
		}
		if msg := copyRun(ed.pos()); msg != "" {
			return msg
		}
		i++
		if ed.dropped() {
			continue
		}
		if j >= len(now) || hashEndpoint(&now[j]) != old.hash(ed.pos()) {
			return fmt.Sprintf("edit at %d: endpoint %d is not of its identity", ed.pos(), j)
		}
		j++
	}
	if msg := copyRun(len(was)); msg != "" {
		return msg
	}
	for ; j < len(now); j++ {
		h := hashEndpoint(&now[j])
		for i := range was {
			if old.hash(i) == h {
				return fmt.Sprintf("endpoint %d, added after the stored ones, is stored at %d", j, i)
			}
		}
	}
	return ""
}

// copiedAs reports whether endpoint c is a copy of stored endpoint o: equal in every field,
// or but for the hints when rehinted (see hintNotes).
func copiedAs(o, c Endpoint, rehinted bool) bool {
	if rehinted {
		o.Hints, c.Hints = nil, nil
	}
	return reflect.DeepEqual(o, c)
}

// storedIndexProblem checks, once the writes of a plan are applied, the families' index of
// stored endpoints against the stored slices (Applied keeps it as it applies each write):
// with no identity stored twice, each stored endpoint is found at its place, and each
// identity's place holds it; and every identity whose stored endpoint is not its desired
// one is in its family's dirty set, so that the next Sync looks at it. It returns what is
// wrong, or "".
func storedIndexProblem(s *ServiceSlices) string {
	if s.dupHashes > 0 || s.anomalies > 0 || s.full || len(s.dirtyPods) > 0 {
		return ""
	}
	for fi, f := range s.families {
		if f == nil {
			continue
		}
		for _, ss := range f.byID {
			if ss == nil {
				continue
			}
			for i := range ss.s.Endpoints {
				if at, pos := f.storedAt(ss.hash(i)); at != ss || pos != i {
					return fmt.Sprintf("family %d: endpoint %d of %s is indexed at %d of %v", fi, i, ss.s.Name, pos, at != nil && at == ss)
				}
			}
		}
		dirty := map[endpointHash]bool{}
		for _, h := range f.dirty.appendTo(nil) {
			dirty[h] = true
		}
		for h, st := range f.ids.all() {
			if at, pos := f.place(st.loc()); at != nil && (pos >= len(at.s.Endpoints) || at.hash(pos) != h) {
				return fmt.Sprintf("family %d: identity %x is indexed at %d of %s, which holds another", fi, h, pos, at.s.Name)
			}
			if clean, _, _, _ := s.cleanState(f, h); !clean && !dirty[h] {
				return fmt.Sprintf("family %d: identity %x is not as desired, and not dirty", fi, h)
			}
		}
	}
	return ""
}

// identityRefsProblem checks that the families' identity states and the pod entries name
// each other: a state's pod reference resolves to an entry whose desired endpoint of that
// family is the identity (a kept pod at its place in pods, a deleted one in dirtyPods), and
// every kept pod's desired endpoint names it. It returns what is wrong, or "".
func identityRefsProblem(s *ServiceSlices) string {
	for i, f := range s.families {
		if f == nil {
			continue
		}
		for h, st := range f.ids.all() {
			r := st.ref()
			if r == 0 {
				continue
			}
			pe := s.entryOf(r)
			switch {
			case pe == nil:
				return fmt.Sprintf("family %d: identity %x names reference %d, which is no entry", i, h, r)
			case !pe.has[i] || s.podIdentityOf(pe, i).id != h:
				return fmt.Sprintf("family %d: identity %x names pod %s, whose desired endpoint it is not", i, h, pe.pod.Name)
			case r < goneRefBase && (pe.is(flagDeleted) || pe.at != int32(r-1)):
				return fmt.Sprintf("family %d: identity %x names kept place %d, holding pod %s (deleted %v, at %d)", i, h, r-1, pe.pod.Name, pe.is(flagDeleted), pe.at)
			case r >= goneRefBase && !pe.is(flagDeleted):
				return fmt.Sprintf("family %d: identity %x names pod %s as deleted, and it is kept", i, h, pe.pod.Name)
			}
		}
	}
	for at, pe := range s.pods {
		for i, has := range pe.has {
			if has {
				if r := s.families[i].desiredRef(s.podIdentityOf(pe, i).id); r != liveRef(int32(at)) {
					return fmt.Sprintf("family %d: kept pod %s at %d: its identity names reference %d, want %d", i, pe.pod.Name, at, r, liveRef(int32(at)))
				}
			}
		}
	}
	return ""
}
