package model

import "slices"

// nameList is a sliceGroup's slices of one endpoint count, in name order (sliceGroup.bySize):
// sorted chunks of at most nameChunkMax slices, so that adding or dropping one costs a
// binary search over the chunks, one within a chunk and a move of at most nameChunkMax
// pointers, and a chunk split or dropped now and then a move of the chunk list. One sorted
// slice moved half the list at each: with maxEndpointsPerSlice 1 a Service has a slice an
// endpoint, nearly all of one count, and each slice created or deleted moved O(n) pointers
// (a Deployment of 80,000 pods rolled one pod at a time: 1.3 of 12.8 CPU-s).
type nameList struct {
	chunks [][]*storedSlice // each sorted by name and not empty; in name order
}

// nameChunkMax is the most slices a chunk holds; a fuller one is split in two.
const nameChunkMax = 128

// chunkFor returns the index of the chunk where name is or would go: the last whose first
// name is not after it (0 when none is).
func (l *nameList) chunkFor(name string) int {
	i, _ := slices.BinarySearchFunc(l.chunks, name, func(c []*storedSlice, name string) int {
		if c[0].s.Name <= name {
			return -1
		}
		return 1
	})
	return max(i-1, 0)
}

// insert adds ss, which is not in the list.
func (l *nameList) insert(ss *storedSlice) {
	if len(l.chunks) == 0 {
		l.chunks = append(l.chunks, []*storedSlice{ss})
		return
	}
	ci := l.chunkFor(ss.s.Name)
	c := l.chunks[ci]
	i, _ := slices.BinarySearchFunc(c, ss.s.Name, byStoredName)
	c = slices.Insert(c, i, ss)
	if len(c) > nameChunkMax {
		half := len(c) / 2
		right := append(make([]*storedSlice, 0, nameChunkMax), c[half:]...)
		clear(c[half:])
		c = c[:half]
		l.chunks = slices.Insert(l.chunks, ci+1, right)
	}
	l.chunks[ci] = c
}

// remove drops ss if it is in the list.
func (l *nameList) remove(ss *storedSlice) {
	if len(l.chunks) == 0 {
		return
	}
	ci := l.chunkFor(ss.s.Name)
	c := l.chunks[ci]
	i, ok := slices.BinarySearchFunc(c, ss.s.Name, byStoredName)
	if !ok {
		return
	}
	if c = slices.Delete(c, i, i+1); len(c) == 0 {
		l.chunks = slices.Delete(l.chunks, ci, ci+1)
		return
	}
	l.chunks[ci] = c
}

// empty reports whether the list holds no slice.
func (l *nameList) empty() bool { return len(l.chunks) == 0 }
