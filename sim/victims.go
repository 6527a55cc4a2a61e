package sim

import (
	"cmp"
	"math"
	"math/bits"
	"slices"

	"epsim/model"
)

// The ReplicaSet controller's choice of the pods a scale-down deletes, as upstream ranks
// them (getPodsToDelete sorts the ReplicaSet's active pods by ActivePodsWithRanks.Less and
// deletes the first ones):
//
//  1. unscheduled before scheduled;
//  2. Pending before Running;
//  3. not ready before ready;
//  4. (pod-deletion-cost: the model's pods carry none);
//  5. pods on nodes with more of the Deployment's active pods first (its ReplicaSets'
//     pods, old and new, counted per node);
//  6. of ready pods, the ones ready for less time first, by power-of-two buckets of how
//     long they have been ready (LogarithmicScaleDown), in UID order within a bucket;
//  7. (restart counts: the model's containers never restart);
//  8. then the newer pods first, by power-of-two buckets of their age, in UID order within
//     a bucket.
//
// Times are whole seconds, as the API server stores them, and the buckets are of now minus
// them, so pods that turned ready or were created close together share a bucket and go in
// the random order of their UIDs: a scale-down spreads over the ReplicaSet's youngest pods
// rather than taking the very newest. Upstream's comparator is not a strict order: it goes
// on to the creation time only for ready pods whose ready times are the same second (and
// leaves pods with equal times unordered), so three ready pods can rank in a cycle. The
// model orders ready pods by ready bucket, then UID, and the others by creation bucket, then
// UID: it agrees with upstream on every pair but ready pods that turned ready in the same
// second and were created in different buckets.
// upstream: pkg/controller/replicaset/replica_set.go getPodsToDelete,
// getPodsRankedByRelatedPodsOnSameNode; pkg/controller/controller_utils.go
// ActivePodsWithRanks.Less, logarithmicRankDiff.

// victimRank is one candidate's sort key: keys 1–3, 5 and 6 or 8 packed in key, then the
// UID's first eight bytes and the UID.
type victimRank struct {
	key uint32
	// node is the pod's (-1 unscheduled), so that key 5 is added without reading the pod
	// again.
	node int32
	uid  uint64
	p    *podState
}

// A candidate's packed key is victimKeyBase | colocationKey: its class (keys 1–3: 0
// unscheduled, 1 bound and Pending, 2 Running and not ready, 3 Running and ready), the
// Deployment's active pods on its node (key 5, more first) and its age bucket (key 6 or 8,
// −1..63), so that a smaller key goes first.

// victimKeyColocBits is the width of key 5 in a packed key.
const victimKeyColocBits = 20

// victimKeyBase is a packed key without key 5: the class and the age bucket.
func victimKeyBase(class int8, bucket int8) uint32 {
	return uint32(class)<<(victimKeyColocBits+7) | uint32(bucket+1)
}

// victimKeyClassColocated returns the class and the pods on the node a packed key holds
// (victimKeyBase, colocationKey).
func victimKeyClassColocated(key uint32) (class int8, colocated int32) {
	const most = 1<<victimKeyColocBits - 1
	return int8(key >> (victimKeyColocBits + 7)), most - int32(key>>7&most)
}

// colocationKey is key 5 of a packed key.
func colocationKey(colocated int32) uint32 {
	const most = 1<<victimKeyColocBits - 1
	return (most - uint32(min(max(colocated, 0), most))) << 7
}

// uidPrefix is the big-endian value of s's first eight bytes (zero-padded): it orders as s
// does wherever it differs.
func uidPrefix(s string) uint64 {
	if len(s) >= 8 {
		return uint64(s[0])<<56 | uint64(s[1])<<48 | uint64(s[2])<<40 | uint64(s[3])<<32 |
			uint64(s[4])<<24 | uint64(s[5])<<16 | uint64(s[6])<<8 | uint64(s[7])
	}
	var v uint64
	for i := range 8 {
		v <<= 8
		if i < len(s) {
			v |= uint64(s[i])
		}
	}
	return v
}

// compareVictims orders two candidates, the first to delete first.
func compareVictims(a, b *victimRank) int {
	if a.key != b.key {
		return cmp.Compare(a.key, b.key)
	}
	if a.uid != b.uid {
		return cmp.Compare(a.uid, b.uid)
	}
	return cmp.Compare(a.p.pod.UID, b.p.pod.UID)
}

