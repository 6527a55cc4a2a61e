package trace

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"epsim/model"
	"epsim/scenarios"
	"epsim/sim"
)

// writeLists writes services and nodes as kubectl lists and reads them back.
func writeLists(t testing.TB, services []*model.Service, nodes []*model.Node) ([]*model.Service, []*model.Node) {
	t.Helper()
	var sb, nb bytes.Buffer
	var apiSvcs []*corev1.Service
	for _, s := range services {
		apiSvcs = append(apiSvcs, ServiceToAPI(s))
	}
	var apiNodes []*corev1.Node
	for _, n := range nodes {
		apiNodes = append(apiNodes, NodeToAPI(n))
	}
	if err := WriteList(&sb, apiSvcs); err != nil {
		t.Fatal(err)
	}
	if err := WriteList(&nb, apiNodes); err != nil {
		t.Fatal(err)
	}
	svcs, _, err := ReadServices(&sb, "services.json")
	if err != nil {
		t.Fatal(err)
	}
	ns, _, err := ReadNodes(&nb, "nodes.json")
	if err != nil {
		t.Fatal(err)
	}
	return svcs, ns
}

// engineTestConfig is sim/engine_test.go testConfig(nodes, replicas) with its first two
// phases: the configuration on which the engine's own in-memory replay test shows that
// replay reproduces the simulation exactly.
//
// Its pods are bound 1.5 s after their creation, when the kubelet dates their Ready=False
// condition: after the retry (1 s after the start) of the sync that the first pods' ADDED
// events find stale. A recording cannot tell pods created in the run's first milliseconds
// from pods that existed before (it reads them as the initial listing, which enqueues
// nothing), so the replay has no such sync; were a pod bound before it, the simulation's
// retry would take that pod's Ready transition and the replay would carry it to the next
// sync.
func engineTestConfig(nodes, replicas int) sim.Config {
	ctl := sim.ControllerConfig{Workers: 5, QPS: 20, Burst: 30, APILatency: sim.Fixed(5 * time.Millisecond)}
	return sim.Config{
		Name: "test", Seed: 1,
		Cluster: sim.ClusterConfig{Nodes: nodes, Zones: []string{"us-east-1a", "us-east-1b", "us-east-1c"},
			NodeNameFormat: "ip-10-0-%d.ec2.internal", NodeMilliCPU: 4000},
		ControlPlane: sim.ControlPlaneConfig{EndpointSlice: ctl, Endpoints: ctl, MaxEndpointsPerSlice: 100},
		APIServer:    sim.APIServerConfig{Replicas: 1, KubeProxyEncoding: sim.EncodingProtobuf, ObjectSizeLimitBytes: 1572864},
		Services: []sim.ServiceConfig{{
			Name: "web", Namespace: "default", Replicas: replicas,
			Ports: []sim.ServicePortConfig{{Name: "http", Protocol: "TCP", Port: 80, TargetPort: 8080}},
			Timing: sim.PodTiming{
				Schedule:    sim.Fixed(1500 * time.Millisecond),
				Start:       sim.Distribution{Kind: sim.DistLognormal, Median: 3 * time.Second, P99: 10 * time.Second},
				Ready:       sim.Distribution{Kind: sim.DistUniform, Min: 2 * time.Second, Max: 5 * time.Second},
				Stop:        sim.Fixed(2 * time.Second),
				GracePeriod: sim.Fixed(30 * time.Second),
			},
		}},
		Timeline: []sim.Action{
			{Name: "create", Kind: sim.ActionCreate},
			{Name: "one-endpoint-not-ready", Kind: sim.ActionFlipReadiness, Pods: 1},
		},
		RunEndpoints: true, RunEndpointSlices: true,
	}
}

// memoryTrace keeps pod events in memory: the engine's own recording, for comparison.
type memoryTrace struct {
	events []sim.TraceEvent
	next   int
}

func (m *memoryTrace) Progress(sim.Time, int, int)   {}
func (m *memoryTrace) PodEvent(ev sim.TraceEvent)    { m.events = append(m.events, ev) }
func (m *memoryTrace) Next() (sim.TraceEvent, error) { return m.pop() }
func (m *memoryTrace) pop() (sim.TraceEvent, error) {
	if m.next >= len(m.events) {
		return sim.TraceEvent{}, io.EOF
	}
	m.next++
	return m.events[m.next-1], nil
}

