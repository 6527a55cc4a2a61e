package sim

import (
	"time"

	"epsim/model"
)

// daemonClass is what one node is to a DaemonSet's sync (syncDaemonSet): what the sync may
// do there, and whether the node counts against the rollout's limit.
type daemonClass uint8

// A node's classes without surge (maxSurge 0), and while surging.
const (
	daemonNothing     daemonClass = iota // an up-to-date available pod, or a node gone with none
	daemonUnavailable                    // unavailable, nothing to do (a pod terminating, or a new one not yet available)
	daemonCreate                         // a ready node with no pod at all: unavailable, gets one
	daemonReplace                        // an old pod that is not available: unavailable, replaced at once
	daemonCandidate                      // an old available pod: replaced while the budget allows

	daemonManage         // surging: a ready node with no pod at all gets one (manage)
	daemonReplaceNow     // surging: an old pod not available, no new one: a new one at once
	daemonSurgeCandidate // surging: an old available pod, no new one: a new one while the surge allows
	daemonSurging        // surging: a new pod beside the old one (ready), not yet available: counts against the surge
	daemonRetire         // surging: a new pod beside an old one that is not ready, or available beside it: the old one is deleted
	daemonDrop           // surging: an old pod not available, no new one, on a node that should not run one: deleted
	daemonDropCandidate  // surging: the same but available: deleted while more pods are available than nodes should run one
	daemonExcess         // two pods not being deleted, neither or only the older of the current template: the newer one is deleted (manage)
)

// daemonClasses gives each class its list in daemonIndex.lists (-1: none) and whether it
// counts in daemonIndex.counted (the unavailable nodes without surge, the surging ones with).
var daemonClasses = [...]struct {
	list    int8
	counted bool
}{
	daemonNothing:        {-1, false},
	daemonUnavailable:    {-1, true},
	daemonCreate:         {0, true},
	daemonReplace:        {1, true},
	daemonCandidate:      {2, false},
	daemonManage:         {0, false},
	daemonReplaceNow:     {1, false},
	daemonSurgeCandidate: {2, false},
	daemonSurging:        {-1, true},
	daemonRetire:         {3, false},
	daemonDrop:           {4, false},
	daemonDropCandidate:  {5, false},
	daemonExcess:         {6, true},
}

// daemonClassOf classifies node n for s, a DaemonSet, as its sync reads it: without surge,
// or surging when surging is set.
// upstream: daemon_controller.go podsShouldBeOnNode (a node gone runs no new pod; an old
// and a new pod allowed on a node while surging); update.go rollingUpdate (maxSurge 0:
// allowedReplacementPods, candidatePodsToDelete, numUnavailable, findUpdatedPodsOnNode
// skipping deleted pods, and a node with excess pods, which manage thins to the oldest, or
// while surging to the oldest old and oldest new; maxSurge > 0: allowedNewNodes,
// candidateNewNodes, numSurge, the old pods whose new one is available, and those on nodes
// that should not run one: oldPodsToDelete, shouldNotRunPodsToDelete).
func (e *Engine) daemonClassOf(s *serviceState, n int, surging bool) daemonClass {
	p := s.set.daemonOn[n]
	if s.excessPods(n, surging) {
		return daemonExcess
	}
	if surging {
		nw := s.set.surgeOn[n]
		switch {
		case p == nil && !e.nodes[n].Ready:
			return daemonNothing // a node that is gone runs no new pod
		case p == nil:
			// A node with no pod but ones being deleted gets a new one at once: a surging
			// DaemonSet needs one pod not being deleted on each node.
			return daemonManage
		case p.hash() == s.templateHash():
			return daemonNothing // up to date
		case nw == nil && !e.nodes[n].Ready:
			// A node that is not ready (the NoSchedule taint its pods do not tolerate)
			// should not run the pod, and gets no new one: its old pod is deleted at once
			// when it is not available, else once enough others are.
			if !p.available {
				return daemonDrop
			}
			return daemonDropCandidate
		case nw == nil && !p.available:
			return daemonReplaceNow
		case nw == nil:
			return daemonSurgeCandidate
		case !nw.available && p.pod.Ready:
			return daemonSurging
		}
		// podsShouldBeOnNode (manage) deletes the old pod once it is not ready or the new
		// one is available.
		return daemonRetire
	}
	switch {
	case p == nil && !e.nodes[n].Ready:
		// A node that is gone runs no new pod. While its old pod is stuck terminating
		// (the kubelet never confirms), the node counts as unavailable: it has neither an
		// old nor a new pod that is not being deleted.
		if s.set.terminatingOn[n] > 0 {
			return daemonUnavailable
		}
		return daemonNothing
	case p == nil:
		// Without surge, a pod being deleted that is not terminal yet holds the node (it is
		// "running" to podsShouldBeOnNode, and rollingUpdate counts the node unavailable).
		if s.set.terminatingOn[n] == 0 {
			return daemonCreate
		}
		return daemonUnavailable
	case !p.available:
		if p.hash() != s.templateHash() {
			return daemonReplace
		}
		return daemonUnavailable
	case p.hash() != s.templateHash():
		return daemonCandidate
	}
	return daemonNothing
}

