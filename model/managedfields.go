package model

import (
	"slices"
	"unicode/utf8"
)

// Managed fields of controller-written objects (Reference: UPSTREAM.md §7.2).
//
// The API server records, per manager, the set of fields that manager owns, as a FieldsV1
// JSON trie. The EndpointSlice and Endpoints controllers are the sole writers of their
// objects, and every write is an Update by "kube-controller-manager", so the stored object
// has one entry whose set is the fields the controller writes that are present:
//   - metadata.name, namespace, uid, resourceVersion, generation and creationTimestamp are
//     never listed (the field manager strips them);
//   - maps (labels, annotations) are granular: ".":{} for the map, then one "f:<key>":{} per key;
//   - ownerReferences is a list keyed by uid with atomic items: ".":{} and
//     "k:{\"uid\":\"<uid>\"}":{} per reference;
//   - an EndpointSlice's endpoints and ports and an Endpoints' subsets are atomic lists: one
//     leaf each, however many items, which is why the entry's size barely varies. The entry
//     of an Update holds the fields that differ from the object before it, and the entry's
//     earlier fields stay. kube-controller-manager sends protobuf, in which an empty list
//     decodes as nil: a slice created with no endpoints (the placeholder) or no ports (a
//     Service without ports), like the empty object a create is compared with, has a null
//     list, which is not listed, and neither is an empty addressType; a list is listed from
//     the first write that gives it an item, and stays listed (SliceListsAfter). Subsets is
//     omitempty: an Endpoints object without subsets has no such field, which is not listed,
//     and one that loses its subsets loses the leaf.
//
// Keys are sorted as structured-merge-diff serializes them (the set's "." first, then field
// names in byte order, then keys). The entry's time is the time of the last write that changed
// the controller's fields; the caller passes it.
//
// upstream: apimachinery util/managedfields/internal/stripmeta.go (stripped fields),
// managedfieldsupdater.go; structured-merge-diff fieldpath/serialize.go Set.ToJSON;
// k8s.io/api discovery/v1 types.go (+listType=atomic on endpoints and ports), core/v1
// types.go (Endpoints.subsets +listType=atomic), meta/v1 OwnerReference (+structType=atomic).

// EmptyFieldSet is the FieldsV1 of a manager that owns no field of an object (an Endpoints
// object without labels, annotations or subsets): the API server keeps no entry for it, so
// the object has no managedFields.
// upstream: apimachinery util/managedfields/internal/stripmeta.go stripFields (a set left
// empty is deleted).
const EmptyFieldSet = "{}"

// Manager and operation of every controller write.
const (
	// KubeControllerManager is the field manager name of kube-controller-manager's writes.
	KubeControllerManager = "kube-controller-manager"
	// ManagedFieldsOperationUpdate is the operation of a PUT/POST (not server-side apply).
	ManagedFieldsOperationUpdate = "Update"
	// FieldsTypeV1 is the only managedFields format.
	FieldsTypeV1 = "FieldsV1"
)

// EndpointSliceManagedFields returns the managedFields entry the API server stores for
// EndpointSlice s created by the EndpointSlice (or mirroring) controller, last changed at
// time at. Watchers receive it with every event; request bodies do not carry it. For a
// slice updated since, whose earlier writes may have listed more, use
// EndpointSliceManagedFieldsWith.
func EndpointSliceManagedFields(s *EndpointSlice, at Timestamp) ManagedFieldsEntry {
	return EndpointSliceManagedFieldsWith(s, at, SliceListsAfter(0, s))
}

// EndpointSliceManagedFieldsWith is EndpointSliceManagedFields of a slice whose entry lists
// the fields of lists among its spec's.
func EndpointSliceManagedFieldsWith(s *EndpointSlice, at Timestamp, lists SliceLists) ManagedFieldsEntry {
	var b fieldsWriter
	return controllerEntry(endpointSliceAPIVersion, at, string(b.endpointSlice(&s.ObjectMeta, lists)))
}

// SliceLists is the set of an EndpointSlice's spec fields (addressType and its two atomic
// lists) that the controller's managedFields entry lists.
type SliceLists uint8

// The fields of SliceLists.
const (
	ListsAddressType SliceLists = 1 << iota
	ListsEndpoints
	ListsPorts
)

