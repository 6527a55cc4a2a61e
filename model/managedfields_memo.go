package model

import (
	"encoding/binary"
	"hash/maphash"
)

// FieldsMemo remembers the FieldsV1 it built, so that most writes neither sort keys nor
// build the same JSON again. One memo serves a controller's writes of every Service: the
// field set depends on the object's metadata only through the keys of its labels and
// annotations, whether it has a generateName, and its owners' UIDs, and on a slice's spec
// only through the fields its entry lists (SliceLists). The key sets take a few
// shapes in a whole run, which the memo keeps once each; a field set is kept per shape and
// owners, so the Endpoints objects of every Service (no owners) share one string.
//
// The entries are for sizing: an entry has the wire size, in every encoding, of the one
// EndpointSliceManagedFields or EndpointsManagedFields returns, and is equal to it but in
// one case. An object with one owner whose UID is plain (ASCII letters, digits and '-', as
// every UID the API server assigns) gets the field set of its shape built for the first
// plain owner UID of the same length the memo saw: a plain UID is written as it is, so the
// sizes do not depend on which one it is, and the memo keeps one string per shape and UID
// length rather than one per Service (34 MB of strings at 50,000 Services).
//
// The zero value is ready to use; a memo is not safe for concurrent use.
type FieldsMemo struct {
	shapes []fieldsShape
	// byHash finds shapes by shapeHash.
	byHash map[uint64][]int32
	// recent holds the shapes found last, the most recent first (nRecent of them), which
	// are tried before the hash. A controller's writes alternate between a few shapes (with
	// and without the trigger-time annotation; an Endpoints object with and without
	// subsets): with the last one only, every other write hashed its keys.
	recent  [fieldsRecent]int32
	nRecent int
	w       fieldsWriter
	// owners is scratch for the key of an object with several owners.
	owners []byte
	// plain remembers owner UIDs found plain, the last one of each slot (plainSlot): a
	// controller's writes name the UIDs of the Services it writes for, again and again, and
	// checking each character of one was 0.8% of a run of many-services.
	plain [plainSlots]string
	// built counts the field sets built, hashed the shapes looked up by hash (for tests).
	built, hashed int
}

// fieldsRecent is the number of recent shapes a memo tries before the hash.
const fieldsRecent = 4

// fieldsShape is what a field set depends on but the owners, and the field sets of that
// shape: without owners, by the one owner's UID, and by several owners' UIDs (each prefixed
// by its length).
type fieldsShape struct {
	kind         byte // sliceKind(lists): EndpointSlice; 'e': Endpoints with subsets, 'E': without
	generateName bool
	annotations  []string
	labels       []string
	hasNone      bool
	none         string
	// plainOne holds the field sets for one plain owner UID, one per UID length: a list
	// searched in place, as a cluster's UIDs have one length or a few (a map lookup was read
	// by every slice write); one the field sets for one other owner UID, by the UID.
	plainOne  []plainFields
	one, many map[string]string
}

// plainFields is the field set of a shape for a plain owner UID of length n.
type plainFields struct {
	n      int
	fields string
}

// EndpointSlice returns an entry of the size of EndpointSliceManagedFields(s, at): that entry,
// or with one plain owner UID, that of another owner with a UID of the same length.
func (m *FieldsMemo) EndpointSlice(s *EndpointSlice, at Timestamp) ManagedFieldsEntry {
	return m.EndpointSliceWith(s, at, SliceListsAfter(0, s))
}

// EndpointSliceWith is EndpointSlice of EndpointSliceManagedFieldsWith(s, at, lists).
func (m *FieldsMemo) EndpointSliceWith(s *EndpointSlice, at Timestamp, lists SliceLists) ManagedFieldsEntry {
	return controllerEntry(endpointSliceAPIVersion, at, m.lookup(sliceKind(lists), &s.ObjectMeta))
}

// sliceKind is the shape kind of an EndpointSlice whose entry lists lists (never 'e' or 'E').
func sliceKind(lists SliceLists) byte { return 0x80 | byte(lists) }

// Endpoints returns an entry of the size of EndpointsManagedFields(e, at), as EndpointSlice.
func (m *FieldsMemo) Endpoints(e *Endpoints, at Timestamp) ManagedFieldsEntry {
	return m.EndpointsOf(&e.ObjectMeta, len(e.Subsets) > 0, at)
}

// EndpointsOf is Endpoints of an object with metadata meta, with subsets or without: the
// field set depends on the subsets only through whether there are any.
func (m *FieldsMemo) EndpointsOf(meta *ObjectMeta, hasSubsets bool, at Timestamp) ManagedFieldsEntry {
	kind := byte('E')
	if hasSubsets {
		kind = 'e'
	}
	return controllerEntry(endpointsAPIVersion, at, m.lookup(kind, meta))
}

