package model

import (
	"math/rand/v2"
	"slices"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestSliceSpecEqualAsUpstream holds SliceSpecEqual to the comparison upstream's
// PrepareForUpdate makes (apiequality.Semantic.DeepEqual of the two objects with their
// ObjectMeta cleared) on random slices and copies with one random field changed, or none.
func TestSliceSpecEqualAsUpstream(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	strs := []string{"a", "b", ""}
	ptr := func() *string {
		if rng.IntN(3) == 0 {
			return nil
		}
		return Ptr(strs[rng.IntN(len(strs))])
	}
	cond := func() Condition { return Condition(rng.IntN(3)) }
	randomEndpoint := func() Endpoint {
		ep := Endpoint{Addresses: []string{[]string{"10.0.0.1", "10.0.0.2"}[rng.IntN(2)]}, Hostname: ptr(), NodeName: ptr(), Zone: ptr(),
			Conditions: EndpointConditions{Ready: cond(), Serving: cond(), Terminating: cond()}}
		if rng.IntN(2) == 0 {
			ep.TargetRef = &ObjectReference{Kind: "Pod", Namespace: "ns", Name: strs[rng.IntN(2)], UID: "u"}
		}
		if rng.IntN(3) == 0 {
			ep.Hints = &EndpointHints{ForZones: slices.Clone(strs[:rng.IntN(3)]), ForNodes: slices.Clone(strs[:rng.IntN(2)])}
		}
		return ep
	}
	seen := [2]int{}
	for i := range 20000 {
		a := &EndpointSlice{AddressType: AddressTypeIPv4, Ports: randomSlicePorts(rng, rng.IntN(3))}
		for range rng.IntN(4) {
			a.Endpoints = append(a.Endpoints, randomEndpoint())
		}
		b := &EndpointSlice{AddressType: a.AddressType, Ports: slices.Clone(a.Ports), Endpoints: slices.Clone(a.Endpoints)}
		switch rng.IntN(8) {
		case 0:
			b.AddressType = AddressTypeIPv6
		case 1:
			b.Ports = randomSlicePorts(rng, rng.IntN(3))
		case 2:
			b.Endpoints = append(b.Endpoints, randomEndpoint())
		case 3, 4:
			if len(b.Endpoints) > 0 {
				b.Endpoints[rng.IntN(len(b.Endpoints))] = randomEndpoint()
			}
		case 5:
			if len(b.Endpoints) > 0 { // the hints alone
				b.Endpoints[rng.IntN(len(b.Endpoints))].Hints = randomEndpoint().Hints
			}
		}
		ka, kb := toK8sSlice(a), toK8sSlice(b)
		ka.ObjectMeta, kb.ObjectMeta = metav1.ObjectMeta{}, metav1.ObjectMeta{}
		want := apiequality.Semantic.DeepEqual(ka, kb)
		if got := SliceSpecEqual(a, b); got != want {
			t.Fatalf("case %d: SliceSpecEqual %v, upstream's comparison %v\na %+v\nb %+v", i, got, want, a, b)
		}
		seen[boolIndex(want)]++
	}
	if seen[0] < 1000 || seen[1] < 1000 {
		t.Errorf("only %d unequal and %d equal pairs", seen[0], seen[1])
	}
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}
