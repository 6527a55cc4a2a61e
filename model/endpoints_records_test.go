package model

import (
	"fmt"
	"testing"
)

// TestServiceEndpointsRecordsOnlyForChanges checks the builder's memory bound: a (port,
// address) record exists only between a change and the write that stores it, so a settled
// Service of many pods holds none, and a change to one pod makes records for that pod only.
// The skip test must still see the change, and a change reverted before the sync must skip.
func TestServiceEndpointsRecordsOnlyForChanges(t *testing.T) {
	se := NewServiceEndpoints(testEndpointsService(), EndpointsOptions{}, testAddressBytes)
	pods := make([]*Pod, 500)
	for i := range pods {
		pods[i] = testEndpointsPod(i, true)
		se.SetPod(pods[i])
	}
	if got := len(se.entries); got != 500 {
		t.Fatalf("%d records before the first write, want one per address (500)", got)
	}
	if d := se.Sync(1); d.Verb != EndpointsCreate {
		t.Fatalf("first sync: %+v, want a create", d)
	}
	se.Applied()
	if se.entries != nil {
		t.Fatalf("%d records after the write was stored, want none", len(se.entries))
	}
	if d := se.Sync(2); d.Verb != "" {
		t.Fatalf("sync without changes: %+v, want a skip", d)
	}

	// One pod turns not ready: one record, and a write.
	c := *pods[7]
	c.Ready = false
	se.SetPod(&c)
	if got := len(se.entries); got != 1 {
		t.Fatalf("%d records after one pod changed, want 1", got)
	}
	if d := se.Sync(3); d.Verb != EndpointsUpdate || d.NotReadyAddresses != 1 {
		t.Fatalf("sync after a readiness change: %+v, want an update with 1 not-ready address", d)
	}
	se.Applied()
	if se.entries != nil {
		t.Fatalf("%d records after the update was stored, want none", len(se.entries))
	}

	// A change undone before the sync leaves the stored object right: skip.
	se.SetPod(pods[7])
	se.SetPod(&c)
	if d := se.Sync(4); d.Verb != "" {
		t.Fatalf("sync after a change and its undo: %+v, want a skip", d)
	}
	if se.entries != nil {
		t.Fatalf("%d records after a skipped sync, want none", len(se.entries))
	}
}

// TestServiceEndpointsKeepsBigRecordLists checks the records of a big Service, whose list and
// index a write keeps for the next batch (endpointsEntryKeepMin): batch after batch, the
// builder's decision must be the full builder's for the same pods and stored object, and a
// settled builder must hold no record.
func TestServiceEndpointsKeepsBigRecordLists(t *testing.T) {
	svc := testEndpointsService()
	se := NewServiceEndpoints(svc, EndpointsOptions{}, testAddressBytes)
	pods := make([]*Pod, 3000)
	for i := range pods {
		pods[i] = testEndpointsPod(i, true)
		se.SetPod(pods[i])
	}
	var stored *Endpoints
	for round := range 6 {
		want := BuildEndpoints(svc, pods, stored, EndpointsOptions{}, Timestamp(round))
		got := se.Sync(Timestamp(round))
		if got != want.EndpointsDecision {
			t.Fatalf("round %d: decision %+v, want %+v", round, got, want.EndpointsDecision)
		}
		se.Applied()
		stored = se.Object()
		if len(se.entries) != 0 || se.mismatch != 0 {
			t.Fatalf("round %d: %d records (%d mismatched) after the write, want none", round, len(se.entries), se.mismatch)
		}
		if cap(se.entries) < endpointsEntryKeepMin {
			t.Fatalf("round %d: the record list was dropped (cap %d), want it kept", round, cap(se.entries))
		}
		// The next batch: flip every third pod's readiness, some twice (back to where the
		// stored object has them), and give some pods a new IP, which old records keep. In
		// odd rounds every change is undone: the builder must find nothing to write.
		undo := round%2 == 1
		// (A pod passed is never modified: each change is a new copy.)
		for i := round % 3; i < len(pods); i += 3 {
			c := new(Pod)
			*c = *pods[i]
			c.Ready = !c.Ready
			if undo || i%7 == 0 {
				se.SetPod(c)
				back := *c
				back.Ready = !back.Ready
				c = &back
			}
			if !undo && i%11 == 0 {
				c.IPs = []string{fmt.Sprintf("10.9.%d.%d", i/256, i%256)}
			}
			pods[i] = c
			se.SetPod(c)
		}
	}
}

