package model

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discovery "k8s.io/api/discovery/v1"
	endpointsliceutil "k8s.io/endpointslice/util"
	"k8s.io/utils/dump"
)

// randomSlicePorts returns n ports with random, sometimes absent, fields.
func randomSlicePorts(rng *rand.Rand, n int) []EndpointPort {
	names := []string{"", "http", "https", "dns", "metrics", "z"}
	protos := []Protocol{ProtocolTCP, ProtocolUDP, ProtocolSCTP}
	apps := []string{"", "https", "kubernetes.io/h2c"}
	ports := make([]EndpointPort, n)
	for i := range ports {
		p := &ports[i]
		if rng.IntN(8) > 0 {
			p.Name = Ptr(names[rng.IntN(len(names))])
		}
		if rng.IntN(8) > 0 {
			p.Protocol = Ptr(protos[rng.IntN(len(protos))])
		}
		if rng.IntN(8) > 0 {
			p.Port = Ptr(int32(rng.IntN(70000)))
		}
		if rng.IntN(3) == 0 {
			p.AppProtocol = Ptr(apps[rng.IntN(len(apps))])
		}
	}
	return ports
}

func toDiscoveryPorts(ports []EndpointPort) []discovery.EndpointPort {
	out := make([]discovery.EndpointPort, len(ports))
	for i, p := range ports {
		out[i] = discovery.EndpointPort{Name: p.Name, Port: p.Port, AppProtocol: p.AppProtocol}
		if p.Protocol != nil {
			out[i].Protocol = Ptr(corev1.Protocol(*p.Protocol))
		}
	}
	return out
}

// TestSlicePortOrderAsUpstream checks the port order slices are written with against
// upstream's NewPortMapKey, which sorts its argument in place (by fnv128a of each port's
// dump.ForHash), and the dump itself against k8s.io/utils/dump.
func TestSlicePortOrderAsUpstream(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for round := range 3000 {
		ports := randomSlicePorts(rng, 1+rng.IntN(6))
		want := toDiscoveryPorts(ports)
		endpointsliceutil.NewPortMapKey(want)
		got := slices.Clone(ports)
		sortPortsAsUpstream(got)
		if g, w := fmt.Sprint(dumpPorts(toDiscoveryPorts(got))), fmt.Sprint(dumpPorts(want)); g != w {
			t.Fatalf("round %d: ours %s\nupstream %s", round, g, w)
		}
		for i := range ports {
			b := appendSlicePortHashDump(nil, &ports[i])
			if w := dump.ForHash(toDiscoveryPorts(ports[i : i+1])[0]); string(b) != w {
				t.Fatalf("round %d: dump %q, dump.ForHash %q", round, b, w)
			}
		}
	}
}

func dumpPorts(ports []discovery.EndpointPort) []string {
	var out []string
	for _, p := range ports {
		out = append(out, dump.ForHash(p))
	}
	return out
}
