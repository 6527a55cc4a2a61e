package sim

import (
	"fmt"
	"slices"
	"time"
)

// The default scheduler's part in a run: which node a pod is bound to (placer), the pods
// a node has room for (the kubelet's maxPods, which NodeResourcesFit checks), and the
// scheduling queue's handling of a pod that finds no node: it waits among the
// unschedulable pods until a cluster event may make it schedulable, or until it has waited
// podMaxInUnschedulablePodsDuration, and is then tried again after its backoff.

// DefaultMaxPodsPerNode is the pods a node takes: the kubelet's maxPods default, which the
// node reports as status.allocatable.pods.
// upstream: pkg/kubelet/apis/config/v1beta1/defaults.go SetDefaults_KubeletConfiguration
// (MaxPods = 110).
const DefaultMaxPodsPerNode = 110

// NodePodAddresses is how many pod addresses a node's range hands out: a node cannot run
// more pods than that at once, so maxPodsPerNode is at most it.
const NodePodAddresses = ipHosts

// The scheduling queue's defaults. upstream: pkg/scheduler/backend/queue/scheduling_queue.go
// (DefaultPodInitialBackoffDuration, DefaultPodMaxBackoffDuration,
// DefaultPodMaxInUnschedulablePodsDuration), the defaults of KubeSchedulerConfiguration's
// podInitialBackoffSeconds and podMaxBackoffSeconds (pkg/scheduler/apis/config/v1
// defaults.go); backoff_queue.go backoffQOrderingWindowDuration; scheduling_queue.go Run
// (flushUnschedulableEntitiesLeftover every 30 s).
const (
	podInitialBackoff                 = Time(1 * time.Second)
	podMaxBackoff                     = Time(10 * time.Second)
	podMaxInUnschedulablePodsDuration = Time(5 * time.Minute)
	backoffOrderingWindow             = Time(time.Second)
	unschedulableFlushPeriod          = Time(30 * time.Second)
)

// scheduler is the scheduler's cache of pods per node and its queue of unschedulable pods.
type scheduler struct {
	maxPods int32
	// assigned counts, per node, the pods NodeResourcesFit counts against maxPods: those
	// bound to the node and in the scheduler's cache, which drops a pod once it is terminal
	// (its informer lists no Succeeded or Failed pods) or deleted.
	// upstream: pkg/scheduler/scheduler.go newPodInformer (status.phase field selector);
	// framework/plugins/noderesources/fit.go fitsRequest ("Too many pods").
	assigned []int32
	// open holds the nodes an unpinned pod fits on: ready (no not-ready taint), not
	// cordoned, with room. The placer takes the next one from its cursor, so that placing
	// a pod does not scan full nodes.
	open bitIndex
	// waiting are the unschedulable pods not pinned to a node, and pinned those of each
	// node (DaemonSet pods), each oldest failure first; retried pods leave their entries
	// behind (stale, skipped). byPod is each one's queue state.
	waiting podFIFO
	pinned  map[int32]*podFIFO
	byPod   map[*podState]*queuedPod
	// firstAttempts counts created pods whose first attempt is still to come: while there
	// are any, the active queue is not empty.
	firstAttempts int
	// flushQueued is true while an evUnschedulableFlush is queued.
	flushQueued bool
	// room is the pods the open nodes have room for in all (roomOf each node's share), and
	// trying the unpinned pods moved back to the queue whose attempt is still to come: the
	// flush tries no more pods than room - trying (see flushLeftover).
	room, trying int
	roomOf       []int32
	// reasonOf is why each node takes no unpinned pod apart from being full, as the first
	// filter that rejects it there says (nodeFits, nodeCordoned, nodeNotReady), and
	// cordonedNodes and notReadyNodes count the nodes of the last two: what the message of a
	// failed attempt's PodScheduled condition says (failureMessage).
	reasonOf                     []uint8
	cordonedNodes, notReadyNodes int32
	// podDeletes counts the AssignedPodDelete events (a pod of a node turning terminal or
	// deleted) that moved back the unschedulable pods NodeResourcesFit rejected, and
	// lastPodDelete is the last one's time: every such pod not given the room fails again
	// then (catchUp).
	podDeletes    int64
	lastPodDelete Time
}

