package sim

import (
	"slices"

	"epsim/model"
)

// A rollout by a quarter at a time deletes up to 500 pods a sync (the controller's burst),
// and each of those syncs ranks every pod of the Service (rankVictims), as upstream does:
// a Service of n pods is ranked some n/400 times. The ranking reads each pod's record, one
// cache miss each once the records are scattered over the heap: for one Service of
// 100,000 pods that was a quarter of the run's CPU, most of it the first read of each
// record. A victimCands keeps a ReplicaSet's candidates with the keys the ranking reads
// from their records (node and class) and objects (rank time and UID) in one array, and
// the Service's victimState counts the Deployment's pods on each node, so that a ranking
// reads the array and neither records nor objects; a pod event costs the list a map
// lookup.

// victimsCandsMin is the number of a ReplicaSet's live pods from which its
// victimsCandsAfter-th scale-down of more than victimsIndexMaxN pods builds a candidate
// list: a Service scaled down once or twice (an autoscaler's step) does not pay for one.
const (
	victimsCandsMin   = 1024
	victimsCandsAfter = 2
)

// victimCands is a ReplicaSet's live pods, each with its node and deletion class as the
// ranking reads them, in no order; at holds each one's place in list.
type victimCands struct {
	rs   *replicaSet
	list []victimCand
	at   map[*podState]int32
}

// victimCand is a candidate and the keys a ranking reads of it: its record's, and the
// two of its object, kept here so that a ranking reads no pod object (the first read of
// each, a cache miss, was half of a ranking of 100,000 pods that reads the records).
type victimCand struct {
	p *podState
	// t is the time the pod's age bucket is of (rankTime), and uid its UID's prefix
	// (uidPrefix).
	t     model.Timestamp
	uid   uint64
	node  int32
	class int8
}

// buildVictimCands makes rs's candidate list, and its Service's counts if it has none.
func (w *workloadControllers) buildVictimCands(rs *replicaSet) *victimCands {
	st := w.victimStateOf(rs.svc)
	c := &victimCands{rs: rs, list: make([]victimCand, 0, rs.live), at: make(map[*podState]int32, rs.live)}
	for _, p := range rs.svc.pods {
		c.update(p)
	}
	st.cands = append(st.cands, c)
	rs.rareFields().cands = c
	return c
}

// update keeps p as it is now: listed while it is a live pod of the ReplicaSet.
func (c *victimCands) update(p *podState) {
	i, listed := c.at[p]
	if !p.live || p.rs() != c.rs {
		if listed {
			last := len(c.list) - 1
			moved := c.list[last]
			c.list[i] = moved
			c.at[moved.p] = i
			c.list[last] = victimCand{}
			c.list = c.list[:last]
			delete(c.at, p)
		}
		return
	}
	if !listed {
		i = int32(len(c.list))
		c.list = append(c.list, victimCand{p: p, uid: uidPrefix(p.pod.UID)})
		c.at[p] = i
	}
	cd := &c.list[i]
	cd.node, cd.class, cd.t = p.node, deletionClass(p), rankTime(p.pod)
}

// dropVictimCands lets go of rs's candidate list, if it has one, and of its Service's
// counts of pods on nodes once nothing needs them.
func (rs *replicaSet) dropVictimCands() {
	r := rs.rare
	if r == nil || r.cands == nil {
		return
	}
	c := r.cands
	r.cands, r.manyScaleDowns = nil, 0
	st := rs.svc.victims
	st.cands = slices.DeleteFunc(st.cands, func(o *victimCands) bool { return o == c })
	st.release(rs.svc)
}
