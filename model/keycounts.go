package model

// keyCounts counts the pods per port map of one Service, and keeps each port map's port
// list (any counted pod's: pods with one key resolve equal lists, in Service port order),
// which a new slice of that port map is made with. A Service's pods almost always
// resolve one port map, so the counts are a short list scanned in place, with an index
// only past keyCountsListMax keys: a map per Service cost about 500 bytes of the 10,000
// Services' memory for the one entry it held.
type keyCounts struct {
	list  []keyCount
	index map[PortMapKey]int // position of each key in list (nil: scan the list)
}

type keyCount struct {
	key   PortMapKey
	n     int
	ports []EndpointPort
}

// keyCountsListMax is the most keys scanned before the list is indexed.
const keyCountsListMax = 8

// find returns the position of k in the list, or -1.
func (c *keyCounts) find(k PortMapKey) int {
	if c.index != nil {
		if i, ok := c.index[k]; ok {
			return i
		}
		return -1
	}
	for i := range c.list {
		if c.list[i].key == k {
			return i
		}
	}
	return -1
}

// get returns the count of k (0 when absent).
func (c *keyCounts) get(k PortMapKey) int {
	if i := c.find(k); i >= 0 {
		return c.list[i].n
	}
	return 0
}

// ports returns the port list of k, which must be counted.
func (c *keyCounts) ports(k PortMapKey) []EndpointPort {
	if i := c.find(k); i >= 0 {
		return c.list[i].ports
	}
	panic("model: the port list of a port map without pods")
}

// incPresent adds one to the count of k and reports true when k is counted, else does
// nothing and reports false (the caller then resolves k's ports for inc).
func (c *keyCounts) incPresent(k PortMapKey) bool {
	if i := c.find(k); i >= 0 {
		c.list[i].n++
		return true
	}
	return false
}

// inc adds one to the count of k, whose ports are ports.
func (c *keyCounts) inc(k PortMapKey, ports []EndpointPort) {
	if c.incPresent(k) {
		return
	}
	c.list = append(c.list, keyCount{key: k, n: 1, ports: ports})
	switch {
	case c.index != nil:
		c.index[k] = len(c.list) - 1
	case len(c.list) > keyCountsListMax:
		c.index = make(map[PortMapKey]int, 2*len(c.list))
		for i := range c.list {
			c.index[c.list[i].key] = i
		}
	}
}

// dec takes one from the count of k, which must be positive; a key whose count reaches
// zero is dropped.
func (c *keyCounts) dec(k PortMapKey) {
	i := c.find(k)
	if i < 0 || c.list[i].n <= 0 {
		panic("model: a port map's pod count went below zero")
	}
	if c.list[i].n--; c.list[i].n > 0 {
		return
	}
	last := len(c.list) - 1
	if i != last {
		c.list[i] = c.list[last]
		if c.index != nil {
			c.index[c.list[i].key] = i
		}
	}
	c.list[last] = keyCount{}
	c.list = c.list[:last]
	if c.index != nil {
		delete(c.index, k)
	}
}

// reset forgets every count.
func (c *keyCounts) reset() { *c = keyCounts{} }
