package sim

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"epsim/model"
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
		// The scratch lists keep no pod alive (a pod replaced since would stay in memory).
		for i, pp := range st.placed[:cap(st.placed)] {
			if pp.p != nil {
				t.Fatalf("gather's list keeps pod %s at %d after the run", pp.p.pod.Name, i)
			}
		}
		for i, p := range st.woken[:cap(st.woken)] {
			if p != nil {
				t.Fatalf("wake's list keeps pod %s at %d after the run", p.pod.Name, i)
			}
		}
	}
	if !reflect.DeepEqual(settled, plain) {
		t.Fatalf("settling changed the results:\nwith    %+v\nwithout %+v", settled.Phases, plain.Phases)
	}
}

// TestSettlerGatherKeepsNoPodWhenItGivesUp checks gather's scratch list when a builder's
// pods cannot make a record (a version the record would lose): the pods it placed before
// giving up must not stay in it.
func TestSettlerGatherKeepsNoPodWhenItGivesUp(t *testing.T) {
	s := &serviceState{}
	for i := range 3 {
		s.pods = append(s.pods, &podState{pod: &model.Pod{PodIdentity: model.NewPodIdentity("ns", fmt.Sprint("web-", i), fmt.Sprint("uid-", i))}})
	}
	older := *s.pods[2].pod // the builder has a version before the pod's current one
	var st settler
	of := func(p *podState) (*model.Pod, int) {
		if p == s.pods[2] {
			return &older, 2
		}
		return p.pod, slices.Index(s.pods, p)
	}
	if d := st.gather(s, 3, of, func(*podState) { t.Fatal("forget called for a record not made") }); d != nil {
		t.Fatal("gather made a record of a builder with an old version of a pod")
	}
	for i, pp := range st.placed[:cap(st.placed)] {
		if pp.p != nil {
			t.Fatalf("gather's list keeps pod %s at %d after giving up", pp.p.pod.Name, i)
		}
	}
}
