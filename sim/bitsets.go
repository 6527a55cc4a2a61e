package sim

import "math/bits"

// Bitsets over small integers (nodes, ordinals), 64 a word, for the workload controllers'
// indexes (daemonIndex, ordinalIndex).

// staleSet is the members of an index to read again since its last refresh, each once.
type staleSet struct {
	dirty []int32
	stale []uint64
}

func newStaleSet(n int) staleSet { return staleSet{stale: make([]uint64, (n+63)/64)} }

// mark adds i, unless it is in already.
func (d *staleSet) mark(i int) {
	if d.stale[i/64]&(1<<(i%64)) != 0 {
		return
	}
	d.stale[i/64] |= 1 << (i % 64)
	d.dirty = append(d.dirty, int32(i))
}

// drain calls f with each member, in the order marked, and empties the set.
func (d *staleSet) drain(f func(i int)) {
	for _, i := range d.dirty {
		d.stale[i/64] &^= 1 << (i % 64)
		f(int(i))
	}
	d.dirty = d.dirty[:0]
}

// setBit sets or clears bit i of set.
func setBit(set []uint64, i int, on bool) {
	if on {
		set[i/64] |= 1 << (i % 64)
	} else {
		set[i/64] &^= 1 << (i % 64)
	}
}

// rangeMask is the bits of word w that are members in [lo, hi).
func rangeMask(w, lo, hi int) uint64 {
	m := ^uint64(0)
	if base := w * 64; lo > base {
		m &= ^uint64(0) << (lo - base)
	}
	if end := w*64 + 64; hi < end {
		m &= ^uint64(0) >> (end - hi)
	}
	return m
}

// eachUp calls f with the members in [lo, hi) whose bit word(w) has, lowest first, until f
// returns false.
func eachUp(lo, hi int, word func(w int) uint64, f func(i int) bool) {
	if lo >= hi {
		return
	}
	for w := lo / 64; w <= (hi-1)/64; w++ {
		for b := word(w) & rangeMask(w, lo, hi); b != 0; b &= b - 1 {
			if !f(w*64 + bits.TrailingZeros64(b)) {
				return
			}
		}
	}
}

// eachDown is eachUp from the highest member down.
func eachDown(lo, hi int, word func(w int) uint64, f func(i int) bool) {
	if lo >= hi {
		return
	}
	for w := (hi - 1) / 64; w >= lo/64; w-- {
		for b := word(w) & rangeMask(w, lo, hi); b != 0; {
			top := 63 - bits.LeadingZeros64(b)
			if !f(w*64 + top) {
				return
			}
			b &^= 1 << top
		}
	}
}

// firstIn returns the lowest member in [lo, hi) whose bit word(w) has, or -1.
func firstIn(lo, hi int, word func(w int) uint64) int {
	first := -1
	eachUp(lo, hi, word, func(i int) bool { first = i; return false })
	return first
}

// lastIn returns the highest member in [lo, hi) whose bit word(w) has, or -1.
func lastIn(lo, hi int, word func(w int) uint64) int {
	last := -1
	eachDown(lo, hi, word, func(i int) bool { last = i; return false })
	return last
}

// countIn counts the members in [lo, hi) whose bit word(w) has.
func countIn(lo, hi int, word func(w int) uint64) int {
	n := 0
	if lo >= hi {
		return 0
	}
	for w := lo / 64; w <= (hi-1)/64; w++ {
		n += bits.OnesCount64(word(w) & rangeMask(w, lo, hi))
	}
	return n
}
