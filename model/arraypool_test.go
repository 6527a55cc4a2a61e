package model

import (
	"fmt"
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

// Two Services sharing buffers reuse each other's spare arrays: one whose slice was
// replaced gives its array back, and the other's next rewrite takes it.
func TestSharedBuffersPassSpareArraysBetweenServices(t *testing.T) {
	shared := new(SyncBuffers)
	mk := func(name string) *ServiceSlices {
		svc := &Service{Namespace: "ns", Name: name, UID: name + "-uid", IPFamilies: []IPFamily{IPv4},
			Ports: []ServicePort{{Name: "http", Port: 80, TargetPort: IntPort(8080), Protocol: ProtocolTCP}}}
		return NewServiceSlices(svc, poolTestNode{}, ReconcilerOptions{Buffers: shared})
	}
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
	pod := func(name string, i int) *Pod {
		return &Pod{PodIdentity: NewPodIdentity("ns", fmt.Sprintf("%s-%d", name, i), fmt.Sprintf("%s-uid-%d", name, i)),
			NodeName: "n1", Phase: PodRunning, Ready: true,
			IPs: []string{fmt.Sprintf("10.0.%d.%d", len(name), i)}}
	}
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

type poolTestNode struct{}

func (poolTestNode) Node(name string) (*Node, bool) {
	return &Node{Name: name, Zone: "z1", Ready: true}, true
}
