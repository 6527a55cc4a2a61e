package sim

// seenObjects is one Service's objects as a kube-proxy last saw them, by name: their
// endpoint counts, from which each event's change is the difference. A Service has one
// object or a few, so the list is scanned, and indexed by name only past seenObjectsScan
// of them. It replaced one map per kube-proxy keyed by namespace and name, whose lookups
// (two strings hashed, a probe among every object of the cluster) were 2 % of
// many-services' CPU.
type seenObjects struct {
	list  []seenObject
	index map[string]int // position in list; nil while the list is short
}

type seenObject struct {
	name   string
	counts objectEndpoints
}

// seenObjectsScan is the length up to which a seenObjects list is scanned.
const seenObjectsScan = 8

func (o *seenObjects) find(name string) int {
	if o.index != nil {
		if i, ok := o.index[name]; ok {
			return i
		}
		return -1
	}
	for i := range o.list {
		if o.list[i].name == name {
			return i
		}
	}
	return -1
}

// set records the counts of name, and returns the ones it had (zero for an object not seen).
func (o *seenObjects) set(name string, counts objectEndpoints) (old objectEndpoints) {
	if i := o.find(name); i >= 0 {
		old, o.list[i].counts = o.list[i].counts, counts
		return old
	}
	o.list = append(o.list, seenObject{name: name, counts: counts})
	switch {
	case o.index != nil:
		o.index[name] = len(o.list) - 1
	case len(o.list) > seenObjectsScan:
		o.index = make(map[string]int, len(o.list))
		for i := range o.list {
			o.index[o.list[i].name] = i
		}
	}
	return objectEndpoints{}
}

// remove forgets name, and returns the counts it had (zero for an object not seen).
func (o *seenObjects) remove(name string) (old objectEndpoints) {
	i := o.find(name)
	if i < 0 {
		return objectEndpoints{}
	}
	old = o.list[i].counts
	last := len(o.list) - 1
	o.list[i] = o.list[last]
	o.list[last] = seenObject{}
	o.list = o.list[:last]
	if o.index != nil {
		delete(o.index, name)
		if i < last {
			o.index[o.list[i].name] = i
		}
	}
	return old
}
