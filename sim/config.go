package sim

import (
	"cmp"
	"strconv"
	"time"
)

// Config is a fully resolved, validated scenario: what the engine runs. The scenarios package
// builds it from YAML (defaults applied); tests may build it directly.
type Config struct {
	// Name is the scenario name, carried into every output.
	Name string
	// Seed seeds every random stream of the run.
	Seed uint64

	Cluster      ClusterConfig
	ControlPlane ControlPlaneConfig
	APIServer    APIServerConfig
	Network      NetworkConfig
	// KubeProxy is the kube-proxy on every node (zero: DefaultKubeProxy(iptables)).
	KubeProxy KubeProxyConfig
	Services  []ServiceConfig
	Timeline  []Action

	// Modes selects which control planes run ("both" when both are true).
	RunEndpoints      bool
	RunEndpointSlices bool

	// Guards end a runaway run with an error.
	MaxEvents int64
	EndTime   time.Duration
	// SLO is the propagation-latency p99 objective (default 30s).
	SLO time.Duration
	// NoWriteLog leaves Results.Writes empty: the per-write log (writes.jsonl) is ~150 B a
	// write, a good part of the memory of a long run that does not write it out.
	NoWriteLog bool
}

// ClusterConfig describes the nodes.
type ClusterConfig struct {
	Nodes int
	Zones []string
	// Region labels every node (topology.kubernetes.io/region).
	Region string
	// NodeNameFormat is a fmt pattern with one %d (the node index), e.g. "ip-10-0-%d.ec2.internal".
	NodeNameFormat string
	// NodeMilliCPU is each node's allocatable CPU (topology-aware hints weigh zones by it).
	NodeMilliCPU int64
	// MaxPodsPerNode is the pods a node takes (the kubelet's maxPods, its
	// status.allocatable.pods): the scheduler binds no more to it. 0 means
	// DefaultMaxPodsPerNode, 110.
	MaxPodsPerNode int
}

// ControllerConfig is one controller's machinery: workqueue, workers, client rate limit.
type ControllerConfig struct {
	Workers     int
	BatchPeriod time.Duration
	QPS         float64
	Burst       int
	// APILatency is the time one API call takes, from send to response.
	APILatency Distribution
}

// ControlPlaneConfig configures both controllers.
type ControlPlaneConfig struct {
	EndpointSlice ControllerConfig
	Endpoints     ControllerConfig
	// MirroringWorkers is the EndpointSlice mirroring controller's workers
	// (--mirroring-concurrent-service-endpoint-syncs), which sync the selector-less Services
	// in the EndpointSlice mode apart from the EndpointSlice controller's. 0 means upstream's
	// default, 5 (upstream: pkg/controller/endpointslicemirroring/config/v1alpha1/defaults.go).
	MirroringWorkers     int
	MaxEndpointsPerSlice int
	// EndpointsTruncation enables the 1000-address truncation of legacy Endpoints
	// (on = upstream since 1.22; off = the pre-1.22 behaviour).
	EndpointsTruncation bool
	// InformerLag is how long after a committed write the controller's own informer has it;
	// a sync of the same service sooner finds its cache stale and is retried with backoff
	// (upstream: the EndpointSlice tracker's StaleSlices, the Endpoints stale tracker). 0
	// means the default, 20 ms.
	InformerLag time.Duration
	// EndpointsBuildPerPod is how long the Endpoints controller takes per pod of a Service to
	// build its address list, before it checks its cache: a sync this long after it started
	// sees what the informer had by then. 0 means the measured default, 10 µs.
	EndpointsBuildPerPod time.Duration
	// EndpointSliceSyncPerPod is how long the EndpointSlice controller's sync takes per pod
	// of a Service before its first write (after its stale check): it lists the pods and
	// reconciles them all. 0 means the measured default, 15 µs.
	EndpointSliceSyncPerPod time.Duration
	// PodMapPerService is how long either endpoint controller's pod queue worker takes per
	// Service of a pod's namespace to find the pod's Services, for each pod event (since
	// Kubernetes 1.37). 0 means the measured default, 200 ns: 2 ms a pod event in a
	// namespace of 10,000 Services.
	PodMapPerService time.Duration
	// MinResyncPeriod is kube-controller-manager's --min-resync-period: its informers
	// resync every MinResyncPeriod × [1, 2) (one draw a run), delivering every object to
	// the controllers again, which queue every Service and workload for a sync. 0: no
	// resync.
	MinResyncPeriod time.Duration
	// Workloads is the pace of the controllers that make the pod churn both endpoint
	// controllers react to.
	Workloads WorkloadsConfig
}

