package sim

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"time"

	"epsim/internal/zeroing"
	"epsim/model"
)

// Controller machinery constants (upstream values).
const (
	// maxRetries is how often a failing key is retried before it is dropped.
	// upstream: endpointslice_controller.go maxRetries; endpoints_controller.go maxRetries.
	maxRetries = 15
	// defaultInformerLag is how long after a committed write the controller's own informer
	// has it, unless the scenario says otherwise. A sync that starts sooner sees a stale
	// cache. An assumption: watch delivery on a healthy control plane takes milliseconds.
	defaultInformerLag = Time(20 * time.Millisecond)
	// defaultEndpointsBuildPerPod is how long the Endpoints controller's syncService takes per
	// pod of the Service to build the address list, before it reads the cached Endpoints:
	// the pod lister's List, the per-pod checks and address, and RepackSubsets' deep hash of
	// each port's sorted address set. Measured (BenchmarkUpstreamEndpointsBuild, CPU time):
	// 9 µs at 1,000 pods, 12 µs at 10,000, on an AMD EPYC core of the development machine.
	defaultEndpointsBuildPerPod = Time(10 * time.Microsecond)
	// defaultEndpointSliceSyncPerPod is how long the EndpointSlice controller's syncService
	// takes per pod of the Service before its first write: the listers, the stale check, the
	// trigger time tracker and k8s.io/endpointslice's Reconcile (a desired endpoint per pod,
	// its node looked up, each one deep-hashed, every stored endpoint hashed and compared).
	// Measured against the Endpoints build, interleaved on the same machine
	// (BenchmarkUpstreamEndpointSliceSync and BenchmarkUpstreamEndpointsBuild, CPU time, three
	// rounds at 1,000 and 10,000 pods): 1.4 to 1.7 times as long, 6.1–8.8 µs against 4.3–6.3;
	// so 1.5 × defaultEndpointsBuildPerPod, the Endpoints figure of the first measurement.
	defaultEndpointSliceSyncPerPod = Time(15 * time.Microsecond)
	// defaultMirroringWorkers is the EndpointSlice mirroring controller's workers when the
	// configuration leaves them out (ControlPlaneConfig.MirroringWorkers 0).
	// upstream: pkg/controller/endpointslicemirroring/config/v1alpha1/defaults.go
	// (MirroringConcurrentServiceEndpointSyncs 5).
	defaultMirroringWorkers = 5
)

// write is one API call a sync wants to make, in the order upstream makes them.
type write struct {
	verb string // "create", "update" or "delete"
	// slice is the EndpointSlice to write (EndpointSlice mode).
	slice *model.EndpointSlice
	// addressType of a slice write, for finalize's stop-at-first-error rule.
	addressType model.AddressType
	// user marks a write the user makes, not the controller (a selector-less Service's
	// Endpoints object): it takes no token of the controller's client.
	user bool
	// legacy marks an Endpoints write (Endpoints mode); the fields after it are what the API
	// server stored, filled in by commit.
	legacy bool
	// selected is proxySelection of the object written, which applied keeps with it: the
	// next write of the object reads it instead of its labels.
	selected bool
	// watched is watcherSelection of an Endpoints object written, kept likewise.
	watched bool
	// endpoints is what the sync decided for an Endpoints write, captured when it ran.
	endpoints *endpointsSnapshot
	uid       string
	created   model.Timestamp
	rvLen     uint8 // of an Endpoints write's resourceVersion
	// lists are the spec fields a slice write's managedFields entry lists, kept with it.
	lists     model.SliceLists
	bytes     model.ByEncoding
	sums      endpointSums // a slice write's
	addresses int
}

// syncer is what differs between the two controllers: which pod changes matter and what a
// sync computes. It wraps the pure model reconcilers.
type syncer interface {
	// serviceAdded prepares per-service state.
	serviceAdded(s *serviceState)
	// podChanged gives the reconciler of p's Service, if it has one, p as it is now (deleted:
	// its removal); old is p's version before (nil for an add). Whether the Service is
	// queued is the pod queue's (podEvent).
	podChanged(p *podState, old *model.Pod, deleted bool)
	// serviceChanged updates the reconciler's view of the Service.
	serviceChanged(s *serviceState)
	// sync computes the writes for s, appended to buf[:0] (a buffer the caller reuses). A
	// non-nil error means the sync must be retried.
	sync(s *serviceState, trigger model.Timestamp, buf []write) ([]write, error)
	// commit turns a write into the object the API server stores (metadata assigned by the
	// API server is set by the caller first) and returns its accounting.
	commit(s *serviceState, w *write, meta apiMeta) committed
	// applied tells the reconciler that w is now stored (ok) or failed.
	applied(s *serviceState, w *write, ok bool)
	// settled tells the syncer that a sync of s ended, its writes (if any) all stored, with
	// nothing queued: its builders may be dropped once that has lasted (settle.go).
	settled(s *serviceState)
	// backoff returns the per-item retry delay of s after n failures.
	backoff(s *serviceState, n int) Time
	// staleGuard reports whether this controller refuses to sync on a stale cache (the
	// EndpointSlice tracker) rather than sending a conflicting write.
	staleGuard() bool
	// takeEvents returns the Events the last sync records about its Service, which the
	// controller sends after the sync's writes, and forgets them.
	takeEvents() model.SyncEvents
}

