package sim

import (
	"slices"
	"strings"

	"epsim/model"
)

// A ReplicaSet scaled down a few pods at a time (a Deployment rolled with maxSurge 1: one a
// step) had each scale-down rank every pod of the Service (pickVictims reads them all), so
// that rolling a Deployment cost the square of its size: 20,000 pods, 3.1 CPU-s, 74% of it
// ranking. A victimIndex keeps such a ReplicaSet's candidates ranked as the ranking would
// rank them, so that picking a few costs the logarithm of their number.
//
// The candidates are grouped by keys 1–5 (class and the Deployment's pods on their node;
// see victims.go), each group a treap by rank time then UID, whose nodes hold their
// subtree's first by UID. The first candidate is the first group's: of its pods, those in
// the age bucket of its newest (the bucket falls as the time grows, so they are the newest
// ones, a suffix of the tree), the first by UID.

// victimsIndexMin is the number of a ReplicaSet's live pods from which scale-downs of at
// most victimsIndexMaxN pods, victimsIndexAfter of them in a row, build an index rather
// than rank every pod at each. A scale-down of more pods ranks them and drops the index.
//
// An index pays where scale-downs of a few pods are the rule (a Deployment rolled with
// maxSurge 1 makes one a pod), not where they fall between larger ones: a rollout by a
// quarter at a time deletes up to 500 pods a sync (the controller's burst), with some
// syncs of a few between them. Keeping an index costs each pod event that changes the
// Deployment's pods on a node a move of the candidates there (see regroupOn): one Service of
// 100,000 pods rolled by a quarter (BenchmarkScale one-service/pods=100k) spent a quarter
// of its CPU on that when the first scale-down of a few built an index, 4.6–5.1 CPU-s
// against 2.8–3.0 without, for the few dozen syncs the index served.
const (
	victimsIndexMin   = 256
	victimsIndexMaxN  = 8
	victimsIndexAfter = 16
)

// victimGroup is keys 1–5 of a candidate.
type victimGroup struct {
	class     int8
	colocated int32
}

// before reports whether g's candidates rank before h's: by class, then more pods on the
// node first.
func (g victimGroup) before(h victimGroup) bool {
	if g.class != h.class {
		return g.class < h.class
	}
	return g.colocated > h.colocated
}

// victimNode is a candidate in its group's treap.
type victimNode struct {
	p           *podState
	t           model.Timestamp // rankTime of the pod as placed
	uid         uint64          // uidPrefix
	prio        uint64
	left, right *victimNode
	first       *victimNode // the subtree's first by UID
}

// less orders the tree: by time, then UID.
func (n *victimNode) less(o *victimNode) bool {
	if n.t != o.t {
		return n.t < o.t
	}
	return uidBefore(n, o)
}

// uidBefore orders two candidates by UID, as compareVictims does after the keys.
func uidBefore(a, b *victimNode) bool {
	if a.uid != b.uid {
		return a.uid < b.uid
	}
	return strings.Compare(a.p.pod.UID, b.p.pod.UID) < 0
}

// firstByUID returns the one of a and b (either may be nil) that goes first by UID.
func firstByUID(a, b *victimNode) *victimNode {
	switch {
	case a == nil:
		return b
	case b == nil || uidBefore(a, b):
		return a
	}
	return b
}

// fix sets n's subtree's first by UID from its children's.
func (n *victimNode) fix() {
	n.first = n
	if n.left != nil {
		n.first = firstByUID(n.first, n.left.first)
	}
	if n.right != nil {
		n.first = firstByUID(n.first, n.right.first)
	}
}

// insertVictim adds n to the treap at root and returns the new root.
func insertVictim(root, n *victimNode) *victimNode {
	if root == nil {
		n.left, n.right = nil, nil
		n.fix()
		return n
	}
	if n.less(root) {
		root.left = insertVictim(root.left, n)
		if root.left.prio > root.prio {
			root = rotateRight(root)
		}
	} else {
		root.right = insertVictim(root.right, n)
		if root.right.prio > root.prio {
			root = rotateLeft(root)
		}
	}
	root.fix()
	return root
}