// SliceListsAfter returns the fields the entry lists after a write of s by the controller
// whose earlier writes left before listed (0 for a create): those, and each that s sets (a
// non-empty list, a non-empty addressType). A field the controller sets to null again stays
// listed, as null differs from its earlier value.
// upstream: apimachinery util/managedfields/internal/fieldmanager.go, managedfieldsupdater.go
// (the Update's set: fields added or changed against the live object, union the manager's
// earlier set); structured-merge-diff typed.Compare.
func SliceListsAfter(before SliceLists, s *EndpointSlice) SliceLists {
	lists := before
	if s.AddressType != "" {
		lists |= ListsAddressType
	}
	if len(s.Endpoints) > 0 {
		lists |= ListsEndpoints
	}
	if len(s.Ports) > 0 {
		lists |= ListsPorts
	}
	return lists
}

// controllerEntry is kube-controller-manager's Update entry for apiVersion with fields.
func controllerEntry(apiVersion string, at Timestamp, fields string) ManagedFieldsEntry {
	return ManagedFieldsEntry{
		Manager:    KubeControllerManager,
		Operation:  ManagedFieldsOperationUpdate,
		APIVersion: apiVersion,
		Time:       at,
		FieldsType: FieldsTypeV1,
		FieldsV1:   fields,
	}
}

// EndpointsManagedFields returns the managedFields entry the API server stores for legacy
// Endpoints e written by the Endpoints controller, last changed at time at.
func EndpointsManagedFields(e *Endpoints, at Timestamp) ManagedFieldsEntry {
	var b fieldsWriter
	return controllerEntry(endpointsAPIVersion, at, string(b.endpoints(&e.ObjectMeta, len(e.Subsets) > 0)))
}

// fieldsWriter builds compact FieldsV1 JSON into a buffer it reuses: the caller makes the
// one string it keeps.
type fieldsWriter struct {
	b     []byte
	first bool     // no member written yet in the current object
	keys  []string // scratch for sorting owner UIDs
	inner []byte   // scratch for an ownerReferences key
}

// endpointSlice returns the FieldsV1 of a controller-written EndpointSlice with metadata m
// and the spec fields of lists, valid until the next use of b.
func (b *fieldsWriter) endpointSlice(m *ObjectMeta, lists SliceLists) []byte {
	b.b = b.b[:0]
	b.open()
	if lists&ListsAddressType != 0 {
		b.leaf("f:addressType")
	}
	if lists&ListsEndpoints != 0 {
		b.leaf("f:endpoints")
	}
	b.metadata(m)
	if lists&ListsPorts != 0 {
		b.leaf("f:ports")
	}
	b.close()
	return b.b
}

// endpoints returns the FieldsV1 of a controller-written Endpoints object with metadata m,
// with or without subsets, valid until the next use of b.
func (b *fieldsWriter) endpoints(m *ObjectMeta, subsets bool) []byte {
	b.b = b.b[:0]
	b.open()
	b.metadata(m)
	if subsets {
		b.leaf("f:subsets")
	}
	b.close()
	return b.b
}

func (b *fieldsWriter) open() { b.b = append(b.b, '{'); b.first = true }

func (b *fieldsWriter) close() { b.b = append(b.b, '}'); b.first = false }

// key writes "prefix+k": (the key's JSON string, as appendFieldName writes it).
func (b *fieldsWriter) key(prefix, k string) {
	if !b.first {
		b.b = append(b.b, ',')
	}
	b.first = false
	b.b = appendFieldName(b.b, prefix, k)
	b.b = append(b.b, ':')
}

// leaf writes "k":{}.
func (b *fieldsWriter) leaf(k string) { b.key("", k); b.b = append(b.b, "{}"...) }

// node writes "k":{ and opens it.
func (b *fieldsWriter) node(k string) { b.key("", k); b.open() }

// metadata writes f:metadata for the fields the controllers set (sorted:
// annotations, generateName, labels, ownerReferences); nothing if none is present.
func (b *fieldsWriter) metadata(m *ObjectMeta) {
	if len(m.Annotations) == 0 && m.GenerateName == "" && len(m.Labels) == 0 && len(m.OwnerReferences) == 0 {
		return
	}
	b.node("f:metadata")
	b.stringMapKeys("f:annotations", m.Annotations)
	if m.GenerateName != "" {
		b.leaf("f:generateName")
	}
	b.stringMapKeys("f:labels", m.Labels)
	if len(m.OwnerReferences) > 0 {
		b.node("f:ownerReferences")
		b.leaf(".")
		uids := b.keys[:0]
		for _, r := range m.OwnerReferences {
			uids = append(uids, r.UID)
		}
		slices.Sort(uids)
		for _, uid := range slices.Compact(uids) {
			// The key is k:{"uid":<uid as a JSON value>}, itself written as a key.
			b.inner = append(b.inner[:0], `k:{"uid":"`...)
			b.inner = appendKeyValueEscaped(b.inner, uid)
			b.inner = append(b.inner, `"}`...)
			if !b.first {
				b.b = append(b.b, ',')
			}
			b.first = false
			b.b = appendFieldName(b.b, "", b.inner)
			b.b = append(b.b, ":{}"...)
		}
		clear(uids)
		b.keys = uids[:0]
		b.close()
	}
	b.close()
}