// apiMeta is what the API server assigns on a write.
type apiMeta struct {
	uid             string
	resourceVersion string
	generation      int64
	created         model.Timestamp
	now             model.Timestamp
}

// keyState is one service's place in a controller's workqueue. There is one per Service and
// controller: the flags sit together (40 bytes, not 80).
type keyState struct {
	delayedAt Time // pending AddAfter deadline (valid when delayed)
	// pendingSince is the earliest change not yet synced (for propagation latency).
	pendingSince Time
	lastCommit   Time
	requeues     uint8 // at most maxRetries
	queued       bool  // in the ready queue
	processing   bool  // a worker holds it
	dirty        bool  // changed while processing: requeue on Done
	delayed      bool
	// synced is false until the first sync (whose trigger is the service creation).
	synced  bool
	pending bool
	// clockless is true while pending stands for no change: a failed sync that carried
	// none (a key queued again by a pod mapping, a node change) left its retry pending, so
	// that the phase waits for it, but pendingSince is no change's time (hasChange).
	clockless bool
	wrote     bool // lastCommit is set
	// replaced is true when the last committed write replaced a stored object (an update
	// that changed it): the version it replaced is what the Endpoints controller's stale
	// tracker remembers.
	replaced bool
	// created is true when the last committed write created the object.
	created bool
	// mirrored is true for a key of the EndpointSlice mirroring controller (a selector-less
	// Service in the EndpointSlice mode): it waits for and runs on that controller's
	// workers (controller.mirror), not this one's.
	mirrored bool
	// readyList is i when controller.readyLists[i-1] holds the Service's pods whose Ready
	// transition changed since its last sync, 0 when none did.
	readyList int32
}

// hasChange reports whether a change is pending, with its time in pendingSince.
func (k *keyState) hasChange() bool { return k.pending && !k.clockless }

// controller is one controller's workqueue, workers and client, on virtual time.
type controller struct {
	e      *Engine
	mode   Mode
	cfg    ControllerConfig
	syncer syncer
	// names draws the names and UIDs of the objects the controller creates, apart from the
	// pods' (Engine.names), so that one mode's writes never change the other's pod names.
	names       *nameGenerator
	keys        []keyState
	pool        workerPool
	bucket      *tokenBucket
	retryBucket *tokenBucket
	// mirror is, in the EndpointSlice mode, the EndpointSlice mirroring controller, which
	// syncs the selector-less Services (keyState.mirrored); nil in the Endpoints mode. It
	// shares this controller's view of the stored slices (the syncer), but not its
	// machinery: its keys wait for its own workers, its writes and Events take its own
	// client's tokens and its failed syncs back off on its own queue.
	mirror  *mirroring
	latency *sampler
	// informerLag: a sync this soon after the key's last committed write finds a stale cache.
	informerLag Time
	// buildPerPod is the Endpoints controller's address-list build time per pod read, and
	// the EndpointSlice controller's sync time per pod before its first write.
	buildPerPod Time
	// readyLists holds, for each Service that has any (keyState.readyList), the pods whose
	// Ready condition's transition time changed, or that were added with one, since the
	// Service's last sync: what the trigger time tracker compares at the next sync
	// (triggerTime), each with its time before the change. A pod may be in a list more
	// than once; its first entry has the time the last sync saw. A list is a Service's only
	// while it has pods, then goes to freeLists: most Services have none most of the time.
	readyLists [][]readyEntry
	freeLists  []int32
	// freeRuns are finished sync runs, kept for reuse with their write buffers: a run
	// makes a run and a write list per sync, and syncs are most of what a run does.
	freeRuns []*syncRun
	// spam holds the spam filters of the Events recorded about each Service (by index)
	// that had any: Warning, then Normal.
	spam map[int32]*[2]eventSpamFilter
}

// workerPool is a workqueue's ready keys and the workers that take them. A controller has
// one; in the EndpointSlice mode the mirroring controller has its own beside it, so that
// neither controller's syncs wait for the other's workers. The dedup state of a key
// (queued, processing, dirty, delayed) is in keyState: a key belongs to one pool for good.
// upstream: client-go util/workqueue queue.go (Get hands a worker the oldest ready key).
type workerPool struct {
	c     *controller
	ready fifo[int] // service indices waiting for a worker
	idle  int       // workers not syncing
	size  int       // the pool's workers
}

// newWorkerPool returns a pool of n workers (at least one), all idle.
func newWorkerPool(c *controller, n int) workerPool {
	n = max(n, 1)
	return workerPool{c: c, idle: n, size: n}
}

// busy reports whether a key waits for a worker of the pool or one is syncing.
func (q *workerPool) busy() bool { return q.ready.len() > 0 || q.idle < q.size }

