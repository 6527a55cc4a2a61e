package sim

// seenObjects is one Service's objects as a kube-proxy last saw them, by name: their
// endpoint counts, from which each event's change is the difference. It replaced one map
// per kube-proxy keyed by namespace and name, whose lookups (two strings hashed, a probe
// among every object of the cluster) were 2 % of many-services' CPU.
type seenObjects struct {
	namedList[seenObject]
}

type seenObject struct {
	name   string
	counts objectEndpoints
}

func (o seenObject) listName() string { return o.name }

// set records the counts of name, and returns the ones it had (zero for an object not seen).
func (o *seenObjects) set(name string, counts objectEndpoints) (old objectEndpoints) {
	if i := o.find(name); i >= 0 {
		old, o.list[i].counts = o.list[i].counts, counts
		return old
	}
	o.add(seenObject{name: name, counts: counts})
	return objectEndpoints{}
}

// remove forgets name, and returns the counts it had (zero for an object not seen).
func (o *seenObjects) remove(name string) (old objectEndpoints) {
	i := o.find(name)
	if i < 0 {
		return objectEndpoints{}
	}
	old = o.list[i].counts
	o.removeAt(i)
	return old
}
