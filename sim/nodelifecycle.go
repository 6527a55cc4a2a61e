package sim

import (
	"fmt"
	"slices"
	"time"

	"epsim/model"
)

// The node lifecycle controller's handling of a node that stopped reporting, at its pace.
// Its monitor passes run nodeMonitorPeriod apart, each the period after the last one
// ended; a node is found not ready by the first pass nodeMonitorGracePeriod after the pass
// that saw its kubelet's last Lease renewal. A pass's workers then each take one such node:
// a GET of its live Lease, its status update (Ready Unknown), and for each of its pods a
// status update (Ready False); and each node found before and still down: a GET of its
// Lease. One call after another through the controller's one client, which the node's
// NoSchedule taint and the Events it records (one for the node, one for each pod; written
// in the background, eventWriter) share. The
// pass ends when its nodes are done; then handleDisruption sets each zone's taint rate from
// the zones' health, and the zones' taint passes put the NoExecute taint on their not-ready
// nodes at those rates. The taint eviction controller evicts a node's pods 300 s after its
// taint (the default toleration), through its own client: for each pod a GET, a status
// patch (the DisruptionTarget condition) and the DELETE, and an Event.
// upstream: pkg/controller/nodelifecycle/node_lifecycle_controller.go monitorNodeHealth
// (tryUpdateNodeHealth, processTaintBaseEviction, RecordNodeStatusChange, MarkPodsNotReady;
// workqueue.ParallelizeUntil over nodeUpdateWorkerSize workers), handleDisruption,
// ComputeZoneState, setLimiterInZone, ReducedQPSFunc, HealthyQPSFunc,
// doNoExecuteTaintingPass, doNoScheduleTaintingPass, markNodeAsReachable;
// scheduler/rate_limited_queue.go SwapLimiter; util/node/controller_utils.go
// MarkPodsNotReady, SwapNodeControllerTaint; controller_utils.go AddOrUpdateTaintOnNode
// (a GET, then a PATCH); tainteviction/taint_eviction.go processPodOnNode,
// deletePodHandler, addConditionAndDeletePod.

// Node lifecycle controller defaults (kube-controller-manager) and the kubelet's Lease.
const (
	// nodeEvictionRate is --node-eviction-rate: nodes tainted per second in a zone that is
	// healthy or wholly down.
	nodeEvictionRate = 0.1
	// secondaryNodeEvictionRate is --secondary-node-eviction-rate: in a partially disrupted
	// zone of more than largeClusterSizeThreshold nodes (smaller ones stop evicting).
	secondaryNodeEvictionRate = 0.01
	// largeClusterSizeThreshold is --large-cluster-size-threshold.
	largeClusterSizeThreshold = 50
	// unhealthyZoneThreshold is --unhealthy-zone-threshold: a zone with more than 2 nodes not
	// ready, and at least this share of them, is partially disrupted.
	unhealthyZoneThreshold = 0.55
	// nodeLifecycleQPS and nodeLifecycleBurst are its client's (--kube-api-qps, -burst), and
	// the taint eviction controller's, each its own.
	nodeLifecycleQPS   = 20
	nodeLifecycleBurst = 30
	// nodeLifecycleLatency is one call's API latency (the workload controllers' assumed 5 ms).
	nodeLifecycleLatency = Time(5 * time.Millisecond)
	// nodeMonitorPeriod is --node-monitor-period: from the end of one monitor pass to the
	// start of the next.
	nodeMonitorPeriod = Time(5 * time.Second)
	// nodeUpdateWorkers is nodeUpdateWorkerSize: a pass's workers.
	nodeUpdateWorkers = 8
	// nodeLeaseRenewInterval is how often a kubelet renews its node's Lease: a quarter of the
	// Lease's 40 s duration. upstream: pkg/kubelet/kubelet.go (renewInterval).
	nodeLeaseRenewInterval = Time(10 * time.Second)
	// nodeStatusUpdatePeriod is the kubelet's --node-status-update-frequency: how often it
	// computes its node's status, and writes it when it changed (a node back writes Ready
	// over the Unknown the node lifecycle controller set).
	// upstream: pkg/kubelet/kubelet_node_status.go tryUpdateNodeStatus.
	nodeStatusUpdatePeriod = Time(10 * time.Second)
)

