package model

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// The gzip ratios of a relist (RelistGzipRatio) come from this file: the objects a
// kube-proxy lists in a cluster shaped like the shipped scenarios, encoded by the real
// apimachinery v0.37.2 serializers and compressed at gzip level 1 as the API server does.
//
// The random parts of real objects are random here too (UIDs, the pod-template-hash, the
// five-character name suffixes, resourceVersions, the nodes pods land on): they are what
// gzip cannot shorten, and a deterministic sequence would compress far better than a
// cluster's objects do.

// compressionCluster returns the EndpointSlices and the legacy Endpoints of services
// Services of the given sizes (pods each), over nodes nodes in three zones, as the
// controllers write them (with their managedFields entries).
func compressionCluster(rng *rand.Rand, sizes []int, nodes int) ([]*EndpointSlice, []*Endpoints) {
	const alnum = "bcdfghjklmnpqrstvwxz2456789"
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alnum[rng.IntN(len(alnum))]
		}
		return string(b)
	}
	uid := func() string {
		const hex = "0123456789abcdef"
		b := make([]byte, 36)
		for i := range b {
			b[i] = hex[rng.IntN(16)]
		}
		b[8], b[13], b[18], b[23] = '-', '-', '-', '-'
		b[14] = '4'
		return string(b)
	}
	rv := func() string { return strconv.Itoa(100_000_000 + rng.IntN(900_000_000)) }
	at := func() Timestamp { return realisticTime + Timestamp(rng.IntN(86_400))*1e9 }
	zones := []string{"zone-a", "zone-b", "zone-c"}
	hosts := make([]int, nodes)
	var slices []*EndpointSlice
	var endpoints []*Endpoints
	for i, n := range sizes {
		svc := fmt.Sprintf("svc-%d", i)
		svcUID := uid()
		hash := word(10)
		port := []EndpointPort{{Name: Ptr("http"), Protocol: Ptr(ProtocolTCP), Port: Ptr(int32(8080))}}
		ep := &Endpoints{ObjectMeta: ObjectMeta{
			Name: svc, Namespace: "default", UID: uid(), ResourceVersion: rv(), CreationTimestamp: at(),
			Labels:      StringMapOf(map[string]string{"app": svc}),
			Annotations: StringMapOf(map[string]string{AnnotationTriggerTime: at().RFC3339Nano()}),
		}}
		sub := EndpointSubset{Ports: []EndpointsPort{{Name: "http", Port: 8080, Protocol: ProtocolTCP}}}
		var slice *EndpointSlice
		for j := range n {
			if j%100 == 0 {
				slice = &EndpointSlice{
					ObjectMeta: ObjectMeta{
						Name: svc + "-" + word(5), GenerateName: svc + "-", Namespace: "default", UID: uid(),
						ResourceVersion: rv(), Generation: 1, CreationTimestamp: at(),
						Labels:      StringMapOf(map[string]string{LabelServiceName: svc, LabelManagedBy: ControllerName}),
						Annotations: StringMapOf(map[string]string{AnnotationTriggerTime: at().RFC3339Nano()}),
						OwnerReferences: []OwnerReference{{
							APIVersion: "v1", Kind: "Service", Name: svc, UID: svcUID,
							Controller: Ptr(true), BlockOwnerDeletion: Ptr(true),
						}},
					},
					AddressType: AddressTypeIPv4,
					Ports:       port,
				}
				slices = append(slices, slice)
			}
			node := rng.IntN(nodes)
			ip := fmt.Sprintf("10.%d.%d.%d", 64+node/256, node%256, hosts[node]%250+2)
			hosts[node]++
			nodeName := fmt.Sprintf("node-%d", node)
			ref := &ObjectReference{Kind: "Pod", Namespace: "default", Name: svc + "-" + hash + "-" + word(5), UID: uid()}
			slice.Endpoints = append(slice.Endpoints, Endpoint{
				Addresses:  []string{ip},
				Conditions: EndpointConditions{Ready: ConditionTrue, Serving: ConditionTrue, Terminating: ConditionFalse},
				TargetRef:  ref, NodeName: Ptr(nodeName), Zone: Ptr(zones[node%3]),
			})
			sub.Addresses = append(sub.Addresses, EndpointAddress{IP: ip, NodeName: Ptr(nodeName), TargetRef: ref})
		}
		if n > 0 {
			ep.Subsets = []EndpointSubset{sub}
		}
		ep.ManagedFields = []ManagedFieldsEntry{EndpointsManagedFields(ep, ep.CreationTimestamp)}
		endpoints = append(endpoints, ep)
	}
	for _, s := range slices {
		s.ManagedFields = []ManagedFieldsEntry{EndpointSliceManagedFields(s, s.CreationTimestamp)}
	}
	return slices, endpoints
}

// gzipped is the size of b compressed at gzip level 1 (the API server's level), as one
// stream.
func gzipped(t testing.TB, b []byte) int { return gzipSize(t, b, false) }

// gzipMember is the size of b as one member of a watch response after a watch list: written,
// flushed and closed, as perFlushGzipWriter.Flush does at level 1.
func gzipMember(t testing.TB, b []byte) int { return gzipSize(t, b, true) }

