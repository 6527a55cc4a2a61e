package sim

// ordinalIndex keeps what a StatefulSet's syncs read of each ordinal, as sets of ordinals
// (bitIndex), so that a sync finds and counts the ordinals it acts on without reading each
// ordinal's pod, or each word of 64 ordinals. A rollout or an OrderedReady creation changes
// one ordinal or a few a sync, a few syncs an ordinal, and each sync read every ordinal's pod:
// a rollout of a Parallel StatefulSet of 20,000 replicas spent 90% of its 6.5 CPU-s in those
// passes.
//
// An ordinal goes stale when its pod comes or goes, starts terminating or changes
// availability (markOrdinal); a new template, or ordinals added by a scale, rebuild it.
type ordinalIndex struct {
	built bool
	hash  string // the template hash the old sets are of
	n     int    // the ordinals covered: len(setState.ordinals)
	// present: the ordinal has a pod; missing: it has none; unhealthy: a pod terminating or
	// not available; bad: missing or unhealthy.
	present, missing, unhealthy, bad bitIndex
	// oldLive: a pod of an old revision not terminating; oldAvailable: one that is also
	// available; oldUnavailable: one that is not. (missing, bad and oldUnavailable follow
	// from the others, but a walk or a count skips only a set's own empty words: each set a
	// sync reads is kept as one.)
	oldLive, oldAvailable, oldUnavailable bitIndex
	// stale are the ordinals to read again.
	stale staleSet
}

// markOrdinal notes that ordinal i of s, a StatefulSet, may have changed.
func (s *serviceState) markOrdinal(i int) {
	if x := &s.set.ordinal; x.built && i < x.n {
		x.stale.mark(i)
	}
}

// refreshOrdinalIndex brings s's index up to date for a sync.
func refreshOrdinalIndex(s *serviceState) *ordinalIndex {
	x := &s.set.ordinal
	if !x.built || x.hash != s.templateHash() || x.n != len(s.set.ordinals) {
		n := len(s.set.ordinals)
		*x = ordinalIndex{
			built: true, hash: s.templateHash(), n: n,
			present: newBitIndex(n), missing: newBitIndex(n), unhealthy: newBitIndex(n), bad: newBitIndex(n),
			oldLive: newBitIndex(n), oldAvailable: newBitIndex(n), oldUnavailable: newBitIndex(n),
			stale: newStaleSet(n),
		}
		for i := range n {
			x.read(s, i)
		}
		return x
	}
	x.stale.drain(func(i int) { x.read(s, i) })
	return x
}

// read sets ordinal i's bits from its pod.
func (x *ordinalIndex) read(s *serviceState, i int) {
	p := s.set.ordinals[i]
	present := p != nil
	unhealthy := present && (p.pod.Terminating || !p.available)
	oldLive := present && !p.pod.Terminating && p.hash() != s.templateHash()
	x.present.set(i, present)
	x.missing.set(i, !present)
	x.unhealthy.set(i, unhealthy)
	x.bad.set(i, !present || unhealthy)
	x.oldLive.set(i, oldLive)
	x.oldAvailable.set(i, oldLive && p.available)
	x.oldUnavailable.set(i, oldLive && !p.available)
}
