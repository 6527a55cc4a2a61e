package model

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

func TestArrayPoolTakesFromItsClassOrTheNextUp(t *testing.T) {
	var p arrayPool
	a5, a7, a12, a100 := make([]Endpoint, 3, 5), make([]Endpoint, 0, 7), make([]Endpoint, 0, 12), make([]Endpoint, 0, 100)
	for _, a := range [][]Endpoint{a5, a7, a12, a100} {
		p.put(a, 0)
	}
	if p.n != 4 {
		t.Fatalf("pool holds %d arrays, want 4", p.n)
	}
	tests := []struct {
		c       int
		wantCap int // 0: none
	}{
		{c: 6, wantCap: 7},    // class 3 (4..7): 5 is too small, 7 fits
		{c: 6, wantCap: 12},   // class 3 has only 5 left: the next class up
		{c: 6, wantCap: 0},    // class 4 is empty now, and 5 < 6
		{c: 5, wantCap: 5},    // it keeps its length: the old endpoints it still holds
		{c: 33, wantCap: 100}, // class 6 (32..63) is empty; class 7 holds 100
		{c: 100, wantCap: 0},
		{c: 1, wantCap: 0},
	}
	for i, tt := range tests {
		got := p.take(tt.c)
		if cap(got) != tt.wantCap {
			t.Fatalf("take %d (capacity %d): got capacity %d, want %d", i, tt.c, cap(got), tt.wantCap)
		}
		if tt.wantCap == 5 && len(got) != 3 {
			t.Errorf("the spare of capacity 5 came back with length %d, want 3", len(got))
		}
	}
	if p.n != 0 {
		t.Errorf("pool holds %d arrays after taking all, want 0", p.n)
	}
}

func TestArrayPoolBoundsEachClass(t *testing.T) {
	var p arrayPool
	for range sparesPerClass + 5 {
		p.put(make([]Endpoint, 0, 8), 0)
	}
	if p.n != sparesPerClass {
		t.Fatalf("class holds %d arrays, want the bound %d", p.n, sparesPerClass)
	}
	// A Service whose last Sync allocated more arrays than the bound may keep that many.
	for range 10 {
		p.put(make([]Endpoint, 0, 8), sparesPerClass+3)
	}
	if p.n != sparesPerClass+3 {
		t.Errorf("class holds %d arrays, want %d", p.n, sparesPerClass+3)
	}
	p.put(make([]Endpoint, 0, 100), 0)
	if p.n != sparesPerClass+4 {
		t.Errorf("another class is bounded apart: %d arrays, want %d", p.n, sparesPerClass+4)
	}
}

// A full class keeps the larger arrays: a request takes only an array that fits it, so a
// class full of the smallest ones would turn away the arrays larger requests need.
func TestArrayPoolFullClassKeepsTheLarger(t *testing.T) {
	var p arrayPool
	for range sparesPerClass {
		p.put(make([]Endpoint, 0, 11), 0)
	}
	if got := p.take(13); got != nil {
		t.Fatalf("take 13 from arrays of 11: got capacity %d, want none", cap(got))
	}
	p.put(make([]Endpoint, 0, 14), 0)
	p.put(make([]Endpoint, 0, 9), 0) // smaller than all it holds: turned away
	if p.n != sparesPerClass {
		t.Fatalf("class holds %d arrays, want the bound %d", p.n, sparesPerClass)
	}
	if got := p.take(13); cap(got) != 14 {
		t.Fatalf("take 13: got capacity %d, want the 14 put into the full class", cap(got))
	}
	caps := map[int]int{}
	for a := range p.all() {
		caps[cap(a)]++
	}
	if want := map[int]int{11: sparesPerClass - 1}; !maps.Equal(caps, want) {
		t.Errorf("class holds capacities %v, want %v", caps, want)
	}
}

