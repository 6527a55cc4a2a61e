package sim

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"epsim/model"
)

// testConfig is a small cluster: nodes nodes, one Service with replicas pods, and the four
// phases of the shipped scenarios.
// testWorkloads returns the workload controllers' upstream defaults (the scenarios
// package's DefaultWorkloads, which tests of this package cannot import).
func testWorkloads() WorkloadsConfig {
	ctl := ControllerConfig{Workers: 5, QPS: 20, Burst: 30, APILatency: Fixed(5 * time.Millisecond)}
	ds := ctl
	ds.Workers = 2
	return WorkloadsConfig{ReplicaSet: ctl, Deployment: ctl, StatefulSet: ctl, DaemonSet: ds, BurstReplicas: 500, SchedulerQPS: 50, SchedulerBurst: 100}
}

func testConfig(nodes, replicas int) Config {
	ctl := ControllerConfig{Workers: 5, QPS: 20, Burst: 30, APILatency: Fixed(5 * time.Millisecond)}
	return Config{
		Name: "test",
		Seed: 1,
		Cluster: ClusterConfig{
			Nodes: nodes, Zones: []string{"us-east-1a", "us-east-1b", "us-east-1c"},
			NodeNameFormat: "ip-10-0-%d.ec2.internal", NodeMilliCPU: 4000,
		},
		ControlPlane: ControlPlaneConfig{EndpointSlice: ctl, Endpoints: ctl, MaxEndpointsPerSlice: 100, Workloads: testWorkloads()},
		APIServer:    APIServerConfig{Replicas: 1, KubeProxyEncoding: EncodingProtobuf, ObjectSizeLimitBytes: 1572864},
		Services: []ServiceConfig{{
			Name: "web", Namespace: "default", Replicas: replicas,
			Ports: []ServicePortConfig{{Name: "http", Protocol: "TCP", Port: 80, TargetPort: 8080}},
			Timing: PodTiming{
				Schedule:    Fixed(time.Second),
				Start:       Distribution{Kind: DistLognormal, Median: 3 * time.Second, P99: 10 * time.Second},
				Ready:       Distribution{Kind: DistUniform, Min: 2 * time.Second, Max: 5 * time.Second},
				Stop:        Fixed(2 * time.Second),
				GracePeriod: Fixed(30 * time.Second),
			},
		}},
		Timeline: []Action{
			{Name: "create", Kind: ActionCreate},
			{Name: "one-endpoint-not-ready", Kind: ActionFlipReadiness, Pods: 1},
			{Name: "one-pod-restart", Kind: ActionRestartPods, Pods: 1},
			{Name: "rolling-update", Kind: ActionRollout,
				MaxSurge: IntOrPercent{Value: 25, IsPercent: true}, MaxUnavailable: IntOrPercent{Value: 25, IsPercent: true}},
		},
		RunEndpoints: true, RunEndpointSlices: true,
	}
}

func TestRunSmoke(t *testing.T) {
	res, err := Run(testConfig(100, 250), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Phases {
		es := p.EndpointSlices
		t.Logf("%-24s %v..%v slices: writes %+v fanout %d syncs %d stale %d p99 %.2fs", p.Name, p.Start, p.End, es.Writes, es.FanoutBytes, es.Syncs, es.StaleSyncs, es.Propagation.P99Seconds)
	}
	if res.Total.EndpointSlices.Writes.Total() == 0 {
		t.Fatal("no EndpointSlice writes")
	}
}

// TestRunIsDeterministic runs the same config twice and requires identical results and
// write logs. Reference: DESIGN.md "The engine" (deterministic).
func TestRunIsDeterministic(t *testing.T) {
	cfg := testConfig(50, 120)
	a, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two runs of the same config differ")
	}
	cfg.Seed = 2
	c, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(a.Writes, c.Writes) {
		t.Fatal("a different seed gave the same write log")
	}
}

