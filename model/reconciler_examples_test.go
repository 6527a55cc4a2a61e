package model

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// The worked examples of UPSTREAM.md §8 and Appendix A (values from the harness runs of
// upstream k8s.io/endpointslice v0.37.2, [run] labels E1..E33), checked against both the
// full twin and the incremental reconciler.

type exampleEnv struct {
	t     *testing.T
	svc   *Service
	pods  map[string]*Pod
	nodes mapNodes
	opts  ReconcilerOptions
	// full twin state
	stored []*EndpointSlice
	seq    int
	inc    *ServiceSlices
	incSeq int
	nextIP int
}

func newExampleEnv(t *testing.T, max int) *exampleEnv {
	e := &exampleEnv{t: t, svc: benchService(), pods: map[string]*Pod{}, nodes: benchNodes(), opts: ReconcilerOptions{MaxEndpointsPerSlice: max}}
	e.inc = NewServiceSlices(e.svc, e.nodes, e.opts)
	return e
}

// setMax restarts the incremental reconciler with a new max (a controller restart), seeded
// with the stored slices.
func (e *exampleEnv) setMax(max int) {
	e.opts.MaxEndpointsPerSlice = max
	stored := e.inc.Stored()
	e.inc = NewServiceSlices(e.svc, e.nodes, e.opts)
	for _, p := range e.pods {
		e.inc.SetPod(p)
	}
	e.inc.SetStoredSlices(stored)
}

func (e *exampleEnv) setService(svc *Service) { e.svc = svc; e.inc.SetService(svc) }

func (e *exampleEnv) add(n int, mut func(*Pod)) []string {
	var names []string
	for i := 0; i < n; i++ {
		e.nextIP++
		p := benchPod(e.nextIP, true)
		if mut != nil {
			mut(p)
		}
		e.pods[p.Name] = p
		e.inc.SetPod(p)
		names = append(names, p.Name)
	}
	return names
}

func (e *exampleEnv) remove(names ...string) {
	for _, n := range names {
		delete(e.pods, n)
		e.inc.DeletePod("ns", n)
	}
}

func (e *exampleEnv) change(name string, mut func(*Pod)) {
	c := *e.pods[name]
	mut(&c)
	e.pods[name] = &c
	e.inc.SetPod(&c)
}

// sync runs both reconcilers, checks they agree, applies the writes and returns the verb
// order and the sorted sizes.
func (e *exampleEnv) sync() (string, []int) {
	e.t.Helper()
	var pods []*Pod
	for _, p := range e.pods {
		pods = append(pods, p)
	}
	full := ReconcileFull(e.svc, pods, e.stored, e.nodes, e.opts, 1)
	inc := e.inc.Sync(1)
	if planString(full) != planString(inc) {
		e.t.Fatalf("incremental differs from full:\n%s\nvs\n%s", planString(full), planString(inc))
	}
	e.stored = applyPlan(e.stored, full, &e.seq)
	applyAll(e.inc, inc, &e.incSeq)
	order := compactOrder(planOrder(full))
	return order, e.sizes()
}

func (e *exampleEnv) sizes() []int {
	var sizes []int
	for _, s := range e.stored {
		sizes = append(sizes, len(s.Endpoints))
	}
	slices.Sort(sizes)
	return sizes
}

// compactOrder renders ["create","create","update"] as "c2 u1" (runs in call order).
func compactOrder(order []string) string {
	out := ""
	for i := 0; i < len(order); {
		j := i
		for j < len(order) && order[j] == order[i] {
			j++
		}
		if out != "" {
			out += " "
		}
		out += fmt.Sprintf("%c%d", order[i][0], j-i)
		i = j
	}
	if out == "" {
		return "-"
	}
	return out
}

func (e *exampleEnv) expect(wantOrder string, wantSizes ...int) {
	e.t.Helper()
	order, sizes := e.sync()
	if order != wantOrder || !slices.Equal(sizes, wantSizes) {
		e.t.Fatalf("got writes %s sizes %v, want %s %v", order, sizes, wantOrder, wantSizes)
	}
}

