package sim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"strings"
	"time"

	"epsim/model"
)

// Errors a run can end with.
var (
	ErrEventBudget = errors.New("sim: event budget exhausted (raise guards.maxEvents or shorten the timeline)")
	ErrEndTime     = errors.New("sim: end time reached before the timeline finished (raise guards.endTime)")
	// ErrOverflow: a byte or event figure passed what int64 holds; the run stops rather than
	// report a wrapped-around figure.
	ErrOverflow = errors.New("sim: a figure overflowed")
)

// epoch is the wall-clock instant virtual time 0 stands for in object timestamps. It is a
// fixed date, never the host's clock, so outputs are reproducible.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()

// timestamp converts virtual time to an object timestamp truncated to whole seconds, as
// metav1.Time fields (creationTimestamp, lastTransitionTime) are stored.
func timestamp(t Time) model.Timestamp {
	return model.Timestamp(epoch + int64(t)/1e9*1e9)
}

// virtualTime converts an object timestamp back to virtual time.
func virtualTime(ts model.Timestamp) Time { return Time(int64(ts) - epoch) }

// timestamp converts virtual time to an object timestamp of this run, truncated to whole
// seconds: a run's time 0 stands for Engine.epoch, which is the package's epoch but in a
// replay of a real recording (setEpoch).
func (e *Engine) timestamp(t Time) model.Timestamp {
	return model.Timestamp((e.epoch + int64(t)) / 1e9 * 1e9)
}

// setEpoch makes virtual time 0 stand for the wall-clock instant ns (Unix nanoseconds) in
// the timestamps the run writes and the trigger times kube-proxy reads: a replay's pods
// carry the recording's own timestamps, whose trigger times are only right against its
// time. (The workload controllers, which a replay does not run, keep the package's epoch.)
func (e *Engine) setEpoch(ns int64) {
	e.epoch = ns
	e.api.triggers = triggerReader{epoch: ns}
}

