package sim

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"epsim/model"
)

// TestPickVictims compares pickVictims with sorting every pod by deletionRank, on random
// ReplicaSets of scheduled/unscheduled and ready/not-ready pods and every kind of n.
func TestPickVictims(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 400 {
		m := r.IntN(300)
		if trial%50 == 0 {
			m = 5000
		}
		pods := make([]*podState, m)
		for i, seq := range r.Perm(m) {
			p := &podState{seq: int32(seq), node: -1, pod: &model.Pod{Ready: r.IntN(2) == 0}}
			if r.IntN(3) > 0 {
				p.node = int32(r.IntN(10))
			}
			pods[i] = p
		}
		want := slices.Clone(pods)
		slices.SortStableFunc(want, deletionRank)
		for _, n := range []int{0, 1, r.IntN(m + 1), m / 2, m - 1, m, m + 3} {
			if n < 0 {
				continue
			}
			got := pickVictims(slices.Clone(pods), n)
			if k := min(n, m); !slices.Equal(got, want[:k]) {
				t.Fatalf("trial %d: %d pods, n=%d: victims differ from the sorted order", trial, m, n)
			}
		}
	}
}

// deletionRank orders pods as the ReplicaSet controller picks victims: unscheduled before
// scheduled, not-ready before ready, newer before older. Within one Service seq is unique, so
// it is a strict total order.
// upstream: pkg/controller/controller_utils.go ActivePodsWithRanks (simplified to these keys).
func deletionRank(a, b *podState) int {
	if (a.node < 0) != (b.node < 0) {
		if a.node < 0 {
			return -1
		}
		return 1
	}
	if a.pod.Ready != b.pod.Ready {
		if !a.pod.Ready {
			return -1
		}
		return 1
	}
	return int(b.seq - a.seq)
}

// pickVictims, the engine's victim selection before the victim index and the index's oracle
// now, reorders pods so that pods[:n] are the first n in deletionRank order, in that
// order, and returns pods[:n]. A selection brings the n first to the front in O(len(pods))
// and only they are sorted: a scale-down of a 100,000-pod ReplicaSet by 500 does not sort
// 100,000 pods. The order being strict, this is the prefix a full sort would give.
func pickVictims(pods []*podState, n int) []*podState {
	n = min(n, len(pods))
	lo, hi := 0, len(pods)
	for hi-lo > 16 && n > lo && n < hi {
		// Median-of-three pivot, moved to the end; Lomuto partition.
		mid := lo + (hi-lo)/2
		if deletionRank(pods[mid], pods[lo]) < 0 {
			pods[mid], pods[lo] = pods[lo], pods[mid]
		}
		if deletionRank(pods[hi-1], pods[lo]) < 0 {
			pods[hi-1], pods[lo] = pods[lo], pods[hi-1]
		}
		if deletionRank(pods[mid], pods[hi-1]) < 0 {
			pods[mid], pods[hi-1] = pods[hi-1], pods[mid]
		}
		pivot := pods[hi-1] // the median of the three
		store := lo
		for i := lo; i < hi-1; i++ {
			if deletionRank(pods[i], pivot) < 0 {
				pods[i], pods[store] = pods[store], pods[i]
				store++
			}
		}
		pods[store], pods[hi-1] = pods[hi-1], pods[store]
		// pods[lo:store] rank before the pivot (now at store), pods[store+1:hi] after it.
		if n <= store {
			hi = store
		} else {
			lo = store + 1
		}
	}
	if n > lo && n < hi {
		slices.SortFunc(pods[lo:hi], deletionRank)
	}
	slices.SortFunc(pods[:n], deletionRank)
	return pods[:n]
}

// livePods returns rs's pods that count as replicas, in creation order, by walking every pod
// of the Service.
func livePods(rs *replicaSet) []*podState {
	out := make([]*podState, 0, rs.live)
	for _, p := range rs.svc.pods {
		if p.live && p.rs.resolve() == rs {
			out = append(out, p)
		}
	}
	return out
}

