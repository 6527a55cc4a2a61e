package sim

import (
	"testing"
	"time"
)

// legacyProxy is flatProxy for a kube-proxy that watches Endpoints.
func legacyProxy(base time.Duration) *kubeProxy {
	cfg := DefaultKubeProxy(KubeProxyIPTables)
	cfg.Costs = KubeProxyCosts{SyncBase: base, RulesPerServicePort: 3, RulesPerEndpoint: 4}
	return newKubeProxyNode(cfg, 1, 0, true).proxier(0)
}

// deliverKey hands k an update of Endpoints object name (Service svc) whose endpoints map has
// key, with ready endpoints of all, triggered and delivered at t.
func deliverKey(k *kubeProxy, name string, svc int, t Time, key uint64, ready, all int) {
	k.receive(name, kubeProxyChange{svc: svc, trigger: t, hasTrigger: true, delivered: t, readyKey: key}, 1, 1000, false, false,
		objectEndpoints{ready: int32(ready), all: int32(all)})
}

// TestLegacyTrackerDropsNoChange checks the change tracker of a kube-proxy that watches
// Endpoints against timelines worked out by hand from upstream (v1.18)
// pkg/proxy/endpoints.go EndpointChangeTracker.Update: an update that leaves a Service's
// endpoints map as it was at the last sync asks for no sync and is programmed by none, and
// drops the trigger times of the Service's changes pending since; the counts it carries
// still reach the next sync. The same timelines on a kube-proxy that watches
// EndpointSlices sync and sample every change (esDataChanged sees every update).
func TestLegacyTrackerDropsNoChange(t *testing.T) {
	// 1 s syncs, minSyncPeriod 1 s.
	k := legacyProxy(time.Second)
	deliverKey(k, "web", 0, 0, 1, 10, 10) // the first object: a change (from no object)
	k.advance(3000*ms, true)
	// A not-ready address more (all 11), same map: no sync.
	deliverKey(k, "web", 0, 3000*ms, 1, 10, 11)
	k.advance(6000*ms, true)
	sameTimes(t, "syncs after a no-change update", syncSpans(k), []span{{0, 1000 * ms}})
	sameTimes(t, "latencies after a no-change update", latencies(k), []Time{1000 * ms})
	// A ready address more at 6 s: synced 6–7 s. At 6.5 s, during that sync, it goes again
	// (key 3), and at 7.5 s it comes back (key 2, the map of the last sync): the change
	// pending since 6.5 s is dropped with its trigger time, though its Run() still brings
	// the sync at 8 s, which programs nothing of it.
	deliverKey(k, "web", 0, 6000*ms, 2, 11, 12)
	deliverKey(k, "web", 0, 6500*ms, 3, 10, 12)
	deliverKey(k, "web", 0, 7500*ms, 2, 11, 12)
	k.flush(20000 * ms)
	sameTimes(t, "syncs", syncSpans(k), []span{{0, 1000 * ms}, {6000 * ms, 7000 * ms}, {8000 * ms, 9000 * ms}})
	sameTimes(t, "latencies", latencies(k), []Time{1000 * ms, 1000 * ms})
	if got := readyEndpoints(k); got != 11 {
		t.Errorf("ready endpoints after the dropped changes: %d, want 11", got)
	}
	if got := k.services[0].all; got != 12 {
		t.Errorf("all endpoints after the dropped changes: %d, want 12", got)
	}

	// Another Service's change keeps the tracker asking for syncs while one Service's
	// change is dropped: the first is programmed, the second not. a is synced 0–1 s, b
	// (which came in during that sync) 2–3 s.
	k = legacyProxy(time.Second)
	deliverKey(k, "a", 0, 0, 1, 1, 1)
	deliverKey(k, "b", 1, 0, 5, 1, 1)
	k.advance(3000*ms, true)
	deliverKey(k, "b", 1, 3000*ms, 5, 1, 2) // no change of b
	deliverKey(k, "a", 0, 3000*ms, 2, 2, 2) // a change of a: synced 4–5 s
	k.flush(20000 * ms)
	sameTimes(t, "two Services: syncs", syncSpans(k), []span{{0, 1000 * ms}, {2000 * ms, 3000 * ms}, {4000 * ms, 5000 * ms}})
	sameTimes(t, "two Services: latencies", latencies(k), []Time{1000 * ms, 3000 * ms, 2000 * ms})
	// The third sync (4–5 s) rewrites a's rules only: b's dropped update is no change of it.
	if a, b := k.services[0].stamp, k.services[1].stamp; a != 3 || b != 2 {
		t.Errorf("two Services: last counted as changed by syncs %d and %d, want 3 (a) and 2 (b)", a, b)
	}

	// The same first timeline on a kube-proxy that watches EndpointSlices.
	k = flatProxy(KubeProxyIPTables, time.Second)
	deliverKey(k, "web", 0, 0, 1, 10, 10)
	k.advance(3000*ms, true)
	deliverKey(k, "web", 0, 3000*ms, 1, 10, 11)
	k.flush(20000 * ms)
	sameTimes(t, "EndpointSlices: syncs", syncSpans(k), []span{{0, 1000 * ms}, {3000 * ms, 4000 * ms}})
	sameTimes(t, "EndpointSlices: latencies", latencies(k), []Time{1000 * ms, 1000 * ms})
}

