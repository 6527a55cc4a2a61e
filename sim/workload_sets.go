package sim

import (
	"fmt"
	"strconv"
)

// Workload kinds a Service's pods may come from.
const (
	KindDeployment  = "Deployment"
	KindStatefulSet = "StatefulSet"
	KindDaemonSet   = "DaemonSet"
)

// Upstream constants of the StatefulSet and DaemonSet controllers.
const (
	// daemonSetBurstReplicas caps the creates or deletes of one DaemonSet sync.
	// upstream: pkg/controller/daemon/daemon_controller.go BurstReplicas.
	daemonSetBurstReplicas = 250
	// statefulSetMaxBatchSize caps a slow-start batch of a Parallel StatefulSet's calls.
	// upstream: pkg/controller/statefulset/stateful_set_control.go MaxBatchSize.
	statefulSetMaxBatchSize = 500
)

// StatefulSet pod management policies (spec.podManagementPolicy).
const (
	// PodManagementOrderedReady creates pods one at a time, in ordinal order, each once the
	// ones before are Running and Ready, and removes them in reverse order (the default).
	PodManagementOrderedReady = "OrderedReady"
	// PodManagementParallel creates and removes pods all at once, not waiting for others.
	PodManagementParallel = "Parallel"
)

// setController is the StatefulSet or the DaemonSet controller: a workqueue of Services
// (one workload each), its workers and its own client.
type setController struct {
	kind    string
	queue   workQueue[*serviceState]
	bucket  *tokenBucket
	latency *sampler
	// retries is the overall bucket of the workqueue's rate limiter (10 qps, burst 100),
	// which a failed sync's retry waits for as well as its own backoff.
	retries *tokenBucket
}

func newSetController(kind string, cfg ControllerConfig, workers int, rng *sampler) *setController {
	c := &setController{
		kind:    kind,
		bucket:  newTokenBucket(cfg.QPS, max(cfg.Burst, 1)),
		latency: rng,
		retries: newTokenBucket(10, 100),
	}
	c.queue = workQueue[*serviceState]{idle: max(workers, 1), item: func(s *serviceState) *workItem { return &s.set.item }}
	return c
}

// nodeTaintsChanged is the DaemonSet controller's node informer seeing node i's taints
// change (the not-ready NoSchedule taint, put on and taken off with the node's readiness):
// its node-update worker queues each DaemonSet that should now run a pod there and has
// none, and each that has a pod there while its last written status counts misscheduled
// pods, so that a node back is counted again without waiting for a pod change. A node that
// stops being ready queues nothing by itself: DaemonSet pods tolerate the NoExecute taints.
// upstream: daemon_controller.go updateNode (shouldIgnoreNodeUpdate: labels and taints),
// syncNodeUpdate (every DaemonSet, its pods on the node by the pod indexer).
func (w *workloadControllers) nodeTaintsChanged(i int) {
	if w.daemonServices == nil {
		w.daemonServices = []*serviceState{}
		for _, s := range w.e.services {
			if s.kind() == KindDaemonSet {
				w.daemonServices = append(w.daemonServices, s)
			}
		}
	}
	shouldRun := w.e.nodes[i].Ready
	for _, s := range w.daemonServices {
		st := s.set
		if !s.created || st == nil || i >= len(st.daemonOn) {
			continue
		}
		scheduled := st.daemonOn[i] != nil || st.surgeOn[i] != nil || st.terminatingOn[i] > 0
		if (shouldRun && !scheduled) || (scheduled && st.written.daemon.misscheduled > 0) {
			w.enqueueSet(s)
		}
	}
}

// setFor returns the controller that owns s's pods, or nil for a Deployment.
func (w *workloadControllers) setFor(s *serviceState) *setController {
	switch s.kind() {
	case KindStatefulSet:
		return w.statefulSets
	case KindDaemonSet:
		return w.daemonSets
	}
	return nil
}

// kind returns the workload kind of s's pods.
func (s *serviceState) kind() string {
	if s.cfg == nil || s.cfg.WorkloadKind == "" {
		return KindDeployment
	}
	return s.cfg.WorkloadKind
}

// podChanged is the workload controllers' pod informer: the owner of the pod is queued.
func (w *workloadControllers) podChanged(p *podState) {
	if c := w.setFor(p.svc()); c != nil {
		w.enqueueSet(p.svc())
		return
	}
	w.enqueueRS(p.rs())
}

// enqueueSet adds s to its StatefulSet or DaemonSet controller's queue.
func (w *workloadControllers) enqueueSet(s *serviceState) {
	if c := w.setFor(s); c != nil && s.created {
		c.queue.add(s)
		w.kick()
	}
}

