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
		universe := 4 + r.IntN(8*hashSetListMax) // some rounds never leave the list
		for step := range 400 {
			k := endpointHash(r.IntN(universe)<<8 | 7)
			switch op := r.IntN(40); {
			case op == 0: // take every member, then put back those with an odd hi
				taken := h.takeAll(nil)
				if len(taken) != len(want) || h.len() != 0 {
					t.Fatalf("round %d step %d: took %d members leaving %d, want %d leaving 0", round, step, len(taken), h.len(), len(want))
				}
				clear(want)
				for _, x := range taken {
					if x>>8%2 == 1 {
						h.add(x)
						want[x] = struct{}{}
					}
				}
			case op < 14:
				h.remove(k)
				delete(want, k)
			default:
				h.add(k)
				want[k] = struct{}{}
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
			if h.pos != nil {
				for i, k := range h.list {
					if p, ok := h.pos.get(k); !ok || int(p) != i || h.pos.len() != len(h.list) {
						t.Fatalf("round %d step %d: index of %v is %d (%v), want %d", round, step, k, p, ok, i)
					}
				}
			}
		}
	}
}

// TestHashSetLetsBigBatchesGo checks that a set emptied after holding more than
// hashSetKeepMax members keeps neither its list nor its index, and still works after.
func TestHashSetLetsBigBatchesGo(t *testing.T) {
	var h hashSet
	for i := range 2 * hashSetKeepMax {
		h.add(endpointHash(i))
	}
	for i := range 2 * hashSetKeepMax {
		h.remove(endpointHash(i))
	}
	if h.list != nil || h.pos != nil || h.len() != 0 {
		t.Fatalf("emptied big set kept list cap %d, index %v", cap(h.list), h.pos != nil)
	}
	h.add(endpointHash(1))
	h.add(endpointHash(1))
	if h.len() != 1 {
		t.Fatalf("len %d after adding one member twice", h.len())
	}
}