// TestLegacyTrackerDelete: a DELETED event is a change from any map to none, and an object
// created again with the map of the last sync is no change.
func TestLegacyTrackerDelete(t *testing.T) {
	k := legacyProxy(time.Second)
	deliverKey(k, "web", 0, 0, 7, 2, 2)
	k.advance(3000*ms, true)
	// Deleted at 3 s (synced 3–4 s), and back with the same map at 3.5 s, during that sync:
	// a change from no object, synced 5–6 s.
	k.receive("web", kubeProxyChange{svc: 0, delivered: 3000 * ms}, 1, 100, false, true, objectEndpoints{})
	deliverKey(k, "web", 0, 3500*ms, 7, 2, 2)
	// Deleted and created again with the same map, both before the next sync: no change,
	// though the delete's Run() still brings a sync (7–8 s).
	k.receive("web", kubeProxyChange{svc: 0, delivered: 6000 * ms}, 1, 100, false, true, objectEndpoints{})
	deliverKey(k, "web", 0, 6200*ms, 7, 2, 2)
	k.flush(20000 * ms)
	sameTimes(t, "syncs", syncSpans(k), []span{{0, 1000 * ms}, {3000 * ms, 4000 * ms}, {5000 * ms, 6000 * ms}, {7000 * ms, 8000 * ms}})
	sameTimes(t, "latencies", latencies(k), []Time{1000 * ms, 2500 * ms})
}

// TestLegacyDeleteKeepsPendingTriggers: the DELETED event of an Endpoints object leaves the
// trigger times of the Service's earlier pending change in place for a kube-proxy that
// watches Endpoints (v1.18 EndpointChangeTracker.Update only skips the deleted object's
// own annotation), where today's drops them (EndpointSliceUpdate deletes the Service's
// lastChangeTriggerTimes). Worked by hand: syncs take 1 s, minSyncPeriod 1 s; the object is
// synced 0–1 s, updated at 1.2 s (during the cooldown) and deleted at 1.5 s; the sync at
// 2 s programs both, observing the update at 3 s − 1.2 s.
func TestLegacyDeleteKeepsPendingTriggers(t *testing.T) {
	for _, legacy := range []bool{true, false} {
		k := legacyProxy(time.Second)
		if !legacy {
			k = flatProxy(KubeProxyIPTables, time.Second)
		}
		deliverKey(k, "web", 0, 0, 1, 10, 10)
		deliverKey(k, "web", 0, 1200*ms, 2, 9, 10)
		k.receive("web", kubeProxyChange{svc: 0, delivered: 1500 * ms}, 1, 1000, false, true, objectEndpoints{})
		k.flush(20000 * ms)
		sameTimes(t, "syncs", syncSpans(k), []span{{0, 1000 * ms}, {2000 * ms, 3000 * ms}})
		want := []Time{1000 * ms}
		if legacy {
			want = append(want, 1800*ms)
		}
		sameTimes(t, "latencies", latencies(k), want)
	}
}