// ageBucket is upstream's logarithmic rank of a time: int(math.Log2(now − t)) in
// nanoseconds, −1 when t is not before now. upstream: controller_utils.go
// logarithmicRankDiff.
//
// That is ⌊log₂ d⌋, the index of d's top bit, but for d so close below a power of two that
// math.Log2 rounds up to it. Where that could be (within 2⁻³² of the power), and for d too
// small or too large (above 2⁵³, where float64(d) rounds) for the margin to be sure, it
// calls math.Log2 as upstream does, so the two agree on every d; elsewhere it saves the
// logarithm, a tenth of ranking a large ReplicaSet.
func ageBucket(now Time, t model.Timestamp) int8 {
	d := int64(now - virtualTime(t))
	if d <= 0 {
		return -1
	}
	k := bits.Len64(uint64(d)) - 1
	if next := uint64(1) << (k + 1); k >= 53 || k < 8 || uint64(d) >= next-next>>32 {
		return int8(math.Log2(float64(d)))
	}
	return int8(k)
}

// rankOf returns what a pod object gives its victim rank: keys 1–3 of a scheduled pod (1
// Pending, 2 Running and not ready, 3 Running and ready; see victimKeyBase) and the time
// its age bucket is of, the Ready transition's for a ready pod, else the creation's.
func rankOf(pod *model.Pod) (class int8, t model.Timestamp) {
	switch {
	case pod.Phase != model.PodRunning:
		return 1, pod.CreationTimestamp
	case !pod.Ready:
		return 2, pod.CreationTimestamp
	}
	return 3, pod.ReadyTransition
}

// rankTime is the time of rankOf: the ranking reads it of the pod object, where the engine
// kept a copy in every pod's record (8 bytes a pod) for the few rankings of large
// ReplicaSets.
func rankTime(pod *model.Pod) model.Timestamp {
	_, t := rankOf(pod)
	return t
}

// deletionClass is keys 1–3 of a pod: see victimKeyBase.
func deletionClass(p *podState) int8 {
	if p.node < 0 {
		return 0
	}
	return p.rankClass()
}

// victimScratch is the ranking's reusable memory.
type victimScratch struct {
	ranks []victimRank
	// onNode counts the Deployment's active pods per node (index node+1: 0 is unscheduled),
	// valid where stamp holds the ranking's number, gen.
	onNode []int32
	stamp  []uint32
	gen    uint32
	calls  int
	// counts is firstByRecord's count of candidates by class and pods on their node.
	counts []int32
}

// countOnNode counts p on its node for the ranking in progress.
func (sc *victimScratch) countOnNode(p *podState) {
	i := p.node + 1
	if sc.stamp[i] != sc.gen {
		sc.stamp[i], sc.onNode[i] = sc.gen, 0
	}
	sc.onNode[i]++
}

// pickVictims returns the n of rs's live pods the ReplicaSet controller deletes first, in
// that order, at now. When n covers them all upstream deletes them unsorted; they are
// returned in creation order. A few of a large ReplicaSet that is scaled down a few at a
// time come from its victimIndex; otherwise rankVictims ranks every pod.
func (w *workloadControllers) pickVictims(rs *replicaSet, n int, now Time) []*podState {
	if rs.replayOwner() {
		return w.rankVictims(rs, n, now)
	}
	if n > victimsIndexMaxN {
		// A scale-down of many: the ranking costs no more than taking them from an index,
		// and keeping an index costs every pod event on their nodes.
		rs.dropVictimIndex()
		if rs.live >= victimsCandsMin && (rs.rare == nil || rs.rare.cands == nil) {
			r := rs.rareFields()
			if r.manyScaleDowns++; r.manyScaleDowns >= victimsCandsAfter {
				w.buildVictimCands(rs)
			}
		}
		return w.rankVictims(rs, n, now)
	}
	var x *victimIndex
	if rs.rare != nil {
		x = rs.rare.victims
	}
	if x == nil && rs.live >= victimsIndexMin {
		r := rs.rareFields()
		if r.fewScaleDowns++; r.fewScaleDowns >= victimsIndexAfter {
			x = w.buildVictimIndex(rs)
		}
	}
	if x == nil {
		return w.rankVictims(rs, n, now)
	}
	if n >= len(x.placed) {
		// The last of its pods go: the index would be kept for nothing.
		rs.dropVictimIndex()
		return w.rankVictims(rs, n, now)
	}
	out := x.first(n, now)
	if victimsCheck != nil {
		victimsCheck(out, w.rankVictims(rs, n, now))
	}
	return out
}