// excessPods reports whether node n has two pods of s not being deleted (a rollout began
// while a surging one had a new pod beside an old one) where the strategy allows one, or
// while surging where the newer is not of the current template either: manage deletes the
// newer, whatever the node's state, and rollingUpdate skips the node (counting it
// unavailable, or surging). upstream: daemon_controller.go podsShouldBeOnNode; update.go
// findUpdatedPodsOnNode.
func (s *serviceState) excessPods(n int, surging bool) bool {
	nw := s.set.surgeOn[n]
	return nw != nil && (!surging || nw.hash() != s.templateHash())
}

// daemonIndex keeps each node's daemonClass for a DaemonSet, with the nodes of each class
// that a sync acts on as bitsets in node order, so that a sync costs the nodes that changed
// since the last one rather than a pass over every node. A rollout replaces maxUnavailable
// pods a sync, a few syncs a pod: a pass over the nodes at each made a rollout's cost grow
// with the square of the cluster (four DaemonSets rolled on 5,000 nodes took 18 user
// seconds, 55% of it in the passes and a third in collecting their garbage).
//
// The classes go stale when a node's pods (daemonOn, terminatingOn), a pod's availability or
// a node's readiness change (markDaemonNode, Engine.nodeChanges), and all at once when the
// template (a rollout), the strategy (surging or not) or the nodes do: the index is rebuilt
// then.
type daemonIndex struct {
	built   bool
	surging bool   // the classes are a surging rollout's
	hash    string // the template hash the classes are of
	class   []daemonClass
	// lists hold the nodes of each class that has one (daemonClasses); counted is the
	// number of nodes of the classes counted.
	lists   [7]bitIndex
	counted int
	// available counts the nodes whose pod (the old one, when a new one is beside it) is
	// available: rollingUpdate's numAvailable while surging (daemonPrimaryAvailable).
	available int
	stale     staleSet // the nodes to classify again
	// nodeChanges is how many of Engine.nodeChanges the classes take into account.
	nodeChanges int
	// counts holds what each node adds to status (daemonCounts), kept with the classes.
	counts []daemonCounts
	status daemonStatus
}

// daemonStatus is the part of a DaemonSet's status its controller computes from the nodes
// and their pods (numberUnavailable is desired less available).
// upstream: daemon_controller.go updateDaemonSetStatus.
type daemonStatus struct {
	desired, current, misscheduled, ready, updated, available int32
}

// daemonCounts is what one node adds to a DaemonSet's status, as flags.
type daemonCounts uint8

const (
	daemonShouldRun    daemonCounts = 1 << iota // the node should run a pod (desired)
	daemonScheduled                             // it has a pod the sync sees
	daemonPodReady                              // the oldest of them is ready
	daemonPodAvailable                          // ... and available
	daemonPodUpdated                            // ... and of the current template
	// daemonPrimaryAvailable: the node's pod not being deleted (the old one, when a new one
	// is beside it) is available, whether or not the node should run one.
	daemonPrimaryAvailable
)

// add adds (sign 1) or takes away (sign -1) the counts of one node.
func (st *daemonStatus) add(c daemonCounts, sign int32) {
	if c&daemonShouldRun == 0 {
		if c&daemonScheduled != 0 {
			st.misscheduled += sign
		}
		return
	}
	st.desired += sign
	if c&daemonScheduled == 0 {
		return
	}
	st.current += sign
	if c&daemonPodReady != 0 {
		st.ready += sign
		if c&daemonPodAvailable != 0 {
			st.available += sign
		}
	}
	if c&daemonPodUpdated != 0 {
		st.updated += sign
	}
}

