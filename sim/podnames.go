package sim

import "hash/maphash"

// podNameSet is the set of the names of the pods in use, by namespace (names are unique
// within a namespace: two StatefulSets "web" in two namespaces both have a pod "web-0"), so
// that generated names never collide. It holds the pods themselves, in an open-addressing
// table on the hashes of their namespaces and names (linear probing, deletion by backward
// shift), with 32 bits of each hash in a parallel array: a probe reads that array only, and
// a pod's name when its bits match; a shift reads no name. That is 12 bytes per slot, where
// a map of the names took 24 (a string key, padded): 30 MB at 50,000 Services of 10 pods. The
// table fills to 7/8 before it doubles: probes read the hashes, 16 to a cache line, so the
// longer runs cost little, and many-services' 98,960 pods fit in 131,072 slots (1.5 MB)
// rather than the 262,144 that 3/4 took. A pod's namespace and name never change while it
// is in the set.
type podNameSet struct {
	pods []*podState // a power of two long, at most 7/8 full
	// hashes[i] is nameHash of pods[i]'s namespace and name, 0 for a free slot.
	hashes []uint32
	n      int
}

// podNameSeed seeds the hashes of pod names: they only place names in the table, so their
// values never reach a result.
var podNameSeed = maphash.MakeSeed()

// nameHash returns the low 31 bits of the hash of a namespace's hash ns and a name's hash
// name, with bit 31 set (never 0). A table of up to 2³¹ slots finds a name's home slot in
// the low bits. The namespace's hash is multiplied in so that one name in many namespaces
// (a StatefulSet's "redis-0" in each team's) does not fill one run of slots.
func nameHash(ns, name uint64) uint32 { return uint32(name+ns*0x9e3779b97f4a7c15) | 1<<31 }

// podNameHash returns nameHash of namespace and name.
func podNameHash(namespace, name string) uint32 {
	return nameHash(maphash.String(podNameSeed, namespace), maphash.String(podNameSeed, name))
}

// holds reports whether p is the pod namespace/name.
func holds(p *podState, namespace, name string) bool {
	return p.pod.Name == name && p.pod.Namespace == namespace
}

// newPodNameSet returns a set sized for hint names.
func newPodNameSet(hint int) podNameSet {
	size := 16
	for size/8*7 < hint {
		size *= 2
	}
	return podNameSet{pods: make([]*podState, size), hashes: make([]uint32, size)}
}

// has reports whether the pod namespace/name is in the set.
func (s *podNameSet) has(namespace, name string) bool {
	h := podNameHash(namespace, name)
	mask := len(s.pods) - 1
	for i := int(h) & mask; s.hashes[i] != 0; i = (i + 1) & mask {
		if s.hashes[i] == h && holds(s.pods[i], namespace, name) {
			return true
		}
	}
	return false
}

// hasBytes is has for a name being built.
func (s *podNameSet) hasBytes(namespace string, name []byte) bool {
	h := nameHash(maphash.String(podNameSeed, namespace), maphash.Bytes(podNameSeed, name))
	mask := len(s.pods) - 1
	for i := int(h) & mask; s.hashes[i] != 0; i = (i + 1) & mask {
		if s.hashes[i] == h && holds(s.pods[i], namespace, string(name)) {
			return true
		}
	}
	return false
}

// add puts p in the set under its namespace and name, which no pod of the set has.
func (s *podNameSet) add(p *podState) {
	if (s.n+1)*8 > len(s.pods)*7 {
		s.grow()
	}
	s.put(p, podNameHash(p.pod.Namespace, p.pod.Name))
	s.n++
}

func (s *podNameSet) put(p *podState, h uint32) {
	mask := len(s.pods) - 1
	i := int(h) & mask
	for s.hashes[i] != 0 {
		i = (i + 1) & mask
	}
	s.pods[i], s.hashes[i] = p, h
}

func (s *podNameSet) grow() {
	pods, hashes := s.pods, s.hashes
	size := max(2*len(pods), 16)
	s.pods, s.hashes = make([]*podState, size), make([]uint32, size)
	for i, h := range hashes {
		if h != 0 {
			s.put(pods[i], h)
		}
	}
}

// remove takes the pod namespace/name out of the set, if it is in it.
func (s *podNameSet) remove(namespace, name string) {
	h := podNameHash(namespace, name)
	mask := len(s.pods) - 1
	i := int(h) & mask
	for {
		if s.hashes[i] == 0 {
			return
		}
		if s.hashes[i] == h && holds(s.pods[i], namespace, name) {
			break
		}
		i = (i + 1) & mask
	}
	// Shift back the pods after the hole that probing would no longer reach: those whose
	// home slot is not cyclically in (hole, their slot].
	for j := (i + 1) & mask; s.hashes[j] != 0; j = (j + 1) & mask {
		home := int(s.hashes[j]) & mask
		if i <= j {
			if i < home && home <= j {
				continue
			}
		} else if i < home || home <= j {
			continue
		}
		s.pods[i], s.hashes[i] = s.pods[j], s.hashes[j]
		i = j
	}
	s.pods[i], s.hashes[i] = nil, 0
	s.n--
}

// len returns the number of names in the set.
func (s *podNameSet) len() int { return s.n }
