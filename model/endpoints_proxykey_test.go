package model

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// legacyProxyMap is a kube-proxy's endpoints map of obj as it built one before 1.19, each
// list sorted (see legacyProxyMapsEqual): per port name and protocol, "IP:port" of every
// ready address of every subset offering a port not numbered 0. nil for no object.
// upstream (v1.18): pkg/proxy/endpoints.go endpointsToEndpointsMap.
func legacyProxyMap(obj *Endpoints) map[string][]string {
	if obj == nil {
		return nil
	}
	m := map[string][]string{}
	for _, ss := range obj.Subsets {
		for _, p := range ss.Ports {
			if p.Port == 0 {
				continue
			}
			key := p.Name + "/" + string(p.Protocol)
			for _, a := range ss.Addresses {
				if a.IP == "" {
					continue
				}
				m[key] = append(m[key], fmt.Sprintf("%s:%d", a.IP, p.Port))
			}
		}
	}
	for _, l := range m {
		slices.Sort(l)
	}
	return m
}

// legacyProxyMapsEqual reports whether a kube-proxy of before 1.19 sees no change from a to
// b: their endpoints maps are equal, as multisets per port (upstream compares the lists in
// order; see endpoints_proxykey.go).
func legacyProxyMapsEqual(a, b *Endpoints) bool {
	return maps.EqualFunc(legacyProxyMap(a), legacyProxyMap(b), slices.Equal)
}

func TestEndpointsProxyKey(t *testing.T) {
	port := func(name string, n int32) EndpointsPort {
		return EndpointsPort{Name: name, Port: n, Protocol: ProtocolTCP}
	}
	addr := func(ips ...string) []EndpointAddress {
		var out []EndpointAddress
		for _, ip := range ips {
			out = append(out, EndpointAddress{IP: ip})
		}
		return out
	}
	base := &Endpoints{Subsets: []EndpointSubset{{
		Addresses:         addr("10.0.0.1", "10.0.0.2"),
		NotReadyAddresses: addr("10.0.0.3"),
		Ports:             []EndpointsPort{port("http", 80)},
	}}}
	for _, tc := range []struct {
		name string
		obj  *Endpoints
		same bool
	}{
		{"itself", base, true},
		{"a not-ready address more", &Endpoints{Subsets: []EndpointSubset{{Addresses: addr("10.0.0.1", "10.0.0.2"), NotReadyAddresses: addr("10.0.0.3", "10.0.0.4"), Ports: []EndpointsPort{port("http", 80)}}}}, true},
		{"labels and annotations", &Endpoints{ObjectMeta: ObjectMeta{Labels: StringMap{{Key: "a", Value: "b"}}}, Subsets: base.Subsets}, true},
		{"ready addresses in another order", &Endpoints{Subsets: []EndpointSubset{{Addresses: addr("10.0.0.2", "10.0.0.1"), Ports: []EndpointsPort{port("http", 80)}}}}, true},
		{"a port numbered 0 more", &Endpoints{Subsets: []EndpointSubset{{Addresses: addr("10.0.0.1", "10.0.0.2"), Ports: []EndpointsPort{port("http", 80), port("bad", 0)}}}}, true},
		{"a ready address less", &Endpoints{Subsets: []EndpointSubset{{Addresses: addr("10.0.0.1"), NotReadyAddresses: addr("10.0.0.2", "10.0.0.3"), Ports: []EndpointsPort{port("http", 80)}}}}, false},
		{"a ready address moved", &Endpoints{Subsets: []EndpointSubset{{Addresses: addr("10.0.0.1", "10.0.0.9"), Ports: []EndpointsPort{port("http", 80)}}}}, false},
		{"the port renumbered", &Endpoints{Subsets: []EndpointSubset{{Addresses: addr("10.0.0.1", "10.0.0.2"), Ports: []EndpointsPort{port("http", 8080)}}}}, false},
		{"the port renamed", &Endpoints{Subsets: []EndpointSubset{{Addresses: addr("10.0.0.1", "10.0.0.2"), Ports: []EndpointsPort{port("web", 80)}}}}, false},
		{"a port more", &Endpoints{Subsets: []EndpointSubset{{Addresses: addr("10.0.0.1", "10.0.0.2"), Ports: []EndpointsPort{port("http", 80), port("metrics", 9090)}}}}, false},
		{"the addresses split over two subsets", &Endpoints{Subsets: []EndpointSubset{
			{Addresses: addr("10.0.0.1"), Ports: []EndpointsPort{port("http", 80)}},
			{Addresses: addr("10.0.0.2"), Ports: []EndpointsPort{port("http", 80), port("metrics", 9090)}},
		}}, false},
		{"no subsets", &Endpoints{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if want := legacyProxyMapsEqual(base, tc.obj); want != tc.same {
				t.Fatalf("the test's map says equal %v, the case %v", want, tc.same)
			}
			if got := EndpointsProxyKey(base) == EndpointsProxyKey(tc.obj); got != tc.same {
				t.Errorf("keys equal %v, want %v", got, tc.same)
			}
		})
	}
}

