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
	// Settling before each action, which a run does not do (actedOnNext), makes each kind
	// of change find its Services' builders dropped.
	defer func(old bool) { keepForNextAction = old }(keepForNextAction)
	keepForNextAction = false
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

// TestBuildersKeptForNextAction checks actedOnNext: a Service that the next action (past
// a wait) changes keeps its builders through the idle hours before it, and so is not made
// again; one that only a later action changes is dropped and made again, as every one was
// with the builders kept for none.
func TestBuildersKeptForNextAction(t *testing.T) {
	cfg := settleTestConfig()
	wait := cfg.Timeline[1]
	rollWeb := Action{Name: "rollout", Kind: ActionRollout, Services: []string{"web"}}
	scaleAPI := Action{Name: "scale up", Kind: ActionScale, Services: []string{"api"}, Replicas: 3}
	for _, tc := range []struct {
		name     string
		timeline []Action
		keep     bool
		// the builders each controller drops, at least, and makes again, at least and at
		// most: web has 40 Services, api 6
		dropped, remade, remadeMax int
	}{
		// web is kept for its rollout; api, never changed again, is dropped at it.
		{"rollout of web", []Action{{Name: "create", Kind: ActionCreate}, wait, rollWeb}, true, 6, 0, 0},
		// Most of web is dropped before the rollout and made again for it (a Service
		// whose change came first is not dropped).
		{"rollout of web, nothing kept", []Action{{Name: "create", Kind: ActionCreate}, wait, rollWeb}, false, 26, 20, 40},
		// api is changed only after web's rollout and a wait: dropped at web's rollout and
		// made again at its scale; web, never changed again, is dropped there.
		{"then api scaled", []Action{{Name: "create", Kind: ActionCreate}, wait, rollWeb, wait, scaleAPI}, true, 46, 6, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func(old bool) { keepForNextAction = old }(keepForNextAction)
			keepForNextAction = tc.keep
			c := cfg
			c.Timeline = tc.timeline
			settled, settlers := runSettling(t, c, settleMaxPods)
			for _, st := range settlers {
				if st.dropped < tc.dropped || st.remade < tc.remade || st.remade > tc.remadeMax {
					t.Errorf("%d builders dropped and %d made again, want at least %d and %d to %d", st.dropped, st.remade, tc.dropped, tc.remade, tc.remadeMax)
				}
			}
			plain, _ := runSettling(t, c, 0)
			if !reflect.DeepEqual(settled, plain) {
				t.Fatalf("settling changed the results:\nwith    %+v\nwithout %+v", settled.Phases, plain.Phases)
			}
		})
	}
}

// TestNextActing checks which Services the next phase that is not a wait may change:
// those its action names, or all when it names none or acts on nodes; none after the last.
func TestNextActing(t *testing.T) {
	cfg := testConfig(10, 1)
	web := cfg.Services[0]
	api, db := web, web
	web.Count = 2
	api.Name, db.Name = "api", "db"
	cfg.Services = []ServiceConfig{web, api, db}
	create := Action{Name: "create", Kind: ActionCreate}
	wait := Action{Name: "wait", Kind: ActionWait, Duration: time.Minute}
	roll := func(names ...string) Action { return Action{Name: "roll", Kind: ActionRollout, Services: names} }
	const y, n = true, false
	for _, tc := range []struct {
		name     string
		timeline []Action
		phase    int
		want     []bool // web-0, web-1, api, db
	}{
		{"after the last", []Action{create, roll("web")}, 1, []bool{n, n, n, n}},
		{"a named rollout", []Action{create, roll("web"), roll("db")}, 0, []bool{y, y, n, n}},
		{"past waits", []Action{create, wait, wait, roll("db"), roll("api")}, 0, []bool{n, n, n, y}},
		{"in a wait", []Action{create, wait, roll("db")}, 1, []bool{n, n, n, y}},
		{"a stamped copy", []Action{create, roll("web-1", "api")}, 0, []bool{n, y, y, n}},
		{"a rollout of all", []Action{create, roll("web"), roll()}, 1, []bool{y, y, y, y}},
		{"nodes fail", []Action{create, {Name: "fail", Kind: ActionFailNodes, Nodes: 1}}, 0, []bool{y, y, y, y}},
		{"nodes drained", []Action{create, {Name: "drain", Kind: ActionDrainNodes, Nodes: 1}}, 0, []bool{y, y, y, y}},
		{"only a wait after", []Action{create, wait}, 0, []bool{n, n, n, n}},
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
			if got := e.nextActing(tc.phase, nil); !slices.Equal(got, tc.want) {
				t.Errorf("Services %v: changed by the next action after phase %d: %v, want %v", names, tc.phase, got, tc.want)
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

// TestResyncLeavesSettledServicesAsleep: an informer resync queues every Service, and the
// sync of one whose builders were dropped writes nothing and leaves them dropped
// (settler.asleep), where waking them made them all again at once; the results are those
// of the run that keeps every builder, and of the run with the resync's syncs answered by
// the builders.
func TestResyncLeavesSettledServicesAsleep(t *testing.T) {
	cfg := testConfig(30, 3)
	cfg.Services[0].Count = 20
	cfg.ControlPlane.MinResyncPeriod = time.Duration(settleAfter) // resyncs from 1 h to 2 h apart
	cfg.Timeline = []Action{
		{Name: "create", Kind: ActionCreate},
		{Name: "idle", Kind: ActionWait, Duration: 8 * time.Duration(settleAfter)},
	}
	settled, settlers := runSettling(t, cfg, settleMaxPods)
	for _, st := range settlers {
		if st.dropped < 15 || st.remade != 0 {
			t.Errorf("%d builders dropped and %d made again: want most of the 20 Services' dropped, and none made again by a resync", st.dropped, st.remade)
		}
	}
	idle := settled.Phases[1]
	for _, m := range []Mode{ModeEndpointSlices, ModeEndpoints} {
		if got := idle.Mode(m); got.Syncs < 3*20 || got.Writes.Total() != 0 {
			t.Errorf("%s: %d syncs and %d writes in the idle hours, want 3 resyncs of 20 Services at least, and no write", m, got.Syncs, got.Writes.Total())
		}
	}
	plain, _ := runSettling(t, cfg, 0)
	if !reflect.DeepEqual(settled, plain) {
		t.Fatalf("settling changed the results:\nwith    %+v\nwithout %+v", settled.Phases, plain.Phases)
	}
	defer func(old bool) { resyncWakes = old }(resyncWakes)
	resyncWakes = true
	woken, settlers := runSettling(t, cfg, settleMaxPods)
	for _, st := range settlers {
		if st.remade < 15 {
			t.Errorf("with resyncs waking Services, %d builders made again, want 15 at least", st.remade)
		}
	}
	if !reflect.DeepEqual(settled, woken) {
		t.Fatalf("leaving Services asleep changed the results:\nasleep %+v\nwoken  %+v", settled.Phases, woken.Phases)
	}
}