// TestVictimIndexSets checks the index's sets against a plain set under random adds and
// removes spread over spans that need the summary words, the move of base down (members below
// it) and up (growing over a dead lower half): after every step, each class read from the top
// is its members in descending order, and its lowest member is the smallest.
func TestVictimIndexSets(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	rose, lowered := false, false
	for trial := range 30 {
		span := []int32{100, 5000, 70000}[trial%3]
		start := int32(r.IntN(int(span)))
		x := &victimIndex{base: start}
		members := [numDeletionClasses]map[int32]bool{}
		for c := range members {
			members[c] = map[int32]bool{}
		}
		where := map[int32]int{} // seq -> class: a seq is in one class at most
		drift := int32(0)
		for step := range 3000 {
			if len(where) == 0 || r.IntN(5) < 3 {
				seq := drift + int32(r.IntN(int(span)))
				if _, ok := where[seq]; ok {
					continue
				}
				c := r.IntN(numDeletionClasses)
				base := x.base
				x.add(c, seq)
				rose, lowered = rose || x.base > base, lowered || x.base < base
				members[c][seq], where[seq] = true, c
			} else {
				seqs := slices.Sorted(maps.Keys(where))
				seq := seqs[r.IntN(len(seqs))]
				if r.IntN(4) == 0 {
					seq = seqs[len(seqs)-1] // the top: the cut of empty top words
				}
				c := where[seq]
				x.remove(c, seq)
				delete(members[c], seq)
				delete(where, seq)
			}
			if step%500 == 499 {
				drift += span / 2 // pods come and go upwards: base must follow
			}
			if int(x.n) != len(where) {
				t.Fatalf("trial %d step %d: n %d, want %d", trial, step, x.n, len(where))
			}
			if len(where) == 0 || step%5 != 0 {
				continue
			}
			for c := range numDeletionClasses {
				want := slices.Sorted(maps.Keys(members[c]))
				slices.Reverse(want)
				var got []int32
				for i := x.below(c, math.MaxInt); i >= 0; i = x.below(c, i) {
					got = append(got, x.base+int32(i))
				}
				if !slices.Equal(got, want) {
					t.Fatalf("trial %d step %d class %d: read %v, want %v", trial, step, c, got, want)
				}
				low := int32(-1)
				if i := x.lowest(c); i >= 0 {
					low = x.base + int32(i)
				}
				if len(want) > 0 && low != want[len(want)-1] || len(want) == 0 && low != -1 {
					t.Fatalf("trial %d step %d class %d: lowest %d", trial, step, c, low)
				}
			}
		}
	}
	if !rose || !lowered {
		t.Errorf("base rose %v, lowered %v: the test no longer moves it both ways", rose, lowered)
	}
}

// TestVictimIndexFollowsPods drives pods of one Service through random transitions with the
// engine's own hooks (created live, scheduled, Ready toggled, terminating, gone and
// compacted away, old ReplicaSets folded together by new templates) and compares, after
// every step, each ReplicaSet's victims for several n with the walk of every pod
// (pickVictims over livePods).
func TestVictimIndexFollowsPods(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for trial := range 30 {
		s := &serviceState{}
		s.newRS = &replicaSet{svc: s}
		all := []*replicaSet{s.newRS}
		var pods []*podState
		for step := range 1500 {
			switch k := r.IntN(100); {
			case k < 35: // a ReplicaSet creates a pod
				rs := all[r.IntN(len(all))]
				s.podSeq++
				p := &podState{svc: s, rs: rs, node: -1, seq: s.podSeq, pod: &model.Pod{}}
				s.pods = append(s.pods, p)
				s.setLive(p, true)
				pods = append(pods, p)
			case k < 55: // scheduled
				if p := pick(r, pods); p != nil && p.node < 0 && p.stage != stageGone {
					p.node = int32(r.IntN(5))
					p.reclass(-1, p.pod.Ready)
				}
			case k < 75: // Ready toggles (only on a node, as the kubelet reports)
				if p := pick(r, pods); p != nil && p.node >= 0 && p.stage != stageGone {
					old := p.pod
					next := *old
					next.Ready = !old.Ready
					p.pod = &next
					p.reclass(p.node, old.Ready)
				}
			case k < 85: // terminating
				if p := pick(r, pods); p != nil {
					s.setLive(p, false)
				}
			case k < 95: // gone
				if p := pick(r, pods); p != nil && p.stage != stageGone {
					p.stage = stageGone
					s.setLive(p, false)
					s.dropGone()
				}
			default: // a new template: the current ReplicaSet joins the old ones
				if s.oldRS == nil {
					s.oldRS = s.newRS
				} else {
					s.oldRS.absorb(s.newRS)
				}
				s.newRS = &replicaSet{svc: s}
				all = append(all, s.newRS)
			}
			for _, rs := range []*replicaSet{s.newRS, s.oldRS} {
				if rs == nil {
					continue
				}
				if got := 0; rs.victims != nil {
					if got = int(rs.victims.n); got != rs.live {
						t.Fatalf("trial %d step %d: index holds %d pods, ReplicaSet %d live", trial, step, got, rs.live)
					}
				} else if rs.live != 0 {
					t.Fatalf("trial %d step %d: no index, %d live", trial, step, rs.live)
				}
				for _, n := range []int{1, r.IntN(rs.live + 1), rs.live} {
					want := pickVictims(livePods(rs), n)
					if got := rs.pickVictims(n); !slices.Equal(got, want) {
						t.Fatalf("trial %d step %d: %d victims of %d live differ from the walk of every pod", trial, step, n, rs.live)
					}
				}
			}
		}
	}
}

