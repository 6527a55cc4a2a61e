package model

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestKeyCountsMatchesMap drives keyCounts and a map with the same random increments and
// decrements, on both sides of the list's index threshold, and compares after each step
// every count, every key's number (the same from when it is first numbered, counted or
// not, until reset), the index and each key's port list (the one it was first numbered
// with); a reset in some rounds forgets them all.
func TestKeyCountsMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for round := range 40 {
		var c keyCounts
		want := map[PortMapKey]int{}
		wantPorts := map[PortMapKey][]EndpointPort{}
		ids := map[PortMapKey]keyID{}
		universe := 1 + r.IntN(3*keyCountsListMax) // some rounds never leave the list
		for step := range 500 {
			if round%4 == 3 && step == 250 {
				c.reset()
				clear(want)
				clear(wantPorts)
				clear(ids)
			}
			k := PortMapKey(fmt.Sprint("key-", r.IntN(universe)))
			if want[k] > 0 && r.IntN(2) == 0 {
				c.dec(ids[k])
				want[k]--
			} else {
				ports := []EndpointPort{{Port: Ptr(int32(step))}}
				id := c.id(k, ports)
				if old, ok := ids[k]; ok && old != id {
					t.Fatalf("round %d step %d: %s is numbered %d, was %d", round, step, k, id, old)
				}
				if _, ok := wantPorts[k]; !ok {
					wantPorts[k] = ports
				}
				ids[k] = id
				c.inc(id)
				want[k]++
			}
			if len(c.list) != len(ids) {
				t.Fatalf("round %d step %d: %d keys, want %d", round, step, len(c.list), len(ids))
			}
			for i := range universe {
				k := PortMapKey(fmt.Sprint("key-", i))
				if got := c.get(k); got != want[k] {
					t.Fatalf("round %d step %d: count of %s is %d, want %d", round, step, k, got, want[k])
				}
				id, ok := ids[k]
				if !ok {
					continue
				}
				if c.key(id) != k {
					t.Fatalf("round %d step %d: key %d is %s, want %s", round, step, id, c.key(id), k)
				}
				if *c.ports(id)[0].Port != *wantPorts[k][0].Port {
					t.Fatalf("round %d step %d: ports of %s are from step %d, want %d", round, step, k, *c.ports(id)[0].Port, *wantPorts[k][0].Port)
				}
			}
			if c.index != nil {
				for i, kc := range c.list {
					if c.index[kc.key] != keyID(i) || len(c.index) != len(c.list) {
						t.Fatalf("round %d step %d: index of %s is %d, want %d", round, step, kc.key, c.index[kc.key], i)
					}
				}
			}
		}
	}
}

// TestKeyCountsDecBelowZeroPanics: a count going negative is a reconciler bug, not a state.
func TestKeyCountsDecBelowZeroPanics(t *testing.T) {
	for _, counted := range []bool{false, true} {
		func() {
			defer func() {
				if recover() == nil {
					t.Fatalf("dec of a key counted %v times too many did not panic", counted)
				}
			}()
			var c keyCounts
			id := c.id("x", nil)
			if counted {
				c.inc(id)
				c.dec(id)
			}
			c.dec(id)
		}()
	}
}