// A node's reason to reject a pod before NodeResourcesFit: the default filters run
// NodeUnschedulable (spec.unschedulable) before TaintToleration (the node lifecycle
// controller's not-ready NoSchedule taint), and the first to reject a node gives its reason.
// upstream: pkg/scheduler/apis/config/v1/default_plugins.go getDefaultPlugins; framework
// runtime/framework.go RunFilterPlugins (stops at a node's first failing filter).
const (
	nodeFits uint8 = iota
	nodeCordoned
	nodeNotReady
)

// failureMessage is what a failed attempt's PodScheduled=False condition says: its message
// counts the nodes by the reason each rejected the pod ("0/3 nodes are available: 1 node(s)
// were unschedulable, 2 Too many pods. preemption: ..."), and the scheduler writes the
// condition only when it differs from the one the pod has. An unpinned pod that finds no
// node is rejected by every node: cordoned, else not ready, else full (the rest). A pod
// pinned to a node (a DaemonSet's, by node affinity) is rejected by the others for the
// affinity and by its own for its taint (it tolerates a cordon) or for being full.
// upstream: framework/types.go FitError.Error; schedule_one.go handleSchedulingFailure,
// updatePod; pkg/api/v1/pod/util.go UpdatePodCondition (a change of status, reason or
// message).
type failureMessage struct {
	nodes              int32
	cordoned, notReady int32
	pinned             bool
}

// queuedPod is an unschedulable pod's state in the scheduling queue: its failed attempts
// (UnschedulableCount), the last one's time (Timestamp), and the generation of its queue
// entries (an entry of another generation is stale).
type queuedPod struct {
	failures int
	failedAt Time
	gen      int32
	// message is what the pod's PodScheduled condition says (the zero value: it has none).
	message failureMessage
	// pooled is true while the pod waits among the unschedulable pods, and seen is
	// podDeletes when its failures were last brought up to date (catchUp).
	pooled bool
	seen   int64
}

// rejectedByFit reports whether NodeResourcesFit was among the plugins that rejected the
// pod at its last attempt (some node was full), which makes it one that an AssignedPodDelete
// moves back: Fit's hint for it says Queue for any assigned pod deleted.
func (q *queuedPod) rejectedByFit() bool {
	m := q.message
	if m.pinned {
		return m.notReady == 0
	}
	return m.cordoned+m.notReady < m.nodes
}

// catchUp brings the failures of an unschedulable pod that NodeResourcesFit rejected up to
// the AssignedPodDelete events since: each moved it back to the queue with every other
// such pod, and as the room went to others (retryFor), it was tried and failed again, its
// attempt count up and its Timestamp that event's. Counting them here, when the pod is
// next looked at, gives the same count and time without an attempt per pod per event,
// which at 130,000 pods pending through a rollout would be billions of events; the message
// of each such failure is the one it has (nodes full), so they write nothing. Events while
// the pod was being tried (not pooled) are not counted: upstream requeues such a pod after
// its backoff for one more attempt (determineSchedulingHintForInFlightPod), left out here.
// upstream: scheduling_queue.go MoveAllToActiveOrBackoffQueue, moveEntitiesToActiveOrBackoffQueue,
// AddUnschedulablePodIfNotPresent (UnschedulableCount+1, Timestamp now);
// noderesources/fit.go isSchedulableAfterAssignedPodDelete.
func (s *scheduler) catchUp(q *queuedPod) {
	if q.pooled && q.seen < s.podDeletes && q.rejectedByFit() {
		q.failures += int(s.podDeletes - q.seen)
		q.failedAt = s.lastPodDelete
	}
	q.seen = s.podDeletes
}

// podEntry is a pod's place in a podFIFO.
type podEntry struct {
	p   *podState
	gen int32
}

// podFIFO is a queue of pods, oldest first.
type podFIFO struct {
	entries []podEntry
	head    int
}

