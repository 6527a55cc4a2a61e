package sim

import "hash/maphash"

// podNameSet is the set of the names of the pods in use, so that generated names never
// collide. It holds the pods themselves, in an open-addressing table on the hashes of their
// names (linear probing, deletion by backward shift): a pointer per slot, where a map of the
// names took 24 bytes per slot (30 MB at 50,000 Services of 10 pods). A pod's name never
// changes while it is in the set.
type podNameSet struct {
	slots []*podState // a power of two long, at most 3/4 full
	n     int
}

// podNameSeed seeds the hashes of pod names: they only place names in the table, so their
// values never reach a result.
var podNameSeed = maphash.MakeSeed()

// newPodNameSet returns a set sized for hint names.
func newPodNameSet(hint int) podNameSet {
	size := 16
	for size/4*3 < hint {
		size *= 2
	}
	return podNameSet{slots: make([]*podState, size)}
}

// has reports whether a pod named name is in the set.
func (s *podNameSet) has(name string) bool {
	mask := len(s.slots) - 1
	for i := int(maphash.String(podNameSeed, name)) & mask; ; i = (i + 1) & mask {
		q := s.slots[i]
		if q == nil {
			return false
		}
		if q.pod.Name == name {
			return true
		}
	}
}

// hasBytes is has for a name being built.
func (s *podNameSet) hasBytes(name []byte) bool {
	mask := len(s.slots) - 1
	for i := int(maphash.Bytes(podNameSeed, name)) & mask; ; i = (i + 1) & mask {
		q := s.slots[i]
		if q == nil {
			return false
		}
		if q.pod.Name == string(name) {
			return true
		}
	}
}

// add puts p in the set under p.pod.Name, which no pod of the set has.
func (s *podNameSet) add(p *podState) {
	if (s.n+1)*4 > len(s.slots)*3 {
		s.grow()
	}
	s.put(p)
	s.n++
}

func (s *podNameSet) put(p *podState) {
	mask := len(s.slots) - 1
	i := s.home(p)
	for s.slots[i] != nil {
		i = (i + 1) & mask
	}
	s.slots[i] = p
}

// home is the slot p's name hashes to.
func (s *podNameSet) home(p *podState) int {
	return int(maphash.String(podNameSeed, p.pod.Name)) & (len(s.slots) - 1)
}

func (s *podNameSet) grow() {
	old := s.slots
	s.slots = make([]*podState, max(2*len(old), 16))
	for _, p := range old {
		if p != nil {
			s.put(p)
		}
	}
}

// remove takes the pod named name out of the set, if one is in it.
func (s *podNameSet) remove(name string) {
	mask := len(s.slots) - 1
	i := int(maphash.String(podNameSeed, name)) & mask
	for {
		q := s.slots[i]
		if q == nil {
			return
		}
		if q.pod.Name == name {
			break
		}
		i = (i + 1) & mask
	}
	// Shift back the pods after the hole that probing would no longer reach: those whose
	// home slot is not cyclically in (hole, their slot].
	for j := (i + 1) & mask; s.slots[j] != nil; j = (j + 1) & mask {
		h := s.home(s.slots[j])
		if i <= j {
			if i < h && h <= j {
				continue
			}
		} else if i < h || h <= j {
			continue
		}
		s.slots[i] = s.slots[j]
		i = j
	}
	s.slots[i] = nil
	s.n--
}

// len returns the number of names in the set.
func (s *podNameSet) len() int { return s.n }
