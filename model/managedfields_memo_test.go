package model

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"
)

// TestFieldsMemo drives one memo with random metadata, mostly repeating a few key sets as a
// Service's writes do, and requires every entry to be the one built from scratch.
func TestFieldsMemo(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var memo FieldsMemo
	keys := []string{"app", "tier", "endpointslice.kubernetes.io/managed-by", "kubernetes.io/service-name", AnnotationTriggerTime, "x<y"}
	// Plain UIDs of two lengths, and UIDs that are not plain (JSON escapes them, or a
	// character of the field set's syntax).
	uids := []string{"uid-0", "uid-1", "uid-22", "uid-33", "uid<0", "uid\"1", "uid}0"}
	randomMap := func() map[string]string {
		m := map[string]string{}
		for _, k := range keys {
			if r.IntN(2) == 0 {
				m[k] = fmt.Sprint(r.IntN(3))
			}
		}
		if r.IntN(4) == 0 {
			return nil
		}
		return m
	}
	randomMeta := func() ObjectMeta {
		m := ObjectMeta{Labels: StringMapOf(randomMap()), Annotations: StringMapOf(randomMap())}
		if r.IntN(2) == 0 {
			m.GenerateName = "web-"
		}
		for range r.IntN(3) {
			m.OwnerReferences = append(m.OwnerReferences, OwnerReference{UID: uids[r.IntN(len(uids))]})
		}
		return m
	}
	metas := []ObjectMeta{randomMeta(), randomMeta(), randomMeta()}
	hits := 0
	for step := range 3000 {
		if r.IntN(20) == 0 {
			metas[r.IntN(len(metas))] = randomMeta()
		}
		meta := metas[r.IntN(len(metas))]
		at := Timestamp(r.Int64N(1e18))
		before := memo.built
		if r.IntN(2) == 0 {
			s := &EndpointSlice{ObjectMeta: meta}
			if got, want := memo.EndpointSlice(s, at), EndpointSliceManagedFields(s, at); !sameEntry(got, want, &meta, uids) {
				t.Fatalf("step %d: slice entry %+v, want %+v", step, got, want)
			}
		} else {
			e := &Endpoints{ObjectMeta: meta}
			if r.IntN(2) == 0 {
				e.Subsets = []EndpointSubset{{}}
			}
			if got, want := memo.Endpoints(e, at), EndpointsManagedFields(e, at); !sameEntry(got, want, &meta, uids) {
				t.Fatalf("step %d: Endpoints entry %+v, want %+v", step, got, want)
			}
		}
		if memo.built == before {
			hits++
		}
	}
	if hits < 500 {
		t.Errorf("only %d of 3000 lookups hit the memo", hits)
	}
}

// sameEntry reports whether the memo's entry got may stand for want, the entry built for an
// object with metadata meta: equal, or, with one plain owner UID, equal but for another plain
// UID of uids of the same length in its place, and of the same size in every encoding.
func sameEntry(got, want ManagedFieldsEntry, meta *ObjectMeta, uids []string) bool {
	if got == want {
		return true
	}
	if len(meta.OwnerReferences) != 1 || !plainUID(meta.OwnerReferences[0].UID) {
		return false
	}
	uid := meta.OwnerReferences[0].UID
	for _, other := range uids {
		if other == uid || len(other) != len(uid) || !plainUID(other) {
			continue
		}
		swapped := got
		swapped.FieldsV1 = strings.ReplaceAll(got.FieldsV1, other, uid)
		if swapped != want {
			continue
		}
		for _, enc := range []Encoding{Protobuf, JSON} {
			a := &EndpointSlice{ObjectMeta: ObjectMeta{ManagedFields: []ManagedFieldsEntry{got}}}
			b := &EndpointSlice{ObjectMeta: ObjectMeta{ManagedFields: []ManagedFieldsEntry{want}}}
			if EndpointSliceSize(a, enc) != EndpointSliceSize(b, enc) {
				return false
			}
		}
		return true
	}
	return false
}

