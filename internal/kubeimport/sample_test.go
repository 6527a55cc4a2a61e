package kubeimport

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

var update = flag.Bool("update", false, "regenerate the sample cluster and the golden scenario in scenarios/testdata")

// sampleDir holds the sample cluster 'sim import' is tested on (and the README uses).
const sampleDir = "../../scenarios/testdata"

// sampleFiles are the sample's inputs, as the README's kubectl commands name them.
var sampleFiles = []string{"import-nodes.json", "import-services.json", "import-workloads.json", "import-endpoints.json", "import-endpointslices.json"}

// sampleCluster builds a small cluster from k8s.io/api types, as kubectl would print it: 12
// nodes over three zones (unevenly), and Services of every shape the importer maps.
func sampleCluster() map[string][]any {
	tm := func(kind, api string) metav1.TypeMeta { return metav1.TypeMeta{Kind: kind, APIVersion: api} }
	var nodes []any
	for i := range 12 {
		zone := []string{"us-east-1a", "us-east-1b", "us-east-1c"}[min(i/5, 2)]
		nodes = append(nodes, &corev1.Node{
			TypeMeta: tm("Node", "v1"),
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("ip-10-0-%d-%d.ec2.internal", i%3, 20+i), Labels: map[string]string{
				"kubernetes.io/hostname": fmt.Sprintf("ip-10-0-%d-%d.ec2.internal", i%3, 20+i), corev1.LabelTopologyZone: zone,
				corev1.LabelTopologyRegion: "us-east-1", corev1.LabelInstanceTypeStable: "m5.xlarge"}},
			Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3920m"), corev1.ResourceMemory: resource.MustParse("15Gi")}},
		})
	}
	svc := func(ns, name string, sel map[string]string, ports ...corev1.ServicePort) *corev1.Service {
		return &corev1.Service{TypeMeta: tm("Service", "v1"), ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app.kubernetes.io/name": name}},
			Spec: corev1.ServiceSpec{Selector: sel, Ports: ports, Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.96.0.50",
				IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol}, SessionAffinity: corev1.ServiceAffinityNone}}
	}
	tcp := func(name string, port int32, target intstr.IntOrString) corev1.ServicePort {
		return corev1.ServicePort{Name: name, Protocol: corev1.ProtocolTCP, Port: port, TargetPort: target}
	}
	template := func(app string, ports ...corev1.ContainerPort) corev1.PodTemplateSpec {
		return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app, "tier": "backend"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: app, Image: "registry.example.com/" + app + ":1.0", Ports: ports}}}}
	}
	deploy := func(ns, name string, replicas int32, st appsv1.DeploymentStrategy, ports ...corev1.ContainerPort) *appsv1.Deployment {
		return &appsv1.Deployment{TypeMeta: tm("Deployment", "apps/v1"), ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: appsv1.DeploymentSpec{Replicas: ptr.To(replicas), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
				Template: template(name, ports...), Strategy: st}}
	}
	rolling := func(surge, unavail intstr.IntOrString) appsv1.DeploymentStrategy {
		return appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavail}}
	}
	pct25 := intstr.FromString("25%")

	var services, workloads, endpoints, slices []any
	// shop/web: named targetPort, its own strategy, minReadySeconds, topology hints.
	web := svc("shop", "web", map[string]string{"app": "web"}, tcp("http", 80, intstr.FromString("http")))
	web.Annotations = map[string]string{"service.kubernetes.io/topology-mode": "Auto"}
	services = append(services, web)
	wd := deploy("shop", "web", 6, rolling(intstr.FromInt32(1), intstr.FromInt32(0)), corev1.ContainerPort{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP})
	wd.Spec.MinReadySeconds = 5
	workloads = append(workloads, wd)
	// shop/cart-0..4: five alike but for their labels (each names its own Service): five
	// entries, as count: would give every copy the first one's labels.
	for i := range 5 {
		name := fmt.Sprintf("cart-%d", i)
		services = append(services, svc("shop", name, map[string]string{"app": name}, tcp("http", 80, intstr.FromInt32(8080)), tcp("metrics", 9090, intstr.FromInt32(9090))))
		workloads = append(workloads, deploy("shop", name, 3, rolling(pct25, pct25)))
	}
	// data/db: a headless StatefulSet publishing not-ready addresses.
	db := svc("data", "db", map[string]string{"app": "db"}, tcp("pg", 5432, intstr.FromInt32(5432)))
	db.Spec.ClusterIP = corev1.ClusterIPNone
	db.Spec.PublishNotReadyAddresses = true
	services = append(services, db)
	workloads = append(workloads, &appsv1.StatefulSet{TypeMeta: tm("StatefulSet", "apps/v1"), ObjectMeta: metav1.ObjectMeta{Namespace: "data", Name: "db"},
		Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](3), ServiceName: "db", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
			Template: template("db"), UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType}}})
	// kube-system/node-exporter: a DaemonSet on every node, PreferClose, each node's traffic
	// to its own pod (internalTrafficPolicy Local).
	ne := svc("kube-system", "node-exporter", map[string]string{"app": "node-exporter"}, tcp("metrics", 9100, intstr.FromInt32(9100)))
	ne.Spec.TrafficDistribution = ptr.To(corev1.ServiceTrafficDistributionPreferClose)
	ne.Spec.InternalTrafficPolicy = ptr.To(corev1.ServiceInternalTrafficPolicyLocal)
	services = append(services, ne)
	one := intstr.FromInt32(1)
	workloads = append(workloads, &appsv1.DaemonSet{TypeMeta: tm("DaemonSet", "apps/v1"), ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "node-exporter"},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "node-exporter"}}, Template: template("node-exporter"),
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType, RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &one}}},
		Status: appsv1.DaemonSetStatus{DesiredNumberScheduled: 12, CurrentNumberScheduled: 12, NumberReady: 12}})
	// default/api: dual-stack, Recreate.
	api := svc("default", "api", map[string]string{"app": "api"}, tcp("https", 443, intstr.FromInt32(8443)))
	api.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}
	api.Spec.IPFamilyPolicy = ptr.To(corev1.IPFamilyPolicyRequireDualStack)
	api.Spec.Ports[0].AppProtocol = ptr.To("kubernetes.io/h2c")
	services = append(services, api)
	workloads = append(workloads, deploy("default", "api", 4, appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}))
	// default/kubernetes and data/external-db: selector-less, with hand-made Endpoints.
	services = append(services, svc("default", "kubernetes", nil, tcp("https", 443, intstr.FromInt32(6443))), svc("data", "external-db", nil, tcp("pg", 5432, intstr.FromInt32(5432))))
	for _, ep := range []struct {
		ns, name string
		ips      []string
		port     int32
	}{{"default", "kubernetes", []string{"172.20.0.10"}, 6443}, {"data", "external-db", []string{"192.168.10.1", "192.168.10.2", "192.168.10.3"}, 5432}} {
		e := &corev1.Endpoints{TypeMeta: tm("Endpoints", "v1"), ObjectMeta: metav1.ObjectMeta{Namespace: ep.ns, Name: ep.name},
			Subsets: []corev1.EndpointSubset{{Ports: []corev1.EndpointPort{{Name: "https", Port: ep.port, Protocol: corev1.ProtocolTCP}}}}}
		for _, ip := range ep.ips {
			e.Subsets[0].Addresses = append(e.Subsets[0].Addresses, corev1.EndpointAddress{IP: ip})
		}
		endpoints = append(endpoints, e)
	}
	// shop/legacy: its pods belong to no workload in the input; two endpoints in a slice.
	services = append(services, svc("shop", "legacy", map[string]string{"app": "legacy"}, tcp("", 8000, intstr.FromInt32(8000))))
	slices = append(slices, &discoveryv1.EndpointSlice{TypeMeta: tm("EndpointSlice", "discovery.k8s.io/v1"),
		ObjectMeta:  metav1.ObjectMeta{Namespace: "shop", Name: "legacy-x7k2p", Labels: map[string]string{discoveryv1.LabelServiceName: "legacy", discoveryv1.LabelManagedBy: "endpointslice-controller.k8s.io"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.244.1.7"}}, {Addresses: []string{"10.244.2.9"}}},
		Ports:       []discoveryv1.EndpointPort{{Port: ptr.To[int32](8000), Protocol: ptr.To(corev1.ProtocolTCP)}}})
	// default/docs: ExternalName, skipped.
	docs := svc("default", "docs", nil)
	docs.Spec.Type, docs.Spec.ExternalName, docs.Spec.ClusterIP, docs.Spec.IPFamilies = corev1.ServiceTypeExternalName, "docs.example.com", "", nil
	services = append(services, docs)
	return map[string][]any{
		"import-nodes.json": nodes, "import-services.json": services, "import-workloads.json": workloads,
		"import-endpoints.json": endpoints, "import-endpointslices.json": slices,
	}
}

// kubectlList writes items as 'kubectl get … -o json' does: a v1 List, 4-space indent.
func kubectlList(items []any) ([]byte, error) {
	b, err := json.MarshalIndent(map[string]any{"apiVersion": "v1", "kind": "List", "items": items, "metadata": map[string]string{"resourceVersion": ""}}, "", "    ")
	return append(b, '\n'), err
}

// TestSampleCluster keeps the shipped sample equal to what sampleCluster builds
// (regenerate with -update).
func TestSampleCluster(t *testing.T) {
	for name, items := range sampleCluster() {
		want, err := kubectlList(items)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(sampleDir, name)
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./internal/kubeimport -run TestSampleCluster -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what sampleCluster builds (run with -update)", path)
		}
	}
}