// nodeLifecycle is the node lifecycle controller's state, and the taint eviction
// controller's client.
type nodeLifecycle struct {
	client, evictions *tokenBucket
	// events and evictionEvents write the Events of the node lifecycle controller,
	// through client, and of the taint eviction controller, through evictions.
	events, evictionEvents eventWriter
	// grid is a start time of the monitor passes: they run nodeMonitorPeriod apart from it,
	// and a pass that had nodes to mark moves it to its end. lastPass is when the last pass
	// started, or ended if it had nodes: the next is a period after it at least.
	grid, lastPass Time
	// passQueued: an evMonitorPass is queued; busy: the workers of the running pass that
	// are at work (0: no pass is running).
	passQueued bool
	busy       int
	// due holds the nodes past their grace period, for the next pass; todo the running
	// pass's nodes no worker has taken yet (from todoHead on), of which dueLeft are newly
	// past their grace period. reported holds the nodes back whose kubelet wrote Ready, for
	// the next pass to find (markNodeAsReachable). Each holds the phase open.
	due, todo, reported []dueNode
	todoHead, dueLeft   int
	// passHolds is set while the running pass found nodes due or back: its end (the zones'
	// health) holds the phase open too.
	passHolds bool
	workers   [nodeUpdateWorkers]nodeWorker
	// readySince holds, for each pod it marked not ready, the Ready condition's transition
	// time before: what the pod's kubelet, which never saw it not ready, still has.
	readySince map[*podState]model.Timestamp
	// leasePhase, statusPhase and nodeStatusPhase are each node's phases (in [0, period))
	// of its kubelet's Lease renewals, of its status manager's reconcile ticks and of its
	// node status updates.
	leasePhase, statusPhase, nodeStatusPhase []Time
	// renewedAt is, for a node back from a failure, when its kubelet renews its Lease
	// again (its next renewal tick): until then the controller still sees the failure
	// (leaseStale).
	renewedAt []Time
	// tainted[i] is set while node i has the NoExecute taint; taints[i] counts its taints,
	// so that an eviction of an earlier one is void.
	tainted []bool
	taints  []int32
	// unreachable[i] is set while node i has the taints of its last failure as the
	// controller put them on (found not ready): the first pass that sees the node Ready
	// takes them off (nodeBack).
	unreachable []bool
	// evictionDue[i] is set while node i's taint has its pods' eviction still to come
	// (evEvictNode), and evictionsDue counts those nodes: they hold the phase open
	// (Engine.quiescent), where an eviction the taint's removal voided does not.
	evictionDue  []bool
	evictionsDue int
	// zones are the eviction queues by zone name; zoneNames the zones in node order.
	zones     map[string]*evictionZone
	zoneNames []string
	// allDown is set while every zone is wholly down, as the last pass found them: no
	// node is tainted.
	allDown bool
	// taintGrid is when the last taint pass ended: the next starts taintPassPeriod after
	// it or a multiple later (the passes with nothing to do are not run).
	// taintPassQueued: an evTaintPass is queued, at taintPassAt, of generation taintGen (an
	// earlier one queued since voids it); tainting: a pass waits for its calls, at zone
	// taintZone (an index of zoneNames).
	taintGrid, taintPassAt    Time
	taintPassQueued, tainting bool
	taintZone                 int
	taintGen                  int32
}

// taintPassPeriod is the period of the taint passes, from each pass's end.
// upstream: node_lifecycle_controller.go Run (wait.UntilWithContext(doNoExecuteTaintingPass,
// scheduler.NodeEvictionPeriod)); scheduler/rate_limited_queue.go NodeEvictionPeriod.
const taintPassPeriod = Time(100 * time.Millisecond)

// maxQueuedEvents is how many recorded Events an event broadcaster holds for its writer;
// it drops those recorded beyond. upstream: client-go tools/record/event.go
// maxQueuedEvents (watch.NewLongQueueBroadcaster with DropIfChannelFull).
const maxQueuedEvents = 1000

// eventWriter is a controller's event broadcaster: recording an Event does not wait; one
// goroutine writes the Events, one call after another, each through the controller's
// client (client), whose token bucket the controller's own calls share. So while a
// controller's workers keep calling, the writer gets one token in as many as there are
// callers, and the Events wait (up to maxQueuedEvents; later ones are dropped).
// upstream: client-go tools/record/event.go NewBroadcaster, StartRecordingToSink,
// recordToSink; util/node/controller_utils.go MarkPodsNotReady (recorder.Event after each
// pod's UpdateStatus); node_lifecycle_controller.go Run (the sink's client is the
// controller's own RESTClient).
type eventWriter struct {
	client *tokenBucket
	// waiting counts the Events recorded and not yet taken by the writer; writing is set
	// while it writes one.
	waiting int
	writing bool
	// dropped counts the Events recorded while maxQueuedEvents waited.
	dropped int64
}

// recordEvent records an Event with w.
func (e *Engine) recordEvent(w *eventWriter) {
	if w.waiting >= maxQueuedEvents {
		w.dropped++
		return
	}
	w.waiting++
	if !w.writing {
		e.writeEvent(w)
	}
}

