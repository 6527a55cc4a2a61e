package sim

import "math/bits"

// ordinalIndex keeps what a StatefulSet's syncs read of each ordinal, as bitsets over the
// ordinals, so that a sync reads words of 64 ordinals rather than each ordinal's pod. A
// rollout or an OrderedReady creation changes one ordinal or a few a sync, a few syncs an
// ordinal, and each sync read every ordinal's pod: a rollout of a Parallel StatefulSet of
// 20,000 replicas spent 90% of its 6.5 CPU-s in those passes.
//
// An ordinal goes stale when its pod comes or goes, starts terminating or changes
// availability (markOrdinal); a new template, or ordinals added by a scale, rebuild it.
type ordinalIndex struct {
	built bool
	hash  string // the template hash oldLive and oldAvailable are of
	n     int    // the ordinals covered: len(setState.ordinals)
	// present: the ordinal has a pod; unhealthy: a pod terminating or not available;
	// oldLive: a pod of an old revision not terminating; oldAvailable: one that is also
	// available.
	present, unhealthy, oldLive, oldAvailable []uint64
	// dirty are the ordinals to read again (each once: stale marks it).
	dirty []int32
	stale []uint64
}

// markOrdinal notes that ordinal i of s, a StatefulSet, may have changed.
func (s *serviceState) markOrdinal(i int) {
	x := &s.set.ordinal
	if !x.built || i >= x.n || x.stale[i/64]&(1<<(i%64)) != 0 {
		return
	}
	x.stale[i/64] |= 1 << (i % 64)
	x.dirty = append(x.dirty, int32(i))
}

// refreshOrdinalIndex brings s's index up to date for a sync.
func refreshOrdinalIndex(s *serviceState) *ordinalIndex {
	x := &s.set.ordinal
	if !x.built || x.hash != s.templateHash() || x.n != len(s.set.ordinals) {
		n := len(s.set.ordinals)
		words := (n + 63) / 64
		*x = ordinalIndex{
			built: true, hash: s.templateHash(), n: n,
			present: make([]uint64, words), unhealthy: make([]uint64, words),
			oldLive: make([]uint64, words), oldAvailable: make([]uint64, words),
			stale: make([]uint64, words),
		}
		for i := range n {
			x.read(s, i)
		}
		return x
	}
	for _, i := range x.dirty {
		x.stale[i/64] &^= 1 << (i % 64)
		x.read(s, int(i))
	}
	x.dirty = x.dirty[:0]
	return x
}

// read sets ordinal i's bits from its pod.
func (x *ordinalIndex) read(s *serviceState, i int) {
	p := s.set.ordinals[i]
	present := p != nil
	unhealthy := present && (p.pod.Terminating || !p.available)
	oldLive := present && !p.pod.Terminating && p.hash() != s.templateHash()
	setBit(x.present, i, present)
	setBit(x.unhealthy, i, unhealthy)
	setBit(x.oldLive, i, oldLive)
	setBit(x.oldAvailable, i, oldLive && p.available)
}

func setBit(set []uint64, i int, on bool) {
	if on {
		set[i/64] |= 1 << (i % 64)
	} else {
		set[i/64] &^= 1 << (i % 64)
	}
}

// rangeMask is the bits of word w that are ordinals in [lo, hi).
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

// eachUp calls f with the ordinals in [lo, hi) whose bit word(w) has, lowest first, until f
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

// eachDown is eachUp from the highest ordinal down.
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

// firstIn returns the lowest ordinal in [lo, hi) whose bit word(w) has, or -1.
func firstIn(lo, hi int, word func(w int) uint64) int {
	first := -1
	eachUp(lo, hi, word, func(i int) bool { first = i; return false })
	return first
}

// lastIn returns the highest ordinal in [lo, hi) whose bit word(w) has, or -1.
func lastIn(lo, hi int, word func(w int) uint64) int {
	last := -1
	eachDown(lo, hi, word, func(i int) bool { last = i; return false })
	return last
}

// countIn counts the ordinals in [lo, hi) whose bit word(w) has.
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

// The words the plans read: an ordinal with no pod, one missing or unhealthy, and an old
// pod not terminating that is not available.
func (x *ordinalIndex) missing(w int) uint64            { return ^x.present[w] }
func (x *ordinalIndex) missingOrUnhealthy(w int) uint64 { return ^x.present[w] | x.unhealthy[w] }
func (x *ordinalIndex) oldUnavailable(w int) uint64     { return x.oldLive[w] &^ x.oldAvailable[w] }
func (x *ordinalIndex) presentWord(w int) uint64        { return x.present[w] }
func (x *ordinalIndex) unhealthyWord(w int) uint64      { return x.unhealthy[w] }
func (x *ordinalIndex) oldLiveWord(w int) uint64        { return x.oldLive[w] }
func (x *ordinalIndex) oldAvailableWord(w int) uint64   { return x.oldAvailable[w] }
