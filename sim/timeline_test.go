package sim

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// runEngine runs e to the end, calling each after every event.
func runEngine(t *testing.T, e *Engine, each func()) {
	t.Helper()
	e.startPhase(0)
	for {
		if e.quiescent() {
			if !e.endPhase() {
				return
			}
			continue
		}
		applyNext(e)
		if each != nil {
			each()
		}
	}
}

// applyNext applies e's earliest event, as the engine's loop does, and returns it.
func applyNext(e *Engine) queued {
	it := e.q.pop()
	if !isBackground(it.ev) {
		e.nonRetry--
	}
	e.now = it.at
	it.ev.apply(e)
	return it
}

// ranEngine makes the engine of cfg and runs it to the end with runEngine (no observer),
// failing the test if cfg does not make one.
func ranEngine(t *testing.T, cfg Config) *Engine {
	t.Helper()
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	runEngine(t, e, nil)
	return e
}

// runEngineOf makes the engine of cfg (with observer obs) and runs it, failing the test on
// an error; it returns the engine (for tests that read it after the run) and the results.
func runEngineOf(t *testing.T, cfg Config, obs Observer) (*Engine, *Results) {
	t.Helper()
	e, err := newEngine(cfg, obs)
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.run()
	if err != nil {
		t.Fatal(err)
	}
	return e, res
}

// TestSpreadOffsets checks the start times of a spread action: all inside the window, each
// quantile used once, and for the diurnal curve the share of the middle half of the window
// is ∫ of the density 1 − 0.8·cos(2πx) over [¼, ¾] = ½ + 0.8/π ≈ 0.755.
func TestSpreadOffsets(t *testing.T) {
	const n, spread = 1000, Time(1000 * time.Second)
	for _, tc := range []struct {
		curve  SpreadCurve
		middle float64
	}{
		{CurveUniform, 0.5},
		{CurveDiurnal, 0.5 + 0.8/math.Pi},
	} {
		at := spreadOffsets(n, spread, tc.curve)
		sorted := slices.Clone(at)
		slices.Sort(sorted)
		mid := 0
		for i, x := range sorted {
			if x < 0 || x >= spread {
				t.Fatalf("%s: offset %v outside [0, %v)", tc.curve, x, spread)
			}
			if i > 0 && x == sorted[i-1] {
				t.Fatalf("%s: offset %v handed out twice", tc.curve, x)
			}
			if x >= spread/4 && x < 3*spread/4 {
				mid++
			}
		}
		if got := float64(mid) / n; math.Abs(got-tc.middle) > 0.01 {
			t.Errorf("%s: %.3f of the starts in the middle half, want %.3f", tc.curve, got, tc.middle)
		}
		// Neighbours in creation order are not neighbours in time.
		if d := at[1] - at[0]; d < spread/10 && d > -spread/10 {
			t.Errorf("%s: the first two Services start %v apart", tc.curve, d)
		}
	}
}

// TestDrainInWaves drains every node in waves: each node is cordoned at most one wave at a
// time, every node hosting pods at the start is drained, and at the end every node is
// schedulable again with every Service at its replicas.
func TestDrainInWaves(t *testing.T) {
	cfg := testConfig(20, 60)
	cfg.Timeline = []Action{
		{Name: "create", Kind: ActionCreate},
		{Name: "upgrade", Kind: ActionDrainNodes, Nodes: 20, Waves: 4, Spread: 20 * time.Minute},
	}
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	drained := make([]bool, 20)
	maxCordoned := 0
	runEngine(t, e, func() {
		n := 0
		for i, c := range e.cordoned {
			if c {
				n++
				drained[i] = true
			}
		}
		maxCordoned = max(maxCordoned, n)
	})
	if maxCordoned != 5 {
		t.Errorf("at most %d nodes cordoned at once, want one wave of 5", maxCordoned)
	}
	for i := range drained {
		if !drained[i] || e.cordoned[i] {
			t.Errorf("node %d: drained %v, cordoned at the end %v", i, drained[i], e.cordoned[i])
		}
	}
	if s := e.services[0]; s.newRS.live != 60 || s.newRS.available != 60 {
		t.Errorf("after the upgrade: %d live, %d available, want 60", s.newRS.live, s.newRS.available)
	}
	if ph := e.stats.results(e.stats.finishRun()).Phases[1]; ph.End-ph.Start < Time(20*time.Minute) {
		t.Errorf("the upgrade phase lasted %v, shorter than its spread", ph.End-ph.Start)
	}
}

