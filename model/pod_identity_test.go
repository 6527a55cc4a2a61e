package model

import "testing"

func TestPodIdentityEqualAndOwn(t *testing.T) {
	id := NewPodIdentity("ns", "web-1", "uid-1")
	id.ContainerPorts = []ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: ProtocolTCP}}
	if id.Kind != "Pod" {
		t.Fatalf("kind %q, want Pod", id.Kind)
	}
	v1 := &Pod{PodIdentity: id, Phase: PodPending}
	v2 := *v1 // an update: a new version sharing the identity
	v2.Phase = PodRunning
	if v2.PodIdentity != v1.PodIdentity || v1.Phase != PodPending {
		t.Fatal("a copied Pod does not share its identity, or changed the original's status")
	}

	recreated := *v1
	recreated.OwnIdentity().UID = "uid-2"
	recreated.Hostname = "web-1" // its spec fields are its own too
	if v1.UID != "uid-1" || recreated.UID != "uid-2" || v1.Hostname != "" {
		t.Fatalf("OwnIdentity: original UID %q, hostname %q; copy %q; want uid-1, no hostname and uid-2", v1.UID, v1.Hostname, recreated.UID)
	}
	// Pods of one template share spec fields: equal, though their identities differ.
	spec := &PodSpecFields{ContainerPorts: id.ContainerPorts}
	a, b := NewPodIdentityWith("ns", "a", "u", spec), NewPodIdentityWith("ns", "a", "u", spec)
	if a == b || a.PodSpecFields != b.PodSpecFields || !a.Equal(b) || !id.PodSpecFields.Equal(spec) {
		t.Fatal("identities sharing spec fields: not shared or not equal")
	}
	for _, tc := range []struct {
		name   string
		change func(*PodIdentity)
		equal  bool
	}{
		{"same values", func(*PodIdentity) {}, true},
		{"uid", func(o *PodIdentity) { o.UID = "x" }, false},
		{"kind", func(o *PodIdentity) { o.Kind = "" }, false},
		{"hostname", func(o *PodIdentity) { o.Hostname = "h" }, false},
		{"subdomain", func(o *PodIdentity) { o.Subdomain = "s" }, false},
		{"container port", func(o *PodIdentity) {
			o.ContainerPorts = []ContainerPort{{Name: "http", ContainerPort: 9090, Protocol: ProtocolTCP}}
		}, false},
		{"sidecar port", func(o *PodIdentity) { o.SidecarPorts = []ContainerPort{{ContainerPort: 1}} }, false},
	} {
		o := *id
		own := *id.PodSpecFields // spec fields are shared by copies: change a copy of them
		o.PodSpecFields = &own
		tc.change(&o)
		if got := id.Equal(&o); got != tc.equal {
			t.Errorf("%s: Equal %v, want %v", tc.name, got, tc.equal)
		}
	}
}

// Both builders point their endpoints' targetRefs at the pod's identity instead of copying
// it, and build one when the identity is not a Pod reference.
func TestEndpointTargetRefsPointToThePodIdentity(t *testing.T) {
	svc := testEndpointsService()
	pod := testEndpointsPod(1, true)
	odd := testEndpointsPod(2, true)
	odd.Kind = "" // an identity built by hand, without its kind

	slices := NewServiceSlices(svc, poolTestNode{}, ReconcilerOptions{})
	legacy := NewServiceEndpoints(svc, EndpointsOptions{}, testAddressBytes)
	for _, p := range []*Pod{pod, odd} {
		slices.SetPod(p)
		legacy.SetPod(p)
	}
	refs := map[string]*ObjectReference{}
	for _, sl := range slices.Sync(0).Plans[0].ToCreate {
		for _, ep := range sl.Endpoints {
			refs["slice "+ep.TargetRef.Name] = ep.TargetRef
		}
	}
	// (Object copies its addresses' references for the caller: read the pod states'.)
	for _, slot := range legacy.pods {
		a := slot.ps.address()
		refs["endpoints "+slot.pod.Name] = a.TargetRef
	}
	for _, kind := range []string{"slice ", "endpoints "} {
		if r := refs[kind+pod.Name]; r != &pod.ObjectReference {
			t.Errorf("%s targetRef of %s is %p, not the pod's identity %p", kind, pod.Name, r, &pod.ObjectReference)
		}
		r := refs[kind+odd.Name]
		if r == nil || r == &odd.ObjectReference {
			t.Fatalf("%s targetRef of %s is %p: want a reference of its own", kind, odd.Name, r)
		}
		if want := (ObjectReference{Kind: "Pod", Namespace: "ns", Name: odd.Name, UID: odd.UID}); *r != want {
			t.Errorf("%s targetRef of %s is %+v, want %+v", kind, odd.Name, *r, want)
		}
	}
}