// slicePods returns the pod names stored in the slice with the given size.
func (e *exampleEnv) slicePods(size int) []string {
	for _, s := range e.stored {
		if len(s.Endpoints) == size {
			var out []string
			for _, ep := range s.Endpoints {
				out = append(out, ep.TargetRef.Name)
			}
			return out
		}
	}
	e.t.Fatalf("no slice of size %d", size)
	return nil
}

func TestUpstreamExamples(t *testing.T) {
	t.Run("1 lifecycle and placeholder (E1, E2)", func(t *testing.T) {
		e := newExampleEnv(t, 100)
		e.expect("c1", 0)
		names := e.add(10, nil)
		e.expect("u1", 10)
		e.remove(names...)
		e.expect("u1", 0)
		e.expect("-", 0)
		f := newExampleEnv(t, 100)
		f.add(250, nil)
		f.expect("c3", 50, 100, 100)
	})
	t.Run("1f,g headless without ports (E9)", func(t *testing.T) {
		for _, tc := range []struct {
			n     int
			order string
			sizes []int
		}{{10, "u1", []int{10}}, {100, "c1", []int{0, 100}}} {
			e := newExampleEnv(t, 100)
			svc := *e.svc
			svc.ClusterIP, svc.Ports = "None", nil
			e.setService(&svc)
			e.expect("c1", 0)
			e.add(tc.n, nil)
			e.expect(tc.order, tc.sizes...)
		}
	})
	t.Run("2 near-full slices (E3, E3b, E3c)", func(t *testing.T) {
		build := func() (*exampleEnv, []string) {
			e := newExampleEnv(t, 100)
			a := e.add(95, nil)
			e.expect("c1", 95)
			e.add(95, nil)
			e.expect("c1", 95, 95)
			return e, a
		}
		e, _ := build()
		e.add(10, nil)
		e.expect("c1", 10, 95, 95)
		e, _ = build()
		e.add(5, nil)
		e.expect("u1", 95, 100)
		e, a := build()
		e.remove(a[0])
		e.add(10, nil)
		e.expect("u2", 99, 100)
	})
	t.Run("3 no repacking on scale-down (E4)", func(t *testing.T) {
		e := newExampleEnv(t, 100)
		s1 := e.add(100, nil)
		e.expect("c1", 100)
		e.add(100, nil)
		e.expect("c1", 100, 100)
		s3 := e.add(50, nil)
		e.expect("c1", 50, 100, 100)
		e.remove(s1[:40]...)
		e.remove(s3...)
		e.expect("u1 d1", 60, 100)
	})
	t.Run("4 where the remainder goes (E15, E18, E32, E16)", func(t *testing.T) {
		e := newExampleEnv(t, 100)
		e.add(60, nil)
		e.expect("c1", 60)
		e.add(150, nil)
		e.expect("c2", 50, 60, 100)
		e = newExampleEnv(t, 100)
		e.add(60, nil)
		e.expect("c1", 60)
		e.add(130, nil)
		e.expect("c1 u1", 90, 100)
		e = newExampleEnv(t, 20)
		e.add(10, nil)
		e.expect("c1", 10)
		e.add(20, nil)
		e.expect("c1", 10, 20)
		e.setMax(100)
		e.add(250, nil)
		e.expect("c2 u1", 10, 70, 100, 100)
		e = newExampleEnv(t, 100)
		e.add(100, nil)
		e.expect("c1", 100)
		b := e.add(100, nil)
		e.expect("c1", 100, 100)
		e.remove(b[:30]...)
		e.add(45, nil)
		e.expect("c1 u1", 15, 100, 100)
	})
	t.Run("5 recycling (E20)", func(t *testing.T) {
		e := newExampleEnv(t, 100)
		s1 := e.add(100, nil)
		e.expect("c1", 100)
		e.add(100, nil)
		e.expect("c1", 100, 100)
		e.add(100, nil)
		e.expect("c1", 100, 100, 100)
		e.remove(s1...)
		e.add(100, nil)
		e.expect("u1", 100, 100, 100)
	})
	t.Run("6 service-wide rewrites (E6, E22, E5, E29)", func(t *testing.T) {
		build := func() *exampleEnv {
			e := newExampleEnv(t, 100)
			e.add(100, nil)
			e.expect("c1", 100)
			e.add(100, nil)
			e.expect("c1", 100, 100)
			e.add(50, nil)
			e.expect("c1", 50, 100, 100)
			return e
		}
		e := build()
		svc := *e.svc
		svc.Labels = map[string]string{"app": "web", "tier": "front"}
		e.setService(&svc)
		e.expect("u3", 50, 100, 100)
		e = build()
		svc = *e.svc
		svc.Ports = []ServicePort{{Name: "http", Protocol: ProtocolTCP, Port: 80, TargetPort: IntPort(9090)}}
		e.setService(&svc)
		e.expect("u3", 50, 100, 100)
		e = build()
		e.change("pod-7", func(p *Pod) { p.Ready = false })
		e.expect("u1", 50, 100, 100)
		e.expect("-", 50, 100, 100)
		e = build()
		n := *e.nodes["node-1"]
		n.Zone = "zone-z"
		e.nodes["node-1"] = &n
		e.inc.NodeChanged("node-1")
		e.change("pod-250", func(p *Pod) { p.Ready = false }) // an unrelated change syncs
		e.expect("u3", 50, 100, 100)
	})
	t.Run("7 dual-stack (E7)", func(t *testing.T) {
		e := newExampleEnv(t, 100)
		svc := *e.svc
		svc.IPFamilies = []IPFamily{IPv4, IPv6}
		e.setService(&svc)
		names := e.add(150, func(p *Pod) {
			p.IPs = append(p.IPs, fmt.Sprintf("fd00::%x", len(p.Name)*1000+int(p.UID[len(p.UID)-1])))
		})
		for i, n := range names {
			e.change(n, func(p *Pod) { p.IPs = []string{p.IPs[0], fmt.Sprintf("fd00::%x", i+1)} })
		}
		e.expect("c4", 50, 50, 100, 100)
		// Each pod's IPv6 identity is kept beside its entry (podEntry.id holds IPv4's).
		if e.inc.inline != 0 || len(e.inc.secondIdentities()) != len(names) {
			t.Errorf("inline family %d, %d IPv6 identities kept apart, want 0 and %d", e.inc.inline, len(e.inc.secondIdentities()), len(names))
		}
		for _, n := range names {
			e.change(n, func(p *Pod) { p.IPs = p.IPs[:1] })
		}
		e.expect("u1 d1", 0, 50, 100)
		if len(e.inc.secondIdentities()) != 0 {
			t.Errorf("%d IPv6 identities kept apart for pods that have no IPv6 address", len(e.inc.secondIdentities()))
		}
		// An IPv6-only Service keeps its identities in the entries.
		svc6 := *e.svc
		svc6.IPFamilies = []IPFamily{IPv6}
		e.setService(&svc6)
		for i, n := range names {
			e.change(n, func(p *Pod) { p.IPs = []string{fmt.Sprintf("fd00::%x", i+1)} })
		}
		e.sync()
		if e.inc.inline != 1 || len(e.inc.secondIdentities()) != 0 {
			t.Errorf("IPv6 only: inline family %d, %d identities kept apart, want 1 and 0", e.inc.inline, len(e.inc.secondIdentities()))
		}
	})
	t.Run("8 hints (E14, E21)", func(t *testing.T) {
		build := func(topo *TopologyCache) *exampleEnv {
			e := newExampleEnv(t, 100)
			e.opts.Topology = topo
			e.inc = NewServiceSlices(e.svc, e.nodes, e.opts)
			e.add(100, func(p *Pod) { p.NodeName = "node-0" }) // zone-a
			e.expect("c1", 100)
			e.add(50, func(p *Pod) { p.NodeName = "node-1" }) // zone-b
			e.expect("c1", 50, 100)
			return e
		}
		e := build(nil)
		svc := *e.svc
		svc.TrafficDistribution = TrafficDistributionPreferClose
		e.setService(&svc)
		e.expect("u2", 50, 100)
		e.expect("-", 50, 100)
		svc2 := svc
		svc2.TrafficDistribution = ""
		e.setService(&svc2)
		e.expect("u2", 50, 100)

		topo := NewTopologyCache()
		topo.SetNodes([]*Node{{Name: "a", Zone: "zone-a", Ready: true, AllocatableMilliCPU: 4000}, {Name: "b", Zone: "zone-b", Ready: true, AllocatableMilliCPU: 4000}})
		e = build(topo)
		svc = *e.svc
		svc.Annotations = map[string]string{AnnotationTopologyMode: "Auto"}
		e.setService(&svc)
		e.expect("u2", 50, 100)
		got := map[string]int{}
		for _, s := range e.stored {
			for _, ep := range s.Endpoints {
				got[*ep.Zone+"->"+ep.Hints.ForZones[0]]++
			}
		}
		if want := map[string]int{"zone-a->zone-a": 75, "zone-a->zone-b": 25, "zone-b->zone-b": 50}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("hints %v, want %v", got, want)
		}
		e.expect("-", 50, 100)
		e.add(1, func(p *Pod) { p.NodeName = "node-1" })
		e.expect("u1", 51, 100)
	})
	t.Run("9 replacing one pod (E31b)", func(t *testing.T) {
		e := newExampleEnv(t, 100)
		e.add(100, nil)
		e.expect("c1", 100)
		e.add(100, nil)
		e.expect("c1", 100, 100)
		e.add(50, nil)
		e.expect("c1", 50, 100, 100)
		victim := e.slicePods(100)[0]
		e.change(victim, func(p *Pod) { p.Terminating = true })
		e.expect("u1", 50, 100, 100)
		e.change(victim, func(p *Pod) { p.Ready = false })
		e.expect("u1", 50, 100, 100)
		fresh := e.add(1, func(p *Pod) { p.IPs, p.Ready = nil, false })
		e.expect("-", 50, 100, 100)
		e.change(fresh[0], func(p *Pod) { p.IPs = []string{"10.200.0.1"} })
		e.expect("u1", 51, 100, 100)
		e.change(fresh[0], func(p *Pod) { p.Ready = true })
		e.expect("u1", 51, 100, 100)
		e.remove(victim)
		e.expect("u1", 51, 99, 100)
	})
	t.Run("E17 missing node", func(t *testing.T) {
		e := newExampleEnv(t, 100)
		e.add(5, nil)
		e.add(2, func(p *Pod) { p.NodeName = "gone" })
		var pods []*Pod
		for _, p := range e.pods {
			pods = append(pods, p)
		}
		res := ReconcileFull(e.svc, pods, nil, e.nodes, e.opts, 1)
		if !errors.Is(res.Err, ErrNodeNotFound) || res.Writes() != 1 || len(res.Plans[0].ToCreate[0].Endpoints) != 5 {
			t.Fatalf("got %v, %d writes", res.Err, res.Writes())
		}
		if r := e.inc.Sync(1); !errors.Is(r.Err, ErrNodeNotFound) {
			t.Fatalf("incremental err %v", r.Err)
		}
	})
	t.Run("E26 and E27 max changes", func(t *testing.T) {
		e := newExampleEnv(t, 1000)
		e.add(2500, nil)
		e.expect("c3", 500, 1000, 1000)
		e = newExampleEnv(t, 1000)
		names := e.add(250, nil)
		e.expect("c1", 250)
		e.setMax(100)
		e.expect("-", 250)
		added := e.add(1, nil)
		e.expect("c1", 1, 250)
		_ = added
		e.remove(names[0])
		e.expect("u1", 1, 249)
	})
	t.Run("E13 trigger time annotation", func(t *testing.T) {
		svc := benchService()
		p := benchPod(1, true)
		at := Timestamp(1704067200123000000) // 2024-01-01T00:00:00.123Z
		res := ReconcileFull(svc, []*Pod{p}, nil, benchNodes(), ReconcilerOptions{}, at)
		got := res.Plans[0].ToCreate[0].Annotations.Get(AnnotationTriggerTime)
		if got != "2024-01-01T00:00:00.123Z" {
			t.Fatalf("annotation %q", got)
		}
		seq := 0
		stored := applyPlan(nil, res, &seq)
		q := *p
		q.Ready = false
		res = ReconcileFull(svc, []*Pod{&q}, stored, benchNodes(), ReconcilerOptions{}, 0)
		if _, ok := res.Plans[0].ToUpdate[0].Annotations.Lookup(AnnotationTriggerTime); ok {
			t.Fatal("zero trigger time must remove the annotation")
		}
	})
}
