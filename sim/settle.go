package sim

import (
	"cmp"
	"math"
	"slices"
	"time"

	"epsim/model"
)

// A controller's model builders hold indexes that only make a Service's next change cheap:
// about 1 KB for the Endpoints builder of a Service of 2 pods, as much again for its
// EndpointSlice reconciler, and some 170 bytes a pod for the two. Most Services sit still
// for hours, so the controllers drop the builders of Services that have had nothing to do
// for settleAfter, keeping only what makes them again (a dormant record), and make them
// again at the Service's next change, with the same decisions to follow
// (model.ServiceEndpoints.Settled and Restore, model.ServiceSlices.Settled; the twin tests
// and TestSettledBuildersMadeAgain).
//
// A Service that the next phase of the timeline (not a wait) may change does not become a
// candidate to settle in this one (actedOnNext): its builders would be made again then, at
// a cost of about a SetPod a pod in each controller, for memory held only in between.
// 50,000 Services of 10 pods, made over hours and then rolled out, settled after they were
// made and were all woken by the rollout (builderAt and reconcilerAt were 7.7% of its CPU
// profile). A Service that became a candidate in an earlier phase still settles when due.

// settleMaxPods bounds the pods of a Service whose builders are dropped (none: a variable,
// so that a test can turn settling off). Making a builder again costs a SetPod a pod, and
// the builders of a large Service take as much a pod as a small one's, so the same wait
// pays for either. Measured with both builders and an hour (peak live heap with a GC every
// 10 virtual minutes): Services of up to 4 pods left many-services at 101.0 MB, any size
// not in a rollout at 97.2 (its medium Services of 100 pods sit still through its second
// rollout), for 3% more CPU in many-services, 10% in cluster-day and 5% at 50,000
// Services of 10 pods (medians of 6, 3 and 2 pairs), whose drains and autoscaling, or
// rollout, make large Services' builders again in O(pods). Also settling during a
// rollout: 95.0 MB, but at 50,000 Services 36% more CPU (hours between a Service's steps,
// each made its builders again). A wait that doubled for a Service woken within it saved
// no CPU in cluster-day; one of 3 hours for Services of over 16 pods left many-services at
// 101.0 MB.
var settleMaxPods = math.MaxInt32

const (
	// settleAfter is how long a Service must have had nothing to do before its builders
	// are dropped: a Service that is changing (a rollout's pods start one after another, a
	// drain moves them) would make them again at every change. Measured with Services of
	// up to 4 pods: at 5 minutes many-services made builders again 17,372 times and
	// cluster-day 70,697; at an hour, 2,588 and 29,642, for the same peak live heap
	// (cluster-day's 1.3 MB higher).
	settleAfter = Time(time.Hour)
	// dormantInline is the most pods a dormant record holds itself (more keeps the rest);
	// spareDormantMax bounds the spare records kept (a rollout of thousands of small
	// Services makes them all again).
	dormantInline   = 4
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
	// more holds, by Service, the pods of a dormant record after its first dormantInline.
	more    map[int32][]*podState
	moreMax int // the most entries more has had since it was made
	// spare are emptied records, for the next drop to reuse.
	spare []*dormant
	// placed and woken are gather's and wake's scratch lists, which hold no pod between
	// two uses.
	placed []placedPod
	woken  []*podState
	// dropped and remade count the builders dropped and made again, largest is the most
	// pods one dropped had.
	dropped, remade, largest int
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
	pods    [dormantInline]*podState
}

func newSettler(services int) settler {
	return settler{dormant: make([]*dormant, services), candidateAt: make([]Time, services), queued: make([]bool, services),
		more: make(map[int32][]*podState)}
}