// mirroring is the EndpointSlice mirroring controller's own machinery: its workers, its
// client (kube-controller-manager's NewClient per controller: its own token bucket) and
// its workqueue's overall retry limiter (10 qps / burst 100, with its per-item backoff
// from sliceSyncer.backoff). Its batch period applies only to EndpointSlice events, which
// the engine does not queue; the Endpoints and Service events it reacts to are plain Adds.
// upstream: cmd/kube-controller-manager/app/discovery.go newEndpointSliceMirroringController
// (esmc.Run with MirroringConcurrentServiceEndpointSyncs workers);
// endpointslicemirroring_controller.go NewController (its queue's rate limiter), Run,
// worker, processNextWorkItem, handleErr.
type mirroring struct {
	pool                workerPool
	bucket, retryBucket *tokenBucket
}

// newRun returns a sync run to fill in (a finished one when there is one).
func (c *controller) newRun() *syncRun { return takeFree(&c.freeRuns) }

// takeFree pops the last entry of a free list, or returns a new zero T when it is empty.
func takeFree[T any](free *[]*T) *T {
	if n := len(*free); n > 0 {
		x := (*free)[n-1]
		(*free)[n-1] = nil
		*free = (*free)[:n-1]
		return x
	}
	return new(T)
}

// freeRun keeps r, which no event refers to any more, for reuse. Its writes are cleared so
// that the buffer holds no objects.
func (c *controller) freeRun(r *syncRun) {
	zeroing.Clear(r.writes)
	*r = syncRun{writes: r.writes[:0]}
	c.freeRuns = append(c.freeRuns, r)
}

// client returns the token bucket of the client that writes for s, and the overall retry
// limiter of the queue that holds its key: the mirroring controller's for a selector-less
// Service in the EndpointSlice mode, this controller's otherwise.
func (c *controller) client(s *serviceState) (bucket, retry *tokenBucket) {
	if c.keys[s.idx].mirrored {
		return c.mirror.bucket, c.mirror.retryBucket
	}
	return c.bucket, c.retryBucket
}

// poolOf returns the workers that take key k: the mirroring controller's for its keys, this
// controller's otherwise.
func (c *controller) poolOf(k *keyState) *workerPool {
	if k.mirrored {
		return &c.mirror.pool
	}
	return &c.pool
}

func newController(e *Engine, mode Mode, cfg ControllerConfig, rng *rand.Rand) *controller {
	c := &controller{
		e:           e,
		mode:        mode,
		cfg:         cfg,
		keys:        make([]keyState, len(e.services)),
		bucket:      newTokenBucket(cfg.QPS, max(cfg.Burst, 1)),
		retryBucket: newTokenBucket(10, 100),
		latency:     newSampler(cfg.APILatency, rng),
		informerLag: Time(e.cfg.ControlPlane.InformerLag),
	}
	c.pool = newWorkerPool(c, cfg.Workers)
	if c.informerLag <= 0 {
		c.informerLag = defaultInformerLag
	}
	c.buildPerPod = Time(e.cfg.ControlPlane.EndpointsBuildPerPod)
	def := defaultEndpointsBuildPerPod
	if mode == ModeEndpointSlices {
		c.buildPerPod, def = Time(e.cfg.ControlPlane.EndpointSliceSyncPerPod), defaultEndpointSliceSyncPerPod
	}
	if c.buildPerPod <= 0 {
		c.buildPerPod = def
	}
	if mode == ModeEndpointSlices {
		y := newSliceSyncer(e)
		c.names, c.syncer = y.names, y
		// The mirroring controller's client has kube-controller-manager's qps and burst,
		// which the scenario gives as the EndpointSlice controller's.
		c.mirror = &mirroring{
			pool:        newWorkerPool(c, cmp.Or(e.cfg.ControlPlane.MirroringWorkers, defaultMirroringWorkers)),
			bucket:      newTokenBucket(cfg.QPS, max(cfg.Burst, 1)),
			retryBucket: newTokenBucket(10, 100),
		}
	} else {
		c.names = newNameGenerator(e.cfg.Seed, streamEndpointsNames)
		c.syncer = newEndpointsSyncer(e)
	}
	return c
}

// modeIndex indexes per-mode state.
func modeIndex(m Mode) int {
	if m == ModeEndpoints {
		return 1
	}
	return 0
}

// serviceAdded is a Service add event. A selector-less Service's key in the EndpointSlice
// mode is the mirroring controller's, which queues it at once (its Service and Endpoints add
// handlers), as the EndpointSlice controller queues the others. (The EndpointSlice
// controller queues a selector-less Service too, and its sync returns at once: not
// modelled, as it writes nothing and takes no time.)
// upstream: endpointslice_controller.go onServiceUpdate (add) and syncService (Selector ==
// nil: return); endpointslicemirroring_controller.go onServiceAdd, onEndpointsAdd.
func (c *controller) serviceAdded(s *serviceState) {
	c.keys[s.idx].mirrored = s.manual != nil && c.mirror != nil
	c.syncer.serviceAdded(s)
	c.markPending(s)
	c.add(s.idx)
}

