package sim

import (
	"fmt"
	"testing"
	"time"
)

// TestClientCallsReserveInTimeOrder runs controllers whose clients are short of tokens
// (several Services of different sizes, so syncs take different times to build; a low QPS;
// a zone failing, so the node lifecycle controller's calls queue) and checks each call asks
// its client's limiter for a token at the time it is made, never behind one made later:
// the real limiter (golang.org/x/time/rate, TestTokenBucketMatchesRateLimiter) sees calls
// in the order of the clock. A sync asks for its first write's token when its list is
// built, not when it starts; a taint's PATCH when its GET has answered; a binding when its
// pod's scheduling cycle ends.
// upstream: endpointslice_controller.go syncService and endpoints_controller.go
// syncService (the writes after the reconcile); controller_utils.go
// AddOrUpdateTaintOnNode (Get, then PatchNodeTaints); scheduler schedule_one.go
// (bindingCycle after schedulingCycle); client-go rest request.go
// tryThrottle (Wait at each call).
func TestClientCallsReserveInTimeOrder(t *testing.T) {
	cfg := testConfig(30, 0)
	ctl := ControllerConfig{Workers: 3, QPS: 2, Burst: 3, APILatency: Fixed(20 * time.Millisecond)}
	cfg.ControlPlane.EndpointSlice, cfg.ControlPlane.Endpoints = ctl, ctl
	cfg.ControlPlane.EndpointsBuildPerPod = 20 * time.Millisecond
	cfg.ControlPlane.EndpointSliceSyncPerPod = 20 * time.Millisecond
	cfg.ControlPlane.Workloads.SchedulerQPS, cfg.ControlPlane.Workloads.SchedulerBurst = 20, 10
	base := cfg.Services[0]
	// Scheduling cycles of different lengths: a pod created later may be bound first.
	base.Timing.Schedule = Distribution{Kind: DistUniform, Min: 100 * time.Millisecond, Max: 2 * time.Second}
	cfg.Services = nil
	for i, replicas := range []int{3, 250, 8, 120, 40, 1, 300, 15} {
		s := base
		s.Name = fmt.Sprintf("svc-%d", i)
		s.Replicas = replicas
		cfg.Services = append(cfg.Services, s)
	}
	cfg.Timeline = []Action{
		{Name: "create", Kind: ActionCreate},
		{Name: "rolling-update", Kind: ActionRollout,
			MaxSurge: IntOrPercent{Value: 25, IsPercent: true}, MaxUnavailable: IntOrPercent{Value: 25, IsPercent: true}},
		{Name: "zone-down", Kind: ActionFailNodes, Zone: "us-east-1a", Duration: 3 * time.Minute},
	}
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Whether each client ran short of tokens at some point: the order matters only then.
	var controllersShort, schedulerShort bool
	runEngine(t, e, func() {
		for _, c := range e.ctls {
			controllersShort = controllersShort || c.bucket.tokens < 0
		}
		schedulerShort = schedulerShort || e.workloads.scheduler.tokens < 0
	})
	for _, c := range e.ctls {
		for name, b := range map[string]*tokenBucket{"bucket": c.bucket, "retries": c.retryBucket} {
			if b != nil && b.behind != 0 {
				t.Errorf("%s controller's %s: %d calls asked for a token behind a later one", c.mode, name, b.behind)
			}
		}
	}
	if nl := e.nodeLC; nl != nil && nl.client.behind != 0 {
		t.Errorf("node lifecycle controller: %d calls asked for a token behind a later one", nl.client.behind)
	}
	w := e.workloads
	for name, b := range map[string]*tokenBucket{
		"scheduler": w.scheduler, "ReplicaSet controller": w.rsBucket, "Deployment controller": w.dcBucket,
	} {
		if b.behind != 0 {
			t.Errorf("%s's client: %d calls asked for a token behind a later one", name, b.behind)
		}
	}
	if !controllersShort || !schedulerShort {
		t.Errorf("short of tokens: endpoint controllers %v, scheduler %v; the test does not exercise the order",
			controllersShort, schedulerShort)
	}
}
