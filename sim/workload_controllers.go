package sim

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"epsim/model"
)

// The workload controllers that make the pod churn the endpoint controllers react to: the
// Deployment controller, which creates and scales ReplicaSets, and the ReplicaSet
// controller, which creates and deletes pods. Each has its own workqueue, workers and
// client token bucket, as in kube-controller-manager, so a rollout goes at their pace: a
// ReplicaSet sync creates at most burstReplicas pods, in slow-start batches of 1, 2, 4…,
// each pod create one call through the controller's 20 qps bucket, and the next sync of the
// same ReplicaSet waits until every create and delete it expects has been observed.
// upstream: pkg/controller/replicaset/replica_set.go (syncReplicaSet, manageReplicas,
// slowStartBatch), pkg/controller/deployment (sync.go, rolling.go), controller_utils.go
// (ControllerExpectations).

// Upstream constants of the workload controllers.
const (
	// defaultBurstReplicas caps the creates or deletes of one ReplicaSet sync.
	// upstream: pkg/controller/replicaset/replica_set.go BurstReplicas.
	defaultBurstReplicas = 500
	// slowStartInitialBatchSize is the first batch of a sync's creates; each next batch
	// doubles. upstream: pkg/controller/controller_utils.go SlowStartInitialBatchSize.
	slowStartInitialBatchSize = 1
	// workloadRetryBase and workloadRetryMax are the per-item exponential backoff of
	// workqueue.DefaultTypedControllerRateLimiter (5 ms doubling to 1000 s).
	workloadRetryBase = Time(5 * time.Millisecond)
	workloadRetryMax  = Time(1000 * time.Second)
)

// replicaSet is one ReplicaSet of a Deployment (or the counters of a StatefulSet's or
// DaemonSet's pods, and the revisions that name them: see setState.revision).
type replicaSet struct {
	svc  *serviceState
	hash string // pod-template-hash of the pods it creates
	// created is metadata.creationTimestamp, which orders a Deployment's ReplicaSets (its
	// name, the Deployment's and the hash, on a tie).
	created model.Timestamp
	// spec is spec.replicas as stored (what the ReplicaSet controller works towards).
	spec int32
	// live counts its pods that are not terminating; available those that are also
	// available (Ready for minReadySeconds).
	live, available int32
	// expectCreates and expectDeletes are the ControllerExpectations still outstanding: a
	// sync manages replicas only when both are 0.
	expectCreates, expectDeletes int32
	// ready counts its live pods that are Ready; terminating its deleted pods whose
	// containers have not stopped (a deletionTimestamp and a phase that is not terminal).
	ready, terminating int32
	// generation is metadata.generation, which every change of its spec moves on.
	generation int32
	// status is its status as last written: what the Deployment controller sees.
	status rsStatus
	// desired and maxReplicas are the deployment.kubernetes.io/desired-replicas and
	// max-replicas annotations: the Deployment's replicas, and replicas + maxSurge, when the
	// Deployment controller last wrote this ReplicaSet. An active ReplicaSet annotated with
	// other replicas than the Deployment's marks a scaling event.
	// upstream: deployment/util/deployment_util.go SetReplicasAnnotations.
	desired, maxReplicas int32
	// events is the spam filter of the Events recorded about it (a pod created or deleted).
	events eventSpamFilter
	item   workItem
	// version stands for metadata.resourceVersion, modulo 256: every write of the object
	// moves it on (the Deployment controller's, and its own controller's status writes). A
	// write carrying an older version fails with a conflict.
	version uint8
	// changes counts the pod changes that alter a StatefulSet's or DaemonSet's status (a
	// set's counters; see setSync), modulo 2^32: a sync compares it with what it last
	// wrote, and it shares a word with item.
	changes uint32
	// rare holds what few ReplicaSets need, made on first need: see rsRare.
	rare *rsRare
}

// rsRare is what few ReplicaSets need: kept apart, it costs the others a pointer (a
// ReplicaSet is 128 bytes instead of 160; a run keeps one or two a Service).
type rsRare struct {
	// merged is the ReplicaSet that counts a StatefulSet's or DaemonSet's revision's pods;
	// nil for a Deployment's ReplicaSets, each of which counts its own.
	merged *replicaSet
	// warnings is the spam filter of its Warning Events (a pod create failed), a type of
	// their own.
	warnings eventSpamFilter
	// failures is the per-item retry count of the workqueue rate limiter.
	failures int
	// setPods counts a StatefulSet's or DaemonSet's pods of this revision not yet gone
	// (terminating ones too): the revision is live while it has any (setState.revisions).
	setPods int32
	// replay marks a Service's replay owner (see replayOwnerOf), which is no ReplicaSet.
	replay bool
	// victims ranks its pods for scale-downs of a few pods (victimIndex), once it has been
	// scaled down a few at a time fewScaleDowns times in a row (victimsIndexAfter).
	victims       *victimIndex
	fewScaleDowns int32
	// cands lists its live pods for the rankings of scale-downs of many (victimCands),
	// once it has had manyScaleDowns of them (victimsCandsAfter).
	cands          *victimCands
	manyScaleDowns int32
	// With minReadySeconds, a sync in progress (listing) counts the pods it listed ready,
	// not yet available, that became available since (late): its status, computed after
	// the sync's calls, counts them. listedSecond is the whole second the sync listed its
	// pods in: a pod that turned ready in it or before is taken as listed ready (the sync
	// often begins at the instant a pod turns ready, as that queues it); the status counts
	// no more of them than it listed ready and not available.
	listing      bool
	listedSecond model.Timestamp
	late         int32
}

// replayOwner reports whether rs is a Service's replay owner (see replayOwnerOf).
func (rs *replicaSet) replayOwner() bool { return rs.rare != nil && rs.rare.replay }

// rareFields returns rs.rare, made now if need be.
func (rs *replicaSet) rareFields() *rsRare {
	if rs.rare == nil {
		rs.rare = new(rsRare)
	}
	return rs.rare
}

// resolve follows merges to the ReplicaSet that counts rs's pods.
func (rs *replicaSet) resolve() *replicaSet {
	for rs.rare != nil && rs.rare.merged != nil {
		rs = rs.rare.merged
	}
	return rs
}

// compareCreation is upstream's ReplicaSetsByCreationTimestamp order, older first: by
// creation time, then by name (the Deployment's name and the hash).
func compareCreation(a, b *replicaSet) int {
	return cmp.Or(cmp.Compare(a.created, b.created), cmp.Compare(a.hash, b.hash))
}

// addOldRS adds rs, which a new template made old, to s's old ReplicaSets in creation order.
func (s *serviceState) addOldRS(rs *replicaSet) {
	i := len(s.oldRSs)
	for i > 0 && compareCreation(rs, s.oldRSs[i-1]) < 0 {
		i--
	}
	s.oldRSs = slices.Insert(s.oldRSs, i, rs)
}

// pruneOldRSs drops the old ReplicaSets that can no longer matter: scaled to 0, with no pod,
// no status and no sync or call in progress (idle). The newest old one stays (a scaling
// event with no active ReplicaSet and no new one scales it: FindActiveOrLatest). Upstream
// keeps them for the revision history, until the Deployment controller deletes those past
// revisionHistoryLimit: each dropped one is counted in s.retiredRSs until then
// (deploymentPlan.cleanup). It runs at the start of a Deployment sync, when none of the
// Deployment's calls is in flight.
func (s *serviceState) pruneOldRSs() {
	if len(s.oldRSs) < 2 {
		return
	}
	newest := s.oldRSs[len(s.oldRSs)-1]
	s.oldRSs = slices.DeleteFunc(s.oldRSs, func(o *replicaSet) bool {
		gone := o != newest && o.idle()
		if gone {
			o.dropVictimIndex()
			o.dropVictimCands()
			if s.retiredRSs < math.MaxUint16 {
				s.retiredRSs++
			}
		}
		return gone
	})
}

