package sim

import (
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	endpointsliceutil "k8s.io/endpointslice/util"

	"epsim/model"
)

// TestHintsEventsTakeTheClientsTokens: a Service in topology mode Auto with fewer ready
// endpoints than zones cannot have hints, and every sync of it records a
// TopologyAwareHintsDisabled Warning about the Service, which the EndpointSlice
// controller's client sends after the sync's writes; the recorder's spam filter lets 25
// through at once, then one per 5 minutes. So the client makes one call more than the
// slice writes for each sync, up to 25.
// upstream: endpointslice reconciler.go reconcileByAddressType; topologycache.go
// getAllocations (InsufficientNumberOfEndpoints); client-go events_cache.go
// EventSourceObjectSpamFilter.
func TestHintsEventsTakeTheClientsTokens(t *testing.T) {
	for _, tc := range []struct {
		mode string
		want func(syncs int) int
	}{
		{"Auto", func(syncs int) int { return min(syncs, eventSpamBurst) }},
		{"", func(int) int { return 0 }},
	} {
		cfg := testConfig(3, 2)
		cfg.RunEndpoints = false
		cfg.Services[0].TopologyMode = tc.mode
		cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate}}
		for i := range 30 {
			cfg.Timeline = append(cfg.Timeline, Action{Name: "flip", Kind: ActionFlipReadiness, Pods: 1, NotReadyFor: time.Second},
				Action{Name: "wait", Kind: ActionWait, Duration: time.Duration(i%2+2) * time.Second})
		}
		e, err := newEngine(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		runEngine(t, e, nil)
		c := e.ctls[0]
		res := e.stats.results(e.stats.finishRun())
		m := res.Total.Mode(ModeEndpointSlices)
		writes := m.Writes.Create + m.Writes.Update + m.Writes.Delete + m.NoopWrites + m.FailedWrites
		syncs := m.Syncs
		if syncs < 30 {
			t.Fatalf("mode %q: %d syncs, want 30 or more", tc.mode, syncs)
		}
		if got, want := int(c.bucket.taken)-int(writes), tc.want(int(syncs)); got != want {
			t.Errorf("mode %q: %d calls besides the %d writes in %d syncs, want %d Events", tc.mode, got, writes, syncs, want)
		}
	}
}

// TestPodUpdatesThatQueueTheService checks the pod update filter both controllers share
// against upstream's own: an update queues the pod's Services when the deletion
// timestamp, readiness or IPs changed; a hostname or subdomain change is a label change,
// which with the labels unchanged queues none.
// upstream: k8s.io/endpointslice util/controller_utils.go GetPodUpdateProjectionKey,
// GetServicesToUpdate.
func TestPodUpdatesThatQueueTheService(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"}}}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	if err := indexer.Add(svc); err != nil {
		t.Fatal(err)
	}
	lister := corelisters.NewServiceLister(indexer)
	base := model.Pod{PodIdentity: model.NewPodIdentity("default", "p", "uid"), Ready: true, IPs: []string{"10.0.0.1"}}
	base.OwnIdentity().Hostname, base.OwnIdentity().Subdomain = "a", "s"
	for _, tc := range []struct {
		name   string
		change func(p *model.Pod)
	}{
		{"readiness", func(p *model.Pod) { p.Ready = false }},
		{"IP", func(p *model.Pod) { p.IPs = []string{"10.0.0.2"} }},
		{"deletion", func(p *model.Pod) { p.Terminating = true }},
		{"hostname", func(p *model.Pod) { p.OwnIdentity().Hostname = "b" }},
		{"subdomain", func(p *model.Pod) { p.OwnIdentity().Subdomain = "t" }},
		{"nothing kept", func(*model.Pod) {}},
	} {
		cur := base
		tc.change(&cur)
		k8s := func(p *model.Pod, rv string) *corev1.Pod {
			kp := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "p", ResourceVersion: rv,
				Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Hostname: p.Hostname, Subdomain: p.Subdomain}}
			for _, ip := range p.IPs {
				kp.Status.PodIPs = append(kp.Status.PodIPs, corev1.PodIP{IP: ip})
			}
			if len(p.IPs) > 0 {
				kp.Status.PodIP = p.IPs[0]
			}
			st := corev1.ConditionFalse
			if p.Ready {
				st = corev1.ConditionTrue
			}
			kp.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: st}}
			if p.Terminating {
				kp.DeletionTimestamp = &metav1.Time{}
			}
			return kp
		}
		svcs, err := endpointsliceutil.GetServicesToUpdate(lister, endpointsliceutil.GetPodUpdateProjectionKey(k8s(&base, "1"), k8s(&cur, "2")))
		if err != nil {
			t.Fatal(err)
		}
		want := svcs.Len() > 0
		if got := podEndpointsChanged(&base, &cur); got != want {
			t.Errorf("%s: queued %v, upstream %v", tc.name, got, want)
		}
	}
}