// Two Services sharing buffers reuse each other's spare arrays: one whose slice was
// replaced gives its array back, and the other's next rewrite takes it.
func TestSharedBuffersPassSpareArraysBetweenServices(t *testing.T) {
	shared := new(SyncBuffers)
	mk := func(name string) *ServiceSlices { return newPoolTestSlices(shared, name, 0) }
	a, b := mk("a"), mk("b")
	apply := func(s *ServiceSlices, prefix string) {
		for i, p := range s.Sync(0).Plans {
			for j, c := range p.ToCreate {
				cc := *c
				cc.Name = fmt.Sprintf("%s-%d-%d", prefix, i, j)
				s.Applied("create", &cc)
			}
			for _, u := range p.ToUpdate {
				s.Applied("update", u)
			}
		}
	}
	pod := poolTestPod
	for i := range 3 {
		a.SetPod(pod("a", i))
		b.SetPod(pod("b", i))
	}
	apply(a, "a")
	apply(b, "b")
	if shared.spares.n != 0 {
		t.Fatalf("%d spares before any slice was replaced", shared.spares.n)
	}
	a.SetPod(pod("a", 3))
	apply(a, "a") // a's slice is rewritten: its old array becomes a spare
	if shared.spares.n != 1 {
		t.Fatalf("%d spares after a's rewrite, want 1", shared.spares.n)
	}
	var spare *Endpoint
	for sp := range shared.spares.all() {
		spare = &sp[:1][0]
	}
	b.DeletePod("ns", "b-0") // b keeps 3 endpoints: an array of a's capacity
	b.SetPod(pod("b", 3))
	apply(b, "b")
	stored := b.Stored()
	if len(stored) != 1 || &stored[0].Endpoints[0] != spare {
		t.Fatalf("b's rewritten slice did not take a's spare array")
	}
	var names []string
	for _, ep := range stored[0].Endpoints {
		names = append(names, ep.TargetRef.Name)
	}
	slices.Sort(names)
	if got := strings.Join(names, " "); got != "b-1 b-2 b-3" {
		t.Errorf("b's slice has endpoints of %s, want b-1 b-2 b-3", got)
	}
	if shared.spares.n != 1 {
		t.Errorf("%d spares after b's rewrite, want 1 (b's old array)", shared.spares.n)
	}
}

// newPoolTestSlices returns the reconciler of a one-port IPv4 Service of that name, with the
// shared buffers and at most max endpoints a slice (0: the default).
func newPoolTestSlices(shared *SyncBuffers, name string, max int) *ServiceSlices {
	svc := &Service{Namespace: "ns", Name: name, UID: name + "-uid", IPFamilies: []IPFamily{IPv4},
		Ports: []ServicePort{{Name: "http", Port: 80, TargetPort: IntPort(8080), Protocol: ProtocolTCP}}}
	return NewServiceSlices(svc, poolTestNode{}, ReconcilerOptions{Buffers: shared, MaxEndpointsPerSlice: max})
}

// poolTestPod is ready pod i of the Service of that name, on node n1.
func poolTestPod(name string, i int) *Pod {
	return &Pod{PodIdentity: NewPodIdentity("ns", fmt.Sprintf("%s-%d", name, i), fmt.Sprintf("%s-uid-%d", name, i)),
		NodeName: "n1", Phase: PodRunning, Ready: true,
		IPs: []string{fmt.Sprintf("10.0.%d.%d", len(name), i)}}
}

type poolTestNode struct{}

func (poolTestNode) Node(name string) (*Node, bool) {
	return &Node{Name: name, Zone: "z1", Ready: true}, true
}

