package model

import (
	"fmt"
	"slices"
	"testing"
)

// Inputs on which upstream's reconciler acts on details a plain port would miss, found by an
// audit of what the random sequences never produce: its placeholder comparison reads labels
// as Go maps (a missing key reads ""), and it sorts the ports and addresses of the stored
// slices it keys in place, so that its later writes of them carry that order.

func TestLabelsEqualAsMaps(t *testing.T) {
	for _, tc := range []struct {
		a, b StringMap
		want bool
	}{
		{nil, nil, true},
		{StringMapFrom("a", "1"), StringMapFrom("a", "1"), true},
		{StringMapFrom("a", "1"), StringMapFrom("a", "2"), false},
		{StringMapFrom("a", "1"), nil, false},
		{StringMapFrom("a", ""), nil, true},
		{nil, StringMapFrom("a", ""), true},
		{StringMapFrom("a", "", "b", "1"), StringMapFrom("b", "1", "c", ""), true},
		{StringMapFrom("a", "", "b", "1"), StringMapFrom("b", "1", "c", "x"), false},
		{StringMapFrom("b", "1"), StringMapFrom("a", "", "b", "1", "z", ""), true},
		{StringMapFrom("b", "1", "z", "x"), StringMapFrom("a", "", "b", "1"), false},
	} {
		if got := labelsEqualAsMaps(tc.a, tc.b); got != tc.want {
			t.Errorf("labelsEqualAsMaps(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := labelsEqualAsMaps(tc.b, tc.a); got != tc.want {
			t.Errorf("labelsEqualAsMaps(%v, %v) = %v, want %v", tc.b, tc.a, got, tc.want)
		}
	}
}

// storedOrderWorld is a Service of one port with two nodes in two zones.
func storedOrderWorld() (*Service, []*Node, mapNodes) {
	svc := &Service{Namespace: "ns", Name: "web", UID: "uid-1", Labels: map[string]string{"app": "web"},
		Selector: Selector{{Key: "app", Value: "web"}}, ClusterIP: "10.96.0.10", IPFamilies: []IPFamily{IPv4},
		Ports: []ServicePort{{Name: "http", Protocol: ProtocolTCP, Port: 80, TargetPort: IntPort(8080)}}}
	nodes := []*Node{{Name: "node-0", Zone: "zone-a", Ready: true, AllocatableMilliCPU: 4000},
		{Name: "node-1", Zone: "zone-b", Ready: true, AllocatableMilliCPU: 4000}}
	m := mapNodes{}
	for _, n := range nodes {
		m[n.Name] = n
	}
	return svc, nodes, m
}

func storedOrderPod(i int, node string, ips ...string) *Pod {
	return &Pod{PodIdentity: NewPodIdentity("ns", fmt.Sprintf("pod-%d", i), fmt.Sprintf("puid-%d", i)),
		NodeName: node, Phase: PodRunning, IPs: ips, Ready: true}
}

// syncBoth runs one sync of the full reconciler, of an incremental one made for the stored
// slices, and of upstream's from the harness's stored state, fails the test unless all
// three plan the same writes (upstream's own random choices are retried, as in
// diffOneSequence), and leaves upstream's outcome stored. It returns the number of writes.
func syncBoth(t *testing.T, name string, h *upstreamHarness, svc *Service, pods []*Pod, nodes mapNodes, max int) int {
	t.Helper()
	existing := h.stored(t, "ns")
	opts := ReconcilerOptions{MaxEndpointsPerSlice: max}
	res := ReconcileFull(svc, pods, existing, nodes, opts, 0)
	inc := NewServiceSlices(svc, nodes, opts)
	inc.SetStoredSlices(existing)
	for _, p := range pods {
		inc.SetPod(p)
	}
	if full, incr := planString(res), planString(inc.Sync(0)); full != incr {
		t.Fatalf("%s: the incremental reconciler plans\n%s\nthe full one\n%s", name, incr, full)
	}
	seq := 0
	ours := applyPlan(existing, res, &seq)
	var last string
	for attempt := 0; attempt < upstreamAttempts; attempt++ {
		h.seed(t, "ns", existing)
		up, _, written, _ := h.reconcile(t, svc, pods, 0)
		switch theirs := h.stored(t, "ns"); {
		case up != planCounts(res):
			last = fmt.Sprintf("write counts: upstream %v, ours %v", up, planCounts(res))
		case writtenSummary(written) != writtenSummary(plannedWrites(res)):
			last = fmt.Sprintf("written:\nupstream:\n%s\nours:\n%s", writtenSummary(written), writtenSummary(plannedWrites(res)))
		case stateSummary(ours, false) != stateSummary(theirs, false):
			last = fmt.Sprintf("stored:\nupstream:\n%s\nours:\n%s", stateSummary(theirs, false), stateSummary(ours, false))
		default:
			return res.Writes()
		}
	}
	t.Fatalf("%s: %s", name, last)
	return 0
}

func TestPlaceholderKeptAsUpstreamDoes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before func(*Service)
		after  func(*Service)
	}{
		{"the Service gains a label with an empty value",
			func(*Service) {},
			func(s *Service) { s.Labels = map[string]string{"app": "web", "canary": ""} }},
		{"the Service loses a label with an empty value",
			func(s *Service) { s.Labels = map[string]string{"app": "web", "canary": ""} },
			func(s *Service) { s.Labels = map[string]string{"app": "web"} }},
		{"a headless Service gets a cluster IP (its placeholder keeps the headless label)",
			func(s *Service) { s.ClusterIP = "None" },
			func(s *Service) { s.ClusterIP = "10.96.0.10" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc, nodes, nm := storedOrderWorld()
			tc.before(svc)
			h := newUpstreamHarness(100, nodes, false, false)
			if n := syncBoth(t, "placeholder", h, svc, nil, nm, 100); n != 1 {
				t.Fatalf("the first sync wrote %d objects, want the placeholder's create", n)
			}
			changed := *svc
			tc.after(&changed)
			if n := syncBoth(t, "after the change", h, &changed, nil, nm, 100); n != 0 {
				t.Errorf("the placeholder was written again (%d writes); upstream keeps it", n)
			}
		})
	}
}

