package model

import (
	"encoding/binary"
	"hash/fnv"
	"math/rand/v2"
	"testing"
)

// TestFNV128MatchesStandardLibrary checks the allocation-free FNV-1a 128 used for endpoint
// identities against hash/fnv's New128a, which upstream's hashEndpoint uses.
func TestFNV128MatchesStandardLibrary(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		b := make([]byte, rng.IntN(80))
		for j := range b {
			b[j] = byte(rng.IntN(256))
		}
		ours := newFNV128()
		ours.string(string(b))
		std := fnv.New128a()
		std.Write(b)
		sum := std.Sum(nil)
		if hi, lo := binary.BigEndian.Uint64(sum[:8]), binary.BigEndian.Uint64(sum[8:]); hi != ours.hi || lo != ours.lo {
			t.Fatalf("case %d (%q): ours %x%x, hash/fnv %x%x", i, b, ours.hi, ours.lo, hi, lo)
		}
		if got := ours.sum(); got != [16]byte(sum) {
			t.Fatalf("case %d (%q): sum %x, hash/fnv %x", i, b, got, sum)
		}
	}
}

// TestEndpointIdentity checks what identity covers (UPSTREAM.md §2.5): addresses (in any
// order), hostname and targetRef namespace/name; not the UID, node, zone or conditions.
func TestEndpointIdentity(t *testing.T) {
	base := Endpoint{
		Addresses: []string{"10.0.0.1", "10.0.0.2"}, Hostname: Ptr("h"),
		TargetRef: &ObjectReference{Kind: "Pod", Namespace: "ns", Name: "p", UID: "u1"},
		NodeName:  Ptr("n1"), Zone: Ptr("z1"), Conditions: EndpointConditions{Ready: ConditionTrue},
	}
	same := base
	same.Addresses = []string{"10.0.0.2", "10.0.0.1"}
	same.TargetRef = &ObjectReference{Kind: "Pod", Namespace: "ns", Name: "p", UID: "u2"}
	same.NodeName, same.Zone, same.Conditions = Ptr("n2"), Ptr("z2"), EndpointConditions{Ready: ConditionFalse}
	if hashEndpoint(&base) != hashEndpoint(&same) {
		t.Error("UID, node, zone, conditions or address order changed the identity")
	}
	for name, change := range map[string]func(e *Endpoint){
		"address":   func(e *Endpoint) { e.Addresses = []string{"10.0.0.1"} },
		"hostname":  func(e *Endpoint) { e.Hostname = nil },
		"namespace": func(e *Endpoint) { e.TargetRef = &ObjectReference{Namespace: "other", Name: "p"} },
		"name":      func(e *Endpoint) { e.TargetRef = &ObjectReference{Namespace: "ns", Name: "q"} },
	} {
		other := base
		change(&other)
		if hashEndpoint(&base) == hashEndpoint(&other) {
			t.Errorf("changing the %s kept the identity", name)
		}
	}
}

// FuzzIsCanonicalIPv4: isCanonicalIPv4 is true exactly when parseIPSloppy reads an IPv4
// address that String writes back unchanged, the case endpointAddresses takes without
// parsing.
func FuzzIsCanonicalIPv4(f *testing.F) {
	for _, s := range []string{"10.64.0.2", "0.0.0.0", "255.255.255.255", "256.1.1.1", "010.0.0.1", "1.2.3", "1.2.3.4.5",
		"1..2.3", "1.2.3.04", "::ffff:1.2.3.4", "fd00::1", "1.2.3.4 ", "", "1.2.3.0004", "99999.1.1.1", "+1.2.3.4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ip := parseIPSloppy(s)
		want := ip != nil && ip.To4() != nil && ip.String() == s
		if got := isCanonicalIPv4(s); got != want {
			t.Fatalf("isCanonicalIPv4(%q) = %v, want %v", s, got, want)
		}
	})
}

// TestConditionAsAPIField holds Condition to the API's *bool it stands for: every field value
// converts to a condition and back to an equal field, and a condition's truth is the field's.
func TestConditionAsAPIField(t *testing.T) {
	for _, tc := range []struct {
		field *bool
		want  Condition
		text  string
	}{
		{nil, ConditionUnset, "unset"},
		{Ptr(false), ConditionFalse, "false"},
		{Ptr(true), ConditionTrue, "true"},
	} {
		c := ConditionFromPtr(tc.field)
		if c != tc.want || c.String() != tc.text {
			t.Errorf("ConditionFromPtr(%v) = %v, want %v", tc.field, c, tc.want)
		}
		back := c.Ptr()
		if (back == nil) != (tc.field == nil) || back != nil && *back != *tc.field {
			t.Errorf("%v.Ptr() = %v, want a field equal to %v", c, back, tc.field)
		}
		if back != nil && back == tc.field {
			t.Errorf("%v.Ptr() returned the caller's pointer, want a new one", c)
		}
		if c.IsSet() != (tc.field != nil) {
			t.Errorf("%v.IsSet() = %v", c, c.IsSet())
		}
	}
	if ConditionOf(true) != ConditionTrue || ConditionOf(false) != ConditionFalse {
		t.Error("ConditionOf does not map true and false to ConditionTrue and ConditionFalse")
	}
	var zero EndpointConditions
	if zero.Ready.IsSet() || zero.Serving.IsSet() || zero.Terminating.IsSet() {
		t.Error("the zero EndpointConditions is not all unset, as an endpoint without conditions")
	}
}