// idle reports whether rs is at 0 and still: no spec, no pod, no status, no sync or call
// in progress. Its controller has written its status since its last change, so
// status.observedGeneration is its generation.
func (rs *replicaSet) idle() bool {
	return rs.spec == 0 && rs.live == 0 && rs.terminating == 0 && rs.status.live == 0 && rs.status.terminating == 0 &&
		rs.expectCreates == 0 && rs.expectDeletes == 0 && !rs.item.queued && !rs.item.processing
}

// workItem is one key's place in a workload controller's workqueue.
type workItem struct {
	queued, processing, dirty bool
}

// workQueue is client-go's workqueue as the workload controllers use it: a key is queued
// once however often it is added; a key being processed is never handed to a second worker;
// a key added while processed is queued again when its worker is done.
// upstream: client-go util/workqueue/queue.go (Add, Get, Done).
type workQueue[T any] struct {
	ready fifo[T]
	idle  int
	item  func(T) *workItem
}

func (q *workQueue[T]) add(x T) {
	it := q.item(x)
	switch {
	case it.processing:
		it.dirty = true
	case !it.queued:
		it.queued = true
		q.ready.push(x)
	}
}

// next hands the first queued key to an idle worker.
func (q *workQueue[T]) next() (T, bool) {
	var zero T
	if q.idle == 0 || q.ready.len() == 0 {
		return zero, false
	}
	x := q.ready.items()[0]
	q.ready.drop(1)
	it := q.item(x)
	it.queued, it.processing = false, true
	q.idle--
	return x, true
}

// done frees x's worker and queues x again if it changed meanwhile.
func (q *workQueue[T]) done(x T) {
	it := q.item(x)
	it.processing = false
	q.idle++
	if it.dirty {
		it.dirty = false
		q.add(x)
	}
}

// workloadControllers holds the Deployment and ReplicaSet controllers and the scheduler's
// client.
type workloadControllers struct {
	e             *Engine
	cfg           WorkloadsConfig
	burstReplicas int
	rsQueue       workQueue[*replicaSet]
	dcQueue       workQueue[*serviceState]
	rsBucket      *tokenBucket
	dcBucket      *tokenBucket
	scheduler     *tokenBucket
	rsLatency     *sampler
	dcLatency     *sampler
	// rsRetries and dcRetries are the overall buckets of the two workqueues' rate limiters
	// (10 qps, burst 100), which a retry waits for as well as its own backoff.
	// upstream: client-go workqueue DefaultTypedControllerRateLimiter.
	rsRetries, dcRetries *tokenBucket
	// freeRSCalls and freeDCCalls are the payloads of settled calls, kept for reuse: the
	// events of a sync's calls hold one (a pointer, queued without an allocation).
	freeRSCalls []*rsCall
	freeDCCalls []*dcCall
	// statefulSets and daemonSets are the StatefulSet and DaemonSet controllers.
	statefulSets, daemonSets *setController
	// failRoll draws pod create failures; nil when the failure rate is 0.
	failRoll func() bool
	// starting is true while an evWorkloadWorkers is queued.
	starting bool
	// victims is the scale-down ranking's memory.
	victims victimScratch
	// daemonServices lists the DaemonSets (made on the first node change).
	daemonServices []*serviceState
}

func newWorkloadControllers(e *Engine) *workloadControllers {
	cfg := e.cfg.ControlPlane.Workloads
	rng := newStream(e.cfg.Seed, streamWorkload)
	w := &workloadControllers{
		e:             e,
		cfg:           cfg,
		burstReplicas: cfg.BurstReplicas,
		rsBucket:      newTokenBucket(cfg.ReplicaSet.QPS, max(cfg.ReplicaSet.Burst, 1)),
		dcBucket:      newTokenBucket(cfg.Deployment.QPS, max(cfg.Deployment.Burst, 1)),
		scheduler:     newTokenBucket(cfg.SchedulerQPS, max(cfg.SchedulerBurst, 1)),
		rsLatency:     newSampler(cfg.ReplicaSet.APILatency, rng),
		dcLatency:     newSampler(cfg.Deployment.APILatency, rng),
		rsRetries:     newTokenBucket(10, 100),
		dcRetries:     newTokenBucket(10, 100),
	}
	w.statefulSets = newSetController(KindStatefulSet, cfg.StatefulSet, cfg.StatefulSet.Workers, newSampler(cfg.StatefulSet.APILatency, rng))
	w.daemonSets = newSetController(KindDaemonSet, cfg.DaemonSet, cfg.DaemonSet.Workers, newSampler(cfg.DaemonSet.APILatency, rng))
	if w.burstReplicas <= 0 {
		w.burstReplicas = defaultBurstReplicas
	}
	w.rsQueue = workQueue[*replicaSet]{idle: max(cfg.ReplicaSet.Workers, 1), item: func(rs *replicaSet) *workItem { return &rs.item }}
	w.dcQueue = workQueue[*serviceState]{idle: max(cfg.Deployment.Workers, 1), item: func(s *serviceState) *workItem { return &s.dcItem }}
	if p := cfg.PodCreateFailureRate; p > 0 {
		w.failRoll = func() bool { return rng.Float64() < p }
	}
	return w
}

// enqueueRS adds rs to the ReplicaSet controller's queue.
func (w *workloadControllers) enqueueRS(rs *replicaSet) {
	if rs == nil {
		return
	}
	w.rsQueue.add(rs)
	w.kick()
}

// enqueueDeployment adds s's Deployment to the Deployment controller's queue.
func (w *workloadControllers) enqueueDeployment(s *serviceState) {
	w.dcQueue.add(s)
	w.kick()
}

// kick makes idle workers take queued keys at the current instant.
func (w *workloadControllers) kick() {
	if w.starting {
		return
	}
	if w.rsQueue.idle > 0 && w.rsQueue.ready.len() > 0 || w.dcQueue.idle > 0 && w.dcQueue.ready.len() > 0 ||
		w.statefulSets.queue.idle > 0 && w.statefulSets.queue.ready.len() > 0 ||
		w.daemonSets.queue.idle > 0 && w.daemonSets.queue.ready.len() > 0 {
		w.starting = true
		w.e.after(0, evWorkloadWorkers{})
	}
}

// evWorkloadWorkers lets idle workers of both controllers take queued keys.
type evWorkloadWorkers struct{}

func (evWorkloadWorkers) String() string { return "workload workers start" }
func (evWorkloadWorkers) apply(e *Engine) {
	w := e.workloads
	w.starting = false
	for {
		s, ok := w.dcQueue.next()
		if !ok {
			break
		}
		w.syncDeployment(s)
	}
	for {
		rs, ok := w.rsQueue.next()
		if !ok {
			break
		}
		w.syncReplicaSet(rs)
	}
	for _, c := range []*setController{w.statefulSets, w.daemonSets} {
		for {
			s, ok := c.queue.next()
			if !ok {
				break
			}
			w.syncSet(c, s)
		}
	}
}

// rsDone ends a ReplicaSet sync; failed syncs are retried with the per-item backoff.
func (w *workloadControllers) rsDone(rs *replicaSet, failed bool) {
	w.rsQueue.done(rs)
	if failed {
		r := rs.rareFields()
		r.failures++
		e := w.e
		e.after(max(exponentialBackoff(workloadRetryBase, workloadRetryMax, r.failures), w.rsRetries.reserve(e.now)-e.now), evRSRetry{rs})
	} else if rs.rare != nil {
		rs.rare.failures = 0
	}
	w.kick()
}

// evRSRetry is the workqueue's AddRateLimited firing.
type evRSRetry struct{ rs *replicaSet }

func (ev evRSRetry) String() string  { return "replicaset retry " + ev.rs.hash }
func (ev evRSRetry) apply(e *Engine) { e.workloads.enqueueRS(ev.rs) }

