package model

import (
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"
)

// BenchmarkSize measures the size model's hot paths (DESIGN.md "Wire sizes": O(change), not
// O(object)). Each "update" iteration applies one change and recomputes the object's size in
// both encodings.
func BenchmarkSize(b *testing.B) {
	b.Run("endpoints=10000/update-one-address", func(b *testing.B) {
		e := realisticEndpoints(10000, true)
		subsets := []SubsetSize{NewSubsetSize(&e.Subsets[0])}
		addrs := e.Subsets[0].Addresses
		replacement := EndpointAddress{IP: "10.1.99.99", NodeName: Ptr("ip-10-0-9-99.ec2.internal"),
			TargetRef: &ObjectReference{Kind: "Pod", Namespace: "default", Name: "web-7d4b9c8f6d-zzzzz", UID: realisticUID(99999)}}
		b.ReportAllocs()
		var sink int64
		for i := 0; b.Loop(); i++ {
			old := &addrs[i%len(addrs)]
			subsets[0].RemoveAddress(old, false)
			subsets[0].AddAddress(&replacement, false)
			sink += EndpointsSizeFrom(&e.ObjectMeta, subsets, Protobuf) + EndpointsSizeFrom(&e.ObjectMeta, subsets, JSON)
			subsets[0].RemoveAddress(&replacement, false)
			subsets[0].AddAddress(old, false)
		}
		_ = sink
	})
	b.Run("endpoints=10000/from-scratch", func(b *testing.B) {
		e := realisticEndpoints(10000, true)
		b.ReportAllocs()
		for b.Loop() {
			EndpointsSize(e, Protobuf)
		}
	})
	b.Run("slice=1000/update-one-endpoint", func(b *testing.B) {
		s := realisticSlice(1000, false, true)
		z := NewSliceSizer(s.Endpoints)
		updated := realisticEndpoint(5000, true)
		b.ReportAllocs()
		var sink int64
		for i := 0; b.Loop(); i++ {
			old := &s.Endpoints[i%len(s.Endpoints)]
			z.Replace(old, &updated)
			sink += z.Size(s, Protobuf) + z.Size(s, JSON)
			z.Replace(&updated, old)
		}
		_ = sink
	})
	b.Run("slice=100/from-scratch/protobuf", func(b *testing.B) {
		s := realisticSlice(100, false, true)
		b.ReportAllocs()
		for b.Loop() {
			EndpointSliceSize(s, Protobuf)
		}
	})
	b.Run("slice=100/from-scratch/json", func(b *testing.B) {
		s := realisticSlice(100, false, true)
		b.ReportAllocs()
		for b.Loop() {
			EndpointSliceSize(s, JSON)
		}
	})
	// For comparison: what the generated code costs to size and to marshal the same slice.
	b.Run("slice=100/k8s-generated-Size", func(b *testing.B) {
		k := k8sSlice(realisticSlice(100, false, true))
		b.ReportAllocs()
		for b.Loop() {
			_ = k.Size()
		}
	})
	b.Run("slice=100/k8s-serializer-Encode/protobuf", func(b *testing.B) {
		k := k8sSlice(realisticSlice(100, false, true))
		o := newWireOracle(b, Protobuf)
		b.ReportAllocs()
		for b.Loop() {
			o.objectBytes(b, k, discoveryv1.SchemeGroupVersion)
		}
	})
}
