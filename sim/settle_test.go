package sim

import (
	"reflect"
	"testing"
	"time"
)

// TestSettledBuildersMadeAgain checks that dropping settled small Services' Endpoints
// builders and making them again when a change comes (endpointsSyncer.settle, builder)
// changes no result: the same run with settling off gives the same results, while many
// builders were dropped and made again. The Services idle for longer than settleAfter
// between actions that change every kind of thing the builder reads: pods rolled out,
// scaled up and down, made not ready, moved off failed nodes, and the Service relabelled.
func TestSettledBuildersMadeAgain(t *testing.T) {
	cfg := testConfig(30, 2)
	cfg.Services[0].Count = 40
	wait := Action{Name: "idle", Kind: ActionWait, Duration: 10 * time.Minute}
	cfg.Timeline = []Action{
		{Name: "create", Kind: ActionCreate}, wait,
		{Name: "rollout", Kind: ActionRollout}, wait,
		{Name: "scale up", Kind: ActionScale, Replicas: 3}, wait,
		{Name: "not ready", Kind: ActionFlipReadiness, Percent: 50, NotReadyFor: time.Minute}, wait,
		{Name: "fail", Kind: ActionFailNodes, Nodes: 5}, wait,
		{Name: "relabel", Kind: ActionLabelService, Labels: map[string]string{"tier": "web"}}, wait,
		{Name: "scale down", Kind: ActionScale, Replicas: 1}, wait,
	}
	run := func(maxPods int) (*Results, *endpointsSyncer) {
		t.Helper()
		defer func(old int) { settleMaxPods = old }(settleMaxPods)
		settleMaxPods = maxPods
		e, err := newEngine(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		var y *endpointsSyncer
		for _, c := range e.ctls {
			if s, ok := c.syncer.(*endpointsSyncer); ok {
				y = s
			}
		}
		res, err := e.run()
		if err != nil {
			t.Fatal(err)
		}
		return res, y
	}
	settled, y := run(4)
	plain, _ := run(0)
	if y.remade < 40 || y.dropped < 40 {
		t.Fatalf("%d builders dropped and %d made again: the run did not exercise settling", y.dropped, y.remade)
	}
	if !reflect.DeepEqual(settled, plain) {
		t.Fatalf("settling changed the results:\nwith    %+v\nwithout %+v", settled.Phases, plain.Phases)
	}
	t.Logf("%d builders dropped, %d made again", y.dropped, y.remade)
}