// syncReplicaSet is one sync of a ReplicaSet: when its expectations are satisfied it creates
// or deletes pods towards spec.replicas, then it writes its status if the pods changed.
// upstream: replica_set.go syncReplicaSet, manageReplicas.
func (w *workloadControllers) syncReplicaSet(rs *replicaSet) {
	e := w.e
	s := rs.svc
	// The status is computed from the pods listed at the start of the sync.
	st := rsStatus{live: rs.live, ready: rs.ready, available: rs.available, terminating: rs.terminating, generation: rs.generation}
	c := rsCall{rs: rs, st: st, version: rs.version}
	if s.cfg != nil && s.cfg.MinReady > 0 {
		r := rs.rareFields()
		r.listing, r.listedSecond, r.late = true, timestamp(e.now), 0
	}
	if rs.expectCreates == 0 && rs.expectDeletes == 0 && s.created {
		switch diff := int(rs.live - rs.spec); {
		case diff < 0:
			n := min(-diff, w.burstReplicas)
			if replicaSetPlanCheck != nil {
				replicaSetPlanCheck(e, rs, st, n, nil)
			}
			rs.expectCreates += int32(n)
			w.createBatch(c, n, min(n, slowStartInitialBatchSize))
			return
		case diff > 0:
			n := min(diff, w.burstReplicas)
			victims := w.pickVictims(rs, n, e.now)
			if replicaSetPlanCheck != nil {
				replicaSetPlanCheck(e, rs, st, 0, victims)
			}
			rs.expectDeletes += int32(n)
			end := e.now
			for _, p := range victims {
				at := w.rsBucket.reserve(e.now) + w.rsLatency.sample()
				e.schedule(at, evPodDeleteCall{p})
				w.recordRSEvent(rs, at)
				end = max(end, at)
			}
			e.schedule(end, evRSStatus{w.newRSCall(c)})
			return
		}
		if replicaSetPlanCheck != nil {
			replicaSetPlanCheck(e, rs, st, 0, nil)
		}
	}
	w.writeStatus(c)
}

// replicaSetPlanCheck, when set (by tests), sees every ReplicaSet sync that manages its
// replicas (its expectations met): the status it computes from the pods it listed, and
// the pods it creates or the ones it deletes.
var replicaSetPlanCheck func(e *Engine, rs *replicaSet, st rsStatus, creates int, deletes []*podState)

// recordRSEvent is the SuccessfulCreate or SuccessfulDelete Event the ReplicaSet controller
// records about rs when a pod call returns at t: unless the spam filter drops it, the event
// broadcaster writes it through the controller's own client, taking a token of its bucket.
// upstream: controller_utils.go RealPodControl (Eventf after the call);
// replica_set.go Run (StartRecordingToSink on the controller's kubeClient).
func (w *workloadControllers) recordRSEvent(rs *replicaSet, t Time) {
	if rs.events.allow(t) {
		w.rsBucket.reserveLater(t)
	}
}

// eventSpamFilter is client-go's per-object spam filter of an event recorder: a token
// bucket of 25 that refills at one token per 5 minutes, taken by each Event about the object
// (of one source and type); an Event with no token is dropped, not sent. spent is how many
// tokens are missing at last.
// upstream: client-go tools/record/events_cache.go EventSourceObjectSpamFilter
// (defaultSpamBurst, defaultSpamQPS).
type eventSpamFilter struct {
	spent float64
	last  Time
}

// Spam filter parameters. upstream: events_cache.go defaultSpamBurst, defaultSpamQPS.
const (
	eventSpamBurst = 25
	eventSpamQPS   = 1.0 / 300
)

// allow reports whether an Event at t passes the filter, and takes its token.
func (f *eventSpamFilter) allow(t Time) bool {
	if t > f.last {
		f.spent = max(0, f.spent-(t-f.last).Seconds()*eventSpamQPS)
		f.last = t
	}
	if f.spent > eventSpamBurst-1 {
		return false
	}
	f.spent++
	return true
}

// rsStatus is a ReplicaSet's status as its sync computes it: status.replicas,
// readyReplicas, availableReplicas, terminatingReplicas (DeploymentReplicaSetTerminatingReplicas,
// beta and on since 1.35), observedGeneration, and whether it has the ReplicaFailure
// condition (the sync's last pod create failed). upstream: replica_set_utils.go
// calculateStatus.
type rsStatus struct {
	live, ready, available, terminating int32
	generation                          int32
	failure                             bool
}

// createBatch sends one slow-start batch of pod creates; the next batch, twice as large,
// starts when every call of this one has returned.
// upstream: replica_set.go slowStartBatch.
func (w *workloadControllers) createBatch(c rsCall, remaining, batch int) {
	e := w.e
	rs := c.rs
	end := e.now
	failed := false
	for range batch {
		at := w.rsBucket.reserve(e.now) + w.rsLatency.sample()
		if w.failRoll != nil && w.failRoll() {
			failed = true
			e.schedule(at, evPodCreateFailed{rs})
			// The FailedCreate Warning Event, under its own spam filter.
			// upstream: controller_utils.go RealPodControl.createPods (Eventf, Warning).
			if rs.rareFields().warnings.allow(at) {
				w.rsBucket.reserveLater(at)
			}
		} else {
			e.schedule(at, evPodCreateCall{rs})
			w.recordRSEvent(rs, at)
		}
		end = max(end, at)
	}
	remaining -= batch
	if failed || remaining == 0 {
		// Pods the slow start never tried are not expected any more.
		rs.expectCreates -= int32(remaining)
		c.failed = failed
		e.schedule(end, evRSStatus{w.newRSCall(c)})
		return
	}
	c.remaining, c.batch = remaining, min(2*batch, remaining)
	e.schedule(end, evRSCreateBatch{w.newRSCall(c)})
}

// rsCall is what the events of a ReplicaSet sync's calls carry: the ReplicaSet, the status
// the sync computed, whether a call failed, and the slow start's progress.
type rsCall struct {
	rs     *replicaSet
	st     rsStatus
	failed bool
	// version is the ReplicaSet's version the status write carries: as the sync listed it,
	// or as the retry's GET read it (retried).
	version          uint8
	retried          bool
	remaining, batch int
}

// newRSCall returns c in a payload from the free list.
func (w *workloadControllers) newRSCall(c rsCall) *rsCall {
	p := takeFree(&w.freeRSCalls)
	*p = c
	return p
}

// takeRSCall returns the content of p, which its event no longer needs, and frees it.
func (w *workloadControllers) takeRSCall(p *rsCall) rsCall {
	c := *p
	*p = rsCall{}
	w.freeRSCalls = append(w.freeRSCalls, p)
	return c
}

// evRSCreateBatch starts the next slow-start batch of a ReplicaSet sync.
type evRSCreateBatch struct{ c *rsCall }

func (ev evRSCreateBatch) String() string {
	return fmt.Sprintf("replicaset %s create batch of %d", ev.c.rs.hash, ev.c.batch)
}
func (ev evRSCreateBatch) apply(e *Engine) {
	c := e.workloads.takeRSCall(ev.c)
	e.workloads.createBatch(c, c.remaining, c.batch)
}

// evPodCreateCall is a pod create call of the ReplicaSet controller returning: the pod
// exists, and the controller's informer observes it (CreationObserved). A failed call is
// evPodCreateFailed: each event is one pointer, queued without an allocation.
type evPodCreateCall struct{ rs *replicaSet }

func (ev evPodCreateCall) String() string { return "pod create call " + ev.rs.hash }
func (ev evPodCreateCall) apply(e *Engine) {
	ev.rs.expectCreates--
	e.createPod(ev.rs.svc, ev.rs, "")
}

// evPodCreateFailed is a pod create call of the ReplicaSet controller returning an error:
// the expectation is lowered (upstream: slowStartBatch's caller, CreationObserved on error)
// and no pod exists.
type evPodCreateFailed struct{ rs *replicaSet }

func (ev evPodCreateFailed) String() string { return "pod create call " + ev.rs.hash + " (failed)" }
func (ev evPodCreateFailed) apply(*Engine)  { ev.rs.expectCreates-- }

// evPodDeleteCall is a pod delete call of the ReplicaSet controller returning: the pod is
// terminating, and the controller observes it (DeletionObserved). A pod already gone or
// terminating counts as observed too.
//
// The event holds the pod only (one pointer, queued without an allocation): the ReplicaSet
// that deletes it is the pod's own.
type evPodDeleteCall struct{ p *podState }

