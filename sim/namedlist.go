package sim

// namedList is a list of items kept by name, in no particular order. A Service has one
// object or a few, so the list is scanned while short and indexed by name only past
// namedListScan items: a map per Service would cost each ~300 bytes. A removal moves the
// last item into the gap.
type namedList[T interface{ listName() string }] struct {
	list  []T
	index map[string]int // name → position in list; nil while the list is short
}

// namedListScan is the length up to which a namedList is scanned.
const namedListScan = 8

// find returns the position of the item of that name, or -1.
func (l *namedList[T]) find(name string) int {
	if l.index != nil {
		if i, ok := l.index[name]; ok {
			return i
		}
		return -1
	}
	for i := range l.list {
		if l.list[i].listName() == name {
			return i
		}
	}
	return -1
}

// put stores v in place of the item of its name, or adds it.
func (l *namedList[T]) put(v T) {
	if i := l.find(v.listName()); i >= 0 {
		l.list[i] = v
		return
	}
	l.add(v)
}

// add appends v, whose name the list does not hold (the caller has just looked it up).
func (l *namedList[T]) add(v T) {
	name := v.listName()
	l.list = append(l.list, v)
	switch {
	case l.index != nil:
		l.index[name] = len(l.list) - 1
	case len(l.list) > namedListScan:
		l.index = make(map[string]int, len(l.list))
		for i := range l.list {
			l.index[l.list[i].listName()] = i
		}
	}
}

// removeAt removes the item at position i: the last one takes its place.
func (l *namedList[T]) removeAt(i int) {
	last := len(l.list) - 1
	if l.index != nil {
		delete(l.index, l.list[i].listName())
		if i < last {
			l.index[l.list[last].listName()] = i
		}
	}
	l.list[i] = l.list[last]
	var zero T
	l.list[last] = zero
	l.list = l.list[:last]
}
