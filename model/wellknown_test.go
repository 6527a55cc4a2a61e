package model

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomMetaMap returns a map of some well-known metadata keys and some others, with values
// of random lengths (empty included).
func randomMetaMap(r *rand.Rand) map[string]string {
	m := map[string]string{}
	for _, k := range [...]string{LabelServiceName, LabelManagedBy, AnnotationTriggerTime, LabelEndpointsManagedBy, LabelHeadless} {
		if r.IntN(2) == 0 {
			m[k] = fmt.Sprintf("%0*d", r.IntN(200), 0)
		}
	}
	for i := range r.IntN(3) * r.IntN(2) {
		m[fmt.Sprintf("example.com/key-%d", i)] = fmt.Sprintf("%0*d", r.IntN(20), 0)
	}
	if r.IntN(8) == 0 {
		m = nil
	}
	return m
}

// randomObjectAndServiceLabels returns random labels for an object and for its Service,
// which has none half the time (the usual case).
func randomObjectAndServiceLabels(r *rand.Rand) (object, svc map[string]string) {
	object, svc = randomMetaMap(r), randomMetaMap(r)
	if r.IntN(2) == 0 {
		svc = nil
	}
	return object, svc
}

// TestStringMapActsAsAMap applies random sets and deletes to a StringMap and to a Go map
// side by side: after each, the StringMap holds the map's pairs in key order, lookups
// agree, the protobuf size is the sum over the map's entries, and a StringMap the change
// started from (which objects may share) is left as it was.
func TestStringMapActsAsAMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	keys := []string{LabelServiceName, LabelManagedBy, AnnotationTriggerTime, LabelHeadless, "a", "z", "example.com/key-0",
		"example.com/key-1", "example.com/key-2", "example.com/key-3", "m", "b", "y"}
	large := 0 // lookups in more than 8 pairs, which search rather than scan
	for range 500 {
		want := randomMetaMap(r)
		got := StringMapOf(want)
		if want == nil {
			want = map[string]string{}
		}
		for range 12 {
			before, kept := got, got.Clone()
			k := keys[r.IntN(len(keys))]
			_, present := want[k]
			if r.IntN(3) == 0 {
				delete(want, k)
				got.Delete(k)
			} else {
				v := fmt.Sprint(r.IntN(3))
				want[k] = v
				got.Set(k, v)
			}
			if !present && !before.Equal(kept) {
				t.Fatalf("adding or deleting %q changed the StringMap it started from: %v, was %v", k, before, kept)
			}
			if !maps.Equal(got.Map(), want) || !slices.IsSortedFunc(got, compareLabels) {
				t.Fatalf("after a change of %q: %v, want the pairs of %v in key order", k, got, want)
			}
			if len(got) > 8 {
				large++
			}
			for _, k := range keys {
				v, ok := want[k]
				if gv, gok := got.Lookup(k); gv != v || gok != ok || got.Get(k) != v || got.Has(k) != ok {
					t.Fatalf("%v: Lookup(%q) = %q, %v; want %q, %v", got, k, gv, gok, v, ok)
				}
			}
			var size int64
			for k, v := range want {
				size += pbBytes(pbString(k) + pbString(v))
			}
			if n := pbStringMap(got); n != size {
				t.Fatalf("pbStringMap(%v) = %d, want %d", got, n, size)
			}
		}
	}
	if large < 100 {
		t.Errorf("only %d changes left more than 8 pairs: the test no longer covers the search", large)
	}
	if got := StringMapFrom("b", "1", "a", "2", "b", "3"); fmt.Sprint(got) != "[{a 2} {b 3}]" {
		t.Errorf("StringMapFrom = %v", got)
	}
}

// TestLabelsChangedMatchesUpstream compares labelsChanged with upstream's rule, the slice's
// labels without the reserved ones against the Service's without them, on random label sets
// with and without Service labels.
func TestLabelsChangedMatchesUpstream(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	nonReserved := func(m map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			if k != LabelServiceName && k != LabelManagedBy && k != LabelHeadless {
				out[k] = v
			}
		}
		return out
	}
	changed := 0
	for range 5000 {
		sliceLabels, svcLabels := randomObjectAndServiceLabels(r)
		if r.IntN(4) == 0 {
			sliceLabels = maps.Clone(svcLabels) // often unchanged
		}
		want := !maps.Equal(nonReserved(sliceLabels), nonReserved(svcLabels))
		if got := labelsChanged(StringMapOf(sliceLabels), &Service{Labels: svcLabels}); got != want {
			t.Fatalf("labelsChanged(%v, %v) = %v, want %v", sliceLabels, svcLabels, got, want)
		}
		if want {
			changed++
		}
	}
	if changed < 500 || changed > 4500 {
		t.Errorf("%d of 5000 cases changed: the test no longer covers both answers", changed)
	}
}

// TestLabelsCorrectForEndpointsMatchesUpstream compares labelsCorrectForEndpoints with
// upstream's loop (every label of the Endpoints but managed-by and headless is the Service's,
// and no Service label is missing) on random label sets, with and without Service labels.
func TestLabelsCorrectForEndpointsMatchesUpstream(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	upstream := func(ep, svc map[string]string) bool {
		if ep[LabelEndpointsManagedBy] != EndpointsControllerName {
			return false
		}
		skipped := 0
		for k, v := range ep {
			if k == LabelHeadless || k == LabelEndpointsManagedBy {
				skipped++
				continue
			}
			if sv, ok := svc[k]; !ok || sv != v {
				return false
			}
		}
		return len(svc) == len(ep)-skipped
	}
	correct := 0
	for range 5000 {
		ep, svc := randomObjectAndServiceLabels(r)
		if r.IntN(2) == 0 {
			ep = maps.Clone(svc)
			if ep == nil || r.IntN(2) == 0 {
				ep = map[string]string{}
			}
			if r.IntN(8) > 0 {
				ep[LabelEndpointsManagedBy] = EndpointsControllerName
			}
			if r.IntN(3) == 0 {
				ep[LabelHeadless] = ""
			}
			if r.IntN(3) == 0 {
				ep["example.com/extra"] = "x" // not the Service's
			}
		}
		want := upstream(ep, svc)
		if got := labelsCorrectForEndpoints(StringMapOf(ep), svc); got != want {
			t.Fatalf("labelsCorrectForEndpoints(%v, %v) = %v, want %v", ep, svc, got, want)
		}
		if want {
			correct++
		}
	}
	if correct < 500 || correct > 4500 {
		t.Errorf("%d of 5000 cases correct: the test no longer covers both answers", correct)
	}
}
