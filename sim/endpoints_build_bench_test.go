package sim

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"

	corev1 "k8s.io/api/core/v1"
	discovery "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/listers/core/v1"
	discoverylisters "k8s.io/client-go/listers/discovery/v1"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/endpointslice"
	endpointsliceutil "k8s.io/endpointslice/util"
	"k8s.io/utils/dump"
	utilnet "k8s.io/utils/net"
)

// BenchmarkUpstreamEndpointsBuild measures what the Endpoints controller's syncService does
// before it reads the cached Endpoints (the stale check), per pod of the Service, with the
// real building blocks: the pod lister's selector List over a namespace-indexed cache,
// ShouldPodBeInEndpoints, the address (IP re-parsed, node name, pod reference), FindPort, one
// single-address subset per pod and port, and the repack: addresses keyed by IP and UID per
// port, each port's address set sorted and deep-hashed (fnv-128a over dump.ForHash, as
// hashutil.DeepHashObject), then the addresses sorted by IP and UID.
// upstream: endpoints_controller.go syncService, podToEndpointAddressForService,
// addEndpointSubset; pkg/api/v1/endpoints/util.go RepackSubsets, SortSubsets.
//
// Its ns/pod is defaultEndpointsBuildPerPod:
//
//	go test ./sim -run '^$' -bench UpstreamEndpointsBuild -benchtime 20x
func BenchmarkUpstreamEndpointsBuild(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) {
			lister, _ := benchPods(b, n)
			svc := benchService()
			b.ResetTimer()
			cpu0 := cpuTime()
			for range b.N {
				subsets := buildLikeSyncService(b, lister, svc)
				if len(subsets) != 1 {
					b.Fatalf("%d subsets", len(subsets))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/pod")
			// CPU time (user + system, this process) is what a sync costs on an idle core; wall
			// time on a shared machine waits for the CPU as well.
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/float64(n), "cpu-ns/pod")
		})
	}
}

// BenchmarkUpstreamEndpointSliceSync measures what the EndpointSlice controller's
// syncService does before its first write, per pod of the Service, with upstream's code on
// the pods of BenchmarkUpstreamEndpointsBuild (5,000 nodes in 3 zones): the pod and slice
// listers' selector Lists, the slice tracker's StaleSlices, the trigger time tracker and the
// whole k8s.io/endpointslice Reconcile (a desired endpoint per pod with its node looked up,
// each one deep-hashed, every stored endpoint hashed and compared), the slices already up
// to date so that it writes nothing: a sync's cost before the writes a change makes.
// upstream: endpointslice_controller.go syncService; k8s.io/endpointslice reconciler.go
// Reconcile, reconcileByAddressType.
//
// Its cpu-ns/pod against BenchmarkUpstreamEndpointsBuild's, on the same machine, gives
// defaultEndpointSliceSyncPerPod:
//
//	go test ./sim -run '^$' -bench 'Upstream(EndpointsBuild|EndpointSliceSync)' -benchtime 20x
func BenchmarkUpstreamEndpointSliceSync(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) {
			podLister, pods := benchPods(b, n)
			svc := benchService()
			nodes := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
			for i := range 5000 {
				if err := nodes.Add(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("ip-10-0-%d.ec2.internal", i),
					Labels: map[string]string{corev1.LabelTopologyZone: fmt.Sprintf("zone-%c", 'a'+i%3)}}}); err != nil {
					b.Fatal(err)
				}
			}
			client := fake.NewClientset()
			// The fake client generates no names; the API server would.
			created := 0
			client.PrependReactor("create", "endpointslices", func(a k8stesting.Action) (bool, runtime.Object, error) {
				if es := a.(k8stesting.CreateAction).GetObject().(*discovery.EndpointSlice); es.Name == "" {
					created++
					es.Name = fmt.Sprintf("%s%05d", es.GenerateName, created)
				}
				return false, nil, nil
			})
			tracker := endpointsliceutil.NewEndpointSliceTracker()
			rec := endpointslice.NewReconciler(client, v1.NewNodeLister(nodes), 100, tracker, nil, record.NewFakeRecorder(1000), "endpointslice-controller.k8s.io")
			if err := rec.Reconcile(logr.Discard(), svc, pods, nil, time.Time{}); err != nil {
				b.Fatal(err)
			}
			stored, err := client.DiscoveryV1().EndpointSlices(svc.Namespace).List(context.Background(), metav1.ListOptions{})
			if err != nil {
				b.Fatal(err)
			}
			slicesIdx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
			for i := range stored.Items {
				if err := slicesIdx.Add(&stored.Items[i]); err != nil {
					b.Fatal(err)
				}
			}
			sliceLister := discoverylisters.NewEndpointSliceLister(slicesIdx)
			triggers := endpointsliceutil.NewTriggerTimeTracker()
			sliceSelector := labels.Set{discovery.LabelServiceName: svc.Name, discovery.LabelManagedBy: "endpointslice-controller.k8s.io"}.AsSelectorPreValidated()
			client.ClearActions()
			b.ResetTimer()
			cpu0 := cpuTime()
			for range b.N {
				listed, err := podLister.Pods(svc.Namespace).List(labels.Set(svc.Spec.Selector).AsSelectorPreValidated())
				if err != nil {
					b.Fatal(err)
				}
				slices, err := sliceLister.EndpointSlices(svc.Namespace).List(sliceSelector)
				if err != nil {
					b.Fatal(err)
				}
				if tracker.StaleSlices(svc, slices) {
					b.Fatal("stale slices")
				}
				trigger := triggers.ComputeEndpointLastChangeTriggerTime(svc.Namespace, svc, listed)
				if err := rec.Reconcile(logr.Discard(), svc, listed, slices, trigger); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if n := len(client.Actions()); n != 0 {
				b.Fatalf("the slices were up to date, yet the reconciler made %d calls", n)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/pod")
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/float64(n), "cpu-ns/pod")
		})
	}
}

