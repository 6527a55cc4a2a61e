package sim

import (
	"slices"
	"time"

	"epsim/model"
)

// A controller's model builders hold indexes that only make a Service's next change cheap:
// about 1 KB for the Endpoints builder of a Service of 2 pods, as much again for its
// EndpointSlice reconciler. Most Services sit still for hours, so the controllers drop the
// builders of small Services that have had nothing to do for settleAfter, keeping only what
// makes them again (a dormant record), and make them again at the Service's next change,
// with the same decisions to follow (model.ServiceEndpoints.Settled and Restore,
// model.ServiceSlices.Settled; the twin tests and TestSettledBuildersMadeAgain).

// settleMaxPods bounds the pods of a Service whose builders are dropped: making one again
// costs a SetPod a pod at its next change, and a rollout changes its Service's pods in a
// row. Measured on many-services (6,000 Services of 2 pods, 3,495 of 8), dropping the
// Endpoints builders alone after 5 minutes: at 4, its peak live heap was 4.7 MB less for
// 0.6% more allocations; at 16, 8 MB less for 39% more allocations and about a tenth more
// CPU (its Services of 8 pods roll out often, and at its peak most of them have 9 or 10
// pods); with both builders and an hour, any size took 1.5 MB more off the peak for 16%
// more CPU in cluster-day, whose big Services wake in O(pods). A variable, so that a test
// can turn settling off.
var settleMaxPods = dormantMaxPods

const (
	// settleAfter is how long a Service must have had nothing to do before its builders
	// are dropped: a Service that is changing (a rollout's pods start one after another, a
	// drain moves them) would make them again at every change. Measured: at 5 minutes
	// many-services made builders again 17,372 times and cluster-day 70,697; at an hour,
	// 2,588 and 29,642, for the same peak live heap (cluster-day's 1.3 MB higher).
	settleAfter = Time(time.Hour)
	// dormantMaxPods is the most pods a dormant record holds; spareDormantMax bounds the
	// spare records kept (a rollout of thousands of small Services makes them all again).
	dormantMaxPods  = 4
	spareDormantMax = 256
)

// settler keeps one controller's dormant records and the Services that may settle.
type settler struct {
	// dormant holds, per Service, what makes its dropped builder again (nil: the builder
	// is there, or the Service has none).
	dormant []*dormant
	// candidates are the Services whose syncs ended with nothing left to do, each once
	// (queued), with the time one did; candidateAt is each Service's latest such time. An
	// entry that comes due with a later latest time goes to the back with it, rather than
	// each sync adding one.
	candidates  fifo[settleCandidate]
	candidateAt []Time
	queued      []bool
	// spare are emptied records, for the next drop to reuse.
	spare []*dormant
	// dropped and remade count the builders dropped and made again.
	dropped, remade int
}

type settleCandidate struct {
	idx int32
	at  Time
}

// dormant is what makes a dropped builder again: the Service it had and its pods, in its
// order (whose refs are set again), and for an Endpoints builder its stored object's
// trigger time. 48 bytes in one allocation. The pod versions it had are the pods' own but
// for one being changed at the wake (see versionAt): gather keeps a record only of a
// builder that has every pod's current version, and every change of a pod reaches its
// builder, waking it first.
type dormant struct {
	svc     *model.Service
	trigger model.Timestamp
	pods    [dormantMaxPods]*podState
}

func newSettler(services int) settler {
	return settler{dormant: make([]*dormant, services), candidateAt: make([]Time, services), queued: make([]bool, services)}
}

// note records that a sync of Service s, whose builder has pods pods, ended at now with
// nothing left to do, if it has at most settleMaxPods pods and all the pods its workload
// wants (one still being made will change: 50,000 Services of 10 pods, made over hours,
// made builders again for each), and then calls drop for each Service whose latest such
// end is settleAfter old; drop checks that the builder may still go.
func (st *settler) note(s *serviceState, pods int, now Time, drop func(idx int)) {
	if idx := s.idx; pods <= settleMaxPods && s.podCount() >= s.replicas {
		st.candidateAt[idx] = now
		if !st.queued[idx] {
			st.queued[idx] = true
			st.candidates.push(settleCandidate{idx: int32(idx), at: now})
		}
	}
	for st.candidates.len() > 0 {
		c := st.candidates.items()[0]
		if c.at > now-settleAfter {
			break
		}
		st.candidates.drop(1)
		if latest := st.candidateAt[c.idx]; latest != c.at {
			st.candidates.push(settleCandidate{idx: c.idx, at: latest})
			continue
		}
		st.queued[c.idx] = false
		drop(int(c.idx))
	}
}

// gather returns a record of Service s's pods that a builder of n pods has, as of names
// them (the version it has and the pod's place in its list; nil for a pod it does not
// have), in the builder's order, and calls forget on each, whose ref goes with the
// builder; nil (and no forget) when they are not exactly n, too many to keep, or the
// builder has a version of one that is not the pod's current one.
func (st *settler) gather(s *serviceState, n int, of func(p *podState) (*model.Pod, int), forget func(p *podState)) *dormant {
	if n > min(settleMaxPods, dormantMaxPods) {
		return nil
	}
	var pods [dormantMaxPods]*podState
	var places [dormantMaxPods]int
	k := 0
	for _, p := range s.pods {
		if pod, at := of(p); pod != nil {
			if k == n || pod != p.pod {
				return nil // more pods than the builder has, or a version the record loses
			}
			pods[k], places[k] = p, at
			k++
		}
	}
	if k != n {
		return nil // a pod the records do not name
	}
	// Insertion sort by place (at most dormantMaxPods).
	for i := 1; i < k; i++ {
		for j := i; j > 0 && places[j] < places[j-1]; j-- {
			places[j], places[j-1] = places[j-1], places[j]
			pods[j], pods[j-1] = pods[j-1], pods[j]
		}
	}
	for _, p := range pods[:k] {
		forget(p)
	}
	d := takeFree(&st.spare)
	d.pods = pods
	return d
}

// keep makes d Service idx's dormant record.
func (st *settler) keep(idx int, d *dormant) {
	st.dormant[idx] = d
	st.dropped++
}

// wake returns Service idx's dormant record and forgets it (nil if it has none); call
// release with it once the builder is made again.
func (st *settler) wake(idx int) *dormant {
	d := st.dormant[idx]
	if d != nil {
		st.dormant[idx] = nil
		st.remade++
	}
	return d
}

// release keeps d, emptied, for reuse.
func (st *settler) release(d *dormant) {
	if len(st.spare) < spareDormantMax {
		*d = dormant{} // keep nothing alive
		st.spare = append(st.spare, d)
	}
}

// occupied returns the pods of d.
func (d *dormant) occupied() []*podState {
	n := slices.Index(d.pods[:], nil)
	if n < 0 {
		n = len(d.pods)
	}
	return d.pods[:n]
}

// versionAt returns the version of pod p the dropped builder had, when the change that
// wakes it is changed's, from old (nil: no pod's).
func versionAt(p, changed *podState, old *model.Pod) *model.Pod {
	if p == changed {
		return old
	}
	return p.pod
}
