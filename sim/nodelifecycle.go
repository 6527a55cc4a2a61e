package sim

import (
	"fmt"
	"math/rand/v2"
	"time"

	"epsim/model"
)

// The node lifecycle controller's handling of a node that stopped reporting, at its pace:
// it marks the node's pods not ready one status update at a time through its client, and
// taints the nodes of each zone for eviction at a rate set by the zone's health; the
// NoExecute taint's default toleration then evicts the pods 300 s after the taint.
// upstream: pkg/controller/nodelifecycle/node_lifecycle_controller.go monitorNodeHealth
// (MarkPodsNotReady), processTaintBaseEviction, doNoExecuteTaintingPass, handleDisruption,
// ComputeZoneState, setLimiterInZone, ReducedQPSFunc, HealthyQPSFunc.

// Node lifecycle controller defaults (kube-controller-manager).
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
	// nodeLifecycleQPS and nodeLifecycleBurst are its client's (--kube-api-qps, -burst).
	nodeLifecycleQPS   = 20
	nodeLifecycleBurst = 30
	// nodeLifecycleLatency is one call's API latency (the workload controllers' assumed 5 ms).
	nodeLifecycleLatency = Time(5 * time.Millisecond)
)

// nodeLifecycle is the node lifecycle controller's state.
type nodeLifecycle struct {
	client *tokenBucket
	// marks are the pods still to mark not ready, in order (from markHead on); marking is
	// true while an evMarkNext is queued.
	marks    []podMark
	markHead int
	marking  bool
	// readySince holds, for each pod it marked not ready, the Ready condition's transition
	// time before: what the pod's kubelet, which never saw it not ready, still has.
	readySince map[*podState]model.Timestamp
	// reconcile draws when a recovered kubelet's status manager next reconciles.
	reconcile *rand.Rand
	// zones are the eviction queues by zone name; zoneNames the zones in node order.
	zones     map[string]*evictionZone
	zoneNames []string
}

// evictionZone is one zone's taint queue (RateLimitedTimedQueue) and its rate limiter: a
// token bucket of burst 1 at the rate the zone's state sets, new (full) when that changes.
type evictionZone struct {
	name    string
	nodes   []int // node indexes, by zone
	queue   []queuedNode
	qps     float64
	next    Time // when the limiter has its token
	pending bool // an evTaintPass is queued
}

type queuedNode struct{ node, epoch int }

// podMark is a pod to mark not ready, of a node in one failure (its epoch).
type podMark struct {
	p           *podState
	node, epoch int
}

// markPodsNotReady is MarkPodsNotReady for node i: an UpdateStatus per Ready pod, one after
// another through the controller's client; each pod turns not ready when its call returns.
// The calls of many nodes wait for the client in turn (monitorNodeHealth's workers share
// it), and a node that is back by its turn is healthy again and not marked.
func (e *Engine) markPodsNotReady(i int) {
	nl := e.lifecycle()
	for _, p := range e.podsOnNode[i] {
		nl.marks = append(nl.marks, podMark{p, i, e.nodeEpoch[i]})
	}
	if !nl.marking {
		nl.marking = true
		e.schedule(e.now, evMarkNext{})
	}
}

// evMarkNext sends the next pod's status update, when the client has a token for it.
type evMarkNext struct{}

func (evMarkNext) String() string { return "node lifecycle marks a pod not ready" }
func (evMarkNext) apply(e *Engine) {
	nl := e.nodeLC
	for nl.markHead < len(nl.marks) {
		m := nl.marks[nl.markHead]
		nl.marks[nl.markHead] = podMark{}
		nl.markHead++
		p := m.p
		if e.nodeEpoch[m.node] != m.epoch || !e.nodeDown[m.node] || !p.pod.Ready {
			continue
		}
		at := nl.client.reserve(e.now)
		nl.readySince[p] = p.pod.ReadyTransition
		e.schedule(at+nodeLifecycleLatency, e.arenas.setReady.put(evPodSetReady{p, p.epoch, false}))
		e.schedule(at, evMarkNext{})
		return
	}
	nl.marks, nl.markHead, nl.marking = nl.marks[:0], 0, false
}

// lifecycle returns the node lifecycle controller, made at its first use.
func (e *Engine) lifecycle() *nodeLifecycle {
	if e.nodeLC == nil {
		nl := &nodeLifecycle{client: newTokenBucket(nodeLifecycleQPS, nodeLifecycleBurst), zones: map[string]*evictionZone{},
			readySince: map[*podState]model.Timestamp{}, reconcile: newStream(e.cfg.Seed, streamNodeLifecycle)}
		for i, n := range e.nodes {
			z := nl.zones[n.Zone]
			if z == nil {
				z = &evictionZone{name: n.Zone, qps: nodeEvictionRate}
				nl.zones[n.Zone] = z
				nl.zoneNames = append(nl.zoneNames, n.Zone)
			}
			z.nodes = append(z.nodes, i)
		}
		e.nodeLC = nl
	}
	return e.nodeLC
}

