package model

// hashSet is a set of endpoint identities, kept as a list (ranged over in O(members)) with
// a position index for membership once it has held more than hashSetListMax members; below
// that the list is scanned. A family's dirty set holds the few endpoints changed since the
// last sync most of the time, and is emptied by most syncs: maps made for each change and
// dropped at the next sync were the reconciler's largest source of garbage, so the list and
// the index are kept when the set empties, unless they grew past hashSetKeepMax.
type hashSet struct {
	list []endpointHash
	pos  *identityMap[int32] // index of each member in list (nil: scan the list)
}

const (
	// hashSetListMax is the most members scanned; 16 identities are 256 bytes.
	hashSetListMax = 16
	// hashSetKeepMax is the largest capacity kept once the set is empty again.
	hashSetKeepMax = 1024
)

func (h *hashSet) len() int { return len(h.list) }

func (h *hashSet) add(k endpointHash) {
	if h.pos != nil {
		if p, present := h.pos.slot(k); !present {
			*p = int32(len(h.list))
			h.list = append(h.list, k)
		}
		return
	}
	for _, x := range h.list {
		if x == k {
			return
		}
	}
	h.list = append(h.list, k)
	if len(h.list) > hashSetListMax {
		h.pos = &identityMap[int32]{}
		for i, x := range h.list {
			h.pos.set(x, int32(i))
		}
	}
}

func (h *hashSet) remove(k endpointHash) {
	i := -1
	if h.pos != nil {
		if p, ok := h.pos.get(k); ok {
			i = int(p)
			h.pos.delete(k)
		}
	} else {
		for j, x := range h.list {
			if x == k {
				i = j
				break
			}
		}
	}
	if i < 0 {
		return
	}
	last := len(h.list) - 1
	if i != last {
		moved := h.list[last]
		h.list[i] = moved
		if h.pos != nil {
			h.pos.set(moved, int32(i))
		}
	}
	h.list = h.list[:last]
	if last == 0 && cap(h.list) > hashSetKeepMax {
		h.list, h.pos = nil, nil // do not keep a big batch's memory for the small syncs after it
	}
}

// takeAll appends the members to buf, in no particular order, and empties the set.
func (h *hashSet) takeAll(buf []endpointHash) []endpointHash {
	buf = append(buf, h.list...)
	switch {
	case cap(h.list) > hashSetKeepMax:
		h.list, h.pos = nil, nil // do not keep a big batch's memory for the small syncs after it
		return buf
	case h.pos == nil:
	case len(h.list) < 4*hashSetListMax:
		// A map that once indexed a big batch would cost more to clear than a few deletes.
		for _, k := range h.list {
			h.pos.delete(k)
		}
	default:
		h.pos.clear()
	}
	h.list = h.list[:0]
	return buf
}

// appendTo appends the members to buf, in no particular order.
func (h *hashSet) appendTo(buf []endpointHash) []endpointHash {
	return append(buf, h.list...)
}
