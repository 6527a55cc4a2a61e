package model

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/dump"
)

// toCoreAddress converts a model address to the real core/v1 type (test-only oracle input).
func toCoreAddress(a EndpointAddress) corev1.EndpointAddress {
	out := corev1.EndpointAddress{IP: a.IP, Hostname: a.Hostname}
	if a.NodeName != nil {
		out.NodeName = Ptr(*a.NodeName)
	}
	if r := a.TargetRef; r != nil {
		out.TargetRef = &corev1.ObjectReference{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name, UID: types.UID(r.UID)}
	}
	return out
}

func toCorePort(p EndpointsPort) corev1.EndpointPort {
	out := corev1.EndpointPort{Name: p.Name, Port: p.Port, Protocol: corev1.Protocol(p.Protocol)}
	if p.AppProtocol != nil {
		out.AppProtocol = Ptr(*p.AppProtocol)
	}
	return out
}

func toCoreSubset(s EndpointSubset) corev1.EndpointSubset {
	var out corev1.EndpointSubset
	if s.Addresses != nil {
		out.Addresses = []corev1.EndpointAddress{}
		for _, a := range s.Addresses {
			out.Addresses = append(out.Addresses, toCoreAddress(a))
		}
	}
	if s.NotReadyAddresses != nil {
		out.NotReadyAddresses = []corev1.EndpointAddress{}
		for _, a := range s.NotReadyAddresses {
			out.NotReadyAddresses = append(out.NotReadyAddresses, toCoreAddress(a))
		}
	}
	if s.Ports != nil {
		out.Ports = []corev1.EndpointPort{}
		for _, p := range s.Ports {
			out.Ports = append(out.Ports, toCorePort(p))
		}
	}
	return out
}

func randomTestAddress(r *rand.Rand) EndpointAddress {
	a := EndpointAddress{IP: fmt.Sprintf("10.%d.%d.%d", r.IntN(3), r.IntN(3), r.IntN(12))}
	if r.IntN(4) > 0 {
		a.NodeName = Ptr(fmt.Sprintf("node-%d", r.IntN(3)))
	}
	if r.IntN(5) > 0 {
		a.TargetRef = &ObjectReference{Kind: "Pod", Namespace: "ns", Name: "pod-" + a.IP, UID: fmt.Sprintf("uid-%d", r.IntN(3))}
	}
	if r.IntN(4) == 0 {
		a.Hostname = "h\"o st\n"
	}
	return a
}

func randomTestPort(r *rand.Rand) EndpointsPort {
	p := EndpointsPort{Name: []string{"", "http", "metrics"}[r.IntN(3)], Port: int32(8080 + r.IntN(3)), Protocol: []Protocol{ProtocolTCP, ProtocolUDP}[r.IntN(2)]}
	switch r.IntN(6) {
	case 0: // a pointer of its own, as in a decoded object: never merged with another port
		p.AppProtocol = Ptr("kubernetes.io/h2c")
	case 1: // one pointer for all, as the Endpoints controller's ports share the Service's
		p.AppProtocol = sharedTestAppProtocol
	}
	return p
}

var sharedTestAppProtocol = Ptr("kubernetes.io/h2c")

func randomTestSubsets(r *rand.Rand) []EndpointSubset {
	var out []EndpointSubset
	for range r.IntN(4) {
		var s EndpointSubset
		for range r.IntN(5) {
			s.Addresses = append(s.Addresses, randomTestAddress(r))
		}
		for range r.IntN(3) {
			s.NotReadyAddresses = append(s.NotReadyAddresses, randomTestAddress(r))
		}
		if r.IntN(5) > 0 {
			for range 1 + r.IntN(2) {
				s.Ports = append(s.Ports, randomTestPort(r))
			}
		} else if r.IntN(2) == 0 {
			s.Ports = []EndpointsPort{}
		}
		out = append(out, s)
	}
	return out
}