// removeVictim removes n from the treap at root and returns the new root.
func removeVictim(root, n *victimNode) *victimNode {
	if root == nil {
		return nil
	}
	switch {
	case root == n:
		return mergeVictims(root.left, root.right)
	case n.less(root):
		root.left = removeVictim(root.left, n)
	default:
		root.right = removeVictim(root.right, n)
	}
	root.fix()
	return root
}

// mergeVictims joins two treaps, every node of a before every node of b.
func mergeVictims(a, b *victimNode) *victimNode {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case a.prio > b.prio:
		a.right = mergeVictims(a.right, b)
		a.fix()
		return a
	}
	b.left = mergeVictims(a, b.left)
	b.fix()
	return b
}

// rotateRight and rotateLeft lift n's left or right child above it.
func rotateRight(n *victimNode) *victimNode {
	l := n.left
	n.left, l.right = l.right, n
	n.fix()
	l.fix()
	return l
}

func rotateLeft(n *victimNode) *victimNode {
	r := n.right
	n.right, r.left = r.left, n
	n.fix()
	r.fix()
	return r
}

// newestBucketFirst returns the first by UID of the tree's candidates whose age bucket at
// now is bucket, the least of the tree: those are its newest, a suffix in time order.
func newestBucketFirst(n *victimNode, now Time, bucket int8) *victimNode {
	var best *victimNode
	for n != nil {
		if ageBucket(now, n.t) == bucket {
			// n and every later one are in the bucket; earlier ones may be too.
			best = firstByUID(best, n)
			if n.right != nil {
				best = firstByUID(best, n.right.first)
			}
			n = n.left
		} else {
			n = n.right
		}
	}
	return best
}

// victimIndex is a ReplicaSet's live pods ranked for a scale-down.
type victimIndex struct {
	rs     *replicaSet
	groups map[victimGroup]*victimNode
	// placed is each candidate's node in the trees and its group.
	placed map[*podState]victimPlace
	// onNode are the candidates by node (-1: unscheduled), for the changes in number of the
	// Deployment's pods on a node, which move them between groups.
	onNode map[int32][]*podState
}

// victimPlace is where a candidate is: its tree node, its group and the node it was on.
type victimPlace struct {
	n     *victimNode
	group victimGroup
	node  int32
}

// victimState is what a Service keeps while some of its ReplicaSets have an index or a
// candidate list: the Deployment's live pods per node (index node+1), the indexes and the
// lists.
type victimState struct {
	live    []int32
	indexes []*victimIndex
	cands   []*victimCands
}

// buildVictimIndex makes rs's index, and its Service's counts if it has none.
func (w *workloadControllers) buildVictimIndex(rs *replicaSet) *victimIndex {
	s := rs.svc
	w.victimStateOf(s)
	x := &victimIndex{rs: rs, groups: map[victimGroup]*victimNode{}, placed: map[*podState]victimPlace{}, onNode: map[int32][]*podState{}}
	for _, p := range s.pods {
		if p.live && p.rs() == rs {
			x.place(s.victims, p)
		}
	}
	s.victims.indexes = append(s.victims.indexes, x)
	rs.rareFields().victims = x
	return x
}

// victimStateOf returns s's victim state, made now (with its counts of pods on nodes) if
// need be.
func (w *workloadControllers) victimStateOf(s *serviceState) *victimState {
	if s.victims == nil {
		st := &victimState{live: make([]int32, len(w.e.nodes)+1)}
		for _, p := range s.pods {
			if p.live {
				st.live[p.node+1]++
			}
		}
		s.victims = st
	}
	return s.victims
}

// release lets go of s's victim state once nothing needs its counts.
func (st *victimState) release(s *serviceState) {
	if len(st.indexes) == 0 && len(st.cands) == 0 {
		s.victims = nil
	}
}

// dropVictimIndex lets go of rs's index, if it has one, and of its Service's counts of
// pods on nodes once nothing needs them; rs counts its scale-downs of a few pods afresh.
func (rs *replicaSet) dropVictimIndex() {
	r := rs.rare
	if r == nil {
		return
	}
	r.fewScaleDowns = 0
	x := r.victims
	if x == nil {
		return
	}
	r.victims = nil
	st := rs.svc.victims
	st.indexes = slices.DeleteFunc(st.indexes, func(o *victimIndex) bool { return o == x })
	st.release(rs.svc)
}

