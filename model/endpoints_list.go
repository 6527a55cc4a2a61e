package model

import "slices"

// addrList is one sorted address list of a ServiceEndpoints port: the pod states in address
// order (compareEndpointAddress), with the running byte sum. It is a list of sorted chunks of
// at most addrChunkMax entries, each with its own byte sum, so an insert or a removal costs a
// binary search over the chunks, one within a chunk and a memmove of at most addrChunkMax
// pointers: O(log n) plus a constant, where one sorted slice would move O(n) pointers on
// every change of a large Service.
type addrList struct {
	chunks []*addrChunk
	n      int
	bytes  ByEncoding
}

type addrChunk struct {
	items []*endpointsPodState
	bytes ByEncoding
}

// addrChunkMax bounds a chunk; a full chunk is split in two halves.
const addrChunkMax = 512

func (l *addrList) len() int { return l.n }

// chunkFor returns the index of the chunk ps belongs in: the first whose last entry is not
// before ps (the last chunk when ps sorts after everything).
func (l *addrList) chunkFor(ps *endpointsPodState) int {
	i, _ := slices.BinarySearchFunc(l.chunks, ps, func(c *addrChunk, ps *endpointsPodState) int {
		return compareAddressPtr(&c.items[len(c.items)-1].addr, &ps.addr)
	})
	return min(i, len(l.chunks)-1)
}

func compareAddressPtr(a, b *EndpointAddress) int {
	if LessEndpointAddress(a, b) {
		return -1
	}
	if LessEndpointAddress(b, a) {
		return 1
	}
	return 0
}

func endpointsListCompare(a, b *endpointsPodState) int {
	return compareAddressPtr(&a.addr, &b.addr)
}

func (l *addrList) insert(ps *endpointsPodState) {
	l.n++
	endpointsBytesAdd(&l.bytes, ps.bytes.full())
	if len(l.chunks) == 0 {
		l.chunks = []*addrChunk{{items: []*endpointsPodState{ps}, bytes: ps.bytes.full()}}
		return
	}
	ci := l.chunkFor(ps)
	c := l.chunks[ci]
	i, _ := slices.BinarySearchFunc(c.items, ps, endpointsListCompare)
	c.items = slices.Insert(c.items, i, ps)
	endpointsBytesAdd(&c.bytes, ps.bytes.full())
	if len(c.items) <= addrChunkMax {
		return
	}
	half := len(c.items) / 2
	next := &addrChunk{items: slices.Clone(c.items[half:])}
	clear(c.items[half:])
	c.items = c.items[:half:half]
	for _, q := range next.items {
		endpointsBytesAdd(&next.bytes, q.bytes.full())
	}
	endpointsBytesSub(&c.bytes, next.bytes)
	l.chunks = slices.Insert(l.chunks, ci+1, next)
}

func (l *addrList) remove(ps *endpointsPodState) {
	if len(l.chunks) == 0 {
		panic("model: ServiceEndpoints address list lost a pod's address")
	}
	ci := l.chunkFor(ps)
	c := l.chunks[ci]
	i, found := slices.BinarySearchFunc(c.items, ps, endpointsListCompare)
	if !found || c.items[i] != ps {
		panic("model: ServiceEndpoints address list lost a pod's address")
	}
	c.items = slices.Delete(c.items, i, i+1)
	endpointsBytesSub(&c.bytes, ps.bytes.full())
	l.n--
	endpointsBytesSub(&l.bytes, ps.bytes.full())
	if len(c.items) == 0 {
		l.chunks = slices.Delete(l.chunks, ci, ci+1)
	}
}

// each calls f for the first k entries in order (all of them when k < 0).
func (l *addrList) each(k int, f func(i int, ps *endpointsPodState)) {
	if k < 0 || k > l.n {
		k = l.n
	}
	i := 0
	for _, c := range l.chunks {
		for _, ps := range c.items {
			if i == k {
				return
			}
			f(i, ps)
			i++
		}
	}
}

// prefixBytes is Σ bytes of the first k entries: whole chunks by their sums, then part of one.
func (l *addrList) prefixBytes(k int) ByEncoding {
	var sum ByEncoding
	for _, c := range l.chunks {
		if k >= len(c.items) {
			endpointsBytesAdd(&sum, c.bytes)
			k -= len(c.items)
			continue
		}
		for _, ps := range c.items[:k] {
			endpointsBytesAdd(&sum, ps.bytes.full())
		}
		break
	}
	return sum
}
