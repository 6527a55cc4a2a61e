package model

// keyCounts numbers the port maps of one Service's pods and counts the pods per port map,
// and keeps each port map's port list (the first pod's with it: pods with one key resolve
// equal lists, in Service port order), which a new slice of that port map is made with.
//
// A pod entry keeps its port map's number, a keyID, rather than its key: 4 bytes instead
// of 16, which makes an entry 48 bytes instead of 64. A number stays its key's until reset
// (a change of the Service), even while no pod counts for it, so that a number cached in
// an entry (podEntry, flagPortsValid) stays right: a Service's pods resolve one port map
// almost always, a few at most, so the keys kept are few.
//
// The keys are a short list scanned in place, with an index only past keyCountsListMax
// keys: a map per Service cost about 500 bytes of the 10,000 Services' memory for the one
// entry it held.
type keyCounts struct {
	list  []keyCount
	index map[PortMapKey]keyID // number of each key (nil: scan the list)
}

// keyID is a port map's number in its Service's keyCounts: its position in the list.
type keyID uint32

type keyCount struct {
	key   PortMapKey
	n     int
	ports []EndpointPort
}

// keyCountsListMax is the most keys scanned before the list is indexed.
const keyCountsListMax = 8

// find returns the number of k, or false when k has none.
func (c *keyCounts) find(k PortMapKey) (keyID, bool) {
	if c.index != nil {
		id, ok := c.index[k]
		return id, ok
	}
	for i := range c.list {
		if c.list[i].key == k {
			return keyID(i), true
		}
	}
	return 0, false
}

// id returns the number of k, numbering it now, with ports as its list, if it has none.
func (c *keyCounts) id(k PortMapKey, ports []EndpointPort) keyID {
	if id, ok := c.find(k); ok {
		return id
	}
	id := keyID(len(c.list))
	c.list = append(c.list, keyCount{key: k, ports: ports})
	switch {
	case c.index != nil:
		c.index[k] = id
	case len(c.list) > keyCountsListMax:
		c.index = make(map[PortMapKey]keyID, 2*len(c.list))
		for i := range c.list {
			c.index[c.list[i].key] = keyID(i)
		}
	}
	return id
}

// key returns the key numbered id.
func (c *keyCounts) key(id keyID) PortMapKey { return c.list[id].key }

// get returns the count of k (0 when it has no number).
func (c *keyCounts) get(k PortMapKey) int {
	if id, ok := c.find(k); ok {
		return c.list[id].n
	}
	return 0
}

// ports returns the port list of the key numbered id.
func (c *keyCounts) ports(id keyID) []EndpointPort { return c.list[id].ports }

// inc adds one to the count of the key numbered id.
func (c *keyCounts) inc(id keyID) { c.list[id].n++ }

// dec takes one from the count of the key numbered id, which must be positive.
func (c *keyCounts) dec(id keyID) {
	if int(id) >= len(c.list) || c.list[id].n <= 0 {
		panic("model: a port map's pod count went below zero")
	}
	c.list[id].n--
}

// reset forgets every key and count.
func (c *keyCounts) reset() { *c = keyCounts{} }