// daemonCountsOf is what node n adds to s's status. A node should run a pod when it is
// ready: a node that is not has the node lifecycle controller's NoSchedule taint, which a
// DaemonSet's pods do not tolerate (they tolerate the NoExecute ones, so a pod there
// stays, misscheduled). The pod counted is the node's oldest that the sync sees: pods being
// deleted count until they are terminal; scheduled ones come first, then by creation.
// upstream: daemon_controller.go updateDaemonSetStatus, getNodesToDaemonPods
// (includeDeletedTerminal false), NodeShouldRunDaemonPod, podByCreationTimestampAndPhase;
// util/daemonset_util.go AddOrUpdateDaemonPodTolerations; nodelifecycle
// (TaintNodesByCondition: node.kubernetes.io/not-ready and unreachable, NoSchedule).
func (e *Engine) daemonCountsOf(s *serviceState, n int) daemonCounts {
	var c daemonCounts
	if e.nodes[n].Ready {
		c |= daemonShouldRun
	}
	var oldest *podState
	consider := func(p *podState) {
		if p != nil && (oldest == nil || daemonPodBefore(p, oldest)) {
			oldest = p
		}
	}
	// (Not a node with excess pods, which rollingUpdate skips.)
	if p := s.set.daemonOn[n]; p != nil && p.available && !s.excessPods(n, s.set.daemon.surging) {
		c |= daemonPrimaryAvailable
	}
	consider(s.set.daemonOn[n])
	consider(s.set.surgeOn[n])
	if s.set.terminatingOn[n] > 0 {
		for _, p := range e.podsOnNode[n] {
			if p.svc() == s && p.pod.Terminating && !p.pod.Phase.Terminal() {
				consider(p)
			}
		}
	}
	if oldest == nil {
		return c
	}
	c |= daemonScheduled
	if oldest.pod.Ready {
		c |= daemonPodReady
	}
	if oldest.available {
		c |= daemonPodAvailable
	}
	if oldest.hash() == s.templateHash() {
		c |= daemonPodUpdated
	}
	return c
}

// daemonPodBefore orders a node's DaemonSet pods for its status: scheduled first, then the
// oldest (creation times are whole seconds, as stored), then by name.
// upstream: daemon_controller.go podByCreationTimestampAndPhase.
func daemonPodBefore(a, b *podState) bool {
	if (a.node >= 0) != (b.node >= 0) {
		return a.node >= 0
	}
	ca, cb := a.pod.CreationTimestamp/model.Timestamp(time.Second), b.pod.CreationTimestamp/model.Timestamp(time.Second)
	if ca != cb {
		return ca < cb
	}
	return a.pod.Name < b.pod.Name
}

// setCounts gives node n the status counts c.
func (x *daemonIndex) setCounts(n int, c daemonCounts) {
	if old := x.counts[n]; old != c {
		x.status.add(old, -1)
		x.status.add(c, 1)
		if was, is := old&daemonPrimaryAvailable != 0, c&daemonPrimaryAvailable != 0; was != is {
			if is {
				x.available++
			} else {
				x.available--
			}
		}
		x.counts[n] = c
	}
}

// markDaemonNode notes that node n of s, a DaemonSet, may be of another class now.
func (s *serviceState) markDaemonNode(n int) {
	if x := &s.set.daemon; x.built && n < len(x.class) {
		x.stale.mark(n)
	}
}

// refreshDaemonIndex brings s's index up to date for a sync.
func (e *Engine) refreshDaemonIndex(s *serviceState) *daemonIndex {
	x := &s.set.daemon
	if !x.built || x.surging != (s.surge > 0) || x.hash != s.templateHash() || len(x.class) != len(e.nodes) {
		e.buildDaemonIndex(s)
		return x
	}
	for _, n := range e.nodeChanges[x.nodeChanges:] {
		s.markDaemonNode(int(n))
	}
	x.nodeChanges = len(e.nodeChanges)
	x.stale.drain(func(n int) {
		x.set(n, e.daemonClassOf(s, n, x.surging))
		x.setCounts(n, e.daemonCountsOf(s, n))
	})
	return x
}

// buildDaemonIndex classifies every node of s anew.
func (e *Engine) buildDaemonIndex(s *serviceState) {
	x := &s.set.daemon
	*x = daemonIndex{
		built: true, surging: s.surge > 0, hash: s.templateHash(), class: make([]daemonClass, len(e.nodes)),
		stale: newStaleSet(len(e.nodes)), nodeChanges: len(e.nodeChanges),
		counts: make([]daemonCounts, len(e.nodes)),
	}
	for i := range x.lists {
		x.lists[i] = newBitWalk(len(e.nodes))
	}
	for n := range e.nodes {
		x.set(n, e.daemonClassOf(s, n, x.surging))
		x.setCounts(n, e.daemonCountsOf(s, n))
	}
}

// set gives node n class c.
func (x *daemonIndex) set(n int, c daemonClass) {
	old := x.class[n]
	if old == c {
		return
	}
	x.class[n] = c
	was, is := daemonClasses[old], daemonClasses[c]
	if was.counted {
		x.counted--
	}
	if is.counted {
		x.counted++
	}
	if was.list >= 0 {
		x.lists[was.list].set(n, false)
	}
	if is.list >= 0 {
		x.lists[is.list].set(n, true)
	}
}

// appendNodes appends the nodes of list l in order to dst, up to limit of them in all.
func (x *daemonIndex) appendNodes(dst []int, l, limit int) []int {
	if len(dst) >= limit {
		return dst
	}
	x.lists[l].eachUp(0, len(x.class), func(n int) bool {
		dst = append(dst, n)
		return len(dst) < limit
	})
	return dst
}
