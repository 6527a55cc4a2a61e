package model

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The cases here are what the real EndpointSliceMirroring controller of Kubernetes v1.37.2
// (pkg/controller/endpointslicemirroring, driven with a fake clientset; its map orders are
// random, so it ran each case many times) wrote for these Endpoints objects in a differential
// run against this model. `make upstream-mirroring` runs such a differential test on random
// objects (model/testdata/upstream/mirroring_diff_test.go.txt).

// mirrorCase is a selectorless Service's user-written Endpoints ns/svc (UID ep-uid).
func mirrorCase(subsets ...EndpointSubset) *Endpoints {
	return &Endpoints{ObjectMeta: ObjectMeta{Name: "svc", Namespace: "ns", UID: "ep-uid"}, Subsets: subsets}
}

// mirrorPlanBrief renders a plan: per write, verb, address type, ports in order, and the
// endpoints (address, ready, targetRef UID), sorted.
func mirrorPlanBrief(p MirroringPlan) string {
	var out []string
	for _, w := range []struct {
		verb   string
		slices []*EndpointSlice
	}{{"create", p.ToCreate}, {"update", p.ToUpdate}, {"delete", p.ToDelete}} {
		for _, s := range w.slices {
			var ports, eps []string
			for _, pt := range s.Ports {
				app := ""
				if pt.AppProtocol != nil {
					app = "/" + *pt.AppProtocol
				}
				ports = append(ports, fmt.Sprintf("%s:%d/%s%s", *pt.Name, *pt.Port, *pt.Protocol, app))
			}
			for _, e := range s.Endpoints {
				ref := ""
				if e.TargetRef != nil {
					ref = " ref=" + e.TargetRef.UID
				}
				eps = append(eps, fmt.Sprintf("%s ready=%v%s", strings.Join(e.Addresses, ","), e.Conditions.Ready == ConditionTrue, ref))
			}
			slices.Sort(eps)
			owner := ""
			if len(s.OwnerReferences) > 0 {
				owner = " owner=" + s.OwnerReferences[0].UID
			}
			out = append(out, fmt.Sprintf("%s %s [%s] {%s}%s", w.verb, s.AddressType, strings.Join(ports, " "), strings.Join(eps, "; "), owner))
		}
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}

func TestMirroringAsUpstream(t *testing.T) {
	web := func() EndpointsPort {
		return EndpointsPort{Name: "web", Port: 443, Protocol: ProtocolTCP, AppProtocol: Ptr("https")}
	}
	http9090 := func() EndpointsPort {
		return EndpointsPort{Name: "http", Port: 9090, Protocol: ProtocolTCP, AppProtocol: Ptr("https")}
	}
	oldOwner := &EndpointSlice{
		ObjectMeta: ObjectMeta{
			Name: "svc-abc", Namespace: "ns", UID: "s1", ResourceVersion: "5", Generation: 1,
			Labels: StringMapOf(map[string]string{LabelManagedBy: MirroringControllerName, LabelServiceName: "svc"}),
			OwnerReferences: []OwnerReference{{APIVersion: "v1", Kind: "Endpoints", Name: "svc", UID: "ep-uid-old",
				Controller: Ptr(true), BlockOwnerDeletion: Ptr(true)}},
		},
		AddressType: AddressTypeIPv4,
		Endpoints:   []Endpoint{{Addresses: []string{"10.0.0.1"}, Conditions: EndpointConditions{Ready: ConditionTrue}}},
		Ports:       []EndpointPort{{Name: Ptr("http"), Protocol: Ptr(ProtocolTCP), Port: Ptr(int32(80))}},
	}
	for _, tc := range []struct {
		name     string
		ep       *Endpoints
		existing []*EndpointSlice
		want     string
	}{{
		// Ports are written sorted by the hash of their dump, as NewPortMapKey sorts them.
		name: "port order",
		ep: mirrorCase(EndpointSubset{Addresses: []EndpointAddress{{IP: "10.0.0.1"}}, Ports: []EndpointsPort{
			{Name: "dns", Port: 53, Protocol: ProtocolTCP}, {Name: "z", Port: 53, Protocol: ProtocolUDP}, {Name: "https", Port: 443, Protocol: ProtocolTCP}}}),
		want: "create IPv4 [https:443/TCP dns:53/TCP z:53/UDP] {10.0.0.1 ready=true} owner=ep-uid",
	}, {
		// The slice is as desired but names an Endpoints of another UID: rewritten.
		name: "owner UID changed",
		ep: mirrorCase(EndpointSubset{Addresses: []EndpointAddress{{IP: "10.0.0.1"}},
			Ports: []EndpointsPort{{Name: "http", Port: 80, Protocol: ProtocolTCP}}}),
		existing: []*EndpointSlice{oldOwner},
		want:     "update IPv4 [http:80/TCP] {10.0.0.1 ready=true} owner=ep-uid",
	}, {
		// An IPv4-mapped address with leading zeros is IPv4 (ParseIPSloppy).
		name: "mapped address with leading zeros",
		ep: mirrorCase(EndpointSubset{Addresses: []EndpointAddress{{IP: "::ffff:010.0.0.1"}},
			Ports: []EndpointsPort{{Name: "http", Port: 80, Protocol: ProtocolTCP}}}),
		want: "create IPv4 [http:80/TCP] {10.0.0.1 ready=true} owner=ep-uid",
	}, {
		// Equal ports with an appProtocol in two subsets are two ports (pointers differ).
		name: "appProtocol port in two subsets",
		ep: mirrorCase(
			EndpointSubset{Addresses: []EndpointAddress{{IP: "10.0.0.1"}}, Ports: []EndpointsPort{web()}},
			EndpointSubset{Addresses: []EndpointAddress{{IP: "10.0.0.2"}}, Ports: []EndpointsPort{web(), {Name: "dns", Port: 53, Protocol: ProtocolUDP}}}),
		want: "create IPv4 [dns:53/UDP web:443/TCP/https] {10.0.0.2 ready=true} owner=ep-uid\n" +
			"create IPv4 [web:443/TCP/https] {10.0.0.1 ready=true} owner=ep-uid",
	}, {
		// The same address ready under one and not ready under the other such port.
		name: "appProtocol port ready and not ready",
		ep: mirrorCase(
			EndpointSubset{Addresses: []EndpointAddress{{IP: "10.0.0.2"}}, Ports: []EndpointsPort{http9090()}},
			EndpointSubset{NotReadyAddresses: []EndpointAddress{{IP: "10.0.0.2"}}, Ports: []EndpointsPort{http9090()}}),
		want: "create IPv4 [http:9090/TCP/https] {10.0.0.2 ready=true} owner=ep-uid",
	}, {
		// A targetRef without namespace and name is the same endpoint as none: the later wins.
		name: "targetRef without name",
		ep: mirrorCase(EndpointSubset{
			Addresses: []EndpointAddress{{IP: "10.0.0.1"}, {IP: "10.0.0.1", TargetRef: &ObjectReference{Kind: "Pod", UID: "u1"}}},
			Ports:     []EndpointsPort{{Name: "http", Port: 80, Protocol: ProtocolTCP}}}),
		want: "create IPv4 [http:80/TCP] {10.0.0.1 ready=true ref=u1} owner=ep-uid",
	}} {
		p := MirrorEndpoints(tc.ep, &Service{Namespace: "ns", Name: "svc"}, tc.existing, MirroringMaxEndpointsPerSubset)
		if got := mirrorPlanBrief(p); got != tc.want {
			t.Errorf("%s:\n got  %s\n want %s", tc.name, strings.ReplaceAll(got, "\n", "\n      "), strings.ReplaceAll(tc.want, "\n", "\n      "))
		}
	}
}

// TestSlicePrefixAsUpstream: the generateName keeps its dash for every valid name, 253
// characters included (upstream masks the trailing dash before its DNS-subdomain check).
func TestSlicePrefixAsUpstream(t *testing.T) {
	long := strings.Repeat("b", 253)
	for _, tc := range []struct{ name, want string }{
		{"svc", "svc-"},
		{long, long + "-"},
		{"a.b", "a.b-"},
		{"Upper", "Upper"}, // not a DNS subdomain: upstream keeps the name alone
		{"", ""},
		{"a", "a-"},
		{"a.", "a.-"}, // masked, "a.-" is "aa": valid
		{"-a", "-a"},
		{"a..b", "a..b"},
		{"a.-b", "a.-b"},
		{strings.Repeat("c", 254), strings.Repeat("c", 254)},
	} {
		if got := endpointSlicePrefix(tc.name); got != tc.want {
			t.Errorf("endpointSlicePrefix(%.20q…) = %.20q…, want %.20q…", tc.name, got, tc.want)
		}
		if got := mirrorSlicePrefix(tc.name); got != tc.want {
			t.Errorf("mirrorSlicePrefix(%.20q…) = %.20q…, want %.20q…", tc.name, got, tc.want)
		}
	}
}
