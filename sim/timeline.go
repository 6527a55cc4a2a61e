package sim

import (
	"fmt"
	"maps"
	"math"
	"time"
)

// Node lifecycle timing (upstream defaults): the node lifecycle controller marks a silent
// node's pods not ready after node-monitor-grace-period and evicts them after the default
// not-ready/unreachable toleration.
const (
	// nodeMonitorGracePeriod: kube-controller-manager --node-monitor-grace-period, 50 s
	// (40 s until 1.32). upstream: pkg/controller/nodelifecycle/config/v1alpha1/defaults.go.
	nodeMonitorGracePeriod = Time(50 * time.Second)
	// defaultTolerationSeconds: the DefaultTolerationSeconds admission plugin adds 300 s
	// tolerations for node.kubernetes.io/not-ready and unreachable.
	defaultTolerationSeconds = Time(300 * time.Second)
)

// startPhase begins timeline action i.
func (e *Engine) startPhase(i int) {
	if i > 0 {
		// The phase before is over: its figures take in what came after its work was done
		// (a controller's delayed retry, which no phase waits for), and its end the
		// deliveries of those writes.
		e.stats.phaseEnded(i-1, e.phaseStart, max(e.phaseEnd, e.api.net.drained()))
	}
	if p := e.cfg.ControlPlane.MinResyncPeriod; i == 0 && p > 0 {
		// One period for kube-controller-manager's informer factory: ResyncPeriod draws it
		// once, and every informer of the factory resyncs on it.
		e.resyncPeriod = Time(float64(p) * (1 + newStream(e.cfg.Seed, streamResync).Float64()))
		e.schedule(e.resyncPeriod, evInformerResync{})
	}
	e.phase = i
	e.phaseStart = e.now
	e.nextActs = e.nextActing(i, e.nextActs)
	a := &e.cfg.Timeline[i]
	targets := e.targets(a)
	switch a.Kind {
	case ActionCreate:
		for _, s := range targets {
			if !s.created {
				e.createService(s)
				if !hiddenFromKubeProxy(s.svc.Labels) {
					e.kubeProxiesService(s, true)
				}
			}
		}
	case ActionRollout, ActionScale, ActionRestartPods:
		if a.Spread > 0 {
			at := spreadOffsets(len(targets), Time(a.Spread), a.Curve)
			for k, s := range targets {
				e.after(at[k], evActOn{a, s})
			}
			break
		}
		for _, s := range targets {
			e.actOn(a, s)
		}
	case ActionFlipReadiness:
		for _, s := range targets {
			for _, p := range firstRunning(s, max(a.Pods, 1)) {
				if !p.pod.Ready {
					continue
				}
				e.setReady(p, false)
				if a.NotReadyFor > 0 {
					e.after(Time(a.NotReadyFor), e.arenas.setReady.put(evPodSetReady{p, p.epoch, true}))
				}
			}
		}
	case ActionDrainNodes:
		nodes := e.pickNodes(a)
		if a.Waves > 1 && a.Spread > 0 {
			e.drainInWaves(a, nodes)
			break
		}
		e.drainOneByOne(nodes)
	case ActionFailNodes:
		for _, n := range e.pickNodes(a) {
			e.failNode(n)
			if a.Duration > 0 {
				e.after(Time(a.Duration), evNodeRecover{n, e.nodeEpoch[n]})
			}
		}
	case ActionLabelService:
		for _, s := range targets {
			if s.svc.Labels == nil {
				s.svc.Labels = map[string]string{}
			}
			next := *s.svc
			next.Labels = maps.Clone(s.svc.Labels)
			for k, v := range a.Labels {
				if v == "" {
					delete(next.Labels, k)
				} else {
					next.Labels[k] = v
				}
			}
			hidden := hiddenFromKubeProxy(s.svc.Labels)
			s.svc = &next
			if h := hiddenFromKubeProxy(next.Labels); h != hidden && s.created {
				e.kubeProxiesService(s, !h)
			}
			for _, c := range e.ctls {
				c.serviceObjectUpdated(s)
			}
		}
	case ActionWait:
		e.after(Time(a.Duration), evWaitDone{})
	case ActionReplayStartUp:
		e.startReplay()
	case ActionReplay:
		e.startChurn()
	default:
		panic(fmt.Sprintf("sim: unknown action kind %q (the loader must reject it)", a.Kind))
	}
}

