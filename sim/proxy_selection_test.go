package sim

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"epsim/model"
)

// TestProxySelectionAsUpstream holds proxySelection to the informer selectors of
// cmd/kube-proxy/app/server.go, built as it builds them. v1.18's (a kube-proxy that watches
// Endpoints) takes objects with neither the service-proxy-name nor the headless label.
// v1.37's EndpointSlice informer takes those without the headless label, and its Service
// informer those without service-proxy-name: a slice it takes of a Service that informer
// leaves out is unserved (kubeProxyServes). The extra watchers (watcherSelection) filter as that
// EndpointSlice informer does, whatever the mode.
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
	legacy := labels.NewSelector().Add(*noProxyName, *noHeadless) // v1.18, Endpoints
	slicesSelector := labels.NewSelector().Add(*noHeadless)       // v1.37, EndpointSlices
	servicesSelector := labels.NewSelector().Add(*noProxyName)    // v1.37, Services
	for _, l := range []map[string]string{
		nil,
		{},
		{"app": "web", model.LabelServiceName: "web"},
		{corev1.IsHeadlessService: ""},
		{proxyName: "other-proxy"},
		{proxyName: ""},
		{proxyName: "", corev1.IsHeadlessService: ""},
		{"service.kubernetes.io/headless-not": "x", "app": "web"},
	} {
		if got, want := proxySelection(model.StringMapOf(l), true), legacy.Matches(labels.Set(l)); got != want {
			t.Errorf("labels %v: v1.18 kube-proxy selects %v, upstream's selector says %v", l, got, want)
		}
		if got, want := proxySelection(model.StringMapOf(l), false), slicesSelector.Matches(labels.Set(l)); got != want {
			t.Errorf("labels %v: kube-proxy selects the slice %v, upstream's selector says %v", l, got, want)
		}
		// Whether it serves the Service is the Service's labels' to say, as the Service
		// informer's selector has it.
		svc := &model.Service{ClusterIP: "10.96.0.10", IPFamilies: []model.IPFamily{model.IPv4}, Labels: l}
		if got, want := kubeProxyServes(svc, 0), servicesSelector.Matches(labels.Set(l)); got != want {
			t.Errorf("Service labels %v: served %v, the Service informer's selector says %v", l, got, want)
		}
		// The extra watchers' headless filter is the EndpointSlice informer's alone, in both
		// modes: service-proxy-name is kube-proxy's.
		if got, want := watcherSelection(model.StringMapOf(l)), slicesSelector.Matches(labels.Set(l)); got != want {
			t.Errorf("labels %v: extra watchers select %v, want %v (the headless filter only)", l, got, want)
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
		// Today's kube-proxy still receives a hidden Service's slices.
		events := []int64{-1, 1, 0, 1, -1}
		if m == ModeEndpointSlices {
			events = []int64{-1, 1, 1, 1, -1}
		}
		for i, want := range events {
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

// TestUnservedServiceSyncsWithoutRules follows a Service kube-proxy does not serve (a
// service-proxy-name label) in the EndpointSlice mode: each readiness change still reaches
// every kube-proxy, which syncs and observes the change's programming latency (upstream:
// syncProxyRules observes every checked-out trigger time), but writes none of its rules, so
// the sync is shorter than the same change's once the label is gone.
func TestUnservedServiceSyncsWithoutRules(t *testing.T) {
	const nodes = 30
	cfg := testConfig(nodes, 40)
	cfg.Timeline = []Action{
		{Name: "create", Kind: ActionCreate},
		{Name: "hide", Kind: ActionLabelService, Labels: map[string]string{model.LabelServiceProxyName: "other"}},
		{Name: "settle-hidden", Kind: ActionWait, Duration: 5 * time.Second},
		{Name: "hidden-change", Kind: ActionFlipReadiness, Pods: 1},
		{Name: "show", Kind: ActionLabelService, Labels: map[string]string{model.LabelServiceProxyName: ""}},
		{Name: "settle-shown", Kind: ActionWait, Duration: 5 * time.Second},
		{Name: "shown-change", Kind: ActionFlipReadiness, Pods: 1},
	}
	res, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	hidden, shown := res.Phases[3].Mode(ModeEndpointSlices), res.Phases[6].Mode(ModeEndpointSlices)
	for _, r := range []*ModeResult{hidden, shown} {
		if r.KubeProxySyncs == 0 || r.Programming.Count != 1 || r.WatchEvents != nodes {
			t.Errorf("%d syncs, %d programming samples, %d watch events; want some syncs, one sample and one event per node (%d)",
				r.KubeProxySyncs, r.Programming.Count, r.WatchEvents, nodes)
		}
	}
	// The hidden Service is the only one: its sync has no rule to generate or write. (The
	// test config leaves kube-proxy to its defaults: a whole CPU, the default costs.)
	base := DefaultKubeProxyCosts().SyncBase.Seconds()
	if hidden.PeakSyncSeconds != base || shown.PeakSyncSeconds <= base {
		t.Errorf("longest sync %gs for the hidden Service's change, %gs once shown; want the base cost %gs, then more",
			hidden.PeakSyncSeconds, shown.PeakSyncSeconds, base)
	}
	if legacy := res.Phases[3].Mode(ModeEndpoints); legacy.WatchEvents != 0 || legacy.Programming.Count != 0 {
		t.Errorf("Endpoints mode: %d watch events, %d samples for the hidden Service; v1.18 selects none",
			legacy.WatchEvents, legacy.Programming.Count)
	}
}

// TestServiceProxyNameHidesFromKubeProxyOnly follows a Service through the label that hides
// it from kube-proxy with a group of extra watchers (a service mesh) watching both
// resources. The label is kube-proxy's filter alone (its Service informer's, and in the
// Endpoints mode its Endpoints informer's): the mesh watchers take the hidden Service's
// objects in both modes, as every object but a headless Service's. While it is hidden, a
// readiness change's one write reaches the mesh watchers only in the Endpoints mode, and
// the mesh watchers and every kube-proxy in the EndpointSlice mode.
// Reference: docs/scenario.md apiServer.watchers[].includeHeadless; upstream
// cmd/kube-proxy/app/server.go (*ProxyServer).Run.
func TestServiceProxyNameHidesFromKubeProxyOnly(t *testing.T) {
	const nodes, mesh = 30, 3
	cfg := testConfig(nodes, 12)
	cfg.APIServer.Watchers = []WatcherConfig{{Name: "mesh", Count: mesh, EndpointSlices: true, Endpoints: true, Encoding: EncodingProtobuf}}
	cfg.Timeline = []Action{
		{Name: "create", Kind: ActionCreate},
		{Name: "hide", Kind: ActionLabelService, Labels: map[string]string{model.LabelServiceProxyName: "other"}},
		{Name: "hidden-change", Kind: ActionFlipReadiness, Pods: 1},
	}
	res, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Mode{ModeEndpoints, ModeEndpointSlices} {
		// Per write: the mesh watchers, and in the EndpointSlice mode every kube-proxy too.
		perWrite := int64(mesh)
		if m == ModeEndpointSlices {
			perWrite += nodes
		}
		r := res.Phases[2].Mode(m)
		if got := r.Writes.Total(); got != 1 {
			t.Fatalf("%s: %d writes for one readiness change, want 1", m, got)
		}
		if r.WatchEvents != perWrite || r.FanoutBytes <= 0 {
			t.Errorf("%s: the hidden Service's write reached %d watchers (%d bytes), want %d (the %d mesh watchers%s)",
				m, r.WatchEvents, r.FanoutBytes, perWrite, mesh, map[bool]string{true: " and every kube-proxy"}[m == ModeEndpointSlices])
		}
	}
}

// TestKubeProxyServesByTheService: whether a proxier writes rules for a Service's objects is
// the Service's to say, not the objects' labels. A selector-less Service's EndpointSlices
// are mirrored from its Endpoints object and carry that object's labels: a headless or
// hidden Service's reach every kube-proxy (they lack the headless label) but get no rule,
// as its Service informer never takes the Service (no cluster IP; the service-proxy-name
// label). upstream: cmd/kube-proxy/app/server.go; servicechangetracker.go
// serviceToServiceMap (ShouldSkipService).
func TestKubeProxyServesByTheService(t *testing.T) {
	for _, tc := range []struct {
		name     string
		labels   map[string]string
		headless bool
		served   bool
	}{
		{"plain", nil, false, true},
		{"service-proxy-name", map[string]string{model.LabelServiceProxyName: "other"}, false, false},
		{"headless", nil, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const nodes = 3
			cfg := testConfig(nodes, 0)
			cfg.Services[0].ManualEndpoints = 4
			cfg.Services[0].Replicas = 0
			cfg.Services[0].Labels = tc.labels
			cfg.Services[0].Headless = tc.headless
			cfg.RunEndpoints = false
			cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate, Settle: time.Minute}}
			e, res := runEngineOf(t, cfg, nil)
			if got := res.Phases[0].Mode(ModeEndpointSlices).WatchEvents; got < nodes {
				t.Fatalf("%d watch events: the mirrored slices did not reach every kube-proxy", got)
			}
			k := e.kubeProxies[modeIndex(ModeEndpointSlices)].proxier(0)
			if served := k.portEndpoints > 0; served != tc.served {
				t.Errorf("kube-proxy programs %d endpoints × ports; want the Service served: %v", k.portEndpoints, tc.served)
			}
		})
	}
}
