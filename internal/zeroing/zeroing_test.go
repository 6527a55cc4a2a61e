package zeroing

import (
	"fmt"
	"testing"
)

type entry struct {
	name string
	p    *int
	n    int
}

// TestClear clears slices of pointers and of structs holding them, of lengths on both sides
// of loopMax, and requires every element zero and nothing around the slice touched.
func TestClear(t *testing.T) {
	for _, n := range []int{0, 1, 2, loopMax - 1, loopMax, loopMax + 1, 100} {
		v := 7
		ptrs := make([]*int, n+2)
		entries := make([]entry, n+2)
		for i := range ptrs {
			ptrs[i] = &v
			entries[i] = entry{name: "x", p: &v, n: i + 1}
		}
		Clear(ptrs[1 : n+1])
		Clear(entries[1 : n+1])
		for i := range ptrs {
			inside := i >= 1 && i <= n
			if (ptrs[i] == nil) != inside {
				t.Errorf("length %d: pointer %d is %v, want cleared %v", n, i, ptrs[i], inside)
			}
			if (entries[i] == entry{}) != inside {
				t.Errorf("length %d: entry %d is %+v, want cleared %v", n, i, entries[i], inside)
			}
		}
	}
}

// BenchmarkClear compares Clear with the builtin on short slices of pointers.
func BenchmarkClear(b *testing.B) {
	for _, n := range []int{1, 4, loopMax, 2 * loopMax} {
		s := make([]*int, n)
		b.Run(fmt.Sprintf("zeroing/%d", n), func(b *testing.B) {
			for b.Loop() {
				Clear(s)
			}
		})
		b.Run(fmt.Sprintf("builtin/%d", n), func(b *testing.B) {
			for b.Loop() {
				clear(s)
			}
		})
	}
}
