package sim

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"epsim/model"
)

// ActionReplay is the phase of a replay run that replays recorded pod churn (the only one
// of a cold start).
const ActionReplay ActionKind = "replay"

// ActionReplayStartUp is the first phase of a warm replay (ReplayOptions.Warm): the
// controllers' first syncs of the recording's initial listing, run to the end before the
// recorded churn is replayed.
const ActionReplayStartUp ActionKind = "replay-start-up"

// Phase names of a replay run: one phase, "replay", from a cold start; "start-up" and then
// "replay" from a warm one.
const (
	ReplayPhase        = "replay"
	ReplayStartUpPhase = "start-up"
)

// ReplayOptions are how a replay starts.
type ReplayOptions struct {
	// Warm replays the recording of a cluster whose controllers were already running: the
	// initial listing's first syncs run to the end in a phase of their own, "start-up", and
	// the recorded churn follows in the "replay" phase, shifted to start when the start-up
	// has settled (the next whole second), so that it meets controllers with nothing left to
	// do and kube-proxies that have programmed every listed Service and are idle (their
	// minSyncPeriod passed), as in the cluster recorded. The "replay" phase's figures are
	// then the recording's churn alone. A cold start (false) replays the churn from time 0
	// while the first syncs run, as after a restart of kube-controller-manager at the
	// recording's start.
	Warm bool
	// Slices are the cluster's EndpointSlices when the recording began (the initial listing
	// of its EndpointSlice stream), or nil. The run begins with them stored, as if written
	// before time 0: the EndpointSlice controller's first syncs reconcile its Services'
	// slices against them, as a restarted controller does with the slices it lists; every
	// kube-proxy has them programmed; and the cluster's resourceVersions continue from the
	// largest of theirs. So the churn meets the layout the cluster's slices had, packed over
	// their history. Without them, a Service created before the recording is taken to have
	// had the slices its listed pods pack into at once (seedExisting). Slices another
	// manager wrote, and slices of Services the replay does not have or whose endpoints no
	// controller manages, are left out (ReplayStats counts both).
	Slices []*model.EndpointSlice
}

// TraceEvent is one recorded pod change. At is virtual time since the start of the trace.
type TraceEvent struct {
	At   Time
	Type model.EventType // ADDED, MODIFIED or DELETED
	Pod  *model.Pod
	// Labels are the pod's metadata.labels, which decide the Services that select it.
	Labels map[string]string
	// ResourceVersion is the pod's metadata.resourceVersion ("": none recorded, the replay
	// gives it one). An update of the version the pod already has is a resync, which the
	// controllers drop. The replay's own writes continue from the largest recorded.
	ResourceVersion string
	// Listed marks an event of the recording's initial listing (the pods that existed when
	// the watch started). Listed events come first and are applied at time 0, as the
	// informers' initial list, before any controller worker starts.
	Listed bool
	// Origin is the wall-clock instant the recording's time 0 stands for (zero: the
	// recording's timestamps are the simulator's own). The replay reads it from the first
	// event after the listing (the last listed one if none follows), so that the pods'
	// own timestamps, which the trigger-time annotations carry, are read against it.
	Origin model.Timestamp
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
	// Relists counts the relists in the recording (addRun), and RelistDeleted the pods they
	// deleted: those a relist did not list again.
	Relists       int64 `json:"relists,omitempty"`
	RelistDeleted int64 `json:"relistDeleted,omitempty"`
	// OutOfOrder counts events whose time was before the previous one (applied at once).
	OutOfOrder int64 `json:"outOfOrder"`
	// Listed counts the events of the initial listing, applied before the controllers start.
	Listed int64 `json:"listed"`
	// ListingMappedSeconds is when the endpoint controllers' pod queues are done with the
	// listing's pods (podQueue), which a change after the listing waits behind: every pod
	// of a Service's namespace, selected or not, costs a listing of its Services.
	ListingMappedSeconds float64 `json:"listingMappedSeconds,omitempty"`
	// UnknownNodeEvents counts pod events naming a node that is not among the replay's nodes,
	// UnknownNodes those nodes, and UnknownNodeExamples holds the first few of their names.
	// The EndpointSlice controller skips such a pod and retries its Service with backoff (as
	// upstream does for a node its lister does not have); the Endpoints controller keeps it.
	UnknownNodeEvents   int64    `json:"unknownNodeEvents"`
	UnknownNodes        int64    `json:"unknownNodes"`
	UnknownNodeExamples []string `json:"unknownNodeExamples,omitempty"`
	// SeededSlices counts the slices of ReplayOptions.Slices the run began with, and
	// UnseededSlices those it left out: managed by another controller, of a Service the
	// replay does not have (or one without a selector), or a second slice of a name.
	SeededSlices   int64 `json:"seededSlices,omitempty"`
	UnseededSlices int64 `json:"unseededSlices,omitempty"`
	// SeededServices counts the Services created before the recording began (or at a time
	// unknown), whose Endpoints and EndpointSlices the run began with: built from the
	// listing, or the slices of ReplayOptions.Slices.
	SeededServices int64 `json:"seededServices,omitempty"`
	// CreatedDuring counts the Services (of controller-managed endpoints) created after the
	// recording began: those of its first second exist from time 0 without objects, the
	// others from their creationTimestamp on (their pods' changes before it are not theirs).
	CreatedDuring int64 `json:"createdDuring,omitempty"`
	// CreatedAfterEnd counts those of CreatedDuring created after the recording's last
	// event, which the replay leaves out.
	CreatedAfterEnd int64 `json:"createdAfterEnd,omitempty"`
}