// TestServiceEndpointsDropsDeadRecords checks the records while writes fail (an object over
// the etcd limit is never stored, so no commit drops them): pods made and deleted between
// two commits leave records with both sides absent, which must hold no pod state (each held
// the pod, its identity and name alive) and must not pile up, while every decision stays the
// full builder's for the same pods and stored object.
func TestServiceEndpointsDropsDeadRecords(t *testing.T) {
	svc := testEndpointsService()
	se := NewServiceEndpoints(svc, EndpointsOptions{}, testAddressBytes)
	var pods []*Pod
	next := 0
	add := func() {
		p := testEndpointsPod(next, next%3 != 0)
		next++
		pods = append(pods, p)
		se.SetPod(p)
	}
	for range 300 {
		add()
	}
	se.Sync(0)
	se.Applied()
	stored := se.Object()
	maxLive := 0
	for round := range 100 {
		// A rolling update's step: 50 pods deleted, 55 made, and five of the new ones
		// deleted again before any write is stored.
		for range 50 {
			se.DeletePod(pods[0].Namespace + "/" + pods[0].Name)
			pods = pods[1:]
			add()
		}
		for range 5 {
			add()
		}
		kept := pods[:len(pods)-10]
		for i, p := range pods[len(pods)-10:] {
			if i%2 == 0 {
				se.DeletePod(p.Namespace + "/" + p.Name)
			} else {
				kept = append(kept, p)
			}
		}
		pods = kept
		want := BuildEndpoints(svc, pods, stored, EndpointsOptions{}, Timestamp(round+1))
		if got := se.Sync(Timestamp(round + 1)); got != want.EndpointsDecision {
			t.Fatalf("round %d: decision %+v, want %+v", round, got, want.EndpointsDecision)
		}
		// The write fails: no Applied.
		live := checkRecordKeys(t, se, fmt.Sprint("round ", round))
		// A full list drops its dead records when they are half of it (a short one: when
		// there are any), and else grows by a quarter: it never holds more than about
		// three times the most records alive.
		maxLive = max(maxLive, live)
		if cap(se.entries) > 3*maxLive+endpointsEntryScan {
			t.Fatalf("round %d: %d records (capacity %d), %d of them alive, at most %d so far; the dead ones pile up", round, len(se.entries), cap(se.entries), live, maxLive)
		}
	}
}

// checkRecordKeys fails t when a record of se keeps a pod state that neither of its sides
// holds, and returns the count of records alive.
func checkRecordKeys(t *testing.T, se *ServiceEndpoints, when string) (live int) {
	t.Helper()
	for i, e := range se.entries {
		switch {
		case e.key == nil && (e.cur != nil || e.stored != nil):
			t.Fatalf("%s: record %d has no key but a side", when, i)
		case e.key != nil && e.key != e.cur && e.key != e.stored:
			t.Fatalf("%s: record %d keeps a pod state (%s) that neither side holds", when, i, e.key.pod.Name)
		case e.key != nil:
			live++
		}
	}
	return live
}

// TestServiceEndpointsDeleteKillsRecords checks the records when the stored object is
// deleted: a record of a removed address had only its stored side, and then has none.
func TestServiceEndpointsDeleteKillsRecords(t *testing.T) {
	se := NewServiceEndpoints(testEndpointsService(), EndpointsOptions{}, testAddressBytes)
	for i := range 40 {
		se.SetPod(testEndpointsPod(i, true))
	}
	se.Sync(1)
	se.Applied()
	for i := range 30 {
		se.DeletePod(fmt.Sprintf("ns/web-%d", i))
	}
	se.DeleteService()
	if d := se.Sync(2); d.Verb != EndpointsDelete {
		t.Fatalf("sync of a deleted Service: %+v, want a delete", d)
	}
	se.Applied()
	if live := checkRecordKeys(t, se, "after the delete"); live != 10 {
		t.Fatalf("%d records alive after the delete, want the 10 pods' left", live)
	}
}

// TestServiceEndpointsIndexAfterCompaction: a full record list that is half dead is
// compacted and its index made again for the few records left, at the smallest table; the
// records appended after must stay found once that table is half full. They were not (a
// table of 16 slots indexed the first 8 records, and nothing until the list passed
// endpointsEntryScan), so a pod's next change made a second record of its address, and
// the skip test saw a difference that was not there: the sweep of the Endpoints controller
// against upstream's found it (seed 78035 of 60 syncs), as an update upstream did not write.
func TestServiceEndpointsIndexAfterCompaction(t *testing.T) {
	svc := testEndpointsService()
	se := NewServiceEndpoints(svc, EndpointsOptions{}, testAddressBytes)
	if d := se.Sync(1); d.Verb != EndpointsCreate {
		t.Fatalf("first sync: %+v, want a create", d)
	}
	se.Applied() // an empty object stored
	next := 0
	add := func(n int) (added []*Pod) {
		for range n {
			p := testEndpointsPod(next, true)
			next++
			se.SetPod(p)
			added = append(added, p)
		}
		return added
	}
	// Records up to a full list (indexed from the 17th), all but 3 of them then dead.
	live := add(endpointsEntryScan + 1)
	for len(se.entries) < cap(se.entries) {
		live = append(live, add(1)...)
	}
	for _, p := range live[3:] {
		se.DeletePodOf(p.Namespace, p.Name)
	}
	// The next record compacts the list to 3 and indexes them in the smallest table; 12
	// more fill it past half.
	live = append(live[:3], add(1)...)
	if n, x := len(se.entries), se.indexedEntries(); n != 4 || x == nil || len(x.slots) != 16 {
		t.Fatalf("%d records, want 4 (3 kept by the compaction and a new one) in a table of 16 slots", n)
	}
	live = append(live, add(12)...)
	for _, p := range live {
		se.DeletePodOf(p.Namespace, p.Name)
	}
	seen := map[string]bool{}
	for _, e := range se.entries {
		if e.key == nil {
			continue
		}
		k := fmt.Sprintf("%d %s %s", e.port, e.key.pod.UID, e.key.ipOf())
		if seen[k] {
			t.Errorf("two live records of port, UID and IP %s", k)
		}
		seen[k] = true
	}
	// Every pod added since the write is gone again: the stored object is right.
	if d := se.Sync(2); d.Verb != "" {
		t.Errorf("sync with the pods as stored: %+v (%d records mismatched), want a skip", d, se.mismatch)
	}
}