// setSync is one StatefulSet or DaemonSet sync's API calls, in the order upstream makes
// them: batches of calls sent together, each batch once every call of the one before has
// returned (a slow start, or calls made one after another), then the status write. Each call
// takes a token of the controller's client and acts when it returns; so does the Event the
// controller records about the workload for each pod it creates or deletes.
// upstream: statefulset/stateful_set_control.go runForAll, slowStartBatch (MaxBatchSize 500);
// stateful_pod_control.go recordPodEvent; daemon/daemon_controller.go syncNodes.
type setSync struct {
	c       *setController
	s       *serviceState
	batches []setBatch
	next    int
	status  setStatus // the status this sync writes, when it differs from the last written
	// generation is the set's when the sync started, which its status write reports.
	generation int32
	// revision says the sync first creates the set's ControllerRevision (setState.revisionDue).
	revision bool
	// historyDeletes is the ControllerRevisions past revisionHistoryLimit the sync deletes,
	// one call after another: a StatefulSet's after its status write, a DaemonSet's before
	// it (and none when a create failed). completes is the update revision a StatefulSet's
	// status write makes the current one (nil: none). statusSent says the status write is
	// done.
	historyDeletes int32
	statusSent     bool
	completes      *replicaSet
	// wroteStatus says the sync wrote the status: its watch event queues the set again.
	wroteStatus bool
	// failed says a pod create of the sync failed (podCreateFailureRate): its later batches
	// are not sent (a DaemonSet's deletes still are), and the set is synced again after a
	// backoff.
	failed bool
}

// newSetSync starts a sync of s by controller c. A set new or with a new template first
// creates its ControllerRevision, before any pod call.
// upstream: statefulset/stateful_set_control.go performUpdate → getStatefulSetRevisions
// (CreateControllerRevision when no revision equals the set's); daemon/update.go
// constructHistory → snapshot.
func newSetSync(c *setController, s *serviceState) *setSync {
	y := &setSync{c: c, s: s, generation: s.generation, revision: s.set.revisionDue}
	if c.kind == KindDaemonSet {
		y.status.daemon = s.set.daemon.status
	} else {
		y.status.changes = s.newRS.changes
		if s.set.current == nil {
			// getStatefulSetRevisions: with no current revision, the update revision is.
			s.set.current = s.updateRevision()
		}
		if s.statefulSetComplete() {
			y.completes = s.updateRevision()
		}
	}
	y.historyDeletes = int32(s.revisionsToDelete(c.kind, y.revision))
	s.set.revisionDue = false
	return y
}

// updateRevision returns the revision of a StatefulSet's or DaemonSet's current template.
func (s *serviceState) updateRevision() *replicaSet {
	if s.set.revision != nil {
		return s.set.revision
	}
	return s.newRS
}

// revisionPods returns the pods of revision rs not yet gone.
func revisionPods(rs *replicaSet) int32 {
	if rs.rare == nil {
		return 0
	}
	return rs.rare.setPods
}

// revisionHistoryLimitSet is a StatefulSet's and a DaemonSet's spec.revisionHistoryLimit,
// defaulted. upstream: pkg/apis/apps/v1/defaults.go SetDefaults_StatefulSet,
// SetDefaults_DaemonSet.
const revisionHistoryLimitSet = 10

// revisionsToDelete returns how many ControllerRevisions of s a sync starting now deletes,
// by the revisions and pods it lists; creating says it creates the template's revision
// (which its list lacks).
//   - A StatefulSet keeps its live revisions (those of its pods, the current and the update
//     one) and revisionHistoryLimit others, deleting the oldest others.
//   - A DaemonSet keeps its update revision and revisionHistoryLimit others, deleting the
//     oldest of those that name no pod.
//
// No revision comes back to life (a rollout makes a new one), so counts suffice: which are
// deleted matters to no later sync. upstream: statefulset/stateful_set_control.go
// UpdateStatefulSet → truncateHistory; daemon/daemon_controller.go updateDaemonSet →
// update.go cleanupHistory (old: every revision but cur; the pods' hashes, terminating and
// terminal pods included).
func (s *serviceState) revisionsToDelete(kind string, creating bool) int {
	st, upd := s.set, s.updateRevision()
	listed, withPods := int(st.revisions), int(st.revisionsWithPods)
	if kind == KindDaemonSet {
		old, oldWithPods := listed, withPods
		if !creating {
			old-- // cur is listed
			if revisionPods(upd) > 0 {
				oldWithPods--
			}
		}
		return max(min(old-revisionHistoryLimitSet, old-oldWithPods), 0)
	}
	live := withPods // revisions with pods are listed: a pod comes after its revision
	if revisionPods(st.current) == 0 && !(creating && st.current == upd) {
		live++
	}
	if upd != st.current && !creating && revisionPods(upd) == 0 {
		live++
	}
	return max(listed-live-revisionHistoryLimitSet, 0)
}