// stringMapKeys writes a granular map: ".", then "f:<key>" per key in sorted order (the
// StringMap's own).
func (b *fieldsWriter) stringMapKeys(name string, m StringMap) {
	if len(m) == 0 {
		return
	}
	b.node(name)
	b.leaf(".")
	for _, l := range m {
		b.key("f:", l.Key)
		b.b = append(b.b, "{}"...)
	}
	b.close()
}

// appendFieldName appends prefix+s as a JSON string the way structured-merge-diff writes
// the keys of a field set (json-iterator's Stream.WriteString): '"' and '\\' escaped, '\n',
// '\r' and '\t' as two bytes, the other bytes below 0x20 as \u00XX, and every other byte as
// it is: '<', '>', '&', U+2028 and U+2029 unescaped, invalid UTF-8 kept. Served as JSON, the
// field set is compacted with encoding/json's escaping (jsonRawCompact); over protobuf it is
// these bytes. Label and annotation keys the API server accepts need none of it.
// upstream: structured-merge-diff fieldpath/serialize.go (stream.WriteObjectField);
// json-iterator stream_str.go WriteString.
func appendFieldName[S ~string | ~[]byte](w []byte, prefix string, s S) []byte {
	const hex = "0123456789abcdef"
	w = append(w, '"')
	for _, part := range [2]string{prefix, string(s)} {
		for i := 0; i < len(part); i++ {
			switch c := part[i]; {
			case shortEscape(c) != 0:
				w = append(w, '\\', shortEscape(c))
			case c < 0x20:
				w = append(w, `\u00`...)
				w = append(w, hex[c>>4], hex[c&0xF])
			default:
				w = append(w, c)
			}
		}
	}
	return append(w, '"')
}

// shortEscape is the letter of the two-byte escape of c that encoding/json and json-iterator
// both write ('"', '\\', '\n', '\r' and '\t'), 0 for any other byte.
func shortEscape(c byte) byte {
	switch c {
	case '"', '\\':
		return c
	case '\n':
		return 'n'
	case '\r':
		return 'r'
	case '\t':
		return 't'
	}
	return 0
}

// appendKeyValueEscaped appends s escaped as structured-merge-diff writes a string value in
// a key (an owner's uid in k:{"uid":...}: json-iterator's WriteStringWithHTMLEscaped): as
// encoding/json does, but for '\b' and '\f', written \u0008 and \u000c.
// upstream: structured-merge-diff fieldpath/serialize-pe.go (writeJSONStream, with
// ConfigCompatibleWithStandardLibrary); json-iterator stream_str.go.
func appendKeyValueEscaped(w []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '\b' || c == '\f' {
			w = appendJSONEscaped(w, s[start:i])
			w = append(w, `\u000`...)
			w = append(w, "0123456789abcdef"[c])
			start = i + 1
		}
	}
	return appendJSONEscaped(w, s[start:])
}

// appendJSONEscaped appends s escaped as encoding/json escapes a string (HTML-escaped), so
// that jsonString(s) is 2 more than the length it appends.
func appendJSONEscaped(w []byte, s string) []byte {
	const hex = "0123456789abcdef"
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x80 {
			switch {
			case shortEscape(c) != 0:
				w = append(w, '\\', shortEscape(c))
			case c == '\b':
				w = append(w, `\b`...)
			case c == '\f':
				w = append(w, `\f`...)
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				w = append(w, `\u00`...)
				w = append(w, hex[c>>4], hex[c&0xF])
			default:
				w = append(w, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			w = append(w, `\ufffd`...)
		case r == '\u2028':
			w = append(w, `\u2028`...)
		case r == '\u2029':
			w = append(w, `\u2029`...)
		default:
			w = append(w, s[i:i+size]...)
		}
		i += size
	}
	return w
}