// TestEndOfRunInvariants checks that when a run ends every running pod with an IP is in
// exactly one slice of its service, with the right readiness, and that the summary counts
// equal the write log.
func TestEndOfRunInvariants(t *testing.T) {
	slow := testConfig(30, 250) // slow API calls: pod events keep arriving while writes are in flight
	slow.ControlPlane.EndpointSlice.APILatency = Fixed(300 * time.Millisecond)
	slow.ControlPlane.Endpoints.APILatency = Fixed(300 * time.Millisecond)
	for _, cfg := range []Config{testConfig(30, 250), withMax(testConfig(20, 57), 7), slow} {
		e, res := runEngineOf(t, cfg, nil)
		y := e.ctls[0].syncer.(*sliceSyncer)
		for _, s := range e.services {
			inSlices := map[string]bool{}
			for _, st := range y.stored[s.idx].list {
				for _, ep := range st.slice.Endpoints {
					name := ep.TargetRef.Name
					if inSlices[name] {
						t.Errorf("%s: pod %s is in two slices", s.svc.Name, name)
					}
					inSlices[name] = true
				}
			}
			for _, p := range s.pods {
				if p.stage == stageGone {
					continue // gone pods stay in s.pods until it is compacted
				}
				if len(p.pod.IPs) > 0 && !inSlices[p.pod.Name] {
					t.Errorf("%s: pod %s has an IP but is in no slice", s.svc.Name, p.pod.Name)
				}
				delete(inSlices, p.pod.Name)
			}
			for name := range inSlices {
				t.Errorf("%s: slice endpoint for pod %s, which is gone", s.svc.Name, name)
			}
			// Legacy Endpoints list every pod with an IP that is not terminating.
			want := 0
			for _, p := range s.pods {
				if p.stage != stageGone && len(p.pod.IPs) > 0 && !p.pod.Terminating {
					want++
				}
			}
			ep := e.ctls[1].syncer.(*endpointsSyncer)
			if obj := ep.builders[s.idx].Object(); obj == nil || len(obj.Subsets) != 1 ||
				len(obj.Subsets[0].Addresses)+len(obj.Subsets[0].NotReadyAddresses) != want {
				t.Errorf("%s: Endpoints object does not list the %d running pods", s.svc.Name, want)
			}
			// Both builders keep every pod the Service has, once: the engine passes each
			// pod's changes with its refs, and an empty ref adds a pod without looking for
			// it by name, so a ref lost on the way would show as a pod kept twice.
			if got, got2 := y.reconcilers[s.idx].Pods(), ep.builders[s.idx].Pods(); got != s.podCount() || got2 != s.podCount() {
				t.Errorf("%s: the reconciler keeps %d pods and the Endpoints builder %d, want %d", s.svc.Name, got, got2, s.podCount())
			}
		}
		var counts [2]WriteCounts
		for _, w := range res.Writes {
			if w.Outcome != "ok" {
				continue
			}
			c := &counts[modeIndex(w.Mode)]
			switch w.Verb {
			case "create":
				c.Create++
			case "update":
				c.Update++
			case "delete":
				c.Delete++
			}
		}
		if counts[0] != res.Total.EndpointSlices.Writes || counts[1] != res.Total.Endpoints.Writes {
			t.Errorf("write log %+v disagrees with totals %+v / %+v", counts, res.Total.EndpointSlices.Writes, res.Total.Endpoints.Writes)
		}
	}
}

func withMax(c Config, max int) Config {
	c.ControlPlane.MaxEndpointsPerSlice = max
	return c
}