// benchPods returns a lister of n pods of the Service benchService selects (one in ten not
// ready, one port, spread over 5,000 nodes) and n/10 other pods of its namespace, and the
// Service's pods.
func benchPods(b *testing.B, n int) (v1.PodLister, []*corev1.Pod) {
	b.Helper()
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	pods := make([]*corev1.Pod, 0, n)
	for i := range n {
		ready := corev1.ConditionTrue
		if i%10 == 0 {
			ready = corev1.ConditionFalse
		}
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("web-7d9c8b6f5-%05d", i), ResourceVersion: "1",
				UID: types.UID(fmt.Sprintf("5f0c3a9e-0000-4000-8000-%012d", i)), Labels: map[string]string{"app": "web", "pod-template-hash": "7d9c8b6f5"}},
			Spec: corev1.PodSpec{NodeName: fmt.Sprintf("ip-10-0-%d.ec2.internal", i%5000),
				Containers: []corev1.Container{{Name: "app", Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: fmt.Sprintf("10.%d.%d.%d", 1+i/65536, i/256%256, i%256),
				Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: ready}}},
		}
		p.Status.PodIPs = []corev1.PodIP{{IP: p.Status.PodIP}}
		if err := idx.Add(p); err != nil {
			b.Fatal(err)
		}
		pods = append(pods, p)
	}
	// Other pods of the namespace the selector does not match.
	for i := range n / 10 {
		if err := idx.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("other-%d", i), Labels: map[string]string{"app": "other"}}}); err != nil {
			b.Fatal(err)
		}
	}
	return v1.NewPodLister(idx), pods
}

// benchService is the Service of benchPods' pods: one port, by name.
func benchService() *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "5f0c3a9e-ffff-4000-8000-000000000000"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"}, ClusterIP: "10.96.0.10", IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol},
			Ports: []corev1.ServicePort{{Name: "http", Protocol: corev1.ProtocolTCP, Port: 80, TargetPort: intstr.FromString("http")}}}}
}

