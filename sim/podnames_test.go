package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"epsim/model"
)

// TestPodNameSetMatchesMap drives a podNameSet and a map of names with the same random adds
// and removes (removes of absent names too), from a small table that must grow, and requires
// the same answers throughout: probing across the end of the table and shifting back on
// removal keep every name reachable.
func TestPodNameSetMatchesMap(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 7))
		set := newPodNameSet(r.IntN(40))
		want := map[string]bool{}
		names := make([]string, 300)
		for i := range names {
			names[i] = fmt.Sprintf("web-%d", i)
		}
		for step := range 5000 {
			name := names[r.IntN(len(names))]
			if r.IntN(3) > 0 && !want[name] {
				set.add(&podState{pod: &model.Pod{PodIdentity: model.NewPodIdentity("", name, "")}})
				want[name] = true
			} else {
				set.remove(name)
				delete(want, name)
			}
			if set.len() != len(want) {
				t.Fatalf("seed %d step %d: %d names, want %d", seed, step, set.len(), len(want))
			}
			if step%50 == 0 {
				for _, n := range names {
					if set.has(n) != want[n] || set.hasBytes([]byte(n)) != want[n] {
						t.Fatalf("seed %d step %d: has(%s) = %v, want %v", seed, step, n, set.has(n), want[n])
					}
				}
			}
		}
	}
}
