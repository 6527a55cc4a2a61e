package model

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestNameList checks the chunked list against one sorted slice over random adds and drops
// (chunks split and emptied), and that walking it yields the names in order.
func TestNameList(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var l nameList
	var want []*storedSlice
	byName := map[string]*storedSlice{}
	for step := range 20000 {
		name := fmt.Sprintf("web-%05d", rng.IntN(3000))
		if ss, ok := byName[name]; ok && rng.IntN(3) > 0 {
			l.remove(ss)
			delete(byName, name)
			i, _ := slices.BinarySearchFunc(want, name, byStoredName)
			want = slices.Delete(want, i, i+1)
		} else if !ok {
			ss := &storedSlice{s: &EndpointSlice{ObjectMeta: ObjectMeta{Name: name}}}
			l.insert(ss)
			byName[name] = ss
			i, _ := slices.BinarySearchFunc(want, name, byStoredName)
			want = slices.Insert(want, i, ss)
		}
		if step%97 != 0 && step != 19999 {
			continue
		}
		var got []*storedSlice
		for _, c := range l.chunks {
			if len(c) == 0 || len(c) > nameChunkMax {
				t.Fatalf("step %d: a chunk of %d", step, len(c))
			}
			got = append(got, c...)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: the list differs from the sorted slice", step)
		}
		if l.empty() != (len(want) == 0) {
			t.Fatalf("step %d: empty() = %v with %d slices", step, l.empty(), len(want))
		}
	}
	// Dropping one that is not there changes nothing.
	n := len(want)
	l.remove(&storedSlice{s: &EndpointSlice{ObjectMeta: ObjectMeta{Name: "absent"}}})
	total := 0
	for _, c := range l.chunks {
		total += len(c)
	}
	if total != n {
		t.Fatalf("removing an absent slice: %d slices, want %d", total, n)
	}
}