func (ev evPodDeleteCall) String() string { return "pod delete call " + ev.p.pod.Name }
func (ev evPodDeleteCall) apply(e *Engine) {
	ev.p.rs().expectDeletes--
	e.deletePod(ev.p)
}

// evRSStatus ends the manage step of a ReplicaSet sync: the status write comes next.
type evRSStatus struct{ c *rsCall }

func (ev evRSStatus) String() string { return "replicaset status " + ev.c.rs.hash }
func (ev evRSStatus) apply(e *Engine) {
	c := e.workloads.takeRSCall(ev.c)
	e.workloads.writeStatus(c)
}

// writeStatus writes the status a sync computed when it differs from the last one written,
// and ends the sync when the write returns. upstream: replica_set_utils.go
// updateReplicaSetStatus (no call when the status is unchanged).
func (w *workloadControllers) writeStatus(c rsCall) {
	e := w.e
	c.st.failure = c.failed
	if r := c.rs.rare; r != nil && r.listing {
		// calculateStatus runs after manageReplicas, on the pods listed before it but at
		// the time now: the pods listed ready that have been ready for minReadySeconds
		// since count available. upstream: replica_set.go syncReplicaSet (now taken after
		// manageReplicas), replica_set_utils.go calculateStatus (IsPodAvailable at now).
		c.st.available += min(r.late, c.st.ready-c.st.available)
		r.listing, r.late = false, 0
	}
	if c.st == c.rs.status {
		w.rsDone(c.rs, c.failed)
		return
	}
	e.schedule(w.rsBucket.reserve(e.now)+w.rsLatency.sample(), evRSStatusWritten{w.newRSCall(c)})
}

// evRSStatusWritten is a ReplicaSet status write returning; the Deployment controller's
// informer sees the new status and queues the Deployment (upstream: deployment_controller.go
// updateReplicaSet, on any update). A write carrying a version the Deployment controller
// has written past since fails with a conflict: the controller reads the ReplicaSet (a GET)
// and writes the same status once more; a second conflict fails the sync, which is retried
// with the per-item backoff. upstream: replica_set_utils.go updateReplicaSetStatus
// (statusUpdateRetries 1).
type evRSStatusWritten struct{ c *rsCall }

func (ev evRSStatusWritten) String() string { return "replicaset status written " + ev.c.rs.hash }
func (ev evRSStatusWritten) apply(e *Engine) {
	w := e.workloads
	c := w.takeRSCall(ev.c)
	rs := c.rs
	if rs.version != c.version {
		if c.retried {
			w.rsDone(rs, true)
			return
		}
		c.retried = true
		e.schedule(w.rsBucket.reserve(e.now)+w.rsLatency.sample(), evRSGet{w.newRSCall(c)})
		return
	}
	rs.status = c.st
	rs.version++
	w.enqueueDeployment(rs.svc)
	w.rsDone(rs, c.failed)
}

// evRSGet is the GET of a ReplicaSet whose status write conflicted returning: the status is
// written again with the version read.
type evRSGet struct{ c *rsCall }

func (ev evRSGet) String() string { return "replicaset get " + ev.c.rs.hash }
func (ev evRSGet) apply(e *Engine) {
	w := e.workloads
	ev.c.version = ev.c.rs.version
	e.schedule(w.rsBucket.reserve(e.now)+w.rsLatency.sample(), evRSStatusWritten(ev))
}

// deploymentStatusWritten, when set (by tests), sees every Deployment status write: the
// status before and the one written.
var deploymentStatusWritten func(s *serviceState, before, written deploymentStatus)

// deploymentMaxRetries is how often the Deployment controller retries a failing sync before
// it drops the key (until an informer event queues it again).
// upstream: deployment/deployment_controller.go maxRetries.
const deploymentMaxRetries = 15

// syncDeployment is one sync of the Deployment controller. A scaling event (the Deployment's
// replicas differ from an active ReplicaSet's desired-replicas annotation) resizes the
// ReplicaSets at once (deploymentPlan.scale); otherwise the sync creates the new ReplicaSet
// when the template changed and scales the new and old ReplicaSets by the rolling-update
// rules on what it sees of them (spec.replicas and status.availableReplicas)
// (deploymentPlan.rollingUpdate). Then it writes the Deployment's status. Each create,
// scale, annotation update or status write is one call through its client, sent when the
// one before it returned (evDeploymentCall).
// upstream: deployment/deployment_controller.go syncDeployment, sync.go isScalingEvent.
func (w *workloadControllers) syncDeployment(s *serviceState) {
	e := w.e
	if !s.created {
		w.dcQueue.done(s)
		w.kick()
		return
	}
	s.pruneOldRSs()
	dc := takeFree(&w.freeDCCalls)
	created := s.newRSCreated
	dc.s = s
	steps := dc.plan.steps[:0]
	dc.plan = newDeploymentPlan(s, dc.plan.old[:0])
	dc.plan.steps = steps
	p := &dc.plan
	scaling, writesStatus := p.plan(e.now)
	if !created && s.newRSCreated {
		s.newRS.created = timestamp(e.now)
	}
	if !writesStatus && !scaling {
		w.requeueStuckDeployment(s, &p.status, p.progressAt)
	}
	// The sync is one goroutine making blocking calls: each call goes out, through the
	// client's bucket, when the one before it returned.
	at := e.now
	if len(p.steps) > 0 {
		at = w.dcBucket.reserve(e.now) + w.dcLatency.sample()
	}
	e.schedule(at, evDeploymentCall{dc})
}

// plan plans the sync, at now, of a Deployment in the state p started from
// (newDeploymentPlan): a scaling event's proportional scale or a rolling update's step, then
// the status. It reports whether the sync is a scaling event, and whether it writes the
// Deployment's status (its last step), which it does when anything the status reports
// changed. The sync that creates the new ReplicaSet compares with the status as its first
// status write left it: getNewReplicaSet set the Progressing condition
// (NewReplicaSetCreated) on the object the sync goes on with.
// upstream: deployment/deployment_controller.go syncDeployment; sync.go sync,
// syncDeploymentStatus, getNewReplicaSet; progress.go syncRolloutStatus.
func (p *deploymentPlan) plan(now Time) (scaling, writesStatus bool) {
	s := p.s
	created := s.newRSCreated
	scaling = s.scalingEvent()
	if scaling {
		p.scale()
	} else {
		p.rollingUpdate()
	}
	createdNow := !created && s.newRSCreated
	p.status = s.deploymentStatus(p.newSpec, createdNow)
	// The ReplicaFailure condition: syncRolloutStatus copies the new ReplicaSet's (else an
	// old one's), or removes it; a scaling event's syncDeploymentStatus keeps the
	// conditions as they were. upstream: progress.go syncRolloutStatus,
	// getReplicaFailures; sync.go calculateStatus.
	if scaling {
		p.status.failure = s.dcStatus.failure
		p.status.progress = s.dcStatus.progress
		p.progressAt = s.progressAt
	} else {
		p.status.failure = s.newRSCreated && s.newRS.status.failure
		for _, o := range s.oldRSs {
			p.status.failure = p.status.failure || o.status.failure
		}
		p.rolloutProgress(now, createdNow)
	}
	stored := s.dcStatus
	if createdNow {
		stored.progress = progressCreated
	}
	if p.status == stored {
		return scaling, false
	}
	p.steps = append(p.steps, dcStep{kind: stepStatus})
	return scaling, true
}

// progressDeadline is a Deployment's spec.progressDeadlineSeconds, defaulted.
// upstream: pkg/apis/apps/v1/defaults.go SetDefaults_Deployment.
const progressDeadline = Time(600 * time.Second)

// wholeSeconds is virtual time t in whole seconds, as an object's timestamps store it.
func wholeSeconds(t Time) int32 { return int32(t / Time(time.Second)) }

