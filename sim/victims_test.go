package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"epsim/model"
)

// upstreamLess is upstream's ActivePodsWithRanks.Less on the fields the model's pods have
// (no deletion cost, no restarts), transcribed as a test oracle: times are whole seconds,
// rank is the Deployment's active pods on the pod's node.
// upstream: pkg/controller/controller_utils.go ActivePodsWithRanks.Less, logarithmicRankDiff.
func upstreamLess(a, b *podState, rankA, rankB int32, now Time) bool {
	assigned := func(p *podState) bool { return p.node >= 0 }
	if assigned(a) != assigned(b) {
		return !assigned(a)
	}
	phase := func(p *podState) int {
		if p.pod.Phase == model.PodRunning {
			return 2
		}
		return 0
	}
	if phase(a) != phase(b) {
		return phase(a) < phase(b)
	}
	if a.pod.Ready != b.pod.Ready {
		return !a.pod.Ready
	}
	if rankA != rankB {
		return rankA > rankB
	}
	rankDiff := func(t1, t2 model.Timestamp) int64 {
		r := func(t model.Timestamp) int64 {
			if d := int64(now - virtualTime(t)); d > 0 {
				return int64(math.Log2(float64(d)))
			}
			return -1
		}
		return r(t1) - r(t2)
	}
	if a.pod.Ready && b.pod.Ready && a.pod.ReadyTransition != b.pod.ReadyTransition {
		if d := rankDiff(a.pod.ReadyTransition, b.pod.ReadyTransition); d != 0 {
			return d < 0
		}
		return a.pod.UID < b.pod.UID
	}
	if a.pod.CreationTimestamp != b.pod.CreationTimestamp {
		if d := rankDiff(a.pod.CreationTimestamp, b.pod.CreationTimestamp); d != 0 {
			return d < 0
		}
		return a.pod.UID < b.pod.UID
	}
	return false
}

// TestVictimOrderAsUpstream ranks random ReplicaSets (pods unscheduled, Pending, Running,
// ready or not, created and ready at whole seconds over an hour, some at the same second,
// two or three to a node) and checks that the model's order agrees with upstream's
// comparator on every pair that comparator orders one way only (but ready pods ready in the
// same second, which it may rank in a cycle), and that pickVictims takes the first n of that
// order.
func TestVictimOrderAsUpstream(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	sec := Time(time.Second)
	for trial := range 200 {
		e, err := newEngine(testConfig(8, 1), nil)
		if err != nil {
			t.Fatal(err)
		}
		s := e.services[0]
		rs := &replicaSet{svc: s, hash: "7d9c8b6f5"}
		s.newRS = rs
		now := 3600*sec + Time(r.Int64N(int64(sec)))
		m := 1 + r.IntN(60)
		for i := range m {
			p := &podState{owner: rs, node: -1, setIndex: -1, live: true, pod: &model.Pod{
				PodIdentity: model.NewPodIdentity("default", fmt.Sprint("p", i), fmt.Sprintf("%08x", r.Uint32())), Phase: model.PodPending}}
			p.pod.CreationTimestamp = timestamp(Time(r.Int64N(3600)) * sec)
			if i > 0 && r.IntN(4) == 0 {
				p.pod.CreationTimestamp = s.pods[r.IntN(i)].pod.CreationTimestamp // the same second
			}
			switch r.IntN(5) {
			case 0: // unscheduled
			case 1: // bound, Pending
				p.node = int32(r.IntN(8))
			default:
				p.node = int32(r.IntN(8))
				p.pod.Phase = model.PodRunning
				if r.IntN(4) > 0 {
					p.pod.Ready = true
					p.pod.ReadyTransition = p.pod.CreationTimestamp + model.Timestamp(r.Int64N(600))*model.Timestamp(sec)
				}
			}
			p.setPod(p.pod)
			s.pods = append(s.pods, p)
		}
		buckets := map[int8]bool{}
		for _, p := range s.pods {
			buckets[ageBucket(now, p.pod.CreationTimestamp)] = true
		}
		if m > 20 && len(buckets) < 3 {
			t.Fatalf("trial %d: %d pods created over an hour fall in %d age buckets", trial, m, len(buckets))
		}
		onNode := map[int32]int32{}
		for _, p := range s.pods {
			onNode[p.node]++
		}
		order := e.workloads.pickVictims(rs, m-1, now) // n < m: ranked
		if m == 1 {
			continue
		}
		pos := map[*podState]int{}
		for i, p := range order {
			pos[p] = i
		}
		last := len(order) // the one left out is last
		for _, p := range s.pods {
			if _, ok := pos[p]; !ok {
				pos[p] = last
			}
		}
		for _, a := range s.pods {
			for _, b := range s.pods {
				if a.pod.Ready && b.pod.Ready && a.pod.ReadyTransition == b.pod.ReadyTransition && a.pod.CreationTimestamp != b.pod.CreationTimestamp {
					continue // the one departure (see victims.go)
				}
				if upstreamLess(a, b, onNode[a.node], onNode[b.node], now) && !upstreamLess(b, a, onNode[b.node], onNode[a.node], now) && pos[a] > pos[b] {
					t.Fatalf("trial %d: upstream deletes %s (class %d, ready %v at %v, created %v, uid %s) before %s (class %d, ready %v at %v, created %v, uid %s); the model after",
						trial, a.pod.Name, deletionClass(a), a.pod.Ready, a.pod.ReadyTransition, a.pod.CreationTimestamp, a.pod.UID,
						b.pod.Name, deletionClass(b), b.pod.Ready, b.pod.ReadyTransition, b.pod.CreationTimestamp, b.pod.UID)
				}
			}
		}
		for _, n := range []int{0, 1, m / 2} {
			if got := e.workloads.pickVictims(rs, n, now); !slices.Equal(got, order[:n]) {
				t.Fatalf("trial %d: the first %d victims are not the first of the order", trial, n)
			}
		}
	}
}