// TestZoneBlip fails a zone: for 90 s, past the grace period (50 s from the monitor pass
// that saw a node's last Lease renewal: 40–55 s after the failure) its pods go not ready,
// and they are ready again after the nodes come back; for 38 s none does. Nothing is
// evicted (toleration 300 s).
func TestZoneBlip(t *testing.T) {
	for _, tc := range []struct {
		duration     time.Duration
		wentNotReady bool
	}{
		{20 * time.Second, false},
		{38 * time.Second, false}, // under the least 40 s (50 s of grace in 1.37)
		{90 * time.Second, true},
	} {
		cfg := testConfig(30, 60)
		cfg.Timeline = []Action{
			{Name: "create", Kind: ActionCreate},
			{Name: "blip", Kind: ActionFailNodes, Zone: "us-east-1b", Duration: tc.duration},
		}
		e, err := newEngine(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		var pods []*podState
		notReady := false
		runEngine(t, e, func() {
			if e.phase == 0 {
				pods = slices.Clone(e.services[0].pods)
				return
			}
			for _, p := range pods {
				notReady = notReady || !p.pod.Ready
			}
		})
		if notReady != tc.wentNotReady {
			t.Errorf("%v: some pod went not ready: %v, want %v", tc.duration, notReady, tc.wentNotReady)
		}
		for _, p := range pods {
			if p.stage == stageGone || !p.pod.Ready || p.stuck() {
				t.Errorf("%v: pod %s after the blip: stage %d ready %v stuck %v", tc.duration, p.pod.Name, p.stage, p.pod.Ready, p.stuck())
			}
		}
		for i, down := range e.nodeDown {
			if down || !e.nodes[i].Ready {
				t.Errorf("%v: node %d still down after the blip", tc.duration, i)
			}
		}
		if e.api.proxies != [2]int{30, 30} {
			t.Errorf("%v: %v kube-proxies watching (EndpointSlices, Endpoints), want 30 each", tc.duration, e.api.proxies)
		}
	}
}

// TestScalePercent scales to a percentage of the configured replicas, rounded up, and back.
func TestScalePercent(t *testing.T) {
	cfg := testConfig(10, 7)
	cfg.Timeline = []Action{
		{Name: "create", Kind: ActionCreate},
		{Name: "up", Kind: ActionScale, Percent: 150, Spread: time.Minute},
	}
	e := ranEngine(t, cfg)
	if s := e.services[0]; s.replicas != 11 || s.newRS.live != 11 {
		t.Errorf("150%% of 7: replicas %d, live %d, want 11", s.replicas, s.newRS.live)
	}
}

// TestScaleKeepsTheRolloutsStrategy: a rollout's maxSurge and maxUnavailable are the
// Deployment's spec from then on; a scale changes the replicas only, so it keeps them (a
// percentage scaled to the new replicas), until a rollout that sets none.
// upstream: apps/v1 DeploymentSpec.Strategy; deployment/util ResolveFenceposts.
func TestScaleKeepsTheRolloutsStrategy(t *testing.T) {
	cfg := testConfig(10, 8)
	cfg.Timeline = []Action{
		{Name: "create", Kind: ActionCreate},
		{Name: "rollout", Kind: ActionRollout, MaxSurge: IntOrPercent{Value: 0}, MaxUnavailable: IntOrPercent{Value: 50, IsPercent: true}},
		{Name: "up", Kind: ActionScale, Replicas: 20},
	}
	e := ranEngine(t, cfg)
	if s := e.services[0]; s.surge != 0 || s.unavail != 10 {
		t.Errorf("after the scale to 20: maxSurge %d, maxUnavailable %d; want the rollout's 0 and 50%% of 20 = 10", s.surge, s.unavail)
	}
	cfg.Timeline = append(cfg.Timeline, Action{Name: "own", Kind: ActionRollout, ServiceStrategy: true}, Action{Name: "down", Kind: ActionScale, Replicas: 12})
	e = ranEngine(t, cfg)
	if s := e.services[0]; s.surge != 3 || s.unavail != 3 {
		t.Errorf("after a rollout with the Service's strategy and a scale to 12: %d and %d; want 25%% of 12 = 3 and 3", s.surge, s.unavail)
	}
}

// TestScalePercentManualEndpoints: percent scales a selector-less Service's user-written
// Endpoints object from its configured manualEndpoints count (its replicas are 0), as it
// scales a workload's pods from its replicas: 200% doubles the addresses, 100% restores them,
// and the mirrored EndpointSlice is updated, not deleted (docs/scenario.md, timeline[].percent).
func TestScalePercentManualEndpoints(t *testing.T) {
	cfg := testConfig(10, 4)
	ext := cfg.Services[0]
	ext.Name, ext.Replicas, ext.ManualEndpoints = "ext", 0, 3
	cfg.Services = append(cfg.Services, ext)
	cfg.Timeline = []Action{
		{Name: "create", Kind: ActionCreate},
		{Name: "up", Kind: ActionScale, Percent: 200},
		{Name: "back", Kind: ActionScale, Percent: 100},
	}
	res, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	webEndpoints := map[string]int{} // web's Endpoints object at the end of each phase
	for _, w := range res.Writes {
		switch {
		case w.Name == "web" && w.Mode == ModeEndpoints && w.Kind == "Endpoints":
			webEndpoints[w.Phase] = w.Endpoints
		case w.Phase != "create" && (w.Name == "ext" || strings.HasPrefix(w.Name, "ext-")):
			got[w.Phase] = append(got[w.Phase], fmt.Sprintf("%s %s %s %d", w.Mode, w.Kind, w.Verb, w.Endpoints))
		}
	}
	if webEndpoints["up"] != 8 || webEndpoints["back"] != 4 {
		t.Errorf("web's Endpoints after up, back: %d, %d addresses; want 8, 4", webEndpoints["up"], webEndpoints["back"])
	}
	want := map[string][]string{
		"up":   {"endpoints Endpoints update 6", "endpointslices EndpointSlice update 6"},
		"back": {"endpoints Endpoints update 3", "endpointslices EndpointSlice update 3"},
	}
	checkPhaseWrites(t, "ext's writes", got, want)
}

// TestNodeChangeQueuesOverloadedServices fails a zone's nodes with no pod changing and
// requires the EndpointSlice controller to queue the hinted Service whose hints the new zone
// weights overload (upstream: checkNodeTopologyDistribution), and not an unhinted one.
func TestNodeChangeQueuesOverloadedServices(t *testing.T) {
	cfg := testConfig(30, 60)
	cfg.Services[0].TopologyMode = "Auto"
	plain := cfg.Services[0]
	plain.Name, plain.TopologyMode = "plain", ""
	cfg.Services = append(cfg.Services, plain)
	cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate}}
	e := ranEngine(t, cfg)
	var c *controller
	for _, ctl := range e.ctls {
		if _, ok := ctl.syncer.(*sliceSyncer); ok {
			c = ctl
		}
	}
	if !c.syncer.(*sliceSyncer).opts.Topology.HasPopulatedHints("default/web") {
		t.Fatal("the hinted Service has no hints after the create phase")
	}
	queued := func(i int) bool { return c.keys[i].queued || c.keys[i].processing }
	if queued(0) || queued(1) {
		t.Fatal("a Service is queued before any node changed")
	}
	for i, n := range e.nodes {
		if n.Zone == "us-east-1b" {
			e.setNodeReady(i, false)
		}
	}
	if !queued(0) {
		t.Error("the hinted Service was not queued after its zone's nodes went not ready")
	}
	if queued(1) {
		t.Error("the Service without hints was queued after a node change")
	}
}

