package model

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestHashSetMatchesMap drives a hashSet and a map with the same random adds and removes,
// across the list/map boundary in both directions, and compares the members after each step.
func TestHashSetMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 50 {
		var h hashSet
		want := map[endpointHash]struct{}{}
		universe := 4 + r.IntN(4*hashSetListMax) // some rounds never leave the list
		for step := range 400 {
			k := endpointHash{hi: uint64(r.IntN(universe)), lo: 7}
			if r.IntN(3) == 0 {
				h.remove(k)
				delete(want, k)
			} else {
				h.add(k)
				want[k] = struct{}{}
			}
			if step%50 == 0 {
				h.compact(200)
			}
			got := h.appendTo(nil)
			if len(got) != len(want) || h.len() != len(want) {
				t.Fatalf("round %d step %d: %d members (len %d), want %d", round, step, len(got), h.len(), len(want))
			}
			slices.SortFunc(got, func(a, b endpointHash) int { return a.compare(b) })
			if len(slices.Compact(got)) != len(got) {
				t.Fatalf("round %d step %d: duplicate members %v", round, step, got)
			}
			for _, k := range got {
				if _, ok := want[k]; !ok {
					t.Fatalf("round %d step %d: %v is a member, want not", round, step, k)
				}
			}
			if h.m != nil && len(h.list) != 0 {
				t.Fatalf("round %d step %d: both map and list hold members", round, step)
			}
		}
	}
}
