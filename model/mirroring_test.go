package model

import (
	"fmt"
	"maps"
	"testing"

	netutils "k8s.io/utils/net"
)

func testMirrorEndpoints(ready, notReady int) *Endpoints {
	ep := &Endpoints{ObjectMeta: ObjectMeta{
		Name: "ext", Namespace: "ns", UID: "ep-uid",
		Labels:      StringMapOf(map[string]string{"team": "a"}),
		Annotations: StringMapOf(map[string]string{"note": "x", AnnotationTriggerTime: "2024-01-01T00:00:00Z", lastAppliedConfigAnnotation: "{}"}),
	}}
	s := EndpointSubset{Ports: []EndpointsPort{{Name: "http", Port: 80, Protocol: ProtocolTCP}}}
	for i := range ready {
		s.Addresses = append(s.Addresses, EndpointAddress{IP: fmt.Sprintf("10.1.%d.%d", i/256, i%256), NodeName: Ptr("n1")})
	}
	for i := range notReady {
		s.NotReadyAddresses = append(s.NotReadyAddresses, EndpointAddress{IP: fmt.Sprintf("10.2.%d.%d", i/256, i%256), Hostname: "h"})
	}
	ep.Subsets = []EndpointSubset{s}
	return ep
}

func testMirrorService() *Service { return &Service{Namespace: "ns", Name: "ext"} }

// TestShouldMirror covers each skip condition of UPSTREAM.md §4.
func TestShouldMirror(t *testing.T) {
	selector := testMirrorService()
	selector.Selector = Selector{{Key: "app", Value: "x"}}
	skip := testMirrorEndpoints(1, 0)
	skip.Labels = StringMapOf(map[string]string{LabelSkipMirror: "true"})
	skipFalse := testMirrorEndpoints(1, 0)
	skipFalse.Labels = StringMapOf(map[string]string{LabelSkipMirror: "false"})
	leader := testMirrorEndpoints(1, 0)
	leader.Annotations = StringMapOf(map[string]string{AnnotationLeaderElection: "{}"})
	tests := []struct {
		name string
		ep   *Endpoints
		svc  *Service
		want bool
	}{
		{"mirrored", testMirrorEndpoints(1, 0), testMirrorService(), true},
		{"endpoints gone", nil, testMirrorService(), false},
		{"skip-mirror label", skip, testMirrorService(), false},
		{"skip-mirror=false is mirrored", skipFalse, testMirrorService(), true},
		{"leader election annotation", leader, testMirrorService(), false},
		{"service missing", testMirrorEndpoints(1, 0), nil, false},
		{"service has a selector", testMirrorEndpoints(1, 0), selector, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ShouldMirror(tc.ep, tc.svc); got != tc.want {
				t.Fatalf("ShouldMirror = %v, want %v", got, tc.want)
			}
			existing := []*EndpointSlice{{ObjectMeta: ObjectMeta{Name: "ext-abc"}, AddressType: AddressTypeIPv4}}
			p := MirrorEndpoints(tc.ep, tc.svc, existing, MirroringMaxEndpointsPerSubset)
			if !tc.want && (len(p.ToDelete) != 1 || len(p.ToCreate)+len(p.ToUpdate) != 0) {
				t.Fatalf("not mirrored: plan %+v, want the existing slice deleted", p)
			}
		})
	}
}

