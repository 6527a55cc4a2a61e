package trace

import (
	"bytes"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"epsim/model"
	"epsim/sim"
)

// simEpoch is the instant virtual time 0 stands for in the engine's object timestamps
// (sim/engine.go epoch), so that recorded times and object times agree.
var simEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// recording is a simulated run written out as a cluster would show it: the pod watch stream
// in kubectl's format, the arrival time of each of its events, and the Service and Node lists.
type recording struct {
	watch    bytes.Buffer
	arrivals []time.Time
	services []*model.Service
	nodes    []*model.Node
	// decorate, when set, dresses each API pod as a real cluster would show it.
	decorate func(p *corev1.Pod, at time.Time)
	created  map[string]model.Timestamp
	deleting map[string]model.Timestamp
	// events are the watch events written, in order.
	events []apiEvent
	err    error
}

// apiEvent is one pod watch event of a recording, as the API server would send it.
type apiEvent struct {
	at  time.Time
	typ model.EventType
	pod *corev1.Pod
}

// Progress implements sim.Observer.
func (r *recording) Progress(sim.Time, int, int) {}

// PodEvent implements sim.PodRecorder: each generated pod event becomes a kubectl watch
// event built from k8s.io/api types.
func (r *recording) PodEvent(ev sim.TraceEvent) {
	at := simEpoch.Add(time.Duration(ev.At))
	key := ev.Pod.Key()
	sec := model.Timestamp(at.Truncate(time.Second).UnixNano())
	if ev.Type == model.EventAdded {
		r.created[key] = sec
		delete(r.deleting, key)
	}
	if ev.Pod.Terminating && r.deleting[key] == 0 {
		r.deleting[key] = sec
	}
	p := PodToAPI(ev.Pod, ev.Labels, ev.ResourceVersion, r.created[key], r.deleting[key])
	if r.decorate != nil {
		r.decorate(p, at)
	}
	if err := WriteWatchEvent(&r.watch, ev.Type, p); err != nil && r.err == nil {
		r.err = err
	}
	r.arrivals = append(r.arrivals, at)
	r.events = append(r.events, apiEvent{at, ev.Type, p})
	if ev.Type == model.EventDeleted {
		delete(r.created, key)
		delete(r.deleting, key)
	}
}

// clock returns a Record clock that gives each event its simulated arrival time.
func (r *recording) clock() func() time.Time {
	i := 0
	return func() time.Time {
		t := r.arrivals[i]
		i++
		return t
	}
}

// simulate runs cfg, recording its pods, and returns the recording with the Services and
// Nodes the engine built. Services and Nodes mirror sim/workload.go newService and
// sim/engine.go buildNodes (the engine does not export them).
func simulate(t testing.TB, cfg sim.Config, decorate func(*corev1.Pod, time.Time)) (*recording, *sim.Results) {
	t.Helper()
	rec := &recording{decorate: decorate, created: map[string]model.Timestamp{}, deleting: map[string]model.Timestamp{}}
	res, err := sim.Run(cfg, rec)
	if err != nil {
		t.Fatal(err)
	}
	if rec.err != nil {
		t.Fatal(rec.err)
	}
	rec.services = servicesOf(cfg)
	rec.nodes = nodesOf(cfg)
	return rec, res
}

func servicesOf(cfg sim.Config) []*model.Service {
	services, _, err := sim.ClusterObjects(cfg)
	if err != nil {
		panic(err)
	}
	for _, svc := range services {
		svc.CreationTimestamp = model.Timestamp(simEpoch.UnixNano())
	}
	return services
}

func nodesOf(cfg sim.Config) []*model.Node {
	_, nodes, err := sim.ClusterObjects(cfg)
	if err != nil {
		panic(err)
	}
	return nodes
}