// WorkloadsConfig is the pace of the workload controllers and the scheduler. Each
// kube-controller-manager controller has its own client and so its own token bucket
// (--kube-api-qps 20, --kube-api-burst 30), and its own workers. A QPS of 0 means
// unlimited (what tests that build a Config by hand get); scenarios always set upstream's
// defaults, so the instant behaviour is only reachable by raising the limits explicitly.
type WorkloadsConfig struct {
	// ReplicaSet is the ReplicaSet controller: --concurrent-replicaset-syncs workers and its
	// client, through which it creates and deletes pods and writes ReplicaSet status.
	ReplicaSet ControllerConfig
	// Deployment is the Deployment controller: --concurrent-deployment-syncs workers and its
	// client, through which it creates and scales ReplicaSets and writes Deployment status.
	Deployment ControllerConfig
	// BurstReplicas caps the pods one ReplicaSet sync creates or deletes (upstream:
	// replicaset.BurstReplicas, 500). 0 means 500.
	BurstReplicas int
	// SchedulerQPS and SchedulerBurst are kube-scheduler's client limits, which pace its
	// binding calls (one per pod). A QPS of 0 means unlimited.
	SchedulerQPS   float64
	SchedulerBurst int
	// StatefulSet and DaemonSet are those controllers (--concurrent-statefulset-syncs 5,
	// --concurrent-daemonset-syncs 2; each with its own client).
	StatefulSet ControllerConfig
	DaemonSet   ControllerConfig
	// PodCreateFailureRate is the probability that one pod create call fails (quota,
	// admission webhooks…), for the ReplicaSet, StatefulSet and DaemonSet controllers. A
	// failure ends the sync's slow start; the sync is retried with the workqueue's backoff.
	// 0 by default.
	PodCreateFailureRate float64
}

// Encoding is the wire encoding watchers ask for.
type Encoding string

// Encodings a watcher may use.
const (
	EncodingProtobuf Encoding = "protobuf"
	EncodingJSON     Encoding = "json"
)

// WatcherConfig is a group of extra watchers (besides the kube-proxy on every node).
type WatcherConfig struct {
	Name  string
	Count int
	// Resources the watcher watches: "endpointslices", "endpoints" or both.
	EndpointSlices bool
	Endpoints      bool
	Encoding       Encoding
	// IncludeHeadless is true for watchers without kube-proxy's headless filter (e.g. CoreDNS).
	IncludeHeadless bool
}

// APIServerConfig configures the API servers and their watchers.
type APIServerConfig struct {
	Replicas int
	// KubeProxyEncoding is the encoding of the kube-proxy on every node.
	KubeProxyEncoding Encoding
	// KubeProxyWatches says whether kube-proxies watch EndpointSlices (modern) in the
	// EndpointSlice mode and Endpoints in the Endpoints mode. Always true today.
	Watchers []WatcherConfig
	// ObjectSizeLimitBytes rejects writes of larger objects (etcd --max-request-bytes, 1.5 MiB).
	ObjectSizeLimitBytes int64
	// EgressBitsPerSec is each replica's egress bandwidth; 0 means unlimited.
	EgressBitsPerSec float64
	// Costs is the watch path's CPU model (zero: DefaultAPIServerCosts).
	Costs APIServerCosts
}