// lookup returns the FieldsV1 of an object of kind with metadata meta.
func (m *FieldsMemo) lookup(kind byte, meta *ObjectMeta) string {
	sh := &m.shapes[m.shape(kind, meta)]
	var byOwners *map[string]string
	var k string
	switch refs := meta.OwnerReferences; len(refs) {
	case 0:
		if !sh.hasNone {
			sh.none, sh.hasNone = m.build(kind, meta), true
		}
		return sh.none
	case 1:
		uid := refs[0].UID
		if m.isPlain(uid) {
			for _, p := range sh.plainOne {
				if p.n == len(uid) {
					return p.fields
				}
			}
			f := m.build(kind, meta)
			sh.plainOne = append(sh.plainOne, plainFields{len(uid), f})
			return f
		}
		byOwners, k = &sh.one, uid
	default:
		b := m.owners[:0]
		for _, r := range refs {
			b = binary.AppendUvarint(b, uint64(len(r.UID)))
			b = append(b, r.UID...)
		}
		m.owners = b
		if f, ok := sh.many[string(b)]; ok {
			return f
		}
		byOwners, k = &sh.many, string(b)
	}
	if f, ok := (*byOwners)[k]; ok {
		return f
	}
	f := m.build(kind, meta)
	if *byOwners == nil {
		*byOwners = map[string]string{}
	}
	(*byOwners)[k] = f
	return f
}

// plainSlots is the number of plain UIDs a memo remembers (a power of two).
const plainSlots = 64

// isPlain is plainUID(uid), from the UIDs remembered when uid is one of them: comparing it
// with its slot's is one comparison (of the pointers when it is the very string).
func (m *FieldsMemo) isPlain(uid string) bool {
	slot := &m.plain[plainSlot(uid)]
	if *slot == uid && uid != "" {
		return true
	}
	if !plainUID(uid) {
		return false
	}
	*slot = uid
	return true
}

// plainSlot is uid's slot in FieldsMemo.plain: from its last two characters, random in a
// UID the API server assigns.
func plainSlot(uid string) int {
	if len(uid) < 2 {
		return 0
	}
	return int(uid[len(uid)-1]^uid[len(uid)-2]<<3) & (plainSlots - 1)
}

// plainUID reports whether uid has only characters that JSON writes as they are, and no
// character of the field set's syntax: ASCII letters, digits and '-'. A field set's size
// then depends on the UID only through its length.
func plainUID(uid string) bool {
	for i := 0; i < len(uid); i++ {
		if !plainUIDByte[uid[i]] {
			return false
		}
	}
	return true
}

// plainUIDByte tells the bytes of a plain UID.
var plainUIDByte = func() (plain [256]bool) {
	for c := range plain {
		plain[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-'
	}
	return plain
}()

// build makes the FieldsV1 string of an object of kind with metadata meta.
func (m *FieldsMemo) build(kind byte, meta *ObjectMeta) string {
	m.built++
	if kind&0x80 != 0 {
		return string(m.w.endpointSlice(meta, SliceLists(kind&^0x80)))
	}
	return string(m.w.endpoints(meta, kind == 'e'))
}

// shape returns the index of meta's shape, added if new.
func (m *FieldsMemo) shape(kind byte, meta *ObjectMeta) int32 {
	for j, i := range m.recent[:m.nRecent] {
		if m.shapes[i].is(kind, meta) {
			copy(m.recent[1:j+1], m.recent[:j])
			m.recent[0] = i
			return i
		}
	}
	m.hashed++
	h := shapeHash(kind, meta)
	for _, i := range m.byHash[h] {
		if m.shapes[i].is(kind, meta) {
			m.used(i)
			return i
		}
	}
	s := fieldsShape{kind: kind, generateName: meta.GenerateName != ""}
	for _, l := range meta.Annotations {
		s.annotations = append(s.annotations, l.Key)
	}
	for _, l := range meta.Labels {
		s.labels = append(s.labels, l.Key)
	}
	i := int32(len(m.shapes))
	m.shapes = append(m.shapes, s)
	if m.byHash == nil {
		m.byHash = map[uint64][]int32{}
	}
	m.byHash[h] = append(m.byHash[h], i)
	m.used(i)
	return i
}

// used puts shape i, which is not among the recent ones, first among them.
func (m *FieldsMemo) used(i int32) {
	m.nRecent = min(m.nRecent+1, fieldsRecent)
	copy(m.recent[1:m.nRecent], m.recent[:m.nRecent-1])
	m.recent[0] = i
}

// shapeSeed seeds shapeHash: the hash only picks the shapes to compare, so its values never
// reach a result.
var shapeSeed = maphash.MakeSeed()

// shapeHash hashes what a shape holds, independently of the maps' order.
func shapeHash(kind byte, meta *ObjectMeta) uint64 {
	h := uint64(kind)
	if meta.GenerateName != "" {
		h ^= 1 << 8
	}
	for _, l := range meta.Annotations {
		h += maphash.String(shapeSeed, l.Key) * 3
	}
	for _, l := range meta.Labels {
		h += maphash.String(shapeSeed, l.Key) * 5
	}
	return h
}

// is reports whether meta of an object of kind has shape s.
func (s *fieldsShape) is(kind byte, meta *ObjectMeta) bool {
	return s.kind == kind && s.generateName == (meta.GenerateName != "") &&
		sameKeys(meta.Annotations, s.annotations) && sameKeys(meta.Labels, s.labels)
}

// sameKeys reports whether m's keys are exactly keys, in order (both are in key order).
func sameKeys(m StringMap, keys []string) bool {
	if len(m) != len(keys) {
		return false
	}
	for i, l := range m {
		if l.Key != keys[i] {
			return false
		}
	}
	return true
}
