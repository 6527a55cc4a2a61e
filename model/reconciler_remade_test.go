package model

import (
	"fmt"
	"testing"
)

// A reconciler made again for its stored slices (SetStoredSlices, then its pods, as the
// simulator makes a settled Service's again) holds no second copy of what they hold: it
// writes their labels and port list, an update of one holds its owner references rather
// than the slice's, and the sync of every pod that follows leaves it no batch buffers.
func TestRemadeReconcilerSharesStored(t *testing.T) {
	shared := new(SyncBuffers)
	first := newPoolTestSlices(shared, "web", 0)
	for i := range 6 {
		first.SetPod(poolTestPod("web", i))
	}
	for _, p := range first.Sync(0).Plans {
		for j, c := range p.ToCreate {
			cc := *c
			cc.Name = fmt.Sprintf("web-%d", j)
			first.Applied("create", &cc)
		}
	}
	stored := first.Stored()
	if len(stored) != 1 || len(stored[0].Endpoints) != 6 {
		t.Fatalf("first reconciler stored %d slices", len(stored))
	}

	again := newPoolTestSlices(shared, "web", 0)
	again.SetStoredSlices(stored)
	for i := range 6 {
		again.SetPod(poolTestPod("web", i))
	}
	if &again.meta.labels[0] != &stored[0].Labels[0] {
		t.Error("the remade reconciler keeps labels of its own, equal to its slice's")
	}
	if len(again.lastPorts) == 0 || &again.lastPorts[0] != &stored[0].Ports[0] {
		t.Error("the remade reconciler keeps a port list of its own, equal to its slice's")
	}
	for _, p := range again.Sync(0).Plans {
		if len(p.ToCreate)+len(p.ToUpdate)+len(p.ToDelete) > 0 {
			t.Fatalf("the remade reconciler writes %d slices, want none", len(p.ToCreate)+len(p.ToUpdate)+len(p.ToDelete))
		}
	}
	if again.dirtyPods != nil || again.families[0].dirty.list != nil {
		t.Errorf("after the sync of every pod: dirty pods cap %d, dirty identities cap %d; want none kept",
			cap(again.dirtyPods), cap(again.families[0].dirty.list))
	}

	changed := poolTestPod("web", 0)
	changed.Ready = false
	again.SetPod(changed)
	var updates []*EndpointSlice
	for _, p := range again.Sync(0).Plans {
		updates = append(updates, p.ToUpdate...)
	}
	if len(updates) != 1 {
		t.Fatalf("a readiness change wrote %d updates, want 1", len(updates))
	}
	u := updates[0]
	if &u.OwnerReferences[0] != &again.meta.owners[0] || &u.Labels[0] != &stored[0].Labels[0] {
		t.Error("the update holds the old slice's owner references, or labels of its own")
	}
	if o, w := u.OwnerReferences[0], stored[0].OwnerReferences[0]; o.APIVersion != w.APIVersion || o.Kind != w.Kind ||
		o.Name != w.Name || o.UID != w.UID || !boolPtrEqual(o.Controller, w.Controller) || !boolPtrEqual(o.BlockOwnerDeletion, w.BlockOwnerDeletion) {
		t.Errorf("owner reference %+v, want the slice's %+v", o, w)
	}
	if cap(again.dirtyPods) == 0 {
		t.Error("a sync of one pod of six gave up its dirty list")
	}
}