// serviceObjectUpdated is an update of the Service object itself (serviceUpdated is also
// the user rewriting a selector-less Service's Endpoints object, which the mirroring
// controller watches). Both endpoint controllers queue the Service at once whatever changed;
// but the syncs of a selector-less Service in the EndpointSlice mode are the mirroring
// controller's, which queues it on a Service update only when it gains or loses its
// selector, which no update here does. (The EndpointSlice controller's own sync of it does
// nothing, and is not counted, as at its creation.)
// upstream: endpointslice_controller.go and endpoints_controller.go onServiceUpdate;
// endpointslicemirroring_controller.go onServiceUpdate.
func (c *controller) serviceObjectUpdated(s *serviceState) {
	if c.keys[s.idx].mirrored {
		c.syncer.serviceChanged(s)
		return
	}
	c.serviceUpdated(s)
}

// userWrite is the user writing selector-less Service s's Endpoints object as it is now,
// in the Endpoints mode: a call of its own, sent at once, whatever the controller's workers
// are doing. The Endpoints controller never writes the object (its sync of the Service
// returns at once) and does not queue the Service for the object's update (its Endpoints
// handlers act on deletes only). A change made while a write is in flight is written when
// that one is done. (In the EndpointSlice mode the object is not counted: the mirroring
// controller's sync reads it, queued by its Endpoints handlers, serviceUpdated.)
// upstream: endpoints_controller.go syncService (Selector == nil: return nil),
// onEndpointsDelete.
func (c *controller) userWrite(s *serviceState) {
	y, ok := c.syncer.(*endpointsSyncer)
	if !ok {
		return
	}
	run := c.newRun()
	writes := y.userWrite(s, run.writes)
	if len(writes) == 0 {
		run.writes = writes
		c.freeRun(run)
		return
	}
	*run = syncRun{c: c, s: s, writes: writes, since: c.e.now, user: true}
	run.next(c.e.now)
}

// serviceUpdated is a Service update event: always an immediate Add.
func (c *controller) serviceUpdated(s *serviceState) {
	c.syncer.serviceChanged(s)
	c.markPending(s)
	c.add(s.idx)
}

// podAdded is a pod add event for the controller's reconciler; the engine queues the
// event on the pod queues (Engine.podEvent).
func (c *controller) podAdded(p *podState) {
	if !p.pod.ReadyTransition.IsZero() {
		c.readyChange(p, 0)
	}
	c.syncer.podChanged(p, nil, false)
}

// podUpdated is a pod update event for the controller's reconciler.
func (c *controller) podUpdated(p *podState, old *model.Pod) {
	c.readyUpdated(p, old)
	c.syncer.podChanged(p, old, false)
}

// podDeleted is a pod delete event for the controller's reconciler.
func (c *controller) podDeleted(p *podState) {
	c.syncer.podChanged(p, p.pod, true)
}

// readyUpdated notes an update of p from old for the trigger time tracker: any change of
// the Ready transition time, forward or back (a kubelet restoring the one it kept after its
// node was back), as the next sync compares the time then with the one the last sync saw.
func (c *controller) readyUpdated(p *podState, old *model.Pod) {
	if p.pod.ReadyTransition != old.ReadyTransition {
		c.readyChange(p, old.ReadyTransition)
	}
}

// readyEntry is a pod whose Ready transition time changed since its Service's last sync
// (or that was added with one), and the time it had before (zero for an added pod).
type readyEntry struct {
	p      *podState
	before model.Timestamp
}

// readyChange notes that p's Ready transition time changed from before (or that p was
// added with one, before zero).
func (c *controller) readyChange(p *podState, before model.Timestamp) {
	k := &c.keys[p.svc().idx]
	if k.readyList == 0 {
		if n := len(c.freeLists); n > 0 {
			k.readyList, c.freeLists = c.freeLists[n-1], c.freeLists[:n-1]
		} else {
			c.readyLists = append(c.readyLists, nil)
			k.readyList = int32(len(c.readyLists))
		}
	}
	l := &c.readyLists[k.readyList-1]
	*l = append(*l, readyEntry{p, before})
}