// Engine is one run in progress. It is not safe for concurrent use; a run has no goroutines.
type Engine struct {
	cfg Config
	now Time
	// epoch is the wall-clock instant (Unix nanoseconds) virtual time 0 stands for in the
	// timestamps the API server stamps and the trigger times kube-proxy reads (setEpoch).
	epoch int64
	// proxyStart is when the kube-proxies' change trackers started: they count only trigger
	// times after it in the programming latency. A run's kube-proxies started before it
	// (every Service is created in the run); a replay's when the recording began, so that a
	// cold start's first syncs, whose trigger is the Service's creation (days before, for
	// a real cluster), count no latency. upstream: pkg/proxy/endpointschangetracker.go
	// EndpointSliceUpdate (t.After(trackerStartTime)).
	proxyStart Time
	q          eventQueue
	events     int64
	// arenas hold the pods' lifecycle events (see eventArena).
	arenas podLifecycleArenas
	// podEvents counts the pod watch events delivered to the controllers.
	podEvents int64
	obs       Observer

	names     *nameGenerator
	ips       *ipAllocator
	placement *placer
	kubelet   *kubeletTiming
	// sched is the scheduler's pods per node and its unschedulable pods.
	sched *scheduler

	// manualIPs counts the addresses of user-written Endpoints handed out so far.
	manualIPs int
	// rolloutStrategy holds, by Service index, the rollout whose maxSurge and
	// maxUnavailable a Service's workload spec holds, for the Services whose last rollout
	// set its own (specStrategy): few, so not a field of every serviceState.
	rolloutStrategy map[int32]*Action
	// served remembers, by Service index, whether kube-proxy serves the Service's object
	// (kubeProxyServesService).
	served []servedMemo
	// podNames and sliceNames hold the names in use, so generated names never collide
	// (within a namespace: a name in another one is no collision).
	podNames   podNameSet
	sliceNames nameHashes
	// replayOwners are the Services' replay owners, by Service index (see replayOwnerOf).
	replayOwners []*replicaSet

	nodes      []*model.Node
	nodeByName map[string]*model.Node
	// nodeNamesUnique is true when no two nodes have the same name (then nodes[i] is
	// nodeByName's node of its name).
	nodeNamesUnique bool
	// nodeNameAffixes are what the node name format puts before and after the index, when
	// it is one %d and nothing else to format (valid when nodeNamesFormatted).
	nodeNamePrefix, nodeNameSuffix string
	nodeNamesFormatted             bool
	nodeDown                       []bool
	// watchMarks holds, for each node down, or back with a kube-proxy still getting
	// through, where its kube-proxies stopped receiving.
	watchMarks map[int]watchMark
	cordoned   []bool
	podsOnNode [][]*podState
	// nodeChanges lists the nodes whose readiness changed, in order, for the DaemonSets'
	// indexes (daemonIndex).
	nodeChanges []int32
	// nodeEpoch counts each node's failures and recoveries (allocated by the first failure).
	nodeEpoch []int
	// nodeLC is the node lifecycle controller (made at the first node failure).
	nodeLC *nodeLifecycle
	// proxyAway says, per mode (modeIndex) and node, that the node's kube-proxy is not
	// watching: its node is down, or back and its retries not through yet (allocated by
	// the first failure); the modes run only. reconnects are the streams of the retries'
	// jitter, per mode run.
	proxyAway  [2][]bool
	reconnects [2]*rand.Rand

	services []*serviceState
	// specByConf is the pod spec fields made last for a Service of each config.
	specByConf map[*ServiceConfig]*model.PodSpecFields

	api  *apiServer
	ctls []*controller // the controllers that run in this mode set, in a fixed order
	// workloads are the Deployment and ReplicaSet controllers and the scheduler's client.
	workloads *workloadControllers
	// kubeProxies are the representative kube-proxies, per mode (modeIndex), and proxyAt
	// the node they stand for (representativeNode). Of a Service whose ready endpoints all
	// have topology hints, they program those hinted for it (kubeProxy.programmed).
	kubeProxies [2]*kubeProxyNode
	// resyncPeriod is the informers' resync period (evInformerResync); 0 when off.
	resyncPeriod Time
	proxyAt      proxyPlace
	stats        *collector

	phase      int
	phaseStart Time
	// nextActs says, per Service, whether the timeline's next phase after this one that is
	// not a wait has an action that may change it (nextActing): it does not become a
	// candidate to settle in this phase (settle.go).
	nextActs []bool
	// phaseEnd is when the last phase's work was done (endPhase), which its end is at
	// least.
	phaseEnd Time

	// replay is set when the run replays a recorded trace instead of a generated workload.
	replay *replayState
	// deadline is the end-time guard: an event later than it stops the run (ErrEndTime).
	deadline Time
	// podVersions is set when the observer records the pod events (PodRecorder): pod
	// updates then carry their resourceVersion, kept here by pod (none while the pod has
	// only been created).
	podVersions map[*podState]string
	// nonRetry counts queued events other than delayed workqueue adds (isBackground).
	nonRetry int
	// cachesSynced is false while the informers are still taking their initial listing:
	// keys are queued but no worker runs yet. A generated run starts with nothing listed
	// (every Service and pod is created by the timeline), so its caches sync at once; a
	// replay syncs them after the recording's initial listing.
	cachesSynced bool
	// namespaces counts the existing Services of each namespace, which a pod queue's
	// mapping lists (podQueue). podGroup is, while a replay applies one recorded pod event
	// with a projection key, that event's number (podGroups counts them), else 0.
	namespaces namespaces
	podGroup   uint64
	podGroups  uint64
	// podQueues are the endpoint controllers' pod queues (makePodQueues).
	podQueues []*podQueue

	// releaseAtEnd makes the run let go of its state once its results need nothing more of
	// it (release): set by Run and Replay, whose callers never see the engine; tests that
	// read the engine after a run leave it unset. allocatedAtStart is heapAllocated when the
	// engine was made.
	releaseAtEnd     bool
	allocatedAtStart uint64
}

// Run executes cfg and returns its results. The same Config (and seed) always gives the same
// Results. obs may be nil. A large run collects the heap once its events are done, before it
// summarises them, so that the summaries do not add to the run's peak memory.
func Run(cfg Config, obs Observer) (*Results, error) {
	e, err := newEngine(cfg, obs)
	if err != nil {
		return nil, err
	}
	e.releaseAtEnd = true
	return e.run()
}

