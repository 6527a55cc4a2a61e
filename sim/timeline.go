package sim

import (
	"fmt"
	"maps"
	"time"
)

// Node lifecycle timing (upstream defaults): the node lifecycle controller marks a silent
// node's pods not ready after node-monitor-grace-period and evicts them after the default
// not-ready/unreachable toleration.
const (
	// nodeMonitorGracePeriod: kube-controller-manager --node-monitor-grace-period (40s until
	// 1.32, 50s since); we use 40s, the value most published analyses assume.
	nodeMonitorGracePeriod = Time(40 * time.Second)
	// defaultTolerationSeconds: the DefaultTolerationSeconds admission plugin adds 300 s
	// tolerations for node.kubernetes.io/not-ready and unreachable.
	defaultTolerationSeconds = Time(300 * time.Second)
)

// startPhase begins timeline action i.
func (e *Engine) startPhase(i int) {
	e.phase = i
	e.phaseStart = e.now
	a := &e.cfg.Timeline[i]
	targets := e.targets(a)
	switch a.Kind {
	case ActionCreate:
		for _, s := range targets {
			e.createService(s)
		}
	case ActionRollout:
		for _, s := range targets {
			if !s.created {
				continue
			}
			if s.cfg.ManualEndpoints > 0 {
				continue // no workload to roll
			}
			e.newTemplate(s)
			if a.ServiceStrategy {
				s.surge, s.unavail = s.strategy()
			} else {
				s.surge, s.unavail = resolveFenceposts(a.MaxSurge, a.MaxUnavailable, s.replicas)
			}
			s.rollout = a
			if e.workloads.setFor(s) != nil {
				e.workloads.enqueueSet(s)
			} else {
				e.workloads.enqueueDeployment(s)
			}
		}
	case ActionScale:
		for _, s := range targets {
			if s.manual != nil {
				// No workload: the user rewrites the Endpoints object with this many addresses.
				e.setManualAddresses(s, a.Replicas)
				continue
			}
			if s.cfg.ManualEndpoints > 0 {
				continue
			}
			if s.kind() == KindDaemonSet {
				continue // a DaemonSet runs one pod per node, whatever the replicas
			}
			s.replicas = a.Replicas
			s.surge, s.unavail = s.strategy()
			if s.kind() == KindStatefulSet {
				s.scaleSet(s.replicas)
				e.workloads.enqueueSet(s)
				continue
			}
			e.workloads.enqueueDeployment(s)
		}
	case ActionRestartPods:
		for _, s := range targets {
			e.deletePods(firstRunning(s, max(a.Pods, 1)))
		}
	case ActionFlipReadiness:
		for _, s := range targets {
			for _, p := range firstRunning(s, max(a.Pods, 1)) {
				if !p.pod.Ready {
					continue
				}
				e.setReady(p, false)
				if a.NotReadyFor > 0 {
					e.after(Time(a.NotReadyFor), evPodSetReady{p, p.epoch, true})
				}
			}
		}
	case ActionFailNodes, ActionDrainNodes:
		for _, n := range e.pickNodes(a) {
			if a.Kind == ActionFailNodes {
				e.failNode(n)
			} else {
				e.drainNode(n)
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
			s.svc = &next
			for _, c := range e.ctls {
				c.serviceUpdated(s)
			}
		}
	case ActionWait:
		e.after(Time(a.Duration), evWaitDone{})
	case ActionReplay:
		e.startReplay()
	default:
		panic(fmt.Sprintf("sim: unknown action kind %q (the loader must reject it)", a.Kind))
	}
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
	e.stats.phaseEnded(i, e.phaseStart, end)
	if i+1 >= len(e.cfg.Timeline) {
		return false
	}
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
		for _, s := range e.serviceByName[name] {
			if !seen[s.idx] {
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
	e.nodeDown[i] = true
	e.api.liveNodes--
	for _, p := range e.podsOnNode[i] {
		p.stuck = true
	}
	e.after(nodeMonitorGracePeriod, evNodeNotReady{i})
}

type evNodeNotReady struct{ node int }

func (ev evNodeNotReady) String() string { return fmt.Sprintf("node %d not ready", ev.node) }
func (ev evNodeNotReady) apply(e *Engine) {
	// upstream: node lifecycle controller MarkPodsNotReady, then taint-based eviction.
	n := e.nodes[ev.node]
	next := *n
	next.Ready = false
	e.nodes[ev.node] = &next
	e.nodeByName[n.Name] = &next
	for _, c := range e.ctls {
		if y, ok := c.syncer.(*sliceSyncer); ok {
			y.nodesChanged()
		}
	}
	for _, p := range append([]*podState(nil), e.podsOnNode[ev.node]...) {
		if p.pod.Ready {
			e.setReady(p, false)
		}
	}
	e.after(defaultTolerationSeconds, evEvictNode(ev))
}

type evEvictNode struct{ node int }

func (ev evEvictNode) String() string { return fmt.Sprintf("evict node %d", ev.node) }
func (ev evEvictNode) apply(e *Engine) {
	for _, p := range append([]*podState(nil), e.podsOnNode[ev.node]...) {
		if p.pinned >= 0 {
			continue // DaemonSet pods tolerate not-ready and unreachable nodes
		}
		e.deletePod(p)
		// The kubelet is gone: the pod object stays until the node object is removed and the
		// pod garbage collector force-deletes it; we take that to be the grace period.
		e.after(p.svc.timing.grace.sample(), evPodGone{p, p.epoch})
	}
}

// drainNode cordons node i and evicts its pods gracefully (kubectl drain).
func (e *Engine) drainNode(i int) {
	e.cordoned[i] = true
	for _, p := range append([]*podState(nil), e.podsOnNode[i]...) {
		if p.pinned >= 0 {
			continue // kubectl drain --ignore-daemonsets
		}
		e.deletePod(p)
	}
}
