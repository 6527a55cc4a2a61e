package sim

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"epsim/model"
)

// ActionReplay is the single phase of a replay run: recorded pod churn, not generated.
const ActionReplay ActionKind = "replay"

// TraceEvent is one recorded pod change. At is virtual time since the start of the trace.
type TraceEvent struct {
	At   Time
	Type model.EventType // ADDED, MODIFIED or DELETED
	Pod  *model.Pod
	// Labels are the pod's metadata.labels, which decide the Services that select it.
	Labels map[string]string
	// ResourceVersion is the pod's metadata.resourceVersion ("": none recorded, the replay
	// gives it one). An update of the version the pod already has is a resync, which the
	// controllers drop.
	ResourceVersion string
	// Listed marks an event of the recording's initial listing (the pods that existed when
	// the watch started). Listed events come first and are applied at time 0, as the
	// informers' initial list, before any controller worker starts.
	Listed bool
}

// TraceSource yields recorded pod events in time order; Next returns io.EOF at the end.
// Sources read their input incrementally, so a replay holds only live objects in memory.
// The replay keeps each event's Pod as the pod's state (and may give it an identity equal
// to its own, shared with the pod's version before): a source returns a Pod of its own
// for every event and does not change it afterwards.
type TraceSource interface {
	Next() (TraceEvent, error)
}

// ReplayStats counts what a replay skipped or clamped.
type ReplayStats struct {
	Events int64 `json:"events"`
	// Unmatched counts pod events that matched no Service with a selector.
	Unmatched int64 `json:"unmatched"`
	// OutOfOrder counts events whose time was before the previous one (applied at once).
	OutOfOrder int64 `json:"outOfOrder"`
	// Listed counts the events of the initial listing, applied before the controllers start.
	Listed int64 `json:"listed"`
	// UnknownNodeEvents counts pod events naming a node that is not among the replay's nodes,
	// UnknownNodes those nodes, and UnknownNodeExamples holds the first few of their names.
	// The EndpointSlice controller skips such a pod and retries its Service with backoff (as
	// upstream does for a node its lister does not have); the Endpoints controller keeps it.
	UnknownNodeEvents   int64    `json:"unknownNodeEvents"`
	UnknownNodes        int64    `json:"unknownNodes"`
	UnknownNodeExamples []string `json:"unknownNodeExamples,omitempty"`
}

// unknownNodeExamples is how many names of unknown nodes ReplayStats keeps.
const unknownNodeExamples = 5

// podKey is a pod's namespace and name.
type podKey struct{ namespace, name string }

// replayedPod is a replayed pod: its states (one per Service that selects it) and the
// resourceVersion of its last event.
type replayedPod struct {
	states []*podState
	rv     string
}

// replayState is the engine's view of a trace being replayed.
type replayState struct {
	src   TraceSource
	byKey map[podKey]replayedPod
	err   error
	stats ReplayStats
	// selecting finds the Services that may select a pod; candidates is its scratch list.
	selecting  selectorIndex
	candidates []int
	// next is the event read ahead, which the one evTrace scheduled applies.
	next TraceEvent
	// unknownNodes holds the names of the nodes pods named that the replay does not have.
	unknownNodes map[string]bool
}

// Replay runs recorded pod churn through both controllers, with the Services and Nodes of the
// recording. cfg supplies the control plane, API server and network settings; its services
// and timeline are ignored. The result has one phase, "replay".
func Replay(cfg Config, services []*model.Service, nodes []*model.Node, src TraceSource, obs Observer) (*Results, *ReplayStats, error) {
	if len(nodes) == 0 {
		return nil, nil, errors.New("sim: replay needs at least one node")
	}
	cfg.Services = nil
	cfg.Cluster.Nodes = len(nodes)
	cfg.Timeline = []Action{{Name: "replay", Kind: ActionReplay}}
	e, err := newEngine(cfg, obs)
	if err != nil {
		return nil, nil, err
	}
	e.nodes = e.nodes[:0]
	clear(e.nodeByName)
	for _, n := range nodes {
		c := *n
		e.nodes = append(e.nodes, &c)
		e.nodeByName[c.Name] = &c
	}
	e.nodeNamesUnique = len(e.nodeByName) == len(e.nodes)
	e.nodeNamesFormatted = false // the trace's own names
	e.proxyAt = representativeNode(e.nodes, nil)
	for _, svc := range services {
		s := &serviceState{idx: len(e.services), svc: svc}
		e.services = append(e.services, s)
	}
	// Controllers size their per-service state on construction: rebuild them.
	e.api = newAPIServer(e)
	e.stats = newCollector(e)
	e.ctls = e.ctls[:0]
	if cfg.RunEndpointSlices {
		e.ctls = append(e.ctls, newController(e, ModeEndpointSlices, cfg.ControlPlane.EndpointSlice, newStream(cfg.Seed, streamEndpointSliceAPI)))
	}
	if cfg.RunEndpoints {
		e.ctls = append(e.ctls, newController(e, ModeEndpoints, cfg.ControlPlane.Endpoints, newStream(cfg.Seed, streamEndpointsAPI)))
	}
	e.replay = &replayState{src: src, byKey: map[podKey]replayedPod{}}
	e.releaseAtEnd = true
	res, err := e.run()
	if err == nil && e.replay.err != nil {
		err = e.replay.err
	}
	if err != nil {
		return nil, nil, err
	}
	return res, &e.replay.stats, nil
}

