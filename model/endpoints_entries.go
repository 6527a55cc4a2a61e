package model

import (
	"math/bits"
	"slices"

	"epsim/internal/zeroing"
)

// entryIndex indexes ServiceEndpoints.entries by (port, IP, UID) once there are more than
// endpointsEntryScan records (until then its table is empty and the list is scanned): an
// open-addressing table of positions in the list, probed linearly. A slot holds a
// position + 1 (0: empty) and 32 bits of the record's hash, so that a probe compares a
// record only when the bits match. The hash is of the port and the IP alone: an IP is
// almost always one pod's, and records that share one (a reused IP, host networking) are
// told apart by the full comparison (endpointsEntry.is).
//
// Records are only ever appended between two commits, and all dropped at a commit; the dead
// ones (see endpointsEntry) go when the list is full, and the table is then made again. So
// the table has no deletion. It replaced a Go map keyed by the (port, IP, UID) strings, which
// hashed and compared some 50 bytes a lookup and was rebuilt from nothing after every
// write: a twentieth of a 100k-pod Service's run.
type entryIndex struct {
	slots []entrySlot // empty while the list is scanned; else a power-of-two count
	// dead counts the dead records in the list since the table was made (see
	// endpointsEntry): a full list is compacted when they are half of it.
	dead int
}

type entrySlot struct {
	tag uint32
	pos int32 // position in entries + 1; 0 marks an empty slot
}

// entryHash is the hash of a record of (port, ip): FNV-1a over the IP, then the port.
func entryHash(port int, ip string) uint64 {
	h := uint64(0xcbf29ce484222325)
	for i := 0; i < len(ip); i++ {
		h ^= uint64(ip[i])
		h *= 0x100000001b3
	}
	h ^= uint64(port)
	h *= 0x100000001b3
	return h
}

// home is the first slot of hash h.
func (x *entryIndex) home(h uint64) int {
	return int((h * identityMapMixer) >> (64 - bits.TrailingZeros(uint(len(x.slots)))))
}

// build makes a table for entries, big enough for twice as many.
func (x *entryIndex) build(entries []endpointsEntry) {
	x.dead = 0
	size := 16
	for size < 4*len(entries) {
		size *= 2
	}
	if cap(x.slots) >= size && cap(x.slots) <= 4*size {
		x.slots = x.slots[:size]
		clear(x.slots)
	} else {
		x.slots = make([]entrySlot, size)
	}
	for i := range entries {
		if e := &entries[i]; e.key != nil {
			x.insert(entryHash(int(e.port), e.key.ipOf()), i)
		} else {
			x.dead++
		}
	}
}

// insert adds the record at pos with hash h (not already present).
func (x *entryIndex) insert(h uint64, pos int) {
	mask := len(x.slots) - 1
	i := x.home(h)
	for x.slots[i].pos != 0 {
		i = (i + 1) & mask
	}
	x.slots[i] = entrySlot{tag: uint32(h), pos: int32(pos + 1)}
}

// entry returns the record of (port, ps's IP and UID), appending one with both sides
// absent if there is none.
func (s *ServiceEndpoints) entry(port int, ps *endpointsPodState) (e *endpointsEntry, found bool) {
	var h uint64
	ip := ps.ipOf()
	x := s.indexedEntries()
	if x == nil {
		for i := range s.entries {
			if r := &s.entries[i]; r.is(port, ps, ip) {
				return r, true
			}
		}
	} else {
		h = entryHash(port, ip)
		mask := len(x.slots) - 1
		for i := x.home(h); x.slots[i].pos != 0; i = (i + 1) & mask {
			if sl := x.slots[i]; sl.tag == uint32(h) {
				if r := &s.entries[sl.pos-1]; r.is(port, ps, ip) {
					return r, true
				}
			}
		}
	}
	if s.entries == nil && s.buf != nil {
		s.entries = s.buf.takeRecords()
	}
	if len(s.entries) == cap(s.entries) && (x == nil || 2*x.dead >= len(s.entries)) && s.dropDeadEntries() && x != nil {
		x.build(s.entries) // the records moved
	}
	s.entries = append(s.entries, endpointsEntry{key: ps, port: int32(port)})
	switch n := len(s.entries); {
	case x != nil && 2*n <= len(x.slots):
		x.insert(h, n-1)
	case x != nil || n > endpointsEntryScan:
		// The first table, or a larger one for a table half full: also one made small
		// for the few records a compaction left, whatever the list's length now.
		s.rareFields().entryIndex.build(s.entries)
	}
	return &s.entries[len(s.entries)-1], false
}

// dropDeadEntries takes the dead records (see endpointsEntry) out of s.entries and reports
// whether there were any. entry calls it on a full list: a scanned one (a few records), or
// an indexed one when half of it is dead, so that the scans and the table made again after
// cost a few records' work for each record that died.
func (s *ServiceEndpoints) dropDeadEntries() bool {
	n := len(s.entries)
	// DeleteFunc clears the places the records moved from: they keep no pod state alive.
	s.entries = slices.DeleteFunc(s.entries, func(e endpointsEntry) bool { return e.key == nil })
	return len(s.entries) < n
}

