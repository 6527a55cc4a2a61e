package scenarios

import (
	"time"

	"epsim/sim"
)

// Defaults. Where upstream Kubernetes has a default, ours equals it and the comment names the
// source (see also shared/docs/UPSTREAM.md §1 and FACTS.md §4). The rest are documented
// assumptions.
const (
	// DefaultSeed seeds a scenario that does not set one.
	DefaultSeed = 1
	// DefaultMaxEndpointsPerSlice is kube-controller-manager's --max-endpoints-per-slice
	// (upstream: pkg/controller/endpointslice/config/v1alpha1/defaults.go
	// RecommendedDefaultEndpointSliceControllerConfiguration); allowed 1..1000
	// (cmd/kube-controller-manager/app/options/endpointslicecontroller.go).
	DefaultMaxEndpointsPerSlice = 100
	// MaxEndpointsPerSliceLimit is the largest --max-endpoints-per-slice upstream accepts.
	MaxEndpointsPerSliceLimit = 1000
	// DefaultWorkers is both --concurrent-service-endpoint-syncs (EndpointSlice controller)
	// and --concurrent-endpoint-syncs (Endpoints controller) (upstream:
	// pkg/controller/endpointslice/config/v1alpha1/defaults.go,
	// pkg/controller/endpoint/config/v1alpha1/defaults.go).
	DefaultWorkers = 5
	// MaxWorkers is the upper bound upstream enforces on --concurrent-service-endpoint-syncs
	// (cmd/kube-controller-manager/app/options/endpointslicecontroller.go); we apply it to
	// both controllers.
	MaxWorkers = 50
	// DefaultMirroringWorkers is --mirroring-concurrent-service-endpoint-syncs, the
	// EndpointSlice mirroring controller's workers, which upstream bounds by 1..50 as well
	// (upstream: pkg/controller/endpointslicemirroring/config/v1alpha1/defaults.go;
	// cmd/kube-controller-manager/app/options/endpointslicemirroringcontroller.go).
	DefaultMirroringWorkers = 5
	// DefaultQPS and DefaultBurst are kube-controller-manager's --kube-api-qps and
	// --kube-api-burst; each controller has its own clientset and so its own token bucket
	// (upstream: pkg/controller/apis/config/v1alpha1/defaults.go
	// SetDefaults_KubeControllerManagerConfiguration).
	DefaultQPS   = 20
	DefaultBurst = 30
	// DefaultAPILatency is the time one controller API call takes. ASSUMPTION: upstream has
	// no such number; 5 ms is a typical in-cluster mutating call well inside the 1 s p99 SLO.
	DefaultAPILatency = 5 * time.Millisecond
	// DefaultObjectSizeLimitBytes is etcd's --max-request-bytes default of 1.5 MiB (etcd
	// docs "dev-guide/limit"); a larger write fails, as it does in a real cluster.
	DefaultObjectSizeLimitBytes = 1572864
	// DefaultInformerLag is how long a controller's informer takes to see the controller's
	// own write. ASSUMPTION: tens of milliseconds on a loaded control plane (watch delivery
	// from etcd through the watch cache to one of thousands of watchers). It decides how
	// often a sync that follows a write finds its cache stale and backs off.
	DefaultInformerLag = 20 * time.Millisecond

	// DefaultMinResyncPeriod is kube-controller-manager's --min-resync-period (upstream:
	// k8s.io/controller-manager config/v1alpha1/defaults.go).
	DefaultMinResyncPeriod = 12 * time.Hour
	// DefaultEndpointsBuildPerPod is how long the Endpoints controller takes per pod of a
	// Service to build the address list before it checks its cache for staleness. Measured:
	// 9-12 µs of CPU per pod for upstream's code path (sim BenchmarkUpstreamEndpointsBuild).
	DefaultEndpointsBuildPerPod = 10 * time.Microsecond
	// DefaultEndpointSliceSyncPerPod is how long the EndpointSlice controller's sync takes
	// per pod of a Service before its first write. Measured against the Endpoints build on
	// the same machine (sim BenchmarkUpstreamEndpointSliceSync): 1.4–1.7 times as long, so
	// 1.5 × DefaultEndpointsBuildPerPod.
	DefaultEndpointSliceSyncPerPod = 15 * time.Microsecond
	// DefaultPodMapPerService is how long a pod queue worker of either endpoint controller
	// takes per Service of a pod's namespace to find the pod's Services. Measured against
	// the Endpoints build on the same machine (sim BenchmarkUpstreamPodToServices): 150-180
	// ns per Service at 1,000 and 10,000 Services while the build took 5.7-7.7 µs a pod, so
	// about 200 ns at DefaultEndpointsBuildPerPod's pace.
	DefaultPodMapPerService = 200 * time.Nanosecond
	// DefaultAPIServerReplicas is one API server.
	DefaultAPIServerReplicas = 1
	// DefaultEgressBitsPerSec is each API server replica's egress bandwidth. ASSUMPTION: a
	// 10 Gbit/s NIC (AWS "up to 10 Gbps" class; GCE n1-standard-8 has 16 Gbps).
	DefaultEgressBitsPerSec = 10e9
	// DefaultNodeIngressBitsPerSec is each node's ingress bandwidth. ASSUMPTION: 1 Gbit/s,
	// about a c5.large/c5.xlarge baseline (FACTS.md §4.4).
	DefaultNodeIngressBitsPerSec = 1e9
	// DefaultReplicas is a Deployment's spec.replicas default (upstream: k8s.io/api apps/v1
	// types.go, "Defaults to 1").
	DefaultReplicas = 1
	// DefaultGracePeriod is terminationGracePeriodSeconds' default (upstream: k8s.io/api
	// core/v1 types.go, "Defaults to 30 seconds").
	DefaultGracePeriod = 30 * time.Second
	// DefaultSLO is clusterloader2's network programming latency threshold
	// (kubernetes/perf-tests clusterloader2/testing/load/modules/measurements.yaml,
	// CL2_NETWORK_PROGRAMMING_LATENCY_THRESHOLD "30s").
	DefaultSLO = 30 * time.Second
	// DefaultMaxEvents guards a runaway run.
	DefaultMaxEvents = 50_000_000
	// DefaultEndTime guards a run that never settles (virtual time).
	DefaultEndTime = 24 * time.Hour
	// DefaultNamespace is a Service's namespace when the scenario names none.
	DefaultNamespace = "default"
	// DefaultRegion labels every node (topology.kubernetes.io/region).
	DefaultRegion = "region-1"
	// DefaultNodeNameFormat names node i; EC2-like private DNS names.
	DefaultNodeNameFormat = "ip-10-0-%d.ec2.internal"
	// DefaultNodeMilliCPU is each node's allocatable CPU: 4 cores. Topology hints weigh
	// zones by it; with identical nodes only the per-zone node count matters.
	DefaultNodeMilliCPU = 4000
	// DefaultMaxPodsPerNode is the pods a node takes: the kubelet's maxPods default, which
	// the node reports as status.allocatable.pods (upstream:
	// pkg/kubelet/apis/config/v1beta1/defaults.go SetDefaults_KubeletConfiguration).
	DefaultMaxPodsPerNode = sim.DefaultMaxPodsPerNode
	// DefaultPort is the Service port of a service that lists none.
	DefaultPort = 80
	// DefaultReplicaSetWorkers is --concurrent-replicaset-syncs (upstream:
	// pkg/controller/replicaset/config/v1alpha1/defaults.go).
	DefaultReplicaSetWorkers = 5
	// DefaultDeploymentWorkers is --concurrent-deployment-syncs (upstream:
	// pkg/controller/deployment/config/v1alpha1/defaults.go).
	DefaultDeploymentWorkers = 5
	// DefaultStatefulSetWorkers is --concurrent-statefulset-syncs and
	// DefaultDaemonSetWorkers --concurrent-daemonset-syncs (upstream:
	// pkg/controller/statefulset/config/v1alpha1/defaults.go,
	// pkg/controller/daemon/config/v1alpha1/defaults.go).
	DefaultStatefulSetWorkers = 5
	DefaultDaemonSetWorkers   = 2
	// DefaultBurstReplicas caps the pods one ReplicaSet sync creates or deletes (upstream:
	// pkg/controller/replicaset/replica_set.go BurstReplicas).
	DefaultBurstReplicas = 500
	// DefaultSchedulerQPS and DefaultSchedulerBurst are kube-scheduler's client limits
	// (upstream: pkg/scheduler/apis/config/v1/defaults.go SetDefaults_KubeSchedulerConfiguration,
	// clientConnection qps 50, burst 100); they pace its binding calls.
	DefaultSchedulerQPS   = 50
	DefaultSchedulerBurst = 100
)