// NetworkConfig configures delivery to nodes.
type NetworkConfig struct {
	// Enabled turns on the fluid network model (propagation latency from bandwidth).
	Enabled bool
	// NodeIngressBitsPerSec is each node's ingress bandwidth; 0 means unlimited.
	NodeIngressBitsPerSec float64
	// TransportOverhead adds HTTP/2 and TLS framing bytes to every event.
	TransportOverhead bool
	// ListCompressionRatio is compressed/uncompressed size of what a kube-proxy that relists
	// is sent (network.relistSize): 0 takes the measured ratios
	// (model.RelistGzipRatioEndpointSlices, model.RelistGzipRatioEndpoints), 1 sends relists
	// uncompressed. An Endpoints LIST under 128 KiB is never compressed.
	ListCompressionRatio float64
}

// ServicePortConfig is one Service port.
type ServicePortConfig struct {
	Name        string
	Protocol    string
	Port        int32
	TargetPort  int32
	AppProtocol string
}

// PodTiming holds the kubelet's sampled delays for a service's pods.
type PodTiming struct {
	// Schedule is creation → scheduled onto a node.
	Schedule Distribution
	// Start is scheduled → running with an IP.
	Start Distribution
	// Ready is running → Ready condition true; 0 is a pod with no readiness probe, ready in the
	// same status update that gives it its IPs.
	Ready Distribution
	// Stop is deletion → containers stopped (Ready false, still terminating).
	Stop Distribution
	// GracePeriod is deletion → pod object gone (terminationGracePeriodSeconds bound).
	GracePeriod Distribution
}

// ServiceConfig describes a Service and its Deployment; Count stamps many alike.
type ServiceConfig struct {
	Name      string
	Namespace string
	Count     int
	// Namespaces > 1 spreads the Count Services over that many namespaces, Namespace-0 …
	// Namespace-(Namespaces-1), copy k in the (k mod Namespaces)-th (NamespaceOf). An
	// action names them by Namespace all the same ("namespace/name").
	Namespaces               int
	Replicas                 int
	Ports                    []ServicePortConfig
	IPFamilies               []string
	Headless                 bool
	PublishNotReadyAddresses bool
	TrafficDistribution      string
	// InternalTrafficPolicy is the Service's spec.internalTrafficPolicy: "" or "Cluster"
	// (the default), or "Local" (kube-proxy programs only its node's endpoints).
	InternalTrafficPolicy string
	TopologyMode          string
	// Labels are the Service's labels; a value NameLabelValue stands for each stamped
	// Service's own name.
	Labels map[string]string
	// MinReady is the workload's minReadySeconds: whole seconds, as the API's field is an
	// integer of seconds (the scenario loader refuses a fraction).
	MinReady time.Duration
	Timing   PodTiming
	// WorkloadKind is the controller that makes the pods: "Deployment" (the default when
	// empty), "StatefulSet" (see PodManagementPolicy) or "DaemonSet" (one pod per node;
	// Replicas is ignored).
	WorkloadKind string
	// PodManagementPolicy is a StatefulSet's spec.podManagementPolicy: PodManagementParallel,
	// or PodManagementOrderedReady (one pod at a time; the default when empty).
	PodManagementPolicy string
	// ServiceName is a StatefulSet's spec.serviceName, the Service that governs it; empty
	// means this Service. A StatefulSet pod's hostname is its name and its subdomain this,
	// and a Service of that name gives its endpoints the hostname (upstream:
	// statefulset/stateful_set_utils.go initIdentity; endpoint util ShouldSetHostname).
	ServiceName string
	// MaxSurge and MaxUnavailable are the workload's rolling update strategy: what creation,
	// scaling and rollout actions that set neither use. Both zero means 25%/25% (the
	// Deployment default).
	MaxSurge       IntOrPercent
	MaxUnavailable IntOrPercent
	// ManualEndpoints > 0 makes a Service without a selector and without a workload, backed
	// by a user-written Endpoints object with this many addresses. The legacy Endpoints
	// controller leaves such a Service alone; the EndpointSlice mirroring controller mirrors
	// the Endpoints object into EndpointSlices.
	ManualEndpoints int
}

// NamespaceOf returns the namespace of copy k of the entry's Services: the entry's
// (namespace), or with Namespaces > 1 that with "-(k mod Namespaces)" after it.
func (c *ServiceConfig) NamespaceOf(k int) string {
	if c.Namespaces <= 1 {
		return c.namespace()
	}
	return c.namespace() + "-" + strconv.Itoa(k%c.Namespaces)
}

