package model

import (
	"fmt"
	"slices"
	"testing"
)

// The cases here are what the real Endpoints controller of Kubernetes v1.37.2
// (pkg/controller/endpoint syncService, driven with a fake clientset) wrote for these inputs in
// a differential run against this model: orders that follow from the fnv128a hash upstream sorts
// ports and subsets by (pkg/api/v1/endpoints/util.go SortSubsets), the shares truncation keeps,
// which follow from that order, and pod IPs rewritten in canonical form.

// upstreamCaseService is the Service of the cases: ns/web, IPv4, with the given ports.
func upstreamCaseService(ports ...ServicePort) *Service {
	svc := testEndpointsService()
	svc.Ports = ports
	return svc
}

// upstreamCasePod is a Ready, Running pod ns/p-i (UID uid-i) with one IP and a container port
// "web" of the given number.
func upstreamCasePod(i int, ip string, web int32) *Pod {
	id := NewPodIdentity("ns", fmt.Sprintf("p-%d", i), fmt.Sprintf("uid-%d", i))
	id.ContainerPorts = []ContainerPort{{Name: "web", ContainerPort: web, Protocol: ProtocolTCP}}
	return &Pod{PodIdentity: id, NodeName: "node-a", Phase: PodRunning, IPs: []string{ip}, Ready: true}
}

// bothEndpointsBuilders returns the object BuildEndpoints creates for pods and the one a
// ServiceEndpoints given the same pods creates.
func bothEndpointsBuilders(t *testing.T, svc *Service, pods []*Pod) (full, incremental *Endpoints) {
	t.Helper()
	opts := EndpointsOptions{Truncate: true}
	p := BuildEndpoints(svc, pods, nil, opts, 0)
	if p.Verb != EndpointsCreate {
		t.Fatalf("BuildEndpoints: %q, want create", p.Verb)
	}
	se := NewServiceEndpoints(svc, opts, testAddressBytes)
	for _, pod := range pods {
		se.SetPod(pod)
	}
	if d := se.Sync(0); d.Verb != EndpointsCreate {
		t.Fatalf("ServiceEndpoints: %q, want create", d.Verb)
	}
	return p.Object, se.Object()
}

// subsetsBrief writes subsets as upstream's were recorded: per subset, its ports, then its
// ready and not-ready address counts.
func subsetsBrief(ss []EndpointSubset) string {
	out := ""
	for _, s := range ss {
		out += "{"
		for _, p := range s.Ports {
			out += fmt.Sprintf("%s:%d ", p.Name, p.Port)
		}
		out += fmt.Sprintf("ready %d notReady %d", len(s.Addresses), len(s.NotReadyAddresses))
		if len(s.Addresses) == 1 {
			out += " " + s.Addresses[0].IP
		}
		out += "}"
	}
	return out
}

func TestEndpointsOrderAsUpstream(t *testing.T) {
	for _, tc := range []struct {
		name string
		svc  *Service
		pods []*Pod
		want string
	}{{
		// One subset of two ports: upstream writes http before metrics.
		name: "port order",
		svc: upstreamCaseService(
			ServicePort{Name: "http", Protocol: ProtocolTCP, Port: 80, TargetPort: IntPort(8080)},
			ServicePort{Name: "metrics", Protocol: ProtocolTCP, Port: 9100, TargetPort: IntPort(9100)}),
		pods: []*Pod{upstreamCasePod(1, "10.0.0.1", 8080)},
		want: "{http:8080 metrics:9100 ready 1 notReady 0 10.0.0.1}",
	}, {
		// A named targetPort two pods resolve differently: two subsets, 9090's first.
		name: "subset order",
		svc:  upstreamCaseService(ServicePort{Name: "http", Protocol: ProtocolTCP, Port: 80, TargetPort: NamedPort("web")}),
		pods: []*Pod{upstreamCasePod(1, "10.0.0.1", 8080), upstreamCasePod(2, "10.0.0.2", 9090)},
		want: "{http:9090 ready 1 notReady 0 10.0.0.2}{http:8080 ready 1 notReady 0 10.0.0.1}",
	}} {
		full, inc := bothEndpointsBuilders(t, tc.svc, tc.pods)
		if got := subsetsBrief(full.Subsets); got != tc.want {
			t.Errorf("%s: BuildEndpoints writes %s, upstream %s", tc.name, got, tc.want)
		}
		if got := subsetsBrief(inc.Subsets); got != tc.want {
			t.Errorf("%s: ServiceEndpoints writes %s, upstream %s", tc.name, got, tc.want)
		}
	}
}

