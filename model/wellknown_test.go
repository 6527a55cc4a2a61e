package model

import (
	"fmt"
	"maps"
	"math/rand/v2"
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

// TestPbStringMapWellKnown checks the lookup path of pbStringMap against a range over the
// map, on maps of well-known keys only (the lookup path) and with others (the range).
func TestPbStringMapWellKnown(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	lookedUp := 0
	for range 5000 {
		m := randomMetaMap(r)
		var want int64
		for k, v := range m {
			want += pbBytes(pbString(k) + pbString(v))
		}
		if got := pbStringMap(m); got != want {
			t.Fatalf("pbStringMap(%v) = %d, want %d", m, got, want)
		}
		if _, ok := pbWellKnownMap(m); ok {
			lookedUp++
		}
	}
	if lookedUp < 1000 || lookedUp > 4500 {
		t.Errorf("%d of 5000 maps took the lookup path: the test no longer covers both", lookedUp)
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
		if got := labelsChanged(sliceLabels, &Service{Labels: svcLabels}); got != want {
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
		if got := labelsCorrectForEndpoints(ep, svc); got != want {
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
