package sim

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	endpointsliceutil "k8s.io/endpointslice/util"
)

// BenchmarkUpstreamPodToServices measures what either endpoint controller of 1.37 does for
// each pod event on its pod queue, with upstream's own functions: the event's projection key
// (GetPodUpdateProjectionKey: here a pod's new IP) and its Services (GetServicesToUpdate:
// every Service of the pod's namespace listed from a namespace-indexed cache, each selector
// matched against the pod's labels), for namespaces of 10 to 10,000 Services. Its
// ns/service, against BenchmarkUpstreamEndpointsBuild's ns/pod on the same machine, gives
// defaultPodMapPerService (podQueue):
//
//	go test ./sim -run '^$' -bench 'Upstream(PodToServices|EndpointsBuild)' -benchtime 20x
//
// upstream: endpointslice_controller.go and endpoints_controller.go onPodUpdate, syncPod;
// k8s.io/endpointslice util/controller_utils.go.
func BenchmarkUpstreamPodToServices(b *testing.B) {
	for _, n := range []int{10, 1000, 10000} {
		b.Run(fmt.Sprintf("services=%d", n), func(b *testing.B) {
			idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
			for i := range n {
				name := fmt.Sprintf("svc-%d", i)
				if err := idx.Add(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
					Spec: corev1.ServiceSpec{Selector: map[string]string{"app": name}}}); err != nil {
					b.Fatal(err)
				}
			}
			lister := v1.NewServiceLister(idx)
			old := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-0", ResourceVersion: "1",
				Labels: map[string]string{"app": "svc-7", "pod-template-hash": "5d4f8c7b9"}}}
			cur := old.DeepCopy()
			cur.ResourceVersion = "2"
			cur.Status.PodIPs = []corev1.PodIP{{IP: "10.0.0.1"}}
			for b.Loop() {
				key := endpointsliceutil.GetPodUpdateProjectionKey(old, cur)
				services, err := endpointsliceutil.GetServicesToUpdate(lister, key)
				if err != nil || services.Len() != 1 {
					b.Fatalf("services %v, error %v", services, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/service")
		})
	}
}