// DefaultZones returns the zones of a cluster that names none.
func DefaultZones() []string { return []string{"zone-a", "zone-b", "zone-c"} }

// DefaultRollout returns a Deployment's default maxSurge and maxUnavailable, 25% each
// (upstream: k8s.io/api apps/v1 types.go RollingUpdateDeployment; maxSurge rounds up,
// maxUnavailable rounds down).
func DefaultRollout() (maxSurge, maxUnavailable sim.IntOrPercent) {
	return sim.IntOrPercent{Value: 25, IsPercent: true}, sim.IntOrPercent{Value: 25, IsPercent: true}
}

// DefaultStrategy returns a workload's default rolling update strategy by kind: a
// Deployment's 25%/25% (DefaultRollout); a StatefulSet's and a DaemonSet's maxSurge 0,
// maxUnavailable 1 (upstream: k8s.io/api apps/v1 types.go RollingUpdateStatefulSetStrategy,
// RollingUpdateDaemonSet).
func DefaultStrategy(kind string) (maxSurge, maxUnavailable sim.IntOrPercent) {
	if kind == sim.KindStatefulSet || kind == sim.KindDaemonSet {
		return sim.IntOrPercent{}, sim.IntOrPercent{Value: 1}
	}
	return DefaultRollout()
}

// DefaultController returns one controller's machinery with upstream defaults: 5 workers,
// no batch period (upstream: the batch period is not defaulted, so it stays 0 and every
// change triggers a sync), QPS 20 / burst 30, and the assumed 5 ms API latency.
func DefaultController() sim.ControllerConfig {
	return sim.ControllerConfig{
		Workers:     DefaultWorkers,
		BatchPeriod: 0,
		QPS:         DefaultQPS,
		Burst:       DefaultBurst,
		APILatency:  sim.Fixed(DefaultAPILatency),
	}
}