// statefulSetComplete reports whether a StatefulSet's status, as a sync starting now
// computes it, completes its update: every pod of the update revision, as many as its
// replicas, all ready (the model's ready counts pods not terminating).
// upstream: statefulset/stateful_set_utils.go completeUpdate (replicas, updatedReplicas
// and readyReplicas all equal to spec.replicas).
func (s *serviceState) statefulSetComplete() bool {
	upd, r := s.updateRevision(), int32(s.replicas)
	return revisionPods(upd) == r && s.set.revisionsWithPods == min(r, 1) && s.newRS.ready == r
}

// setStatus is the part of a StatefulSet's or DaemonSet's status that decides whether a sync
// writes it (with observedGeneration, setState.observed).
//   - A StatefulSet's is counted by its pod changes that alter the ReplicaSet-like counters
//     (replicaSet.changes).
//   - A DaemonSet's is its counts, as upstream computes them from each node's oldest pod
//     (daemonIndex.status): a change that leaves them as they were writes nothing.
//
// upstream: stateful_set_utils.go inconsistentStatus; daemon_controller.go
// updateDaemonSetStatus, storeDaemonSetStatus.
type setStatus struct {
	changes uint32
	daemon  daemonStatus
	// lowered says a StatefulSet sync's rolling update deleted a pod that
	// status.currentReplicas does not count (of a third revision): the sync lowers the
	// field all the same, to a value no count of the pods gives, so the next sync's status
	// differs from it whatever else changed.
	lowered bool
}

// setBatch is calls sent together: pod creates (StatefulSet ordinals or DaemonSet nodes) and
// deletes.
type setBatch struct {
	create []int
	delete []*podState
}

// add appends b unless it makes no call.
func (y *setSync) add(b setBatch) {
	if len(b.create)+len(b.delete) > 0 {
		y.batches = append(y.batches, b)
	}
}

// slowStart calls batch(lo, hi) for the slow-start batches over n items: 1, 2, 4, ... items,
// at most maxBatch each (0: no limit).
// upstream: statefulset/stateful_set_control.go slowStartBatch; daemon_controller.go syncNodes.
func slowStart(n, maxBatch int, batch func(lo, hi int)) {
	size := slowStartInitialBatchSize
	for lo := 0; lo < n; lo += size {
		if lo > 0 {
			size *= 2
			if maxBatch > 0 {
				size = min(size, maxBatch)
			}
		}
		batch(lo, min(lo+size, n))
	}
}

// slowStartBatchOf returns the slow-start batch over n items (slowStart) that item i (< n)
// is in, without walking the batches before it once they have reached maxBatch.
func slowStartBatchOf(i, n, maxBatch int) (lo, hi int) {
	size := slowStartInitialBatchSize
	for i >= lo+size {
		if size == maxBatch {
			lo += (i - lo) / size * size
			break
		}
		lo += size
		size *= 2
		if maxBatch > 0 {
			size = min(size, maxBatch)
		}
	}
	return lo, min(lo+size, n)
}

// sendSetBatch sends y's next batch now, and schedules the one after when its calls have
// returned; after the last, the status write when the status (setStatus) or the generation
// differs from the last written, the deletes of old ControllerRevisions one after another
// (a DaemonSet's before the status write), and the end of the sync.
func (w *workloadControllers) sendSetBatch(y *setSync) {
	e := w.e
	c, s := y.c, y.s
	end := e.now
	if y.revision {
		y.revision = false
		s.set.revisions++
		end = c.bucket.reserve(e.now) + c.latency.sample()
		e.schedule(end, evSetBatchDone{y})
		return
	}
	// After a failed create a StatefulSet sync sends nothing more; a DaemonSet's skips its
	// later creates but still deletes (upstream: syncNodes).
	for y.failed && y.next < len(y.batches) && (c.kind == KindStatefulSet || len(y.batches[y.next].create) > 0) {
		y.next++
	}
	if y.next < len(y.batches) {
		b := &y.batches[y.next]
		y.next++
		for _, x := range b.create {
			at := c.bucket.reserve(e.now) + c.latency.sample()
			end = max(end, at)
			if w.failRoll != nil && w.failRoll() {
				// No pod; the FailedCreate Warning Event, under its own spam filter (the
				// filter's key has the Event's type).
				y.failed = true
				if s.set.warnings.allow(at) {
					c.bucket.reserveLater(at)
				}
				continue
			}
			e.schedule(at, evSetCreateCall{c, s, int32(x)})
			w.recordSetEvent(c, s, at)
		}
		for _, p := range b.delete {
			at := c.bucket.reserve(e.now) + c.latency.sample()
			e.schedule(at, evSetDeleteCall{p})
			w.recordSetEvent(c, s, at)
			end = max(end, at)
		}
		e.schedule(end, evSetBatchDone{y})
		return
	}
	if y.failed && c.kind == KindDaemonSet {
		y.historyDeletes = 0 // manage returned the error: no cleanupHistory
	}
	// A DaemonSet deletes its old revisions before its status write, a StatefulSet after.
	if y.historyDeletes > 0 && (c.kind == KindDaemonSet || y.statusSent) {
		y.historyDeletes--
		s.set.revisions--
		e.schedule(c.bucket.reserve(e.now)+c.latency.sample(), evSetBatchDone{y})
		return
	}
	if !y.statusSent {
		y.statusSent = true
		// The status also records the generation the sync saw (observedGeneration): a sync
		// of a new, rolled or scaled set writes it. upstream: stateful_set_utils.go
		// inconsistentStatus; daemon_controller.go storeDaemonSetStatus.
		if y.status != s.set.written || y.generation != s.set.observed {
			end = c.bucket.reserve(e.now) + c.latency.sample()
			y.wroteStatus = true
			if setStatusWritten != nil {
				setStatusWritten(s, y.status)
			}
			if y.historyDeletes > 0 {
				e.schedule(end, evSetBatchDone{y})
				return
			}
		} else if y.historyDeletes > 0 {
			w.sendSetBatch(y)
			return
		}
	}
	e.schedule(end, evSetSynced{y})
}