// unknownNodeExamples is how many names of unknown nodes ReplayStats keeps.
const unknownNodeExamples = 5

// podKey is a pod's namespace and name.
type podKey struct{ namespace, name string }

// replayedPod is a replayed pod: its states (one per Service that selects it, none if no
// Service does), and its last event's resourceVersion, pod and labels, which the next
// event's projection key compares (applyTrace).
type replayedPod struct {
	states []*podState
	rv     string
	pod    *model.Pod
	labels map[string]string
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
	// warm says the churn waits for the start-up phase (ReplayOptions.Warm): held is then the
	// first event after the listing until the replay phase starts, and offset the time that
	// phase starts at, added to every event's time.
	warm   bool
	held   bool
	offset Time
	// origin is the recording's (TraceEvent.Origin).
	origin model.Timestamp
	// slices are the slices the run begins with (ReplayOptions.Slices).
	slices []*model.EndpointSlice
	// joins are the nodes created after the recording began, in the order they join, each
	// with its time on the recording's clock (nodeJoins); creates the same of Services
	// (addReplayServices).
	joins   []nodeJoin
	creates []serviceCreate
	// pendingCreates counts the Services scheduled for creation that are not created yet.
	pendingCreates int64
	// ended: the recording has no more events (endRecording).
	ended bool
	// run is the run of ADDED events going on, to find relists (noteAdded).
	run addRun
}

// addRun is a run of ADDED events after the listing, each within relistGap of the one
// before: a relist when it adds a pod the replay has. kubectl's watch ends (an ERROR, the
// request's timeout) and, run again in a loop, lists every pod as ADDED. An informer that
// lists again replaces its store: the pods the new list lacks were deleted while it was
// not watching, and it deletes them then (upstream: client-go tools/cache/delta_fifo.go
// Replace, "Delete pre-existing items not in the new list"). A watch never adds a pod it
// has: a pod made again under its name (a StatefulSet's) was deleted first.
type addRun struct {
	keys   map[podKey]bool // the pods the run added
	last   Time            // when its last event was applied
	relist bool
}

// relistGap is the longest gap between two events of one relist: kubectl prints its
// listing at once, as trace.listingMinGap assumes of the first one.
const relistGap = Time(50 * time.Millisecond)