// TestEvictedPodsStayWhileTheNodeIsDown checks pods evicted from a failed node: they are
// deleted (terminating) 300 s after the node went not ready, but no kubelet confirms their
// end, so the objects stay as long as the node is down (the pod garbage collector removes
// them only once the Node object is deleted or tainted out-of-service); when the node comes
// back its kubelet stops them.
// upstream: pkg/controller/podgc/gc_controller.go gcOrphaned, gcTerminating; the taint
// manager's eviction is a pod delete.
func TestEvictedPodsStayWhileTheNodeIsDown(t *testing.T) {
	for _, tc := range []struct {
		name     string
		duration time.Duration
		gone     bool
	}{
		{"down for good", 0, false},
		{"back after 10 minutes", 10 * time.Minute, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(10, 30)
			cfg.Timeline = []Action{
				{Name: "create", Kind: ActionCreate},
				{Name: "fail", Kind: ActionFailNodes, Nodes: 1, Duration: tc.duration},
			}
			e, err := newEngine(cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			var victims []*podState
			runEngine(t, e, func() {
				if e.phase == 1 && victims == nil {
					for n, down := range e.nodeDown {
						if down {
							victims = slices.Clone(e.podsOnNode[n])
						}
					}
				}
			})
			if len(victims) == 0 {
				t.Fatal("no pod on the failed node")
			}
			for _, p := range victims {
				if gone := p.stage == stageGone; gone != tc.gone || !gone && !p.pod.Terminating {
					t.Errorf("pod %s: gone %v, terminating %v; want gone %v", p.pod.Name, gone, p.pod.Terminating, tc.gone)
				}
			}
			if live := e.services[0].newRS.live; live != 30 {
				t.Errorf("%d live pods, want the ReplicaSet's 30 (the evicted ones replaced)", live)
			}
		})
	}
}

// TestTargetsByName checks which Services an action's names select, and in what order: a
// scenario entry's name selects every Service stamped from it, a stamped name that one, each
// Service once, in the order of the names and then of creation.
func TestTargetsByName(t *testing.T) {
	cfg := testConfig(3, 1)
	web := cfg.Services[0]
	api := web
	api.Name = "api"
	web.Count = 3
	one := web
	one.Name, one.Count = "web-1", 0 // a name a stamped Service also has
	cfg.Services = []ServiceConfig{web, api, one}
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		names []string
		want  []int // Service indexes: web-0, web-1, web-2, api, web-1 (the entry)
	}{
		{nil, []int{0, 1, 2, 3, 4}},
		{[]string{"api"}, []int{3}},
		{[]string{"web"}, []int{0, 1, 2}},
		{[]string{"web-2", "api", "web"}, []int{2, 3, 0, 1}},
		{[]string{"web-1"}, []int{1, 4}},
		{[]string{"api", "api", "nothing"}, []int{3}},
	} {
		var got []int
		for _, s := range e.targets(&Action{Services: tc.names}) {
			got = append(got, s.idx)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("targets %q = %v, want %v", tc.names, got, tc.want)
		}
	}
}