// recordSetEvent is the SuccessfulCreate or SuccessfulDelete Event the controller records
// about the workload when a pod call returns at t: unless the workload's spam filter drops
// it, it is written through the controller's client, taking a token.
// upstream: stateful_pod_control.go recordPodEvent; controller_utils.go RealPodControl
// (the DaemonSet controller's); both controllers' Run start recording to their kubeClient.
func (w *workloadControllers) recordSetEvent(c *setController, s *serviceState, t Time) {
	if s.set.events.allow(t) {
		c.bucket.reserveLater(t)
	}
}

// evSetBatchDone is the last call of a set sync's batch returning: the next batch goes.
type evSetBatchDone struct{ y *setSync }

func (ev evSetBatchDone) String() string  { return ev.y.c.kind + " batch returned " + ev.y.s.svc.Name }
func (ev evSetBatchDone) apply(e *Engine) { e.workloads.sendSetBatch(ev.y) }

// evSetCreateCall is a StatefulSet or DaemonSet pod create returning: the pod exists. A
// create for an ordinal or node that has meanwhile got a pod, or for a node gone, makes none.
type evSetCreateCall struct {
	c *setController
	s *serviceState
	x int32 // ordinal or node
}

func (ev evSetCreateCall) String() string {
	return fmt.Sprintf("%s pod create call %s/%d", ev.c.kind, ev.s.svc.Name, ev.x)
}
func (ev evSetCreateCall) apply(e *Engine) {
	s, x := ev.s, int(ev.x)
	if ev.c.kind == KindStatefulSet {
		if x < len(s.set.ordinals) && s.set.ordinals[x] == nil {
			e.createSetPod(s, x, -1)
		}
	} else if cur := s.set.daemonOn[x]; e.nodes[x].Ready && (cur == nil || cur.hash() != s.templateHash() && s.set.surgeOn[x] == nil) {
		e.createSetPod(s, -1, x)
	}
}

// evSetDeleteCall is a StatefulSet or DaemonSet pod delete returning: the pod is terminating.
type evSetDeleteCall struct{ p *podState }

func (ev evSetDeleteCall) String() string  { return "set pod delete call " + ev.p.pod.Name }
func (ev evSetDeleteCall) apply(e *Engine) { e.deletePod(ev.p) }

// evSetSynced is a StatefulSet or DaemonSet sync's last call returning: the status it wrote
// is the last written, and the workload can be synced again.
type evSetSynced struct{ y *setSync }

func (ev evSetSynced) String() string { return ev.y.c.kind + " synced " + ev.y.s.svc.Name }
func (ev evSetSynced) apply(e *Engine) {
	s := ev.y.s
	s.set.written, s.set.observed = ev.y.status, ev.y.generation
	if ev.y.completes != nil {
		s.set.current = ev.y.completes
	}
	c := ev.y.c
	c.queue.done(s)
	if ev.y.wroteStatus {
		// The set's informer sees the status write's update, and its handler queues the
		// set whatever changed. upstream: statefulset/stateful_set.go NewStatefulSetController
		// (UpdateFunc: enqueueStatefulSet); daemon/daemon_controller.go updateDaemonset.
		c.queue.add(s)
	}
	if ev.y.failed {
		// The sync returned the create's error: AddRateLimited.
		s.set.failures++
		e.after(max(exponentialBackoff(workloadRetryBase, workloadRetryMax, int(s.set.failures)), c.retries.reserve(e.now)-e.now), evSetRetry{s})
	} else {
		s.set.failures = 0 // Forget
	}
	e.workloads.kick()
	e.workloadSettled(s)
}