// noteAdded follows the runs of ADDED events (addRun) with event ev of pod key, before it is
// applied: an event that does not continue the run ends it (endRun).
func (e *Engine) noteAdded(ev TraceEvent, key podKey) {
	r := e.replay
	run := &r.run
	if ev.Type != model.EventAdded || e.now-run.last > relistGap {
		e.endRun()
	}
	if ev.Type != model.EventAdded {
		return
	}
	if run.keys == nil {
		run.keys = map[podKey]bool{}
	}
	if _, has := r.byKey[key]; has && !run.keys[key] {
		run.relist = true
	}
	run.keys[key] = true
	run.last = e.now
}

// endRun ends the run of ADDED events; a relist deletes the pods it did not list, in
// order of namespace and name.
func (e *Engine) endRun() {
	r := e.replay
	run := &r.run
	if run.relist {
		r.stats.Relists++
		var gone []podKey
		for key := range r.byKey {
			if !run.keys[key] {
				gone = append(gone, key)
			}
		}
		slices.SortFunc(gone, func(a, b podKey) int {
			return cmp.Or(strings.Compare(a.namespace, b.namespace), strings.Compare(a.name, b.name))
		})
		for _, key := range gone {
			e.openPodEvent(key.namespace, 1)
			for _, p := range r.byKey[key].states {
				e.dropReplayPod(p)
			}
			e.closePodEvent()
			delete(r.byKey, key)
		}
		r.stats.RelistDeleted += int64(len(gone))
	}
	clear(run.keys) // kept for the next run: most runs are a pod or a few
	run.last, run.relist = 0, false
}

// Replay runs recorded pod churn through both controllers, with the Services and Nodes of the
// recording, from a cold start. cfg supplies the control plane, API server and network
// settings; its services and timeline are ignored. The result has one phase, "replay".
func Replay(cfg Config, services []*model.Service, nodes []*model.Node, src TraceSource, obs Observer) (*Results, *ReplayStats, error) {
	return ReplayWith(ReplayOptions{}, cfg, services, nodes, src, obs)
}

// ReplayWith is Replay started as opts say: from a warm start, the result has two phases,
// "start-up" and "replay" (ReplayOptions.Warm).
func ReplayWith(opts ReplayOptions, cfg Config, services []*model.Service, nodes []*model.Node, src TraceSource, obs Observer) (*Results, *ReplayStats, error) {
	e, err := newReplay(opts, cfg, services, nodes, src, obs)
	if err != nil {
		return nil, nil, err
	}
	e.releaseAtEnd = true
	return e.runReplay()
}

// newReplay returns the engine of a replay (ReplayWith), ready to run.
func newReplay(opts ReplayOptions, cfg Config, services []*model.Service, nodes []*model.Node, src TraceSource, obs Observer) (*Engine, error) {
	if len(nodes) == 0 {
		return nil, errors.New("sim: replay needs at least one node")
	}
	cfg.Services = nil
	cfg.Cluster.Nodes = len(nodes)
	cfg.Timeline = []Action{{Name: ReplayPhase, Kind: ActionReplay}}
	if opts.Warm {
		cfg.Timeline = []Action{{Name: ReplayStartUpPhase, Kind: ActionReplayStartUp}, {Name: ReplayPhase, Kind: ActionReplay}}
	}
	e, err := newEngine(cfg, obs)
	if err != nil {
		return nil, err
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
		e.namespaces.add(s)
	}
	// Controllers size their per-service state on construction: rebuild them.
	e.api = newAPIServer(e)
	e.stats = newCollector(e)
	e.ctls = e.ctls[:0]
	if cfg.RunEndpointSlices {
		e.ctls = append(e.ctls, newController(e, ModeEndpointSlices, cfg.ControlPlane.EndpointSlice, newStream(cfg.Seed, streamEndpointSliceAPI)))
		e.reconnects[modeIndex(ModeEndpointSlices)] = newStream(cfg.Seed, streamReconnectEndpointSlices)
	}
	if cfg.RunEndpoints {
		e.ctls = append(e.ctls, newController(e, ModeEndpoints, cfg.ControlPlane.Endpoints, newStream(cfg.Seed, streamEndpointsAPI)))
		e.reconnects[modeIndex(ModeEndpoints)] = newStream(cfg.Seed, streamReconnectEndpoints)
	}
	e.makePodQueues()
	e.replay = &replayState{src: src, byKey: map[podKey]replayedPod{}, warm: opts.Warm, slices: opts.Slices}
	e.proxyStart = 0
	return e, nil
}

