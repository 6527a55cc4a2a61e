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
)

// setController is the StatefulSet or the DaemonSet controller: a workqueue of Services
// (one workload each), its workers and its own client.
type setController struct {
	kind    string
	queue   workQueue[*serviceState]
	bucket  *tokenBucket
	latency *sampler
}

func newSetController(kind string, cfg ControllerConfig, workers int, rng *sampler) *setController {
	c := &setController{
		kind:    kind,
		bucket:  newTokenBucket(cfg.QPS, max(cfg.Burst, 1)),
		latency: rng,
	}
	c.queue = workQueue[*serviceState]{idle: max(workers, 1), item: func(s *serviceState) *workItem { return &s.set.item }}
	return c
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
	if c := w.setFor(p.svc); c != nil {
		w.enqueueSet(p.svc)
		return
	}
	w.enqueueRS(p.rs)
}

// enqueueSet adds s to its StatefulSet or DaemonSet controller's queue.
func (w *workloadControllers) enqueueSet(s *serviceState) {
	if c := w.setFor(s); c != nil && s.created {
		c.queue.add(s)
		w.kick()
	}
}

// setCall sends n calls of c's client now and ends the sync of s when the last returns;
// then applies the effect at that time.
func (w *workloadControllers) setCalls(c *setController, s *serviceState, n int, effect setEffect) {
	e := w.e
	end := e.now
	for range n {
		end = max(end, c.bucket.reserve(e.now)+c.latency.sample())
	}
	e.schedule(end, evSetSynced{c, s, effect})
}

// setEffect is what a StatefulSet or DaemonSet sync's calls do when they return.
type setEffect struct {
	create  []int       // ordinals (StatefulSet) or nodes (DaemonSet) to create a pod for
	delete  []*podState // pods to delete
	changes int         // the status written
}

// evSetSynced is a StatefulSet or DaemonSet sync's calls returning.
type evSetSynced struct {
	c   *setController
	s   *serviceState
	eff setEffect
}

func (ev evSetSynced) String() string { return ev.c.kind + " synced " + ev.s.svc.Name }
func (ev evSetSynced) apply(e *Engine) {
	s := ev.s
	for _, x := range ev.eff.create {
		if ev.c.kind == KindStatefulSet {
			if x < len(s.set.ordinals) && s.set.ordinals[x] == nil {
				e.createSetPod(s, x, -1)
			}
		} else if cur := s.set.daemonOn[x]; e.nodes[x].Ready && (cur == nil || cur.hash() != s.hash && s.set.surgeOn[x] == nil) {
			e.createSetPod(s, -1, x)
		}
	}
	for _, p := range ev.eff.delete {
		e.deletePod(p)
	}
	s.set.written = ev.eff.changes
	ev.c.queue.done(s)
	e.workloads.kick()
	e.workloadSettled(s)
}

// createSetPod creates a StatefulSet pod with its ordinal, or a DaemonSet pod for a node.
func (e *Engine) createSetPod(s *serviceState, ordinal, node int) {
	var name string
	if ordinal >= 0 {
		name = s.svc.Name + "-" + strconv.Itoa(ordinal) // stable identity
	}
	rs := s.newRS
	if s.set.revision != nil {
		rs = s.set.revision
	}
	p := e.createPod(s, rs, name)
	p.ordinal, p.pinned = int32(ordinal), int32(node)
	if ordinal >= 0 {
		s.set.ordinals[ordinal] = p
	}
	if node >= 0 {
		if old := s.set.daemonOn[node]; old != nil {
			s.set.surgeOn[node] = p // a surging rollout's new pod beside the old one
		} else {
			s.set.daemonOn[node] = p
		}
	}
}