// daemonSetAfter is the DaemonSet controller's AddAfter of s, d from now: the workqueue keeps
// one delayed add a key, and a later one than that waiting is dropped. Its pods' ready
// times a few seconds apart are thus seen available together, minReadySeconds after the
// first. upstream: daemon_controller.go enqueueDaemonSetAfter; client-go
// util/workqueue/delaying_queue.go insert (an entry's time only moves earlier).
func (w *workloadControllers) daemonSetAfter(s *serviceState, d Time) {
	st, at := s.set, w.e.now+d
	if st == nil || st.delayed && st.delayedAt <= at {
		return
	}
	st.delayed, st.delayedAt = true, at
	w.e.schedule(at, evDaemonSetAfter{s, at})
}

// evDaemonSetAfter is a DaemonSet's delayed add firing, unless an earlier one replaced it.
type evDaemonSetAfter struct {
	s  *serviceState
	at Time
}

func (ev evDaemonSetAfter) String() string { return "daemonset delayed add " + ev.s.svc.Name }
func (ev evDaemonSetAfter) apply(e *Engine) {
	st := ev.s.set
	if !st.delayed || st.delayedAt != ev.at {
		return
	}
	st.delayed = false
	e.workloads.enqueueSet(ev.s)
}

// evSetRetry is the workqueue's AddRateLimited firing for a StatefulSet or DaemonSet whose
// sync failed.
type evSetRetry struct{ s *serviceState }

func (ev evSetRetry) String() string  { return "set retry " + ev.s.svc.Name }
func (ev evSetRetry) apply(e *Engine) { e.workloads.enqueueSet(ev.s) }

// createSetPod creates a StatefulSet pod with its ordinal, or a DaemonSet pod for a node.
func (e *Engine) createSetPod(s *serviceState, ordinal, node int) {
	var name string
	if ordinal >= 0 {
		name = s.svc.Name + "-" + strconv.Itoa(ordinal) // stable identity
	}
	rs := s.updateRevision()
	p := e.createPod(s, rs, name)
	r := rs.rareFields()
	if r.setPods++; r.setPods == 1 {
		s.set.revisionsWithPods++
	}
	switch {
	case ordinal >= 0:
		p.setIndex = int32(ordinal)
	case node >= 0:
		p.setIndex = -2 - int32(node)
	}
	if ordinal >= 0 {
		s.set.ordinals[ordinal] = p
		s.markOrdinal(ordinal)
	}
	if node >= 0 {
		if old := s.set.daemonOn[node]; old != nil {
			s.set.surgeOn[node] = p // a surging rollout's new pod beside the old one
		} else {
			s.set.daemonOn[node] = p
		}
		s.markDaemonNode(node)
	}
}

// syncStatefulSet is one sync of a StatefulSet with the RollingUpdate strategy, by its pod
// management policy (OrderedReady unless Parallel).
// upstream: pkg/controller/statefulset/stateful_set_control.go updateStatefulSet
// (monotonic = OrderedReady), updateStatefulSetAfterInvariantEstablished
// (MaxUnavailableStatefulSet, on by default since 1.37).
func (w *workloadControllers) syncStatefulSet(s *serviceState) {
	y := newSetSync(w.statefulSets, s)
	if s.cfg.PodManagementPolicy == PodManagementParallel {
		planParallelStatefulSet(s, y)
	} else {
		planOrderedStatefulSet(s, y)
	}
	if statefulPlanCheck != nil {
		statefulPlanCheck(s, y.batches)
	}
	// A rolling update's delete lowers currentReplicas in the status the same sync writes;
	// the delete returning adds as much to the counter, so the sync that sees the pod
	// terminating writes nothing more. But the field counts pods of the current revision
	// only: lowered for a pod of another, it is off until the next sync writes it again.
	// (Condemned pods, beyond replicas, are not counted: processCondemned leaves the status
	// as it was.) upstream: stateful_set_control.go updateStatefulSetAfterInvariantEstablished
	// (status.CurrentReplicas-- per delete), computeReplicaStatus.
	for _, b := range y.batches {
		for _, p := range b.delete {
			if int(p.ordinal()) < s.replicas {
				y.status.changes++
				if !s.countsRevisionOf(p) {
					y.status.lowered = true
				}
			}
		}
	}
	w.sendSetBatch(y)
}

// deleteCondemned plans the deletes of a Parallel StatefulSet's condemned pods (highest
// ordinal first) in slow-start batches over them; those already terminating take no call.
func deleteCondemned(y *setSync, condemned []*podState) {
	slowStart(len(condemned), statefulSetMaxBatchSize, func(lo, hi int) {
		var b setBatch
		for _, p := range condemned[lo:hi] {
			if !p.pod.Terminating {
				b.delete = append(b.delete, p)
			}
		}
		y.add(b)
	})
}