// writeEvent starts the write of w's next Event, if one waits.
func (e *Engine) writeEvent(w *eventWriter) {
	if w.waiting == 0 {
		w.writing = false
		return
	}
	w.writing, w.waiting = true, w.waiting-1
	e.schedule(w.client.reserve(e.now)+nodeLifecycleLatency, evEventWritten{w})
}

// evEventWritten is an Event's create call returning: the writer takes the next. It holds
// no phase open (nothing waits for Events).
type evEventWritten struct{ w *eventWriter }

func (evEventWritten) String() string     { return "event written" }
func (ev evEventWritten) apply(e *Engine) { e.writeEvent(ev.w) }

// dueNode is a node found not ready, in one failure (its epoch).
type dueNode struct {
	node, epoch int
	// found marks a node a pass found not ready before: this pass only checks its Lease.
	found bool
}

// nodeWorker is one of a pass's workers: the node it is on (node < 0: none) and the pods
// left to mark (pods[next:]), as the node's pods were when the worker took it.
type nodeWorker struct {
	node, epoch int
	pods        []*podState
	next        int
}

// evictionZone is one zone's taint queue (RateLimitedTimedQueue) and its rate limiter: a
// token bucket of burst 1 at the rate its state sets (SwapLimiter).
type evictionZone struct {
	name  string
	nodes []int // node indexes, by zone
	queue []dueNode
	state zoneState
	qps   float64
	next  Time // when the limiter has its token
}

// zoneState is a zone's health as handleDisruption last found it.
type zoneState uint8

const (
	zoneInitial zoneState = iota
	zoneNormal
	zonePartial
	zoneFull
)

// lifecycle returns the node lifecycle controller, made at the first node failure.
func (e *Engine) lifecycle() *nodeLifecycle {
	if e.nodeLC != nil {
		return e.nodeLC
	}
	n := len(e.nodes)
	nl := &nodeLifecycle{client: newTokenBucket(nodeLifecycleQPS, nodeLifecycleBurst),
		evictions: newTokenBucket(nodeLifecycleQPS, nodeLifecycleBurst), zones: map[string]*evictionZone{},
		readySince: map[*podState]model.Timestamp{}, leasePhase: make([]Time, n), statusPhase: make([]Time, n),
		tainted: make([]bool, n), taints: make([]int32, n), evictionDue: make([]bool, n), renewedAt: make([]Time, n),
		unreachable: make([]bool, n)}
	nl.events.client, nl.evictionEvents.client = nl.client, nl.evictions
	rng := newStream(e.cfg.Seed, streamNodeLifecycle)
	nl.grid = Time(rng.Int64N(int64(nodeMonitorPeriod)))
	for i := range n {
		nl.leasePhase[i] = Time(rng.Int64N(int64(nodeLeaseRenewInterval)))
		nl.statusPhase[i] = Time(rng.Int64N(int64(statusReconcilePeriod)))
	}
	// Drawn after the others, so that adding them moved none of those.
	nl.nodeStatusPhase = make([]Time, n)
	for i := range n {
		nl.nodeStatusPhase[i] = Time(rng.Int64N(int64(nodeStatusUpdatePeriod)))
	}
	for i, node := range e.nodes {
		z := nl.zones[node.Zone]
		if z == nil {
			z = &evictionZone{name: node.Zone, qps: nodeEvictionRate}
			nl.zones[node.Zone] = z
			nl.zoneNames = append(nl.zoneNames, node.Zone)
		}
		z.nodes = append(z.nodes, i)
	}
	for i := range nl.workers {
		nl.workers[i].node = -1
	}
	e.nodeLC = nl
	return nl
}

// notReadyAt is when the pass that finds node i, failed now, not ready starts: the kubelet
// renewed the node's Lease last up to nodeLeaseRenewInterval before (at the node's phase),
// the first pass after that saw the renewal, and the grace period runs from that pass.
// (Passes start the period after the last one ended, a few milliseconds late each, so the
// pass at the grace period's end is just past it and finds the node.) 40–55 s after the
// failure, unless a long pass moves the passes' grid.
func (e *Engine) notReadyAt(i int) Time {
	nl := e.lifecycle()
	renewed := e.now - posMod(e.now-nl.leasePhase[i], nodeLeaseRenewInterval)
	seen := renewed + posMod(nl.grid-renewed, nodeMonitorPeriod)
	return seen + nodeMonitorGracePeriod
}

// leaseStale reports whether the node lifecycle controller still sees failure epoch of
// node i: the node is down, or back (the epoch after) but its kubelet has not renewed its
// Lease since, which is the heartbeat the controller goes by; a node back a moment before
// its Lease renews is found not ready, and its pods marked, all the same.
// upstream: node_lifecycle_controller.go tryUpdateNodeHealth (probeTimestamp moves when the
// observed Lease's renewTime changes); pkg/kubelet/nodelease (renewal every 10 s).
func (e *Engine) leaseStale(i, epoch int) bool {
	if e.nodeEpoch[i] == epoch && e.nodeDown[i] {
		return true
	}
	nl := e.nodeLC
	return nl != nil && e.nodeEpoch[i] == epoch+1 && !e.nodeDown[i] && e.now < nl.renewedAt[i]
}