// actOn applies a rollout, scale or restartPods action to one Service.
func (e *Engine) actOn(a *Action, s *serviceState) {
	switch a.Kind {
	case ActionRollout:
		if !s.created {
			return
		}
		if s.cfg.ManualEndpoints > 0 {
			return // no workload to roll
		}
		e.newTemplate(s)
		s.generation++ // a spec change: the template
		if a.ServiceStrategy {
			delete(e.rolloutStrategy, int32(s.idx))
		} else {
			if e.rolloutStrategy == nil {
				e.rolloutStrategy = map[int32]*Action{}
			}
			e.rolloutStrategy[int32(s.idx)] = a
		}
		s.setStrategy(e.specStrategy(s))
		s.rollout = a
		if e.workloads.setFor(s) != nil {
			e.workloads.enqueueSet(s)
		} else {
			e.workloads.enqueueDeployment(s)
		}
	case ActionScale:
		replicas := a.Replicas
		if a.Percent > 0 && s.cfg != nil {
			// A percent of what the Service was configured with: its replicas, or for a
			// selector-less Service its manualEndpoints addresses (its replicas are 0).
			base := s.cfg.Replicas
			if s.cfg.ManualEndpoints > 0 {
				base = s.cfg.ManualEndpoints
			}
			replicas = (base*a.Percent + 99) / 100
		}
		if s.manual != nil {
			// No workload: the user rewrites the Endpoints object with this many addresses.
			e.setManualAddresses(s, replicas)
			return
		}
		if s.cfg.ManualEndpoints > 0 {
			return
		}
		if s.kind() == KindDaemonSet {
			return // a DaemonSet runs one pod per node, whatever the replicas
		}
		if replicas != s.replicas {
			s.generation++ // a spec change
		}
		s.replicas = replicas
		s.setStrategy(e.specStrategy(s))
		if s.kind() == KindStatefulSet {
			s.scaleSet(s.replicas)
			e.workloads.enqueueSet(s)
			return
		}
		e.workloads.enqueueDeployment(s)
	case ActionRestartPods:
		e.deletePods(firstRunning(s, max(a.Pods, 1)))
	}
}

// evActOn is a spread action reaching one of its Services.
type evActOn struct {
	a *Action
	s *serviceState
}

func (ev evActOn) String() string  { return string(ev.a.Kind) + " " + ev.s.svc.Name }
func (ev evActOn) apply(e *Engine) { e.actOn(ev.a, ev.s) }