// rolloutProgress sets the Progressing condition of the status a rolling sync writes: its
// reason (progressReason) and lastUpdateTime (p.progressAt), from the condition
// stored and the counts: NewReplicaSetAvailable once the Deployment is complete; refreshed
// (ReplicaSetUpdated) whenever a count shows progress against the stored status; and
// ProgressDeadlineExceeded once progressDeadlineSeconds have passed since the condition's
// lastUpdateTime with no progress. A condition set again with the reason it has keeps its
// time. The sync that creates the new ReplicaSet has written the condition already
// (NewReplicaSetCreated, now: p.revisionAt), but not over a condition of that reason, whose
// time it keeps (a template changed again before any sync saw the rollout progress).
// upstream: deployment/progress.go syncRolloutStatus; sync.go getNewReplicaSet;
// util/deployment_util.go DeploymentComplete, DeploymentProgressing, DeploymentTimedOut,
// SetDeploymentCondition.
func (p *deploymentPlan) rolloutProgress(now Time, createdNow bool) {
	s, st := p.s, &p.status
	stored, at := s.dcStatus, s.progressAt
	if createdNow {
		if stored.progress != progressCreated {
			at = wholeSeconds(now)
		}
		stored.progress, p.revisionAt = progressCreated, at
	}
	st.progress, p.progressAt = stored.progress, at
	if st.replicas == st.updated && stored.progress == progressDone {
		return // isCompleteDeployment: a resync, no progress to estimate
	}
	switch {
	case s.completeBy(st):
		if stored.progress != progressDone {
			st.progress, p.progressAt = progressDone, wholeSeconds(now)
		}
	case st.updated > stored.updated || st.replicas-st.updated < stored.replicas-stored.updated ||
		st.ready > stored.ready || st.available > stored.available:
		st.progress, p.progressAt = progressUpdated, wholeSeconds(now)
	case stored.progress != progressDone && (stored.progress == progressTimedOut || Time(at)*Time(time.Second)+progressDeadline < now):
		if stored.progress != progressTimedOut {
			st.progress, p.progressAt = progressTimedOut, wholeSeconds(now)
		}
	}
}

// requeueStuckDeployment is a rolling sync that wrote no status queueing the Deployment
// again for the progress check at its deadline: a second after progressDeadlineSeconds
// from the Progressing condition's lastUpdateTime, or, within a second of it, after the
// workqueue's first backoff (upstream requeues it rate-limited, every 5 ms, until then).
// A complete or timed-out Deployment is not queued; nor is one whose condition says its
// rollout completed (NewReplicaSetAvailable, which never times out; upstream queues it
// rate-limited, syncs that change nothing, while it is short of available pods).
// progressAt is the condition's lastUpdateTime as the sync holds it: the time of the status
// write that followed the new ReplicaSet's create when the sync created it (getNewReplicaSet
// sets the condition on the Deployment it syncs), the stored one otherwise.
// upstream: deployment/progress.go requeueStuckDeployment; sync.go getNewReplicaSet.
func (w *workloadControllers) requeueStuckDeployment(s *serviceState, st *deploymentStatus, progressAt int32) {
	if d, ok := s.stuckRequeue(st, progressAt, w.e.now); ok {
		w.addDeploymentAfter(s, d)
	}
}

// stuckRequeue returns how long after now requeueStuckDeployment queues s again, with the
// status st its sync computed, and whether it does.
func (s *serviceState) stuckRequeue(st *deploymentStatus, progressAt int32, now Time) (Time, bool) {
	if !s.newRSCreated || st.progress == progressDone || st.progress == progressTimedOut || s.completeBy(st) {
		return 0, false
	}
	after := Time(progressAt)*Time(time.Second) + progressDeadline - now
	if after < Time(time.Second) {
		return max(after, 0) + workloadRetryBase, true
	}
	return after + Time(time.Second), true
}

// scalingEvent reports whether the Deployment's replicas differ from the desired-replicas
// annotation of an active (spec.replicas > 0) ReplicaSet. The new ReplicaSet counts only
// once created: isScalingEvent does not create it.
// upstream: deployment/sync.go isScalingEvent.
func (s *serviceState) scalingEvent() bool {
	if s.newRSCreated && s.newRS.spec > 0 && int(s.newRS.desired) != s.replicas {
		return true
	}
	for _, o := range s.oldRSs {
		if o.spec > 0 && int(o.desired) != s.replicas {
			return true
		}
	}
	return false
}

// deploymentStatus is a Deployment's status as its sync computes it from its ReplicaSets'
// statuses and specs: observedGeneration, replicas, updatedReplicas (the new ReplicaSet's),
// readyReplicas, availableReplicas, unavailableReplicas (spec.replicas summed, less the
// available ones), terminatingReplicas, and the Available condition (at least replicas −
// maxUnavailable available). The Progressing condition's updates come with a change of
// these counts. upstream: deployment/sync.go calculateStatus, syncRolloutStatus,
// syncDeploymentStatus (no write when the status is unchanged). The counts are int32, as
// in the API (apps/v1 DeploymentStatus): a Service's state is 256 bytes instead of 288.
type deploymentStatus struct {
	generation                                                    int32
	replicas, updated, ready, available, unavailable, terminating int32
	minAvailable                                                  bool
	// failure is the ReplicaFailure condition, copied from a ReplicaSet that has it.
	failure bool
	// progress is the Progressing condition's reason. Its lastUpdateTime is
	// serviceState.progressAt. upstream: deployment/progress.go syncRolloutStatus.
	progress progressReason
}

// progressReason is the reason of a Deployment's Progressing condition.
type progressReason uint8

const (
	// progressUpdated: ReplicaSetUpdated, the rollout progressing (or no condition yet).
	progressUpdated progressReason = iota
	// progressCreated: NewReplicaSetCreated, set by the sync that created the new
	// ReplicaSet, until a sync sees the rollout progress. upstream: deployment/sync.go
	// getNewReplicaSet.
	progressCreated
	// progressDone: NewReplicaSetAvailable, the rollout complete.
	progressDone
	// progressTimedOut: ProgressDeadlineExceeded.
	progressTimedOut
)

// deploymentStatus computes s's Deployment status, as the sync computes it: with the specs
// the ReplicaSets had when it started (its scale calls return objects it does not use for
// the status), but a new ReplicaSet it created with newSpec (getNewReplicaSet returns it).
func (s *serviceState) deploymentStatus(newSpec int, createdNow bool) deploymentStatus {
	st := deploymentStatus{generation: s.generation}
	spec := 0
	add := func(rs *replicaSet) {
		st.replicas += int32(rs.status.live)
		st.ready += int32(rs.status.ready)
		st.available += int32(rs.status.available)
		st.terminating += int32(rs.status.terminating)
	}
	if s.newRSCreated {
		add(s.newRS)
		st.updated = int32(s.newRS.status.live)
		spec = int(s.newRS.spec)
		if createdNow {
			spec = newSpec
		}
	}
	for _, o := range s.oldRSs {
		add(o)
		spec += int(o.spec)
	}
	st.unavailable = max(int32(spec)-st.available, 0)
	maxUnavailable := 0 // MaxUnavailable: none of 0 replicas, at most all of them
	if s.replicas > 0 {
		maxUnavailable = min(int(s.unavail), s.replicas)
	}
	st.minAvailable = int(st.available) >= s.replicas-maxUnavailable
	return st
}

// deploymentPlan is what one Deployment sync decides: the ReplicaSets' new spec.replicas,
// which of them it writes (every write also sets the replicas annotations) and its calls.
type deploymentPlan struct {
	s        *serviceState
	newSpec  int
	writeNew bool
	old      []rsPlan // the old ReplicaSets, oldest first
	// desired and maxReplicas are the annotations its writes set.
	desired, maxReplicas int
	// steps are the sync's calls, in the order it makes them.
	steps []dcStep
	// status is the Deployment's status the sync computed; when it differs from the one
	// last written, the sync writes it (its last step).
	status deploymentStatus
	// What the sync sees of the new ReplicaSet: whether it exists, and its
	// status.availableReplicas.
	newCreated   bool
	newAvailable int
	// staleVersion: the sync wrote the Deployment's status once already (creating the new
	// ReplicaSet), so its status write fails with a conflict.
	staleVersion bool
	// progressAt is the Progressing condition's lastUpdateTime in the status the sync
	// writes (serviceState.progressAt); revisionAt the one the status write that follows
	// the new ReplicaSet's create carries (stepRevision).
	progressAt, revisionAt int32
}

