package sim

import (
	"testing"
	"time"

	"epsim/model"
)

// TestWriteCountsByOutcome feeds the collector one write of each outcome, all of a truncated
// Endpoints object of a 1,000-byte request body, and checks what each figure counts: only the
// committed write stored a truncated object, and every write sent its body.
func TestWriteCountsByOutcome(t *testing.T) {
	e, err := newEngine(testConfig(3, 2), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := newCollector(e)
	e.now = Time(time.Second)
	cm := committed{kind: "Endpoints", objectBytes: model.ByEncoding{5000, 9000}, requestBytes: 1000, truncated: true, hidden: 7}
	for _, outcome := range []string{"noop", "failed"} {
		rec := WriteRecord{At: e.now, Mode: ModeEndpoints, Verb: "update", Kind: "Endpoints", Outcome: outcome}
		c.write(&rec, &cm, 0)
	}
	r := c.mode(ModeEndpoints)
	if r.TruncatedObjects != 0 || r.HiddenAddresses != 0 {
		t.Errorf("after a no-op and a failed write: %d truncated objects hiding %d addresses, want none: neither stored an object", r.TruncatedObjects, r.HiddenAddresses)
	}
	rec := WriteRecord{At: e.now, Mode: ModeEndpoints, Verb: "update", Kind: "Endpoints", Outcome: "ok"}
	c.committed(&rec, &cm, 0, 0, 0, 0, delivery{})
	if r.TruncatedObjects != 1 || r.HiddenAddresses != 7 {
		t.Errorf("after a committed write: %d truncated objects hiding %d addresses, want 1 hiding 7", r.TruncatedObjects, r.HiddenAddresses)
	}
	if r.RequestBytes != 3000 {
		t.Errorf("request bytes %d, want 3000: the bodies of the no-op, the failed and the committed write were all sent", r.RequestBytes)
	}
	if r.Writes.Update != 1 || r.NoopWrites != 1 || r.FailedWrites != 1 {
		t.Errorf("writes %+v, %d no-op, %d failed; want 1 update, 1 no-op, 1 failed", r.Writes, r.NoopWrites, r.FailedWrites)
	}
}

// A run whose Endpoints object is over the size limit from the start (as quick.yaml with
// apiServer.objectSizeLimit=20000): every Endpoints write fails, and the request bodies the
// controller sent still count in requestBytes.
func TestFailedWritesSendTheirBody(t *testing.T) {
	cfg := testConfig(60, 150)
	cfg.APIServer.ObjectSizeLimitBytes = 12_000
	res, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var checked int
	for _, p := range res.Phases {
		e := p.Endpoints
		if e.FailedWrites == 0 || e.Writes.Total() != 0 || e.NoopWrites != 0 {
			continue
		}
		// Every write of the phase failed, each with a body of more than 12,000 bytes less
		// the managedFields a request does not carry.
		checked++
		if e.RequestBytes < 10_000*e.FailedWrites {
			t.Errorf("%s: requestBytes %d for %d failed writes of objects over 12,000 bytes: the failed writes' bodies are not counted", p.Name, e.RequestBytes, e.FailedWrites)
		}
	}
	if checked == 0 {
		t.Fatal("no phase whose Endpoints writes all failed: the test checks less than it says")
	}
}
