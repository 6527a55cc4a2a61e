package sim

import (
	"testing"
	"time"

	"epsim/model"
)

// Tests for the engine-side pitfalls of UPSTREAM.md §9 (the reconciler-side ones are in
// model's example tests).

// Pitfall 10: batching is a fixed window from the first event (the earliest deadline wins),
// not a debounce. upstream: client-go util/workqueue/delaying_queue.go AddAfter, insert.
func TestPitfall10BatchingIsAFixedWindow(t *testing.T) {
	e, err := newEngine(testConfig(10, 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := e.ctls[0]
	c.addAfter(0, Time(time.Second)) // first event at 0: sync due at 1 s
	e.now = Time(500 * time.Millisecond)
	c.addAfter(0, Time(time.Second)) // second event at 0.5 s: must not push it to 1.5 s
	if k := c.keys[0]; !k.delayed || k.delayedAt != Time(time.Second) {
		t.Fatalf("deadline %v (delayed %v), want 1s", k.delayedAt, k.delayed)
	}
	e.now = Time(700 * time.Millisecond)
	c.addAfter(0, Time(100*time.Millisecond)) // an earlier deadline does win
	if k := c.keys[0]; k.delayedAt != Time(800*time.Millisecond) {
		t.Fatalf("deadline %v, want 800ms", k.delayedAt)
	}
}

// Pitfall 11: writes are throttled per controller by client-go's token bucket (QPS 20,
// burst 30): the first 30 go at once, then one every 50 ms.
func TestPitfall11ClientTokenBucket(t *testing.T) {
	b := newTokenBucket(20, 30)
	for i := range 30 {
		if at := b.reserve(0); at != 0 {
			t.Fatalf("request %d waits until %v inside the burst", i+1, at)
		}
	}
	for i := 1; i <= 5; i++ {
		if at, want := b.reserve(0), Time(i)*Time(50*time.Millisecond); at != want {
			t.Fatalf("request %d after the burst goes at %v, want %v", 30+i, at, want)
		}
	}
	// After a quiet second the bucket holds 20 tokens again.
	b2 := newTokenBucket(20, 30)
	for range 30 {
		b2.reserve(0)
	}
	for i := range 20 {
		if at := b2.reserve(Time(time.Second)); at != Time(time.Second) {
			t.Fatalf("request %d after a second of refill waits until %v", i+1, at)
		}
	}
}

// Pitfall 12: kube-proxy does not watch headless Services' slices or Endpoints (its
// selector excludes service.kubernetes.io/headless), so they cost no fan-out to nodes.
func TestPitfall12HeadlessServicesAreNotFannedOutToKubeProxies(t *testing.T) {
	cfg := testConfig(50, 20)
	cfg.Services[0].Headless = true
	res, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Mode{ModeEndpoints, ModeEndpointSlices} {
		r := res.Total.Mode(m)
		if r.Writes.Total() == 0 || r.FanoutBytes != 0 || r.WatchEvents != 0 {
			t.Errorf("%s: %d writes, %d B fanned out in %d events; want writes and no fan-out", m, r.Writes.Total(), r.FanoutBytes, r.WatchEvents)
		}
	}
}

// Pitfall 12 (cont.): a DELETED event carries the full last stored object, so deleting a
// slice costs its previous size per watcher.
func TestDeleteEventsCarryTheLastObject(t *testing.T) {
	cm := committed{objectBytes: model.ByEncoding{5000, 9000}, oldBytes: model.ByEncoding{5000, 9000}, goneBytes: model.ByEncoding{5001, 9001}}
	typ, bytes, ok := eventFor("delete", false, true, &cm)
	if !ok || typ != model.EventDeleted || bytes[model.Protobuf] != 5001 {
		t.Fatalf("delete: %v %v %v, want DELETED with the 5001 B object", typ, bytes, ok)
	}
	// A label change that drops the object out of the selector is a DELETED of the old one.
	cm = committed{objectBytes: model.ByEncoding{100, 200}, oldBytes: model.ByEncoding{5000, 9000}, goneBytes: model.ByEncoding{5001, 9001}}
	typ, bytes, ok = eventFor("update", false, true, &cm)
	if !ok || typ != model.EventDeleted || bytes[model.Protobuf] != 5001 {
		t.Fatalf("update out of the selector: %v %v %v, want DELETED with the old object", typ, bytes, ok)
	}
	if _, _, ok := eventFor("update", false, false, &cm); ok {
		t.Fatal("an update the watcher never selected reached it")
	}
}

// Pitfall 14: an over-capacity Endpoints never passes the controller's skip test, so every
// sync sends a PUT; the API server drops it when the bytes are unchanged (no event).
func TestPitfall14OverCapacityEndpointsAreRePut(t *testing.T) {
	cfg := testConfig(100, 1100)
	cfg.ControlPlane.EndpointsTruncation = true
	cfg.Timeline = []Action{
		{Name: "create", Kind: ActionCreate},
		// A label on the Service syncs it with no endpoint change.
		{Name: "label", Kind: ActionLabelService, Labels: map[string]string{"team": "a"}},
	}
	res, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	create := res.Phases[0].Endpoints
	if create.TruncatedObjects == 0 || create.HiddenAddresses != 100 {
		t.Errorf("create: %d truncated writes hiding %d addresses, want truncation hiding 100", create.TruncatedObjects, create.HiddenAddresses)
	}
	if create.NoopWrites == 0 {
		t.Error("no no-op PUTs while over capacity: the skip test should fail every sync")
	}
	for _, w := range res.Writes {
		if w.Mode == ModeEndpoints && w.Outcome == "noop" && w.Watchers != 0 {
			t.Fatalf("a no-op PUT was fanned out to %d watchers", w.Watchers)
		}
	}
}