// TestWorkDoesNotGrowWithNodes runs the same change stream on 50 and 5,000 nodes: the engine
// must process the same events and writes (fan-out is bytes × watchers, not a loop over
// nodes), while fan-out bytes scale with the watcher count.
func TestWorkDoesNotGrowWithNodes(t *testing.T) {
	small, err := Run(testConfig(50, 100), nil)
	if err != nil {
		t.Fatal(err)
	}
	big, err := Run(testConfig(5000, 100), nil)
	if err != nil {
		t.Fatal(err)
	}
	if small.Events != big.Events {
		t.Errorf("events: %d on 50 nodes, %d on 5000", small.Events, big.Events)
	}
	if small.Total.EndpointSlices.Writes != big.Total.EndpointSlices.Writes {
		t.Errorf("writes: %+v on 50 nodes, %+v on 5000", small.Total.EndpointSlices.Writes, big.Total.EndpointSlices.Writes)
	}
	ratio := float64(big.Total.EndpointSlices.FanoutBytes) / float64(small.Total.EndpointSlices.FanoutBytes)
	if ratio < 90 || ratio > 110 {
		t.Errorf("fan-out ratio 5000/50 nodes = %.1f, want about 100", ratio)
	}
}

func BenchmarkRun(b *testing.B) {
	for _, nodes := range []int{500, 50000} {
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			cfg := testConfig(nodes, 1000)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Run(cfg, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// recorder keeps every pod event and replays them as a TraceSource.
type recorder struct {
	events []TraceEvent
	next   int
}

func (r *recorder) Progress(Time, int, int) {}
func (r *recorder) PodEvent(ev TraceEvent)  { r.events = append(r.events, ev) }
func (r *recorder) Next() (TraceEvent, error) {
	if r.next >= len(r.events) {
		return TraceEvent{}, io.EOF
	}
	r.next++
	return r.events[r.next-1], nil
}

// TestReplayReproducesSimulation records the pod events of a generated run and replays them:
// the controllers must make the same writes with the same bytes.
func TestReplayReproducesSimulation(t *testing.T) {
	cfg := testConfig(20, 150)
	e, sim, rec, svcs := recordedRun(t, cfg)
	rep, stats, err := Replay(cfg, svcs, e.nodes, rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Events != int64(len(rec.events)) || stats.Unmatched != 0 {
		t.Errorf("replay stats %+v, recorded %d events", stats, len(rec.events))
	}
	for _, m := range []Mode{ModeEndpointSlices, ModeEndpoints} {
		a, b := sim.Total.Mode(m), rep.Total.Mode(m)
		if a.Writes != b.Writes || a.FanoutBytes != b.FanoutBytes || a.EtcdBytes != b.EtcdBytes {
			t.Errorf("%s: simulated writes %+v fanout %d etcd %d; replayed %+v fanout %d etcd %d",
				m, a.Writes, a.FanoutBytes, a.EtcdBytes, b.Writes, b.FanoutBytes, b.EtcdBytes)
		}
	}
}

// TestNodeLookupMatchesTheMap checks Engine.Node's index fast path against the name map:
// node names with and without a trailing index, names that are no node's, and a cluster
// whose names repeat (where the map's choice stands). With unique names the fast path must
// find every node, whatever the format puts around the index.
func TestNodeLookupMatchesTheMap(t *testing.T) {
	for _, format := range []string{"", "node-%d", "n%d-x", "%d", "zone-a-%03d", "ip-10-0-%d-7", "ip-10-0-%d.ec2.internal"} {
		cfg := testConfig(3, 2)
		cfg.Cluster.Nodes = 40
		cfg.Cluster.NodeNameFormat = format
		e, err := newEngine(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		names := []string{"", "node-", "node-40", "node-0000000000007", "7", "node-x"}
		for _, n := range e.nodes {
			names = append(names, n.Name)
		}
		check := func(what string) {
			for _, name := range names {
				got, ok := e.Node(name)
				want, wantOK := e.nodeByName[name]
				if got != want || ok != wantOK {
					t.Errorf("%s, format %q: Node(%q) = %v %v, the map has %v %v", what, format, name, got, ok, want, wantOK)
				}
			}
		}
		check("unique names")
		for i, n := range e.nodes {
			if got, ok := e.nodeIndexOf(n.Name); !ok || got != i {
				t.Errorf("format %q: the index of %q is %d (%v), want %d", format, n.Name, got, ok, i)
			}
		}
		// Two nodes of the same name: the map keeps the last one.
		dup := *e.nodes[7]
		dup.Name = e.nodes[3].Name
		e.nodes[7] = &dup
		clear(e.nodeByName)
		for _, n := range e.nodes {
			e.nodeByName[n.Name] = n
		}
		e.nodeNamesUnique = len(e.nodeByName) == len(e.nodes)
		check("repeated names")
	}
}

// TestTemplateSpecShared checks that the Services stamped from one config share their
// pods' spec fields across templates, that its ports are containerPorts of the Service, that
// a Service whose ports differ gets its own, and that a StatefulSet's pod gets a copy with its
// hostname without changing the shared one.
func TestTemplateSpecShared(t *testing.T) {
	cfg := testConfig(10, 2)
	cfg.Services[0].Count = 3
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := e.services[0], e.services[1], e.services[2]
	c.svc.Ports = append([]model.ServicePort(nil), c.svc.Ports...)
	c.svc.Ports[0].TargetPort = model.IntPort(9090)
	for _, s := range []*serviceState{a, b, c, a} {
		e.newTemplate(s)
		if want := containerPorts(s.svc); !slices.Equal(s.podSpec.ContainerPorts, want) {
			t.Fatalf("%s: ports %v, want %v", s.svc.Name, s.podSpec.ContainerPorts, want)
		}
	}
	if a.podSpec != b.podSpec || a.podSpec == c.podSpec {
		t.Errorf("stamped copies share the spec: %v; a Service with other ports shares it: %v", a.podSpec == b.podSpec, a.podSpec == c.podSpec)
	}
	if id := e.podIdentity(a, "web-0-x", "uid"); id.PodSpecFields != a.podSpec {
		t.Errorf("a Deployment pod has spec %p, want the template's %p", id.PodSpecFields, a.podSpec)
	}
	a.cfg = &ServiceConfig{WorkloadKind: KindStatefulSet}
	id := e.podIdentity(a, "web-0-0", "uid")
	if id.PodSpecFields == a.podSpec || id.Hostname != "web-0-0" || id.Subdomain != a.svc.Name || a.podSpec.Hostname != "" ||
		!slices.Equal(id.ContainerPorts, a.podSpec.ContainerPorts) {
		t.Errorf("StatefulSet pod spec %+v (template's %+v)", id.PodSpecFields, a.podSpec)
	}
}

// writeLog takes the write log as the run goes (WriteLogger).
type writeLog struct {
	writes    []WriteRecord
	failAfter int // LogWrite fails once it holds this many (0: never)
}

func (l *writeLog) Progress(Time, int, int) {}
func (l *writeLog) LogWrite(rec WriteRecord) error {
	if l.failAfter > 0 && len(l.writes) == l.failAfter {
		return errors.New("disk full")
	}
	l.writes = append(l.writes, rec)
	return nil
}

// An Observer that takes the write log gets every record Results.Writes would hold, in the
// same order, and Results.Writes is left empty; with NoWriteLog nobody gets any.
func TestWriteLoggerTakesTheWriteLog(t *testing.T) {
	cfg := testConfig(20, 150)
	held, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	log := &writeLog{}
	streamed, err := Run(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	if len(held.Writes) == 0 {
		t.Fatal("the run wrote nothing")
	}
	if len(streamed.Writes) != 0 {
		t.Errorf("Results.Writes holds %d records though the Observer took them", len(streamed.Writes))
	}
	if !reflect.DeepEqual(log.writes, held.Writes) {
		t.Errorf("the Observer got %d records, not the %d of Results.Writes in order", len(log.writes), len(held.Writes))
	}
	held.Writes = nil
	if !reflect.DeepEqual(streamed, held) {
		t.Error("taking the write log changed the run's results")
	}
	cfg.NoWriteLog = true
	off := &writeLog{}
	if _, err := Run(cfg, off); err != nil {
		t.Fatal(err)
	}
	if len(off.writes) != 0 {
		t.Errorf("with NoWriteLog the Observer got %d records", len(off.writes))
	}
	// A write log that fails stops the run with its error, without going on to the end.
	cfg.NoWriteLog = false
	failing := &writeLog{failAfter: 10}
	res, err := Run(cfg, failing)
	if err == nil || !strings.Contains(err.Error(), "write log: disk full") || res != nil {
		t.Errorf("a failing write log: results %v, error %v; want the run stopped with it", res != nil, err)
	}
	if len(failing.writes) != 10 {
		t.Errorf("the failing write log was given %d records after it failed", len(failing.writes)-10)
	}
}

// TestReleaseLetsGoOfTheRun checks that a run that releases its state (as Run and Replay do)
// gives the same results as one that keeps it, and that release keeps nothing of the engine
// but what Replay reads afterwards.
func TestReleaseLetsGoOfTheRun(t *testing.T) {
	cfg := testConfig(30, 250)
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	kept, err := e.run()
	if err != nil {
		t.Fatal(err)
	}
	if e.stats == nil || len(e.services) == 0 {
		t.Fatal("a run that does not release lost its state")
	}
	released, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(released, kept) {
		t.Error("a run that released its state gave other results than one that kept it")
	}

	e.replay = &replayState{err: errors.New("trace: bad line"), stats: ReplayStats{Events: 7}, byKey: map[podKey]replayedPod{{"ns", "a"}: {}}}
	e.release()
	if e.replay == nil || e.replay.err == nil || e.replay.stats.Events != 7 || e.replay.byKey != nil {
		t.Errorf("release kept %+v of the replay, want its error and statistics only", e.replay)
	}
	rest := *e
	rest.replay = nil
	if !reflect.ValueOf(rest).IsZero() {
		t.Error("release kept some of the engine's state")
	}
}

// podCounter records, at each progress report, the count PodCounter gives, and the count
// of the pods its PodEvents left alive then (when it records them).
type podCounter struct {
	recorder
	live      map[[2]string]bool
	got, want []int
	at        []Time
	pending   int
}

func (c *podCounter) PodsHeld(n int) { c.pending = n }
func (c *podCounter) Progress(now Time, _, _ int) {
	c.got, c.want, c.at = append(c.got, c.pending), append(c.want, len(c.live)), append(c.at, now)
}
func (c *podCounter) PodEvent(ev TraceEvent) {
	c.recorder.PodEvent(ev)
	key := [2]string{ev.Pod.Namespace, ev.Pod.Name}
	if ev.Type == model.EventDeleted {
		delete(c.live, key)
	} else {
		c.live[key] = true
	}
}

// A PodCounter is told, before each progress report, how many pods the run holds: those the
// watch on pods has seen created and not yet deleted, terminating ones included (more than
// the replicas during a rollout's surge); of a replay, the recorded ones then.
func TestPodCounterCountsThePodsHeld(t *testing.T) {
	cfg := testConfig(20, 40)
	c := &podCounter{live: map[[2]string]bool{}}
	e, err := newEngine(cfg, c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.run(); err != nil {
		t.Fatal(err)
	}
	if len(c.got) < 10 {
		t.Fatalf("%d progress reports", len(c.got))
	}
	if !slices.Equal(c.got, c.want) {
		t.Fatalf("PodsHeld gave %v\nthe pod events leave %v", c.got, c.want)
	}
	if peak := slices.Max(c.got); peak <= 40 {
		t.Errorf("the largest count is %d: a rollout of 40 replicas with a surge of 25%% holds more", peak)
	}
	// The replay of the recorded events: each report comes after all the events recorded
	// before its instant, and before or after those at it (one burst).
	var svcs []*model.Service
	for _, s := range e.services {
		svcs = append(svcs, s.svc)
	}
	replayed := &podCounter{}
	if _, _, err := Replay(cfg, svcs, e.nodes, &c.recorder, replayed); err != nil {
		t.Fatal(err)
	}
	if len(replayed.got) < 10 {
		t.Fatalf("%d progress reports of the replay", len(replayed.got))
	}
	if peak := slices.Max(replayed.got); peak != slices.Max(c.got) {
		t.Errorf("the replay's largest count is %d, the run's %d", peak, slices.Max(c.got))
	}
	events := c.recorder.events
	for i, now := range replayed.at {
		held := map[[2]string]bool{}
		before := -1 // the count before the events at now
		for _, ev := range events {
			if ev.At > now {
				break
			}
			if ev.At == now && before < 0 {
				before = len(held)
			}
			if key := [2]string{ev.Pod.Namespace, ev.Pod.Name}; ev.Type == model.EventDeleted {
				delete(held, key)
			} else {
				held[key] = true
			}
		}
		if before < 0 {
			before = len(held)
		}
		if n := replayed.got[i]; n != len(held) && n != before {
			t.Errorf("replay at %v: PodsHeld gave %d, the trace holds %d (%d before that instant)", now, n, len(held), before)
		}
	}
}

// TestInformerResync checks kube-controller-manager's informer resync: every
// minResyncPeriod × [1, 2) (one draw a run) every Service is synced again by both endpoint
// controllers, and every Deployment and ReplicaSet by theirs; with nothing changed, they
// write nothing. Four Services sit still for 5 minutes with a period of 1 minute: each
// resync in that wait is 4 syncs of each endpoint controller and no write, and nothing is
// synced without it. upstream: cmd/kube-controller-manager/app/controllermanager.go
// ResyncPeriod; client-go shared_informer.go; endpointslice_controller.go and
// endpoints_controller.go onServiceUpdate.
func TestInformerResync(t *testing.T) {
	cfg := testConfig(10, 5)
	cfg.Services[0].Count = 4
	cfg.Timeline = []Action{
		{Name: "create", Kind: ActionCreate, Settle: time.Second},
		{Name: "still", Kind: ActionWait, Duration: 5 * time.Minute},
	}
	for _, period := range []time.Duration{0, time.Minute} {
		cfg.ControlPlane.MinResyncPeriod = period
		res, err := Run(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		still := res.Phases[1]
		resyncs := 0
		if period > 0 {
			every := Time(float64(period) * (1 + newStream(cfg.Seed, streamResync).Float64()))
			if every < Time(period) || every >= 2*Time(period) {
				t.Fatalf("resync period %v, want [%v, %v)", every, period, 2*period)
			}
			for at := every; at < still.End; at += every {
				if at >= still.Start {
					resyncs++
				}
			}
			if resyncs < 2 {
				t.Fatalf("%d resyncs in the wait (%v–%v, every %v), want 2 at least", resyncs, still.Start, still.End, every)
			}
		}
		for _, m := range []Mode{ModeEndpointSlices, ModeEndpoints} {
			got := still.Mode(m)
			if got.Syncs != int64(4*resyncs) || got.Writes.Total() != 0 {
				t.Errorf("period %v, %s: %d syncs and %d writes in the wait, want %d and 0", period, m, got.Syncs, got.Writes.Total(), 4*resyncs)
			}
		}
		// The workload controllers: each resync queues every Deployment and ReplicaSet.
		e, err := newEngine(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		var deployments, replicaSets int
		var dcWas, rsWas [4]bool
		runEngine(t, e, func() {
			for i, s := range e.services {
				// Queued (a sync with nothing to do starts and ends in one event).
				dc, rs := s.dcItem.queued, s.newRS.item.queued
				if e.phase == 1 && dc && !dcWas[i] {
					deployments++
				}
				if e.phase == 1 && rs && !rsWas[i] {
					replicaSets++
				}
				dcWas[i], rsWas[i] = dc, rs
			}
		})
		if deployments != 4*resyncs || replicaSets != 4*resyncs {
			t.Errorf("period %v: %d Deployments and %d ReplicaSets queued in the wait, want %d each", period, deployments, replicaSets, 4*resyncs)
		}
	}
}