// statefulPlanCheck, when set (by tests), sees the batches of every StatefulSet sync.
var statefulPlanCheck func(s *serviceState, batches []setBatch)

// planOrderedStatefulSet plans one OrderedReady sync: it creates the lowest missing ordinal
// once every lower one is Running, Ready and available; removes ordinals beyond replicas from
// the highest, one at a time; and updates pods of an old revision from the highest ordinal
// down, deleting up to maxUnavailable of them, one call after another, once every replica is
// available. upstream: stateful_set_control.go processReplica, processCondemned (monotonic).
func planOrderedStatefulSet(s *serviceState, y *setSync) {
	x := refreshOrdinalIndex(s)
	if i := x.bad.first(0, s.replicas); i >= 0 {
		if s.set.ordinals[i] == nil {
			y.add(setBatch{create: []int{i}})
		}
		return // else wait for it (terminating, not yet Running and Ready, or not available)
	}
	// Condemned pods, highest ordinal first. One that is not available waits for the others
	// unless it is the first unhealthy pod: the lowest condemned one not available.
	if top := x.present.last(s.replicas, x.n); top >= 0 {
		if p := s.set.ordinals[top]; !p.pod.Terminating && (p.available || top == x.unhealthy.first(s.replicas, x.n)) {
			y.add(setBatch{delete: []*podState{p}})
		}
		return
	}
	// Every replica is there, available and not terminating (the loop above returned
	// otherwise): delete up to maxUnavailable pods of an old revision, from the highest
	// ordinal down.
	budget := max(int(s.unavail), 1)
	x.oldLive.eachDown(0, s.replicas, func(i int) bool {
		y.add(setBatch{delete: []*podState{s.set.ordinals[i]}})
		budget--
		return budget > 0
	})
}

// planParallelStatefulSet plans one Parallel sync: every missing ordinal is created and
// every ordinal beyond replicas deleted at once (in slow-start batches over the ordinals),
// whatever the others' state. Then the rolling update: pods of an old revision that are not
// available are deleted, and available ones too, from the highest ordinal down, while fewer
// than maxUnavailable replicas are unavailable (counting the pods this sync creates).
// upstream: stateful_set_control.go runForAll (slowStartBatch when not monotonic),
// processReplica, processCondemned, updateStatefulSetAfterInvariantEstablished (Parallel's
// two phases).
func planParallelStatefulSet(s *serviceState, y *setSync) {
	x := refreshOrdinalIndex(s)
	// The missing ordinals, each in the slow-start batch over the replicas it falls in.
	var b setBatch
	end := 0 // of b's batch
	x.missing.eachUp(0, s.replicas, func(i int) bool {
		if i >= end {
			y.add(b)
			b = setBatch{}
			_, end = slowStartBatchOf(i, s.replicas, statefulSetMaxBatchSize)
		}
		b.create = append(b.create, i)
		return true
	})
	y.add(b)
	var condemned []*podState // highest ordinal first
	x.present.eachDown(s.replicas, x.n, func(i int) bool {
		condemned = append(condemned, s.set.ordinals[i])
		return true
	})
	deleteCondemned(y, condemned)
	unavailable := x.bad.count(0, s.replicas)
	needUpdate := x.oldUnavailable.count(0, s.replicas)
	budget := max(int(s.unavail), 1)
	if unavailable >= budget && needUpdate == 0 {
		return
	}
	x.oldUnavailable.eachDown(0, s.replicas, func(i int) bool {
		y.add(setBatch{delete: []*podState{s.set.ordinals[i]}})
		return true
	})
	if left := budget - unavailable; left > 0 {
		x.oldAvailable.eachDown(0, s.replicas, func(i int) bool {
			y.add(setBatch{delete: []*podState{s.set.ordinals[i]}})
			left--
			return left > 0
		})
	}
}

// syncDaemonSet is one sync of a DaemonSet with the RollingUpdate strategy: it creates a pod
// on every node that should run one and has none (not even a terminating one), at most
// burstReplicas a sync; and, in a sync that created none (one that did waits for its
// informer to observe them: expectations), replaces old pods node by node: without surge,
// never more than maxUnavailable nodes at once without an available pod; surging, a node
// with an old pod gets a new one beside it (at once when the old one is not available, else
// while fewer than maxSurge new pods are not yet available), and its old pod is deleted
// once the new one is available (planDaemonSet).
// upstream: pkg/controller/daemon/daemon_controller.go updateDaemonSet (manage, then
// rollingUpdate once expectations are satisfied), podsShouldBeOnNode, syncNodes
// (burstReplicas 250); update.go rollingUpdate.
func (w *workloadControllers) syncDaemonSet(s *serviceState) {
	create, del := w.e.planDaemonSet(s)
	if daemonPlanCheck != nil {
		daemonPlanCheck(w.e, s, create, del)
	}
	w.sendDaemonSetSync(s, create, del)
}