// triggerTime returns the last-change-trigger-time of a sync of s starting now, and moves
// the tracker on: at the Service's first sync, its creation time; after that, the earliest
// Ready transition time among the Service's pods whose transition changed since the last
// sync, as they are now, that are after the ones the last sync saw (zero: none, and the
// writes carry no annotation). As upstream lists the Service's pods at the sync, a pod
// deleted since does not count, a pod whose transition changed twice counts with its last
// time, and a pod whose time went back to where it was (a kubelet restoring the time it
// kept) does not count.
// upstream: k8s.io/endpointslice util/trigger_time_tracker.go
// ComputeEndpointLastChangeTriggerTime (getPodTriggerTime: the Ready condition's
// lastTransitionTime; a pod counts when that is after the one the last sync saw).
func (c *controller) triggerTime(s *serviceState, k *keyState) model.Timestamp {
	var t model.Timestamp
	if i := k.readyList; i != 0 {
		list := c.readyLists[i-1]
		// A pod's first entry has the time the last sync saw; marksTriggerSeen skips the
		// others, and is cleared after.
		for _, r := range list {
			p := r.p
			if p.marks&marksTriggerSeen != 0 {
				continue
			}
			p.setMark(marksTriggerSeen, true)
			if rt := p.pod.ReadyTransition; p.stage != stageGone && rt > r.before && (t == 0 || rt < t) {
				t = rt
			}
		}
		for _, r := range list {
			r.p.setMark(marksTriggerSeen, false)
		}
		zeroing.Clear(list) // keep no pod alive
		if cap(list) > 1024 {
			list = nil // do not keep a big rollout's array for the small changes after it
		}
		c.readyLists[i-1] = list[:0]
		c.freeLists = append(c.freeLists, i)
		k.readyList = 0
	}
	if !k.synced {
		k.synced = true
		return s.svc.CreationTimestamp
	}
	return t
}

// busy reports whether any key has a change pending, is queued or is being processed: by
// this controller's workers or, in the EndpointSlice mode, the mirroring controller's.
func (c *controller) busy() bool {
	if c.pool.busy() || c.mirror != nil && c.mirror.pool.busy() {
		return true
	}
	for i := range c.keys {
		if c.keys[i].pending {
			return true
		}
	}
	return false
}

func (c *controller) markPending(s *serviceState) {
	k := &c.keys[s.idx]
	if !k.pending || k.clockless {
		k.pending, k.clockless = true, false
		k.pendingSince = c.e.now
	}
}

// add is workqueue Add: dedup while queued; mark dirty while processing.
// upstream: client-go util/workqueue/queue.go Add.
func (c *controller) add(i int) {
	k := &c.keys[i]
	if k.processing {
		k.dirty = true
		return
	}
	if k.queued {
		return
	}
	k.queued = true
	q := c.poolOf(k)
	q.ready.push(i)
	if q.idle > 0 && c.e.cachesSynced {
		c.e.after(0, evWorkerStart{q})
	}
}

// startWorkers lets the workers take keys once the informer caches have synced: one start
// per idle worker while keys are ready (later ones follow from done), this controller's
// first, then the mirroring controller's. (The pod workers start first: Engine.startPods.)
// upstream: endpointslice_controller.go, endpoints_controller.go and
// endpointslicemirroring_controller.go Run, cache.WaitForNamedCacheSync before the workers
// start.
func (c *controller) startWorkers() {
	c.pool.start()
	if c.mirror != nil {
		c.mirror.pool.start()
	}
}

// start schedules one worker start per idle worker while keys are ready.
func (q *workerPool) start() {
	for range min(q.idle, q.ready.len()) {
		q.c.e.after(0, evWorkerStart{q})
	}
}

// addAfter is workqueue AddAfter: the earliest deadline wins; d <= 0 adds at once.
// upstream: client-go util/workqueue/delaying_queue.go AddAfter, insert.
func (c *controller) addAfter(i int, d Time) {
	if d <= 0 {
		c.add(i)
		return
	}
	k := &c.keys[i]
	at := c.e.now + d
	if k.delayed && k.delayedAt <= at {
		return
	}
	k.delayed = true
	k.delayedAt = at
	c.e.schedule(at, evDelayedAdd{c, i, at})
}

type evDelayedAdd struct {
	c  *controller
	i  int
	at Time
}

// isBackground reports whether ev does not hold a phase open (Engine.quiescent): a delayed
// workqueue add, which at the end of a phase only reruns a sync that has nothing to do. (A
// switch on concrete types: the event loop asks it twice per event.)
func isBackground(ev event) bool {
	switch ev.(type) {
	case evDelayedAdd, evDeploymentRetry, evInformerResync, evNodeJoin, evServiceCreate, evEventWritten, evEvictNode, evTaintGot, evUnschedulableFlush,
		evMonitorPass, evLeaseRechecked:
		return true
	}
	return false
}

func (ev evDelayedAdd) String() string { return fmt.Sprintf("%s add service %d", ev.c.mode, ev.i) }
func (ev evDelayedAdd) apply(e *Engine) {
	k := &ev.c.keys[ev.i]
	if !k.delayed || k.delayedAt != ev.at {
		return // superseded by an earlier deadline
	}
	k.delayed = false
	ev.c.add(ev.i)
}

// evWorkerStart lets an idle worker of a pool take its next key. (It holds the pool alone,
// a pointer: the event is queued without an allocation.)
type evWorkerStart struct{ q *workerPool }

func (ev evWorkerStart) String() string {
	if ev.q != &ev.q.c.pool {
		return string(ev.q.c.mode) + " mirroring worker start"
	}
	return string(ev.q.c.mode) + " worker start"
}

func (ev evWorkerStart) apply(e *Engine) {
	q := ev.q
	if q.idle == 0 || q.ready.len() == 0 {
		return
	}
	i := q.ready.items()[0]
	q.ready.drop(1)
	c := q.c
	k := &c.keys[i]
	k.queued = false
	k.processing = true
	q.idle--
	c.startSync(e.services[i])
}