func newEngine(cfg Config, obs Observer) (*Engine, error) {
	if cfg.Cluster.Nodes <= 0 {
		return nil, fmt.Errorf("sim: cluster.nodes must be positive, got %d", cfg.Cluster.Nodes)
	}
	if !cfg.RunEndpoints && !cfg.RunEndpointSlices {
		cfg.RunEndpoints, cfg.RunEndpointSlices = true, true
	}
	if cfg.MaxEvents <= 0 {
		cfg.MaxEvents = 50_000_000
	}
	if cfg.SLO <= 0 {
		cfg.SLO = 30 * time.Second
	}
	if cfg.ControlPlane.MaxEndpointsPerSlice <= 0 {
		cfg.ControlPlane.MaxEndpointsPerSlice = model.DefaultMaxEndpointsPerSlice
	}
	e := &Engine{
		allocatedAtStart: heapAllocated(),
		cfg:              cfg,
		obs:              obs,
		names:            newNameGenerator(cfg.Seed, streamNames),
		nodeByName:       make(map[string]*model.Node, cfg.Cluster.Nodes),
		sliceNames:       nameHashes{},
		cachesSynced:     true,
		epoch:            epoch,
		proxyStart:       math.MinInt64,
	}
	if _, ok := obs.(PodRecorder); ok {
		e.podVersions = map[*podState]string{}
	}
	e.buildNodes()
	e.placement = newPlacer(cfg.Cluster.Nodes, newStream(cfg.Seed, streamPlacement))
	e.sched = newScheduler(cfg.Cluster.Nodes, cfg.Cluster.MaxPodsPerNode)
	for n := range e.nodes {
		e.refreshNode(n)
	}
	e.kubelet = newKubeletTiming(newStream(cfg.Seed, streamKubelet))
	e.buildServices()
	// The pod names set grows to the pods alive at once: about the replicas of every
	// Service. Sized for them up front, it is not rebuilt as it grows.
	pods := 0
	for _, s := range e.services {
		pods += max(s.replicas, 0)
	}
	e.podNames = newPodNameSet(min(pods, 1<<20))
	e.workloads = newWorkloadControllers(e)
	if cfg.KubeProxy.Mode == "" {
		e.cfg.KubeProxy = DefaultKubeProxy(KubeProxyIPTables)
	}
	if cfg.APIServer.Costs == (APIServerCosts{}) {
		e.cfg.APIServer.Costs = DefaultAPIServerCosts()
	}
	for i := range e.kubeProxies {
		e.kubeProxies[i] = newKubeProxyNode(e.cfg.KubeProxy, len(cfg.Timeline), len(e.services), i == modeIndex(ModeEndpoints))
	}
	e.api = newAPIServer(e)
	e.stats = newCollector(e)
	if cfg.RunEndpointSlices {
		e.ctls = append(e.ctls, newController(e, ModeEndpointSlices, cfg.ControlPlane.EndpointSlice, newStream(cfg.Seed, streamEndpointSliceAPI)))
		e.reconnects[modeIndex(ModeEndpointSlices)] = newStream(cfg.Seed, streamReconnectEndpointSlices)
	}
	if cfg.RunEndpoints {
		e.ctls = append(e.ctls, newController(e, ModeEndpoints, cfg.ControlPlane.Endpoints, newStream(cfg.Seed, streamEndpointsAPI)))
		e.reconnects[modeIndex(ModeEndpoints)] = newStream(cfg.Seed, streamReconnectEndpoints)
	}
	e.makePodQueues()
	return e, nil
}

// Node implements model.NodeGetter for the reconcilers. A node's name holds its index
// (the cluster's nodeNameFormat, node-%d by default): when every name is unique, that node
// is tried first, checked by name (the reconcilers look a node up per pod change; the map
// lookup was 2% of a run).
func (e *Engine) Node(name string) (*model.Node, bool) {
	if e.nodeNamesUnique {
		if i, ok := e.nodeIndexOf(name); ok && i < len(e.nodes) && e.nodes[i].Name == name {
			return e.nodes[i], true
		}
	}
	n, ok := e.nodeByName[name]
	return n, ok
}

// nodeIndexOf returns the index a node name holds: between the format's prefix and suffix
// when the names were formatted, else the number it ends with.
func (e *Engine) nodeIndexOf(name string) (int, bool) {
	if !e.nodeNamesFormatted {
		return trailingIndex(name)
	}
	if len(name) <= len(e.nodeNamePrefix)+len(e.nodeNameSuffix) ||
		!strings.HasPrefix(name, e.nodeNamePrefix) || !strings.HasSuffix(name, e.nodeNameSuffix) {
		return 0, false
	}
	return decimal(name[len(e.nodeNamePrefix) : len(name)-len(e.nodeNameSuffix)])
}