// daemonStatusCheck, when set (by tests), sees the status every DaemonSet sync computes;
// setStatusWritten every status a StatefulSet or DaemonSet sync writes.
var (
	daemonStatusCheck func(e *Engine, s *serviceState, st daemonStatus)
	setStatusWritten  func(s *serviceState, st setStatus)
)

// daemonPlanCheck, when set (by tests), sees every plan of planDaemonSet.
var daemonPlanCheck func(e *Engine, s *serviceState, create []int, del []*podState)

// planDaemonSet returns what a sync of s does, at most burstReplicas creates and as many
// deletes. Without surge: the nodes to create a pod on, or when there are none, the pods to
// delete: the unavailable old ones (allowedReplacementPods), then old available ones while
// fewer than maxUnavailable nodes are unavailable. Surging: the nodes with no pod, and the
// deletes of the old pods that have a new one beside them and are not ready or whose new
// one is available (manage); or when there are none, a new pod beside each old one that is
// not available (allowedNewNodes) and beside available ones while fewer than maxSurge new
// pods are not yet available, and the deletes of old pods on nodes that should not run one
// (not ready): at once when not available, else while more pods are available than nodes
// should run one. upstream: update.go rollingUpdate (oldPodsToDelete,
// shouldNotRunPodsToDelete).
func (e *Engine) planDaemonSet(s *serviceState) (create []int, del []*podState) {
	x := e.refreshDaemonIndex(s)
	create = x.appendNodes(nil, 0, daemonSetBurstReplicas)
	// manage also deletes the newer of two pods on a node that should have one (excess):
	// the surged pod of an earlier rollout.
	for _, n := range x.appendNodes(nil, 6, daemonSetBurstReplicas) {
		del = append(del, s.set.surgeOn[n])
	}
	var nodes []int
	if x.surging {
		// manage: a pod on each node with none, and the old pods to retire. rollingUpdate
		// runs only in a sync whose manage sent nothing: after its calls, the informer has
		// not yet observed them (expectations).
		nodes = x.appendNodes(nil, 3, max(daemonSetBurstReplicas-len(del), 0))
		if len(create) == 0 && len(nodes) == 0 && len(del) == 0 {
			surge, _ := s.daemonStrategy(int(x.status.desired))
			create = x.appendNodes(nil, 1, daemonSetBurstReplicas)
			room := max(surge-x.counted, 0)
			create = x.appendNodes(create, 2, min(len(create)+room, daemonSetBurstReplicas))
			// The old pods on nodes that should not run one: those not available at once,
			// available ones only while more pods are available than nodes should run one
			// (the rollout keeps every node's pod until a pod elsewhere is available). With
			// no node to run one (all not ready), a percentage maxSurge resolves to 0: the
			// update takes the path without surge, whose maxUnavailable is 0 too, and
			// deletes the unavailable old pods alone. upstream: daemon/update.go
			// rollingUpdate (updatedDesiredNodeCounts: SurgeCount of the desired nodes).
			nodes = x.appendNodes(nil, 4, daemonSetBurstReplicas)
			if extra := x.available - int(x.status.desired); extra > 0 && surge > 0 {
				nodes = x.appendNodes(nodes, 5, min(len(nodes)+extra, daemonSetBurstReplicas))
			}
		}
	} else {
		if len(create) > 0 || len(del) > 0 {
			return create, del
		}
		_, unavail := s.daemonStrategy(int(x.status.desired))
		nodes = x.appendNodes(nil, 1, daemonSetBurstReplicas)
		budget := max(unavail-x.counted, 0)
		nodes = x.appendNodes(nodes, 2, min(len(nodes)+budget, daemonSetBurstReplicas))
	}
	for _, n := range nodes {
		del = append(del, s.set.daemonOn[n])
	}
	return create, del
}

// sendDaemonSetSync makes a DaemonSet sync's calls: its creates (at most burstReplicas, in
// slow-start batches), then its deletes (at most burstReplicas, all at once), and a status
// write when its counts or generation changed since the last one.
// upstream: daemon_controller.go syncNodes (burstReplicas), updateDaemonSetStatus.
func (w *workloadControllers) sendDaemonSetSync(s *serviceState, create []int, del []*podState) {
	y := newSetSync(w.daemonSets, s)
	if daemonStatusCheck != nil {
		daemonStatusCheck(w.e, s, y.status.daemon)
	}
	if m := Time(s.cfg.MinReady); m > 0 && y.status.daemon.ready != y.status.daemon.available {
		// The status's last line of defence against clock skew: a sync minReadySeconds
		// later. upstream: daemon_controller.go updateDaemonSetStatus.
		w.daemonSetAfter(s, m)
	}
	create = create[:min(len(create), daemonSetBurstReplicas)]
	slowStart(len(create), 0, func(lo, hi int) { y.add(setBatch{create: create[lo:hi]}) })
	y.add(setBatch{delete: del[:min(len(del), daemonSetBurstReplicas)]})
	w.sendSetBatch(y)
}