// nodeReturned notes that node i is back now: its kubelet renews its Lease at its next
// renewal tick.
func (nl *nodeLifecycle) nodeReturned(i int, now Time) {
	nl.renewedAt[i] = now + posMod(nl.leasePhase[i]-now, nodeLeaseRenewInterval)
}

// posMod is a mod m in [0, m).
func posMod(a, m Time) Time {
	r := a % m
	if r < 0 {
		r += m
	}
	return r
}

// nextPass is the start of the first monitor pass at or after t, on the passes' grid and
// after the last pass.
func (nl *nodeLifecycle) nextPass(t Time) Time {
	at := t + posMod(nl.grid-t, nodeMonitorPeriod)
	if at <= nl.lastPass {
		at += nodeMonitorPeriod
	}
	return at
}

// evNodeDue is node i past its grace period: the next pass finds it not ready.
type evNodeDue struct{ node, epoch int }

func (ev evNodeDue) String() string { return fmt.Sprintf("node %d past its grace period", ev.node) }
func (ev evNodeDue) apply(e *Engine) {
	if !e.leaseStale(ev.node, ev.epoch) {
		return
	}
	nl := e.lifecycle()
	nl.due = append(nl.due, dueNode{node: ev.node, epoch: ev.epoch})
	e.queuePass()
}

// queuePass queues the next monitor pass, unless one is queued or running (its end queues
// the next while there is work for it: a node due, back or still down).
func (e *Engine) queuePass() {
	nl := e.lifecycle()
	if nl.passQueued || nl.busy > 0 {
		return
	}
	nl.passQueued = true
	e.schedule(nl.nextPass(e.now), evMonitorPass{})
}

// evMonitorPass is a monitor pass: it finds the nodes back whose kubelet wrote Ready, and
// takes their taints off; its workers take, in node order, the nodes past their grace
// period since the last one, and those an earlier pass found not ready that are still
// down, whose Leases it GETs again; one without any ends at once. While a node is down,
// a pass starts nodeMonitorPeriod after the last one ended: with many nodes down, their
// Lease GETs at the client's rate make the passes long, and a node back is found late.
// Passes with no node down, due or back are not run. The pass is a background event: what
// holds the phase open is its nodes due or back (holdsPhase), not its Lease GETs of nodes
// it already found.
// upstream: node_lifecycle_controller.go Run (wait.UntilWithContext(monitorNodeHealth,
// nodeMonitorPeriod): the period from a pass's end), monitorNodeHealth,
// tryUpdateNodeHealth (the live Lease GET of NodeControllerLeaseCircuitBreaker),
// processTaintBaseEviction (markNodeAsReachable).
type evMonitorPass struct{}

func (evMonitorPass) String() string { return "node lifecycle monitor pass" }
func (evMonitorPass) apply(e *Engine) {
	nl := e.nodeLC
	nl.passQueued = false
	nl.lastPass = e.now
	// The nodes whose kubelet wrote Ready: the pass sees the node object Ready and takes
	// the taints off, even if the node has failed again since (not yet past its grace).
	for _, d := range nl.reported {
		if e.nodes[d.node].Ready && nl.unreachable[d.node] {
			e.nodeBack(d.node)
			nl.passHolds = true
		}
	}
	nl.reported = nl.reported[:0]
	nl.todo, nl.todoHead, nl.dueLeft = nl.todo[:0], 0, 0
	for _, d := range nl.due {
		if e.leaseStale(d.node, d.epoch) {
			nl.todo = append(nl.todo, d)
		}
	}
	nl.due = nl.due[:0]
	for i, down := range e.nodeDown {
		if down && !e.nodes[i].Ready {
			nl.todo = append(nl.todo, dueNode{node: i, epoch: e.nodeEpoch[i], found: true})
		}
	}
	// A node back and failed again before its Ready was written is due and found: it is
	// checked once, as newly past its grace period.
	slices.SortFunc(nl.todo, func(a, b dueNode) int {
		switch {
		case a.node != b.node:
			return a.node - b.node
		case a.found == b.found:
			return 0
		case b.found:
			return -1 // the newly due one first: it is the one kept
		}
		return 1
	})
	nl.todo = slices.CompactFunc(nl.todo, func(a, b dueNode) bool { return a.node == b.node })
	for _, d := range nl.todo {
		if !d.found {
			nl.dueLeft++
		}
	}
	nl.passHolds = nl.passHolds || nl.dueLeft > 0
	if len(nl.todo) == 0 {
		nl.passHolds = false
		e.handleDisruption()
		return
	}
	for w := range nl.workers {
		if nl.todoHead == len(nl.todo) {
			break
		}
		nl.busy++
		e.takeNode(w)
	}
}

