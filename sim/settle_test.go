package sim

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"epsim/model"
)

// settleTestConfig is a run whose Services idle for longer than settleAfter between
// actions that change every kind of thing the builders read: pods rolled out, scaled up
// and down, made not ready, moved off failed nodes, and the Service relabelled.
func settleTestConfig() Config {
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
	return cfg
}

// runSettling runs cfg with settleMaxPods at maxPods, and returns its results and its two
// controllers' settlers.
func runSettling(t *testing.T, cfg Config, maxPods int) (*Results, []*settler) {
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
	if len(settlers) != 2 {
		t.Fatalf("%d controllers with builders, want 2", len(settlers))
	}
	return res, settlers
}

// TestSettledBuildersMadeAgain checks that dropping settled Services' builders (the
// Endpoints builder and the EndpointSlice reconciler) and making them again when a change
// comes (settle.go) changes no result: the same run with settling off gives the same
// results, while many builders were dropped and made again, before each kind of change
// (settleTestConfig).
func TestSettledBuildersMadeAgain(t *testing.T) {
	// Settling before each action, which a run does not do (actedOnLater), makes each
	// kind of change find its Services' builders dropped.
	defer func(old bool) { keepForLaterActions = old }(keepForLaterActions)
	keepForLaterActions = false
	cfg := settleTestConfig()
	settled, settlers := runSettling(t, cfg, settleMaxPods)
	plain, _ := runSettling(t, cfg, 0)
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

// TestBuildersKeptForLaterActions checks actedOnLater: the Services that the last action
// changes keep their builders through the idle hours before it, so no builder is made
// again, while those of the Services no later action changes are dropped. With the
// builders kept by none, the first are dropped and made again, as settling was before.
func TestBuildersKeptForLaterActions(t *testing.T) {
	cfg := settleTestConfig()
	wait := cfg.Timeline[1]
	cfg.Timeline = []Action{
		{Name: "create", Kind: ActionCreate}, wait,
		{Name: "rollout", Kind: ActionRollout, Services: []string{"web"}}, wait,
		{Name: "scale up", Kind: ActionScale, Services: []string{"api"}, Replicas: 3},
	}
	plain, _ := runSettling(t, cfg, 0)
	for _, keep := range []bool{true, false} {
		func() {
			defer func(old bool) { keepForLaterActions = old }(keepForLaterActions)
			keepForLaterActions = keep
			settled, settlers := runSettling(t, cfg, settleMaxPods)
			for _, st := range settlers {
				// web's 40 Services settle after their rollout, dropped at api's scale.
				switch {
				case keep && (st.dropped != 40 || st.remade != 0):
					t.Errorf("%d builders dropped and %d made again, want web's 40 and none", st.dropped, st.remade)
				case !keep && (st.dropped < 46 || st.remade < 6):
					t.Errorf("without keeping: %d builders dropped and %d made again, want api's 6 among both", st.dropped, st.remade)
				}
			}
			if !reflect.DeepEqual(settled, plain) {
				t.Fatalf("settling changed the results:\nwith    %+v\nwithout %+v", settled.Phases, plain.Phases)
			}
		}()
	}
}

// TestLastActing checks the last phase that may change each Service: the phases of the
// actions that name it or name none, or act on nodes; not a wait's.
func TestLastActing(t *testing.T) {
	cfg := testConfig(10, 1)
	web := cfg.Services[0]
	api, db := web, web
	web.Count = 2
	api.Name, db.Name = "api", "db"
	cfg.Services = []ServiceConfig{web, api, db}
	create := Action{Name: "create", Kind: ActionCreate}
	wait := Action{Name: "wait", Kind: ActionWait, Duration: time.Minute}
	roll := func(names ...string) Action { return Action{Name: "roll", Kind: ActionRollout, Services: names} }
	for _, tc := range []struct {
		name     string
		timeline []Action
		want     []int32 // web-0, web-1, api, db
	}{
		{"create alone", []Action{create}, []int32{0, 0, 0, 0}},
		{"named rollouts", []Action{create, roll("web"), wait, roll("db"), wait}, []int32{1, 1, 0, 3}},
		{"a stamped copy", []Action{create, roll("web-1", "api")}, []int32{0, 1, 1, 0}},
		{"a rollout of all", []Action{create, roll("web"), roll(), wait}, []int32{2, 2, 2, 2}},
		{"nodes fail", []Action{create, {Name: "fail", Kind: ActionFailNodes, Nodes: 1}, roll("api"), wait}, []int32{1, 1, 2, 1}},
		{"nodes drained", []Action{create, roll("db"), {Name: "drain", Kind: ActionDrainNodes, Nodes: 1}}, []int32{2, 2, 2, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cfg
			c.Timeline = tc.timeline
			e, err := newEngine(c, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, s := range e.services {
				names = append(names, s.svc.Name)
			}
			if got := e.lastActing(); !slices.Equal(got, tc.want) {
				t.Errorf("Services %v: last acting phases %v, want %v", names, got, tc.want)
			}
		})
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