// place adds p to the tree of its group.
func (x *victimIndex) place(st *victimState, p *podState) {
	g := victimGroup{class: deletionClass(p), colocated: st.live[p.node+1]}
	n := &victimNode{p: p, t: rankTime(p.pod), uid: uidPrefix(p.pod.UID)}
	n.prio = n.uid * 0x9e3779b97f4a7c15 // deterministic, and spread as the UIDs are
	x.groups[g] = insertVictim(x.groups[g], n)
	x.placed[p] = victimPlace{n: n, group: g, node: p.node}
	x.onNode[p.node] = append(x.onNode[p.node], p)
}

// unplace removes p, if placed.
func (x *victimIndex) unplace(p *podState) {
	pl, ok := x.placed[p]
	if !ok {
		return
	}
	root := removeVictim(x.groups[pl.group], pl.n)
	if root == nil {
		delete(x.groups, pl.group)
	} else {
		x.groups[pl.group] = root
	}
	delete(x.placed, p)
	on := x.onNode[pl.node]
	for i, q := range on {
		if q == p {
			on[i] = on[len(on)-1]
			on[len(on)-1] = nil
			on = on[:len(on)-1]
			break
		}
	}
	if len(on) == 0 {
		delete(x.onNode, pl.node)
	} else {
		x.onNode[pl.node] = on
	}
}

// first returns the first n candidates at now, in order (n at most the candidates).
func (x *victimIndex) first(n int, now Time) []*podState {
	out := make([]*podState, 0, n)
	for range n {
		var g victimGroup
		var root *victimNode
		for k, r := range x.groups {
			if root == nil || k.before(g) {
				g, root = k, r
			}
		}
		newest := root
		for newest.right != nil {
			newest = newest.right
		}
		best := newestBucketFirst(root, now, ageBucket(now, newest.t))
		out = append(out, best.p)
		x.unplace(best.p)
	}
	// Put them back: the calls to delete them are yet to be made.
	for _, p := range out {
		x.place(x.rs.svc.victims, p)
	}
	return out
}

// victimPodChanged is the indexes' hook for a change of p's object (its class or rank time),
// liveness or node (was, before the change): p and, where the Deployment's pods on a node
// changed in number, the candidates there are placed again.
func (s *serviceState) victimPodChanged(p *podState, wasLive bool, wasNode int32) {
	st := s.victims
	if st == nil {
		return
	}
	if wasLive != p.live || wasNode != p.node {
		if wasLive {
			st.live[wasNode+1]--
		}
		if p.live {
			st.live[p.node+1]++
		}
	}
	for _, c := range st.cands {
		c.update(p)
	}
	for _, x := range st.indexes {
		x.update(st, p)
		if wasLive != p.live || wasNode != p.node {
			x.regroupOn(st, wasNode)
			if p.node != wasNode {
				x.regroupOn(st, p.node)
			}
		}
	}
}

// update places p as it is now: a candidate while live, in its group at its rank time.
func (x *victimIndex) update(st *victimState, p *podState) {
	pl, ok := x.placed[p]
	if !p.live || p.rs() != x.rs {
		if ok {
			x.unplace(p)
		}
		return
	}
	if ok && pl.node == p.node && pl.n.t == rankTime(p.pod) {
		x.regroup(st, p, pl)
		return
	}
	if ok {
		x.unplace(p)
	}
	x.place(st, p)
}

// regroupOn moves the candidates on node to the group of the Deployment's pods there, whose
// number changed.
func (x *victimIndex) regroupOn(st *victimState, node int32) {
	for _, q := range x.onNode[node] {
		x.regroup(st, q, x.placed[q])
	}
}

// regroup moves p, placed at pl, to the group its class and node give now.
func (x *victimIndex) regroup(st *victimState, p *podState, pl victimPlace) {
	g := victimGroup{class: deletionClass(p), colocated: st.live[p.node+1]}
	if g == pl.group {
		return
	}
	if root := removeVictim(x.groups[pl.group], pl.n); root == nil {
		delete(x.groups, pl.group)
	} else {
		x.groups[pl.group] = root
	}
	x.groups[g] = insertVictim(x.groups[g], pl.n)
	pl.group = g
	x.placed[p] = pl
}
