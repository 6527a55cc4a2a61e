package model

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"

	"k8s.io/apimachinery/pkg/labels"
)

// TestSelectorFromMap: nil stays nil (no selector), empty stays empty and non-nil (every
// pod), and pairs come sorted by key, so that the same map always gives the same Selector.
func TestSelectorFromMap(t *testing.T) {
	if s := SelectorFromMap(nil); s != nil {
		t.Errorf("SelectorFromMap(nil) = %#v, want nil", s)
	}
	if s := SelectorFromMap(map[string]string{}); s == nil || len(s) != 0 {
		t.Errorf("SelectorFromMap({}) = %#v, want empty and non-nil", s)
	}
	m := map[string]string{"tier": "web", "app": "shop", "team": "a", "zone": ""}
	want := Selector{{"app", "shop"}, {"team", "a"}, {"tier", "web"}, {"zone", ""}}
	for range 10 { // map order varies from one range to the next
		if got := SelectorFromMap(m); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("SelectorFromMap(%v) = %v, want %v", m, got, want)
		}
	}
	if got := want.Map(); !maps.Equal(got, m) {
		t.Errorf("Map() = %v, want %v", got, m)
	}
	if got := Selector(nil).Map(); got != nil {
		t.Errorf("nil Selector's Map() = %v, want nil", got)
	}
	if got := (Selector{}).Map(); got == nil || len(got) != 0 {
		t.Errorf("empty Selector's Map() = %#v, want empty and non-nil", got)
	}
	for _, c := range []struct {
		key, value string
		ok         bool
	}{{"app", "shop", true}, {"zone", "", true}, {"missing", "", false}} {
		if v, ok := want.Get(c.key); v != c.value || ok != c.ok {
			t.Errorf("Get(%q) = %q, %v; want %q, %v", c.key, v, ok, c.value, c.ok)
		}
	}
}

// TestSelectorMatchesUpstream: Matches agrees with upstream's
// labels.Set(selector).AsSelectorPreValidated().Matches on random selectors and label sets
// drawn from a few keys and values, so that hits, misses, empty values and empty sets all
// occur; a nil selector (no selector: the controllers skip the Service) matches nothing.
func TestSelectorMatchesUpstream(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 15))
	keys := []string{"app", "tier", "team", "pod-template-hash"}
	values := []string{"", "web", "db"}
	draw := func(max int) map[string]string {
		m := map[string]string{}
		for range rng.IntN(max + 1) {
			m[keys[rng.IntN(len(keys))]] = values[rng.IntN(len(values))]
		}
		return m
	}
	matched := 0
	for i := range 5000 {
		sel, podLabels := draw(3), draw(4)
		want := labels.Set(sel).AsSelectorPreValidated().Matches(labels.Set(podLabels))
		if got := SelectorFromMap(sel).Matches(podLabels); got != want {
			t.Fatalf("case %d: selector %v on labels %v: Matches = %v, upstream %v", i, sel, podLabels, got, want)
		}
		if want {
			matched++
		}
	}
	if matched < 500 || matched > 4500 {
		t.Errorf("%d of 5000 cases matched: the draw does not test both outcomes enough", matched)
	}
	if Selector(nil).Matches(map[string]string{"app": "web"}) || Selector(nil).Matches(nil) {
		t.Error("a nil selector matched a pod")
	}
	if !(Selector{}).Matches(nil) {
		t.Error("an empty selector did not match a pod without labels")
	}
}

func ExampleSelector() {
	sel := SelectorFromMap(map[string]string{"tier": "web", "app": "shop"})
	fmt.Println(sel)
	fmt.Println(sel.Matches(map[string]string{"app": "shop", "tier": "web", "pod-template-hash": "5d8f"}))
	fmt.Println(sel.Matches(map[string]string{"app": "shop"}))
	// Output:
	// [{app shop} {tier web}]
	// true
	// false
}