// cpuTime is this process's user + system CPU time in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// buildLikeSyncService is the address-list build of syncService (see the benchmark).
func buildLikeSyncService(b *testing.B, lister v1.PodLister, svc *corev1.Service) []corev1.EndpointSubset {
	pods, err := lister.Pods(svc.Namespace).List(labels.Set(svc.Spec.Selector).AsSelectorPreValidated())
	if err != nil {
		b.Fatal(err)
	}
	var subsets []corev1.EndpointSubset
	for _, pod := range pods {
		if !endpointsliceutil.ShouldPodBeInEndpoints(pod, svc.Spec.PublishNotReadyAddresses) {
			continue
		}
		var ip string
		for _, pip := range pod.Status.PodIPs {
			if parsed := utilnet.ParseIPSloppy(pip.IP); parsed != nil && !utilnet.IsIPv6(parsed) {
				ip = parsed.String()
				break
			}
		}
		if ip == "" {
			continue
		}
		addr := corev1.EndpointAddress{IP: ip, NodeName: &pod.Spec.NodeName,
			TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID}}
		for i := range svc.Spec.Ports {
			sp := &svc.Spec.Ports[i]
			port, err := endpointslice.FindPort(pod, sp)
			if err != nil {
				continue
			}
			ep := corev1.EndpointPort{Name: sp.Name, Port: int32(port), Protocol: sp.Protocol, AppProtocol: sp.AppProtocol}
			ss := corev1.EndpointSubset{Ports: []corev1.EndpointPort{ep}}
			if endpointsliceutil.IsPodReady(pod) {
				ss.Addresses = []corev1.EndpointAddress{addr}
			} else {
				ss.NotReadyAddresses = []corev1.EndpointAddress{addr}
			}
			subsets = append(subsets, ss)
		}
	}
	return repackLikeUpstream(subsets)
}

type benchAddrKey struct {
	ip  string
	uid types.UID
}

type benchAddrReady struct {
	addr  *corev1.EndpointAddress
	ready bool
}

// repackLikeUpstream merges single-address subsets into one subset per distinct address set,
// hashing each port's sorted set as RepackSubsets does.
func repackLikeUpstream(subsets []corev1.EndpointSubset) []corev1.EndpointSubset {
	all := map[benchAddrKey]*corev1.EndpointAddress{}
	byPort := map[corev1.EndpointPort]map[*corev1.EndpointAddress]bool{}
	add := func(a *corev1.EndpointAddress, port corev1.EndpointPort, ready bool) {
		k := benchAddrKey{ip: a.IP}
		if a.TargetRef != nil {
			k.uid = a.TargetRef.UID
		}
		cur := all[k]
		if cur == nil {
			c := *a
			cur = &c
			all[k] = cur
		}
		set := byPort[port]
		if set == nil {
			set = map[*corev1.EndpointAddress]bool{}
			byPort[port] = set
		}
		if was, ok := set[cur]; !ok || was {
			set[cur] = ready
		}
	}
	for i := range subsets {
		for _, port := range subsets[i].Ports {
			for j := range subsets[i].Addresses {
				add(&subsets[i].Addresses[j], port, true)
			}
			for j := range subsets[i].NotReadyAddresses {
				add(&subsets[i].NotReadyAddresses[j], port, false)
			}
		}
	}
	less := func(a, b *corev1.EndpointAddress) int {
		if c := bytes.Compare([]byte(a.IP), []byte(b.IP)); c != 0 {
			return c
		}
		switch {
		case a.TargetRef == nil && b.TargetRef == nil:
			return 0
		case a.TargetRef == nil:
			return -1
		case b.TargetRef == nil:
			return 1
		}
		return bytes.Compare([]byte(a.TargetRef.UID), []byte(b.TargetRef.UID))
	}
	byKey := map[string][]corev1.EndpointPort{}
	sets := map[string]map[*corev1.EndpointAddress]bool{}
	for port, set := range byPort {
		list := make([]benchAddrReady, 0, len(set))
		for a, r := range set {
			list = append(list, benchAddrReady{a, r})
		}
		slices.SortFunc(list, func(x, y benchAddrReady) int { return less(x.addr, y.addr) })
		h := fnv.New128a()
		fmt.Fprintf(h, "%v", dump.ForHash(list))
		key := hex.EncodeToString(h.Sum(nil))
		sets[key] = set
		byKey[key] = append(byKey[key], port)
	}
	var out []corev1.EndpointSubset
	for key, ports := range byKey {
		var ready, notReady []corev1.EndpointAddress
		for a, r := range sets[key] {
			if r {
				ready = append(ready, *a)
			} else {
				notReady = append(notReady, *a)
			}
		}
		sortAddrs := func(l []corev1.EndpointAddress) {
			slices.SortFunc(l, func(x, y corev1.EndpointAddress) int { return less(&x, &y) })
		}
		sortAddrs(ready)
		sortAddrs(notReady)
		out = append(out, corev1.EndpointSubset{Addresses: ready, NotReadyAddresses: notReady, Ports: ports})
	}
	return out
}