// push appends e. An array that is full with its first half popped is compacted first:
// a queue that never empties (pods failing every five minutes for hours) would otherwise
// grow by every entry it ever held.
func (f *podFIFO) push(e podEntry) {
	if len(f.entries) == cap(f.entries) && f.head > 0 && f.head >= len(f.entries)/2 {
		n := copy(f.entries, f.entries[f.head:])
		clear(f.entries[n:])
		f.entries, f.head = f.entries[:n], 0
	}
	f.entries = append(f.entries, e)
}

// front returns the first entry, or false if the queue is empty.
func (f *podFIFO) front() (podEntry, bool) {
	if f.head == len(f.entries) {
		return podEntry{}, false
	}
	return f.entries[f.head], true
}

// pop drops the first entry, and lets the array go once the queue is empty.
func (f *podFIFO) pop() {
	f.entries[f.head] = podEntry{}
	f.head++
	if f.head == len(f.entries) {
		f.entries, f.head = f.entries[:0], 0
	}
}

// newScheduler returns the scheduler of a cluster of nodes nodes, each taking maxPods pods
// (0: DefaultMaxPodsPerNode); no node is open until refreshNode looks at it.
func newScheduler(nodes, maxPods int) *scheduler {
	if maxPods <= 0 {
		maxPods = DefaultMaxPodsPerNode
	}
	return &scheduler{
		maxPods:  int32(maxPods),
		assigned: make([]int32, nodes),
		roomOf:   make([]int32, nodes),
		reasonOf: make([]uint8, nodes),
		open:     newBitWalk(nodes),
		pinned:   map[int32]*podFIFO{},
		byPod:    map[*podState]*queuedPod{},
	}
}

// refreshNode sets whether node n is open: ready, uncordoned and with room.
func (e *Engine) refreshNode(n int) {
	s := e.sched
	open := e.nodes[n].Ready && !e.cordoned[n] && s.assigned[n] < s.maxPods
	s.open.set(n, open)
	room := int32(0)
	if open {
		room = s.maxPods - s.assigned[n]
	}
	s.room += int(room - s.roomOf[n])
	s.roomOf[n] = room
	reason := nodeFits
	switch {
	case e.cordoned[n]:
		reason = nodeCordoned
	case !e.nodes[n].Ready:
		reason = nodeNotReady
	}
	if was := s.reasonOf[n]; was != reason {
		s.cordonedNodes += countIf(reason == nodeCordoned) - countIf(was == nodeCordoned)
		s.notReadyNodes += countIf(reason == nodeNotReady) - countIf(was == nodeNotReady)
		s.reasonOf[n] = reason
	}
}