// TestMirrorEndpoints covers the reconcile rules of UPSTREAM.md §4.
func TestMirrorEndpoints(t *testing.T) {
	t.Run("slice shape", func(t *testing.T) {
		ep := testMirrorEndpoints(2, 1)
		p := MirrorEndpoints(ep, testMirrorService(), nil, MirroringMaxEndpointsPerSubset)
		if len(p.ToCreate) != 1 || len(p.ToUpdate)+len(p.ToDelete) != 0 {
			t.Fatalf("plan %+v", p)
		}
		s := p.ToCreate[0]
		if s.AddressType != AddressTypeIPv4 || s.GenerateName != "ext-" || len(s.Endpoints) != 3 {
			t.Fatalf("slice %+v", s)
		}
		wantLabels := map[string]string{"team": "a", LabelServiceName: "ext", LabelManagedBy: MirroringControllerName}
		if !maps.Equal(s.Labels.Map(), wantLabels) {
			t.Fatalf("labels %v", s.Labels)
		}
		if !maps.Equal(s.Annotations.Map(), map[string]string{"note": "x"}) {
			t.Fatalf("annotations %v", s.Annotations)
		}
		or := s.OwnerReferences
		if len(or) != 1 || or[0].Kind != "Endpoints" || or[0].APIVersion != "v1" || or[0].UID != "ep-uid" || !*or[0].Controller || !*or[0].BlockOwnerDeletion {
			t.Fatalf("ownerReferences %+v", or)
		}
		ready, notReady := 0, 0
		for _, e := range s.Endpoints {
			if e.Conditions.Serving.IsSet() || e.Conditions.Terminating.IsSet() || e.Zone != nil {
				t.Fatalf("endpoint %+v has more than the ready condition", e)
			}
			if e.Conditions.Ready == ConditionTrue {
				ready++
				if e.NodeName == nil || *e.NodeName != "n1" {
					t.Fatalf("nodeName not mirrored: %+v", e)
				}
			} else {
				notReady++
				if e.Hostname == nil || *e.Hostname != "h" {
					t.Fatalf("hostname not mirrored: %+v", e)
				}
			}
		}
		if ready != 2 || notReady != 1 {
			t.Fatalf("ready %d notReady %d", ready, notReady)
		}
		if *s.Ports[0].Name != "http" || *s.Ports[0].Port != 80 {
			t.Fatalf("ports %+v", s.Ports)
		}
		// Re-syncing against the created slice writes nothing.
		s.Name = "ext-abcde"
		if p := MirrorEndpoints(ep, testMirrorService(), []*EndpointSlice{s}, MirroringMaxEndpointsPerSubset); len(p.ToCreate)+len(p.ToUpdate)+len(p.ToDelete) != 0 {
			t.Fatalf("resync: %+v", p)
		}
		// A label change on the Endpoints rewrites the slice in place.
		ep2 := testMirrorEndpoints(2, 1)
		ep2.Labels = StringMapOf(map[string]string{"team": "b"})
		if p := MirrorEndpoints(ep2, testMirrorService(), []*EndpointSlice{s}, MirroringMaxEndpointsPerSubset); len(p.ToUpdate) != 1 || p.ToUpdate[0].Name != "ext-abcde" {
			t.Fatalf("label change: %+v", p)
		}
		// A changed trigger-time annotation alone does not.
		ep3 := testMirrorEndpoints(2, 1)
		ep3.Annotations.Set(AnnotationTriggerTime, "2025-01-01T00:00:00Z")
		if p := MirrorEndpoints(ep3, testMirrorService(), []*EndpointSlice{s}, MirroringMaxEndpointsPerSubset); len(p.ToUpdate) != 0 {
			t.Fatalf("trigger-time change: %+v", p)
		}
	})
	t.Run("1000 per subset cap, ready first", func(t *testing.T) {
		ep := testMirrorEndpoints(900, 300)
		p := MirrorEndpoints(ep, testMirrorService(), nil, MirroringMaxEndpointsPerSubset)
		if len(p.ToCreate) != 1 || len(p.ToCreate[0].Endpoints) != 1000 || p.AddressesSkipped != 200 {
			t.Fatalf("created %d slices, skipped %d", len(p.ToCreate), p.AddressesSkipped)
		}
		ready := 0
		for _, e := range p.ToCreate[0].Endpoints {
			if e.Conditions.Ready == ConditionTrue {
				ready++
			}
		}
		if ready != 900 {
			t.Fatalf("ready kept %d, want 900", ready)
		}
	})
	t.Run("IPv4/IPv6 split and invalid IPs", func(t *testing.T) {
		ep := testMirrorEndpoints(0, 0)
		ep.Subsets[0].Addresses = []EndpointAddress{{IP: "10.0.0.1"}, {IP: "fd00::1"}, {IP: "not-an-ip"}, {IP: "010.000.000.002"}}
		p := MirrorEndpoints(ep, testMirrorService(), nil, MirroringMaxEndpointsPerSubset)
		if len(p.ToCreate) != 2 || p.InvalidAddresses != 1 || p.AddressesSkipped != 1 {
			t.Fatalf("plan %+v", p)
		}
		byType := map[AddressType][]string{}
		for _, s := range p.ToCreate {
			for _, e := range s.Endpoints {
				byType[s.AddressType] = append(byType[s.AddressType], e.Addresses[0])
			}
		}
		// Repacked order is byte-wise by the raw IP: "010.000.000.002" sorts before "10.0.0.1".
		if fmt.Sprint(byType[AddressTypeIPv4]) != "[10.0.0.2 10.0.0.1]" || fmt.Sprint(byType[AddressTypeIPv6]) != "[fd00::1]" {
			t.Fatalf("by type %v", byType)
		}
	})
	t.Run("first existing slice kept, duplicates deleted, creates recycled", func(t *testing.T) {
		ep := testMirrorEndpoints(3, 0)
		first := MirrorEndpoints(ep, testMirrorService(), nil, MirroringMaxEndpointsPerSubset).ToCreate[0]
		first.Name = "ext-1"
		dup := *first
		dup.Name = "ext-2"
		p := MirrorEndpoints(ep, testMirrorService(), []*EndpointSlice{first, &dup}, MirroringMaxEndpointsPerSubset)
		if len(p.ToDelete) != 1 || p.ToDelete[0].Name != "ext-2" || len(p.ToUpdate)+len(p.ToCreate) != 0 {
			t.Fatalf("duplicate: %+v", p)
		}
		// Port change: the new key's create is recycled into the old slice's delete.
		ep.Subsets[0].Ports[0].Port = 81
		p = MirrorEndpoints(ep, testMirrorService(), []*EndpointSlice{first}, MirroringMaxEndpointsPerSubset)
		if len(p.ToUpdate) != 1 || p.ToUpdate[0].Name != "ext-1" || len(p.ToCreate)+len(p.ToDelete) != 0 {
			t.Fatalf("port change: %+v", p)
		}
		// All addresses gone: the slice is deleted (no placeholder for mirrored slices).
		ep.Subsets = nil
		p = MirrorEndpoints(ep, testMirrorService(), []*EndpointSlice{first}, MirroringMaxEndpointsPerSubset)
		if len(p.ToDelete) != 1 || len(p.ToUpdate)+len(p.ToCreate) != 0 {
			t.Fatalf("emptied: %+v", p)
		}
	})
}