// startReplay lists the recorded Services and the initial listing's pods into the
// informers, starts the controllers' workers (their caches have synced), and schedules the
// first trace event after the listing. The first sync of each Service thus sees every pod
// that existed when the recording started, as the real controllers' first sync does.
func (e *Engine) startReplay() {
	e.cachesSynced = false
	for _, s := range e.services {
		if s.svc.Selector == nil || s.svc.ExternalName {
			continue // no controller-managed endpoints
		}
		s.created = true
		for _, c := range e.ctls {
			c.serviceAdded(s)
		}
	}
	r := e.replay
	r.selecting = newSelectorIndex(e.services)
	for {
		ev, err := r.src.Next()
		if err != nil {
			e.endRecording(err)
			e.syncCaches()
			return
		}
		r.stats.Events++
		if ev.Listed {
			r.stats.Listed++
			e.applyTrace(ev)
			continue
		}
		e.syncCaches()
		e.scheduleTrace(ev)
		return
	}
}

// scheduleTrace schedules the replay of ev, the next event of the recording: one is
// scheduled at a time, so it waits in replayState.next and evTrace is empty (an event
// value of its own would be boxed, an allocation for every instant of the recording).
func (e *Engine) scheduleTrace(ev TraceEvent) {
	e.replay.next = ev
	e.schedule(ev.At, evTrace{})
}

// evTrace applies the recording's next event (replayState.next).
type evTrace struct{}

func (evTrace) String() string { return "trace" }

// apply applies the next event and every following one recorded at the same instant, as
// one informer burst: a recording cannot tell apart changes made in the same instant, and a
// controller worker never runs between them.
func (evTrace) apply(e *Engine) {
	r := e.replay
	ev := r.next
	r.next = TraceEvent{}
	e.applyTrace(ev)
	for {
		next, err := r.src.Next()
		if err != nil {
			e.endRecording(err)
			return
		}
		r.stats.Events++
		if next.At > e.now {
			e.scheduleTrace(next)
			return
		}
		if next.At < e.now {
			r.stats.OutOfOrder++
		}
		e.applyTrace(next)
	}
}

// noteUnknownNode counts a pod event on node name, which the replay does not have.
func (r *replayState) noteUnknownNode(name string) {
	r.stats.UnknownNodeEvents++
	if r.unknownNodes[name] {
		return
	}
	if r.unknownNodes == nil {
		r.unknownNodes = map[string]bool{}
	}
	r.unknownNodes[name] = true
	r.stats.UnknownNodes++
	if len(r.stats.UnknownNodeExamples) < unknownNodeExamples {
		r.stats.UnknownNodeExamples = append(r.stats.UnknownNodeExamples, name)
	}
}

// applyTrace turns one recorded pod event into informer notifications for every Service the
// pod belongs to (label selector semantics: every selector pair present, same namespace).
func (e *Engine) applyTrace(ev TraceEvent) {
	r := e.replay
	key := podKey{ev.Pod.Namespace, ev.Pod.Name}
	entry := r.byKey[key]
	cur := entry.states
	if ev.Type == model.EventDeleted {
		for _, p := range cur {
			e.dropReplayPod(p)
		}
		delete(r.byKey, key)
		return
	}
	pod := ev.Pod // the replay's now (see TraceSource)
	if n := pod.NodeName; n != "" {
		if _, ok := e.Node(n); !ok {
			r.noteUnknownNode(n)
		}
	}
	shareIdentity(pod, cur)
	rv := ev.ResourceVersion
	if rv == "" {
		rv = e.api.podResourceVersion()
	}
	var next []*podState
	matched := false
	r.candidates = r.selecting.candidates(r.candidates[:0], pod.Namespace, ev.Labels)
	for _, i := range r.candidates {
		s := e.services[i]
		if !s.svc.Selector.Matches(ev.Labels) {
			continue
		}
		matched = true
		var p *podState
		for _, q := range cur {
			if q.svc() == s {
				p = q
			}
		}
		if p == nil {
			p = &podState{owner: e.replayOwnerOf(s), node: -1, setIndex: -1, stage: stageRunning}
			p.setPod(pod)
			s.pods = append(s.pods, p)
			e.podAdded(p)
		} else {
			old := p.pod
			p.setPod(pod)
			if rv == entry.rv {
				e.podResynced(p, old)
			} else {
				e.podUpdated(p, old)
			}
		}
		next = append(next, p)
	}
	for _, q := range cur {
		found := false
		for _, p := range next {
			found = found || p == q
		}
		if !found {
			e.dropReplayPod(q)
		}
	}
	if !matched {
		r.stats.Unmatched++
	}
	if len(next) == 0 {
		delete(r.byKey, key)
	} else {
		r.byKey[key] = replayedPod{states: next, rv: rv}
	}
}