// pick returns a random pod of pods, or nil.
func pick(r *rand.Rand, pods []*podState) *podState {
	if len(pods) == 0 {
		return nil
	}
	return pods[r.IntN(len(pods))]
}

// TestVictimIndexInRuns runs small clusters through everything that changes a pod's node,
// readiness or liveness (rollouts, scale down and up, readiness flips, restarts, node
// failures with recovery and eviction, drains) and checks after every event that each
// ReplicaSet's index gives the same full deletion order as the walk of every pod.
func TestVictimIndexInRuns(t *testing.T) {
	for _, tc := range []struct {
		name     string
		timeline []Action
	}{
		{"rollouts and scaling", []Action{
			{Name: "create", Kind: ActionCreate},
			{Name: "flip", Kind: ActionFlipReadiness, Pods: 20, NotReadyFor: 20 * time.Second},
			{Name: "roll1", Kind: ActionRollout, MaxSurge: IntOrPercent{Value: 50, IsPercent: true}, MaxUnavailable: IntOrPercent{Value: 50, IsPercent: true}},
			{Name: "down", Kind: ActionScale, Replicas: 40},
			{Name: "up", Kind: ActionScale, Replicas: 150},
			{Name: "restart", Kind: ActionRestartPods, Pods: 30},
			{Name: "roll2", Kind: ActionRollout, MaxSurge: IntOrPercent{Value: 1}, MaxUnavailable: IntOrPercent{Value: 10}},
		}},
		{"node failures and drains", []Action{
			{Name: "create", Kind: ActionCreate},
			{Name: "fail", Kind: ActionFailNodes, Nodes: 4, Duration: 30 * time.Second},
			{Name: "fail-for-good", Kind: ActionFailNodes, Nodes: 3},
			{Name: "drain", Kind: ActionDrainNodes, Nodes: 4},
			{Name: "down", Kind: ActionScale, Replicas: 30},
			{Name: "roll", Kind: ActionRollout, MaxSurge: IntOrPercent{Value: 25, IsPercent: true}, MaxUnavailable: IntOrPercent{Value: 25, IsPercent: true}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(12, 120)
			cfg.Timeline = tc.timeline
			e, err := newEngine(cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			s := e.services[0]
			checks := 0
			runEngine(t, e, func() {
				for _, rs := range []*replicaSet{s.newRS, s.oldRS} {
					if rs == nil || rs.live == 0 {
						continue
					}
					want := pickVictims(livePods(rs), rs.live)
					if got := rs.pickVictims(rs.live); !slices.Equal(got, want) {
						t.Fatalf("at %v: the index's deletion order of %d pods differs from the walk of every pod", e.now, rs.live)
					}
					checks++
				}
			})
			if checks == 0 {
				t.Fatal("no ReplicaSet had live pods")
			}
		})
	}
}