// decimal returns the number s is, when s is 1 to 9 decimal digits.
func decimal(s string) (int, bool) {
	if len(s) == 0 || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 {
			return 0, false
		}
		n = n*10 + int(d)
	}
	return n, true
}

// trailingIndex returns the number name ends with (up to 9 digits), if any.
func trailingIndex(name string) (int, bool) {
	i, n, scale := len(name), 0, 1
	for i > 0 && len(name)-i < 9 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
		n += int(name[i]-'0') * scale
		scale *= 10
	}
	return n, i < len(name)
}

func (e *Engine) buildNodes() {
	c := e.cfg.Cluster
	format := c.NodeNameFormat
	if format == "" {
		format = "node-%d"
	}
	zones := c.Zones
	e.nodes = make([]*model.Node, c.Nodes)
	e.nodeDown = make([]bool, c.Nodes)
	e.cordoned = make([]bool, c.Nodes)
	e.podsOnNode = make([][]*podState, c.Nodes)
	for i := range c.Nodes {
		n := &model.Node{
			Name:                fmt.Sprintf(format, i),
			Region:              c.Region,
			AllocatableMilliCPU: c.NodeMilliCPU,
			Ready:               true,
		}
		if len(zones) > 0 {
			n.Zone = zones[i%len(zones)]
		}
		e.nodes[i] = n
		e.nodeByName[n.Name] = n
	}
	e.proxyAt = representativeNode(e.nodes, e.cfg.Timeline)
	e.nodeNamesUnique = len(e.nodeByName) == len(e.nodes)
	if before, after, ok := strings.Cut(format, "%d"); ok && !strings.Contains(before+after, "%") {
		e.nodeNamePrefix, e.nodeNameSuffix, e.nodeNamesFormatted = before, after, true
	}
}

// syncCaches ends the informers' initial listing: every controller's workers start, and
// the first sync of each key sees every object listed.
func (e *Engine) syncCaches() {
	e.cachesSynced = true
	if last := e.startPods(); e.replay != nil {
		e.replay.stats.ListingMappedSeconds = last.Seconds()
	}
	for _, c := range e.ctls {
		c.startWorkers()
	}
}

// schedule queues ev at time at (never in the past).
func (e *Engine) schedule(at Time, ev event) {
	if at < e.now {
		at = e.now
	}
	if !isBackground(ev) {
		e.nonRetry++
	}
	e.q.schedule(at, ev)
}

// quiescent reports whether the current phase's work has settled: nothing is queued but
// background events (isBackground: delayed workqueue adds and the like), no node's pods
// are still to be evicted, and no controller has a change pending, queued or in flight.
// Leftover retries of keys with nothing pending (the escalated backoff of stale syncs) do
// not hold a phase open; they fire later as no-op syncs.
func (e *Engine) quiescent() bool {
	if e.q.Len() == 0 {
		return true
	}
	if e.nonRetry > 0 {
		return false
	}
	if e.nodeLC != nil && (e.nodeLC.evictionsDue > 0 || e.nodeLC.holdsPhase()) {
		return false // a node's pods are still to be evicted (evEvictNode), or a monitor pass has nodes to take
	}
	for _, c := range e.ctls {
		if c.busy() {
			return false
		}
	}
	return true
}

// after queues ev d after now.
func (e *Engine) after(d Time, ev event) { e.schedule(e.now+d, ev) }

// noDeadline is the end-time guard of a run without one (guards.endTime 0), and of a
// replay until its recording ends.
const noDeadline = Time(math.MaxInt64)

// deadlineAfter is the end-time guard of a budget of guards.endTime from start.
func (e *Engine) deadlineAfter(start Time) Time {
	if e.cfg.EndTime <= 0 {
		return noDeadline
	}
	return start + Time(e.cfg.EndTime)
}