// TestHashDumpMatchesUpstreamDump checks that the hand-written dump equals what
// k8s.io/utils/dump.ForHash (the dump behind upstream's hashutil.DeepHashObject) prints for
// the same core/v1 objects, so subset and port order equals upstream's SortSubsets.
// Reference: UPSTREAM.md §3 step 5 ("Ports and subsets are sorted by a hash of their dump").
func TestHashDumpMatchesUpstreamDump(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		for _, s := range randomTestSubsets(r) {
			var got bytes.Buffer
			writeSubsetHashDump(&got, &s)
			want := dump.ForHash(toCoreSubset(s))
			if got.String() != want {
				t.Fatalf("case %d subset dump:\n got %s\nwant %s", i, got.String(), want)
			}
			for _, p := range s.Ports {
				got.Reset()
				writePortHashDump(&got, &p, true)
				if want := dump.ForHash(toCorePort(p)); got.String() != want {
					t.Fatalf("port dump:\n got %s\nwant %s", got.String(), want)
				}
			}
			if d, want := SubsetHashDigest(&s), oracleFNV128a([]byte(dump.ForHash(toCoreSubset(s)))); d != want {
				t.Fatalf("digest mismatch")
			}
		}
	}
}

// TestRepackSubsetsProperties checks RepackSubsets on random inputs against the rules of
// UPSTREAM.md §3 step 5, with the order oracle being fnv128a(dump.ForHash(core/v1 object)).
func TestRepackSubsetsProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 2000 {
		in := randomTestSubsets(r)
		inCopy := cloneSubsets(in)
		out := RepackSubsets(in)
		if !reflect.DeepEqual(in, inCopy) {
			t.Fatalf("case %d: input modified", i)
		}
		if out == nil {
			t.Fatalf("case %d: nil result", i)
		}
		// Expected (port, address key) → ready, with "not ready wins". A port is its value
		// with the AppProtocol pointer, as upstream's map key is.
		type pk = EndpointsPort
		type ak struct{ ip, uid string }
		want := map[pk]map[ak]bool{}
		note := func(p EndpointsPort, a EndpointAddress, ready bool) {
			k := p
			if p.Port <= 0 {
				k = EndpointsPort{Port: -1}
			}
			if want[k] == nil {
				want[k] = map[ak]bool{}
			}
			key := ak{ip: a.IP}
			if a.TargetRef != nil {
				key.uid = a.TargetRef.UID
			}
			if was, ok := want[k][key]; !ok || was {
				want[k][key] = ready
			}
		}
		for _, s := range in {
			ports := s.Ports
			if len(ports) == 0 {
				ports = []EndpointsPort{{Port: -1}}
			}
			for _, p := range ports {
				for _, a := range s.Addresses {
					note(p, a, true)
				}
				for _, a := range s.NotReadyAddresses {
					note(p, a, false)
				}
			}
		}
		got := map[pk]map[ak]bool{}
		var digests [][digestSize]byte
		for _, s := range out {
			ports := s.Ports
			if len(ports) == 0 {
				ports = []EndpointsPort{{Port: -1}}
			}
			for _, p := range ports {
				k := p
				got[k] = map[ak]bool{}
				for _, a := range s.Addresses {
					got[k][ak{a.IP, uidOf(a)}] = true
				}
				for _, a := range s.NotReadyAddresses {
					got[k][ak{a.IP, uidOf(a)}] = false
				}
			}
			for _, list := range [][]EndpointAddress{s.Addresses, s.NotReadyAddresses} {
				if !slices.IsSortedFunc(list, compareEndpointAddress) {
					t.Fatalf("case %d: addresses not sorted: %+v", i, list)
				}
			}
			var portDigests [][digestSize]byte
			for _, p := range s.Ports {
				portDigests = append(portDigests, oracleFNV128a([]byte(dump.ForHash(toCorePort(p)))))
			}
			if !slices.IsSortedFunc(portDigests, func(a, b [digestSize]byte) int { return bytes.Compare(a[:], b[:]) }) {
				t.Fatalf("case %d: ports not in hash order", i)
			}
			digests = append(digests, oracleFNV128a([]byte(dump.ForHash(toCoreSubset(s)))))
		}
		// Ports with -1 only exist when a no-port subset had no port-bearing twin.
		for k := range want {
			if k.Port == -1 {
				if _, ok := got[k]; !ok {
					// merged into a subset with ports and the same address set: fine.
					delete(want, k)
				}
			}
		}
		if !reflect.DeepEqual(want, got) && !(len(want) == 0 && len(got) == 0) {
			t.Fatalf("case %d: port→address sets differ\n want %v\n  got %v", i, want, got)
		}
		if !slices.IsSortedFunc(digests, func(a, b [digestSize]byte) int { return bytes.Compare(a[:], b[:]) }) {
			t.Fatalf("case %d: subsets not in hash order", i)
		}
		// Ports with identical address sets share a subset: no two subsets have equal sets.
		seen := map[string]bool{}
		for _, s := range out {
			k := fmt.Sprint(addrKeys(s.Addresses), "|", addrKeys(s.NotReadyAddresses))
			if seen[k] {
				t.Fatalf("case %d: two subsets with the same address sets: %+v", i, out)
			}
			seen[k] = true
		}
		// Idempotent.
		if again := RepackSubsets(out); !reflect.DeepEqual(again, out) {
			t.Fatalf("case %d: repack not idempotent", i)
		}
	}
}

