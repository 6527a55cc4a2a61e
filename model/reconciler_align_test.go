package model

import (
	"fmt"
	"testing"
)

// TestUpdateKeepsShiftedEndpoints writes a one-slice Service, then removes a run of its
// endpoints longer than alignLookahead from the middle and a single one further on, flips
// one's readiness and adds pods: the update must pair every kept endpoint with its old self
// (equal but the flipped one), and the books kept after it must be those a builder made
// from the stored slices afresh: the next Sync of both writes nothing, and further changes
// plan alike.
func TestUpdateKeepsShiftedEndpoints(t *testing.T) {
	svc := &Service{
		Namespace: "ns", Name: "web", UID: "uid-1", Labels: map[string]string{"app": "web"},
		Selector: Selector{{Key: "app", Value: "web"}}, ClusterIP: "10.96.0.10", IPFamilies: []IPFamily{IPv4},
		Ports: []ServicePort{{Name: "http", Protocol: ProtocolTCP, Port: 80, TargetPort: IntPort(8080)}},
	}
	nodes := mapNodes{"node-0": {Name: "node-0", Zone: "zone-a", Ready: true, AllocatableMilliCPU: 4000}}
	opts := ReconcilerOptions{MaxEndpointsPerSlice: 100}
	pods := map[string]*Pod{}
	newPod := func(i int) *Pod {
		p := &Pod{
			PodIdentity: NewPodIdentity("ns", fmt.Sprintf("pod-%03d", i), fmt.Sprintf("puid-%03d", i)),
			NodeName:    "node-0", Phase: PodRunning, Ready: true,
			IPs: []string{fmt.Sprintf("10.1.0.%d", i)},
		}
		p.ContainerPorts = []ContainerPort{{Name: "web", ContainerPort: 8080, Protocol: ProtocolTCP}}
		pods[p.Name] = p
		return p
	}
	inc := NewServiceSlices(svc, nodes, opts)
	for i := range 80 {
		inc.SetPod(newPod(i))
	}
	seq := 0
	applyAll(inc, inc.Sync(0), &seq)
	stored := inc.Stored()
	if len(stored) != 1 || len(stored[0].Endpoints) != 80 {
		t.Fatalf("want one slice of 80 endpoints, have %d slices", len(stored))
	}
	byPos := func(i int) *Pod { return pods[stored[0].Endpoints[i].TargetRef.Name] }
	removed := map[string]bool{}
	for i := 10; i < 10+3*alignLookahead; i++ {
		removed[byPos(i).Name] = true
	}
	removed[byPos(60).Name] = true
	for name := range removed {
		inc.DeletePod("ns", name)
		delete(pods, name)
	}
	flipped := *byPos(70)
	flipped.Ready = false
	pods[flipped.Name] = &flipped
	inc.SetPod(&flipped)
	for i := 100; i < 103; i++ {
		inc.SetPod(newPod(i))
	}

	res := inc.Sync(0)
	if len(res.Plans) != 1 || len(res.Plans[0].ToUpdate) != 1 || len(res.Plans[0].ToCreate)+len(res.Plans[0].ToDelete) != 0 {
		t.Fatalf("want one update, have %s", planString(res))
	}
	update := res.Plans[0].ToUpdate[0]
	old := inc.stored.at(update.Name)
	a := inc.alignUpdate(old, update, inc.noted(old.s, update))
	pairs, prefix := a.pairs, a.kept
	if prefix != 10 {
		// The first endpoint removed was the 11th: the ten before it are the old ones.
		t.Fatalf("a prefix of %d kept endpoints, want 10", prefix)
	}
	for j := range prefix {
		pairs[j] = endpointPair{old: int32(j), same: true} // not set by alignUpdate
	}
	kept, same := 0, 0
	for j, pr := range pairs {
		if pr.old < 0 {
			continue
		}
		kept++
		if got, want := old.s.Endpoints[pr.old].TargetRef.Name, update.Endpoints[j].TargetRef.Name; got != want {
			t.Fatalf("endpoint %d (%s) paired with old endpoint %d (%s)", j, want, pr.old, got)
		}
		if pr.same {
			same++
		} else if update.Endpoints[j].TargetRef.Name != flipped.Name {
			t.Errorf("endpoint %d (%s) paired as changed", j, update.Endpoints[j].TargetRef.Name)
		}
	}
	if want := 80 - len(removed); kept != want || same != want-1 {
		t.Fatalf("paired %d endpoints (%d equal), want %d (%d equal)", kept, same, want, want-1)
	}
	applyAll(inc, res, &seq)

	fresh := NewServiceSlices(svc, nodes, opts)
	fresh.SetStoredSlices(inc.Stored())
	for _, p := range pods {
		fresh.SetPod(p)
	}
	for _, b := range []*ServiceSlices{inc, fresh} {
		res := b.Sync(0)
		for _, p := range res.Plans {
			if len(p.ToCreate)+len(p.ToUpdate)+len(p.ToDelete) != 0 {
				t.Fatalf("a sync after the update writes:\n%s", planString(res))
			}
		}
	}
	// Further changes: the books agree.
	for _, name := range []string{byPos(5).Name, byPos(75).Name} {
		p := *pods[name]
		p.Ready = false
		inc.SetPod(&p)
		fresh.SetPod(&p)
	}
	inc.DeletePod("ns", byPos(0).Name)
	fresh.DeletePod("ns", byPos(0).Name)
	if got, want := planString(inc.Sync(0)), planString(fresh.Sync(0)); got != want {
		t.Fatalf("after the update, plans differ from a fresh builder's:\n%s\nwant:\n%s", got, want)
	}
}

