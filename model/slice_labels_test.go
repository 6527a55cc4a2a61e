package model

import (
	"maps"
	"testing"
	"time"
)

// TestTriggerOnlyMatchesWithTriggerTime checks the memo of trigger-only annotations: the same
// content as withTriggerTime for every trigger, one map handed out again for a repeated
// trigger, and a new one after the trigger changes.
func TestTriggerOnlyMatchesWithTriggerTime(t *testing.T) {
	t0 := Timestamp(time.Date(2026, 1, 1, 0, 0, 5, 0, time.UTC).UnixNano())
	for _, at := range []Timestamp{0, t0, t0, t0 + Timestamp(time.Second), 0, t0} {
		got := triggerOnly(at)
		if want := withTriggerTime(nil, at); !maps.Equal(got, want) {
			t.Errorf("triggerOnly(%v) = %v, want %v", at, got, want)
		}
	}
	a, b := triggerOnly(t0), triggerOnly(t0)
	a["probe"] = "x" // the same map: the write shows through b
	if b["probe"] != "x" {
		t.Error("triggerOnly made a new map for the trigger it made the last one for")
	}
	delete(a, "probe")
	if c := triggerOnly(t0 + Timestamp(time.Second)); c["probe"] != "" || len(c) != 1 {
		t.Errorf("triggerOnly after a new trigger = %v", c)
	}
	// Interleaved triggers of different seconds keep their maps; a trigger of the same slot
	// (triggerCacheSize seconds later) replaces it.
	a["probe"] = "x"
	triggerOnly(t0 + 3*Timestamp(time.Second))
	if b := triggerOnly(t0); b["probe"] != "x" {
		t.Error("triggerOnly made a new map for a trigger of a few seconds before")
	}
	if c := triggerOnly(t0 + triggerCacheSize*Timestamp(time.Second)); c["probe"] != "" || !maps.Equal(c, withTriggerTime(nil, t0+triggerCacheSize*Timestamp(time.Second))) {
		t.Errorf("triggerOnly of the same slot = %v", c)
	}
	delete(a, "probe")
	if got, want := triggerTimeAnnotation(t0), t0.RFC3339Nano(); got != want {
		t.Errorf("triggerTimeAnnotation = %q, want %q", got, want)
	}
}