// queueForTaint adds node i, just found not ready, to its zone's taint queue.
func (e *Engine) queueForTaint(i int) {
	z := e.lifecycle().zones[e.nodes[i].Zone]
	z.queue = append(z.queue, queuedNode{i, e.nodeEpoch[i]})
	e.zonesChanged()
}

// scheduleTaintPass queues the zone's next taint when its limiter has a token.
func (e *Engine) scheduleTaintPass(z *evictionZone) {
	if z.pending || len(z.queue) == 0 {
		return
	}
	z.pending = true
	e.schedule(max(e.now, z.next), evTaintPass{z})
}

// zoneRate is the taint rate of a zone now: handleDisruption's, from every zone's count of
// nodes not ready (0 when every zone is wholly down: evictions stop).
func (e *Engine) zoneRate(z *evictionZone) float64 {
	nl := e.lifecycle()
	full := func(zz *evictionZone) (notReady int, whole bool) {
		for _, i := range zz.nodes {
			if !e.nodes[i].Ready {
				notReady++
			}
		}
		return notReady, notReady == len(zz.nodes)
	}
	all := true
	for _, name := range nl.zoneNames {
		if _, whole := full(nl.zones[name]); !whole {
			all = false
			break
		}
	}
	if all {
		return 0
	}
	notReady, whole := full(z)
	switch {
	case whole:
		return nodeEvictionRate
	case notReady > 2 && float64(notReady)/float64(len(z.nodes)) >= unhealthyZoneThreshold:
		if len(z.nodes) > largeClusterSizeThreshold {
			return secondaryNodeEvictionRate
		}
		return 0
	}
	return nodeEvictionRate
}

// evTaintPass taints the first node of a zone's queue that is still down, as the limiter
// allows, and schedules the eviction of its pods after their toleration.
type evTaintPass struct{ z *evictionZone }

func (ev evTaintPass) String() string { return fmt.Sprintf("taint pass zone %q", ev.z.name) }
func (ev evTaintPass) apply(e *Engine) {
	z := ev.z
	z.pending = false
	rate := e.zoneRate(z)
	if rate != z.qps {
		// SwapLimiter: a new bucket, its one token there at once.
		z.qps, z.next = rate, e.now
	}
	if rate == 0 {
		return // evictions stopped; a node that comes back starts the pass again
	}
	if e.now < z.next {
		e.scheduleTaintPass(z)
		return
	}
	for len(z.queue) > 0 {
		q := z.queue[0]
		z.queue = z.queue[1:]
		if e.nodeEpoch[q.node] != q.epoch || !e.nodeDown[q.node] {
			continue // back meanwhile
		}
		e.after(defaultTolerationSeconds, evEvictNode{q.node, q.epoch})
		z.next = e.now + Time(float64(time.Second)/rate)
		break
	}
	e.scheduleTaintPass(z)
}

// statusReconcilePeriod is how often a kubelet's status manager compares the API's pod
// statuses with its own and writes back the ones that differ. upstream:
// pkg/kubelet/status/status_manager.go syncPeriod.
const statusReconcilePeriod = 10 * time.Second

// podBack takes up a running pod that is not ready on a node that came back. A pod the node
// lifecycle controller marked not ready is ready again at its kubelet's next status
// reconcile, with the Ready condition the kubelet kept: its old transition time, so that no
// trigger time comes of it (the tracker counts only times that moved forward). Others wait
// for their readiness probe.
// upstream: status_manager.go syncBatch (needsReconcile), syncPod.
func (e *Engine) podBack(p *podState) {
	if e.nodeLC != nil {
		if since, ok := e.nodeLC.readySince[p]; ok {
			delete(e.nodeLC.readySince, p)
			d := Time(e.nodeLC.reconcile.Int64N(int64(statusReconcilePeriod)))
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

// zonesChanged schedules the taint pass of every zone with nodes queued, after a node's
// readiness changed, which may change any zone's rate (handleDisruption looks at them all).
func (e *Engine) zonesChanged() {
	if e.nodeLC == nil {
		return
	}
	for _, name := range e.nodeLC.zoneNames {
		e.scheduleTaintPass(e.nodeLC.zones[name])
	}
}
