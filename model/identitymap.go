package model

import (
	"iter"
	"math/bits"
)

// identityMap is a hash map from endpoint identity to V, for the reconciler's per-family
// indexes, which every pod change reads and writes. An identity is already 64 bits of an FNV
// hash, so the map spreads it with one multiplication instead of hashing its 8 bytes again
// as Go's maps do, and keeps keys and values in one array, probed linearly: a lookup reads
// one or two adjacent slots, where a Go map reads a control word and then the slot. At 100k
// pods in one Service, hashing and probing Go's maps was a sixth of the run.
//
// The zero identity marks an empty slot; a real zero identity (one chance in 2^64) is kept
// in a field of its own. The zero identityMap is empty and ready to use; it allocates on the
// first insert. Pointers returned by ref and slot stay valid until the next insert or delete.
type identityMap[V any] struct {
	slots []identitySlot[V] // nil, or a count of slots of identityMapSize's sequence
	n     int32             // keys in slots
	// hasZero and zero hold the zero identity's entry.
	hasZero bool
	zero    V
}

type identitySlot[V any] struct {
	key endpointHash
	val V
}

const (
	// identityMapMinSlots is the table's smallest size.
	identityMapMinSlots = 4
	// identityMapSmall is the largest table that may be filled to 7/8 rather than 3/4:
	// its probes stay within a few cache lines, and most Services are small (at 3/4, a
	// Service of 10 endpoints had 32 slots in each of the two maps it kept then, 1.8 KB).
	identityMapSmall = 16
	// identityMapMixer is 2^64 divided by the golden ratio (Fibonacci hashing).
	identityMapMixer = 0x9e3779b97f4a7c15
)

func (k endpointHash) isZero() bool { return k == 0 }

// len returns the number of keys.
func (m *identityMap[V]) len() int {
	if m.hasZero {
		return int(m.n) + 1
	}
	return int(m.n)
}

// home is k's first slot: the mix of k scaled to the table's size (its top bits, for a
// power of two).
func (m *identityMap[V]) home(k endpointHash) int {
	hi, _ := bits.Mul64(uint64(k)*identityMapMixer, uint64(len(m.slots)))
	return int(hi)
}

// next is the slot after i, the first after the last.
func (m *identityMap[V]) next(i int) int {
	if i++; i == len(m.slots) {
		return 0
	}
	return i
}

// identityMapSize returns the size a table of size slots grows to: 4, 6, 8, 12, 16, 24,
// 32, 48, ... (×1.5 from a power of two, ×4/3 to the next). Doubling left a table that
// had just grown half empty: the maps of many-services' Services, most of 10 to 20
// endpoints, held one key per two slots at its peak.
func identityMapSize(slots int) int {
	switch {
	case slots < identityMapMinSlots:
		return identityMapMinSlots
	case slots&(slots-1) == 0:
		return slots / 2 * 3
	}
	return slots / 3 * 4
}

// find returns the slot holding k (k not zero), or -1.
func (m *identityMap[V]) find(k endpointHash) int {
	if m.n == 0 {
		return -1
	}
	for i := m.home(k); ; i = m.next(i) {
		switch s := &m.slots[i]; {
		case s.key == k:
			return i
		case s.key.isZero():
			return -1
		}
	}
}

// get returns k's value and whether k is present.
func (m *identityMap[V]) get(k endpointHash) (V, bool) {
	if p := m.ref(k); p != nil {
		return *p, true
	}
	var zero V
	return zero, false
}

// ref returns a pointer to k's value, or nil when k is absent.
func (m *identityMap[V]) ref(k endpointHash) *V {
	if k.isZero() {
		if m.hasZero {
			return &m.zero
		}
		return nil
	}
	if i := m.find(k); i >= 0 {
		return &m.slots[i].val
	}
	return nil
}

// slot returns a pointer to k's value, inserting k with the zero value first when it is
// absent, and whether k was present.
func (m *identityMap[V]) slot(k endpointHash) (p *V, present bool) {
	if k.isZero() {
		present = m.hasZero
		if !present {
			var zero V
			m.hasZero, m.zero = true, zero
		}
		return &m.zero, present
	}
	if overloaded(int(m.n)+1, len(m.slots)) {
		m.grow()
	}
	for i := m.home(k); ; i = m.next(i) {
		switch s := &m.slots[i]; {
		case s.key == k:
			return &s.val, true
		case s.key.isZero():
			s.key = k
			m.n++
			return &s.val, false
		}
	}
}

// overloaded reports whether n keys exceed the load a table of size slots may take: 7/8
// up to identityMapSmall slots, 3/4 above (and an empty table holds none).
func overloaded(n, slots int) bool {
	if slots <= identityMapSmall {
		return n*8 > slots*7
	}
	return n*4 > slots*3
}

// set is m[k] = v.
func (m *identityMap[V]) set(k endpointHash, v V) {
	p, _ := m.slot(k)
	*p = v
}

// grow makes the table the next size (or makes the first one) and re-inserts every key.
func (m *identityMap[V]) grow() {
	old := m.slots
	m.slots = make([]identitySlot[V], identityMapSize(len(old)))
	for j := range old {
		if old[j].key.isZero() {
			continue
		}
		i := m.home(old[j].key)
		for !m.slots[i].key.isZero() {
			i = m.next(i)
		}
		m.slots[i] = old[j]
	}
}

// delete removes k, if present. The keys after it in its run move back into the gap
// (backward-shift deletion), so that the table needs no tombstones.
func (m *identityMap[V]) delete(k endpointHash) {
	if k.isZero() {
		var zero V
		m.hasZero, m.zero = false, zero
		return
	}
	i := m.find(k)
	if i < 0 {
		return
	}
	for j := m.next(i); !m.slots[j].key.isZero(); j = m.next(j) {
		// The key at j may fill the gap at i when i lies between its home and j.
		if m.distance(m.home(m.slots[j].key), j) >= m.distance(i, j) {
			m.slots[i] = m.slots[j]
			i = j
		}
	}
	m.slots[i] = identitySlot[V]{}
	m.n--
}

// distance is how many slots on from i j is, going round past the last.
func (m *identityMap[V]) distance(i, j int) int {
	if d := j - i; d >= 0 {
		return d
	}
	return j - i + len(m.slots)
}

// clear removes every key, keeping the table.
func (m *identityMap[V]) clear() {
	if m.n > 0 {
		clear(m.slots)
	}
	var zero V
	m.n, m.hasZero, m.zero = 0, false, zero
}

// all yields every key and its value, in no particular order. The map must not change
// while it runs.
func (m *identityMap[V]) all() iter.Seq2[endpointHash, V] {
	return func(yield func(endpointHash, V) bool) {
		if m.hasZero && !yield(endpointHash(0), m.zero) {
			return
		}
		for i := range m.slots {
			if s := &m.slots[i]; !s.key.isZero() && !yield(s.key, s.val) {
				return
			}
		}
	}
}