// FuzzParseIPSloppy checks the sloppy IP parser against upstream's, k8s.io/utils/net
// ParseIPSloppy: the same address or none, for any string.
func FuzzParseIPSloppy(f *testing.F) {
	for _, s := range []string{"10.0.0.1", "010.0.0.1", "fd00::1", "::ffff:1.2.3.4", "::ffff:010.2.3.4", "1.2.3", "1.2.3.4.5", "256.0.0.1", "", "0000000001.2.3.4", "1:2:3:4:5:6:07.8.9.10",
		"fd00::00001", "00fd00::1", "fd00::1:00000", "::ffff:00a00:1", "fd00::10000", "::0ffff:10.0.0.2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, want := parseIPSloppy(s), netutils.ParseIPSloppy(s)
		if !got.Equal(want) || (got == nil) != (want == nil) {
			t.Fatalf("%q: ours %v, k8s.io/utils/net %v", s, got, want)
		}
	})
}

// FuzzCanonicalPodIP checks that canonicalPodIP, with its shortcuts, is upstream's
// ParseIPSloppy(s).String() and utilnet.IsIPv6 of the parsed IP.
func FuzzCanonicalPodIP(f *testing.F) {
	for _, s := range []string{"10.0.0.1", "010.0.0.1", "fd00::a", "FD00::A", "fd00:0:0:0:0:0:0:a", "::ffff:10.0.0.1", "::1.2.3.4", "fe80::1%eth0", "", "x", "2001:db8::1:0:0:1", "2001:db8:0:0:1:0:0:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ip, isIPv6 := canonicalPodIP(s)
		parsed := parseIPSloppy(s)
		if want, wantV6 := parsed.String(), parsed != nil && parsed.To4() == nil; ip != want || isIPv6 != wantV6 {
			t.Fatalf("%q: %q IPv6 %v, want %q IPv6 %v", s, ip, isIPv6, want, wantV6)
		}
	})
}

// TestParseIPSloppyUpstream checks the parser on cases whose reading k8s.io/utils/net's fork of
// Go 1.16's ParseIP fixes: leading zeros of any length in IPv4 parts, alone or ending IPv6.
func TestParseIPSloppyUpstream(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"10.0.0.1", "10.0.0.1"},
		{"010.000.001.007", "10.0.1.7"},
		{"0010.0.0.1", "10.0.0.1"},
		{"0000000000000010.0.0.1", "10.0.0.1"},
		{"::ffff:10.0.1.7", "10.0.1.7"},
		{"::ffff:010.0.1.7", "10.0.1.7"},
		{"fd00::010.0.0.1", "fd00::a00:1"},
		{"FD00::A", "fd00::a"},
		{"fd00:0:0:0:0:0:0:a", "fd00::a"},
		{"256.0.0.1", "<nil>"},
		{"1.2.3", "<nil>"},
		{"1.2.3.4.5", "<nil>"},
		{"1.2.3.04a", "<nil>"},
		{"fe80::1%eth0", "<nil>"},
		{"", "<nil>"},
		{"fd00::00001", "fd00::1"},
		{"00fd00::1", "fd00::1"},
		{"fd00::1:00000", "fd00::1:0"},
		{"::ffff:00a00:1", "10.0.0.1"},
		{"fd00::10000", "<nil>"},
	} {
		if got := parseIPSloppy(tc.in).String(); got != tc.want {
			t.Errorf("parseIPSloppy(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