// victimsCheck, when set (by tests), sees each choice of an index with the ranking's.
var victimsCheck func(index, ranked []*podState)

// victimCandsCheck, when set (by tests), sees each ranking read from a candidate list with
// the ranking of the Service's pod records.
var victimCandsCheck func(fromList, fromRecords []*podState)

// rankVictims is pickVictims by a ranking of every pod of the Service: the first n are
// selected (O(pods) on average) and only they are sorted: a rollout of a 100,000-pod
// Deployment by a quarter at a time makes some 260 such syncs. The selection reads every
// candidate's record, and its object (for the age bucket) only where the keys a record
// gives leave the choice open: the first n and those that tie with the n-th, in that
// rollout 1.9 million objects of the 12.3 million candidates its rankings weigh (reading
// every object was 30% of the run's CPU). Where the ReplicaSet has a candidate list
// (victimCands), it reads the list's entries instead, which hold the object's keys too,
// and copies only the candidates it has not ruled out (firstOfCands).
func (w *workloadControllers) rankVictims(rs *replicaSet, n int, now Time) []*podState {
	var c *victimCands
	if rs.rare != nil {
		c = rs.rare.cands
	}
	if c != nil && n >= len(c.list) {
		// The last of its pods go (in creation order, from the records).
		rs.dropVictimCands()
		c = nil
	}
	out := w.rankFrom(rs, c, n, now)
	if c != nil && victimCandsCheck != nil {
		victimCandsCheck(out, w.rankFrom(rs, nil, n, now))
	}
	return out
}

// rankFrom is rankVictims from rs's candidate list c, or from the Service's pod records
// when c is nil.
func (w *workloadControllers) rankFrom(rs *replicaSet, c *victimCands, n int, now Time) []*podState {
	sc := &w.victims
	sc.calls++
	ranks := sc.ranks[:0]
	defer func() {
		clear(ranks)
		sc.ranks = ranks[:0]
	}()
	// ranks[:lo] come before the n-th candidate by keys 1–5, and ranks[lo:hi] share its.
	var lo, hi int
	gathered := false
	if c != nil && n > 0 && n < len(c.list) {
		ranks, lo, hi, gathered = sc.firstOfCands(c, rs.svc.victims.live, n, now, ranks)
	}
	if !gathered {
		ranks = w.allCandidates(rs, c, ranks)
		n = min(n, len(ranks))
		if n == 0 || n == len(ranks) {
			out := make([]*podState, 0, n)
			for i := range n {
				out = append(out, ranks[i].p)
			}
			return out
		}
		onNode := sc.onNode
		if c != nil {
			onNode = rs.svc.victims.live
		}
		most := int32(0) // the most of the Deployment's pods on a candidate's node
		for i := range ranks {
			r := &ranks[i]
			colocated := onNode[r.node+1]
			most = max(most, colocated)
			r.key |= colocationKey(colocated)
		}
		lo, hi = 0, len(ranks)
		if len(ranks) > victimsReadAllMax {
			lo, hi = sc.firstByRecord(ranks, n, most)
		}
		// The first n by keys 1–5 alone (above); then the age buckets (a read of each
		// pod's object: most of a large ReplicaSet's ranking, when every pod was read)
		// only of those and of the others that share the last of those keys, among which
		// the buckets choose (firstOfCands adds them from the list).
		for i := range hi {
			r := &ranks[i]
			r.key |= uint32(ageBucket(now, rankTime(r.p.pod)) + 1) // the bits victimKeyBase left 0
		}
	}
	// Then the UIDs only of the first n and of the others that share the last full key.
	lo, hi = firstByKey(ranks, lo, hi, n)
	if c == nil {
		for i := range hi {
			ranks[i].uid = uidPrefix(ranks[i].p.pod.UID)
		}
	}
	selectFirst(ranks[lo:hi], n-lo, compareVictims)
	first := ranks[:n]
	slices.SortFunc(first, func(a, b victimRank) int { return compareVictims(&a, &b) })
	out := make([]*podState, 0, n)
	for i := range first {
		out = append(out, first[i].p)
	}
	return out
}