// TestServiceEndpointsProxyKeyTruncated: an object truncated to its first 1000 ready
// addresses (by IP) shows a kube-proxy only those, so a pod beyond them turning not ready
// leaves the key as it was, and one among them changes it. The incremental builder's key
// is the key of the object it writes, which the full builder makes too.
// upstream: endpoints_controller.go truncateEndpoints; pkg/proxy/endpoints.go (v1.18).
func TestServiceEndpointsProxyKeyTruncated(t *testing.T) {
	svc := testEndpointsService()
	opts := EndpointsOptions{Truncate: true}
	se := NewServiceEndpoints(svc, opts, testAddressBytes)
	n := EndpointsMaxCapacity + 200
	pods := make([]*Pod, n)
	for i := range pods {
		pods[i] = testEndpointsPod(i, true)
		se.SetPod(pods[i])
	}
	var cur *Endpoints
	sync := func(step string) uint64 {
		t.Helper()
		full := BuildEndpoints(svc, pods, cur, opts, 0)
		if d := se.Sync(0); d != full.EndpointsDecision || !d.Truncated {
			t.Fatalf("%s: decision %+v, full %+v", step, d, full.EndpointsDecision)
		}
		key := se.ProxyKey()
		if want := EndpointsProxyKey(full.Object); key != want {
			t.Fatalf("%s: ProxyKey %#x, the full builder's object's %#x", step, key, want)
		}
		se.Applied()
		cur = full.Object
		return key
	}
	first := sync("all ready")
	// Pod 1100's IP (10.0.4.76) sorts after the first 1000 ready ones (10.0.0.0 … 10.0.3.231).
	late := *pods[1100]
	late.Ready = false
	pods[1100] = &late
	se.SetPod(&late)
	if key := sync("a late pod not ready"); key != first {
		t.Errorf("a pod beyond the first 1000 turned not ready: key %#x, want %#x as before", key, first)
	}
	early := *pods[5]
	early.Ready = false
	pods[5] = &early
	se.SetPod(&early)
	if key := sync("an early pod not ready"); key == first {
		t.Errorf("a pod among the first 1000 turned not ready: key unchanged")
	}
}