// killEntry makes e, a record with a key and both sides now absent, dead (see
// endpointsEntry), and counts it for the index.
func (s *ServiceEndpoints) killEntry(e *endpointsEntry) {
	e.key = nil
	if x := s.indexedEntries(); x != nil {
		x.dead++
	}
}

// indexedEntries returns the index of s.entries, nil while the list is scanned.
func (s *ServiceEndpoints) indexedEntries() *entryIndex {
	if s.rare == nil || len(s.rare.entryIndex.slots) == 0 {
		return nil
	}
	return &s.rare.entryIndex
}

// EndpointsBuffers are what the ServiceEndpoints of one controller share
// (EndpointsOptions.Buffers): the record lists that Services which committed their changes
// gave back, for the next Service that records changes to fill. Most Services record a few
// changes between two writes and keep no list after: each took a new one every time, a
// twentieth of cluster-day's allocations. They also keep the address-list chunks that
// emptied (see chunks). The builders sharing buffers must not be used at the same time (one
// controller's are not).
type EndpointsBuffers struct {
	records [][]endpointsEntry // empty, cleared lists
	// chunks are the chunks of address lists that emptied, with their arrays, for a list
	// that fills again: a pod's address leaves the not-ready list as it turns ready, so a
	// small Service's not-ready list empties and refills pod after pod, and made a chunk of
	// four objects each time (200,000 objects in a rollout of 10,000 Services of 10 pods).
	chunks []*addrChunk
}

// spareRecordLists bounds the lists EndpointsBuffers keeps.
const spareRecordLists = 64

// spareChunks bounds the chunks EndpointsBuffers keeps, and spareChunkMaxCap their arrays'
// capacity: a list given a chunk keeps its arrays, and the lists that empty and refill are
// small ones.
const (
	spareChunks      = 64
	spareChunkMaxCap = 32
)

// takeChunk returns a spare empty chunk, or nil (b may be nil).
func (b *EndpointsBuffers) takeChunk() *addrChunk {
	if b == nil {
		return nil
	}
	return takeSpare(&b.chunks)
}

// takeSpare removes and returns the last of spares, the zero value when there is none, and
// clears its slot so that the list does not keep it.
func takeSpare[T any](spares *[]T) T {
	var none T
	n := len(*spares)
	if n == 0 {
		return none
	}
	v := (*spares)[n-1]
	(*spares)[n-1] = none
	*spares = (*spares)[:n-1]
	return v
}

// putChunk keeps c, a chunk its list has emptied and dropped, unless enough are kept or its
// arrays are large (b may be nil).
func (b *EndpointsBuffers) putChunk(c *addrChunk) {
	if b == nil || len(b.chunks) >= spareChunks || cap(c.items) > spareChunkMaxCap {
		return
	}
	clear(c.items[:cap(c.items)]) // keep no pod states alive
	c.items, c.keys, c.bytes = c.items[:0], c.keys[:0], ByEncoding{}
	b.chunks = append(b.chunks, c)
}

// takeRecords returns a spare empty record list, or nil.
func (b *EndpointsBuffers) takeRecords() []endpointsEntry { return takeSpare(&b.records) }

// putRecords keeps list, a record list its Service no longer needs, unless enough are kept.
func (b *EndpointsBuffers) putRecords(list []endpointsEntry) {
	if cap(list) == 0 || len(b.records) >= spareRecordLists {
		return
	}
	zeroing.Clear(list) // keep no addresses alive
	b.records = append(b.records, list[:0])
}

// A commit keeps a record list of endpointsEntryKeepMin to endpointsEntryKeepMax records'
// capacity, and its table, for the next changes: a big Service's rollout makes thousands of
// records between two writes, write after write. Most Services make a few, rarely, and keep
// nothing.
const (
	endpointsEntryKeepMin = 1024
	endpointsEntryKeepMax = 1 << 17
)

// commitTouched makes the stored side of every record equal to its current side: no record
// needs keeping. A list too small to keep goes to the shared buffers, if any.
func (s *ServiceEndpoints) commitTouched() {
	s.mismatch = 0
	if c := cap(s.entries); c < endpointsEntryKeepMin || c > endpointsEntryKeepMax {
		if c < endpointsEntryKeepMin && s.buf != nil {
			s.buf.putRecords(s.entries)
		}
		s.entries = nil
		if s.rare != nil {
			s.rare.entryIndex = entryIndex{}
		}
		return
	}
	clear(s.entries) // keep no addresses alive
	s.entries = s.entries[:0]
	if s.rare != nil {
		s.rare.entryIndex.slots, s.rare.entryIndex.dead = s.rare.entryIndex.slots[:0], 0
	}
}
