package model

// keyCounts counts the pods per port map of one Service. A Service's pods almost always
// resolve one port map, so the counts are a short list scanned in place, with an index
// only past keyCountsListMax keys: a map per Service cost about 500 bytes of the 10,000
// Services' memory for the one entry it held.
type keyCounts struct {
	list  []keyCount
	index map[PortMapKey]int // position of each key in list (nil: scan the list)
}

type keyCount struct {
	key PortMapKey
	n   int
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

// inc adds one to the count of k.
func (c *keyCounts) inc(k PortMapKey) {
	if i := c.find(k); i >= 0 {
		c.list[i].n++
		return
	}
	c.list = append(c.list, keyCount{key: k, n: 1})
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
