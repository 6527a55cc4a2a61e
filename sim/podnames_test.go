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