// runReplay runs the engine of a replay (newReplay).
func (e *Engine) runReplay() (*Results, *ReplayStats, error) {
	res, err := e.run()
	if err == nil && e.replay.err != nil {
		err = e.replay.err
	}
	if err != nil {
		return nil, nil, err
	}
	return res, &e.replay.stats, nil
}

// startReplay lists the initial listing's pods and then (listed) the recorded Services into
// the informers, stores the cluster's slices (ReplayOptions.Slices), starts the controllers'
// workers (their caches have synced), and schedules the first trace event after the listing
// (from a warm start, holds it for startChurn). The first sync of each Service thus sees
// every pod that existed when the recording started, as the real controllers' first sync
// does.
func (e *Engine) startReplay() {
	e.cachesSynced = false
	r := e.replay
	r.selecting = newSelectorIndex(e.services)
	for {
		ev, err := r.src.Next()
		if err != nil {
			e.endRecording(err)
			e.listed()
			return
		}
		r.stats.Events++
		r.origin = ev.Origin
		if ev.Listed {
			r.stats.Listed++
			e.applyTrace(ev)
			continue
		}
		e.listed()
		if r.warm {
			r.next, r.held = ev, true
			return
		}
		e.scheduleTrace(ev)
		return
	}
}

// addReplayServices adds the recorded Services with controller-managed endpoints to the
// controllers' informers, with the pods of the listing, as the caches sync; but those
// created after the recording's first second wait for their creation (scheduleJoins), and
// until then the controllers leave their pods alone, as a real controller acts from a
// Service's creation on. Times are on the recording's clock, as for nodes (nodeJoins). It
// runs once the listing is read: a listing of raw kubectl output moves the recording's
// origin until its end. Every Service that exists then counts in its namespace, which the
// pod queues list (podQueue); one without managed endpoints created later counts from its
// creation (evServiceCreate), and is nothing else to the controllers.
func (e *Engine) addReplayServices() {
	r := e.replay
	base := e.epoch
	start := e.timestamp(0)
	for _, s := range e.services {
		ts := s.svc.CreationTimestamp
		if ts > start {
			r.creates = append(r.creates, serviceCreate{svc: s.idx, at: Time(int64(ts) - base)})
			if replayManaged(s) {
				r.stats.CreatedDuring++
			}
			continue
		}
		if !replayManaged(s) {
			e.serviceExists(s)
			continue
		}
		s.created = true
		e.serviceExists(s)
		for _, c := range e.ctls {
			c.serviceAdded(s)
		}
	}
	slices.SortStableFunc(r.creates, func(a, b serviceCreate) int { return cmp.Compare(a.at, b.at) })
}

// replayManaged reports whether the controllers manage recorded Service s's endpoints: it
// has a selector and is no ExternalName Service.
func replayManaged(s *serviceState) bool { return s.svc.Selector != nil && !s.svc.ExternalName }

// serviceCreate is a Service created during the recording, with its creation time on the
// recording's clock.
type serviceCreate struct {
	svc int
	at  Time
}

// evServiceCreate is a Service created during the recording: the controllers' informers
// add it, with the pods it selects then, and queue it. One created after the recording's
// last event is left out (counted in ReplayStats.CreatedAfterEnd when the recording ends):
// the Services file was taken after the recording. It holds no phase open.
type evServiceCreate struct{ svc int }

func (ev evServiceCreate) String() string { return fmt.Sprintf("service %d created", ev.svc) }
func (ev evServiceCreate) apply(e *Engine) {
	if e.replay.ended {
		return // counted by endRecording
	}
	s := e.services[ev.svc]
	e.serviceExists(s)
	if !replayManaged(s) {
		return // only listed by the pod queues
	}
	e.replay.pendingCreates--
	s.created = true
	for _, c := range e.ctls {
		c.serviceAdded(s)
	}
	if !hiddenFromKubeProxy(s.svc.Labels) {
		e.kubeProxiesService(s, true) // kube-proxy's Service informer has it too
	}
}

