package model

import (
	"slices"
	"testing"
	"time"
)

// TestTriggerOnlyMatchesWithTriggerTime checks the memo of trigger-only annotations: the same
// content as withTriggerTime for every trigger, one list handed out again for a repeated
// trigger, and a new one after the trigger changes.
func TestTriggerOnlyMatchesWithTriggerTime(t *testing.T) {
	t0 := Timestamp(time.Date(2026, 1, 1, 0, 0, 5, 0, time.UTC).UnixNano())
	for _, at := range []Timestamp{0, t0, t0, t0 + Timestamp(time.Second), 0, t0} {
		got := triggerOnly(at)
		if want := withTriggerTime(nil, at); !got.Equal(want) {
			t.Errorf("triggerOnly(%v) = %v, want %v", at, got, want)
		}
	}
	same := func(a, b StringMap) bool { return len(a) == 1 && len(b) == 1 && &a[0] == &b[0] }
	a, b := triggerOnly(t0), triggerOnly(t0)
	if !same(a, b) {
		t.Error("triggerOnly made a new list for the trigger it made the last one for")
	}
	if c := triggerOnly(t0 + Timestamp(time.Second)); same(a, c) || len(c) != 1 {
		t.Errorf("triggerOnly after a new trigger = %v", c)
	}
	// Interleaved triggers of different seconds keep their lists; a trigger of the same slot
	// (triggerCacheSize seconds later) replaces it.
	triggerOnly(t0 + 3*Timestamp(time.Second))
	if b := triggerOnly(t0); !same(a, b) {
		t.Error("triggerOnly made a new list for a trigger of a few seconds before")
	}
	if c := triggerOnly(t0 + triggerCacheSize*Timestamp(time.Second)); same(a, c) || !c.Equal(withTriggerTime(nil, t0+triggerCacheSize*Timestamp(time.Second))) {
		t.Errorf("triggerOnly of the same slot = %v", c)
	}
	if got, want := triggerTimeAnnotation(t0), t0.RFC3339Nano(); got != want {
		t.Errorf("triggerTimeAnnotation = %q, want %q", got, want)
	}
}

// TestSliceLabelsExactly: every Service keeps its slice labels, so SliceLabels allocates no
// spare pair, whatever labels (reserved ones included) the Service has and whether it is
// headless; the pairs are in key order.
func TestSliceLabelsExactly(t *testing.T) {
	for _, svc := range []*Service{
		{Name: "web", ClusterIP: "10.0.0.1"},
		{Name: "web", ClusterIP: "None"},
		{Name: "web", ClusterIP: "10.0.0.1", Labels: map[string]string{"app": "web", LabelServiceName: "other", LabelHeadless: ""}},
		{Name: "web", Labels: map[string]string{"tier": "front", LabelManagedBy: "someone"}},
	} {
		l := SliceLabels(svc)
		if cap(l) != len(l) || !slices.IsSortedFunc(l, compareLabels) {
			t.Errorf("SliceLabels(%v, %q) = %v: %d pairs in an array of %d, or out of order", svc.Labels, svc.ClusterIP, l, len(l), cap(l))
		}
		if l.Get(LabelServiceName) != "web" || l.Get(LabelManagedBy) != ControllerName || l.Has(LabelHeadless) != svc.IsHeadless() {
			t.Errorf("SliceLabels(%v, %q) = %v", svc.Labels, svc.ClusterIP, l)
		}
	}
}