// replayThroughFiles records cfg's simulated pods as kubectl's watch stream (k8s.io/api
// types, encoding/json), records that stream with Record (each event stamped with its
// simulated arrival time), writes the Services and Nodes as kubectl lists, reads all of it
// back and replays it.
func replayThroughFiles(t *testing.T, cfg sim.Config) (simulated, replayed *sim.Results, events int) {
	t.Helper()
	rec, simulated := simulate(t, cfg, nil)
	var traceBuf bytes.Buffer
	stats, err := Record(bytes.NewReader(rec.watch.Bytes()), &traceBuf, "watch.json", rec.clock())
	if err != nil {
		t.Fatal(err)
	}
	if stats.Events != int64(len(rec.arrivals)) {
		t.Fatalf("recorded %d events, want %d", stats.Events, len(rec.arrivals))
	}
	svcs, nodes := writeLists(t, rec.services, rec.nodes)
	src := NewPodReader(&traceBuf, "trace.jsonl")
	replayed, rstats, err := sim.Replay(cfg, svcs, nodes, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rstats.Events != int64(len(rec.arrivals)) || rstats.Unmatched != 0 || rstats.OutOfOrder != 0 {
		t.Errorf("replay stats %+v, recorded %d events", rstats, len(rec.arrivals))
	}
	if !src.Stats().RecordedTimes {
		t.Error("trace times not taken as recorded")
	}
	return simulated, replayed, len(rec.arrivals)
}

func sameWrites(t *testing.T, what string, want, got *sim.Results) {
	t.Helper()
	for _, m := range []sim.Mode{sim.ModeEndpointSlices, sim.ModeEndpoints} {
		a, b := want.Total.Mode(m), got.Total.Mode(m)
		if a.Writes != b.Writes || a.FanoutBytes != b.FanoutBytes || a.EtcdBytes != b.EtcdBytes || a.WatchEvents != b.WatchEvents {
			t.Errorf("%s %s: want writes %+v fanout %d etcd %d events %d; replayed %+v fanout %d etcd %d events %d",
				what, m, a.Writes, a.FanoutBytes, a.EtcdBytes, a.WatchEvents, b.Writes, b.FanoutBytes, b.EtcdBytes, b.WatchEvents)
		}
	}
}

// TestReplayOfRecordedSimulation: replaying a simulated rollout through the file formats
// gives the same writes, bytes and watch events as the simulation itself.
// Reference: issue 7; sim/engine_test.go TestReplayReproducesSimulation does it in memory.
func TestReplayOfRecordedSimulation(t *testing.T) {
	simulated, replayed, n := replayThroughFiles(t, engineTestConfig(20, 150))
	sameWrites(t, "simulation", simulated, replayed)
	// The same writes in every second, from the first sync on (slice names differ, and with
	// them the order in which one sync writes its slices).
	perSecond := func(res *sim.Results) map[string]int {
		n := map[string]int{}
		for _, w := range res.Writes {
			n[fmt.Sprintf("%ds %s %s %d %s", w.At/sim.Time(time.Second), w.Mode, w.Verb, w.Endpoints, w.Outcome)]++
		}
		return n
	}
	if a, b := perSecond(simulated), perSecond(replayed); !maps.Equal(a, b) {
		t.Errorf("writes per second differ:\nsimulated %v\nreplayed  %v", a, b)
	}
	t.Logf("%d pod events; slices %+v, endpoints %+v", n, replayed.Total.EndpointSlices.Writes, replayed.Total.Endpoints.Writes)
}

// TestFilesLoseNothing: for a whole four-phase scenario (rollout included), replaying through
// the file formats gives exactly what replaying the engine's in-memory pod events gives, so
// the formats and converters keep every field the controllers read.
func TestFilesLoseNothing(t *testing.T) {
	_, cfg, err := scenarios.Load("quick", []string{"cluster.nodes=30", "services[0].replicas=150"})
	if err != nil {
		t.Fatal(err)
	}
	_, replayed, _ := replayThroughFiles(t, cfg)
	mem := &memoryTrace{}
	if _, err := sim.Run(cfg, mem); err != nil {
		t.Fatal(err)
	}
	// The in-memory events take the listing the file reader finds (the pods created in the
	// recording's first milliseconds, before any other event, look like a listing).
	rec, _ := simulate(t, cfg, nil)
	var tr bytes.Buffer
	if _, err := Record(bytes.NewReader(rec.watch.Bytes()), &tr, "watch.json", rec.clock()); err != nil {
		t.Fatal(err)
	}
	r := NewPodReader(&tr, "trace.jsonl")
	for i := range mem.events {
		ev, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		mem.events[i].Listed = ev.Listed
	}
	direct, _, err := sim.Replay(cfg, servicesOf(cfg), nodesOf(cfg), mem, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameWrites(t, "in-memory replay", direct, replayed)
}