// DefaultControlPlane returns both controllers with upstream defaults, 100 endpoints per
// slice, and Endpoints truncation on (upstream since 1.22: endpoints_controller.go
// maxCapacity and truncateEndpoints).
func DefaultControlPlane() sim.ControlPlaneConfig {
	return sim.ControlPlaneConfig{
		EndpointSlice:           DefaultController(),
		Endpoints:               DefaultController(),
		MirroringWorkers:        DefaultMirroringWorkers,
		MaxEndpointsPerSlice:    DefaultMaxEndpointsPerSlice,
		EndpointsTruncation:     true,
		InformerLag:             DefaultInformerLag,
		EndpointsBuildPerPod:    DefaultEndpointsBuildPerPod,
		EndpointSliceSyncPerPod: DefaultEndpointSliceSyncPerPod,
		PodMapPerService:        DefaultPodMapPerService,
		MinResyncPeriod:         DefaultMinResyncPeriod,
		Workloads:               DefaultWorkloads(),
	}
}

// DefaultWorkloads returns the workload controllers as kube-controller-manager runs them:
// the ReplicaSet and Deployment controllers with 5 workers each and their own clients at
// --kube-api-qps 20 / --kube-api-burst 30, burstReplicas 500, kube-scheduler's client at
// 50/100, the assumed 5 ms API latency, and no failing pod creates.
func DefaultWorkloads() sim.WorkloadsConfig {
	rs := DefaultController()
	rs.Workers = DefaultReplicaSetWorkers
	dc := DefaultController()
	dc.Workers = DefaultDeploymentWorkers
	ss := DefaultController()
	ss.Workers = DefaultStatefulSetWorkers
	ds := DefaultController()
	ds.Workers = DefaultDaemonSetWorkers
	return sim.WorkloadsConfig{
		ReplicaSet:     rs,
		Deployment:     dc,
		StatefulSet:    ss,
		DaemonSet:      ds,
		BurstReplicas:  DefaultBurstReplicas,
		SchedulerQPS:   DefaultSchedulerQPS,
		SchedulerBurst: DefaultSchedulerBurst,
	}
}

// DefaultAPIServer returns one API server replica, kube-proxies on protobuf (upstream:
// pkg/proxy/apis/config/v1alpha1/defaults.go, content type
// application/vnd.kubernetes.protobuf), the 1.5 MiB object limit, no extra watchers, the
// assumed 10 Gbit/s egress, and the watch path's CPU costs (sim.DefaultAPIServerCosts:
// encode and TLS measured with the real serializers, 5 µs per event assumed).
func DefaultAPIServer() sim.APIServerConfig {
	return sim.APIServerConfig{
		Replicas:             DefaultAPIServerReplicas,
		KubeProxyEncoding:    sim.EncodingProtobuf,
		ObjectSizeLimitBytes: DefaultObjectSizeLimitBytes,
		EgressBitsPerSec:     DefaultEgressBitsPerSec,
		Costs:                sim.DefaultAPIServerCosts(),
	}
}