// takeNode gives worker w the pass's next node, or ends its part of the pass; the last
// worker to end ends the pass, which moves the passes' grid to its end.
func (e *Engine) takeNode(w int) {
	nl := e.nodeLC
	wk := &nl.workers[w]
	clear(wk.pods)
	wk.pods, wk.next, wk.node = wk.pods[:0], 0, -1
	for nl.todoHead < len(nl.todo) {
		d := nl.todo[nl.todoHead]
		nl.todoHead++
		if !d.found {
			nl.dueLeft--
		}
		if !e.leaseStale(d.node, d.epoch) {
			continue // back: its Lease renewed, it is healthy
		}
		// tryUpdateNodeHealth finds the node's Lease older than the grace period in its
		// cache, and GETs the live one to be sure (NodeControllerLeaseCircuitBreaker, beta and
		// on by default since 1.37).
		at := nl.client.reserve(e.now) + nodeLifecycleLatency
		if d.found {
			e.schedule(at, evLeaseRechecked{w})
		} else {
			e.schedule(at, evLeaseChecked{w, d})
		}
		return
	}
	nl.busy--
	if nl.busy > 0 {
		return
	}
	nl.grid, nl.lastPass = e.now, e.now
	nl.passHolds = false
	e.handleDisruption()
	if len(nl.due) > 0 || len(nl.reported) > 0 || slices.ContainsFunc(nl.todo, func(d dueNode) bool {
		return e.nodeDown[d.node] && !e.nodes[d.node].Ready
	}) {
		e.queuePass()
	}
}

// holdsPhase reports whether the node lifecycle controller has work the phase waits for:
// nodes due or back for the next pass, or a running pass that found some.
func (nl *nodeLifecycle) holdsPhase() bool {
	return len(nl.due) > 0 || len(nl.reported) > 0 || nl.dueLeft > 0 || nl.passHolds
}

// evLeaseRechecked is worker w's live Lease GET of a node an earlier pass found not ready,
// still down, returning: nothing changes, and the worker goes on. A background event, as
// the pass that sends it.
type evLeaseRechecked struct{ worker int }

func (evLeaseRechecked) String() string     { return "node Lease checked again" }
func (ev evLeaseRechecked) apply(e *Engine) { e.takeNode(ev.worker) }

// evLeaseChecked is worker w's live Lease GET of node d returning: the Lease is as old as
// the cached one. A node found not ready before needs nothing more; a node newly past its
// grace period gets its status update (Ready Unknown), then the worker goes on.
// upstream: node_lifecycle_controller.go tryUpdateNodeHealth.
type evLeaseChecked struct {
	worker int
	d      dueNode
}

func (ev evLeaseChecked) String() string { return fmt.Sprintf("node %d Lease checked", ev.d.node) }
func (ev evLeaseChecked) apply(e *Engine) {
	nl, d := e.nodeLC, ev.d
	if !e.leaseStale(d.node, d.epoch) {
		e.takeNode(ev.worker)
		return
	}
	wk := &nl.workers[ev.worker]
	wk.node, wk.epoch = d.node, d.epoch
	wk.pods = append(wk.pods, e.podsOnNode[d.node]...)
	at := nl.client.reserve(e.now) + nodeLifecycleLatency
	e.schedule(at, evNodeUnknown{ev.worker, d.node, d.epoch})
}

// evNodeUnknown is the node's status update returning: the node is not ready, queued for
// its NoExecute taint, its NoSchedule taint is put on (a GET and a PATCH, by another
// worker) and an Event recorded; worker w then marks its pods.
type evNodeUnknown struct{ worker, node, epoch int }

func (ev evNodeUnknown) String() string { return fmt.Sprintf("node %d not ready", ev.node) }
func (ev evNodeUnknown) apply(e *Engine) {
	nl := e.nodeLC
	if e.leaseStale(ev.node, ev.epoch) {
		if !e.nodeDown[ev.node] && e.nodes[ev.node].Ready {
			// Back, its Lease not renewed yet: its kubelet writes Ready over the Unknown at
			// its next node status update.
			e.after(posMod(nl.nodeStatusPhase[ev.node]-e.now, nodeStatusUpdatePeriod), evNodeReported{ev.node, e.nodeEpoch[ev.node]})
		}
		e.setNodeReady(ev.node, false)
		nl.unreachable[ev.node] = true
		e.queueForTaint(ev.node, ev.epoch)
		e.recordEvent(&nl.events) // NodeNotReady
		for range 2 {             // the NoSchedule taint's GET and PATCH
			nl.client.reserve(e.now)
		}
	} else {
		nl.workers[ev.worker].pods = nl.workers[ev.worker].pods[:0] // back: nothing to mark
	}
	e.markNext(ev.worker)
}