// spreadOffsets returns n start offsets within [0, spread): the quantiles (k+½)/n of the
// curve, handed out in a stride order so that neighbours in creation order (the stamped
// copies of one entry) land spread over the window rather than side by side.
func spreadOffsets(n int, spread Time, curve SpreadCurve) []Time {
	out := make([]Time, n)
	if n == 0 {
		return out
	}
	stride := max(1, int(float64(n)*0.618034))
	for gcd(stride, n) != 1 {
		stride++
	}
	for k := range n {
		j := k * stride % n
		x := (float64(j) + 0.5) / float64(n)
		if curve == CurveDiurnal {
			x = diurnalQuantile(x)
		}
		out[k] = Time(x * float64(spread))
	}
	return out
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// diurnalQuantile inverts the CDF F(x) = x − 0.8·sin(2πx)/(2π) of the diurnal density
// 1 − 0.8·cos(2πx) on [0, 1] by bisection (F is increasing).
func diurnalQuantile(q float64) float64 {
	lo, hi := 0.0, 1.0
	for range 50 {
		mid := (lo + hi) / 2
		if mid-0.8*math.Sin(2*math.Pi*mid)/(2*math.Pi) < q {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// drainInWaves drains nodes in a.Waves waves started evenly over a.Spread; a wave's nodes
// are uncordoned (back, upgraded) when the next wave starts.
func (e *Engine) drainInWaves(a *Action, nodes []int) {
	interval := Time(a.Spread) / Time(a.Waves)
	size := (len(nodes) + a.Waves - 1) / a.Waves
	var prev []int
	for w := range a.Waves {
		lo, hi := min(w*size, len(nodes)), min((w+1)*size, len(nodes))
		e.after(Time(w)*interval, evDrainWave{drain: nodes[lo:hi], back: prev})
		prev = nodes[lo:hi]
	}
	e.after(Time(a.Waves)*interval, evDrainWave{back: prev})
}

// evDrainWave uncordons the previous wave's nodes and drains the next wave's.
type evDrainWave struct{ drain, back []int }

func (ev evDrainWave) String() string {
	return fmt.Sprintf("drain wave: %d nodes, %d back", len(ev.drain), len(ev.back))
}

func (ev evDrainWave) apply(e *Engine) {
	for _, n := range ev.back {
		e.setCordoned(n, false)
		// Upgraded: its kube-proxy starts again, and lists what it watches.
		e.rewatch(n, true)
	}
	for _, n := range ev.drain {
		e.setCordoned(n, true)
		e.drainNode(n, nil)
	}
}

// drainOneByOne drains nodes as kubectl drain does: it cordons them all first, then drains
// them one after another. A node's pods are evicted together, and the next node starts when
// every one of them is gone from the API, as kubectl's wait for each sees it: a GET right
// after the eviction, then one a second.
// upstream (kubectl): pkg/cmd/drain/drain.go RunDrain (RunCordonOrUncordon, then
// deleteOrEvictPodsSimple node by node); pkg/drain/drain.go evictPods, waitForDelete
// (interval 1 s, immediate; no timeout by default).
func (e *Engine) drainOneByOne(nodes []int) {
	for _, n := range nodes {
		e.setCordoned(n, true)
	}
	e.drainNext(&nodeDrain{nodes: nodes})
}

// nodeDrain is a drain of nodes one by one: the nodes, the next one's index, and the pods
// evicted from the node being drained.
type nodeDrain struct {
	nodes   []int
	next    int
	evicted []*podState
}

// drainNext evicts the pods of d's next node with any, and waits for them.
func (e *Engine) drainNext(d *nodeDrain) {
	for d.next < len(d.nodes) {
		d.evicted = e.drainNode(d.nodes[d.next], d.evicted[:0])
		d.next++
		if !d.drained() {
			e.after(drainPollInterval, evDrainPoll{d})
			return
		}
	}
}

// drainPollInterval is how often kubectl drain checks that an evicted pod is gone.
const drainPollInterval = Time(time.Second)

// drained reports whether every pod evicted from the node being drained is gone.
func (d *nodeDrain) drained() bool {
	for _, p := range d.evicted {
		if p.stage != stageGone {
			return false
		}
	}
	return true
}

// evDrainPoll is kubectl drain checking that the evicted pods are gone: then the next node.
type evDrainPoll struct{ d *nodeDrain }

func (ev evDrainPoll) String() string {
	return fmt.Sprintf("drain: %d of %d nodes started", ev.d.next, len(ev.d.nodes))
}

func (ev evDrainPoll) apply(e *Engine) {
	if !ev.d.drained() {
		e.after(drainPollInterval, ev)
		return
	}
	e.drainNext(ev.d)
}

type evWaitDone struct{}

func (evWaitDone) String() string { return "wait done" }
func (evWaitDone) apply(*Engine)  {}

// endPhase closes the current phase when the system is quiescent and schedules the next one
// after the action's settle time. It reports whether there is a next phase.
func (e *Engine) endPhase() bool {
	i := e.phase
	// A phase also waits for the network to deliver its last event to every watcher.
	end := max(e.now, e.api.net.drained())
	if e.cfg.Timeline[i].Kind == ActionReplayStartUp {
		// A warm start's churn meets kube-proxies that have been running for long: the
		// start-up ends once each has programmed it and its minSyncPeriod has passed, so
		// the churn's first change is synced at once, as on the live cluster.
		end = max(end, e.kubeProxiesIdle(end))
	}
	if i+1 >= len(e.cfg.Timeline) {
		e.stats.phaseEnded(i, e.phaseStart, end)
		return false
	}
	e.phaseEnd = end // its figures are summed up when the next phase starts
	// The next phase starts on the next whole second after the settle time, so that 1 s
	// buckets belong to one phase and no sync of the next phase sees a stale cache.
	next := end + Time(e.cfg.Timeline[i].Settle)
	next = (next/Time(time.Second) + 1) * Time(time.Second)
	e.schedule(next, evPhaseStart{i + 1})
	return true
}

type evPhaseStart struct{ phase int }

func (ev evPhaseStart) String() string  { return fmt.Sprintf("phase %d starts", ev.phase) }
func (ev evPhaseStart) apply(e *Engine) { e.startPhase(ev.phase) }

// targets returns the services an action applies to, in creation order.
func (e *Engine) targets(a *Action) []*serviceState {
	if len(a.Services) == 0 {
		return e.services
	}
	seen := make(map[int]bool)
	var out []*serviceState
	for _, name := range a.Services {
		for _, s := range e.services {
			if !seen[s.idx] && s.named(name) {
				seen[s.idx] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// firstRunning returns up to n running, non-terminating pods of s: ready ones first, then
// oldest first.
func firstRunning(s *serviceState, n int) []*podState {
	var out []*podState
	for _, wantReady := range []bool{true, false} {
		for _, p := range s.pods {
			if len(out) == n {
				return out
			}
			if p.stage == stageRunning && !p.pod.Terminating && p.pod.Ready == wantReady {
				out = append(out, p)
			}
		}
	}
	return out
}

// pickNodes returns the nodes a failNodes/drainNodes action hits: every node of Zone, or the
// first Nodes healthy nodes that host pods.
func (e *Engine) pickNodes(a *Action) []int {
	var out []int
	for i, n := range e.nodes {
		if e.nodeDown[i] || e.cordoned[i] {
			continue
		}
		if a.Zone != "" {
			if n.Zone == a.Zone {
				out = append(out, i)
			}
			continue
		}
		if len(out) < a.Nodes && len(e.podsOnNode[i]) > 0 {
			out = append(out, i)
		}
	}
	return out
}

// failNode stops node i without warning: its kube-proxy disconnects, its pods are marked not
// ready after the grace period and evicted after the toleration.
func (e *Engine) failNode(i int) {
	if e.nodeDown[i] {
		return
	}
	if e.nodeEpoch == nil {
		e.nodeEpoch = make([]int, len(e.nodes))
	}
	e.nodeEpoch[i]++
	e.nodeDown[i] = true
	e.markWatch(i)
	e.proxiesAway(i)
	for _, p := range e.podsOnNode[i] {
		// Its kubelet writes nothing more: the pod's pending kubelet events (start, ready,
		// stop, removal) are void, and come again when the node is back.
		p.setMark(marksStuck, true)
		p.epoch++
		if minReady := Time(p.svc().cfg.MinReady); p.pod.Ready && !p.available && minReady > 0 {
			// Availability is the workload controllers' reading of the Ready condition,
			// which stays until the node lifecycle controller marks the pod not ready: the
			// check planned for it stands. upstream: pkg/api/v1/pod/util.go IsPodAvailable.
			e.checkAvailable(p, p.pod.ReadyTransition, minReady)
		}
	}
	e.schedule(e.notReadyAt(i), evNodeDue{i, e.nodeEpoch[i]})
}

// setNodeReady replaces node i's object with one of the given readiness (and with it the
// node lifecycle controller's NoSchedule taint, which follows the Ready condition), tells
// the DaemonSet controller, and refreshes the EndpointSlice controller's topology cache.
func (e *Engine) setNodeReady(i int, ready bool) {
	n := e.nodes[i]
	next := *n
	next.Ready = ready
	e.nodes[i] = &next
	e.nodeByName[n.Name] = &next
	e.nodeChanges = append(e.nodeChanges, int32(i))
	e.refreshNode(i)
	e.workloads.nodeTaintsChanged(i)
	for _, c := range e.ctls {
		if y, ok := c.syncer.(*sliceSyncer); ok {
			y.nodeChanged(c, n, &next)
		}
	}
	if ready && !n.Ready {
		// The not-ready taint is off: a node update that may let unschedulable pods fit
		// (the TaintToleration plugin's event).
		e.nodeOpened(i)
	}
}

// evNodeRecover ends a failure: the kubelet reports again, the node turns Ready, its running
// pods report Ready again (the node lifecycle controller had only marked them not ready)
// and pods deleted meanwhile finally stop. Its kube-proxy watches again (proxiesBack):
// after connectionLostAfter it relists once its retries get through, sooner the watch cache
// replays what it missed, or, when the cache no longer holds it all, it relists.
type evNodeRecover struct{ node, epoch int }

func (ev evNodeRecover) String() string { return fmt.Sprintf("node %d recovers", ev.node) }
func (ev evNodeRecover) apply(e *Engine) {
	i := ev.node
	if e.nodeEpoch[i] != ev.epoch || !e.nodeDown[i] {
		return
	}
	e.nodeEpoch[i]++ // cancels the pending not-ready
	e.nodeDown[i] = false
	if e.nodeLC != nil {
		e.nodeLC.nodeReturned(i, e.now)
	}
	e.proxiesBack(i)
	if !e.nodes[i].Ready {
		// Found not ready meanwhile: Ready again at its kubelet's next node status update.
		nl := e.nodeLC
		e.after(posMod(nl.nodeStatusPhase[i]-e.now, nodeStatusUpdatePeriod), evNodeReported{i, e.nodeEpoch[i]})
	}
	for _, p := range append([]*podState(nil), e.podsOnNode[i]...) {
		if p.stage == stageGone {
			continue
		}
		p.setMark(marksStuck, false)
		switch {
		case p.pod.Terminating:
			e.kubeletTerminates(p)
		case p.stage == stageScheduled:
			e.kubeletAdmits(p)
		case p.stage == stageRunning && !p.pod.Ready:
			e.podBack(p)
		}
		// (A pod ready and not yet available keeps the check failNode planned for it.)
	}
}

// evEvictNode is the toleration of node i's NoExecute taint (its taints-th) running out:
// the taint eviction controller evicts each of its pods but DaemonSet pods, each at once
// and all through its client (an Event, then evEvictCall's calls). The taint coming off
// voids it; a node back whose taint is still on (its kubelet's status not yet written, or
// the node lifecycle controller's pass not yet come) has its pods evicted, and they stop.
// It holds the phase open only while it is still to come (nodeLifecycle.evictionDue): a
// voided one, waiting out the toleration of a taint long gone, is background
// (isBackground), so that a node back in 90 s does not hold its phase open for 300 s.
type evEvictNode struct {
	node, epoch int
	taints      int32
}

func (ev evEvictNode) String() string { return fmt.Sprintf("evict node %d", ev.node) }
func (ev evEvictNode) apply(e *Engine) {
	nl := e.nodeLC
	if nl.taints[ev.node] != ev.taints || !nl.tainted[ev.node] {
		return // the taint came off: the node was seen back, or every zone is down
	}
	nl.evictionDone(ev.node)
	for _, p := range e.podsOnNode[ev.node] {
		if p.pinned() >= 0 {
			continue // DaemonSet pods tolerate not-ready and unreachable nodes
		}
		e.recordEvent(&nl.evictionEvents) // TaintManagerEviction
		e.schedule(nl.evictions.reserve(e.now)+nodeLifecycleLatency, &evEvictCall{p, evictGot})
	}
}

// evEvictCall is the return of one call of a pod's eviction (addConditionAndDeletePod): the
// GET, then the status patch that adds the DisruptionTarget condition (a pod write no field
// the simulator keeps changes), then the DELETE. Once begun it goes on if the node is back.
type evEvictCall struct {
	p    *podState
	step evictStep
}

// evictStep is the call of a pod's eviction that returned.
type evictStep uint8

const (
	evictGot evictStep = iota
	evictPatched
	evictDeleted
)

func (ev *evEvictCall) String() string { return "taint eviction of pod " + ev.p.pod.Name }
func (ev *evEvictCall) apply(e *Engine) {
	p := ev.p
	if p.stage == stageGone {
		return
	}
	switch ev.step {
	case evictGot:
		ev.step = evictPatched
	case evictPatched:
		e.touchPod(p)
		ev.step = evictDeleted
	case evictDeleted:
		// The pod gets its deletionTimestamp, but no kubelet confirms its end: the object
		// stays, terminating (an EndpointSlice keeps its endpoint, not serving), for as long
		// as the node is down. The pod garbage collector removes such pods only when the Node
		// object is deleted or tainted out-of-service, which nothing in a run does; a node
		// that comes back stops them (evNodeRecover). A StatefulSet cannot recreate the
		// ordinal meanwhile; a ReplicaSet replaces the pod at once.
		// upstream: pkg/controller/podgc/gc_controller.go gcOrphaned, gcTerminating.
		e.deletePod(p)
		return
	}
	e.schedule(e.nodeLC.evictions.reserve(e.now)+nodeLifecycleLatency, ev)
}

// drainNode evicts the pods of node i, a cordoned node, gracefully (kubectl drain), and
// appends them to evicted. Each pod goes through the Eviction API, which writes the
// DisruptionTarget condition to the pod (an update no field the simulator keeps changes)
// before it deletes it.
// upstream: pkg/registry/core/pod/storage/eviction.go EvictionREST.Create,
// addConditionAndDeletePod; kubectl drain (evictions, not deletes, by default).
func (e *Engine) drainNode(i int, evicted []*podState) []*podState {
	start := len(evicted)
	for _, p := range e.podsOnNode[i] {
		if p.pinned() < 0 { // kubectl drain --ignore-daemonsets
			evicted = append(evicted, p)
		}
	}
	for _, p := range evicted[start:] {
		e.touchPod(p)
		e.deletePod(p)
	}
	return evicted
}