// A slice's object goes back to the shared buffers, as its array does, when a write replaces
// or deletes it, and another Service's next rewrite takes it. An object the caller made (a
// create applied as a copy, as an API server that stores its own copy would) is never taken.
func TestSharedBuffersPassSpareObjectsBetweenServices(t *testing.T) {
	shared := new(SyncBuffers)
	mk := func(name string) *ServiceSlices { return newPoolTestSlices(shared, name, 0) }
	// apply applies a Sync's writes; creates are named in place, or copied first.
	apply := func(s *ServiceSlices, copyCreates bool) (written []*EndpointSlice) {
		for _, p := range s.Sync(0).Plans {
			for _, c := range p.ToCreate {
				if copyCreates {
					cc := *c
					c = &cc
				}
				c.Name = s.svc.Name + "-slice"
				s.Applied("create", c)
				written = append(written, c)
			}
			for _, u := range p.ToUpdate {
				s.Applied("update", u)
				written = append(written, u)
			}
			for _, d := range p.ToDelete {
				s.Applied("delete", d)
				written = append(written, d)
			}
		}
		return written
	}
	pod := poolTestPod
	a, b, c := mk("a"), mk("bb"), mk("ccc")
	for i := range 3 {
		a.SetPod(pod("a", i))
		b.SetPod(pod("bb", i))
		c.SetPod(pod("ccc", i))
	}
	apply(a, false)
	apply(b, false)
	caller := apply(c, true)
	if n := len(shared.spareObjects); n != 0 {
		t.Fatalf("%d spare objects before any slice was replaced", n)
	}

	c.SetPod(pod("ccc", 3))
	apply(c, false) // replaces the caller's copy: not the model's to take
	if n := len(shared.spareObjects); n != 0 {
		t.Fatalf("%d spare objects after the caller's own object was replaced, want 0", n)
	}
	if caller[0].Name != "ccc-slice" || len(caller[0].Endpoints) != 3 {
		t.Fatalf("the caller's replaced object changed: %s with %d endpoints", caller[0].Name, len(caller[0].Endpoints))
	}

	old := a.Stored()[0]
	a.SetPod(pod("a", 3))
	apply(a, false) // a's slice is rewritten: its old object becomes a spare
	if len(shared.spareObjects) != 1 || shared.spareObjects[0] != old {
		t.Fatalf("spare objects after a's rewrite: %d, want a's old object alone", len(shared.spareObjects))
	}
	b.SetPod(pod("bb", 3))
	written := apply(b, false)
	stored := b.Stored()
	if len(written) != 1 || written[0] != old || len(stored) != 1 || stored[0] != old {
		t.Fatalf("b's rewrite did not take a's spare object")
	}
	var names []string
	for _, ep := range stored[0].Endpoints {
		names = append(names, ep.TargetRef.Name)
	}
	slices.Sort(names)
	if got := strings.Join(names, " "); stored[0].Name != "bb-slice" || got != "bb-0 bb-1 bb-2 bb-3" ||
		stored[0].Labels.Get(LabelServiceName) != "bb" {
		t.Errorf("b's slice is %s of Service %s with endpoints of %s, want bb-slice of bb with bb-0 to bb-3",
			stored[0].Name, stored[0].Labels.Get(LabelServiceName), got)
	}

	// A delete gives the object back too, still readable until a later Sync.
	d := newPoolTestSlices(shared, "d", 2)
	for i := range 4 {
		d.SetPod(pod("d", i))
	}
	for i, sl := range d.Sync(0).Plans[0].ToCreate { // two slices of two
		sl.Name = fmt.Sprintf("d-slice-%d", i)
		d.Applied("create", sl)
	}
	gone := d.Stored()[1]
	for _, ep := range gone.Endpoints {
		d.DeletePod("ns", ep.TargetRef.Name)
	}
	spares := len(shared.spareObjects)
	var verbs []string
	for _, p := range d.Sync(0).Plans {
		for _, sl := range p.ToDelete {
			verbs = append(verbs, "delete "+sl.Name)
			d.Applied("delete", sl)
		}
		if len(p.ToCreate)+len(p.ToUpdate) > 0 {
			verbs = append(verbs, "other")
		}
	}
	if got := strings.Join(verbs, ", "); got != "delete d-slice-1" {
		t.Fatalf("d's writes after the pods of its second slice were deleted: %s, want delete d-slice-1", got)
	}
	if gone.Name != "d-slice-1" {
		t.Errorf("the deleted slice reads %q right after Applied, want d-slice-1", gone.Name)
	}
	if n := len(shared.spareObjects); n != spares+1 || shared.spareObjects[n-1] != gone {
		t.Errorf("spare objects after d's delete: %d, want %d, the deleted object last", n, spares+1)
	}
}

// Services created with the same options and buffers share one copy of the options; options
// that differ get their own, and each Service keeps the ones it was made with.
func TestSharedBuffersShareEqualOptions(t *testing.T) {
	shared := new(SyncBuffers)
	svc := func(name string) *Service {
		return &Service{Namespace: "ns", Name: name, Selector: Selector{{Key: "app", Value: name}}}
	}
	opts := ReconcilerOptions{MaxEndpointsPerSlice: 10, Buffers: shared}
	a := NewServiceSlices(svc("a"), poolTestNode{}, opts)
	b := NewServiceSlices(svc("b"), poolTestNode{}, opts)
	opts.MaxEndpointsPerSlice = 20
	c := NewServiceSlices(svc("c"), poolTestNode{}, opts)
	own := NewServiceSlices(svc("d"), poolTestNode{}, ReconcilerOptions{MaxEndpointsPerSlice: 10})
	if a.opts != b.opts {
		t.Error("two Services of equal options keep a copy each")
	}
	if a.opts == c.opts || a.opts.maxPerSlice() != 10 || c.opts.maxPerSlice() != 20 {
		t.Errorf("options of a and c: shared %v, max per slice %d and %d; want 10 and 20 apart",
			a.opts == c.opts, a.opts.maxPerSlice(), c.opts.maxPerSlice())
	}
	if own.opts.Buffers == nil || own.opts.Buffers == shared || own.opts == a.opts {
		t.Error("a Service made without buffers does not have its own")
	}
}
