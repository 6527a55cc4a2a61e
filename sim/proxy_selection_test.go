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
		selected, selectedAll := proxySelection(l)
		if want := proxy.Matches(labels.Set(l)); selected != want {
			t.Errorf("labels %v: selected by kube-proxy %v, upstream's selector says %v", l, selected, want)
		}
		if want := all.Matches(labels.Set(l)); selectedAll != want {
			t.Errorf("labels %v: selected by every watcher %v, upstream's selector says %v", l, selectedAll, want)
		}
	}
}
