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
	if r.Writes.Update != 1 || r.NoopWrites != 1 || r.FailedWrites != 1 {
		t.Errorf("writes %+v, %d no-op, %d failed; want 1 update, 1 no-op, 1 failed", r.Writes, r.NoopWrites, r.FailedWrites)
	}
}