// startSync runs one sync of s: the reconciler's plan, then its writes one after another
// through the client's token bucket, each taking one API latency. The EndpointSlice
// controller checks its cache first, then lists the Service's pods and reconciles them,
// which takes buildPerPod per pod before the first write (or the end of a sync that writes
// nothing): the plan is of the pods as listed, and changes meanwhile wait for the next sync.
// upstream: endpointslice_controller.go syncService (StaleSlices before
// ComputeEndpointLastChangeTriggerTime and Reconcile).
func (c *controller) startSync(s *serviceState) {
	e := c.e
	k := &c.keys[s.idx]
	e.stats.sync(c.mode)
	if c.mode == ModeEndpoints {
		c.startEndpointsSync(s, k)
		return
	}
	if k.wrote && e.now < k.lastCommit+c.informerLag && c.syncer.staleGuard() {
		// upstream: endpointslice_controller.go syncService → StaleSlices → a
		// StaleInformerCache error, retried with backoff.
		e.stats.stale(c.mode)
		c.done(s, true, k.hasChange())
		return
	}
	trigger := c.triggerTime(s, k)
	// The reconcile works on the pods as listed now and writes when it is done.
	built := e.now + c.buildPerPod*Time(s.podCount())
	since, had := k.pendingSince, k.hasChange()
	k.pending, k.clockless = false, false
	run := c.newRun()
	writes, err := c.syncer.sync(s, trigger, run.writes)
	events := c.syncer.takeEvents()
	if s.manual != nil {
		// The mirroring controller's Events are recorded before its writes.
		c.sendEvents(s, events, e.now)
		events = model.SyncEvents{}
	}
	if err != nil {
		// FailedToUpdateEndpointSlices: the sync's error (endpoints of pods on unknown
		// nodes skipped), recorded after its writes. upstream: syncService.
		events.Warning++
	}
	run.writes = writes
	if len(writes) == 0 {
		if built == e.now {
			c.freeRun(run)
			c.sendEvents(s, events, e.now)
			c.done(s, err != nil, had)
			return
		}
		run.c, run.s, run.failed, run.events, run.carried = c, s, err != nil, events, had
		e.schedule(built, evSyncDone{run})
		return
	}
	if !had {
		since = e.now
	}
	*run = syncRun{c: c, s: s, writes: writes, since: since, failed: err != nil, events: events, carried: had}
	run.writeFrom(built)
}

// sendEvents sends the Events a sync of s recorded, at t after its writes: the event
// broadcaster writes each through the controller's own client, taking a token of its
// bucket, unless the recorder's spam filter for the object and the Event's type drops it
// (the EndpointSlice controller's Events are about the Service, the Endpoints
// controller's about the Endpoints object).
// upstream: reconciler.go reconcileByAddressType (eventRecorder.Event after finalize);
// endpointslice_controller.go NewController (StartRecordingToSink on the controller's
// client); client-go tools/record/events_cache.go EventSourceObjectSpamFilter.
func (c *controller) sendEvents(s *serviceState, ev model.SyncEvents, t Time) {
	if ev == (model.SyncEvents{}) {
		return
	}
	if c.spam == nil {
		c.spam = map[int32]*[2]eventSpamFilter{}
	}
	f := c.spam[int32(s.idx)]
	if f == nil {
		f = new([2]eventSpamFilter)
		c.spam[int32(s.idx)] = f
	}
	bucket, _ := c.client(s)
	for range ev.Warning {
		if f[0].allow(t) {
			bucket.reserveLater(t)
		}
	}
	for range ev.Normal {
		if f[1].allow(t) {
			bucket.reserveLater(t)
		}
	}
}

// startEndpointsSync is the Endpoints controller's sync, in upstream's order: list the pods,
// compute the trigger time (the tracker's state moves even when the sync then fails), build
// the address list — which takes buildPerPod per pod read —, and only then read the cached
// Endpoints. The cache is stale only when it still holds exactly the version this controller
// replaced by its last update (the stale tracker remembers that resourceVersion); the sync
// then fails and is retried with backoff. A cache that does not have the object the last
// write created yet makes the sync create it again, which fails too. Its writes start when
// the list is built.
// upstream: endpoints_controller.go syncService; endpoints_tracker.go staleEndpointsTracker
// (Stale on an update that changed the resourceVersion, IsStale on an equal one).
func (c *controller) startEndpointsSync(s *serviceState, k *keyState) {
	e := c.e
	trigger := c.triggerTime(s, k)
	built := e.now + c.buildPerPod*Time(s.podCount())
	if s.manual != nil {
		// A selector-less Service: the controller returns before it reads the Endpoints
		// lister, and the writes of the object are the user's, which its stale tracker never
		// saw. upstream: endpoints_controller.go syncService (Selector == nil: return nil).
		built = e.now
	} else if k.replaced && built < k.lastCommit+c.informerLag {
		e.stats.stale(c.mode)
		c.syncDone(built, s, true, k.hasChange())
		return
	} else if k.created && built < k.lastCommit+c.informerLag {
		// The lister has no Endpoints yet, so the sync creates it again and the API server
		// refuses (409 AlreadyExists): one call of the client, then the error's backoff.
		// upstream: endpoints_controller.go syncService (createEndpoints when the lister
		// finds none; the Create's error returned).
		e.stats.stale(c.mode)
		run := c.newRun()
		run.c, run.s, run.failed, run.carried = c, s, true, k.hasChange()
		e.schedule(built, evCreateRefused{run})
		return
	}
	since, had := k.pendingSince, k.hasChange()
	k.pending, k.clockless = false, false
	run := c.newRun()
	writes, err := c.syncer.sync(s, trigger, run.writes)
	run.writes = writes
	if len(writes) == 0 {
		run.c, run.s, run.failed, run.carried = c, s, err != nil, had
		e.schedule(built, evSyncDone{run})
		return
	}
	if !had {
		since = e.now
	}
	*run = syncRun{c: c, s: s, writes: writes, since: since, failed: err != nil, carried: had}
	run.writeFrom(built)
}

