package model

import "slices"

// FieldsMemo remembers the FieldsV1 of the last field sets it built. The writes of one
// Service's objects nearly always list the same label and annotation keys, so most writes
// find their set here and do not sort keys and build the same JSON again. The zero value is
// ready to use; a memo is not safe for concurrent use.
type FieldsMemo struct {
	entries [fieldsMemoSize]fieldsMemoEntry
	next    int
}

// fieldsMemoSize is how many field sets a memo keeps: a Service's objects alternate between
// two (with and without the trigger-time annotation).
const fieldsMemoSize = 2

// fieldsMemoEntry is one field set, by what FieldsV1 depends on, and its FieldsV1.
type fieldsMemoEntry struct {
	used         bool
	kind         byte // 's': EndpointSlice, 'e': Endpoints with subsets, 'E': without
	annotations  []string
	labels       []string
	generateName bool
	owners       []string
	fields       string
}

// EndpointSlice returns EndpointSliceManagedFields(s, at).
func (m *FieldsMemo) EndpointSlice(s *EndpointSlice, at Timestamp) ManagedFieldsEntry {
	if f, ok := m.lookup('s', &s.ObjectMeta); ok {
		return controllerEntry(endpointSliceAPIVersion, at, f)
	}
	e := EndpointSliceManagedFields(s, at)
	m.store('s', &s.ObjectMeta, e.FieldsV1)
	return e
}

// Endpoints returns EndpointsManagedFields(e, at).
func (m *FieldsMemo) Endpoints(e *Endpoints, at Timestamp) ManagedFieldsEntry {
	kind := byte('E')
	if len(e.Subsets) > 0 {
		kind = 'e'
	}
	if f, ok := m.lookup(kind, &e.ObjectMeta); ok {
		return controllerEntry(endpointsAPIVersion, at, f)
	}
	out := EndpointsManagedFields(e, at)
	m.store(kind, &e.ObjectMeta, out.FieldsV1)
	return out
}

func (m *FieldsMemo) lookup(kind byte, meta *ObjectMeta) (string, bool) {
	for i := range m.entries {
		e := &m.entries[i]
		if e.used && e.kind == kind && e.generateName == (meta.GenerateName != "") &&
			sameKeys(meta.Annotations, e.annotations) && sameKeys(meta.Labels, e.labels) && sameOwners(meta.OwnerReferences, e.owners) {
			return e.fields, true
		}
	}
	return "", false
}

func (m *FieldsMemo) store(kind byte, meta *ObjectMeta, fields string) {
	e := &m.entries[m.next]
	m.next = (m.next + 1) % len(m.entries)
	*e = fieldsMemoEntry{used: true, kind: kind, generateName: meta.GenerateName != "", fields: fields}
	for k := range meta.Annotations {
		e.annotations = append(e.annotations, k)
	}
	for k := range meta.Labels {
		e.labels = append(e.labels, k)
	}
	for _, r := range meta.OwnerReferences {
		e.owners = append(e.owners, r.UID)
	}
}

// sameKeys reports whether m's keys are exactly keys (which has no duplicates).
func sameKeys(m map[string]string, keys []string) bool {
	if len(m) != len(keys) {
		return false
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}

func sameOwners(refs []OwnerReference, uids []string) bool {
	return slices.EqualFunc(refs, uids, func(r OwnerReference, uid string) bool { return r.UID == uid })
}
