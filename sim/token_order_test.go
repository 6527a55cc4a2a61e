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
// built, not when it starts; a taint's PATCH when its GET has answered.
// upstream: endpointslice_controller.go syncService and endpoints_controller.go
// syncService (the writes after the reconcile); controller_utils.go
// AddOrUpdateTaintOnNode (Get, then PatchNodeTaints); client-go rest request.go
// tryThrottle (Wait at each call).
func TestClientCallsReserveInTimeOrder(t *testing.T) {
	cfg := testConfig(30, 0)
	ctl := ControllerConfig{Workers: 3, QPS: 2, Burst: 3, APILatency: Fixed(20 * time.Millisecond)}
	cfg.ControlPlane.EndpointSlice, cfg.ControlPlane.Endpoints = ctl, ctl
	cfg.ControlPlane.EndpointsBuildPerPod = 20 * time.Millisecond
	cfg.ControlPlane.EndpointSliceSyncPerPod = 20 * time.Millisecond
	base := cfg.Services[0]
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
	e := ranEngine(t, cfg)
	waited := false
	for _, c := range e.ctls {
		for name, b := range map[string]*tokenBucket{"bucket": c.bucket, "retries": c.retryBucket} {
			if b == nil {
				continue
			}
			if b.behind != 0 {
				t.Errorf("%s controller's %s: %d calls asked for a token behind a later one", c.mode, name, b.behind)
			}
			waited = waited || b.tokens < 0
		}
	}
	if nl := e.nodeLC; nl != nil && nl.client.behind != 0 {
		t.Errorf("node lifecycle controller: %d calls asked for a token behind a later one", nl.client.behind)
	}
	if !waited {
		t.Error("no controller's client ran short of tokens: the test does not exercise the order")
	}
}