// DefaultNetwork returns the network model on, with the assumed 1 Gbit/s node ingress and
// HTTP/2 + TLS framing counted in delivery times (about 0.2%; byte figures stay watch-event
// bytes, as the API server's apiserver_watch_events_sizes metric counts them), and relists
// gzipped at the measured ratios (listCompressionRatio "measured":
// model.RelistGzipRatioEndpointSlices, model.RelistGzipRatioEndpoints).
func DefaultNetwork() sim.NetworkConfig {
	return sim.NetworkConfig{
		Enabled:               true,
		NodeIngressBitsPerSec: DefaultNodeIngressBitsPerSec,
		TransportOverhead:     true,
	}
}

// measuredRatio is network.listCompressionRatio's word for the measured ratios (0 in
// sim.NetworkConfig).
const measuredRatio = "measured"

// DefaultPodTiming returns the kubelet delays a service's pods use unless the scenario says
// otherwise. Sources: the 5k-node clusterloader2 baseline (kubernetes/perf-tests#1008:
// create_to_schedule p99 1s, schedule_to_run p99 2s) and probe defaults (k8s.io/api core/v1:
// periodSeconds 10). ASSUMPTIONS beyond those: schedule lognormal median 200ms p99 1s; start
// lognormal median 1s p99 2s; ready uniform 0..10s (the first successful readiness probe lands
// somewhere in one 10 s probe period); stop lognormal median 1s p99 5s (a container that exits
// promptly on SIGTERM); grace period fixed 30s (terminationGracePeriodSeconds default).
func DefaultPodTiming() sim.PodTiming {
	return sim.PodTiming{
		Schedule:    sim.Distribution{Kind: sim.DistLognormal, Median: 200 * time.Millisecond, P99: time.Second},
		Start:       sim.Distribution{Kind: sim.DistLognormal, Median: time.Second, P99: 2 * time.Second},
		Ready:       sim.Distribution{Kind: sim.DistUniform, Min: 0, Max: 10 * time.Second},
		Stop:        sim.Distribution{Kind: sim.DistLognormal, Median: time.Second, P99: 5 * time.Second},
		GracePeriod: sim.Fixed(DefaultGracePeriod),
	}
}

// DefaultPorts returns the ports of a service that lists none: one TCP port 80 whose
// targetPort defaults to the port, as upstream defaults it (upstream: pkg/apis/core/v1
// defaults.go SetDefaults_Service).
func DefaultPorts() []sim.ServicePortConfig {
	return []sim.ServicePortConfig{{Protocol: "TCP", Port: DefaultPort, TargetPort: DefaultPort}}
}

// DefaultService returns a service entry with every default applied except the name.
func DefaultService() sim.ServiceConfig {
	s := sim.ServiceConfig{
		Namespace:  DefaultNamespace,
		Count:      1,
		Namespaces: 1,
		Replicas:   DefaultReplicas,
		Ports:      DefaultPorts(),
		IPFamilies: []string{"IPv4"},
		Timing:     DefaultPodTiming(),
	}
	s.WorkloadKind = sim.KindDeployment
	s.MaxSurge, s.MaxUnavailable = DefaultRollout()
	return s
}

// DefaultConfig returns a configuration with every default applied and no nodes, services or
// timeline: what a scenario file's values are decoded over.
func DefaultConfig() sim.Config {
	return sim.Config{
		Seed: DefaultSeed,
		Cluster: sim.ClusterConfig{
			Zones:          DefaultZones(),
			Region:         DefaultRegion,
			NodeNameFormat: DefaultNodeNameFormat,
			NodeMilliCPU:   DefaultNodeMilliCPU,
			MaxPodsPerNode: DefaultMaxPodsPerNode,
		},
		ControlPlane:      DefaultControlPlane(),
		APIServer:         DefaultAPIServer(),
		Network:           DefaultNetwork(),
		KubeProxy:         sim.DefaultKubeProxy(sim.KubeProxyIPTables),
		RunEndpoints:      true,
		RunEndpointSlices: true,
		MaxEvents:         DefaultMaxEvents,
		EndTime:           DefaultEndTime,
		SLO:               DefaultSLO,
	}
}