// countIf is 1 if b, else 0.
func countIf(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// failureMessage is what the PodScheduled condition of p, having found no node now, says.
func (e *Engine) failureMessage(p *podState) failureMessage {
	s := e.sched
	m := failureMessage{nodes: int32(len(s.assigned))}
	if n := p.pinned(); n >= 0 {
		m.pinned = true
		m.notReady = countIf(!e.nodes[n].Ready)
		return m
	}
	m.cordoned, m.notReady = s.cordonedNodes, s.notReadyNodes
	return m
}

// fitsPinned reports whether a pod pinned to node n fits there: a DaemonSet pod tolerates
// the node being cordoned, not its being not ready or full.
func (e *Engine) fitsPinned(n int) bool {
	return e.nodes[n].Ready && e.sched.assigned[n] < e.sched.maxPods
}

// findNode returns the node p fits on, or -1.
func (e *Engine) findNode(p *podState) int {
	if pinned := p.pinned(); pinned >= 0 {
		if !e.fitsPinned(int(pinned)) {
			return -1
		}
		return int(pinned)
	}
	return e.placement.place(&e.sched.open)
}

// nodeFree reports whether findNode would find p a node now, without moving the placer on.
func (e *Engine) nodeFree(p *podState) bool {
	if pinned := p.pinned(); pinned >= 0 {
		return e.fitsPinned(int(pinned))
	}
	return e.sched.open.first(0, e.placement.nodes) >= 0
}

// assign counts a pod bound to node n in the scheduler's cache.
func (e *Engine) assign(n int) {
	e.sched.assigned[n]++
	e.refreshNode(n)
}

// unassign counts out a pod of node n that turned terminal or was deleted: a cluster event
// (AssignedPodDelete) that may let an unschedulable pod fit there.
func (e *Engine) unassign(n int) {
	s := e.sched
	if s.assigned[n]--; s.assigned[n] < 0 {
		panic(fmt.Sprintf("sim: node %d has a negative pod count", n))
	}
	e.refreshNode(n)
	e.retryFor(n, 1)
	if s := e.sched; len(s.byPod) > 0 {
		s.podDeletes++ // the rest moved back fail again (catchUp)
		s.lastPodDelete = e.now
	}
}

// setCordoned cordons or uncordons node n. Uncordoning is a node update that may let
// unschedulable pods fit (the NodeUnschedulable plugin's event).
func (e *Engine) setCordoned(n int, cordoned bool) {
	e.cordoned[n] = cordoned
	e.refreshNode(n)
	if !cordoned {
		e.nodeOpened(n)
	}
}

// nodeOpened is node n turning ready or uncordoned: as many unschedulable pods as it has
// room for are tried again.
func (e *Engine) nodeOpened(n int) {
	if room := e.sched.maxPods - e.sched.assigned[n]; room > 0 && e.nodes[n].Ready {
		e.retryFor(n, int(room))
	}
}

// retryFor moves up to room unschedulable pods that node n now has room for back to the
// scheduling queue: those pinned to n first, then, if n takes unpinned pods, those first in
// failure order. Upstream moves every unschedulable pod whose rejecting plugins' queueing
// hints say the event may help; the first popped take the room and the others fail again.
// Here only those that can fit are moved, with an attempt each; after an AssignedPodDelete
// (unassign) the failures of the others are counted in bulk (catchUp), so that their
// backoff grows as upstream's without an attempt per pod per event (O(unschedulable pods)
// per event). Left out: upstream pops the pods moved in activeQ order (PrioritySort:
// priority, then the last failure's Timestamp) for those whose backoff is over, else in
// order of backoff expiry, so a pod that failed fewer times may take the room ahead of one
// that failed first; and the failures of pods a node turning ready or uncordoned moves
// back but does not fit are not counted.
// upstream: scheduling_queue.go MoveAllToActiveOrBackoffQueue,
// moveEntitiesToActiveOrBackoffQueue; noderesources/fit.go
// isSchedulableAfterAssignedPodDelete (any assigned pod deleted: Queue).
func (e *Engine) retryFor(n, room int) {
	s := e.sched
	if len(s.byPod) == 0 || !e.nodes[n].Ready {
		return
	}
	if f := s.pinned[int32(n)]; f != nil {
		for room > 0 {
			p, ok := s.next(f)
			if !ok {
				break
			}
			e.requeue(p, true)
			room--
		}
		if _, ok := f.front(); !ok {
			delete(s.pinned, int32(n))
		}
	}
	if e.cordoned[n] {
		return
	}
	for ; room > 0; room-- {
		p, ok := s.next(&s.waiting)
		if !ok {
			return
		}
		e.requeue(p, true)
	}
}

// next pops the first pod of f still unschedulable, skipping stale entries.
func (s *scheduler) next(f *podFIFO) (*podState, bool) {
	for {
		en, ok := f.front()
		if !ok {
			return nil, false
		}
		f.pop()
		if q := s.byPod[en.p]; q != nil && q.gen == en.gen && en.p.stage == stagePending {
			return en.p, true
		}
	}
}

// requeue moves unschedulable pod p back to the scheduling queue and queues its next
// attempt (retryAt). A pod moved by an event that left room for it is expected to bind:
// its attempt waits for a binding call of the scheduler's client, as a first attempt
// does. One the flush moves most likely fails again, which takes no call unless its
// PodScheduled condition's message changes (evPodUnschedulableStatus), so it waits for
// none: a flush of many pods does not hold up the bindings of others.
func (e *Engine) requeue(p *podState, expectBind bool) {
	s := e.sched
	q := s.byPod[p]
	s.catchUp(q)
	q.pooled = false
	q.gen++ // its other entries are stale
	if p.pinned() < 0 {
		s.trying++ // until its attempt (evPodScheduled with retry)
	}
	at := retryAt(q.failures, q.failedAt, e.now, s.firstAttempts > 0) + p.svc().timing.schedule.sample()
	e.schedule(at, e.arenas.scheduled.put(evPodScheduled{p: p, epoch: p.epoch, retry: true, bind: expectBind}))
}

// podBackoff is the backoff of a pod that failed failures times: 1 s doubling to 10 s.
// upstream: backoff_queue.go calculateBackoffDuration (an entity of one pod).
func podBackoff(failures int) Time {
	if failures <= 0 {
		return 0
	}
	shift := failures - 1
	if shift >= 62 || podInitialBackoff > podMaxBackoff>>shift {
		return podMaxBackoff
	}
	return podInitialBackoff << shift
}

// alignToWindow truncates t to its backoff ordering window (a whole second; virtual time 0
// is one). upstream: backoff_queue.go alignToWindow (SchedulerPopFromBackoffQ, beta and on
// by default since 1.33).
func alignToWindow(t Time) Time { return t / backoffOrderingWindow * backoffOrderingWindow }

// retryAt is when a pod moved back to the queue at now, after failures failed attempts
// the last at failedAt, is tried again. Its backoff expires at the window of failedAt plus
// its backoff; until the window after that one it is backing off and goes to the backoff
// queue, else to the active queue, tried now. The backoff queue is flushed at every
// window, and, with SchedulerPopFromBackoffQ, the scheduler pops it when the active queue
// is empty (busy false): then the pod is tried now all the same.
// upstream: scheduling_queue.go requeueEntityWithQueueingStrategy; backoff_queue.go
// isEntityBackingoff, getBackoffTime; active_queue.go unlockedPop (popBackoff);
// PriorityQueue.Run (flushBackoffQCompleted at each window).
func retryAt(failures int, failedAt, now Time, busy bool) Time {
	expiry := alignToWindow(failedAt + podBackoff(failures))
	if expiry < alignToWindow(now) || !busy {
		return now
	}
	return expiry + backoffOrderingWindow
}

// unschedulable is p's attempt finding no node: it joins the unschedulable pods, as
// AddUnschedulablePodIfNotPresent puts it (no event came while it was being tried: the
// attempt takes no virtual time).
func (e *Engine) unschedulable(p *podState) {
	s := e.sched
	q := s.byPod[p]
	if q == nil {
		q = &queuedPod{}
		s.byPod[p] = q
	}
	s.catchUp(q)
	q.failures++
	q.failedAt = e.now
	q.pooled = true
	q.gen++
	en := podEntry{p, q.gen}
	if n := p.pinned(); n >= 0 {
		f := s.pinned[n]
		if f == nil {
			f = &podFIFO{}
			s.pinned[n] = f
		}
		f.push(en)
	} else {
		s.waiting.push(en)
	}
	if m := e.failureMessage(p); m != q.message {
		q.message = m
		e.schedule(e.workloads.patchPodStatus(e.now), evPodUnschedulableStatus{p, p.epoch})
	}
	if !s.flushQueued {
		s.flushQueued = true
		e.schedule((e.now/unschedulableFlushPeriod+1)*unschedulableFlushPeriod, evUnschedulableFlush{})
	}
}

// evPodUnschedulableStatus is the scheduler's status patch of a pod whose attempt failed:
// its PodScheduled condition False (reason Unschedulable, the failureMessage), written
// when it changes. It goes through the scheduler's client, the one its bindings take
// tokens of (the failure handler waits for it before the next attempt; with
// SchedulerAsyncAPICalls, beta and off by default, it would go through the API dispatcher).
// It is a pod update: a new resourceVersion that every pod informer sees (the ReplicaSet
// controller queues the pod's owner), while the endpoint controllers queue no Service for
// it (no endpoint-relevant field changed). The simulator's pod keeps no conditions but
// Ready: a touchPod.
// upstream: schedule_one.go handleSchedulingFailure, updatePod (util.PatchPodStatus with
// sched.client); cmd/kube-scheduler/app/options/options.go createClients, createKubeConfig
// (clientConnection qps/burst); endpointslice util/controller_utils.go podEndpointsChanged.
type evPodUnschedulableStatus struct {
	p     *podState
	epoch int32
}

func (ev evPodUnschedulableStatus) String() string {
	return "scheduler: pod unschedulable status " + ev.p.pod.Name
}
func (ev evPodUnschedulableStatus) apply(e *Engine) {
	if ev.p.epoch != ev.epoch || ev.p.stage == stageGone {
		return // deleted: the patch finds no pod to update
	}
	e.touchPod(ev.p)
}

// forget drops p's queue state once it is bound or gone.
func (s *scheduler) forget(p *podState) { delete(s.byPod, p) }

// unschedulablePods counts the pods that found no node and have not been bound since
// (waiting, or being tried again).
func (s *scheduler) unschedulablePods() int { return len(s.byPod) }

// evUnschedulableFlush is the scheduling queue's periodic flush: a pod unschedulable for
// longer than podMaxInUnschedulablePodsDuration goes back to the queue whatever happened
// (UnschedulableTimeout), and is tried again. Each list of unschedulable pods is in failure
// order: only its front is looked at. It is background (isBackground): pods left pending do
// not hold a phase open. upstream: scheduling_queue.go flushUnschedulableEntitiesLeftover, Run (every 30 s).
type evUnschedulableFlush struct{}

func (evUnschedulableFlush) String() string { return "scheduler: flush unschedulable pods" }
func (evUnschedulableFlush) apply(e *Engine) {
	s := e.sched
	s.flushQueued = false
	e.flushLeftover(&s.waiting)
	for _, n := range e.pinnedNodes() {
		e.flushLeftover(s.pinned[n])
		if _, ok := s.pinned[n].front(); !ok {
			delete(s.pinned, n)
		}
	}
	if len(s.byPod) > 0 && !s.flushQueued {
		s.flushQueued = true
		e.after(unschedulableFlushPeriod, evUnschedulableFlush{})
	}
}

// flushLeftover requeues the pods of f unschedulable for longer than
// podMaxInUnschedulablePodsDuration (its front: f is in failure order). A pod that cannot
// fit now fails again at once, with no attempt queued: an unpinned one when the open nodes
// have no room that pods already moved back are not about to take (room - trying), a
// pinned one when its node is full or not ready. Upstream tries each and it fails the
// same; a cluster short of room for many pods would otherwise queue an attempt for each
// of them every five minutes (at 50,000 Services of 10 pods rolled on full nodes, more
// than 50 million events).
func (e *Engine) flushLeftover(f *podFIFO) {
	s := e.sched
	for {
		en, ok := f.front()
		if !ok {
			return
		}
		q := s.byPod[en.p]
		if q == nil || q.gen != en.gen || en.p.stage != stagePending {
			f.pop() // stale
			continue
		}
		if s.catchUp(q); e.now-q.failedAt <= podMaxInUnschedulablePodsDuration {
			return
		}
		f.pop()
		if n := en.p.pinned(); n >= 0 && !e.fitsPinned(int(n)) || n < 0 && s.room <= s.trying {
			e.unschedulable(en.p)
			continue
		}
		e.requeue(en.p, false)
	}
}

// pinnedNodes returns the nodes with unschedulable pods pinned to them, in order.
func (e *Engine) pinnedNodes() []int32 {
	nodes := make([]int32, 0, len(e.sched.pinned))
	for n := range e.sched.pinned {
		nodes = append(nodes, n)
	}
	slices.Sort(nodes)
	return nodes
}