// TestScaleDownSpreadsOverTheYoungest scales a Deployment of 1,000 pods, created and ready
// within seconds of each other, down to 900 twenty minutes later: upstream's logarithmic
// buckets put them all in one bucket, so the victims are 100 of them in UID order — spread
// over the whole ReplicaSet, not its 100 newest.
func TestScaleDownSpreadsOverTheYoungest(t *testing.T) {
	cfg := testConfig(50, 1000)
	cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate}, {Name: "wait", Kind: ActionWait, Duration: 20 * time.Minute}}
	e := ranEngine(t, cfg)
	s := e.services[0]
	victims := e.workloads.pickVictims(s.newRS, 100, e.now)
	if len(victims) != 100 {
		t.Fatalf("%d victims", len(victims))
	}
	// s.pods is in creation order: no pod has gone.
	created := make(map[*podState]int, len(s.pods))
	for i, p := range s.pods {
		created[p] = i
	}
	newest := 0
	for _, p := range victims {
		if created[p] >= len(s.pods)-100 {
			newest++
		}
	}
	// 100 of 1,000 at random: about 10 of the newest 100.
	if newest > 30 {
		t.Errorf("%d of the 100 victims are among the 100 newest pods: want them spread over the ReplicaSet", newest)
	}
	for i := 1; i < len(victims); i++ {
		if victims[i-1].pod.UID > victims[i].pod.UID && deletionClass(victims[i-1]) == deletionClass(victims[i]) {
			t.Fatalf("victims not in UID order within their class")
		}
	}
}

