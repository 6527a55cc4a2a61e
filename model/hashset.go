package model

// hashSet is a set of endpoint identities: a scanned list while it holds at most
// hashSetListMax members, a map beyond. A family's dirty set holds the few endpoints changed
// since the last sync most of the time; a map allocated for each change and dropped at the
// next sync was the reconciler's largest source of garbage. The list keeps its array.
type hashSet struct {
	list []endpointHash
	m    map[endpointHash]struct{} // non-nil: the members are here, list is empty
}

// hashSetListMax is the largest list; 16 identities are 256 bytes, scanned faster than hashed.
const hashSetListMax = 16

func (h *hashSet) len() int {
	if h.m != nil {
		return len(h.m)
	}
	return len(h.list)
}

func (h *hashSet) add(k endpointHash) {
	if h.m != nil {
		h.m[k] = struct{}{}
		return
	}
	for _, x := range h.list {
		if x == k {
			return
		}
	}
	if len(h.list) < hashSetListMax {
		h.list = append(h.list, k)
		return
	}
	h.m = make(map[endpointHash]struct{}, 2*hashSetListMax)
	for _, x := range h.list {
		h.m[x] = struct{}{}
	}
	h.m[k] = struct{}{}
	h.list = h.list[:0]
}

func (h *hashSet) remove(k endpointHash) {
	if h.m != nil {
		delete(h.m, k)
		if len(h.m) == 0 {
			h.m = nil // a map keeps its table when emptied; most families are clean most of the time
		}
		return
	}
	for i, x := range h.list {
		if x == k {
			last := len(h.list) - 1
			h.list[i] = h.list[last]
			h.list = h.list[:last]
			return
		}
	}
}

// appendTo appends the members to buf, in no particular order.
func (h *hashSet) appendTo(buf []endpointHash) []endpointHash {
	if h.m == nil {
		return append(buf, h.list...)
	}
	for k := range h.m {
		buf = append(buf, k)
	}
	return buf
}

// compact rebuilds the map when it has shrunk to a quarter of what was visited: a map that
// was big stays expensive to range over.
func (h *hashSet) compact(visited int) {
	if h.m == nil || visited <= 64 || len(h.m) >= visited/4 {
		return
	}
	fresh := make(map[endpointHash]struct{}, len(h.m))
	for k := range h.m {
		fresh[k] = struct{}{}
	}
	h.m = fresh
}
