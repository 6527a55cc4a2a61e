package model

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestFieldsMemo drives one memo with random metadata, mostly repeating a few key sets as a
// Service's writes do, and requires every entry to be the one built from scratch.
func TestFieldsMemo(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var memo FieldsMemo
	keys := []string{"app", "tier", "endpointslice.kubernetes.io/managed-by", "kubernetes.io/service-name", AnnotationTriggerTime, "x<y"}
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
		m := ObjectMeta{Labels: randomMap(), Annotations: randomMap()}
		if r.IntN(2) == 0 {
			m.GenerateName = "web-"
		}
		for range r.IntN(3) {
			m.OwnerReferences = append(m.OwnerReferences, OwnerReference{UID: fmt.Sprint("uid-", r.IntN(2))})
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
			if got, want := memo.EndpointSlice(s, at), EndpointSliceManagedFields(s, at); got != want {
				t.Fatalf("step %d: slice entry %+v, want %+v", step, got, want)
			}
		} else {
			e := &Endpoints{ObjectMeta: meta}
			if r.IntN(2) == 0 {
				e.Subsets = []EndpointSubset{{}}
			}
			if got, want := memo.Endpoints(e, at), EndpointsManagedFields(e, at); got != want {
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

// TestFieldsMemoShares checks that the memo keeps one string per field set: the Endpoints
// objects of different Services share theirs, the slices of one Service share theirs, and
// other owners or key sets get their own (each as built from scratch).
func TestFieldsMemoShares(t *testing.T) {
	var memo FieldsMemo
	slice := func(uid string, labels map[string]string) string {
		s := &EndpointSlice{ObjectMeta: ObjectMeta{GenerateName: "web-", Labels: labels, OwnerReferences: []OwnerReference{{UID: uid}}}}
		got, want := memo.EndpointSlice(s, 1), EndpointSliceManagedFields(s, 1)
		if got != want {
			t.Fatalf("slice of %s: %+v, want %+v", uid, got, want)
		}
		return got.FieldsV1
	}
	endpoints := func(name string) string {
		e := &Endpoints{ObjectMeta: ObjectMeta{Name: name, Labels: map[string]string{LabelEndpointsManagedBy: name}}}
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
	if !same(x1, x2) || same(x1, y1) {
		t.Errorf("slices: same owner shared %v, other owners shared %v", same(x1, x2), same(x1, y1))
	}
	if x3 := slice("x", map[string]string{"tier": "x"}); x3 == x1 {
		t.Errorf("another label key gave the same field set %s", x3)
	}
	if memo.built != 4 {
		t.Errorf("built %d field sets, want 4", memo.built)
	}
}
