package model

import "iter"

// smallMap is a map for the reconciler's per-Service tables that hold one or two entries in
// most Services (the stored slices by name, the slice groups by port map): up to
// smallMapScan entries it is a list of pairs, searched in place, and beyond that a Go map. A
// Go map of one entry costs about 250 bytes, and 10,000 Services had two each. The zero
// smallMap is empty and ready to use.
//
// Its order of iteration is the list's while small and the map's beyond: callers that need
// an order sort, as they would with a map.
type smallMap[K comparable, V any] struct {
	small []smallPair[K, V]
	big   map[K]V // nil while the entries fit in small
}

type smallPair[K comparable, V any] struct {
	k K
	v V
}

// smallMapScan is the most entries kept in the list.
const smallMapScan = 8

// len returns the number of entries.
func (m *smallMap[K, V]) len() int {
	if m.big != nil {
		return len(m.big)
	}
	return len(m.small)
}

// get returns k's value and whether k is present.
func (m *smallMap[K, V]) get(k K) (V, bool) {
	if m.big != nil {
		v, ok := m.big[k]
		return v, ok
	}
	for i := range m.small {
		if m.small[i].k == k {
			return m.small[i].v, true
		}
	}
	var zero V
	return zero, false
}

// at returns k's value, or the zero value when k is absent.
func (m *smallMap[K, V]) at(k K) V {
	v, _ := m.get(k)
	return v
}

// set sets k's value.
func (m *smallMap[K, V]) set(k K, v V) {
	if m.big != nil {
		m.big[k] = v
		return
	}
	for i := range m.small {
		if m.small[i].k == k {
			m.small[i].v = v
			return
		}
	}
	if len(m.small) < smallMapScan {
		m.small = append(m.small, smallPair[K, V]{k, v})
		return
	}
	m.big = make(map[K]V, 2*smallMapScan)
	for _, p := range m.small {
		m.big[p.k] = p.v
	}
	m.big[k] = v
	m.small = nil
}

// delete removes k, if present.
func (m *smallMap[K, V]) delete(k K) {
	if m.big != nil {
		delete(m.big, k)
		return
	}
	for i := range m.small {
		if m.small[i].k == k {
			last := len(m.small) - 1
			m.small[i] = m.small[last]
			m.small[last] = smallPair[K, V]{} // keep nothing alive
			m.small = m.small[:last]
			if last == 0 {
				m.small = nil
			}
			return
		}
	}
}

// all yields every entry; the map must not be changed meanwhile.
func (m *smallMap[K, V]) all() iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		if m.big != nil {
			for k, v := range m.big {
				if !yield(k, v) {
					return
				}
			}
			return
		}
		for _, p := range m.small {
			if !yield(p.k, p.v) {
				return
			}
		}
	}
}