// evCreateRefused is an Endpoints sync, its address list built, creating the object its
// stale cache does not have yet: the call takes a token, the API server refuses it, and the
// sync ends with the FailedToCreateEndpoint Warning Event about the Endpoints object.
// upstream: endpoints_controller.go syncService (eventRecorder.Eventf on an error).
type evCreateRefused struct{ r *syncRun }

func (ev evCreateRefused) String() string { return string(ev.r.c.mode) + " create refused" }
func (ev evCreateRefused) apply(e *Engine) {
	c := ev.r.c
	ev.r.events = model.SyncEvents{Warning: 1}
	e.schedule(c.bucket.reserve(e.now)+c.latency.sample(), evSyncDone{ev.r})
}

// syncDone ends a sync of s that wrote nothing at time at (carried: see syncRun).
func (c *controller) syncDone(at Time, s *serviceState, failed, carried bool) {
	run := c.newRun()
	run.c, run.s, run.failed, run.carried = c, s, failed, carried
	c.e.schedule(at, evSyncDone{run})
}

// evSyncDone ends a sync that wrote nothing, once its work took its time. It holds a run
// with no writes (a pointer: the event is queued without an allocation).
type evSyncDone struct{ r *syncRun }

func (ev evSyncDone) String() string { return string(ev.r.c.mode) + " sync done" }
func (ev evSyncDone) apply(e *Engine) {
	c, s, failed, events, carried := ev.r.c, ev.r.s, ev.r.failed, ev.r.events, ev.r.carried
	c.freeRun(ev.r)
	c.sendEvents(s, events, e.now)
	c.done(s, failed, carried)
}

// syncRun is a sync's writes in flight.
type syncRun struct {
	c      *controller
	s      *serviceState
	writes []write
	i      int
	since  Time
	failed bool
	// carried is true when the sync took a pending change (keyState.hasChange) with it: if
	// it fails, the change is pending again (done). A sync with none (a key queued again
	// by an event that changed nothing it shows) that fails leaves its retry pending
	// without a change's clock (keyState.clockless).
	carried bool
	// stopType is an address type whose finalize stopped at an error.
	stopType model.AddressType
	// events are the Events the sync records once its writes are done.
	events model.SyncEvents
	// user says the run is the user's write of a selector-less Service's Endpoints object
	// (userWrite), made by no sync.
	user bool
}

// writeFrom starts the run's writes once its sync has built them, at t: the first asks the
// client for its token then, after the requests other workers made meanwhile. When no event
// comes before t, no request can either: it asks now for t, which is the same, without an
// event.
func (r *syncRun) writeFrom(t Time) {
	if t == r.c.e.now || r.c.e.q.noneBefore(t) {
		r.next(t)
		return
	}
	r.c.e.schedule(t, evSyncBuilt{r})
}

// evSyncBuilt is a sync's reconcile (or list) done: its writes start.
type evSyncBuilt struct{ r *syncRun }

func (ev evSyncBuilt) String() string  { return string(ev.r.c.mode) + " sync built" }
func (ev evSyncBuilt) apply(e *Engine) { ev.r.next(e.now) }

// next sends the next write at or after t (the clock, or a time before which nothing
// happens: writeFrom), waiting for a token.
func (r *syncRun) next(t Time) {
	for r.i < len(r.writes) && r.stopType != "" && r.writes[r.i].addressType == r.stopType {
		r.c.syncer.applied(r.s, &r.writes[r.i], false)
		r.i++
	}
	if r.i >= len(r.writes) {
		// The run is over: no event refers to it any more.
		c, s, failed, events, user, carried := r.c, r.s, r.failed, r.events, r.user, r.carried
		c.freeRun(r)
		if user {
			if !failed {
				c.userWrite(s) // the object changed again meanwhile
			}
			return // (refused, the user's object waits for its next change)
		}
		c.sendEvents(s, events, t)
		c.done(s, failed, carried)
		return
	}
	send := t
	if !r.writes[r.i].user {
		bucket, _ := r.c.client(r.s)
		send = bucket.reserve(t)
	}
	r.c.e.schedule(send+r.c.latency.sample(), evWriteCommit{r})
}