// listed ends the initial listing: time 0 stands for the recording's origin, the cluster's
// slices are stored, and the controllers start their workers.
func (e *Engine) listed() {
	r := e.replay
	if r.origin != 0 {
		e.setEpoch(int64(r.origin))
	}
	e.addReplayServices()
	e.nodeJoins()
	e.seedExisting()
	e.syncCaches()
	e.queueUntracked(true) // the slice informer's adds, as its cache synced
	if !r.warm {
		e.scheduleJoins()
	}
}

// startChurn starts the replay phase of a warm start (the start-up has settled): the
// recording's churn is replayed from now on, each event this much later than recorded.
func (e *Engine) startChurn() {
	r := e.replay
	if !r.warm {
		e.startReplay() // a cold start's one phase
		return
	}
	r.offset = e.now
	e.proxyStart = r.offset // the kube-proxies count triggers from the recording's start
	e.scheduleJoins()
	if r.origin != 0 {
		// The recording's time 0 is now: its timestamps are read against it.
		e.setEpoch(int64(r.origin) - int64(r.offset))
	}
	if r.held {
		r.held = false
		e.scheduleTrace(r.next)
	}
}

// scheduleTrace schedules the replay of ev, the next event of the recording: one is
// scheduled at a time, so it waits in replayState.next and evTrace is empty (an event
// value of its own would be boxed, an allocation for every instant of the recording).
func (e *Engine) scheduleTrace(ev TraceEvent) {
	e.replay.next = ev
	e.schedule(ev.At+e.replay.offset, evTrace{})
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
		if at := next.At + r.offset; at > e.now {
			if at-e.now > relistGap {
				e.endRun() // a relist ends with its burst, not at the next event
			}
			e.scheduleTrace(next)
			return
		} else if at < e.now {
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
	if !ev.Listed {
		e.noteAdded(ev, key)
	}
	entry, known := r.byKey[key]
	cur := entry.states
	if ev.Type == model.EventDeleted {
		if known {
			e.openPodEvent(key.namespace, 1)
			for _, p := range cur {
				e.dropReplayPod(p)
			}
			e.closePodEvent()
			delete(r.byKey, key)
		}
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
	} else {
		e.api.followRecorded(rv)
	}
	// The event's projection key: an add (of a pod the replay does not have), or an update
	// of another version whose labels changed (the Services of both label sets are listed)
	// or that changes what endpoints show. Every such event takes an item of each pod
	// queue, whether or not a Service selects the pod; the pod's states share it.
	// upstream: k8s.io/endpointslice util/controller_utils.go GetPodUpdateProjectionKey,
	// GetServicesToUpdate.
	if !known {
		e.openPodEvent(key.namespace, 1)
	} else if rv != entry.rv {
		switch {
		case !maps.Equal(entry.labels, ev.Labels):
			e.openPodEvent(key.namespace, 2)
		case podEndpointsChanged(entry.pod, pod):
			e.openPodEvent(key.namespace, 1)
		}
	}
	defer e.closePodEvent()
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
	r.byKey[key] = replayedPod{states: next, rv: rv, pod: pod, labels: ev.Labels}
}

// endRecording notes that the recording ended, with err (io.EOF at its end), and starts
// the end-time guard's budget.
func (e *Engine) endRecording(err error) {
	e.replay.ended = true
	e.replay.stats.CreatedAfterEnd = e.replay.pendingCreates
	e.endRun()
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

// newSelectorIndex indexes the Services with controller-managed endpoints of services,
// created or to be created (replayManaged).
func newSelectorIndex(services []*serviceState) selectorIndex {
	x := selectorIndex{byPair: map[selectorPair][]int{}, all: map[string][]int{}}
	shared := map[selectorPair]int{}
	for _, s := range services {
		if replayManaged(s) {
			for _, l := range s.svc.Selector {
				shared[selectorPair{s.svc.Namespace, l.Key, l.Value}]++
			}
		}
	}
	for i, s := range services {
		if !replayManaged(s) {
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