// TestUpdatePrefixStopsAtAChange: alignUpdate leaves out of its pairs only the endpoints
// before the first that differs from the old one in its place, though that one has the
// same identity (a readiness flip): it is paired, not equal.
func TestUpdatePrefixStopsAtAChange(t *testing.T) {
	s, pods, seq := syncedBenchService(benchService(), ReconcilerOptions{}, 20)
	stored := s.Stored()
	if len(stored) != 1 {
		t.Fatalf("%d slices, want 1", len(stored))
	}
	at := map[string]int{}
	for i, ep := range stored[0].Endpoints {
		at[ep.TargetRef.Name] = i
	}
	var flipped *Pod
	for i := range pods {
		if at[pods[i].Name] == 3 {
			flipped = flipReadiness(pods, i)
		}
	}
	s.SetPod(flipped)
	res := s.Sync(2)
	if len(res.Plans) != 1 || len(res.Plans[0].ToUpdate) != 1 {
		t.Fatalf("want one update, have %s", planString(res))
	}
	update := res.Plans[0].ToUpdate[0]
	a := s.alignUpdate(s.stored.at(update.Name), update, s.noted(s.stored.at(update.Name).s, update))
	pairs, prefix := a.pairs, a.kept
	if prefix != 3 {
		t.Fatalf("a prefix of %d kept endpoints, want 3 (the fourth changed)", prefix)
	}
	if pr := pairs[3]; pr.old != 3 || pr.same {
		t.Errorf("the changed endpoint paired as %+v, want old 3, not equal", pr)
	}
	for j := 4; j < len(pairs); j++ {
		if pr := pairs[j]; int(pr.old) != j || !pr.same {
			t.Errorf("endpoint %d paired as %+v, want with itself, equal", j, pr)
		}
	}
	applyAll(s, res, &seq)
}