// TestEndpointsTruncationSharesAsUpstream: 1,200 ready pods whose named port resolves to 8080
// (pods 0-499) or 9090 (the other 700). Each subset keeps ceil(its share × 1000), capped by
// what is left, in subset order: upstream keeps 417 of 8080 and 583 of 9090.
func TestEndpointsTruncationSharesAsUpstream(t *testing.T) {
	svc := upstreamCaseService(ServicePort{Name: "http", Protocol: ProtocolTCP, Port: 80, TargetPort: NamedPort("web")})
	var pods []*Pod
	for i := range 1200 {
		web := int32(9090)
		if i < 500 {
			web = 8080
		}
		pods = append(pods, upstreamCasePod(i, fmt.Sprintf("10.0.%d.%d", i/250, i%250), web))
	}
	full, inc := bothEndpointsBuilders(t, svc, pods)
	for name, obj := range map[string]*Endpoints{"BuildEndpoints": full, "ServiceEndpoints": inc} {
		kept := map[int32]int{}
		for _, s := range obj.Subsets {
			kept[s.Ports[0].Port] = len(s.Addresses)
		}
		if kept[8080] != 417 || kept[9090] != 583 {
			t.Errorf("%s keeps %v, upstream 8080: 417, 9090: 583", name, kept)
		}
	}
}

// TestEndpointsCanonicalPodIPs: upstream parses a pod IP sloppily and writes it back in
// canonical form; the order of addresses follows the canonical strings.
func TestEndpointsCanonicalPodIPs(t *testing.T) {
	for _, tc := range []struct {
		family IPFamily
		ips    []string
		want   []string // the ready addresses upstream writes, in order
	}{
		{IPv4, []string{"010.000.001.007"}, []string{"10.0.1.7"}},
		{IPv4, []string{"::ffff:10.0.1.7"}, []string{"10.0.1.7"}},
		{IPv6, []string{"FD00::A"}, []string{"fd00::a"}},
		{IPv6, []string{"fd00:0:0:0:0:0:0:a"}, []string{"fd00::a"}},
		// Sorted by the canonical string: 10.0.0.10 before 10.0.0.9.
		{IPv4, []string{"10.0.0.9", "010.0.0.10"}, []string{"10.0.0.10", "10.0.0.9"}},
	} {
		svc := upstreamCaseService(ServicePort{Name: "http", Protocol: ProtocolTCP, Port: 80, TargetPort: IntPort(8080)})
		svc.IPFamilies = []IPFamily{tc.family}
		if tc.family == IPv6 {
			svc.ClusterIP = "fd00:96::10"
		}
		var pods []*Pod
		for i, ip := range tc.ips {
			pods = append(pods, upstreamCasePod(i, ip, 8080))
		}
		full, inc := bothEndpointsBuilders(t, svc, pods)
		for name, obj := range map[string]*Endpoints{"BuildEndpoints": full, "ServiceEndpoints": inc} {
			var got []string
			for _, s := range obj.Subsets {
				for _, a := range s.Addresses {
					got = append(got, a.IP)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s, pod IPs %q: %s writes %q, upstream %q", tc.family, tc.ips, name, got, tc.want)
			}
		}
	}
}

// TestEndpointsSkipAfterRepack: a stored object holding the same subsets in another port order
// (written under md5 ordering, or by someone else) is not rewritten: upstream compares the
// stored subsets again once repacked (syncService, issue 129652).
func TestEndpointsSkipAfterRepack(t *testing.T) {
	svc := upstreamCaseService(
		ServicePort{Name: "http", Protocol: ProtocolTCP, Port: 80, TargetPort: IntPort(8080)},
		ServicePort{Name: "metrics", Protocol: ProtocolTCP, Port: 9100, TargetPort: IntPort(9100)},
		ServicePort{Name: "grpc", Protocol: ProtocolTCP, Port: 90, TargetPort: IntPort(9090)})
	pods := []*Pod{upstreamCasePod(1, "10.0.0.1", 8080)}
	opts := EndpointsOptions{Truncate: true}
	written := BuildEndpoints(svc, pods, nil, opts, 0).Object
	ports := written.Subsets[0].Ports
	for _, perm := range [][3]int{{0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}} {
		other := *written
		other.Subsets = []EndpointSubset{written.Subsets[0]}
		other.Subsets[0].Ports = []EndpointsPort{ports[perm[0]], ports[perm[1]], ports[perm[2]]}
		if p := BuildEndpoints(svc, pods, &other, opts, 0); p.Verb != "" {
			t.Errorf("stored ports in order %v: %q, want no write", perm, p.Verb)
		}
	}
	// A stored object that differs in content is still rewritten.
	other := *written
	other.Subsets = []EndpointSubset{written.Subsets[0]}
	other.Subsets[0].Ports = ports[:2]
	if p := BuildEndpoints(svc, pods, &other, opts, 0); p.Verb != EndpointsUpdate {
		t.Errorf("stored object with a port less: %q, want update", p.Verb)
	}
}