// TestUnscheduledPodDeletedWithATimestamp deletes a Service's pods while they wait to be
// scheduled: each is deleted at once (grace period 0, no node), yet the API server writes
// its deletionTimestamp first, so every watcher sees an update of the pod, terminating,
// before its deletion.
// upstream: pkg/registry/core/pod/strategy.go CheckGracefulDelete; apiserver rest/delete.go
// BeforeDelete; registry/store.go Delete.
func TestUnscheduledPodDeletedWithATimestamp(t *testing.T) {
	cfg := testConfig(3, 4)
	cfg.Services[0].Timing.Schedule = Fixed(time.Minute)
	cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate}}
	rec := &recorder{}
	e, err := newEngine(cfg, rec)
	if err != nil {
		t.Fatal(err)
	}
	s := e.services[0]
	var deleted []string
	runEngine(t, e, func() {
		if deleted == nil && e.now >= Time(time.Second) {
			// Deleted before any is scheduled (the ReplicaSet then replaces them).
			for _, p := range slices.Clone(s.pods) {
				if p.node >= 0 {
					t.Fatalf("pod %s scheduled", p.pod.Name)
				}
				deleted = append(deleted, p.pod.Name)
				e.deletePod(p)
			}
		}
	})
	byPod := map[string][]string{}
	for _, ev := range rec.events {
		kind := string(ev.Type)
		if ev.Pod.Terminating {
			kind += "(terminating)"
		}
		byPod[ev.Pod.Name] = append(byPod[ev.Pod.Name], kind)
	}
	if len(deleted) != 4 {
		t.Fatalf("%d pods deleted, want 4", len(deleted))
	}
	for _, name := range deleted {
		evs := byPod[name]
		if got, want := strings.Join(evs, " "), "ADDED MODIFIED(terminating) DELETED(terminating)"; got != want {
			t.Errorf("pod %s: events %s, want %s", name, got, want)
		}
	}
}

// TestDrainEvictsThroughTheEvictionAPI drains a node: each of its pods is evicted, the API
// server writing the DisruptionTarget condition (an update of the running pod) just before
// the graceful delete (the update that sets its deletionTimestamp).
// upstream: pkg/registry/core/pod/storage/eviction.go addConditionAndDeletePod.
func TestDrainEvictsThroughTheEvictionAPI(t *testing.T) {
	cfg := testConfig(3, 6)
	cfg.Timeline = []Action{{Name: "create", Kind: ActionCreate}, {Name: "drain", Kind: ActionDrainNodes, Nodes: 1}}
	rec := &recorder{}
	e, err := newEngine(cfg, rec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.run(); err != nil {
		t.Fatal(err)
	}
	evicted := 0
	last := map[string]TraceEvent{}
	for _, ev := range rec.events {
		prev, ok := last[ev.Pod.Name]
		last[ev.Pod.Name] = ev
		if !ev.Pod.Terminating || !ok || prev.Pod.Terminating {
			continue
		}
		// The first terminating version: the one before must be the condition's update,
		// at the same time, of the same running pod.
		evicted++
		if prev.Type != model.EventModified || prev.At != ev.At || !prev.Pod.Ready {
			t.Errorf("pod %s: before its deletion %s at %v (ready %v), want its eviction's update at %v", ev.Pod.Name, prev.Type, prev.At, prev.Pod.Ready, ev.At)
		}
	}
	if evicted != 2 {
		t.Errorf("%d pods evicted, want the drained node's 2", evicted)
	}
}
