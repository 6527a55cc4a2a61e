package model

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	discovery "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func benchService() *Service {
	return &Service{
		Namespace: "ns", Name: "web", UID: "uid-1", Labels: map[string]string{"app": "web"},
		Selector: Selector{{Key: "app", Value: "web"}}, ClusterIP: "10.96.0.10", IPFamilies: []IPFamily{IPv4},
		Ports: []ServicePort{{Name: "http", Protocol: ProtocolTCP, Port: 80, TargetPort: IntPort(8080)}},
	}
}

func benchNodes() mapNodes {
	m := mapNodes{}
	for i := 0; i < 100; i++ {
		m[fmt.Sprintf("node-%d", i)] = &Node{Name: fmt.Sprintf("node-%d", i), Zone: zones[i%3], Ready: true, AllocatableMilliCPU: 4000}
	}
	return m
}

func benchPod(i int, ready bool) *Pod {
	return &Pod{
		PodIdentity: NewPodIdentity("ns", fmt.Sprintf("pod-%d", i), fmt.Sprintf("uid-%d", i)),
		NodeName:    fmt.Sprintf("node-%d", i%100), Phase: PodRunning,
		IPs: []string{fmt.Sprintf("10.%d.%d.%d", i/65536, (i/256)%256, i%256)}, Ready: ready,
	}
}

// applyAll applies every write of res to s, naming creates from *seq.
func applyAll(s *ServiceSlices, res SyncResult, seq *int) {
	for _, p := range res.Plans {
		for _, c := range p.ToCreate {
			*seq++
			cc := *c
			cc.Name = fmt.Sprintf("%s%05d", c.GenerateName, *seq)
			s.Applied("create", &cc)
		}
		for _, u := range p.ToUpdate {
			s.Applied("update", u)
		}
		for _, d := range p.ToDelete {
			s.Applied("delete", d)
		}
	}
}

