package sim

import (
	"math/rand/v2"
	"slices"
	"testing"

	"epsim/model"
)

// TestPickVictims compares pickVictims with sorting every pod by deletionRank, on random
// ReplicaSets of scheduled/unscheduled and ready/not-ready pods and every kind of n.
func TestPickVictims(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 400 {
		m := r.IntN(300)
		if trial%50 == 0 {
			m = 5000
		}
		pods := make([]*podState, m)
		for i, seq := range r.Perm(m) {
			p := &podState{seq: int32(seq), node: -1, pod: &model.Pod{Ready: r.IntN(2) == 0}}
			if r.IntN(3) > 0 {
				p.node = int32(r.IntN(10))
			}
			pods[i] = p
		}
		want := slices.Clone(pods)
		slices.SortStableFunc(want, deletionRank)
		for _, n := range []int{0, 1, r.IntN(m + 1), m / 2, m - 1, m, m + 3} {
			if n < 0 {
				continue
			}
			got := pickVictims(slices.Clone(pods), n)
			if k := min(n, m); !slices.Equal(got, want[:k]) {
				t.Fatalf("trial %d: %d pods, n=%d: victims differ from the sorted order", trial, m, n)
			}
		}
	}
}
