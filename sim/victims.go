package sim

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// The ReplicaSet controller deletes pods in this order: unscheduled before scheduled,
// not-ready before ready, newer before older (seq is unique within a Service, so the order
// is strict). A ReplicaSet keeps its live pods
// indexed by those keys, so that a scale-down sync of n pods costs O(n log pods), not a walk
// of every pod of the Service: a rollout of a 100,000-pod Deployment makes some 200 such
// syncs.

// numDeletionClasses is the number of (scheduled, ready) combinations.
const numDeletionClasses = 4

// deletionClass is the rank of a pod's (scheduled, ready) pair in the deletion order: 0 is
// deleted first; within a class newer pods (higher seq) go first.
// upstream: pkg/controller/controller_utils.go ActivePodsWithRanks (simplified to these keys).
func deletionClass(node int32, ready bool) int {
	c := 0
	if node >= 0 {
		c = 2
	}
	if ready {
		c++
	}
	return c
}

// victimIndex is a ReplicaSet's live pods by deletion class, each class a set of pod seqs.
// The sets are bitsets over seq-base with one summary bit per word, interleaved by class
// (word w of class c is words[w*numDeletionClasses+c]), so that the next lower member of a
// class is found in O(1 + gap/4096) word reads and an index costs half a byte per seq of its
// span.
type victimIndex struct {
	// words holds bit i of class c's word w at words[w*numDeletionClasses+c]; the last group
	// of numDeletionClasses words is never all zero.
	words []uint64
	// summary holds bit j of class c's summary word k at summary[k*numDeletionClasses+c]: set
	// iff class c's word 64k+j is not zero.
	summary []uint64
	base    int32 // the seq of bit 0
	n       int32 // members of every class
}

// wordGroups is the number of words of each class.
func (x *victimIndex) wordGroups() int { return len(x.words) / numDeletionClasses }

// add puts seq in class c.
func (x *victimIndex) add(c int, seq int32) {
	if seq < x.base {
		x.lowerBase(seq)
	}
	i := int(seq - x.base)
	w := i >> 6
	if w >= x.wordGroups() {
		x.grow(w + 1) // may raise base
		i = int(seq - x.base)
		w = i >> 6
	}
	x.words[w*numDeletionClasses+c] |= 1 << (i & 63)
	x.summary[(w>>6)*numDeletionClasses+c] |= 1 << (w & 63)
	x.n++
}

// remove takes seq out of class c, where it is.
func (x *victimIndex) remove(c int, seq int32) {
	i := int(seq - x.base)
	w := i >> 6
	k := w*numDeletionClasses + c
	x.words[k] &^= 1 << (i & 63)
	x.n--
	if x.words[k] != 0 {
		return
	}
	x.summary[(w>>6)*numDeletionClasses+c] &^= 1 << (w & 63)
	if w == x.wordGroups()-1 {
		// The top word group may be empty now: cut to the highest member left.
		top := -1
		for d := range numDeletionClasses {
			top = max(top, x.below(d, math.MaxInt))
		}
		groups := (top >> 6) + 1 // 0 when no member is left
		x.words = x.words[:groups*numDeletionClasses]
		x.summary = x.summary[:((groups+63)>>6)*numDeletionClasses]
	}
}

// grow makes room for groups word groups. When the array must grow and the lower half of
// it holds no member any more, the members move down instead (base rises), so that a
// long-lived ReplicaSet whose old pods went does not keep their span.
func (x *victimIndex) grow(groups int) {
	if groups*numDeletionClasses > cap(x.words) {
		low := math.MaxInt
		for c := range numDeletionClasses {
			if i := x.lowest(c); i >= 0 {
				low = min(low, i)
			}
		}
		// Shift by whole summary words: 64 word groups, 4096 seqs.
		if shift := (low >> 12) << 6; low != math.MaxInt && shift > 0 && 2*shift >= x.wordGroups() {
			n := copy(x.words, x.words[shift*numDeletionClasses:])
			x.words = x.words[:n]
			n = copy(x.summary, x.summary[(shift>>6)*numDeletionClasses:])
			x.summary = x.summary[:n]
			x.base += int32(shift << 6)
			groups -= shift
		}
	}
	if d := groups*numDeletionClasses - len(x.words); d > 0 {
		x.words = append(x.words, make([]uint64, d)...)
	}
	if d := ((groups+63)>>6)*numDeletionClasses - len(x.summary); d > 0 {
		x.summary = append(x.summary, make([]uint64, d)...)
	}
}

