package sim

import (
	"slices"
	"testing"

	"epsim/model"
)

// TestSliceUpdateGenerationAndNoop commits hand-made updates of a stored EndpointSlice
// through the API server, as upstream's registry treats them: the generation moves when an
// endpoint, a port or a label changed, not for an annotation alone; an update equal to the
// stored object changes nothing (no resourceVersion, no watch event: a no-op write).
// upstream: registry/discovery/endpointslice/strategy.go PrepareForUpdate; apiserver
// storage/etcd3/store.go GuaranteedUpdate.
func TestSliceUpdateGenerationAndNoop(t *testing.T) {
	cfg := testConfig(10, 20)
	cfg.RunEndpoints = false
	cfg.Timeline = cfg.Timeline[:1]
	e := ranEngine(t, cfg)
	c := e.ctls[0]
	y := c.syncer.(*sliceSyncer)
	s := e.services[0]
	copyOf := func() *model.EndpointSlice {
		st := y.stored[s.idx].list[0].slice
		sl := *st
		sl.Endpoints = slices.Clone(st.Endpoints)
		sl.Labels, sl.Annotations = slices.Clone(st.Labels), slices.Clone(st.Annotations)
		return &sl
	}
	for _, tc := range []struct {
		name    string
		change  func(sl *model.EndpointSlice)
		outcome writeOutcome
		genUp   bool
	}{
		{"nothing", func(*model.EndpointSlice) {}, writeNoop, false},
		{"annotation", func(sl *model.EndpointSlice) {
			m := sl.Annotations.Map()
			m[model.AnnotationTriggerTime] = "2026-01-01T01:00:00Z"
			sl.Annotations = model.StringMapOf(m)
		}, writeCommitted, false},
		{"label", func(sl *model.EndpointSlice) {
			m := sl.Labels.Map()
			m["team"] = "shop"
			sl.Labels = model.StringMapOf(m)
		}, writeCommitted, true},
		{"endpoint", func(sl *model.EndpointSlice) { sl.Endpoints[0].Conditions.Ready = model.ConditionFalse }, writeCommitted, true},
		{"dropped endpoint", func(sl *model.EndpointSlice) { sl.Endpoints = sl.Endpoints[1:] }, writeCommitted, true},
	} {
		before := y.stored[s.idx].list[0].slice
		sl := copyOf()
		tc.change(sl)
		rv, events := e.api.revs[0].resourceVersion, e.stats.mode(ModeEndpointSlices).WatchEvents
		w := &write{verb: "update", slice: sl, addressType: sl.AddressType}
		out := e.api.commit(c, s, w, e.now)
		y.applied(s, w, out != writeFailed)
		if out != tc.outcome {
			t.Errorf("%s: outcome %d, want %d", tc.name, out, tc.outcome)
		}
		after := y.stored[s.idx].list[0].slice
		if up := after.Generation == before.Generation+1; up != tc.genUp || (!up && after.Generation != before.Generation) {
			t.Errorf("%s: generation %d → %d, want it moved: %v", tc.name, before.Generation, after.Generation, tc.genUp)
		}
		gotEvents := e.stats.mode(ModeEndpointSlices).WatchEvents - events
		if tc.outcome == writeNoop {
			if e.api.revs[0].resourceVersion != rv || after.ResourceVersion != before.ResourceVersion || gotEvents != 0 {
				t.Errorf("%s: resourceVersion %d → %d (stored %s → %s), %d watch events; want none taken, none sent",
					tc.name, rv, e.api.revs[0].resourceVersion, before.ResourceVersion, after.ResourceVersion, gotEvents)
			}
		} else if e.api.revs[0].resourceVersion != rv+1 || gotEvents == 0 {
			t.Errorf("%s: resourceVersion %d → %d, %d watch events; want one taken and events sent", tc.name, rv, e.api.revs[0].resourceVersion, gotEvents)
		}
	}
}