// TestServiceEndpointsDropsPortsNotAboveZero: a Service port whose target resolves to 0 or
// less (a number the API refuses, but the model takes) groups its addresses as a Service
// without ports does, and is not written: the incremental builder writes what the full one
// does, whose repack is checked against upstream's RepackSubsets (if port.Port > 0).
func TestServiceEndpointsDropsPortsNotAboveZero(t *testing.T) {
	named := testEndpointsPod(1, true)
	named.ContainerPorts = []ContainerPort{{Name: "zero", ContainerPort: 0, Protocol: ProtocolTCP}}
	for _, tc := range []struct {
		name  string
		ports []ServicePort
		pods  []*Pod
		want  int // ports written
	}{
		{"target 0", []ServicePort{{Name: "a", Protocol: ProtocolTCP, Port: 80, TargetPort: IntPort(0)}}, nil, 0},
		{"target -3", []ServicePort{{Name: "a", Protocol: ProtocolTCP, Port: 80, TargetPort: IntPort(-3)}}, nil, 0},
		{"target 0 beside 8080", []ServicePort{{Name: "a", Protocol: ProtocolTCP, Port: 80, TargetPort: IntPort(0)},
			{Name: "b", Protocol: ProtocolTCP, Port: 81, TargetPort: IntPort(8080)}}, nil, 1},
		{"a named port of 0", []ServicePort{{Name: "a", Protocol: ProtocolTCP, Port: 80, TargetPort: NamedPort("zero")},
			{Name: "b", Protocol: ProtocolTCP, Port: 81, TargetPort: IntPort(8080)}}, []*Pod{named, testEndpointsPod(2, true)}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := testEndpointsService()
			svc.Ports = tc.ports
			pods := tc.pods
			if pods == nil {
				pods = []*Pod{testEndpointsPod(1, true), testEndpointsPod(2, false)}
			}
			se := NewServiceEndpoints(svc, EndpointsOptions{}, testAddressBytes)
			for _, p := range pods {
				se.SetPod(p)
			}
			full := BuildEndpoints(svc, pods, nil, EndpointsOptions{}, 0)
			if d := se.Sync(0); d != full.EndpointsDecision {
				t.Fatalf("decision %+v, full %+v", d, full.EndpointsDecision)
			}
			got, want := se.Object().Subsets, full.Object.Subsets
			if g, w := subsetsJSON(t, got), subsetsJSON(t, want); g != w {
				t.Errorf("subsets\n%s\nthe full builder's\n%s", g, w)
			}
			written := 0
			for _, ss := range got {
				written += len(ss.Ports)
				for _, p := range ss.Ports {
					if p.Port <= 0 {
						t.Errorf("port %+v written", p)
					}
				}
			}
			if written != tc.want {
				t.Errorf("%d ports written, want %d", written, tc.want)
			}
		})
	}
}