// note records that a sync of Service s, whose builder has pods pods, ended at now with
// nothing left to do, if it has at most settleMaxPods pods, all the pods its workload
// wants and no rollout in progress (one still being made or rolled will change: 50,000
// Services of 10 pods, made over hours and rolled over a day, made builders again for each
// step), and unless actedOnNext (the next phase's action may change it), and then calls
// drop for each Service whose latest such end is settleAfter old; drop checks that the
// builder may still go.
func (st *settler) note(s *serviceState, pods int, now Time, actedOnNext bool, drop func(idx int)) {
	if idx := s.idx; pods <= settleMaxPods && !actedOnNext && s.podCount() >= s.replicas && s.rollout == nil {
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
		if latest := st.candidateAt[c.idx]; latest != c.at && latest > now-settleAfter {
			// Not due yet: to the back of the queue, behind Services queued since (so
			// perhaps dropped up to settleAfter late). One that is due goes now: pushed
			// back, it waited behind those until they were due too (many-services'
			// medium Services settled an hour late, at its peak).
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
// builder has a version of one that is not the pod's current one. The pods after the
// first dormantInline go to more, for keep.
func (st *settler) gather(s *serviceState, n int, of func(p *podState) (*model.Pod, int), forget func(p *podState)) *dormant {
	if n > settleMaxPods {
		return nil
	}
	placed, all := st.placed[:0], true
	for _, p := range s.pods {
		if pod, at := of(p); pod != nil {
			if len(placed) == n || pod != p.pod {
				all = false // more pods than the builder has, or a version the record loses
				break
			}
			placed = append(placed, placedPod{p: p, at: at})
		}
	}
	st.placed = placed[:0]
	if !all || len(placed) != n { // or a pod the records do not name
		clear(placed) // keep no pod alive
		return nil
	}
	slices.SortStableFunc(placed, func(a, b placedPod) int { return cmp.Compare(a.at, b.at) })
	d := takeFree(&st.spare)
	for i, pp := range placed {
		forget(pp.p)
		if i < dormantInline {
			d.pods[i] = pp.p
		}
	}
	st.largest = max(st.largest, n)
	if n > dormantInline {
		more := make([]*podState, n-dormantInline)
		for i, pp := range placed[dormantInline:] {
			more[i] = pp.p
		}
		st.more[int32(s.idx)] = more
		st.moreMax = max(st.moreMax, len(st.more))
	}
	clear(placed) // keep no pod alive
	return d
}

// placedPod is a pod and its place in a builder's list, for gather to sort.
type placedPod struct {
	p  *podState
	at int
}

// keep makes d Service idx's dormant record.
func (st *settler) keep(idx int, d *dormant) {
	st.dormant[idx] = d
	st.dropped++
}

// asleep reports whether Service idx's builder is dropped (a dormant record stands for it).
// Every change of the Service or of its pods makes the builder again (wake) before the
// change is applied, and the builder was dropped only when a sync would have had nothing
// to do (model.ServiceEndpoints.Settled, model.ServiceSlices.Settled): a sync of a Service
// still asleep, which only an informer resync queues, writes nothing, and need not wake it.
// Each resync woke every settled Service: many-services' Services left alone for 30 hours
// (two resyncs) made 19,995 reconcilers and 19,489 Endpoints builders again, for 1.97
// CPU-s of user time against 1.31 and a live heap of 87 MB after a collection against 71.
func (st *settler) asleep(idx int) bool { return st.dormant[idx] != nil && !resyncWakes }

// resyncWakes makes asleep report false, so that a sync wakes every Service (a test
// compares the two).
var resyncWakes = false

// wake returns Service idx's dormant record and its pods in the builder's order (valid
// until release), and forgets them (nil if it has none); call release with the
// record once the builder is made again.
func (st *settler) wake(idx int) (*dormant, []*podState) {
	d := st.dormant[idx]
	if d == nil {
		return nil, nil
	}
	st.dormant[idx] = nil
	st.remade++
	pods := append(st.woken[:0], d.pods[:]...)
	if n := slices.Index(pods, nil); n >= 0 {
		pods = pods[:n]
	}
	if more, ok := st.more[int32(idx)]; ok {
		pods = append(pods, more...)
		st.forgetMore(idx)
	}
	st.woken = pods
	return d, pods
}

// forget drops Service idx's dormant record, if any, unused.
func (st *settler) forget(idx int) {
	st.dormant[idx] = nil
	st.forgetMore(idx)
}

// forgetMore deletes Service idx's pods from more. A map keeps the room of its most
// entries, so one that had more than 64 is made again once it holds a quarter of them
// (50,000 Services of 10 pods, settled at once and made again over a day, left 5 MB of
// it empty).
func (st *settler) forgetMore(idx int) {
	if _, ok := st.more[int32(idx)]; !ok {
		return
	}
	delete(st.more, int32(idx))
	if n := len(st.more); st.moreMax > 64 && n <= st.moreMax/4 {
		more := make(map[int32][]*podState, n) // (maps.Clone keeps the room too)
		for k, v := range st.more {
			more[k] = v
		}
		st.more, st.moreMax = more, n
	}
}

// release keeps d, emptied, for reuse, and lets go of the pods wake returned: the scratch
// list kept every pod of the last Service made again until the next was, a whole
// StatefulSet of 20,000 pods replaced one by one over the 45 hours of its rollout (6.6 MB).
func (st *settler) release(d *dormant) {
	clear(st.woken)
	st.woken = st.woken[:0]
	if len(st.spare) < spareDormantMax {
		*d = dormant{} // keep nothing alive
		st.spare = append(st.spare, d)
	}
}

// versionAt returns the version of pod p the dropped builder had, when the change that
// wakes it is changed's, from old (nil: no pod's).
func versionAt(p, changed *podState, old *model.Pod) *model.Pod {
	if p == changed {
		return old
	}
	return p.pod
}

// nextActing returns, per Service, whether the first phase after phase i that is not a
// wait has an action that may change it: one that names it or names none, or acts on nodes
// (failNodes, drainNodes: any Service may have pods there). buf is reused.
func (e *Engine) nextActing(i int, buf []bool) []bool {
	acts := slices.Grow(buf[:0], len(e.services))[:len(e.services)]
	clear(acts)
	j := i + 1
	for j < len(e.cfg.Timeline) && e.cfg.Timeline[j].Kind == ActionWait {
		j++
	}
	if j == len(e.cfg.Timeline) {
		return acts
	}
	switch a := &e.cfg.Timeline[j]; {
	case a.Kind == ActionFailNodes || a.Kind == ActionDrainNodes || len(a.Services) == 0:
		for k := range acts {
			acts[k] = true
		}
	default:
		for _, s := range e.targets(a) {
			acts[s.idx] = true
		}
	}
	return acts
}

// actedOnNext reports whether the next phase that is not a wait has an action that may
// change Service s (nextActs): s does not become a candidate to settle in this phase, as
// that would make its builders again. (Not for a Service only a phase after that acts on:
// the one between may run for hours without it, at the run's peak: many-services' small
// Services, idle through the rollout of its large ones.)
func (e *Engine) actedOnNext(s *serviceState) bool {
	return keepForNextAction && s.idx < len(e.nextActs) && e.nextActs[s.idx]
}

// keepForNextAction turns actedOnNext on: a variable, so that a test can have Services
// settle between the actions that change them.
var keepForNextAction = true