func TestStoredSliceOrderAsUpstreamLeavesIt(t *testing.T) {
	t.Run("ports not in upstream's order", func(t *testing.T) {
		svc, nodes, nm := storedOrderWorld()
		svc.Ports = append(svc.Ports, ServicePort{Name: "metrics", Protocol: ProtocolTCP, Port: 9100, TargetPort: IntPort(9100)})
		h := newUpstreamHarness(100, nodes, false, false)
		pods := []*Pod{storedOrderPod(1, "node-0", "10.0.0.1"), storedOrderPod(2, "node-1", "10.0.0.2")}
		syncBoth(t, "create", h, svc, pods, nm, 100)
		stored := h.stored(t, "ns")
		for i, s := range stored {
			c := *s
			c.Ports = slices.Clone(s.Ports)
			slices.Reverse(c.Ports)
			if portsInUpstreamOrder(c.Ports) {
				t.Fatalf("reversed ports %s are still in upstream's order", portsString(c.Ports))
			}
			stored[i] = &c
		}
		h.seed(t, "ns", stored)
		notReady := *pods[0]
		notReady.Ready = false
		if n := syncBoth(t, "an endpoint's update", h, svc, []*Pod{&notReady, pods[1]}, nm, 100); n != 1 {
			t.Errorf("%d writes, want 1", n)
		}
	})
	t.Run("addresses not sorted", func(t *testing.T) {
		svc, nodes, nm := storedOrderWorld()
		h := newUpstreamHarness(100, nodes, false, false)
		pods := []*Pod{storedOrderPod(1, "node-0", "10.0.0.9", "10.0.0.1")}
		syncBoth(t, "create", h, svc, pods, nm, 100)
		stored := h.stored(t, "ns")
		c := *stored[0]
		c.Endpoints = slices.Clone(c.Endpoints)
		c.Endpoints[0].Addresses = []string{"10.0.0.9", "10.0.0.1"}
		h.seed(t, "ns", []*EndpointSlice{&c})
		relabelled := *svc
		relabelled.Labels = map[string]string{"app": "web", "tier": "1"}
		if n := syncBoth(t, "a labels-only update", h, &relabelled, pods, nm, 100); n != 1 {
			t.Errorf("%d writes, want 1", n)
		}
	})
}

func TestInUpstreamOrderKeepsOrderedSlices(t *testing.T) {
	ports := []EndpointPort{{Name: Ptr("a"), Port: Ptr(int32(1))}, {Name: Ptr("b"), Port: Ptr(int32(2))}, {Name: Ptr("c")}}
	sortPortsAsUpstream(ports)
	s := &EndpointSlice{Ports: ports, Endpoints: []Endpoint{{Addresses: []string{"10.0.0.1", "10.0.0.2"}}}}
	if got := inUpstreamOrder(s); got != s {
		t.Errorf("a slice already in order was copied")
	}
	reversed := *s
	reversed.Ports = slices.Clone(ports)
	slices.Reverse(reversed.Ports)
	got := inUpstreamOrder(&reversed)
	if got == &reversed || !slices.Equal(got.Ports, ports) {
		t.Errorf("ports %s, want %s", portsString(got.Ports), portsString(ports))
	}
	if reversed.Ports[0].Name == ports[0].Name {
		t.Errorf("the slice given was modified")
	}
}