// TestScaleDownsInRuns drives scale-downs through rollouts, scaling, restarts, node failures
// and drains, and checks after every event that each ReplicaSet's counts (live, ready,
// terminating) match its pods: its live pods are the pods pickVictims ranks, and a ranking
// of all of them returns each once.
func TestScaleDownsInRuns(t *testing.T) {
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
				// What the ranking keeps of each pod follows its object.
				for _, p := range s.pods {
					if class, _ := rankOf(p.pod); p.rankClass() != class {
						t.Fatalf("at %v: pod %s ranks in class %d, its object in %d", e.now, p.pod.Name, p.rankClass(), class)
					}
				}
				for _, rs := range append([]*replicaSet{s.newRS}, s.oldRSs...) {
					live, ready, terminating := 0, 0, 0
					for _, p := range s.pods {
						if p.rs() != rs {
							continue
						}
						if p.live {
							live++
							if p.pod.Ready {
								ready++
							}
						}
						if p.stage != stageGone && p.pod.Terminating && !p.pod.Phase.Terminal() {
							terminating++
						}
					}
					if live != int(rs.live) || ready != int(rs.ready) || terminating != int(rs.terminating) {
						t.Fatalf("at %v: ReplicaSet %s counts %d live, %d ready and %d terminating pods, has %d, %d and %d",
							e.now, rs.hash, rs.live, rs.ready, rs.terminating, live, ready, terminating)
					}
					if checks%97 == 0 && live > 0 {
						all := e.workloads.pickVictims(rs, live+1, e.now)
						some := e.workloads.pickVictims(rs, max(live-1, 1), e.now)
						seen := map[*podState]bool{}
						for _, p := range some {
							seen[p] = true
						}
						if len(all) != live || len(some) != max(live-1, 1) || len(seen) != len(some) {
							t.Fatalf("at %v: %d live, ranked %d and %d (%d distinct)", e.now, live, len(all), len(some), len(seen))
						}
					}
					checks++
				}
			})
			if checks == 0 {
				t.Fatal("no ReplicaSet had pods")
			}
		})
	}
}

// TestAgeBucketAsUpstream checks ageBucket against upstream's int(math.Log2(float64(d)))
// on every power of two and its neighbours (where rounding could part them), at the edges
// of ageBucket's shortcut, and on random durations up to a year.
func TestAgeBucketAsUpstream(t *testing.T) {
	upstream := func(d int64) int8 {
		if d <= 0 {
			return -1
		}
		return int8(math.Log2(float64(d)))
	}
	var ds []int64
	for k := range 63 {
		p := int64(1) << k
		for _, delta := range []int64{-3, -2, -1, 0, 1, 2, 3} {
			ds = append(ds, p+delta)
		}
		// Around where the shortcut hands over to math.Log2, and where float64 rounds d
		// up to the next power.
		next := uint64(1) << (k + 1)
		edge := int64(next - next>>32)
		ds = append(ds, edge-1, edge, edge+1, int64(next-next>>53), int64(next-next>>54))
	}
	r := rand.New(rand.NewPCG(7, 8))
	year := int64(365 * 24 * time.Hour)
	for range 200000 {
		ds = append(ds, r.Int64N(year), r.Int64N(int64(time.Hour)), int64(r.Uint64()>>uint(r.IntN(64))))
	}
	ds = append(ds, 0, -1, math.MinInt64+1, math.MaxInt64)
	for _, d := range ds {
		now := Time(d)
		if got, want := ageBucket(now, timestampNs(0)), upstream(d); got != want {
			t.Fatalf("ageBucket of %d ns = %d, upstream %d", d, got, want)
		}
	}
}

// timestampNs is the object timestamp of virtual time t, not rounded to the second.
func timestampNs(t Time) model.Timestamp { return model.Timestamp(epoch + int64(t)) }

