package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"epsim/model"
)

// objectName is a namespaced object's name: names are unique within a namespace.
type objectName struct{ namespace, name string }

// TestPodNameSetMatchesMap drives a podNameSet and a map of names with the same random adds
// and removes (removes of absent names too), from a small table that must grow, and requires
// the same answers throughout: probing across the end of the table and shifting back on
// removal keep every name reachable, and one name in several namespaces is several pods.
func TestPodNameSetMatchesMap(t *testing.T) {
	namespaces := []string{"default", "team-a", "team-b"}
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 7))
		set := newPodNameSet(r.IntN(40))
		want := map[objectName]bool{}
		var names []objectName
		for i := range 100 {
			for _, ns := range namespaces {
				names = append(names, objectName{ns, fmt.Sprintf("web-%d", i)})
			}
		}
		for step := range 5000 {
			n := names[r.IntN(len(names))]
			if r.IntN(3) > 0 && !want[n] {
				set.add(&podState{pod: &model.Pod{PodIdentity: model.NewPodIdentity(n.namespace, n.name, "")}})
				want[n] = true
			} else {
				set.remove(n.namespace, n.name)
				delete(want, n)
			}
			if set.len() != len(want) {
				t.Fatalf("seed %d step %d: %d names, want %d", seed, step, set.len(), len(want))
			}
			if step%50 == 0 {
				for _, n := range names {
					if set.has(n.namespace, n.name) != want[n] || set.hasBytes(n.namespace, []byte(n.name)) != want[n] {
						t.Fatalf("seed %d step %d: has(%s/%s) = %v, want %v", seed, step, n.namespace, n.name, set.has(n.namespace, n.name), want[n])
					}
				}
			}
		}
	}
}

// TestPodNameSetFillsToSevenEighths holds the table's load to 7/8: a set sized for a
// run's pods takes the smallest power of two that holds them so (a probe reads 4 bytes a
// slot, so a long run of full slots costs a cache line or two), and grows past it only.
func TestPodNameSetFillsToSevenEighths(t *testing.T) {
	for _, tc := range []struct{ hint, slots int }{
		{0, 16}, {14, 16}, {15, 32}, {98960, 131072}, {114688, 131072}, {114689, 262144},
	} {
		if got := len(newPodNameSet(tc.hint).pods); got != tc.slots {
			t.Errorf("newPodNameSet(%d): %d slots, want %d", tc.hint, got, tc.slots)
		}
	}
	set := newPodNameSet(0)
	for i := range 28 { // 16 slots hold 14 names, 32 hold 28
		set.add(&podState{pod: &model.Pod{PodIdentity: model.NewPodIdentity("default", fmt.Sprintf("web-%d", i), "")}})
		if want := map[bool]int{true: 16, false: 32}[i < 14]; len(set.pods) != want {
			t.Fatalf("after %d names: %d slots, want %d", i+1, len(set.pods), want)
		}
	}
}
