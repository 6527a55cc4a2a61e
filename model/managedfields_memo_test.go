package model

import (
	"fmt"
	"math/rand/v2"
	"testing"
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
		before := memo
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
		if memo.next == before.next {
			hits++
		}
	}
	if hits < 500 {
		t.Errorf("only %d of 3000 lookups hit the memo", hits)
	}
}