// markNext sends worker w's next pod status update (MarkPodsNotReady), skipping pods no
// longer running ready on the node, or takes the next node when none is left. A pod turns
// not ready when its call returns, and its Event is recorded then. A worker marks every pod
// of its node, even once the node is back (MarkPodsNotReady does not look again).
func (e *Engine) markNext(w int) {
	nl := e.nodeLC
	wk := &nl.workers[w]
	for wk.next < len(wk.pods) {
		p := wk.pods[wk.next]
		wk.next++
		if !p.pod.Ready || p.stage != stageRunning || int(p.node) != wk.node {
			continue
		}
		at := nl.client.reserve(e.now) + nodeLifecycleLatency
		nl.readySince[p] = p.pod.ReadyTransition
		e.schedule(at, e.arenas.setReady.put(evPodSetReady{p, p.epoch, false}))
		e.schedule(at, evMarked{w, p})
		return
	}
	e.takeNode(w)
}

// evMarked is a worker's pod status update returning: it records an Event (written in the
// background), and the worker goes on. A pod marked on a node already back is its kubelet's to set
// right at its next status reconcile (podBack).
type evMarked struct {
	worker int
	p      *podState
}

func (evMarked) String() string { return "node lifecycle marked a pod not ready" }
func (ev evMarked) apply(e *Engine) {
	nl := e.nodeLC
	e.recordEvent(&nl.events) // the pod's NodeNotReady
	if p := ev.p; !e.nodeDown[p.node] && !p.pod.Ready && p.stage == stageRunning {
		if _, ok := nl.readySince[p]; ok {
			e.podBack(p)
		}
	}
	e.markNext(ev.worker)
}

// queueForTaint adds node i, just found not ready, to its zone's taint queue.
func (e *Engine) queueForTaint(i, epoch int) {
	z := e.lifecycle().zones[e.nodes[i].Zone]
	z.queue = append(z.queue, dueNode{node: i, epoch: epoch})
	e.queueTaintPass()
}

// queueTaintPass queues the first taint pass with something to do: the first on the
// passes' period at which a zone with nodes queued has its limiter's token; one queued for
// later gives way to it. None is queued while a pass runs (its end queues the next), or
// while no zone can taint.
func (e *Engine) queueTaintPass() {
	nl := e.nodeLC
	if nl.tainting {
		return
	}
	first := Time(-1)
	for _, name := range nl.zoneNames {
		if z := nl.zones[name]; len(z.queue) > 0 && z.qps > 0 && (first < 0 || z.next < first) {
			first = z.next
		}
	}
	if first < 0 {
		return
	}
	at := nl.taintGrid + taintPassPeriod
	if t := max(first, e.now); t > at {
		at += (t - at + taintPassPeriod - 1) / taintPassPeriod * taintPassPeriod
	}
	if nl.taintPassQueued && nl.taintPassAt <= at {
		return
	}
	nl.taintPassQueued, nl.taintPassAt = true, at
	nl.taintGen++
	e.schedule(at, evTaintPass{nl.taintGen})
}

// handleDisruption is the end of a monitor pass: each zone's state from its nodes'
// readiness, and the taint rates they set. When every zone is wholly down, evictions stop:
// every taint is taken off (a pending eviction with it) and every rate is 0, until a zone
// is not.
func (e *Engine) handleDisruption() {
	nl := e.nodeLC
	states := make([]zoneState, len(nl.zoneNames))
	all := true
	for k, name := range nl.zoneNames {
		z := nl.zones[name]
		notReady := 0
		for _, i := range z.nodes {
			if !e.nodes[i].Ready {
				notReady++
			}
		}
		switch {
		case notReady == len(z.nodes):
			states[k] = zoneFull
		case notReady > 2 && float64(notReady)/float64(len(z.nodes)) >= unhealthyZoneThreshold:
			states[k] = zonePartial
		default:
			states[k] = zoneNormal
		}
		all = all && states[k] == zoneFull
	}
	switch {
	case all && nl.allDown:
	case all:
		nl.allDown = true
		for _, name := range nl.zoneNames {
			z := nl.zones[name]
			z.state = zoneFull
			e.swapLimiter(z, 0)
			z.queue = z.queue[:0]
		}
		// markNodeAsReachable for every node: a tainted one loses its taint (a GET and a
		// PATCH) and its pods' pending eviction; the next pass queues the nodes again.
		for i := range e.nodes {
			if nl.tainted[i] {
				nl.untaint(i)
				nl.client.reserve(e.now)
				nl.client.reserve(e.now)
			}
			if e.nodeDown[i] && !e.nodes[i].Ready {
				z := nl.zones[e.nodes[i].Zone]
				z.queue = append(z.queue, dueNode{node: i, epoch: e.nodeEpoch[i]})
			}
		}
	default:
		was := nl.allDown
		nl.allDown = false
		for k, name := range nl.zoneNames {
			z := nl.zones[name]
			if was || z.state != states[k] {
				e.swapLimiter(z, zoneRate(states[k], len(z.nodes)))
			}
			z.state = states[k]
		}
		e.queueTaintPass()
	}
}