// syncStatefulSet is one sync of an OrderedReady StatefulSet with the RollingUpdate
// strategy: it creates the lowest missing ordinal once every lower one is Running, Ready and
// available; removes ordinals beyond replicas from the highest, one at a time; and updates
// pods of an old revision from the highest ordinal down, deleting up to maxUnavailable of
// them once every replica is available, and waiting until their replacements are.
// upstream: pkg/controller/statefulset/stateful_set_control.go updateStatefulSet
// (processReplica, processCondemned, the rolling update loop; monotonic = OrderedReady).
func (w *workloadControllers) syncStatefulSet(s *serviceState) {
	c := w.statefulSets
	eff := setEffect{changes: s.newRS.changes}
	act := func() {
		for i := 0; i < s.replicas; i++ {
			p := s.set.ordinals[i]
			if p == nil {
				eff.create = append(eff.create, i)
				return
			}
			if p.pod.Terminating || !p.available {
				return // wait for it (terminating, not yet Running and Ready, or not available)
			}
		}
		for i := len(s.set.ordinals) - 1; i >= s.replicas; i-- {
			if p := s.set.ordinals[i]; p != nil {
				if !p.pod.Terminating {
					eff.delete = append(eff.delete, p)
				}
				return
			}
		}
		// Every replica is there, available and not terminating (the loop above returned
		// otherwise): delete up to maxUnavailable pods of an old revision, from the highest
		// ordinal down (MaxUnavailableStatefulSet, on by default since 1.37).
		// upstream: stateful_set_control.go updateStatefulSetAfterInvariantEstablished.
		budget := max(s.unavail, 1)
		for i := s.replicas - 1; i >= 0 && len(eff.delete) < budget; i-- {
			if p := s.set.ordinals[i]; p.hash() != s.hash && !p.pod.Terminating {
				eff.delete = append(eff.delete, p)
			}
		}
	}
	act()
	calls := len(eff.create) + len(eff.delete)
	if eff.changes != s.set.written {
		calls++ // status update
	}
	w.setCalls(c, s, calls, eff)
}

// syncDaemonSet is one sync of a DaemonSet with the RollingUpdate strategy and no surge: it
// creates a pod on every node that should run one and has none (not even a terminating
// one), at most burstReplicas a sync; and replaces old pods node by node, never more than
// maxUnavailable nodes at once without an available pod.
// upstream: pkg/controller/daemon/daemon_controller.go manage, podsShouldBeOnNode,
// syncNodes (burstReplicas 250); update.go rollingUpdate (maxSurge 0).
func (w *workloadControllers) syncDaemonSet(s *serviceState) {
	if s.surge > 0 {
		w.syncSurgingDaemonSet(s)
		return
	}
	e := w.e
	eff := setEffect{changes: s.newRS.changes}
	unavailable := 0
	var candidates []*podState
	for n := range e.nodes {
		p := s.set.daemonOn[n]
		switch {
		case p == nil && !e.nodes[n].Ready:
			// A node that is gone runs no new pod. While its old pod is stuck terminating
			// (the kubelet never confirms), the node counts as unavailable: it has neither an
			// old nor a new pod that is not being deleted.
			// upstream: update.go rollingUpdate (findUpdatedPodsOnNode skips deleted pods).
			if s.set.terminatingOn[n] > 0 {
				unavailable++
			}
		case p == nil:
			unavailable++
			if s.set.terminatingOn[n] == 0 && len(eff.create) < daemonSetBurstReplicas {
				eff.create = append(eff.create, n)
			}
		case !p.available:
			unavailable++
			if p.hash() != s.hash {
				eff.delete = append(eff.delete, p) // allowedReplacementPods
			}
		case p.hash() != s.hash:
			candidates = append(candidates, p)
		}
	}
	budget := min(max(s.unavail-unavailable, 0), len(candidates))
	eff.delete = append(eff.delete, candidates[:budget]...)
	w.sendDaemonSetSync(s, eff)
}