// BenchmarkOneChangeSync: (a) one pod's readiness flips in a 10,000-endpoint Service, then
// one sync (and, for ours, the Applied bookkeeping of its single write).
func BenchmarkOneChangeSync(b *testing.B) {
	const n = 10000
	b.Run("incremental", func(b *testing.B) {
		benchOneChangeIncremental(b, benchService(), ReconcilerOptions{}, n, func(w int) bool { return w == 1 })
	})
	b.Run("full", func(b *testing.B) {
		benchOneChangeFull(b, benchService(), ReconcilerOptions{}, n)
	})
	b.Run("upstream", func(b *testing.B) {
		var nodes []*Node
		for _, nd := range benchNodes() {
			nodes = append(nodes, nd)
		}
		h := newUpstreamHarness(100, nodes, false, false)
		svc := toK8sService(benchService())
		kpods := make([]*corev1.Pod, n)
		for i := range kpods {
			kpods[i] = toK8sPod(benchPod(i, true))
		}
		ctx := context.TODO()
		list := func() []*discovery.EndpointSlice {
			l, _ := h.client.DiscoveryV1().EndpointSlices("ns").List(ctx, metav1.ListOptions{})
			out := make([]*discovery.EndpointSlice, len(l.Items))
			for i := range l.Items {
				out[i] = &l.Items[i]
			}
			return out
		}
		if err := h.rec.Reconcile(logr.Discard(), svc, kpods, nil, time.Unix(1, 0)); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			existing := list()
			p := kpods[i%n].DeepCopy()
			if p.Status.Conditions[0].Status == corev1.ConditionTrue {
				p.Status.Conditions[0].Status = corev1.ConditionFalse
			} else {
				p.Status.Conditions[0].Status = corev1.ConditionTrue
			}
			kpods[i%n] = p
			h.client.ClearActions()
			b.StartTimer()
			if err := h.rec.Reconcile(logr.Discard(), svc, kpods, existing, time.Unix(int64(2+i), 0)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkOneChangeSyncHinted is BenchmarkOneChangeSync for a Service with the
// topology-mode annotation (hint mode A, 3 zones): a flip can also move hints, so a sync may
// write more than one slice.
func BenchmarkOneChangeSyncHinted(b *testing.B) {
	const n = 10000
	svc := benchService()
	svc.Annotations = map[string]string{AnnotationTopologyMode: "Auto"}
	topology := func() *TopologyCache {
		t := NewTopologyCache()
		var nodes []*Node
		for _, nd := range benchNodes() {
			nodes = append(nodes, nd)
		}
		t.SetNodes(nodes)
		return t
	}
	b.Run("incremental", func(b *testing.B) {
		benchOneChangeIncremental(b, svc, ReconcilerOptions{Topology: topology()}, n, func(w int) bool { return w > 0 })
	})
	b.Run("full", func(b *testing.B) {
		benchOneChangeFull(b, svc, ReconcilerOptions{Topology: topology()}, n)
	})
}

// syncedBenchService returns the incremental builder of svc with n ready pods, synced and its
// writes applied (creates named from seq), and the pods.
func syncedBenchService(svc *Service, opts ReconcilerOptions, n int) (s *ServiceSlices, pods []*Pod, seq int) {
	s = NewServiceSlices(svc, benchNodes(), opts)
	pods = make([]*Pod, n)
	for i := range pods {
		pods[i] = benchPod(i, true)
		s.SetPod(pods[i])
	}
	applyAll(s, s.Sync(1), &seq)
	return s, pods, seq
}

// benchOneChangeIncremental flips one pod's readiness per iteration in an n-pod Service and
// syncs it incrementally, applying the writes; writesOK checks each sync's number of writes.
func benchOneChangeIncremental(b *testing.B, svc *Service, opts ReconcilerOptions, n int, writesOK func(int) bool) {
	s, pods, seq := syncedBenchService(svc, opts, n)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.SetPod(flipReadiness(pods, i))
		res := s.Sync(Timestamp(2 + i))
		if !writesOK(res.Writes()) {
			b.Fatalf("%d writes after one readiness flip", res.Writes())
		}
		applyAll(s, res, &seq)
	}
}

// BenchmarkOnePodReplaced: one pod of a 10,000-endpoint Service is deleted and a new one
// created (a rollout's step in small), then one sync and its write applied. The endpoints
// the update keeps after the removed one move up a place in their slice; the bookkeeping of
// the write must not cost each of them (BenchmarkOneChangeSync flips a pod in place).
func BenchmarkOnePodReplaced(b *testing.B) {
	const n = 10000
	s, pods, seq := syncedBenchService(benchService(), ReconcilerOptions{}, n)
	next := n
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i * 7919 % n // over every slice and position
		s.DeletePod("ns", pods[k].Name)
		pods[k] = benchPod(next, true)
		next++
		s.SetPod(pods[k])
		res := s.Sync(Timestamp(2 + i))
		if res.Writes() != 1 {
			b.Fatalf("%d writes for one pod replaced", res.Writes())
		}
		applyAll(s, res, &seq)
	}
}

// flipReadiness replaces pod i (mod len) with a copy of opposite readiness, as a pod update
// does, and returns the copy.
func flipReadiness(pods []*Pod, i int) *Pod {
	p := *pods[i%len(pods)]
	p.Ready = !p.Ready
	pods[i%len(pods)] = &p
	return &p
}

// benchOneChangeFull is benchOneChangeIncremental with ReconcileFull over every pod (the
// applying of its plan not timed).
func benchOneChangeFull(b *testing.B, svc *Service, opts ReconcilerOptions, n int) {
	pods := make([]*Pod, n)
	for i := range pods {
		pods[i] = benchPod(i, true)
	}
	nodes := benchNodes()
	seq := 0
	stored := applyPlan(nil, ReconcileFull(svc, pods, nil, nodes, opts, 1), &seq)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		flipReadiness(pods, i)
		res := ReconcileFull(svc, pods, stored, nodes, opts, Timestamp(2+i))
		b.StopTimer()
		stored = applyPlan(stored, res, &seq)
		b.StartTimer()
	}
}

// rolloutSteps drives a 10,000-pod rollout as 17 syncs of 2,500 changes: the initial sync,
// then 4 rounds of (surge 2,500 new pods not ready → make them ready → mark 2,500 old pods
// terminating → remove them). sync is called with the pods after each step.
func rolloutSteps(sync func(changed []*Pod, deleted []string, all map[string]*Pod)) {
	const n, batch = 10000, 2500
	all := map[string]*Pod{}
	var initial []*Pod
	for i := 0; i < n; i++ {
		p := benchPod(i, true)
		all[p.Name] = p
		initial = append(initial, p)
	}
	sync(initial, nil, all)
	next := n
	old := 0
	for round := 0; round < 4; round++ {
		var fresh []*Pod
		for j := 0; j < batch; j++ {
			p := benchPod(next, false)
			next++
			all[p.Name] = p
			fresh = append(fresh, p)
		}
		sync(fresh, nil, all)
		var readied []*Pod
		for _, p := range fresh {
			c := *p
			c.Ready = true
			all[c.Name] = &c
			readied = append(readied, &c)
		}
		sync(readied, nil, all)
		var term []*Pod
		var gone []string
		for j := 0; j < batch; j++ {
			name := fmt.Sprintf("pod-%d", old+j)
			c := *all[name]
			c.Terminating = true
			all[name] = &c
			term = append(term, &c)
			gone = append(gone, name)
		}
		old += batch
		sync(term, nil, all)
		for _, name := range gone {
			delete(all, name)
		}
		sync(nil, gone, all)
	}
}

// BenchmarkRollout: (b) the 17-sync rollout, ours (incremental) vs upstream.
func BenchmarkRollout(b *testing.B) {
	b.Run("incremental", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			s := NewServiceSlices(benchService(), benchNodes(), ReconcilerOptions{})
			seq := 0
			rolloutSteps(func(changed []*Pod, deleted []string, _ map[string]*Pod) {
				for _, p := range changed {
					s.SetPod(p)
				}
				for _, name := range deleted {
					s.DeletePod("ns", name)
				}
				applyAll(s, s.Sync(1), &seq)
			})
		}
	})
	b.Run("upstream", func(b *testing.B) {
		var nodes []*Node
		for _, nd := range benchNodes() {
			nodes = append(nodes, nd)
		}
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			h := newUpstreamHarness(100, nodes, false, false)
			svc := toK8sService(benchService())
			kByName := map[string]*corev1.Pod{}
			ctx := context.TODO()
			rolloutSteps(func(changed []*Pod, deleted []string, all map[string]*Pod) {
				for _, p := range changed {
					kByName[p.Name] = toK8sPod(p)
				}
				for _, name := range deleted {
					delete(kByName, name)
				}
				kpods := make([]*corev1.Pod, 0, len(kByName))
				for _, p := range kByName {
					kpods = append(kpods, p)
				}
				l, _ := h.client.DiscoveryV1().EndpointSlices("ns").List(ctx, metav1.ListOptions{})
				existing := make([]*discovery.EndpointSlice, len(l.Items))
				for j := range l.Items {
					existing[j] = &l.Items[j]
				}
				if err := h.rec.Reconcile(logr.Discard(), svc, kpods, existing, time.Unix(1, 0)); err != nil {
					b.Fatal(err)
				}
			})
		}
	})
}