// evWriteCommit is the API server committing (or refusing) one write and answering.
type evWriteCommit struct{ r *syncRun }

func (ev evWriteCommit) String() string { return string(ev.r.c.mode) + " write commit" }
func (ev evWriteCommit) apply(e *Engine) {
	r := ev.r
	w := &r.writes[r.i]
	outcome := e.api.commit(r.c, r.s, w, r.since)
	ok := outcome != writeFailed
	r.c.syncer.applied(r.s, w, ok)
	if outcome == writeCommitted {
		// Only a stored change gives the informer something to catch up with.
		r.c.keys[r.s.idx].lastCommit = e.now
		r.c.keys[r.s.idx].wrote = true
		r.c.keys[r.s.idx].replaced = w.verb == "update"
		r.c.keys[r.s.idx].created = w.verb == "create"
	}
	if !ok {
		if !r.failed && !r.user {
			// The sync's error: FailedToUpdateEndpointSlices about the Service, or
			// FailedToCreateEndpoint/FailedToUpdateEndpoint about the Endpoints object.
			// upstream: endpointslice_controller.go syncService; endpoints_controller.go
			// syncService.
			r.events.Warning++
		}
		r.failed = true
		r.stopType = w.addressType
		if w.legacy {
			r.stopType = "legacy"
		}
	}
	r.i++
	r.next(e.now)
}

// done is workqueue Done plus handleErr: requeue a dirty key, retry a failed one with backoff.
func (c *controller) done(s *serviceState, failed, carried bool) {
	e := c.e
	k := &c.keys[s.idx]
	k.processing = false
	q := c.poolOf(k)
	q.idle++
	switch {
	case failed && k.requeues < maxRetries:
		k.requeues++
		_, retry := c.client(s)
		d := max(c.syncer.backoff(s, int(k.requeues)), retry.reserve(e.now)-e.now)
		if carried {
			c.markPending(s)
		} else if !k.pending {
			k.pending, k.clockless = true, true
		}
		c.addAfter(s.idx, d)
	case failed:
		// Dropped after maxRetries, as upstream (queue.Forget): the next event re-adds it.
		k.requeues = 0
		k.pending, k.clockless = false, false
	default:
		k.requeues = 0
		if !k.dirty && !k.pending {
			c.syncer.settled(s)
		}
	}
	if k.dirty {
		k.dirty = false
		c.add(s.idx)
	}
	if q.ready.len() > 0 {
		e.after(0, evWorkerStart{q})
	}
}

// exponentialBackoff is client-go's ItemExponentialFailureRateLimiter delay for the n-th failure.
func exponentialBackoff(base, limit Time, n int) Time {
	d := base
	for i := 1; i < n; i++ {
		d *= 2
		if d >= limit {
			return limit
		}
	}
	return min(d, limit)
}

// evInformerResync is the periodic resync of kube-controller-manager's shared informers:
// every object in their caches reaches the event handlers again, as an update to itself.
// Both endpoint controllers queue every Service (their Service update handlers queue any
// update); their pod handlers drop the pods' (the same resourceVersion). The Deployment,
// ReplicaSet, StatefulSet and DaemonSet controllers queue every object of theirs. The
// syncs find nothing to write when nothing changed, but they hold the workers. In a replay
// the EndpointSlice controller also queues, a second later, each Service with a slice it
// found at the start and has not written since (queueUntracked). It does not hold a phase
// open; the next follows a period later.
// upstream: cmd/kube-controller-manager/app/controllermanager.go ResyncPeriod;
// client-go tools/cache shared_informer.go (resync: OnUpdate(obj, obj));
// endpointslice_controller.go onServiceUpdate, endpoints_controller.go onServiceUpdate;
// deployment_controller.go updateDeployment; replica_set.go updateRS;
// stateful_set.go updateStatefulSet; daemon_controller.go updateDaemonset.
type evInformerResync struct{}

func (evInformerResync) String() string { return "informer resync" }
func (evInformerResync) apply(e *Engine) {
	for _, c := range e.ctls {
		for _, s := range e.services {
			if s.created {
				c.add(s.idx)
			}
		}
	}
	e.queueUntracked(false) // the slice informer's updates of the slices the controller never wrote
	if e.replay == nil {
		w := e.workloads
		for _, s := range e.services {
			if !s.created || s.manual != nil {
				continue
			}
			if w.setFor(s) != nil {
				w.enqueueSet(s)
				continue
			}
			w.dcQueue.add(s)
			if s.newRSCreated {
				w.rsQueue.add(s.newRS)
			}
			for _, o := range s.oldRSs {
				w.rsQueue.add(o)
			}
		}
		w.kick()
	}
	e.schedule(e.now+e.resyncPeriod, evInformerResync{})
}
