package trace

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"epsim/model"
	"epsim/scenarios"
)

var update = flag.Bool("update", false, "regenerate the sample recording in scenarios/testdata")

// sampleDir holds the sample recording 'sim replay' is tested on.
const sampleDir = "../scenarios/testdata"

// sampleSets shape the sample: the quick scenario's four phases (create, one endpoint not
// ready, one pod restart, rolling update) on 8 nodes with 12 pods.
var sampleSets = []string{"cluster.nodes=8", "services[0].replicas=12", "services[0].namespace=shop"}

// decorate dresses a simulated pod as the API server shows it: owner, image, env (which a
// trace must not keep), resources, the other conditions, container statuses, host IP, QoS.
func decorate(p *corev1.Pod, at time.Time) {
	hash := p.Labels["pod-template-hash"]
	ctrl := true
	p.GenerateName = p.Labels["app"] + "-" + hash + "-"
	p.Annotations = map[string]string{"kubectl.kubernetes.io/restartedAt": "2026-01-01T00:00:00Z"}
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: p.Labels["app"] + "-" + hash,
		UID: typesUID("6f1c2a4e-0000-4000-8000-" + hash + "00"), Controller: &ctrl, BlockOwnerDeletion: &ctrl}}
	grace := int64(30)
	p.Spec.TerminationGracePeriodSeconds = &grace
	p.Spec.RestartPolicy = corev1.RestartPolicyAlways
	p.Spec.DNSPolicy = corev1.DNSClusterFirst
	p.Spec.ServiceAccountName = "default"
	p.Spec.SchedulerName = "default-scheduler"
	if p.DeletionTimestamp != nil {
		// The API server sets deletionTimestamp to request time + grace period.
		d := metav1.NewTime(p.DeletionTimestamp.Add(30 * time.Second))
		p.DeletionTimestamp = &d
		p.DeletionGracePeriodSeconds = &grace
	}
	for i := range p.Spec.Containers {
		c := &p.Spec.Containers[i]
		c.Image = "registry.example.com/shop/web:1.4.2"
		c.Env = []corev1.EnvVar{{Name: "DB_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: "web-db"}, Key: "password"}}}}
		c.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")}
		c.TerminationMessagePath = "/dev/termination-log"
		c.ImagePullPolicy = corev1.PullIfNotPresent
	}
	created := p.CreationTimestamp
	if p.Spec.NodeName != "" {
		p.Status.Conditions = append([]corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: created}}, p.Status.Conditions...)
		p.Status.HostIP = "10.0.0.1"
		p.Status.QOSClass = corev1.PodQOSBurstable
	} else {
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, LastTransitionTime: created, Reason: "Unschedulable"})
	}
	if len(p.Status.PodIPs) > 0 {
		p.Status.StartTime = &created
		ready := false
		for _, c := range p.Status.Conditions {
			ready = ready || (c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue)
		}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Image: "registry.example.com/shop/web:1.4.2",
			Ready: ready, Started: &ready, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: created}}}}
	}
}

// TestGenerateSample writes the sample recording under scenarios/testdata with -update, and
// otherwise checks that the files there are what the generator makes: a simulated rollout in
// kubectl's formats, built from k8s.io/api types with encoding/json, plus the extras a real
// cluster has (the selector-less default/kubernetes Service, a Service with no pods, a
// DaemonSet pod no Service selects).
//
//	go test ./trace -run TestGenerateSample -update
func TestGenerateSample(t *testing.T) {
	_, cfg, err := scenarios.Load("quick", sampleSets)
	if err != nil {
		t.Fatal(err)
	}
	rec, _ := simulate(t, cfg, decorate)

	// A DaemonSet pod no Service selects, listed when the watch starts.
	var watch bytes.Buffer
	exporterID := model.NewPodIdentity("monitoring", "node-exporter-x7k2p", "0b5e0c39-1d7a-4c1e-9f4e-3c2a1b0d9e8f")
	exporterID.ContainerPorts = []model.ContainerPort{{Name: "metrics", ContainerPort: 9100, Protocol: model.ProtocolTCP}}
	exporter := PodToAPI(&model.Pod{PodIdentity: exporterID,
		NodeName: rec.nodes[0].Name, Phase: model.PodRunning,
		IPs: []string{"10.0.0.2"}, Ready: true, ReadyTransition: model.Timestamp(simEpoch.Add(-48 * time.Hour).UnixNano())},
		map[string]string{"app": "node-exporter"}, "901", model.Timestamp(simEpoch.Add(-48*time.Hour).UnixNano()), 0)
	if err := WriteWatchEvent(&watch, model.EventAdded, exporter); err != nil {
		t.Fatal(err)
	}
	watch.Write(rec.watch.Bytes())
	arrivals := append([]time.Time{simEpoch}, rec.arrivals...)
	i := 0
	clock := func() time.Time { i++; return arrivals[i-1] }
	var traceBuf bytes.Buffer
	if _, err := Record(bytes.NewReader(watch.Bytes()), &traceBuf, "watch.json", clock); err != nil {
		t.Fatal(err)
	}

	services := []*corev1.Service{{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "kubernetes", UID: "2f0b6a1e-5c1d-4b7a-9e0f-1a2b3c4d5e6f", Labels: map[string]string{"component": "apiserver", "provider": "kubernetes"}},
		Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.1", Type: corev1.ServiceTypeClusterIP, IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol},
			Ports: []corev1.ServicePort{{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP}}},
	}, {
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "checkout", UID: "7d3c9b1a-2e4f-4a6b-8c0d-9e8f7a6b5c4d"},
		Spec: corev1.ServiceSpec{ClusterIP: "10.96.12.7", Type: corev1.ServiceTypeClusterIP, Selector: map[string]string{"app": "checkout"},
			IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol}, Ports: []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}}},
	}}
	for _, s := range rec.services {
		services = append(services, ServiceToAPI(s))
	}
	var nodes []*corev1.Node
	for _, n := range rec.nodes {
		nodes = append(nodes, NodeToAPI(n))
	}
	files := map[string]func(*bytes.Buffer) error{
		"replay-watch.json":    func(b *bytes.Buffer) error { _, err := b.Write(watch.Bytes()); return err },
		"replay-trace.jsonl":   func(b *bytes.Buffer) error { _, err := b.Write(traceBuf.Bytes()); return err },
		"replay-services.json": func(b *bytes.Buffer) error { return WriteList(b, services) },
		"replay-nodes.json":    func(b *bytes.Buffer) error { return WriteList(b, nodes) },
	}
	for name, gen := range files {
		var b bytes.Buffer
		if err := gen(&b); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(sampleDir, name)
		if *update {
			if err := os.MkdirAll(sampleDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		have, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run: go test ./trace -run TestGenerateSample -update)", err)
		}
		if !bytes.Equal(have, b.Bytes()) {
			t.Errorf("%s differs from what the generator makes (run: go test ./trace -run TestGenerateSample -update)", path)
		}
	}
	// The trace keeps no secrets and no images.
	for _, banned := range []string{"DB_PASSWORD", "image", "annotations", "ownerReferences", "env"} {
		if strings.Contains(traceBuf.String(), banned) {
			t.Errorf("trace holds %q", banned)
		}
	}
	if !strings.Contains(watch.String(), "DB_PASSWORD") {
		t.Error("the raw sample lacks the decoration the trace must drop")
	}
}
