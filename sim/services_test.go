package sim

import (
	"testing"
	"time"

	"epsim/model"
)

// TestServiceResultsAddUpToTotals: the per-Service figures are the run's figures split by
// Service, so over all Services they add up to the totals (writes and bytes) and their
// largest object is the run's; Services are listed in creation order.
func TestServiceResultsAddUpToTotals(t *testing.T) {
	cfg := testConfig(60, 150)
	small := cfg.Services[0]
	small.Name, small.Replicas, small.Count = "small", 5, 3
	cfg.Services = append(cfg.Services, small)
	// One oversized Endpoints object: its writes fail and must be counted per Service too.
	cfg.APIServer.ObjectSizeLimitBytes = 12_000
	res, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Services) != 4 {
		t.Fatalf("%d Services, want web and 3 small ones: %+v", len(res.Services), res.Services)
	}
	if res.Services[0].Replicas != 150 || res.Services[3].Replicas != 5 {
		t.Errorf("replicas %d and %d, want the scenario's 150 and 5", res.Services[0].Replicas, res.Services[3].Replicas)
	}
	if res.Services[0].Name != "web" || res.Services[1].Name == "web" {
		t.Errorf("Services not in creation order: %s, %s", res.Services[0].Name, res.Services[1].Name)
	}
	for _, m := range []Mode{ModeEndpoints, ModeEndpointSlices} {
		tot := res.Total.Mode(m)
		var writes, failed, fanout, maxObj int64
		for i := range res.Services {
			s := res.Services[i].Mode(m)
			writes += s.Writes
			failed += s.FailedWrites
			fanout += s.FanoutBytes
			maxObj = max(maxObj, s.MaxObjectBytes)
			if s.Writes > 0 && s.Propagation.Count == 0 {
				t.Errorf("%s %s: %d writes but no propagation samples", m, res.Services[i].Name, s.Writes)
			}
		}
		if writes != tot.Writes.Total() || failed != tot.FailedWrites || fanout != tot.FanoutBytes || maxObj != tot.MaxObjectBytes {
			t.Errorf("%s: Services sum to writes %d failed %d fanout %d max object %d; totals %d %d %d %d",
				m, writes, failed, fanout, maxObj, tot.Writes.Total(), tot.FailedWrites, tot.FanoutBytes, tot.MaxObjectBytes)
		}
	}
	if res.Total.Endpoints.FailedWrites == 0 {
		t.Error("no failed Endpoints writes: the size limit did not bite, the test checks less than it says")
	}
	web, first := res.Services[0], res.Services[1]
	if web.EndpointSlices.FanoutBytes <= first.EndpointSlices.FanoutBytes {
		t.Errorf("web (150 pods) fanned out %d, a 5-pod Service %d", web.EndpointSlices.FanoutBytes, first.EndpointSlices.FanoutBytes)
	}
}

// A DaemonSet's size is the number of nodes (its replicas are ignored).
func TestServiceResultDaemonSetSize(t *testing.T) {
	cfg := workloadConfig(1, testWorkloads(), Action{Name: "create", Kind: ActionCreate})
	cfg.Services[0].WorkloadKind = KindDaemonSet
	cfg.Services[0].Replicas = 3
	res, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Services) != 1 || res.Services[0].Replicas != cfg.Cluster.Nodes {
		t.Errorf("services %+v, want one of size %d (the nodes)", res.Services, cfg.Cluster.Nodes)
	}
}

// TestNameLabelValue: a label value of $name is each stamped Service's own name, on the
// Service and on the slices that copy its labels; other labels are the entry's.
func TestNameLabelValue(t *testing.T) {
	cfg := testConfig(10, 2)
	cfg.Services[0].Count = 3
	cfg.Services[0].Labels = map[string]string{"app.kubernetes.io/name": NameLabelValue, "team": "shop"}
	cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate}}
	e := ranEngine(t, cfg)
	for _, s := range e.services {
		if got := s.svc.Labels["app.kubernetes.io/name"]; got != s.svc.Name || s.svc.Labels["team"] != "shop" {
			t.Errorf("Service %s: labels %v, want its own name and team: shop", s.svc.Name, s.svc.Labels)
		}
	}
	stored := storedSlicesOf(t, e)
	for _, sl := range stored {
		owner := sl.Labels.Get(model.LabelServiceName)
		if got := sl.Labels.Get("app.kubernetes.io/name"); got != owner {
			t.Errorf("slice %s of %s: app.kubernetes.io/name %q, want %q", sl.Name, owner, got, owner)
		}
	}
	if len(stored) != 3 {
		t.Errorf("%d slices, want one per Service (3)", len(stored))
	}
}

// TestUserEndpointsWritesWaitForNoWorker: the user's writes of a selector-less Service's
// Endpoints object are calls of their own, sent as the object changes. The Endpoints
// controller, busy for seconds with other Services' syncs on its one worker, never holds
// them: its sync of such a Service returns at once, and an update of the object does not
// queue it. Before, each waited for the worker (5.5 s in the scale below).
// upstream: endpoints_controller.go syncService (Selector == nil), onEndpointsDelete.
func TestUserEndpointsWritesWaitForNoWorker(t *testing.T) {
	cfg := testConfig(20, 50)
	cfg.ControlPlane.Endpoints.Workers = 1
	cfg.ControlPlane.EndpointsBuildPerPod = 20 * time.Millisecond
	big := cfg.Services[0]
	big.Name, big.Count = "big", 4
	ext := cfg.Services[0]
	ext.Name, ext.Replicas, ext.ManualEndpoints = "ext", 0, 3
	cfg.Services = []ServiceConfig{big, ext}
	cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate},
		{Name: "scale", Kind: ActionScale, Services: []string{"big", "ext"}, Replicas: 150, Spread: 20 * time.Second}}
	_, res := runEngineOf(t, cfg, nil)
	var user, busiest Time
	n := 0
	for _, w := range res.Writes {
		if w.Mode != ModeEndpoints || w.Kind != "Endpoints" {
			continue
		}
		if w.Name == "ext" {
			user = max(user, w.Latency)
			n++
		} else {
			busiest = max(busiest, w.Latency)
		}
	}
	if n != 2 {
		t.Fatalf("%d writes of ext's Endpoints object, want its create and its update", n)
	}
	if busiest < Time(time.Second) {
		t.Fatalf("the controller's slowest write took %v: not busy enough to tell", busiest)
	}
	if user > Time(50*time.Millisecond) {
		t.Errorf("a user's write of ext's Endpoints took %v, the controller's slowest %v; want one API call's time", user, busiest)
	}
}

// TestUserEndpointsWriteRefused: a user's Endpoints object over the API server's request
// limit is refused once, and the run goes on (the user does not retry it until it changes).
func TestUserEndpointsWriteRefused(t *testing.T) {
	cfg := testConfig(3, 1)
	cfg.APIServer.ObjectSizeLimitBytes = 1000
	ext := cfg.Services[0]
	ext.Name, ext.Replicas, ext.ManualEndpoints = "ext", 0, 100
	cfg.Services = []ServiceConfig{ext}
	cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate}}
	cfg.RunEndpointSlices = false
	_, res := runEngineOf(t, cfg, nil)
	if got := res.Total.Endpoints.FailedWrites; got != 1 {
		t.Errorf("%d failed writes, want the user's one create", got)
	}
}
