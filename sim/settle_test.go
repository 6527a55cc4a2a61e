package sim

import (
	"reflect"
	"testing"
	"time"
)

// TestSettledBuildersMadeAgain checks that dropping settled Services' builders (the
// Endpoints builder and the EndpointSlice reconciler) and making them again when a change
// comes (settle.go) changes no result: the same run with settling off gives the same results, while many
// builders were dropped and made again. The Services idle for longer than settleAfter
// between actions that change every kind of thing the builder reads: pods rolled out,
// scaled up and down, made not ready, moved off failed nodes, and the Service relabelled.
func TestSettledBuildersMadeAgain(t *testing.T) {
	cfg := testConfig(30, 2)
	cfg.Services[0].Count = 40
	// Services of more pods than a dormant record holds itself (settler.more).
	api := cfg.Services[0]
	api.Name, api.Count, api.Replicas = "api", 6, dormantInline+5
	cfg.Services = append(cfg.Services, api)
	wait := Action{Name: "idle", Kind: ActionWait, Duration: time.Duration(settleAfter) + 30*time.Minute}
	cfg.Timeline = []Action{
		{Name: "create", Kind: ActionCreate}, wait,
		{Name: "rollout", Kind: ActionRollout}, wait,
		{Name: "scale up", Kind: ActionScale, Replicas: 3}, wait,
		{Name: "not ready", Kind: ActionFlipReadiness, Percent: 50, NotReadyFor: time.Minute}, wait,
		{Name: "fail", Kind: ActionFailNodes, Nodes: 5}, wait,
		{Name: "relabel", Kind: ActionLabelService, Labels: map[string]string{"tier": "web"}}, wait,
		{Name: "scale down", Kind: ActionScale, Replicas: 1}, wait,
	}
	run := func(maxPods int) (*Results, []*settler) {
		t.Helper()
		defer func(old int) { settleMaxPods = old }(settleMaxPods)
		settleMaxPods = maxPods
		e, err := newEngine(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		var settlers []*settler
		for _, c := range e.ctls {
			switch y := c.syncer.(type) {
			case *endpointsSyncer:
				settlers = append(settlers, &y.settler)
			case *sliceSyncer:
				settlers = append(settlers, &y.settler)
			}
		}
		res, err := e.run()
		if err != nil {
			t.Fatal(err)
		}
		return res, settlers
	}
	settled, settlers := run(settleMaxPods)
	plain, _ := run(0)
	if len(settlers) != 2 {
		t.Fatalf("%d controllers with builders, want 2", len(settlers))
	}
	for _, st := range settlers {
		if st.remade < 20 || st.dropped < 20 || st.largest <= dormantInline {
			t.Fatalf("%d builders dropped and %d made again, of at most %d pods: the run did not exercise settling", st.dropped, st.remade, st.largest)
		}
		t.Logf("%d builders dropped, %d made again, of at most %d pods", st.dropped, st.remade, st.largest)
	}
	if !reflect.DeepEqual(settled, plain) {
		t.Fatalf("settling changed the results:\nwith    %+v\nwithout %+v", settled.Phases, plain.Phases)
	}
}