// lowerBase moves base down to seq or below, by whole summary words.
func (x *victimIndex) lowerBase(seq int32) {
	shift := (int(x.base-seq) + 4095) >> 12 // summary words
	words := make([]uint64, shift*64*numDeletionClasses+len(x.words))
	copy(words[shift*64*numDeletionClasses:], x.words)
	summary := make([]uint64, shift*numDeletionClasses+len(x.summary))
	copy(summary[shift*numDeletionClasses:], x.summary)
	x.words, x.summary = words, summary
	x.base -= int32(shift << 12)
}

// below returns the highest member of class c under position i (seq-base), or -1.
func (x *victimIndex) below(c, i int) int {
	groups := x.wordGroups()
	if i <= 0 || groups == 0 {
		return -1
	}
	i--
	w := i >> 6
	if w >= groups {
		w, i = groups-1, groups<<6-1
	}
	if m := x.words[w*numDeletionClasses+c] & lowBits(i&63); m != 0 {
		return w<<6 + 63 - bits.LeadingZeros64(m)
	}
	// The next lower non-zero word, from the summary.
	if w--; w < 0 {
		return -1
	}
	k := w >> 6
	m := x.summary[k*numDeletionClasses+c] & lowBits(w&63)
	for m == 0 {
		if k--; k < 0 {
			return -1
		}
		m = x.summary[k*numDeletionClasses+c]
	}
	w = k<<6 + 63 - bits.LeadingZeros64(m)
	return w<<6 + 63 - bits.LeadingZeros64(x.words[w*numDeletionClasses+c])
}

// lowest returns the lowest member of class c (seq-base), or -1.
func (x *victimIndex) lowest(c int) int {
	for k := c; k < len(x.summary); k += numDeletionClasses {
		if m := x.summary[k]; m != 0 {
			w := (k/numDeletionClasses)<<6 + bits.TrailingZeros64(m)
			return w<<6 + bits.TrailingZeros64(x.words[w*numDeletionClasses+c])
		}
	}
	return -1
}

// lowBits is a mask of bits 0..b.
func lowBits(b int) uint64 { return ^uint64(0) >> (63 - b) }

// indexPod adds p to or removes it from its ReplicaSet's victim index, in the class of node
// and ready.
func (p *podState) indexPod(in bool, node int32, ready bool) {
	if p.rs == nil {
		return
	}
	rs := p.rs.resolve()
	c := deletionClass(node, ready)
	if in {
		if rs.victims == nil {
			rs.victims = &victimIndex{base: p.seq}
		}
		rs.victims.add(c, p.seq)
		return
	}
	rs.victims.remove(c, p.seq)
	if rs.victims.n == 0 {
		rs.victims = nil
	}
}

// reclass moves a live pod to its current deletion class after its node or readiness
// changed from oldNode and oldReady.
func (p *podState) reclass(oldNode int32, oldReady bool) {
	if !p.live || p.rs == nil || deletionClass(oldNode, oldReady) == deletionClass(p.node, p.pod.Ready) {
		return
	}
	p.indexPod(false, oldNode, oldReady)
	p.indexPod(true, p.node, p.pod.Ready)
}

// mergeVictims adds every member of from to into, which may be nil; from is left alone.
func mergeVictims(into, from *victimIndex) *victimIndex {
	if from == nil {
		return into
	}
	if into == nil {
		return from
	}
	if from.n > into.n {
		into, from = from, into
	}
	for c := range numDeletionClasses {
		for i := from.below(c, math.MaxInt); i >= 0; i = from.below(c, i) {
			into.add(c, from.base+int32(i))
		}
	}
	return into
}

// pickVictims returns the n first of rs's live pods in deletionRank order, in that order.
func (rs *replicaSet) pickVictims(n int) []*podState {
	x := rs.victims
	if x == nil || n <= 0 {
		return nil
	}
	out := make([]*podState, 0, min(n, int(x.n)))
	pods := rs.svc.pods
	for c := 0; c < numDeletionClasses && len(out) < n; c++ {
		for i := x.below(c, math.MaxInt); i >= 0 && len(out) < n; i = x.below(c, i) {
			seq := x.base + int32(i)
			k, ok := slices.BinarySearchFunc(pods, seq, func(p *podState, seq int32) int { return cmp.Compare(p.seq, seq) })
			if !ok {
				panic(fmt.Sprintf("sim: victim index of %s holds pod seq %d, which is not a pod of the Service", rs.hash, seq))
			}
			out = append(out, pods[k])
		}
	}
	return out
}