func uidOf(a EndpointAddress) string {
	if a.TargetRef == nil {
		return ""
	}
	return a.TargetRef.UID
}

func addrKeys(list []EndpointAddress) []string {
	var out []string
	for _, a := range list {
		out = append(out, a.IP+"/"+uidOf(a))
	}
	return out
}

func cloneSubsets(in []EndpointSubset) []EndpointSubset {
	if in == nil {
		return nil
	}
	out := make([]EndpointSubset, len(in))
	for i, s := range in {
		out[i] = EndpointSubset{
			Addresses:         slices.Clone(s.Addresses),
			NotReadyAddresses: slices.Clone(s.NotReadyAddresses),
			Ports:             slices.Clone(s.Ports),
		}
	}
	return out
}

// TestRepackSubsetsCases are the named cases of UPSTREAM.md §3 step 5 and expected outputs
// ported from upstream's pkg/api/v1/endpoints/util_test.go TestPackSubsets.
func TestRepackSubsetsCases(t *testing.T) {
	pod := func(ip, uid string) EndpointAddress {
		return EndpointAddress{IP: ip, TargetRef: &ObjectReference{Kind: "Pod", Namespace: "ns", Name: "p-" + uid, UID: uid}}
	}
	p80 := EndpointsPort{Name: "http", Port: 80, Protocol: ProtocolTCP}
	p81 := EndpointsPort{Name: "https", Port: 81, Protocol: ProtocolTCP}
	tests := []struct {
		name string
		in   []EndpointSubset
		want []EndpointSubset
	}{
		{
			name: "empty",
			in:   nil,
			want: []EndpointSubset{},
		},
		{
			name: "not ready wins over ready for the same address and port",
			in: []EndpointSubset{
				{Addresses: []EndpointAddress{pod("10.0.0.1", "a")}, Ports: []EndpointsPort{p80}},
				{NotReadyAddresses: []EndpointAddress{pod("10.0.0.1", "a")}, Ports: []EndpointsPort{p80}},
				{Addresses: []EndpointAddress{pod("10.0.0.1", "a")}, Ports: []EndpointsPort{p80}},
			},
			want: []EndpointSubset{{NotReadyAddresses: []EndpointAddress{pod("10.0.0.1", "a")}, Ports: []EndpointsPort{p80}}},
		},
		{
			name: "byte-wise IP sort: 10.0.0.10 before 10.0.0.9",
			in: []EndpointSubset{
				{Addresses: []EndpointAddress{pod("10.0.0.9", "a")}, Ports: []EndpointsPort{p80}},
				{Addresses: []EndpointAddress{pod("10.0.0.10", "b")}, Ports: []EndpointsPort{p80}},
			},
			want: []EndpointSubset{{Addresses: []EndpointAddress{pod("10.0.0.10", "b"), pod("10.0.0.9", "a")}, Ports: []EndpointsPort{p80}}},
		},
		{
			name: "same IP, different UID: both kept, sorted by UID",
			in: []EndpointSubset{
				{Addresses: []EndpointAddress{pod("10.0.0.1", "b"), pod("10.0.0.1", "a"), pod("10.0.0.1", "b")}, Ports: []EndpointsPort{p80}},
			},
			want: []EndpointSubset{{Addresses: []EndpointAddress{pod("10.0.0.1", "a"), pod("10.0.0.1", "b")}, Ports: []EndpointsPort{p80}}},
		},
		{
			name: "ports with identical address sets are merged",
			in: []EndpointSubset{
				{Addresses: []EndpointAddress{pod("10.0.0.1", "a")}, Ports: []EndpointsPort{p80}},
				{Addresses: []EndpointAddress{pod("10.0.0.1", "a")}, Ports: []EndpointsPort{p81}},
				{NotReadyAddresses: []EndpointAddress{pod("10.0.0.2", "b")}, Ports: []EndpointsPort{p81}},
				{NotReadyAddresses: []EndpointAddress{pod("10.0.0.2", "b")}, Ports: []EndpointsPort{p80}},
			},
			want: []EndpointSubset{{
				Addresses:         []EndpointAddress{pod("10.0.0.1", "a")},
				NotReadyAddresses: []EndpointAddress{pod("10.0.0.2", "b")},
				Ports:             SortSubsets([]EndpointSubset{{Ports: []EndpointsPort{p80, p81}}})[0].Ports,
			}},
		},
		{
			name: "no ports: addresses kept with nil ports",
			in: []EndpointSubset{
				{Addresses: []EndpointAddress{pod("10.0.0.2", "b")}},
				{Addresses: []EndpointAddress{pod("10.0.0.1", "a")}, Ports: []EndpointsPort{}},
			},
			want: []EndpointSubset{{Addresses: []EndpointAddress{pod("10.0.0.1", "a"), pod("10.0.0.2", "b")}}},
		},
		{
			// upstream util_test.go "two sets, two ports, two ips" style: different address sets
			// stay in different subsets; an address appears once per subset.
			name: "different address sets stay apart",
			in: []EndpointSubset{
				{Addresses: []EndpointAddress{pod("10.0.0.1", "a")}, Ports: []EndpointsPort{p80}},
				{Addresses: []EndpointAddress{pod("10.0.0.1", "a"), pod("10.0.0.2", "b")}, Ports: []EndpointsPort{p81}},
			},
			want: SortSubsets([]EndpointSubset{
				{Addresses: []EndpointAddress{pod("10.0.0.1", "a")}, Ports: []EndpointsPort{p80}},
				{Addresses: []EndpointAddress{pod("10.0.0.1", "a"), pod("10.0.0.2", "b")}, Ports: []EndpointsPort{p81}},
			}),
		},
		{
			name: "address without targetRef sorts before same IP with one",
			in: []EndpointSubset{
				{Addresses: []EndpointAddress{pod("10.0.0.1", "a"), {IP: "10.0.0.1"}}, Ports: []EndpointsPort{p80}},
			},
			want: []EndpointSubset{{Addresses: []EndpointAddress{{IP: "10.0.0.1"}, pod("10.0.0.1", "a")}, Ports: []EndpointsPort{p80}}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := RepackSubsets(tc.in)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("RepackSubsets:\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// oracleFNV128a is the hash upstream orders ports and subsets by (pkg/api/v1/endpoints/util.go
// uses fnv.New128a over the DeepHashObject dump), from the standard library.
func oracleFNV128a(b []byte) [16]byte {
	h := fnv.New128a()
	h.Write(b)
	return [16]byte(h.Sum(nil))
}