// TestVictimsAsFullSort checks pickVictims' staged selection (keys 1–5 first, then the age
// buckets, then the UIDs, each read only where the keys before tie) against sorting every
// candidate by its whole key, for every n, on ReplicaSets whose pods share nodes, classes,
// buckets and UID prefixes often.
func TestVictimsAsFullSort(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	sec := Time(time.Second)
	for trial := range 60 {
		nodes := 1 + r.IntN(12)
		e, err := newEngine(testConfig(nodes, 1), nil)
		if err != nil {
			t.Fatal(err)
		}
		s := e.services[0]
		rs := &replicaSet{svc: s, hash: "7d9c8b6f5"}
		other := &replicaSet{svc: s, hash: "5f6b8c9d7"} // another ReplicaSet of the Deployment
		s.newRS = rs
		now := 7200*sec + Time(r.Int64N(int64(sec)))
		m := 2 + r.IntN(300)
		spread := []int64{5, 60, 7200}[r.IntN(3)] // seconds the creations spread over
		for i := range m {
			owner := rs
			if r.IntN(4) == 0 {
				owner = other
			}
			uid := fmt.Sprintf("%04x%08x", r.IntN(4), r.Uint32()) // shared 8-byte prefixes
			p := &podState{owner: owner, node: -1, setIndex: -1, live: r.IntN(10) > 0, pod: &model.Pod{
				PodIdentity: model.NewPodIdentity("default", fmt.Sprint("p", i), uid), Phase: model.PodPending}}
			p.pod.CreationTimestamp = timestamp(Time(r.Int64N(spread)) * sec)
			switch r.IntN(6) {
			case 0: // unscheduled
			case 1: // bound, Pending
				p.node = int32(r.IntN(nodes))
			default:
				p.node = int32(r.IntN(nodes))
				p.pod.Phase = model.PodRunning
				if r.IntN(4) > 0 {
					p.pod.Ready = true
					p.pod.ReadyTransition = p.pod.CreationTimestamp + model.Timestamp(r.Int64N(spread))*model.Timestamp(sec)
				}
			}
			p.setPod(p.pod)
			s.pods = append(s.pods, p)
		}
		onNode := map[int32]int32{}
		var want []victimRank
		for _, p := range s.pods {
			if p.live {
				onNode[p.node]++
			}
		}
		for _, p := range s.pods {
			if p.live && p.owner == rs {
				key := victimKeyBase(deletionClass(p), ageBucket(now, rankTime(p.pod))) | colocationKey(onNode[p.node])
				want = append(want, victimRank{key: key, node: p.node, uid: uidPrefix(p.pod.UID), p: p})
			}
		}
		slices.SortFunc(want, func(a, b victimRank) int { return compareVictims(&a, &b) })
		for n := range len(want) {
			got := e.workloads.pickVictims(rs, n, now)
			if len(got) != n {
				t.Fatalf("trial %d: %d victims asked, %d given", trial, n, len(got))
			}
			for i, p := range got {
				if p != want[i].p {
					t.Fatalf("trial %d, n=%d: victim %d is %s, a full sort puts %s there", trial, n, i, p.pod.Name, want[i].p.pod.Name)
				}
			}
		}
	}
}

// BenchmarkPickVictims ranks a ReplicaSet of 50,000 ready pods on 5,000 nodes, with as many
// pods of the Deployment's new ReplicaSet beside them, for a scale-down of 500: one ranking of
// the middle of a rolling update of a 100,000-pod Service, which makes some 260.
func BenchmarkPickVictims(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 10))
	sec := Time(time.Second)
	const nodes, perRS = 5000, 50000
	e, err := newEngine(testConfig(nodes, 1), nil)
	if err != nil {
		b.Fatal(err)
	}
	s := e.services[0]
	old := &replicaSet{svc: s, hash: "7d9c8b6f5"}
	s.newRS = &replicaSet{svc: s, hash: "5f6b8c9d7"}
	now := 7200 * sec
	for i := range 2 * perRS {
		owner := old
		if i >= perRS {
			owner = s.newRS
		}
		p := &podState{owner: owner, node: int32(r.IntN(nodes)), setIndex: -1, live: true, pod: &model.Pod{
			PodIdentity: model.NewPodIdentity("default", fmt.Sprint("p", i), fmt.Sprintf("%08x-%04x", r.Uint32(), r.IntN(1<<16))),
			Phase:       model.PodRunning, Ready: true}}
		p.pod.CreationTimestamp = timestamp(Time(r.Int64N(3600)) * sec)
		p.pod.ReadyTransition = p.pod.CreationTimestamp + model.Timestamp(r.Int64N(60))*model.Timestamp(sec)
		p.setPod(p.pod)
		s.pods = append(s.pods, p)
	}
	// Each pod's object made again, in random order: in a run, updates replace them one at a
	// time, and a ranking finds them scattered over the heap rather than beside their records.
	for _, i := range r.Perm(len(s.pods)) {
		p := s.pods[i]
		pod := *p.pod
		p.setPod(&pod)
	}
	b.ReportAllocs()
	for b.Loop() {
		if got := e.workloads.pickVictims(old, 500, now); len(got) != 500 {
			b.Fatalf("%d victims", len(got))
		}
	}
}
