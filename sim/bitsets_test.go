package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBitIndexAsASet changes random members of bitIndexes of several sizes (around the
// word and the summary word) and checks every query against a plain set after each change:
// members up and down a range, the first and last, counts, and walks stopped early. A
// bitIndex without counts (newBitWalk) must answer the same, but for counts.
func TestBitIndexAsASet(t *testing.T) {
	rng := rand.New(rand.NewPCG(65, 1))
	for _, counted := range []bool{true, false} {
		for _, n := range []int{1, 63, 64, 65, 200, 4095, 4096, 4097, 9000} {
			name, newIndex := fmt.Sprint(n), newBitIndex
			if !counted {
				name, newIndex = "walk/"+name, newBitWalk
			}
			t.Run(name, func(t *testing.T) {
				x, want := newIndex(n), make([]bool, n)
				members := func(lo, hi int) []int {
					var out []int
					for i := lo; i < hi; i++ {
						if want[i] {
							out = append(out, i)
						}
					}
					return out
				}
				dense := n / 2
				for step := range 600 {
					// Runs of changes, some to fill the set densely, some to empty it.
					i, on := rng.IntN(n), rng.IntN(n) < dense
					if step%100 == 0 {
						dense = rng.IntN(n + 1)
					}
					x.set(i, on)
					want[i] = on
					for w, word := range x.bits[:x.words] { // the summary is exact: a walk skips every empty word
						if got := x.summary()[w/64]>>(w%64)&1 == 1; got != (word != 0) {
							t.Fatalf("step %d: summary bit of word %d is %v, the word %#x", step, w, got, word)
						}
					}
					lo := rng.IntN(n + 1)
					hi := lo + rng.IntN(n+1-lo)
					if step%50 == 0 {
						lo, hi = 0, n
					}
					m := members(lo, hi)
					var up, down []int
					x.eachUp(lo, hi, func(i int) bool { up = append(up, i); return true })
					x.eachDown(lo, hi, func(i int) bool { down = append(down, i); return true })
					slices.Reverse(down)
					if !slices.Equal(up, m) || !slices.Equal(down, m) {
						t.Fatalf("step %d, [%d, %d): up %v, down (reversed) %v, want %v", step, lo, hi, up, down, m)
					}
					first, last := -1, -1
					if len(m) > 0 {
						first, last = m[0], m[len(m)-1]
					}
					if got := x.first(lo, hi); got != first {
						t.Fatalf("step %d, [%d, %d): first %d, want %d", step, lo, hi, got, first)
					}
					if got := x.last(lo, hi); got != last {
						t.Fatalf("step %d, [%d, %d): last %d, want %d", step, lo, hi, got, last)
					}
					if !counted {
						// A walk has no counts: asking one is a bug, not a wrong answer.
						if step == 0 && !panics(func() { x.count(0, n) }) {
							t.Fatal("count of a bitIndex without counts did not panic")
						}
					} else if got := x.count(lo, hi); got != len(m) {
						t.Fatalf("step %d, [%d, %d): count %d, want %d", step, lo, hi, got, len(m))
					}
					if k := 1 + rng.IntN(3); len(m) > k {
						var got []int
						x.eachUp(lo, hi, func(i int) bool { got = append(got, i); return len(got) < k })
						if !slices.Equal(got, m[:k]) {
							t.Fatalf("step %d, [%d, %d): stopped after %d: %v, want %v", step, lo, hi, k, got, m[:k])
						}
					}
				}
			})
		}
	}
}

// panics reports whether f panics.
func panics(f func()) (did bool) {
	defer func() { did = recover() != nil }()
	f()
	return false
}

// TestSlowStartBatchOf: every item's batch is the one slowStart gives it, with and without
// a largest batch.
func TestSlowStartBatchOf(t *testing.T) {
	for _, maxBatch := range []int{0, 1, 3, 4, 500} {
		for _, n := range []int{1, 2, 7, 100, 1023, 5000} {
			slowStart(n, maxBatch, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					if glo, ghi := slowStartBatchOf(i, n, maxBatch); glo != lo || ghi != hi {
						t.Fatalf("maxBatch %d, n %d: item %d in [%d, %d), want [%d, %d)", maxBatch, n, i, glo, ghi, lo, hi)
					}
				}
			})
		}
	}
}