// dcStep is one call of a Deployment sync: a write of a ReplicaSet (its creation, or its
// spec.replicas and annotations), or a write of the Deployment's status.
type dcStep struct {
	rs   *replicaSet // nil for a status write
	spec int32
	kind dcStepKind
	// version is the ReplicaSet's version the write carries: as the sync listed it, or as
	// the sync's own write before returned it.
	version uint8
}

// dcStepKind tells the calls of a Deployment sync apart.
type dcStepKind uint8

const (
	stepScale     dcStepKind = iota // a ReplicaSet update (scaleReplicaSet)
	stepScaleDown                   // a rolling update's scale-down of an old ReplicaSet
	stepCreate                      // the new ReplicaSet's create (getNewReplicaSet)
	stepRevision                    // getNewReplicaSet's status write after the create
	stepDelete                      // an old ReplicaSet's delete (cleanupDeployment)
	stepStatus                      // the sync's status write (syncRolloutStatus)
)

// revisionHistoryLimit is the old ReplicaSets a Deployment keeps (spec.revisionHistoryLimit,
// defaulted). upstream: pkg/apis/apps/v1/defaults.go SetDefaults_Deployment.
const revisionHistoryLimit = 10

// rsPlan is a Deployment sync's plan for one old ReplicaSet: its new spec.replicas, and
// whether it is written.
type rsPlan struct {
	rs    *replicaSet
	spec  int
	write bool
}

// newDeploymentPlan starts a plan of s's sync on what the ReplicaSets hold now, its old
// ReplicaSets' plans appended to old.
func newDeploymentPlan(s *serviceState, old []rsPlan) deploymentPlan {
	p := deploymentPlan{s: s, newSpec: int(s.newRS.spec), desired: s.replicas, maxReplicas: s.replicas + int(s.surge),
		newCreated: s.newRSCreated, newAvailable: int(s.newRS.status.available), old: old}
	for _, o := range s.oldRSs {
		p.old = append(p.old, rsPlan{rs: o, spec: int(o.spec)})
	}
	return p
}

// setNew and setOld plan one write of a ReplicaSet with spec.replicas n.
func (p *deploymentPlan) setNew(n int) {
	p.newSpec, p.writeNew = n, true
	p.steps = append(p.steps, dcStep{rs: p.s.newRS, spec: int32(n), version: p.s.newRS.version})
}
func (p *deploymentPlan) setOld(i int, n int) {
	p.old[i].spec, p.old[i].write = n, true
	p.steps = append(p.steps, dcStep{rs: p.old[i].rs, spec: int32(n), version: p.old[i].rs.version})
}

// oldSpec is the old ReplicaSets' spec.replicas in all, as planned.
func (p *deploymentPlan) oldSpec() int {
	n := 0
	for _, o := range p.old {
		n += o.spec
	}
	return n
}

// rollingUpdate is a sync of the rolling-update strategy.
// upstream: deployment/sync.go getNewReplicaSet; rolling.go rolloutRolling,
// reconcileNewReplicaSet, reconcileOldReplicaSets, cleanupUnhealthyReplicas,
// scaleDownOldReplicaSetsForRollingUpdate; util/deployment_util.go NewRSNewReplicas.
func (p *deploymentPlan) rollingUpdate() {
	if !p.rollingScale() && p.s.deploymentComplete() {
		p.cleanup()
	}
}

// rollingScale plans the scaling of a rolling update, and reports whether it scales a
// ReplicaSet up or down (rolloutRolling's scaledUp, scaledDown).
func (p *deploymentPlan) rollingScale() bool {
	s := p.s
	oldSpec := p.oldSpec()
	scaled := false
	if !s.newRSCreated {
		// getNewReplicaSet: the new ReplicaSet is created already scaled up. Then it writes
		// the Deployment's status (the revision annotation and the Progressing condition)
		// and drops the object the write returns: the sync's own status write carries the
		// resourceVersion read before it, and fails with a conflict (the sync after it
		// writes that status).
		p.setNew(newRSReplicas(s.replicas, int(s.surge), p.newSpec+oldSpec, p.newSpec))
		p.steps[len(p.steps)-1].kind = stepCreate
		p.steps = append(p.steps, dcStep{kind: stepRevision})
		p.staleVersion = true
		s.newRSCreated = true
	} else if p.newSpec != s.replicas {
		// reconcileNewReplicaSet
		want := s.replicas
		if p.newSpec < s.replicas {
			want = newRSReplicas(s.replicas, int(s.surge), p.newSpec+oldSpec, p.newSpec)
		}
		if want != p.newSpec {
			p.setNew(want)
			scaled = true
		}
	}
	if scaled || oldSpec == 0 {
		return scaled
	}
	// reconcileOldReplicaSets
	minAvailable := s.replicas - int(s.unavail)
	newUnavailable := p.newSpec - p.newAvailable
	maxScaledDown := p.newSpec + oldSpec - minAvailable - newUnavailable
	if maxScaledDown <= 0 {
		return false
	}
	// scaleDownOldReplicaSetsForRollingUpdate (below) counts the available pods of the new
	// ReplicaSet and of the old ones active (spec > 0) as this reconcile begins: rolloutRolling
	// passes FilterActiveReplicaSets(oldRSs), and the cleanup below keeps them in the list even
	// when it scales one to 0. An old ReplicaSet already at 0 is left out, though its status,
	// not yet rewritten by its controller, may still count available pods.
	avail := p.newAvailable
	for _, o := range p.old {
		if o.spec > 0 {
			avail += int(o.rs.status.available)
		}
	}
	// cleanupUnhealthyReplicas: the unavailable pods of the old ReplicaSets first, oldest
	// ReplicaSet first. One whose status still counts more available pods than its spec (it
	// was scaled down, and its controller has not written the status since) makes the count
	// to remove negative: upstream rejects that as an invalid scale and scales nothing more
	// in this sync. reconcileOldReplicaSets drops the error, so the sync goes on to the
	// Deployment's status and succeeds; the old ReplicaSet's status write queues the next.
	cleaned := 0
	for i := range p.old {
		o := &p.old[i]
		if cleaned >= maxScaledDown {
			break
		}
		if o.spec == 0 || o.spec == int(o.rs.status.available) {
			continue
		}
		n := min(maxScaledDown-cleaned, o.spec-int(o.rs.status.available))
		if n < 0 {
			return false // reconcileOldReplicaSets: false on cleanupUnhealthyReplicas's error
		}
		p.setOld(i, o.spec-n)
		p.steps[len(p.steps)-1].kind = stepScaleDown
		cleaned += n
	}
	// scaleDownOldReplicaSetsForRollingUpdate: then as far as availability allows, oldest
	// ReplicaSet first.
	if avail <= minAvailable {
		return cleaned > 0
	}
	down := avail - minAvailable
	done := 0
	for i := range p.old {
		o := &p.old[i]
		if done >= down {
			break
		}
		if o.spec == 0 {
			continue
		}
		n := min(o.spec, down-done)
		p.setOld(i, o.spec-n)
		p.steps[len(p.steps)-1].kind = stepScaleDown
		done += n
	}
	return cleaned+done > 0
}

// deploymentComplete reports whether s's Deployment is complete by its status as stored.
func (s *serviceState) deploymentComplete() bool { return s.completeBy(&s.dcStatus) }

// completeBy reports whether s's Deployment is complete by status st: every replica
// updated, available and counted, and the spec observed.
// upstream: deployment/util/deployment_util.go DeploymentComplete.
func (s *serviceState) completeBy(st *deploymentStatus) bool {
	r := int32(s.replicas)
	return st.updated == r && st.replicas == r && st.available == r && st.generation >= s.generation
}