// TestFieldsMemoShares checks that the memo keeps one string per field set: the Endpoints
// objects of different Services share theirs, the slices of owners with plain UIDs of one
// length share theirs, and other owners or key sets get their own (each as built from
// scratch, or of its size).
func TestFieldsMemoShares(t *testing.T) {
	var memo FieldsMemo
	uids := []string{"x", "y", "xy", "<"}
	slice := func(uid string, labels map[string]string) string {
		meta := ObjectMeta{GenerateName: "web-", Labels: StringMapOf(labels), OwnerReferences: []OwnerReference{{UID: uid}}}
		s := &EndpointSlice{ObjectMeta: meta}
		got, want := memo.EndpointSlice(s, 1), EndpointSliceManagedFields(s, 1)
		if !sameEntry(got, want, &meta, uids) {
			t.Fatalf("slice of %s: %+v, want %+v", uid, got, want)
		}
		return got.FieldsV1
	}
	endpoints := func(name string) string {
		e := &Endpoints{ObjectMeta: ObjectMeta{Name: name, Labels: StringMapOf(map[string]string{LabelEndpointsManagedBy: name})}}
		got, want := memo.Endpoints(e, 1), EndpointsManagedFields(e, 1)
		if got != want {
			t.Fatalf("Endpoints %s: %+v, want %+v", name, got, want)
		}
		return got.FieldsV1
	}
	same := func(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }
	a, b := endpoints("a"), endpoints("b")
	if !same(a, b) {
		t.Error("the Endpoints objects of two Services do not share their field set")
	}
	l := map[string]string{"app": "x"}
	x1, y1 := slice("x", l), slice("y", l)
	x2 := slice("x", map[string]string{"app": "other value"})
	if !same(x1, x2) || !same(x1, y1) {
		t.Errorf("slices: same owner shared %v, another plain owner of the same length shared %v", same(x1, x2), same(x1, y1))
	}
	// An owner UID of another length, or one that is not plain, gets its own field set.
	if xy := slice("xy", l); same(xy, x1) || !strings.Contains(xy, `\"xy\"`) {
		t.Errorf("the owner xy got the field set %s", xy)
	}
	if lt := slice("<", l); same(lt, x1) || !strings.Contains(lt, `u003c`) {
		t.Errorf("the owner < got the field set %s", lt)
	}
	if x3 := slice("x", map[string]string{"tier": "x"}); x3 == x1 {
		t.Errorf("another label key gave the same field set %s", x3)
	}
	if memo.built != 5 {
		t.Errorf("built %d field sets, want 5", memo.built)
	}
}

// TestFieldsMemoAlternatingShapes: a controller's writes alternate between a few metadata
// shapes (with and without the trigger-time annotation, say); the memo finds each among its
// recent ones after the first time rather than hashing every key again, and still returns
// each shape's own entry.
func TestFieldsMemoAlternatingShapes(t *testing.T) {
	var memo FieldsMemo
	labels := map[string]string{LabelServiceName: "web", LabelManagedBy: ControllerName}
	metas := []ObjectMeta{
		{GenerateName: "web-", Labels: StringMapOf(labels), OwnerReferences: []OwnerReference{{UID: "uid-1"}}},
		{GenerateName: "web-", Labels: StringMapOf(labels), Annotations: StringMapOf(map[string]string{AnnotationTriggerTime: "t"}), OwnerReferences: []OwnerReference{{UID: "uid-1"}}},
		{GenerateName: "web-", Labels: StringMapOf(map[string]string{"app": "web"}), OwnerReferences: []OwnerReference{{UID: "uid-22"}}},
		{GenerateName: "web-", Labels: StringMapOf(labels), OwnerReferences: []OwnerReference{{UID: "uid-333"}}},
	}
	for round := range 30 {
		for i := range metas {
			s := &EndpointSlice{ObjectMeta: metas[(i+round)%len(metas)]}
			if got, want := memo.EndpointSlice(s, 1), EndpointSliceManagedFields(s, 1); got != want {
				t.Fatalf("round %d, shape %d: %+v, want %+v", round, (i+round)%len(metas), got, want)
			}
		}
	}
	// Three key sets (the last two metas share one, with owner UIDs of two lengths).
	if memo.hashed != 3 {
		t.Errorf("the memo hashed %d shapes for 120 writes of 3 key sets, want 3", memo.hashed)
	}
	if memo.built != 4 {
		t.Errorf("the memo built %d field sets, want 4 (one per key set and owner UID length)", memo.built)
	}
}

// TestFieldsMemoPlainUIDs checks the memo's remembered plain UIDs against plainUID on random
// UIDs, plain or not, that share their last characters (so their slots), some of them
// copies of earlier ones rather than the same strings.
func TestFieldsMemoPlainUIDs(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var memo FieldsMemo
	const alphabet = "abcdef-0123456789XYZ<\"}é" // mostly plain
	var seen []string
	remembered := 0
	for range 20000 {
		var uid string
		if len(seen) > 0 && r.IntN(2) == 0 {
			uid = seen[len(seen)-1-r.IntN(min(3, len(seen)))] // a recent one, or a copy of it
			if r.IntN(2) == 0 {
				uid = strings.Clone(uid)
			}
		} else {
			var b []byte
			for range r.IntN(6) {
				b = append(b, alphabet[r.IntN(len(alphabet))])
			}
			uid = string(b) + []string{"-1", "ab", "a<", "Z9", "0-", "\"}"}[r.IntN(6)]
			seen = append(seen, uid)
		}
		if memo.plain[plainSlot(uid)] == uid {
			remembered++
		}
		if got, want := memo.isPlain(uid), plainUID(uid); got != want {
			t.Fatalf("isPlain(%q) = %v, plainUID %v", uid, got, want)
		}
	}
	if remembered < 2000 {
		t.Errorf("only %d of 20000 UIDs were found remembered: the test no longer covers the memo", remembered)
	}
}