// endRecording notes that the recording ended, with err (io.EOF at its end), and starts
// the end-time guard's budget.
func (e *Engine) endRecording(err error) {
	if !errors.Is(err, io.EOF) {
		e.replay.err = fmt.Errorf("sim: replay: %w", err)
	}
	e.deadline = e.deadlineAfter(e.now)
}

// selectorIndex finds the Services that may select a pod without testing every Service:
// a recording of a large cluster has thousands of Services and millions of pod events. Each
// Service with a selector is filed under its namespace and one pair of its selector (the
// pair fewest Services share), which every pod it selects carries; a Service whose selector
// is empty selects every pod of its namespace.
type selectorIndex struct {
	byPair map[selectorPair][]int
	all    map[string][]int
}

// selectorPair is one label of a Service's selector, in the Service's namespace.
type selectorPair struct{ namespace, key, value string }

// newSelectorIndex indexes the created Services (those with controller-managed endpoints)
// of services.
func newSelectorIndex(services []*serviceState) selectorIndex {
	x := selectorIndex{byPair: map[selectorPair][]int{}, all: map[string][]int{}}
	shared := map[selectorPair]int{}
	for _, s := range services {
		if s.created {
			for _, l := range s.svc.Selector {
				shared[selectorPair{s.svc.Namespace, l.Key, l.Value}]++
			}
		}
	}
	for i, s := range services {
		if !s.created {
			continue
		}
		if len(s.svc.Selector) == 0 {
			x.all[s.svc.Namespace] = append(x.all[s.svc.Namespace], i)
			continue
		}
		var best selectorPair
		for j, l := range s.svc.Selector {
			p := selectorPair{s.svc.Namespace, l.Key, l.Value}
			if j == 0 || shared[p] < shared[best] {
				best = p
			}
		}
		x.byPair[best] = append(x.byPair[best], i)
	}
	return x
}

// candidates appends to dst the indexes of the Services that may select a pod of namespace
// with labels, each once, in increasing order: a superset of those that do.
func (x *selectorIndex) candidates(dst []int, namespace string, labels map[string]string) []int {
	dst = append(dst, x.all[namespace]...)
	for k, v := range labels {
		dst = append(dst, x.byPair[selectorPair{namespace, k, v}]...)
	}
	slices.Sort(dst)
	return dst
}

// shareIdentity gives pod, a new version of the pod of cur (its states, one per Service
// that selects it), the identity of the version before when the two are equal: the versions
// of a pod share one, as a generated pod's do, and the targetRefs of its endpoints point
// there. A trace decodes every version with an identity of its own.
func shareIdentity(pod *model.Pod, cur []*podState) {
	if len(cur) > 0 && cur[0].pod.Equal(pod.PodIdentity) {
		pod.PodIdentity = cur[0].pod.PodIdentity
	}
}

func (e *Engine) dropReplayPod(p *podState) {
	s := p.svc()
	p.stage = stageGone
	s.dropGone() // leaves p in s.pods until a compaction, as a generated pod's removal does
	e.podDeleted(p)
}

// ClusterObjects returns the Services and Nodes a run of cfg starts with, built exactly as
// Run builds them (the same names, UIDs and zones for the same seed). The Services have no
// creationTimestamp yet: Run sets it when their create action runs. Replays of a recorded
// simulation use these as the recording's Services and Nodes.
func ClusterObjects(cfg Config) ([]*model.Service, []*model.Node, error) {
	e, err := newEngine(cfg, nil)
	if err != nil {
		return nil, nil, err
	}
	services := make([]*model.Service, len(e.services))
	for i, s := range e.services {
		services[i] = s.svc
	}
	return services, e.nodes, nil
}

// replayOwnerOf returns s's replay owner, made on first need: the owner of every pod a
// replay gives s (podState.owner), which gives the pod its Service and is no ReplicaSet
// (podState.rs returns nil).
func (e *Engine) replayOwnerOf(s *serviceState) *replicaSet {
	if len(e.replayOwners) <= s.idx {
		e.replayOwners = append(e.replayOwners, make([]*replicaSet, s.idx+1-len(e.replayOwners))...)
	}
	if e.replayOwners[s.idx] == nil {
		e.replayOwners[s.idx] = &replicaSet{svc: s, rare: &rsRare{replay: true}}
	}
	return e.replayOwners[s.idx]
}