// cleanup plans the deletes of the old ReplicaSets past revisionHistoryLimit, oldest
// first: of the oldest len - limit, each that is at 0 and has observed its spec (the
// retired ones, which pruneOldRSs dropped, are; a kept one must be idle). The retired are
// taken as the oldest: pruneOldRSs drops an old ReplicaSet only once it is at 0, which a
// rolling update brings the oldest to first. upstream: deployment/sync.go
// cleanupDeployment (after rolloutRolling found nothing to scale and the Deployment
// complete).
func (p *deploymentPlan) cleanup() {
	s := p.s
	diff := int(s.retiredRSs) + len(s.oldRSs) - revisionHistoryLimit
	for i := range max(diff, 0) {
		if i < int(s.retiredRSs) {
			p.steps = append(p.steps, dcStep{kind: stepDelete})
			continue
		}
		// A kept one with pods still terminating is deleted upstream too (its status counts
		// none); here it waits for the next sync, so that no pod outlives its ReplicaSet.
		if o := s.oldRSs[i-int(s.retiredRSs)]; o.idle() {
			p.steps = append(p.steps, dcStep{kind: stepDelete, rs: o})
		}
	}
}

// scale is a sync on a scaling event: one active ReplicaSet (or none: the newest) takes the
// Deployment's replicas; a saturated new ReplicaSet has the old ones scaled to 0; otherwise
// every active ReplicaSet is resized in proportion to its size, so that together they hold
// replicas + maxSurge.
// upstream: deployment/sync.go sync, scale; util/deployment_util.go FindActiveOrLatest,
// IsSaturated.
func (p *deploymentPlan) scale() {
	s := p.s
	newActive := p.newCreated && p.newSpec > 0
	active, lastActive := 0, -1
	if newActive {
		active++
	}
	for i, o := range p.old {
		if o.spec > 0 {
			active++
			lastActive = i
		}
	}
	switch {
	case active <= 1:
		// FindActiveOrLatest: the active one, or the newest; scaled only when its size
		// differs (scaleReplicaSet, not forced).
		switch {
		case newActive || (active == 0 && p.newCreated):
			if p.newSpec != s.replicas {
				p.setNew(s.replicas)
			}
		case active == 1:
			if p.old[lastActive].spec != s.replicas {
				p.setOld(lastActive, s.replicas)
			}
		case len(p.old) > 0:
			if newest := len(p.old) - 1; p.old[newest].spec != s.replicas {
				p.setOld(newest, s.replicas)
			}
		}
	case p.newCreated && p.newSpec == s.replicas && int(s.newRS.desired) == s.replicas && p.newAvailable == s.replicas:
		// IsSaturated: the old ReplicaSets are scaled down to 0.
		for i, o := range p.old {
			if o.spec > 0 {
				p.setOld(i, 0)
			}
		}
	default:
		p.scaleProportionally()
	}
}

// scaleTarget is one active ReplicaSet in a proportional scale: old is its index in the
// plan's old ReplicaSets, -1 for the new one.
type scaleTarget struct {
	rs        *replicaSet
	old       int
	spec, max int
	size      int
}

// scaleProportionally resizes the active ReplicaSets in proportion: the room to replicas +
// maxSurge (or to 0 when replicas is 0) is shared in proportion to each one's size against
// the max-replicas it was last sized for (the Deployment's status.replicas when
// unannotated), larger ReplicaSets first (on a tie, the newer one when growing, the older
// when shrinking), the rounding's leftover to the first. Each one is written when its size
// or its annotations change (scaleReplicaSet, forced).
// upstream: deployment/sync.go scale; util/deployment_util.go GetReplicaSetProportion,
// getReplicaSetFraction; controller_utils.go ReplicaSetsBySizeNewer, ReplicaSetsBySizeOlder;
// k8s.io/utils/integer RoundToInt32.
func (p *deploymentPlan) scaleProportionally() {
	s := p.s
	var targets []scaleTarget
	for i, o := range p.old {
		if o.spec > 0 {
			targets = append(targets, scaleTarget{rs: o.rs, old: i, spec: o.spec, max: int(o.rs.maxReplicas)})
		}
	}
	if p.newCreated && p.newSpec > 0 {
		targets = append(targets, scaleTarget{rs: s.newRS, old: -1, spec: p.newSpec, max: int(s.newRS.maxReplicas)})
	}
	proportionalSizes(s.replicas, int(s.surge), int(s.dcStatus.replicas), targets)
	for _, t := range targets {
		if t.size == t.spec && int(t.rs.desired) == p.desired && int(t.rs.maxReplicas) == p.maxReplicas {
			continue
		}
		if t.old < 0 {
			p.setNew(t.size)
		} else {
			p.setOld(t.old, t.size)
		}
	}
}

// proportionalSizes sets the size of each active ReplicaSet of a proportional scale (see
// scaleProportionally); targets are in creation order and may be reordered.
func proportionalSizes(replicas, surge, statusReplicas int, targets []scaleTarget) {
	allowed := 0
	if replicas > 0 {
		allowed = replicas + surge
	}
	total := 0
	for i := range targets {
		total += targets[i].spec
		targets[i].size = targets[i].spec
	}
	toAdd := allowed - total
	if toAdd == 0 {
		return
	}
	// ReplicaSetsBySizeNewer or ReplicaSetsBySizeOlder: larger first; on a tie, the newer
	// first when growing, the older when shrinking.
	slices.SortStableFunc(targets, func(a, b scaleTarget) int {
		if c := cmp.Compare(b.spec, a.spec); c != 0 {
			return c
		}
		if toAdd > 0 {
			return compareCreation(b.rs, a.rs)
		}
		return compareCreation(a.rs, b.rs)
	})
	added := 0
	for i := range targets {
		t := &targets[i]
		proportion := 0
		if t.spec != 0 && toAdd != added {
			var fraction int
			if replicas == 0 {
				fraction = -t.spec
			} else if before := cmp.Or(t.max, statusReplicas); before != 0 {
				fraction = roundHalfAway(float64(t.spec*(replicas+surge))/float64(before)) - t.spec
			}
			if toAdd > 0 {
				proportion = min(fraction, toAdd-added)
			} else {
				proportion = max(fraction, toAdd-added)
			}
		}
		t.size = t.spec + proportion
		added += proportion
	}
	targets[0].size = max(targets[0].size+toAdd-added, 0)
}

// roundHalfAway rounds x to the nearest integer, halves away from zero, truncating toward
// zero as a conversion to int32 does. upstream: k8s.io/utils/integer RoundToInt32.
func roundHalfAway(x float64) int {
	if x < 0 {
		return int(int32(x - 0.5))
	}
	return int(int32(x + 0.5))
}

// newRSReplicas is how far the new ReplicaSet may scale up: to replicas, within replicas +
// maxSurge pods counted by spec over all ReplicaSets.
// upstream: deployment/util/deployment_util.go NewRSNewReplicas (RollingUpdate).
func newRSReplicas(replicas, surge, current, newSpec int) int {
	maxTotal := replicas + surge
	if current >= maxTotal {
		return newSpec
	}
	return newSpec + min(maxTotal-current, replicas-newSpec)
}

// evDeploymentCall is one call of a Deployment sync returning (or, for a sync with no call,
// its end): a ReplicaSet has its new spec.replicas and annotations, and is queued for the
// ReplicaSet controller when its spec changed; or the Deployment's status is written. The
// next call goes out then; after the last, the sync ends. It holds its payload from the
// free list (a pointer, queued without an allocation).
type evDeploymentCall struct{ c *dcCall }

// dcCall is a Deployment sync in progress: its plan, and how many of its calls have
// returned.
type dcCall struct {
	s    *serviceState
	plan deploymentPlan
	// done counts the calls returned; failed is set when one failed the sync.
	done   int
	failed bool
}