// sendDaemonSetSync makes a DaemonSet sync's calls: its creates, its deletes (at most
// burstReplicas), and a status write when the pods changed since the last one.
// upstream: daemon_controller.go syncNodes (burstReplicas), updateDaemonSetStatus.
func (w *workloadControllers) sendDaemonSetSync(s *serviceState, eff setEffect) {
	if len(eff.delete) > daemonSetBurstReplicas {
		eff.delete = eff.delete[:daemonSetBurstReplicas]
	}
	calls := len(eff.create) + len(eff.delete)
	if eff.changes != s.set.written {
		calls++
	}
	w.setCalls(w.daemonSets, s, calls, eff)
}

// syncSurgingDaemonSet is one sync of a DaemonSet whose rolling update surges: a node with
// an old pod gets a new one beside it — at once when the old one is not available, else
// while fewer than maxSurge new pods are not yet available — and its old pod is deleted
// once the new one is available; a node with no pod gets one (the manage loop).
// upstream: pkg/controller/daemon/update.go rollingUpdate (maxSurge > 0); daemon_controller.go
// podsShouldBeOnNode (an old and a new pod allowed on a node while surging), syncNodes.
func (w *workloadControllers) syncSurgingDaemonSet(s *serviceState) {
	e := w.e
	eff := setEffect{changes: s.newRS.changes}
	numSurge := 0
	var candidates []int
	for n := range e.nodes {
		old, nw := s.set.daemonOn[n], s.set.surgeOn[n]
		switch {
		case !e.nodes[n].Ready:
			// A node that is gone runs no new pod.
		case old == nil:
			if s.set.terminatingOn[n] == 0 && len(eff.create) < daemonSetBurstReplicas {
				eff.create = append(eff.create, n)
			}
		case old.hash() == s.hash:
			// Up to date.
		case nw == nil && !old.available:
			// allowedNewNodes: replaced at once, beyond the surge.
			if len(eff.create) < daemonSetBurstReplicas {
				eff.create = append(eff.create, n)
			}
		case nw == nil:
			candidates = append(candidates, n)
		case !nw.available:
			numSurge++
		default:
			eff.delete = append(eff.delete, old)
		}
	}
	room := min(max(s.surge-numSurge, 0), len(candidates), daemonSetBurstReplicas-len(eff.create))
	eff.create = append(eff.create, candidates[:max(room, 0)]...)
	w.sendDaemonSetSync(s, eff)
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
	if p.ordinal >= 0 && int(p.ordinal) < len(s.set.ordinals) && s.set.ordinals[p.ordinal] == p {
		s.set.ordinals[p.ordinal] = nil
	}
	if p.pinned >= 0 {
		n := p.pinned
		switch p {
		case s.set.daemonOn[n]:
			s.set.daemonOn[n], s.set.surgeOn[n] = s.set.surgeOn[n], nil
		case s.set.surgeOn[n]:
			s.set.surgeOn[n] = nil
		}
		if p.pod.Terminating {
			s.set.terminatingOn[p.pinned]--
		}
	}
}

// setPodTerminating notes that p, a DaemonSet pod, is terminating: its node has no running
// daemon pod, but must wait until this one is gone for a new one.
func (s *serviceState) setPodTerminating(p *podState) {
	if s.set == nil || p.pinned < 0 {
		return
	}
	switch n := p.pinned; p {
	case s.set.daemonOn[n]:
		// A surged new pod, if any, is the node's pod now.
		s.set.daemonOn[n], s.set.surgeOn[n] = s.set.surgeOn[n], nil
		s.set.terminatingOn[n]++
	case s.set.surgeOn[n]:
		s.set.surgeOn[n] = nil
		s.set.terminatingOn[n]++
	}
}

// prepareSet sizes s's indexes for its kind when the Service is created.
func (e *Engine) prepareSet(s *serviceState) {
	switch s.kind() {
	case KindStatefulSet:
		s.set.ordinals = make([]*podState, max(s.replicas, len(s.set.ordinals)))
	case KindDaemonSet:
		s.set.daemonOn = make([]*podState, len(e.nodes))
		s.set.surgeOn = make([]*podState, len(e.nodes))
		s.set.terminatingOn = make([]int32, len(e.nodes))
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