// TestStoredIdentities checks where a stored slice's endpoint identities come from: a
// slice the reconciler wrote, created or updated, keeps none, its endpoints carrying theirs;
// one given from outside (a decoder's endpoints carry none) keeps them in hashes, as does an
// update that keeps some of those endpoints; and every identity is its endpoint's hash.
func TestStoredIdentities(t *testing.T) {
	svc := benchService()
	inc := NewServiceSlices(svc, benchNodes(), ReconcilerOptions{MaxEndpointsPerSlice: 100})
	for i := range 30 {
		inc.SetPod(benchPod(i, true))
	}
	seq := 0
	// bare copies endpoints' API fields only, as a decoder would make them.
	bare := func(eps []Endpoint) []Endpoint {
		out := make([]Endpoint, len(eps))
		for i, e := range eps {
			out[i] = Endpoint{Addresses: e.Addresses, Hostname: e.Hostname, TargetRef: e.TargetRef, NodeName: e.NodeName,
				Zone: e.Zone, Hints: e.Hints, Conditions: e.Conditions}
		}
		return out
	}
	check := func(when string, wantHashes bool) {
		t.Helper()
		if inc.stored.len() != 1 {
			t.Fatalf("%s: want one slice stored, have %d", when, inc.stored.len())
		}
		for name, ss := range inc.stored.all() {
			if (ss.hashes != nil) != wantHashes {
				t.Errorf("%s: slice %s keeps hashes %v, want %v", when, name, ss.hashes != nil, wantHashes)
			}
			for i := range ss.s.Endpoints {
				e := bare(ss.s.Endpoints[i : i+1])[0]
				if got, want := ss.hash(i), hashEndpoint(&e); got != want {
					t.Errorf("%s: slice %s endpoint %d: identity %x, its hash is %x", when, name, i, got, want)
				}
			}
		}
	}
	// swap adds pod add, deletes pod drop and writes what a sync plans.
	swap := func(add int, drop string) {
		inc.SetPod(benchPod(add, true))
		inc.DeletePod("ns", drop)
		applyAll(inc, inc.Sync(0), &seq)
	}
	// bareCopy is the stored slice as a decoder would give it.
	bareCopy := func() *EndpointSlice {
		c := *inc.Stored()[0]
		c.Endpoints = bare(c.Endpoints)
		return &c
	}
	applyAll(inc, inc.Sync(0), &seq)
	check("created", false)
	swap(40, "pod-3")
	check("updated", false)

	inc.Applied("update", bareCopy())
	check("updated from outside", true)
	if res := inc.Sync(0); len(res.Plans) != 0 && len(res.Plans[0].ToCreate)+len(res.Plans[0].ToUpdate)+len(res.Plans[0].ToDelete) != 0 {
		t.Errorf("a sync after an update from outside that changed nothing writes %s", planString(res))
	}
	swap(41, "pod-5")
	check("updated, keeping endpoints from outside", true)

	inc.SetStoredSlices([]*EndpointSlice{bareCopy()})
	check("given from outside", true)
}

// TestFreshListGoesOnceApplied checks that a Service's list of the arrays and objects its
// last Sync allocated is handed to the shared buffers once every one of them was applied,
// that another Service's Sync reuses it, and that a list with a write not yet applied stays.
func TestFreshListGoesOnceApplied(t *testing.T) {
	buf := &SyncBuffers{}
	opts := ReconcilerOptions{MaxEndpointsPerSlice: 100, Buffers: buf}
	a, b := NewServiceSlices(benchService(), benchNodes(), opts), NewServiceSlices(benchService(), benchNodes(), opts)
	for i := range 3 {
		a.SetPod(benchPod(i, true))
		b.SetPod(benchPod(i, true))
	}
	// apply writes the plans' slices as the API server does: in place, named if created.
	apply := func(s *ServiceSlices, res SyncResult, name string) {
		for _, p := range res.Plans {
			for _, c := range p.ToCreate {
				c.Name = name
				s.Applied("create", c)
			}
		}
	}
	resA := a.Sync(0)
	if len(a.fresh) == 0 {
		t.Fatal("a Sync that plans a slice noted no fresh array or object")
	}
	apply(a, resA, "a-1")
	if a.fresh != nil || len(buf.spareFresh) != 1 {
		t.Fatalf("every write applied: fresh list %v, %d spare lists; want none and 1", a.fresh, len(buf.spareFresh))
	}
	spare := &buf.spareFresh[0][:1][0]
	resB := b.Sync(0)
	if len(buf.spareFresh) != 0 || len(b.fresh) == 0 || &b.fresh[0] != spare {
		t.Fatalf("the next Sync of another Service did not reuse the spare list")
	}
	// b's write is not applied yet: its list stays, naming what its write allocated.
	b.SetPod(benchPod(3, true))
	if b.fresh == nil {
		t.Fatal("a list with writes not applied was dropped")
	}
	apply(b, resB, "b-1")
	if b.fresh != nil {
		t.Fatalf("every write applied: fresh list %v, want none", b.fresh)
	}
	if got := len(a.Stored()[0].Endpoints) + len(b.Stored()[0].Endpoints); got != 6 {
		t.Errorf("the two Services store %d endpoints, want 6", got)
	}
	// A Service that writes three slices a sync keeps its list of six items: it would
	// grow it again at its next sync.
	big := NewServiceSlices(benchService(), benchNodes(), opts)
	for i := range 250 {
		big.SetPod(benchPod(i, true))
	}
	res := big.Sync(0)
	for i, p := range res.Plans {
		for j, c := range p.ToCreate {
			c.Name = fmt.Sprintf("big-%d-%d", i, j)
			big.Applied("create", c)
		}
	}
	if len(big.Stored()) != 3 || len(big.fresh) != 6 {
		t.Errorf("a Service that wrote %d slices kept %d fresh items, want 3 slices and their 6 items", len(big.Stored()), len(big.fresh))
	}
}