func (ev evDeploymentCall) String() string { return "deployment call " + ev.c.s.svc.Name }
func (ev evDeploymentCall) apply(e *Engine) {
	w := e.workloads
	d := ev.c
	s, p := d.s, &d.plan
	if d.done == len(p.steps) {
		w.deploymentSynced(d)
		return
	}
	step := p.steps[d.done]
	d.done++
	scaled, ok := w.applyDeploymentCall(d, step)
	switch {
	case ok:
	case step.kind == stepScaleDown:
		// reconcileOldReplicaSets drops the error: no more scale-downs, and the status
		// write follows.
		for d.done < len(p.steps) && p.steps[d.done].kind == stepScaleDown {
			d.done++
		}
	default:
		// The sync fails here (the status write's conflict, or a ReplicaSet's).
		d.failed = true
		d.done = len(p.steps)
	}
	if d.done < len(p.steps) {
		e.schedule(w.dcBucket.reserve(e.now)+w.dcLatency.sample(), ev)
	} else {
		w.deploymentSynced(d)
	}
	// scaleReplicaSet (and getNewReplicaSet's create) records a ScalingReplicaSet Event on
	// the Deployment when it changed the ReplicaSet's size; the broadcaster sends it
	// through the same client while the sync goes on.
	if scaled && s.dcEvents.allow(e.now) {
		w.dcBucket.reserve(e.now)
	}
}

// applyDeploymentCall applies one returned call of sync d. It reports whether the call
// changed a ReplicaSet's size, and whether it succeeded: a write carrying an older version
// than the object's fails with a conflict.
func (w *workloadControllers) applyDeploymentCall(d *dcCall, step dcStep) (scaled, ok bool) {
	s, p := d.s, &d.plan
	switch step.kind {
	case stepDelete:
		// A delete carries no resourceVersion: it succeeds. The informer's delete event
		// queues the Deployment again. upstream: deployment_controller.go deleteReplicaSet.
		if step.rs == nil {
			s.retiredRSs--
		} else {
			s.oldRSs = slices.DeleteFunc(s.oldRSs, func(o *replicaSet) bool { return o == step.rs })
			step.rs.dropVictimIndex()
			step.rs.dropVictimCands()
		}
		w.dcQueue.add(s)
		return false, true
	case stepRevision:
		// It carries the resourceVersion the sync read: a spec change since fails it, and
		// getNewReplicaSet returns the error. Written, it queues the Deployment again
		// (below).
		if p.status.generation != s.generation {
			return false, false
		}
		// The status written sets the Progressing condition: NewReplicaSetCreated, now (or
		// kept, with its time: see rolloutProgress).
		s.dcStatus.progress = progressCreated
		s.progressAt = p.revisionAt
		w.dcQueue.add(s)
		return false, true
	case stepStatus:
		// The status write carries the resourceVersion the sync read: any change of the
		// Deployment's spec since (a new template, a new replicas) or the sync's own earlier
		// status write (staleVersion) makes it fail with a conflict. handleErr:
		// AddRateLimited on that conflict, up to maxRetries; Forget on success. The spec
		// change queued the Deployment already.
		if p.staleVersion || p.status.generation != s.generation {
			return false, false
		}
		if deploymentStatusWritten != nil {
			deploymentStatusWritten(s, s.dcStatus, p.status)
		}
		s.dcStatus, s.progressAt = p.status, p.progressAt
		// The write's update event reaches the controller's own informer, whose handler
		// queues the Deployment on every update, its status included: the key is marked
		// dirty and synced once more when this sync ends, after the ones queued before
		// it. upstream: deployment_controller.go updateDeployment (enqueueDeployment).
		w.dcQueue.add(s)
		return false, true
	}
	// A ReplicaSet write carries the ReplicaSet's own resourceVersion: it succeeds even
	// when the template changed meanwhile, but not when the ReplicaSet's status was written
	// since the sync listed it.
	rs := step.rs
	if step.kind != stepCreate && rs.version != step.version {
		return false, false
	}
	rs.version++
	for i := d.done; i < len(p.steps); i++ {
		if p.steps[i].rs == rs {
			p.steps[i].version = rs.version // scaleReplicaSet returns the object written
		}
	}
	scaled = rs.spec != step.spec
	rs.desired, rs.maxReplicas = int32(p.desired), int32(p.maxReplicas)
	if scaled {
		rs.spec = step.spec
		// A spec change moves metadata.generation past status.observedGeneration, so
		// the ReplicaSet's next sync writes its status even when no pod changed.
		// upstream: replica_set_utils.go updateReplicaSetStatus.
		rs.generation++
		w.enqueueRS(rs)
	} else if step.kind == stepCreate {
		// The new ReplicaSet, created at 0 replicas: created with generation 1, and
		// queued by the ReplicaSet controller's add handler, whose sync writes
		// observedGeneration. upstream: registry/apps/replicaset strategy.go
		// PrepareForCreate; replica_set.go addRS.
		rs.generation = 1
		w.enqueueRS(rs)
	}
	// The ReplicaSet update reaches the Deployment controller's informer too: the
	// Deployment is queued again when its sync ends.
	w.dcQueue.add(s)
	return scaled, true
}

// deploymentSynced ends sync d: its worker takes the next key, and a failed sync is
// retried.
func (w *workloadControllers) deploymentSynced(d *dcCall) {
	e := w.e
	s := d.s
	w.dcQueue.done(s)
	if d.failed && s.dcFailures < deploymentMaxRetries {
		s.dcFailures++
		w.addDeploymentAfter(s, max(exponentialBackoff(workloadRetryBase, workloadRetryMax, int(s.dcFailures)), w.dcRetries.reserve(e.now)-e.now))
	} else {
		s.dcFailures = 0
	}
	old := d.plan.old
	clear(old)
	steps := d.plan.steps
	clear(steps)
	*d = dcCall{plan: deploymentPlan{old: old[:0], steps: steps[:0]}}
	w.freeDCCalls = append(w.freeDCCalls, d)
	w.kick()
	e.workloadSettled(s)
}

// addDeploymentAfter is the Deployment workqueue's AddAfter: one timer per key, the
// earliest deadline winning. upstream: client-go util/workqueue/delaying_queue.go insert.
func (w *workloadControllers) addDeploymentAfter(s *serviceState, d Time) {
	at := w.e.now + d
	if s.dcRetrying && s.dcRetryAt <= at {
		return
	}
	s.dcRetrying, s.dcRetryAt = true, at
	w.e.schedule(at, evDeploymentRetry{s, at})
}

// evDeploymentRetry is a Deployment's delayed add firing, unless an earlier deadline
// replaced it. Like the endpoint controllers' delayed adds it does not hold a phase open:
// a Deployment whose sync failed is queued again by the ReplicaSet updates it waits for,
// and the retry left over then runs a sync with nothing to do.
type evDeploymentRetry struct {
	s  *serviceState
	at Time
}

func (ev evDeploymentRetry) String() string { return "deployment retry " + ev.s.svc.Name }
func (ev evDeploymentRetry) apply(e *Engine) {
	if !ev.s.dcRetrying || ev.s.dcRetryAt != ev.at {
		return // superseded by an earlier deadline
	}
	ev.s.dcRetrying = false
	e.workloads.enqueueDeployment(ev.s)
}

// bind reserves a binding call of the scheduler for a pod whose scheduling decision is
// ready now, and returns when the pod is bound.
func (w *workloadControllers) bind(now Time) Time { return w.scheduler.reserve(now) }

// refundBind gives back the token of a binding call bind reserved for an attempt that found
// no node, which makes none: the failure's only call is its status patch (patchPodStatus).
// upstream: schedule_one.go scheduleOnePod (a failed scheduling cycle runs no binding cycle).
func (w *workloadControllers) refundBind() { w.scheduler.refund() }

// patchPodStatus reserves a status patch of the scheduler's client, wanting to go at t (a
// failed attempt's PodScheduled condition), and returns when it goes.
func (w *workloadControllers) patchPodStatus(t Time) Time { return w.scheduler.reserve(t) }

// String describes the controllers' queues, for traces.
func (w *workloadControllers) String() string {
	return fmt.Sprintf("workloads: %d replicaset keys queued, %d deployment keys queued", w.rsQueue.ready.len(), w.dcQueue.ready.len())
}
