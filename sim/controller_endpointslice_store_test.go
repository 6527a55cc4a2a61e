package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"epsim/model"
)

// TestSliceStore drives a sliceStore and a map with the same random sets and removals,
// across the length where the store starts indexing, and requires the same contents.
func TestSliceStore(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var st sliceStore
	want := map[string]*storedSlice{}
	for step := range 3000 {
		name := fmt.Sprint("s-", r.IntN(3*namedListScan))
		if r.IntN(3) == 0 {
			st.remove(name)
			delete(want, name)
		} else {
			ss := &storedSlice{slice: &model.EndpointSlice{ObjectMeta: model.ObjectMeta{Name: name}}}
			st.put(ss)
			want[name] = ss
		}
		if len(st.list) != len(want) {
			t.Fatalf("step %d: %d stored, want %d", step, len(st.list), len(want))
		}
		for n, ss := range want {
			if got := st.get(n); got != ss {
				t.Fatalf("step %d: get(%s) = %v, want %v", step, n, got, ss)
			}
		}
		if st.get("absent") != nil {
			t.Fatalf("step %d: found a slice never stored", step)
		}
		var names []string
		for _, ss := range st.list {
			names = append(names, ss.slice.Name)
		}
		slices.Sort(names)
		if len(slices.Compact(names)) != len(st.list) {
			t.Fatalf("step %d: a name is listed twice: %v", step, names)
		}
	}
	if st.index == nil {
		t.Fatal("the random sets never grew the store past its scan length")
	}
}
