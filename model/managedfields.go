package model

import (
	"slices"
	"strings"
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
//     leaf each, however many items, which is why the entry's size barely varies. Endpoints
//     and ports have no omitempty and are always present (even when null); subsets is
//     omitempty and is listed only when non-empty.
//
// Keys are sorted as structured-merge-diff serializes them (the set's "." first, then field
// names in byte order, then keys). The entry's time is the time of the last write that changed
// the controller's fields; the caller passes it.
//
// upstream: apimachinery util/managedfields/internal/stripmeta.go (stripped fields),
// managedfieldsupdater.go; structured-merge-diff fieldpath/serialize.go Set.ToJSON;
// k8s.io/api discovery/v1 types.go (+listType=atomic on endpoints and ports), core/v1
// types.go (Endpoints.subsets +listType=atomic), meta/v1 OwnerReference (+structType=atomic).

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
// EndpointSlice s written by the EndpointSlice (or mirroring) controller, last changed at
// time at. Watchers receive it with every event; request bodies do not carry it.
func EndpointSliceManagedFields(s *EndpointSlice, at Timestamp) ManagedFieldsEntry {
	var b fieldsWriter
	b.open()
	b.leaf("f:addressType")
	b.leaf("f:endpoints")
	b.metadata(&s.ObjectMeta)
	b.leaf("f:ports")
	b.close()
	return controllerEntry(endpointSliceAPIVersion, at, b.String())
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
	b.open()
	b.metadata(&e.ObjectMeta)
	if len(e.Subsets) > 0 {
		b.leaf("f:subsets")
	}
	b.close()
	return controllerEntry(endpointsAPIVersion, at, b.String())
}

// fieldsWriter builds compact FieldsV1 JSON.
type fieldsWriter struct {
	strings.Builder
	first bool // no member written yet in the current object
}

func (b *fieldsWriter) open() { b.WriteByte('{'); b.first = true }

func (b *fieldsWriter) close() { b.WriteByte('}'); b.first = false }

func (b *fieldsWriter) key(k string) {
	if !b.first {
		b.WriteByte(',')
	}
	b.first = false
	writeJSONString(&b.Builder, k)
	b.WriteByte(':')
}

// leaf writes "k":{}.
func (b *fieldsWriter) leaf(k string) { b.key(k); b.WriteString("{}") }

// node writes "k":{ and opens it.
func (b *fieldsWriter) node(k string) { b.key(k); b.open() }

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
		uids := make([]string, 0, len(m.OwnerReferences))
		for _, r := range m.OwnerReferences {
			uids = append(uids, r.UID)
		}
		slices.Sort(uids)
		for _, uid := range slices.Compact(uids) {
			var k strings.Builder
			k.WriteString(`k:{"uid":`)
			writeJSONString(&k, uid)
			k.WriteByte('}')
			b.leaf(k.String())
		}
		b.close()
	}
	b.close()
}

// stringMapKeys writes a granular map: ".", then "f:<key>" per key in sorted order.
func (b *fieldsWriter) stringMapKeys(name string, m map[string]string) {
	if len(m) == 0 {
		return
	}
	b.node(name)
	b.leaf(".")
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b.leaf("f:" + k)
	}
	b.close()
}

// writeJSONString writes s as a JSON string the way encoding/json does (HTML-escaped), so
// that jsonString(s) is its length.
func writeJSONString(w *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	w.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x80 {
			switch {
			case c == '"' || c == '\\':
				w.WriteByte('\\')
				w.WriteByte(c)
			case c == '\n':
				w.WriteString(`\n`)
			case c == '\r':
				w.WriteString(`\r`)
			case c == '\t':
				w.WriteString(`\t`)
			case c == '\b':
				w.WriteString(`\b`)
			case c == '\f':
				w.WriteString(`\f`)
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				w.WriteString(`\u00`)
				w.WriteByte(hex[c>>4])
				w.WriteByte(hex[c&0xF])
			default:
				w.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			w.WriteString(`\ufffd`)
		case r == '\u2028':
			w.WriteString(`\u2028`)
		case r == '\u2029':
			w.WriteString(`\u2029`)
		default:
			w.WriteString(s[i : i+size])
		}
		i += size
	}
	w.WriteByte('"')
}