// TestServiceEndpointsPortNotAboveZeroAddedOrDropped: after a write, the Service's ports
// change by a port whose target resolves to 0 or less. Where no other port shares its
// addresses, the object gets (or loses) a subset without ports and is written; where one
// does, the object is the stored one and nothing is written, as upstream's comparison
// finds. The same holds of a Service whose ports are all such: its addresses are listed in
// subsets without ports, written again only when those change, and not when the stored
// ones repack into the new ones (upstream compares the stored subsets repacked too). The
// full builder, given the stored object, decides the same (differential sweep of the
// Endpoints controller, seeds 94013, a Service given an SCTP port with target 0 beside its
// http port; 94980, a Service of such ports only whose protocols changed; and 95338, a
// Service without ports given one of target 0).
// upstream: endpoints_controller.go syncService (endpointSubsetsEqualIgnoreResourceVersion,
// of the stored subsets and of them repacked); pkg/api/v1/endpoints/util.go RepackSubsets
// (if port.Port > 0).
func TestServiceEndpointsPortNotAboveZeroAddedOrDropped(t *testing.T) {
	http := ServicePort{Name: "http", Protocol: ProtocolTCP, Port: 80, TargetPort: IntPort(8080)}
	zero := ServicePort{Name: "a", Protocol: ProtocolSCTP, Port: 80, TargetPort: IntPort(0)}
	named := ServicePort{Name: "z", Protocol: ProtocolTCP, Port: 82, TargetPort: NamedPort("zero")}
	minusThree := ServicePort{Name: "dns", Protocol: ProtocolTCP, Port: 80, TargetPort: IntPort(-3)}
	targetZero := ServicePort{Name: "b", Protocol: ProtocolTCP, Port: 82, TargetPort: IntPort(0)}
	withZero := testEndpointsPod(3, true)
	withZero.ContainerPorts = []ContainerPort{{Name: "zero", ContainerPort: 0, Protocol: ProtocolTCP}}
	pods := []*Pod{testEndpointsPod(1, true), testEndpointsPod(2, false), withZero}
	for _, tc := range []struct {
		name          string
		before, after []ServicePort
		want          string
	}{
		{"target 0 added beside http", []ServicePort{http}, []ServicePort{zero, http}, ""},
		{"target 0 dropped beside http", []ServicePort{zero, http}, []ServicePort{http}, ""},
		{"http renumbered, target 0 added", []ServicePort{http}, []ServicePort{zero, {Name: "http", Protocol: ProtocolTCP, Port: 81, TargetPort: IntPort(8080)}}, ""},
		{"a named port of 0 on one pod added", []ServicePort{http}, []ServicePort{http, named}, EndpointsUpdate},
		{"a named port of 0 on one pod dropped", []ServicePort{http, named}, []ServicePort{http}, EndpointsUpdate},
		{"http dropped, target 0 kept", []ServicePort{zero, http}, []ServicePort{zero}, EndpointsUpdate},
		// Only ports numbered 0 or less: the addresses are listed in subsets without ports.
		{"only such ports, their protocols changed", []ServicePort{minusThree, targetZero}, []ServicePort{{Name: "dns", Protocol: ProtocolSCTP, Port: 80, TargetPort: IntPort(-3)}, targetZero}, ""},
		{"only such ports, one of them renamed", []ServicePort{minusThree, targetZero}, []ServicePort{minusThree, {Name: "c", Protocol: ProtocolTCP, Port: 82, TargetPort: IntPort(0)}}, ""},
		{"only such ports, a named port of 0 on one pod added", []ServicePort{targetZero}, []ServicePort{targetZero, named}, EndpointsUpdate},
		// Its two subsets without ports (all pods; the one pod) repack into one, of all
		// pods: the object a sync now makes, so upstream skips the write.
		{"only such ports, a named port of 0 on one pod dropped", []ServicePort{targetZero, named}, []ServicePort{targetZero}, ""},
		// A headless Service without ports lists its addresses in a subset without ports
		// too; a Service with a cluster IP and no ports lists none.
		{"headless, no ports, then one of target 0", nil, []ServicePort{targetZero}, ""},
		{"headless, one of target 0, then no ports", []ServicePort{targetZero}, nil, ""},
		{"headless, no ports, then http", nil, []ServicePort{http}, EndpointsUpdate},
		{"cluster IP, no ports, then one of target 0", nil, []ServicePort{targetZero}, EndpointsUpdate},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := testEndpointsService()
			before.Ports = tc.before
			if strings.HasPrefix(tc.name, "headless") {
				before.ClusterIP = "None"
			}
			se := NewServiceEndpoints(before, EndpointsOptions{}, testAddressBytes)
			for _, p := range pods {
				se.SetPod(p)
			}
			if d := se.Sync(0); d.Verb != EndpointsCreate {
				t.Fatalf("first sync: %q, want a create", d.Verb)
			}
			se.Applied()
			stored := BuildEndpoints(before, pods, nil, EndpointsOptions{}, 0).Object

			after := testEndpointsService()
			after.Ports = tc.after
			after.ClusterIP = before.ClusterIP
			se.SetService(after)
			full := BuildEndpoints(after, pods, stored, EndpointsOptions{}, 0)
			d := se.Sync(0)
			if d.Verb != tc.want || full.Verb != tc.want {
				t.Fatalf("after the change: %q, the full builder %q; want %q", d.Verb, full.Verb, tc.want)
			}
			if d.Verb != "" {
				if g, w := subsetsJSON(t, se.Object().Subsets), subsetsJSON(t, full.Object.Subsets); g != w {
					t.Errorf("subsets\n%s\nthe full builder's\n%s", g, w)
				}
			}
		})
	}
}

// subsetsJSON is subsets as the API's JSON writes them.
func subsetsJSON(t *testing.T, subsets []EndpointSubset) string {
	t.Helper()
	b, err := json.Marshal(k8sEndpoints(&Endpoints{Subsets: subsets}).Subsets)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
