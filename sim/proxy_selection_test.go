package sim

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"epsim/model"
)

// TestProxySelectionAsUpstream holds proxySelection to the informer selectors of
// cmd/kube-proxy/app/server.go, built as it builds them: kube-proxy's takes objects with
// neither the service-proxy-name nor the headless label, the other watchers' (CoreDNS) those
// without service-proxy-name.
func TestProxySelectionAsUpstream(t *testing.T) {
	// upstream: pkg/proxy/apis LabelServiceProxyName (not a module this one depends on).
	const proxyName = "service.kubernetes.io/service-proxy-name"
	if model.LabelServiceProxyName != proxyName || model.LabelHeadless != corev1.IsHeadlessService {
		t.Fatalf("label keys %q and %q, want upstream's %q and %q",
			model.LabelServiceProxyName, model.LabelHeadless, proxyName, corev1.IsHeadlessService)
	}
	noProxyName, err := labels.NewRequirement(proxyName, selection.DoesNotExist, nil)
	if err != nil {
		t.Fatal(err)
	}
	noHeadless, err := labels.NewRequirement(corev1.IsHeadlessService, selection.DoesNotExist, nil)
	if err != nil {
		t.Fatal(err)
	}
	proxy := labels.NewSelector().Add(*noProxyName, *noHeadless)
	all := labels.NewSelector().Add(*noProxyName)
	for _, l := range []map[string]string{
		nil,
		{},
		{"app": "web", model.LabelServiceName: "web"},
		{corev1.IsHeadlessService: ""},
		{proxyName: "other-proxy"},
		{proxyName: "", corev1.IsHeadlessService: ""},
		{"service.kubernetes.io/headless-not": "x", "app": "web"},
	} {
		selected, selectedAll := proxySelection(model.StringMapOf(l))
		if want := proxy.Matches(labels.Set(l)); selected != want {
			t.Errorf("labels %v: selected by kube-proxy %v, upstream's selector says %v", l, selected, want)
		}
		if want := all.Matches(labels.Set(l)); selectedAll != want {
			t.Errorf("labels %v: selected by every watcher %v, upstream's selector says %v", l, selectedAll, want)
		}
	}
}

// TestServiceProxyNameHidesAndShowsObjects follows a Service through the label that hides
// it from kube-proxy: each kube-proxy gets one DELETED event per object when it appears,
// nothing for the writes while it is hidden, and one ADDED event per object when the label
// goes. The second and third phases read the selection of the object the write replaces,
// which the stores keep from its own write.
func TestServiceProxyNameHidesAndShowsObjects(t *testing.T) {
	const nodes = 30
	cfg := testConfig(nodes, 12)
	cfg.Timeline = []Action{
		{Name: "create", Kind: ActionCreate},
		{Name: "hide", Kind: ActionLabelService, Labels: map[string]string{model.LabelServiceProxyName: "other"}},
		{Name: "hidden-change", Kind: ActionFlipReadiness, Pods: 1},
		{Name: "show", Kind: ActionLabelService, Labels: map[string]string{model.LabelServiceProxyName: ""}},
		{Name: "shown-change", Kind: ActionFlipReadiness, Pods: 1},
	}
	res, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Phases) != len(cfg.Timeline) {
		t.Fatalf("%d phases, want %d", len(res.Phases), len(cfg.Timeline))
	}
	for _, m := range []Mode{ModeEndpoints, ModeEndpointSlices} {
		// Watch events per kube-proxy in each phase (one object of each kind here); -1: some.
		for i, want := range []int64{-1, 1, 0, 1, -1} {
			r := res.Phases[i].Mode(m)
			if got := r.Writes.Total(); got == 0 {
				t.Errorf("%s phase %q: no writes", m, res.Phases[i].Name)
				continue
			}
			if want < 0 {
				if r.WatchEvents == 0 {
					t.Errorf("%s phase %q: no watch events", m, res.Phases[i].Name)
				}
				continue
			}
			if got := r.WatchEvents; got != want*nodes {
				t.Errorf("%s phase %q: %d watch events, want %d (%d per kube-proxy)", m, res.Phases[i].Name, got, want*nodes, want)
			}
		}
	}
}