// syncSet dispatches a queued StatefulSet or DaemonSet sync.
func (w *workloadControllers) syncSet(c *setController, s *serviceState) {
	if c.kind == KindStatefulSet {
		w.syncStatefulSet(s)
	} else {
		w.syncDaemonSet(s)
	}
}

// setPodGone keeps the per-ordinal and per-node indexes of s when p goes.
func (s *serviceState) setPodGone(p *podState) {
	if s.set == nil {
		return
	}
	if rs := p.rs(); rs != nil && rs.rare != nil && rs.rare.setPods > 0 {
		if rs.rare.setPods--; rs.rare.setPods == 0 {
			s.set.revisionsWithPods--
		}
	}
	if o := p.ordinal(); o >= 0 && int(o) < len(s.set.ordinals) && s.set.ordinals[o] == p {
		s.set.ordinals[o] = nil
		s.markOrdinal(int(o))
	}
	if n := p.pinned(); n >= 0 {
		switch p {
		case s.set.daemonOn[n]:
			s.set.daemonOn[n], s.set.surgeOn[n] = s.set.surgeOn[n], nil
		case s.set.surgeOn[n]:
			s.set.surgeOn[n] = nil
		}
		if p.pod.Terminating && !p.pod.Phase.Terminal() && p.node >= 0 {
			// (A terminal one was no longer counted, setPodTerminal; one never scheduled,
			// deleted at once, never was: deletePod.)
			s.set.terminatingOn[n]--
		}
		s.markDaemonNode(int(n))
	}
}

// setPodTerminal notes that p, a terminating pod, is about to turn terminal (its containers
// stopped). A DaemonSet's sync no longer sees a pod that is terminal and being deleted, so
// its node, if it has no other pod, gets a new one at once rather than when the object is
// gone. upstream: daemon_controller.go getNodesToDaemonPods (includeDeletedTerminal false
// for manage and rollingUpdate), podsShouldBeOnNode.
func (s *serviceState) setPodTerminal(p *podState) {
	if s.set == nil || !p.pod.Terminating || p.pod.Phase.Terminal() {
		return
	}
	if n := p.pinned(); n >= 0 {
		s.set.terminatingOn[n]--
		s.markDaemonNode(int(n))
	}
}

// setPodTerminating notes that p, a DaemonSet pod, is terminating: its node has no running
// daemon pod, but without surge must wait until this one is terminal or gone for a new one.
func (s *serviceState) setPodTerminating(p *podState) {
	if s.set == nil {
		return
	}
	if o := p.ordinal(); o >= 0 {
		s.markOrdinal(int(o)) // a StatefulSet pod
	}
	if p.pinned() < 0 {
		return
	}
	n := p.pinned()
	switch p {
	case s.set.daemonOn[n]:
		// A surged new pod, if any, is the node's pod now.
		s.set.daemonOn[n], s.set.surgeOn[n] = s.set.surgeOn[n], nil
		s.set.terminatingOn[n]++
	case s.set.surgeOn[n]:
		s.set.surgeOn[n] = nil
		s.set.terminatingOn[n]++
	}
	s.markDaemonNode(int(n))
}

// prepareSet sizes s's indexes for its kind when the Service is created.
func (e *Engine) prepareSet(s *serviceState) {
	switch s.kind() {
	case KindStatefulSet:
		s.set.ordinals = make([]*podState, max(s.replicas, len(s.set.ordinals)))
		s.set.ordinal = ordinalIndex{}
	case KindDaemonSet:
		s.set.daemonOn = make([]*podState, len(e.nodes))
		s.set.surgeOn = make([]*podState, len(e.nodes))
		s.set.terminatingOn = make([]int32, len(e.nodes))
		s.set.daemon = daemonIndex{}
		s.replicas = len(e.nodes)
	}
}

// scaleSet resizes a StatefulSet's ordinal index for a new replica count.
func (s *serviceState) scaleSet(replicas int) {
	if s.kind() == KindStatefulSet && replicas > len(s.set.ordinals) {
		s.set.ordinals = append(s.set.ordinals, make([]*podState, replicas-len(s.set.ordinals))...)
	}
}

func (c *setController) String() string {
	return fmt.Sprintf("%s controller: %d queued", c.kind, c.queue.ready.len())
}