// namespace is the entry's Namespace, "default" when it names none: the namespace of its
// Services, or the prefix of theirs (Namespaces), and what an action's "namespace/name"
// names them by.
func (c *ServiceConfig) namespace() string { return cmp.Or(c.Namespace, "default") }

// IntOrPercent is maxSurge/maxUnavailable: an absolute number or a percentage.
type IntOrPercent struct {
	Value     int
	IsPercent bool
}

// ActionKind names a timeline action.
type ActionKind string

// Timeline action kinds.
const (
	ActionCreate        ActionKind = "create"
	ActionRollout       ActionKind = "rollout"
	ActionScale         ActionKind = "scale"
	ActionRestartPods   ActionKind = "restartPods"
	ActionFlipReadiness ActionKind = "flipReadiness"
	ActionFailNodes     ActionKind = "failNodes"
	ActionDrainNodes    ActionKind = "drainNodes"
	ActionLabelService  ActionKind = "labelService"
	ActionWait          ActionKind = "wait"
)

// SpreadCurve is how an action with a Spread distributes its starts over time.
type SpreadCurve string

// Spread curves.
const (
	// CurveUniform spaces the starts evenly.
	CurveUniform SpreadCurve = "uniform"
	// CurveDiurnal follows a day: density 1 − 0.8·cos(2π·t/Spread), lowest at the start and
	// end of the window (night), five times higher in its middle (the working day's peak).
	CurveDiurnal SpreadCurve = "diurnal"
)

// Action is one named timeline step; it is a phase in the results. The phase ends when the
// action's work and everything it caused have settled (or after Duration for wait), plus Settle.
type Action struct {
	Name string
	Kind ActionKind
	// Services selects target services by name (the stamped names, or the base name for all
	// stamped copies); empty means all.
	Services []string
	// rollout: MaxSurge and MaxUnavailable, or, with ServiceStrategy, each service's own.
	MaxSurge        IntOrPercent
	MaxUnavailable  IntOrPercent
	ServiceStrategy bool
	// scale: Replicas, or (when Percent > 0) Percent of each Service's configured replicas
	// (of a manualEndpoints Service, its configured addresses), rounded up (autoscaling up
	// and down around the configured size)
	Replicas int
	Percent  int
	// restartPods, flipReadiness: how many pods (per service)
	Pods int
	// flipReadiness: how long the endpoints stay not-ready
	NotReadyFor time.Duration
	// failNodes, drainNodes: how many nodes, or which zone
	Nodes int
	Zone  string
	// drainNodes: drain the nodes in this many waves, started evenly over Spread; the
	// nodes of a wave are back (upgraded, schedulable) when the next wave starts, the last
	// wave's Spread/Waves after it started (a node-pool upgrade).
	Waves int
	// rollout, scale, restartPods: start the action on its Services one after another over
	// this long instead of all at once, at the quantiles of Curve (in an order that mixes
	// the Services' entries); drainNodes with Waves: the time over which the waves start.
	Spread time.Duration
	Curve  SpreadCurve
	// labelService
	Labels map[string]string
	// wait: how long; failNodes: the nodes come back after this long (0: never), e.g. a
	// short network partition of a zone
	Duration time.Duration
	// Settle is extra idle time after the action's work is done before the next phase.
	Settle time.Duration
}

// DistributionKind names a delay distribution.
type DistributionKind string

// Distribution kinds.
const (
	DistFixed       DistributionKind = "fixed"
	DistUniform     DistributionKind = "uniform"
	DistLognormal   DistributionKind = "lognormal"
	DistExponential DistributionKind = "exponential"
)

// Distribution is a delay distribution. Fixed uses Value; Uniform uses Min and Max; Lognormal
// uses Median and P99; Exponential uses Mean.
type Distribution struct {
	Kind   DistributionKind
	Value  time.Duration
	Min    time.Duration
	Max    time.Duration
	Median time.Duration
	P99    time.Duration
	Mean   time.Duration
}

// Fixed returns a constant delay.
func Fixed(d time.Duration) Distribution { return Distribution{Kind: DistFixed, Value: d} }