// zoneRate is the taint rate of a zone of n nodes in state st (setLimiterInZone).
func zoneRate(st zoneState, n int) float64 {
	if st == zonePartial {
		if n > largeClusterSizeThreshold {
			return secondaryNodeEvictionRate
		}
		return 0
	}
	return nodeEvictionRate
}

// swapLimiter gives zone z a limiter of the rate (SwapLimiter): unchanged if of that rate;
// else a new bucket, full if the old one had its token (taken) and empty if it had not.
func (e *Engine) swapLimiter(z *evictionZone, rate float64) {
	if rate == z.qps {
		return
	}
	hadToken := z.qps > 0 && e.now >= z.next
	z.qps = rate
	switch {
	case rate <= 0:
	case hadToken:
		z.next = e.now
	default:
		z.next = e.now + Time(float64(time.Second)/rate)
	}
}

// evTaintPass is a taint pass (void if another was queued since): zone by zone (in node order; upstream's order is a map's),
// it taints the first node of the zone's queue that is still down, as the zone's limiter
// allows, with a GET and a PATCH the pass waits for (evTaintGot), and schedules the
// eviction of its pods after their toleration, from when the taint is on. The next pass
// starts taintPassPeriod after this one ends.
// upstream: node_lifecycle_controller.go doNoExecuteTaintingPass;
// scheduler/rate_limited_queue.go Try; controller_utils.go SwapNodeControllerTaint.
type evTaintPass struct{ gen int32 }

func (evTaintPass) String() string { return "taint pass" }
func (ev evTaintPass) apply(e *Engine) {
	nl := e.nodeLC
	if ev.gen != nl.taintGen || !nl.taintPassQueued {
		return // an earlier pass was queued since
	}
	nl.taintPassQueued = false
	nl.tainting, nl.taintZone = true, 0
	e.taintNext()
}

// taintNext goes on with the running taint pass at its next zone, or ends it.
func (e *Engine) taintNext() {
	nl := e.nodeLC
	for nl.taintZone < len(nl.zoneNames) {
		z := nl.zones[nl.zoneNames[nl.taintZone]]
		nl.taintZone++
		if z.qps > 0 && e.now >= z.next && e.taintZoneHead(z) {
			return // the pass waits for the taint's calls
		}
	}
	nl.tainting = false
	nl.taintGrid = e.now
	e.queueTaintPass()
}

// taintZoneHead takes the zone's limiter token for the first entry of its queue still to
// be taken, and taints the node unless it is Ready. It reports whether it made the taint's
// calls.
func (e *Engine) taintZoneHead(z *evictionZone) bool {
	nl := e.nodeLC
	for len(z.queue) > 0 {
		q := z.queue[0]
		z.queue = z.queue[1:]
		back := e.nodeEpoch[q.node] == q.epoch+1 // evNodeRecover moved the epoch on
		if e.nodeEpoch[q.node] != q.epoch && !back || nl.tainted[q.node] {
			continue // failed again since (its entry of now stands), or tainted
		}
		// Each entry the pass takes uses the zone's token, whether it taints the node or
		// not. A node back is taken off the queue by the monitor pass that finds it Ready
		// (nodeBack); until then its entry is taken as any: the node is tainted while its
		// Ready condition is still Unknown (its kubelet has not written it yet), and let go
		// once it is Ready. upstream: scheduler/rate_limited_queue.go Try (TryAccept before
		// each entry); node_lifecycle_controller.go doNoExecuteTaintingPass ("ready now.
		// Ignoring taint request"), markNodeAsReachable.
		z.next = e.now + Time(float64(time.Second)/z.qps)
		if e.nodes[q.node].Ready {
			break
		}
		nl.tainted[q.node] = true
		nl.taints[q.node]++
		nl.evictionDue[q.node] = true
		nl.evictionsDue++
		get := nl.client.reserve(e.now) + nodeLifecycleLatency
		e.schedule(get, evTaintGot{q.node, q.epoch, nl.taints[q.node]})
		return true
	}
	return false
}