// allCandidates appends every candidate of rs to ranks, with keys 1–3 (victimKeyBase), from
// its candidate list c (with their UID prefixes) or, when c is nil, from the Service's pod
// records, counting the Deployment's live pods by node in the scratch's onNode (index
// node+1).
func (w *workloadControllers) allCandidates(rs *replicaSet, c *victimCands, ranks []victimRank) []victimRank {
	if c != nil {
		for i := range c.list {
			cd := &c.list[i]
			ranks = append(ranks, victimRank{p: cd.p, node: cd.node, key: victimKeyBase(cd.class, -1), uid: cd.uid})
		}
		return ranks
	}
	sc := &w.victims
	if need := len(w.e.nodes) + 1; len(sc.onNode) < need {
		sc.onNode, sc.stamp = make([]int32, need), make([]uint32, need)
	}
	if sc.gen++; sc.gen == 0 {
		clear(sc.stamp)
		sc.gen = 1
	}
	for _, p := range rs.svc.pods {
		if !p.live {
			continue
		}
		sc.countOnNode(p)
		if p.rs() == rs {
			// Keys 1–3 from the pod's record; key 6 or 8 needs its object (see rankFrom).
			ranks = append(ranks, victimRank{p: p, node: p.node, key: victimKeyBase(deletionClass(p), -1)})
		}
	}
	return ranks
}

// firstOfCands is firstByRecord and the age buckets for a ranking at now from candidate
// list c, which it does not copy whole (copying and partitioning every candidate was most
// of a large ranking once no pod object was read): it counts the candidates by class and
// by the Deployment's pods on their node (onNode, index node+1), finds those keys of the
// n-th (0 < n < len(c.list)), and appends to ranks only the candidates at or before them,
// with their full keys and UID prefixes, ranks[:lo] before the n-th's keys 1–5 and
// ranks[lo:hi] at them. It returns ok false, with ranks as it was, where a node has more
// than victimsCountMax of the Deployment's pods.
func (sc *victimScratch) firstOfCands(c *victimCands, onNode []int32, n int, now Time, ranks []victimRank) (_ []victimRank, lo, hi int, ok bool) {
	// counts (countAt), grown as larger counts of pods on a node show up.
	counts := sc.counts[:0]
	most := int32(0)
	for i := range c.list {
		cd := &c.list[i]
		colocated := max(onNode[cd.node+1], 0)
		if colocated > victimsCountMax {
			sc.counts = counts
			return ranks, 0, 0, false
		}
		at := countAt(cd.class, colocated)
		if at >= len(counts) {
			had := len(counts)
			counts = slices.Grow(counts, at+1-had)[:at+1]
			clear(counts[had:])
		}
		counts[at]++
		most = max(most, colocated)
	}
	last := nthRecordKey(counts, most, n)
	sc.counts = counts
	// ranks[:lo] hold the candidates before the n-th's keys 1–5, ranks[lo:] those at them.
	ranks = ranks[:0]
	for i := range c.list {
		cd := &c.list[i]
		key := victimKeyBase(cd.class, -1) | colocationKey(onNode[cd.node+1])
		if key > last {
			continue
		}
		bucket := uint32(ageBucket(now, cd.t) + 1) // the bits victimKeyBase left 0
		ranks = append(ranks, victimRank{p: cd.p, node: cd.node, key: key | bucket, uid: cd.uid})
		if key < last {
			j := len(ranks) - 1
			ranks[lo], ranks[j] = ranks[j], ranks[lo]
			lo++
		}
	}
	return ranks, lo, len(ranks), true
}

// victimsReadAllMax is the number of candidates up to which a ranking reads every pod
// object rather than first choosing by the records' keys: a pass that saves little there.
const victimsReadAllMax = 64

// firstByKey finds the n first of ranks by key, given that ranks[:from] come before the
// others and ranks[to:] after them, and returns (lo, hi) with ranks[:lo] before the n-th
// key, ranks[lo:hi] equal to it and ranks[hi:] after it: the n first are ranks[:lo] and
// n−lo of ranks[lo:hi], which the key does not tell apart.
func firstByKey(ranks []victimRank, from, to, n int) (lo, hi int) {
	part := ranks[from:to]
	k := n - from
	selectFirst(part, k, compareVictimKeys)
	last := part[0].key
	for i := 1; i < k; i++ {
		last = max(last, part[i].key)
	}
	lo, hi = partitionByKey(part, last)
	return from + lo, from + hi
}

