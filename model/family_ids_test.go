package model

import "testing"

// TestFamilyIdentityTable holds the family's one table of desired and stored endpoints to
// what the two maps it replaced did: an identity's entry lives while either half does, an
// identity stored twice counts both places, and slice ids are reused after removal.
func TestFamilyIdentityTable(t *testing.T) {
	f := newFamily(AddressTypeIPv4)
	a, b := &storedSlice{}, &storedSlice{}
	f.addSlice(a)
	f.addSlice(b)
	const r = entryRef(1)
	const h, g = endpointHash(11), endpointHash(22)

	f.setDesired(h, r)
	if got := f.store(h, a, 3); got != 1 {
		t.Fatalf("first store: %d places, want 1", got)
	}
	if at, pos := f.storedAt(h); at != a || pos != 3 {
		t.Fatalf("storedAt = %p, %d; want a, 3", at, pos)
	}
	f.dropDesired(h)
	if f.desiredRef(h) != 0 || f.ids.len() != 1 {
		t.Fatalf("dropping the desired half: pod %d, %d entries; want 0 and the stored half kept", f.desiredRef(h), f.ids.len())
	}
	if got := f.store(h, b, 0); got != 2 {
		t.Fatalf("second store: %d places, want 2", got)
	}
	if at, _ := f.storedAt(h); at != a {
		t.Fatalf("an identity stored twice is found at its first place, got %p", at)
	}
	f.moved(h, b, 7) // b is not the place the table names: nothing moves
	f.moved(h, a, 5)
	if _, pos := f.storedAt(h); pos != 5 {
		t.Fatalf("moved: position %d, want 5", pos)
	}
	if got := f.unstoreOne(h); got != 2 {
		t.Fatalf("unstoreOne of an identity stored twice returned %d, want 2", got)
	}
	if got := f.unstoreOne(h); got != 1 || f.ids.len() != 0 || len(f.extra) != 0 {
		t.Fatalf("unstoreOne = %d, %d entries, %d extra; want 1 and nothing left", got, f.ids.len(), len(f.extra))
	}
	if got := f.unstoreOne(h); got != 0 {
		t.Fatalf("unstoreOne of an identity not stored = %d, want 0", got)
	}

	// dropAll keeps the other half of every entry.
	f.setDesired(h, r)
	f.store(h, a, 0)
	f.store(g, b, 1)
	f.store(g, a, 2)
	if dropped := f.dropAll(false); len(dropped) != 2 {
		t.Fatalf("dropAll(stored) dropped %d identities, want 2", len(dropped))
	}
	if f.desiredRef(h) != r || f.ids.len() != 1 || f.extra != nil {
		t.Fatalf("after dropAll(stored): pod %d, %d entries, extra %v; want %d, 1 entry, none", f.desiredRef(h), f.ids.len(), f.extra, r)
	}
	if at, _ := f.storedAt(h); at != nil {
		t.Fatalf("after dropAll(stored), h is still stored in %p", at)
	}
	if dropped := f.dropAll(true); len(dropped) != 1 || f.ids.len() != 0 {
		t.Fatalf("dropAll(desired) dropped %d, left %d entries; want 1 and 0", len(dropped), f.ids.len())
	}

	// Ids of removed slices are reused; the count follows.
	if f.sliceCount() != 2 {
		t.Fatalf("sliceCount = %d, want 2", f.sliceCount())
	}
	id := a.id
	f.removeSlice(a)
	c := &storedSlice{}
	f.addSlice(c)
	if c.id != id || f.byID[id-1] != c || f.sliceCount() != 2 {
		t.Fatalf("the new slice got id %d (want %d, reused), count %d", c.id, id, f.sliceCount())
	}
}

// TestIdentityStatePacking holds the packed identity state to its three fields: each is
// set without touching the others, up to its largest value, and a place past those panics.
func TestIdentityStatePacking(t *testing.T) {
	cases := []struct {
		ref entryRef
		loc storedLoc
	}{
		{0, storedLoc{}},
		{1, storedLoc{id: 1, pos: 0}},
		{goneRefBase - 1, storedLoc{id: identityIDMax, pos: identityPosMax}},
		{identityRefMax, storedLoc{id: 7, pos: 999}},
		{goneRefBase, storedLoc{id: identityIDMax - 1, pos: 1}},
	}
	for _, c := range cases {
		var st identityState
		st.setLoc(c.loc)
		st.setRef(c.ref)
		if st.ref() != c.ref || st.loc() != c.loc {
			t.Errorf("set %d, %+v: read %d, %+v", c.ref, c.loc, st.ref(), st.loc())
		}
		st.setLoc(storedLoc{})
		if st.ref() != c.ref || st.loc() != (storedLoc{}) {
			t.Errorf("clearing the place of %d, %+v left %d, %+v", c.ref, c.loc, st.ref(), st.loc())
		}
		st.setLoc(c.loc)
		st.setRef(0)
		if st.ref() != 0 || st.loc() != c.loc {
			t.Errorf("clearing the pod of %d, %+v left %d, %+v", c.ref, c.loc, st.ref(), st.loc())
		}
	}
	if got, want := goneRef(3), goneRefBase+3; got != want || liveRef(4) != 5 {
		t.Errorf("goneRef(3) = %d, liveRef(4) = %d; want %d and 5", got, liveRef(4), want)
	}
	for _, loc := range []storedLoc{{id: identityIDMax + 1}, {id: 1, pos: identityPosMax + 1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("setLoc(%+v) did not panic", loc)
				}
			}()
			var st identityState
			st.setLoc(loc)
		}()
	}
}
