package sim

import (
	"maps"
	"reflect"
	"testing"

	"epsim/model"
)

// sameMap reports whether a and b are one map (not two equal ones).
func sameMap(a, b map[string]string) bool {
	return a != nil && reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// TestStampedServicesShareTheirTemplate: the Services stamped from one config share its
// labels, annotations, IP families and ports (serviceTemplate), and a change to one of them
// (labelService) is copy on write: the others keep their labels, and the shared maps and
// slices are not written through.
func TestStampedServicesShareTheirTemplate(t *testing.T) {
	cfg := testConfig(20, 3)
	cfg.Services[0].Count = 3
	cfg.Services[0].Labels = map[string]string{"team": "a", "tier": "web"}
	cfg.Services[0].TopologyMode = "Auto"
	cfg.Timeline = []Action{
		{Name: "create", Kind: ActionCreate},
		{Name: "label", Kind: ActionLabelService, Services: []string{"web-1"}, Labels: map[string]string{"team": "b", "tier": "", "extra": "x"}},
	}
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.services) != 3 {
		t.Fatalf("%d Services, want 3", len(e.services))
	}
	s0, s1, s2 := e.services[0].svc, e.services[1].svc, e.services[2].svc
	sharedLabels := s0.Labels
	for _, s := range []*model.Service{s1, s2} {
		if !sameMap(s.Labels, sharedLabels) || !sameMap(s.Annotations, s0.Annotations) {
			t.Errorf("%s does not share web-0's labels and annotations", s.Name)
		}
	}
	if &s1.Ports[0] != &s0.Ports[0] || &s1.IPFamilies[0] != &s0.IPFamilies[0] {
		t.Error("stamped Services do not share their ports and IP families")
	}
	// The selector names the Service: each has its own.
	if app, _ := s1.Selector.Get("app"); len(s1.Selector) != 1 || app != "web-1" || &s0.Selector[0] == &s1.Selector[0] {
		t.Errorf("selectors %v and %v", s0.Selector, s1.Selector)
	}
	if _, err := e.run(); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"team": "a", "tier": "web"}
	for _, i := range []int{0, 2} {
		if got := e.services[i].svc.Labels; !maps.Equal(got, want) {
			t.Errorf("%s labels %v after labelling web-1, want %v", e.services[i].svc.Name, got, want)
		}
	}
	if got, want := e.services[1].svc.Labels, map[string]string{"team": "b", "extra": "x"}; !maps.Equal(got, want) {
		t.Errorf("web-1 labels %v, want %v", got, want)
	}
	if !maps.Equal(sharedLabels, want) || !maps.Equal(cfg.Services[0].Labels, want) {
		t.Errorf("the shared labels became %v (config %v)", sharedLabels, cfg.Services[0].Labels)
	}
}