// victimsCountMax is the most pods on one node for which firstByRecord counts keys; past it
// (a node with more pods of one Deployment than any kubelet runs) it selects as firstByKey.
const victimsCountMax = 4096

// firstByRecord is firstByKey over all of ranks, whose keys hold keys 1–5 only (a record's),
// with at most most pods of the Deployment on a candidate's node: those keys take few
// values, four classes by the counts of pods on a node, so it counts the candidates of
// each, finds the n-th's in that order and partitions once, where a selection compares
// through a function value on each of its passes (most of a large ranking's time after
// the scan).
func (sc *victimScratch) firstByRecord(ranks []victimRank, n int, most int32) (lo, hi int) {
	if most > victimsCountMax {
		return firstByKey(ranks, 0, len(ranks), n)
	}
	size := 4 * (int(most) + 1)
	counts := slices.Grow(sc.counts[:0], size)[:size]
	clear(counts)
	for i := range ranks {
		class, colocated := victimKeyClassColocated(ranks[i].key)
		counts[countAt(class, colocated)]++
	}
	sc.counts = counts
	return partitionByKey(ranks, nthRecordKey(counts, most, n))
}

// countAt is where firstByRecord and firstOfCands count the candidates of a class with
// colocated of the Deployment's pods on their node.
func countAt(class int8, colocated int32) int { return int(colocated)*4 + int(class) }

// nthRecordKey returns keys 1–5 (victimKeyBase | colocationKey) of the n-th candidate,
// given the candidates' counts by class and pods on their node (countAt; an index past
// the end of counts counts none), most the largest such number of pods, and n at most the
// candidates counted. Keys ascend by class, then by more pods on the node first.
func nthRecordKey(counts []int32, most int32, n int) uint32 {
	left := int32(n)
	for i := 0; ; i++ {
		class, colocated := int8(i/int(most+1)), most-int32(i%int(most+1))
		if at := countAt(class, colocated); at < len(counts) {
			left -= counts[at]
		}
		if left <= 0 {
			return victimKeyBase(class, -1) | colocationKey(colocated)
		}
	}
}

// partitionByKey reorders part into the candidates before key last, those at it and those
// after it, and returns where the second and third groups start.
func partitionByKey(part []victimRank, last uint32) (lo, hi int) {
	lo, hi = 0, len(part) // part[:lo] below last, part[hi:] above
	for i := 0; i < hi; {
		switch key := part[i].key; {
		case key < last:
			part[lo], part[i] = part[i], part[lo]
			lo++
			i++
		case key > last:
			hi--
			part[i], part[hi] = part[hi], part[i]
		default:
			i++
		}
	}
	return lo, hi
}

// compareVictimKeys orders two candidates by key alone.
func compareVictimKeys(a, b *victimRank) int { return cmp.Compare(a.key, b.key) }

// selectFirst reorders r so that r[:n] are its n first by compare (in any order):
// quickselect with a median-of-three pivot and a three-way partition, as many candidates
// share a key.
func selectFirst(r []victimRank, n int, compare func(a, b *victimRank) int) {
	if n <= 0 || n >= len(r) {
		return
	}
	lo, hi := 0, len(r)
	for hi-lo > 16 {
		a, b, c := &r[lo], &r[lo+(hi-lo)/2], &r[hi-1]
		if compare(b, a) < 0 {
			a, b = b, a
		}
		if compare(c, b) < 0 {
			b = c
			if compare(b, a) < 0 {
				b = a
			}
		}
		pivot := *b
		// r[lo:lt] < pivot, r[lt:i] == pivot, r[gt:hi] > pivot.
		lt, i, gt := lo, lo, hi
		for i < gt {
			switch c := compare(&r[i], &pivot); {
			case c < 0:
				r[lt], r[i] = r[i], r[lt]
				lt++
				i++
			case c > 0:
				gt--
				r[i], r[gt] = r[gt], r[i]
			default:
				i++
			}
		}
		switch {
		case n < lt:
			hi = lt
		case n > gt:
			lo = gt
		default:
			return
		}
	}
	// At most 16 left: an insertion sort (a closure for slices.SortFunc, capturing compare,
	// would be one allocation per scale-down).
	for i := lo + 1; i < hi; i++ {
		for j := i; j > lo && compare(&r[j], &r[j-1]) < 0; j-- {
			r[j], r[j-1] = r[j-1], r[j]
		}
	}
}