// evTaintGot is the GET of a node the taint pass taints answered: the PATCH that puts the
// taint on asks the client for its token now, the toleration of the node's pods runs from
// when it is on (evEvictNode), and the pass goes on then (evTaintOn).
// upstream: controller_utils.go AddOrUpdateTaintOnNode (Get, then PatchNodeTaints).
type evTaintGot evEvictNode

func (ev evTaintGot) String() string { return fmt.Sprintf("taint node %d", ev.node) }
func (ev evTaintGot) apply(e *Engine) {
	on := e.nodeLC.client.reserve(e.now) + nodeLifecycleLatency
	e.schedule(on, evTaintOn{})
	e.schedule(on+defaultTolerationSeconds, evEvictNode(ev))
}

// evTaintOn is a taint's PATCH answered: the taint pass goes on with the next zone.
type evTaintOn struct{}

func (evTaintOn) String() string  { return "taint on" }
func (evTaintOn) apply(e *Engine) { e.taintNext() }

// statusReconcilePeriod is how often a kubelet's status manager compares the API's pod
// statuses with its own and writes back the ones that differ. upstream:
// pkg/kubelet/status/status_manager.go syncPeriod.
const statusReconcilePeriod = Time(10 * time.Second)

// podBack takes up a running pod that is not ready on a node that came back. A pod the node
// lifecycle controller marked not ready is ready again at its kubelet's next status
// reconcile, with the Ready condition the kubelet kept: its old transition time, so that no
// trigger time comes of it (the tracker counts only times that moved forward). Others wait
// for their readiness probe.
// upstream: status_manager.go syncBatch (needsReconcile), syncPod.
func (e *Engine) podBack(p *podState) {
	if nl := e.nodeLC; nl != nil {
		if since, ok := nl.readySince[p]; ok {
			delete(nl.readySince, p)
			d := posMod(nl.statusPhase[p.node]-e.now, statusReconcilePeriod)
			e.after(d, evPodReadyAgain{p, p.epoch, since})
			return
		}
	}
	e.after(p.svc().timing.ready.sample(), e.arenas.ready.put(evPodReady{p, p.epoch}))
}

// evPodReadyAgain is a recovered kubelet writing back a pod's Ready condition as it kept it.
type evPodReadyAgain struct {
	p     *podState
	epoch int32
	since model.Timestamp
}

func (ev evPodReadyAgain) String() string { return "pod ready again " + ev.p.pod.Name }
func (ev evPodReadyAgain) apply(e *Engine) {
	p := ev.p
	if p.epoch != ev.epoch || p.stage != stageRunning || p.pod.Ready {
		return
	}
	e.setReadyWith(p, true, ev.since, nil)
}

// evNodeReported is the kubelet of node i, back, writing its node's status: the node is
// Ready, and the next monitor pass to start finds it so and takes its taints off.
type evNodeReported struct{ node, epoch int }

func (ev evNodeReported) String() string { return fmt.Sprintf("node %d ready", ev.node) }
func (ev evNodeReported) apply(e *Engine) {
	if e.nodeEpoch[ev.node] != ev.epoch || e.nodeDown[ev.node] || e.nodes[ev.node].Ready {
		return
	}
	e.setNodeReady(ev.node, true)
	nl := e.nodeLC
	nl.reported = append(nl.reported, dueNode{node: ev.node, epoch: ev.epoch})
	e.queuePass()
}

// nodeBack is node i's failure ending for the node lifecycle controller, found by a monitor
// pass: its taints come off (a GET and a PATCH each), which cancels its pods' pending
// eviction; the pass's end sees the zones' health change.
func (e *Engine) nodeBack(i int) {
	nl := e.nodeLC
	if nl == nil {
		return
	}
	nl.unreachable[i] = false
	calls := 2 // the NoSchedule taint
	if nl.tainted[i] {
		nl.untaint(i)
		calls += 2
	}
	// markNodeAsReachable takes the node off its zone's taint queue.
	z := nl.zones[e.nodes[i].Zone]
	z.queue = slices.DeleteFunc(z.queue, func(q dueNode) bool { return q.node == i })
	for range calls {
		nl.client.reserve(e.now)
	}
}

// untaint takes node i's NoExecute taint off, voiding its pods' eviction if still to come.
// upstream: pkg/controller/tainteviction/taint_eviction.go handleNodeUpdate (a node without
// NoExecute taints has its pods' scheduled deletions cancelled).
func (nl *nodeLifecycle) untaint(i int) {
	nl.tainted[i] = false
	nl.taints[i]++
	nl.evictionDone(i)
}

// evictionDone records that node i's eviction is no longer to come: it ran, or was voided.
func (nl *nodeLifecycle) evictionDone(i int) {
	if nl.evictionDue[i] {
		nl.evictionDue[i] = false
		nl.evictionsDue--
	}
}