// run is the event loop: the only place the clock moves.
func (e *Engine) run() (*Results, error) {
	if len(e.cfg.Timeline) == 0 {
		return nil, errors.New("sim: the timeline is empty; add at least one action")
	}
	// A replay's budget starts when its recording ends (replayState.end): the recording
	// ends however long it is (a day of a cluster is 24 hours and a little), and the guard
	// is for a run that never settles after it.
	e.deadline = e.deadlineAfter(0)
	if e.replay != nil {
		e.deadline = noDeadline
	}
	e.startPhase(0)
	lastReport := Time(-1)
	for {
		if e.quiescent() {
			// The current phase's work and all it caused have settled.
			if !e.endPhase() {
				break
			}
			continue
		}
		it := e.q.pop()
		if !isBackground(it.ev) {
			e.nonRetry--
		}
		if it.at < e.now {
			panic(fmt.Sprintf("sim: time went backwards: %v < %v (%s)", it.at, e.now, it.ev))
		}
		e.now = it.at
		if e.now > e.deadline {
			// Name the limit the user set, not the time of the event that passed it.
			after := ""
			if e.replay != nil {
				after = fmt.Sprintf(" after the recording's end at %v", e.deadline-Time(e.cfg.EndTime))
			}
			return nil, fmt.Errorf("%w: past guards.endTime %v%s in phase %q%s", ErrEndTime, e.cfg.EndTime, after, e.cfg.Timeline[e.phase].Name, e.pendingNote())
		}
		e.events++
		if e.events > e.cfg.MaxEvents {
			return nil, fmt.Errorf("%w: %d events by %v in phase %q%s", ErrEventBudget, e.cfg.MaxEvents, e.now, e.cfg.Timeline[e.phase].Name, e.pendingNote())
		}
		it.ev.apply(e)
		if e.stats.err != nil {
			return nil, e.stats.err
		}
		if e.obs != nil && e.now/Time(time.Second) != lastReport {
			lastReport = e.now / Time(time.Second)
			e.progress()
		}
	}
	c := e.stats
	res := c.finishRun()
	if e.releaseAtEnd {
		e.release()
	}
	res = c.results(res)
	if c.err != nil {
		return nil, c.err
	}
	return res, nil
}

// pendingNote is what a run stopped by a guard adds to its error when pods are Pending for
// want of a node: the likely cause, as the scheduler tries each of them again and again (a
// scenario asking more pods than its nodes take), or "".
func (e *Engine) pendingNote() string {
	n := e.sched.unschedulablePods()
	if n == 0 {
		return ""
	}
	pods := "pods"
	if n == 1 {
		pods = "pod"
	}
	return fmt.Sprintf(", with %d %s Pending, no node ready with room (cluster.nodes %d, cluster.maxPodsPerNode %d)",
		n, pods, len(e.nodes), e.sched.maxPods)
}

// progress reports the virtual time reached to the Observer, and to a PodCounter first the
// pods the run holds.
func (e *Engine) progress() {
	if pc, ok := e.obs.(PodCounter); ok {
		pc.PodsHeld(e.podsHeld())
	}
	e.obs.Progress(e.now, e.phase, len(e.cfg.Timeline))
}

// podsHeld returns how many pods the run holds (PodCounter): the generated ones in the API
// and, of a replay, the recorded ones, whether a Service selects them or not (the pod
// queues map them all).
func (e *Engine) podsHeld() int {
	n := e.podNames.n
	if e.replay != nil {
		n += len(e.replay.byKey)
	}
	return n
}

// releaseCollectMin is the allocation of a run from which release collects the heap: a
// smaller run's heap is not worth a collection.
const releaseCollectMin = 64 << 20

// release lets go of the run's state once its events are done and the collector has taken
// what the results need (collector.finishRun), keeping only what Replay reads afterwards.
// After a run that allocated at least releaseCollectMin it also collects the heap: the state
// is garbage then, and the results' summaries (9 MB for many-services) would otherwise be
// allocated on top of the largest heap of the run, which a large run reaches at its end, as
// garbage piles up until the next collection: many-services' peak RSS was that much higher.
// The collection marks only the results' records, what is left alive.
func (e *Engine) release() {
	allocated := heapAllocated() - e.allocatedAtStart
	var replay *replayState
	if e.replay != nil {
		replay = &replayState{err: e.replay.err, stats: e.replay.stats}
	}
	*e = Engine{replay: replay}
	if allocated >= releaseCollectMin {
		runtime.GC()
	}
}

// heapAllocated returns the bytes the process has allocated on the heap so far.
func heapAllocated() uint64 {
	s := [1]metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s[:])
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
