package model

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestKeyCountsMatchesMap drives keyCounts and a map with the same random increments and
// decrements, on both sides of the list's index threshold, and compares every count, the
// index and each key's port list (the one it was first counted with) after each step.
func TestKeyCountsMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for round := range 40 {
		var c keyCounts
		want := map[PortMapKey]int{}
		wantPorts := map[PortMapKey][]EndpointPort{}
		universe := 1 + r.IntN(3*keyCountsListMax) // some rounds never leave the list
		for step := range 500 {
			k := PortMapKey(fmt.Sprint("key-", r.IntN(universe)))
			if want[k] > 0 && r.IntN(2) == 0 {
				c.dec(k)
				if want[k]--; want[k] == 0 {
					delete(want, k)
				}
			} else {
				ports := []EndpointPort{{Port: Ptr(int32(step))}}
				if want[k] == 0 {
					wantPorts[k] = ports
				}
				c.inc(k, ports)
				want[k]++
			}
			if len(c.list) != len(want) {
				t.Fatalf("round %d step %d: %d keys, want %d", round, step, len(c.list), len(want))
			}
			for i := range universe {
				k := PortMapKey(fmt.Sprint("key-", i))
				if got := c.get(k); got != want[k] {
					t.Fatalf("round %d step %d: count of %s is %d, want %d", round, step, k, got, want[k])
				}
				if want[k] > 0 && *c.ports(k)[0].Port != *wantPorts[k][0].Port {
					t.Fatalf("round %d step %d: ports of %s are from step %d, want %d", round, step, k, *c.ports(k)[0].Port, *wantPorts[k][0].Port)
				}
			}
			if c.index != nil {
				for i, kc := range c.list {
					if c.index[kc.key] != i || len(c.index) != len(c.list) {
						t.Fatalf("round %d step %d: index of %s is %d, want %d", round, step, kc.key, c.index[kc.key], i)
					}
				}
			}
		}
	}
}

// TestKeyCountsDecBelowZeroPanics: a count going negative is a reconciler bug, not a state.
func TestKeyCountsDecBelowZeroPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("dec of an absent key did not panic")
		}
	}()
	var c keyCounts
	c.dec("x")
}