// gzipSize is the size of b gzipped at level 1 as one member, flushed before it is closed
// when flush is set.
func gzipSize(t testing.TB, b []byte, flush bool) int {
	t.Helper()
	var out bytes.Buffer
	w, err := gzip.NewWriterLevel(&out, gzip.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if flush {
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Len()
}

func TestRelistGzipRatios(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	// A tenth of many-services: most Services small, a few large.
	var sizes []int
	for _, g := range []struct{ count, pods int }{{600, 2}, {350, 8}, {50, 100}, {1, 1000}} {
		for range g.count {
			sizes = append(sizes, g.pods)
		}
	}
	slices, endpoints := compressionCluster(rng, sizes, 5000)
	proto := newWireOracle(t, Protobuf)

	var stream bytes.Buffer
	perEvent := 0
	for _, s := range slices {
		ev := proto.watchEventBytes(t, k8sSlice(s), discoveryGV, EventAdded)
		stream.Write(ev)
		perEvent += gzipped(t, ev)
	}
	var list corev1.EndpointsList
	for _, e := range endpoints {
		list.Items = append(list.Items, *k8sEndpoints(e))
	}
	listBytes := proto.objectBytes(t, &list, corev1.SchemeGroupVersion)

	watchList := float64(gzipped(t, stream.Bytes())) / float64(stream.Len())
	flushEach := float64(perEvent) / float64(stream.Len())
	endpointsList := float64(gzipped(t, listBytes)) / float64(len(listBytes))
	t.Logf("EndpointSlices watch list %d B: gzip %.3f (a member per event %.3f); Endpoints LIST %d B: gzip %.3f",
		stream.Len(), watchList, flushEach, len(listBytes), endpointsList)
	// The content is seeded, so the measurement repeats; the margin covers changes of Go's
	// compress/flate between releases.
	const margin = 0.02
	for _, c := range []struct {
		name              string
		shipped, measured float64
	}{
		{"RelistGzipRatioEndpointSlices", RelistGzipRatioEndpointSlices, watchList},
		{"RelistGzipRatioEndpoints", RelistGzipRatioEndpoints, endpointsList},
	} {
		if math.Abs(c.shipped-c.measured) > margin {
			t.Errorf("%s = %.3f, measured %.3f", c.name, c.shipped, c.measured)
		}
	}
	// A stream that started a gzip member at every event would compress far less: the
	// ratio stands for one stream only.
	if flushEach < watchList+0.1 {
		t.Errorf("a member per event %.3f, one stream %.3f: the flushing no longer matters", flushEach, watchList)
	}
}

// slicesOfSize returns the EndpointSlices of count Services of n pods each (n ≤ 100: one
// slice a Service), over 5,000 nodes (compressionCluster).
func slicesOfSize(rng *rand.Rand, n, count int) []*EndpointSlice {
	sizes := make([]int, count)
	for i := range sizes {
		sizes[i] = n
	}
	slices, _ := compressionCluster(rng, sizes, 5000)
	return slices
}

// TestWatchGzipMember checks WatchGzipMemberBytes against EndpointSlice watch events of 1
// to 100 endpoints, each encoded by the real serializer and gzipped as a member of its own.
func TestWatchGzipMember(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	proto := newWireOracle(t, Protobuf)
	for _, n := range []int{1, 2, 5, 10, 20, 50, 100} {
		slices := slicesOfSize(rng, n, 30)
		for _, typ := range []EventType{EventModified, EventDeleted} {
			var events, members, modelled int64
			for _, s := range slices {
				ev := proto.watchEventBytes(t, k8sSlice(s), discoveryGV, typ)
				events += int64(len(ev))
				members += int64(gzipMember(t, ev))
				modelled += WatchGzipMemberBytes(int64(len(ev)))
			}
			k := int64(len(slices))
			t.Logf("%d endpoints, %s: event %d B, member %d B (modelled %d B)", n, typ, events/k, members/k, modelled/k)
			if d := math.Abs(float64(modelled-members)) / float64(members); d > 0.03 {
				t.Errorf("%d endpoints, %s: modelled members %d B, measured %d B (%.1f%% off)", n, typ, modelled/k, members/k, 100*d)
			}
		}
	}
	// The model stays within gzip's own bounds for any size.
	for _, b := range []int64{1, 10, 100, 400, 1000, 1 << 20} {
		if m := WatchGzipMemberBytes(b); m <= 0 || m > b+25 {
			t.Errorf("WatchGzipMemberBytes(%d) = %d", b, m)
		}
	}
}

// TestWatchGzipShared checks WatchGzipSharedBytes against EndpointSlice watch events of 1 to
// 100 endpoints written into one member eight at a time: what the second to eighth add.
func TestWatchGzipShared(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	proto := newWireOracle(t, Protobuf)
	for _, n := range []int{1, 2, 5, 10, 20, 50, 100} {
		slices := slicesOfSize(rng, n, 40)
		var events [][]byte
		for _, s := range slices {
			events = append(events, proto.watchEventBytes(t, k8sSlice(s), discoveryGV, EventModified))
		}
		var added, modelled int64
		for i := 0; i+8 <= len(events); i += 8 {
			var member []byte
			for _, ev := range events[i : i+8] {
				member = append(member, ev...)
			}
			added += int64(gzipMember(t, member) - gzipMember(t, events[i]))
			for _, ev := range events[i+1 : i+8] {
				modelled += WatchGzipSharedBytes(int64(len(ev)))
			}
		}
		t.Logf("%d endpoints: the 2nd to 8th events of members add %d B, modelled %d B", n, added, modelled)
		if d := math.Abs(float64(modelled-added)) / float64(added); d > 0.04 {
			t.Errorf("%d endpoints: modelled %d B, measured %d B (%.1f%% off)", n, modelled, added, 100*d)
		}
		// An event in a member is cheaper than one that begins its own.
		if ev := int64(len(events[0])); WatchGzipSharedBytes(ev) >= WatchGzipMemberBytes(ev) {
			t.Errorf("%d endpoints: a shared event %d B, its own member %d B", n, WatchGzipSharedBytes(ev), WatchGzipMemberBytes(ev))
		}
	}
}
