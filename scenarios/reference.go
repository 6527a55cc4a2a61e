package scenarios

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"epsim/model"
	"epsim/sim"
)

// FieldDoc describes one field of the scenario format: the one description 'sim explain'
// prints and docs/scenario.md is generated from. A test keeps it equal to the fields the
// loader accepts.
type FieldDoc struct {
	// Path names the field: fields joined by dots, list items marked [] ("services[].ports[].name").
	Path string
	// Type is the YAML type: string, integer, number, boolean, duration, byte size,
	// bandwidth, distribution, int or percent, mapping, list of …
	Type string
	// Unit is the unit of a number ("" when none).
	Unit string
	// Default is the value when the field is left out ("" when required or none).
	Default string
	// Required is true for fields the scenario must give.
	Required bool
	// RequiredWhen, for a Required field, says when it is required ("" for always): "for
	// wait", or the alternative "for scale: replicas or percent".
	RequiredWhen string
	// Allowed lists the values or range accepted.
	Allowed string
	// Source is where the default comes from: an upstream file and name, or "assumption".
	Source string
	// Doc says what the field means.
	Doc string
	// Example is a YAML snippet using the field (optional).
	Example string
}

// Topic is a part of the format that is not one field: the actions, the distributions.
type Topic struct {
	Name, Title, Doc, Example string
}

func dur(d time.Duration) string { return d.String() }

// ftoa prints a number default as the loader reads it back.
func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// The kube-proxy and API server cost defaults the reference shows (sim.DefaultKubeProxy,
// sim.DefaultAPIServerCosts cite their sources).
var (
	kpDefault  = sim.DefaultKubeProxy(sim.KubeProxyIPTables)
	nftDefault = sim.DefaultKubeProxy(sim.KubeProxyNFTables)
	kpAPI      = sim.DefaultAPIServerCosts()
)

// controllerDocs are the fields of controlPlane.endpointSlice and controlPlane.endpoints.
func controllerDocs(path, doc string) []FieldDoc {
	return []FieldDoc{
		{Path: path, Type: "mapping", Doc: doc},
		{Path: path + ".workers", Type: "integer", Default: strconv.Itoa(DefaultWorkers), Allowed: "1.." + strconv.Itoa(MaxWorkers),
			Source: "pkg/controller/endpointslice/config/v1alpha1/defaults.go, pkg/controller/endpoint/config/v1alpha1/defaults.go (--concurrent-service-endpoint-syncs, --concurrent-endpoint-syncs)",
			Doc:    "Workers syncing Services in parallel."},
		{Path: path + ".batchPeriod", Type: "duration", Default: "0s", Allowed: "0s..1h",
			Source: "--endpointslice-updates-batch-period / --endpoint-updates-batch-period (not defaulted upstream: 0)",
			Doc:    "How long a pod change waits before its Service is queued, so that changes close together sync once."},
		{Path: path + ".qps", Type: "number", Unit: "requests/s", Default: strconv.Itoa(DefaultQPS), Allowed: "> 0, at most 1e6",
			Source: "pkg/controller/apis/config/v1alpha1/defaults.go (--kube-api-qps)", Doc: "The client's sustained rate limit (token bucket)."},
		{Path: path + ".burst", Type: "integer", Unit: "requests", Default: strconv.Itoa(DefaultBurst), Allowed: "1..1000000",
			Source: "pkg/controller/apis/config/v1alpha1/defaults.go (--kube-api-burst)", Doc: "The client's token bucket size."},
		{Path: path + ".apiLatency", Type: "distribution", Default: dur(DefaultAPILatency), Source: "assumption",
			Doc: "Time one API call takes, send to response; the worker waits for it.", Example: "apiLatency: {lognormal: {median: 5ms, p99: 50ms}}"},
	}
}

// Reference returns every field of the scenario format, in document order.
func Reference() []FieldDoc {
	ms, mu := DefaultRollout()
	rollout := FormatIntOrPercent(ms) + " / " + FormatIntOrPercent(mu)
	timing := DefaultPodTiming()
	docs := []FieldDoc{
		{Path: "name", Type: "string", Required: true, Allowed: "1..253 characters, one line", Doc: "The scenario's name, carried into every output."},
		{Path: "description", Type: "string", Doc: "Free text: what the scenario models ('sim scenarios' shows it)."},
		{Path: "seed", Type: "integer", Default: strconv.Itoa(DefaultSeed), Allowed: "0..2^63-1", Doc: "Seeds every random stream; the same scenario and seed give the same output, byte for byte (--seed overrides it)."},
		{Path: "cluster", Type: "mapping", Required: true, Doc: "The nodes."},
		{Path: "cluster.nodes", Type: "integer", Required: true, Allowed: "1..1000000", Doc: "Number of nodes; each runs a kube-proxy that watches Endpoints or EndpointSlices."},
		{Path: "cluster.zones", Type: "list of strings", Default: strings.Join(DefaultZones(), ", "), Allowed: "1..1000 label values, or \"\"", Doc: "Zones (topology.kubernetes.io/zone); nodes are spread over them round-robin. \"\" stands for nodes without the label: their endpoints carry no zone, and topology-aware hints are off.", Example: "zones: [us-east-1a, us-east-1b]"},
		{Path: "cluster.region", Type: "string", Default: DefaultRegion, Allowed: "a label value", Doc: "The region label of every node (topology.kubernetes.io/region)."},
		{Path: "cluster.nodeNameFormat", Type: "string", Default: DefaultNodeNameFormat, Allowed: "exactly one %d; names must be DNS subdomains",
			Doc: "Node i's name; every endpoint carries its node's name, so its length counts in every object."},
		{Path: "cluster.nodeMilliCPU", Type: "integer", Unit: "millicores", Default: strconv.Itoa(DefaultNodeMilliCPU), Allowed: "1..10000000", Source: "assumption",
			Doc: "Each node's allocatable CPU; topology-aware hints weigh zones by it."},
		{Path: "cluster.maxPodsPerNode", Type: "integer", Default: strconv.Itoa(DefaultMaxPodsPerNode), Allowed: "1.." + strconv.Itoa(sim.NodePodAddresses) + " (the addresses of a node's pod range)",
			Source: "pkg/kubelet/apis/config/v1beta1/defaults.go (the kubelet's maxPods)",
			Doc: "The pods each node takes (its status.allocatable.pods): the scheduler binds no pod to a node that holds as many, counting pods until they are terminal or deleted, DaemonSet pods included. " +
				"A pod that finds no node stays Pending and is tried again, as the scheduler's queue does, when a pod leaves a node, a node turns ready or is uncordoned, or once it has waited 5 minutes; a busy scheduler first waits out its backoff (1 s doubling to 10 s), which grows with every failure, including each time a pod left a node and its room went to another pending pod. " +
				"The scheduler writes the pod's PodScheduled=False status (a call of its client) at the first failure and whenever the reason changes."},
		{Path: "controlPlane", Type: "mapping", Doc: "The two controllers side by side: the EndpointSlice controller and the legacy Endpoints controller."},
	}
	docs = append(docs, controllerDocs("controlPlane.endpointSlice", "The EndpointSlice controller's workqueue, workers and API client (the mirroring controller, which syncs the selector-less Services, has its own workers, mirroringWorkers, and its own client with the same qps and burst).")...)
	docs = append(docs, controllerDocs("controlPlane.endpoints", "The legacy Endpoints controller's workqueue, workers and API client.")...)
	docs = append(docs,
		FieldDoc{Path: "controlPlane.mirroringWorkers", Type: "integer", Default: strconv.Itoa(DefaultMirroringWorkers), Allowed: "1.." + strconv.Itoa(MaxWorkers),
			Source: "pkg/controller/endpointslicemirroring/config/v1alpha1/defaults.go (--mirroring-concurrent-service-endpoint-syncs)",
			Doc:    "The EndpointSlice mirroring controller's workers, which sync the selector-less Services (services[].manualEndpoints) in the EndpointSlice mode, apart from the EndpointSlice controller's workers: neither controller's syncs wait for the other's."},
		FieldDoc{Path: "controlPlane.maxEndpointsPerSlice", Type: "integer", Unit: "endpoints", Default: strconv.Itoa(DefaultMaxEndpointsPerSlice), Allowed: "1..1000",
			Source: "pkg/controller/endpointslice/config/v1alpha1/defaults.go (--max-endpoints-per-slice)", Doc: "The EndpointSlice controller's slice capacity."},
		FieldDoc{Path: "controlPlane.endpointsTruncation", Type: "boolean", Default: "true",
			Source: "pkg/controller/endpoint/endpoints_controller.go maxCapacity, truncateEndpoints (since 1.22)",
			Doc:    "Truncate legacy Endpoints at 1000 addresses (false: the pre-1.22 behaviour, objects grow until etcd refuses them)."},
		FieldDoc{Path: "controlPlane.informerLag", Type: "duration", Default: dur(DefaultInformerLag), Allowed: "1µs..1m", Source: "assumption",
			Doc: "How long a controller's informer takes to see its own write; a sync sooner finds its cache stale and is retried with backoff."},
		FieldDoc{Path: "controlPlane.endpointsBuildPerPod", Type: "duration", Default: dur(DefaultEndpointsBuildPerPod), Allowed: "1ns..1s", Source: "measured: BenchmarkUpstreamEndpointsBuild (upstream pkg/controller/endpoint syncService's build of the address list)",
			Doc: "How long the Endpoints controller takes per pod of a Service to build its address list before it checks its cache; changes that reach the informer meanwhile count as seen, as upstream checks staleness only after the build."},
		FieldDoc{Path: "controlPlane.endpointSliceSyncPerPod", Type: "duration", Default: dur(DefaultEndpointSliceSyncPerPod), Allowed: "1ns..1s", Source: "measured: BenchmarkUpstreamEndpointSliceSync against BenchmarkUpstreamEndpointsBuild (upstream pkg/controller/endpointslice syncService: the listers, StaleSlices, the trigger time tracker, k8s.io/endpointslice Reconcile)",
			Doc: "How long the EndpointSlice controller takes per pod of a Service to reconcile it, after its stale check and before its first write; the sync works on the pods as listed at its start."},
		FieldDoc{Path: "controlPlane.podMapPerService", Type: "duration", Default: dur(DefaultPodMapPerService), Allowed: "1ns..1ms", Source: "measured: BenchmarkUpstreamPodToServices against BenchmarkUpstreamEndpointsBuild (upstream pkg/controller/endpointslice and pkg/controller/endpoint syncPod; k8s.io/endpointslice util GetServicesToUpdate)",
			Doc: "How long either endpoint controller's pod queue worker takes per Service of a pod's namespace to find the pod's Services (since 1.37): each pod event that may change endpoints waits in a queue of its own for one of as many pod workers as the controller has Service workers, which lists every Service of the namespace and matches their selectors; only then are the Services queued. 2 ms a pod event with 10,000 Services in the namespace: 5 workers map 100,000 listed pods at a replay's start-up in about 40 s."},
		FieldDoc{Path: "controlPlane.minResyncPeriod", Type: "duration", Default: dur(DefaultMinResyncPeriod), Allowed: "0s..720h", Source: "k8s.io/controller-manager config/v1alpha1/defaults.go (--min-resync-period); cmd/kube-controller-manager/app/controllermanager.go ResyncPeriod",
			Doc: "kube-controller-manager's informers resync every minResyncPeriod times a factor drawn once a run from [1, 2): every object reaches the controllers again, so both endpoint controllers queue every Service and the workload controllers every Deployment, ReplicaSet, StatefulSet and DaemonSet (pods' resyncs are dropped: same resourceVersion). The syncs write nothing when nothing changed, but they hold the workers. Only runs longer than minResyncPeriod see one. 0s: no resync."},
		FieldDoc{Path: "controlPlane.workloads", Type: "mapping", Doc: "The pace of the workload controllers and the scheduler, which make the pod churn both endpoint controllers react to."},
	)
	for _, x := range []struct {
		name, who, flag, source string
		workers                 int
	}{
		{"replicaSet", "ReplicaSet controller", "--concurrent-replicaset-syncs", "pkg/controller/replicaset/config/v1alpha1/defaults.go", DefaultReplicaSetWorkers},
		{"deployment", "Deployment controller", "--concurrent-deployment-syncs", "pkg/controller/deployment/config/v1alpha1/defaults.go", DefaultDeploymentWorkers},
		{"statefulSet", "StatefulSet controller", "--concurrent-statefulset-syncs", "pkg/controller/statefulset/config/v1alpha1/defaults.go", DefaultStatefulSetWorkers},
		{"daemonSet", "DaemonSet controller", "--concurrent-daemonset-syncs", "pkg/controller/daemon/config/v1alpha1/defaults.go", DefaultDaemonSetWorkers},
	} {
		p := "controlPlane.workloads." + x.name
		docs = append(docs,
			FieldDoc{Path: p, Type: "mapping", Doc: "The " + x.who + "'s workers and API client (no batch period)."},
			FieldDoc{Path: p + ".workers", Type: "integer", Default: strconv.Itoa(x.workers), Allowed: "1.." + strconv.Itoa(MaxWorkers), Source: x.source + " (" + x.flag + ")", Doc: "Workers syncing in parallel."},
			FieldDoc{Path: p + ".qps", Type: "number", Unit: "requests/s", Default: strconv.Itoa(DefaultQPS), Allowed: "> 0, at most 1e6", Source: "pkg/controller/apis/config/v1alpha1/defaults.go (--kube-api-qps)", Doc: "The client's sustained rate limit."},
			FieldDoc{Path: p + ".burst", Type: "integer", Unit: "requests", Default: strconv.Itoa(DefaultBurst), Allowed: "1..1000000", Source: "pkg/controller/apis/config/v1alpha1/defaults.go (--kube-api-burst)", Doc: "The client's token bucket size."},
			FieldDoc{Path: p + ".apiLatency", Type: "distribution", Default: dur(DefaultAPILatency), Source: "assumption", Doc: "Time one API call takes."},
		)
	}
	docs = append(docs,
		FieldDoc{Path: "controlPlane.workloads.burstReplicas", Type: "integer", Unit: "pods", Default: strconv.Itoa(DefaultBurstReplicas), Allowed: "1..1000000",
			Source: "pkg/controller/replicaset/replica_set.go BurstReplicas", Doc: "The most pods one ReplicaSet sync creates or deletes."},
		FieldDoc{Path: "controlPlane.workloads.scheduler", Type: "mapping", Doc: "kube-scheduler's client, which paces its binding calls (one per pod) and its status patches of pods it finds no node for (at the first failure, and when the reason changes)."},
		FieldDoc{Path: "controlPlane.workloads.scheduler.qps", Type: "number", Unit: "requests/s", Default: strconv.Itoa(DefaultSchedulerQPS), Allowed: "> 0, at most 1e6",
			Source: "pkg/scheduler/apis/config/v1/defaults.go SetDefaults_KubeSchedulerConfiguration", Doc: "The scheduler client's sustained rate limit."},
		FieldDoc{Path: "controlPlane.workloads.scheduler.burst", Type: "integer", Unit: "requests", Default: strconv.Itoa(DefaultSchedulerBurst), Allowed: "1..1000000",
			Source: "pkg/scheduler/apis/config/v1/defaults.go SetDefaults_KubeSchedulerConfiguration", Doc: "The scheduler client's token bucket size."},
		FieldDoc{Path: "controlPlane.workloads.podCreateFailureRate", Type: "number", Default: "0", Allowed: "0..0.99", Doc: "Probability that one pod create of the ReplicaSet, StatefulSet or DaemonSet controller fails (quota, admission webhooks…): no pod, a FailedCreate Warning Event, the sync's later slow-start batches not sent, and the sync retried with the workqueue's backoff."},
		FieldDoc{Path: "apiServer", Type: "mapping", Doc: "The API servers and who watches them."},
		FieldDoc{Path: "apiServer.replicas", Type: "integer", Default: strconv.Itoa(DefaultAPIServerReplicas), Allowed: "1..100", Doc: "API server replicas; watchers spread over them and egress adds up."},
		FieldDoc{Path: "apiServer.kubeProxyEncoding", Type: "string", Default: string(sim.EncodingProtobuf), Allowed: strings.Join(encodings, ", "),
			Source: "pkg/proxy/apis/config/v1alpha1/defaults.go (content type application/vnd.kubernetes.protobuf)", Doc: "The wire encoding kube-proxies ask for."},
		FieldDoc{Path: "apiServer.objectSizeLimit", Type: "byte size", Unit: "bytes", Default: strconv.Itoa(DefaultObjectSizeLimitBytes) + " (1.5MiB)", Allowed: "1..1TiB",
			Source: "etcd --max-request-bytes (dev-guide/limit)", Doc: "Writes of larger objects fail, as in a real cluster.", Example: "objectSizeLimit: 1.5MiB"},
		FieldDoc{Path: "apiServer.egressBandwidth", Type: "bandwidth", Unit: "bits/s", Default: "10Gbit", Allowed: "0 or unlimited (no limit), up to 1Pbit/s", Source: "assumption",
			Doc: "Each replica's egress; with network.enabled, fan-out queues behind it.", Example: "egressBandwidth: 25Gbit"},
		FieldDoc{Path: "apiServer.watchers", Type: "list of mappings", Doc: "Watchers besides the kube-proxy on every node (CoreDNS, service meshes…).",
			Example: "watchers:\n  - {name: coredns, count: 2, resources: [endpointslices], includeHeadless: true}"},
		FieldDoc{Path: "apiServer.watchers[].name", Type: "string", Required: true, Allowed: "a DNS label, unique", Doc: "The group's name."},
		FieldDoc{Path: "apiServer.watchers[].count", Type: "integer", Default: "1", Allowed: "1..1000000", Doc: "Watchers in the group."},
		FieldDoc{Path: "apiServer.watchers[].resources", Type: "list of strings", Required: true, Allowed: strings.Join(watchResources, ", "), Doc: "What they watch: EndpointSlices (in the EndpointSlice mode), Endpoints (in the Endpoints mode), or both."},
		FieldDoc{Path: "apiServer.watchers[].encoding", Type: "string", Default: string(sim.EncodingProtobuf), Allowed: strings.Join(encodings, ", "), Doc: "Their wire encoding."},
		FieldDoc{Path: "apiServer.watchers[].includeHeadless", Type: "boolean", Default: "false", Doc: "Whether they also receive headless Services' objects (kube-proxy filters them out)."},
		FieldDoc{Path: "apiServer.costs", Type: "mapping", Doc: "The watch path's CPU model, reported as apiserverCPUSeconds: each object serialized once per encoding (the watch cache shares it between watchers), per watcher and event a fixed cost plus TLS over its bytes, a relist serialized and gzipped per request, and each live event gzipped for a kube-proxy whose watch began as a watch list."},
		FieldDoc{Path: "apiServer.costs.encodeProtobufNanosPerByte", Type: "number", Unit: "ns/byte", Default: ftoa(kpAPI.EncodeProtobufNanosPerByte), Allowed: "0..1e9",
			Source: "measured: sim/kubeproxy_calibration_test.go (apimachinery v0.37.2 protobuf serializer)", Doc: "Serializing an object as protobuf."},
		FieldDoc{Path: "apiServer.costs.encodeJSONNanosPerByte", Type: "number", Unit: "ns/byte", Default: ftoa(kpAPI.EncodeJSONNanosPerByte), Allowed: "0..1e9",
			Source: "measured: sim/kubeproxy_calibration_test.go (apimachinery v0.37.2 JSON serializer)", Doc: "Serializing an object as JSON."},
		FieldDoc{Path: "apiServer.costs.tlsNanosPerByte", Type: "number", Unit: "ns/byte", Default: ftoa(kpAPI.TLSNanosPerByte), Allowed: "0..1e9",
			Source: "measured: sim/kubeproxy_calibration_test.go (AES-128-GCM seal)", Doc: "Encrypting each watcher's bytes."},
		FieldDoc{Path: "apiServer.costs.gzipNanosPerByte", Type: "number", Unit: "ns/byte", Default: ftoa(kpAPI.GzipNanosPerByte), Allowed: "0..1e9",
			Source: "measured: sim/kubeproxy_calibration_test.go (compress/gzip level 1)", Doc: "Gzipping a relist, or a live event for a kube-proxy whose watch began as a watch list (for the 5 to 10 minutes until its watch times out), per byte before compression."},
		FieldDoc{Path: "apiServer.costs.perEventNanos", Type: "number", Unit: "ns", Default: ftoa(kpAPI.PerEventNanos), Allowed: "0..1e9", Source: "assumption",
			Doc: "Each event to each watcher: its goroutine, HTTP/2 frame and write."},
		FieldDoc{Path: "network", Type: "mapping", Doc: "The fluid network model that turns bytes into propagation latency."},
		FieldDoc{Path: "network.enabled", Type: "boolean", Default: "true", Doc: "Model bandwidth; false delivers every event instantly."},
		FieldDoc{Path: "network.nodeIngressBandwidth", Type: "bandwidth", Unit: "bits/s", Default: "1Gbit", Source: "assumption (FACTS.md §4.4)", Doc: "Each node's ingress link."},
		FieldDoc{Path: "network.transportOverhead", Type: "boolean", Default: "true", Doc: "Count HTTP/2 and TLS framing (about 0.2%) in delivery times; byte figures stay watch-event bytes."},
		FieldDoc{Path: "network.listCompressionRatio", Type: "number or \"measured\"", Default: measuredRatio, Allowed: "0.01..1, or measured",
			Source: "measured: model/relist_compression_test.go (apimachinery v0.37.2 protobuf, gzip level 1)",
			Doc: fmt.Sprintf("Compressed/uncompressed size of what a kube-proxy that relists is sent. measured: %s for EndpointSlices (a 1.37 kube-proxy lists through a watch list, whose events the API server gzips), %s for Endpoints (a LIST, gzipped when 128 KiB or more). A number replaces both; 1 sends relists uncompressed (a client that does not accept gzip: its live events are uncompressed too). After a watch list, the live events of the watch come gzipped, a gzip member each (model.WatchGzipMemberBytes).",
				ftoa(model.RelistGzipRatioEndpointSlices), ftoa(model.RelistGzipRatioEndpoints))},
		FieldDoc{Path: "kubeProxy", Type: "mapping", Doc: "The kube-proxy on every node: its sync loop and the CPU cost model behind programming latency, kubeProxyCPUSeconds and peakSyncSeconds (README \"kube-proxy: from bytes received to rules programmed\")."},
		FieldDoc{Path: "kubeProxy.mode", Type: "string", Default: string(sim.KubeProxyIPTables), Allowed: strings.Join(kubeProxyModes, ", "),
			Source: "pkg/proxy/apis/config/v1alpha1/defaults.go", Doc: "The backend. Setting it first resets the cost defaults to that backend's (ipvs: 10000 ns per written rule, 2 rules per Service port, 1 per endpoint; nftables: 3 rules per Service port and 1 per endpoint, " + ftoa(nftDefault.Costs.WalkNanosPerServicePort) + " ns a Service port walked and " + ftoa(nftDefault.Costs.GenerateNanosPerRule) + " per rule generated, only the changed Services' rules in a partial sync)."},
		FieldDoc{Path: "kubeProxy.minSyncPeriod", Type: "duration", Default: dur(kpDefault.MinSyncPeriod) + " (ipvs: 0s)", Allowed: "0s..1h",
			Source: "pkg/proxy/apis/config/v1alpha1/defaults.go (no ipvs default: 0)", Doc: "The least time from the end of one sync to the start of the next; changes arriving meanwhile are synced together. 0 syncs every change as soon as the last sync ends."},
		FieldDoc{Path: "kubeProxy.syncPeriod", Type: "duration", Default: dur(kpDefault.SyncPeriod), Allowed: "1ms..24h, at least minSyncPeriod",
			Source: "pkg/proxy/apis/config/v1alpha1/defaults.go", Doc: "ipvs: the periodic resync. iptables and nftables: only the retry interval (their periodic sync is hourly)."},
		FieldDoc{Path: "kubeProxy.cpu", Type: "number", Unit: "cores", Default: ftoa(kpDefault.CPU), Allowed: "0.001..1024", Source: "assumption",
			Doc: "Cores kube-proxy may use; a sync and a decode are single-threaded, so they run at min(cpu, 1) of a core."},
		FieldDoc{Path: "kubeProxy.costs", Type: "mapping", Doc: "A sync costs syncBase + walkNanosPerServicePort × (every Service port) + generateNanosPerRule × (rules generated: every Service's for iptables and ipvs, the written ones for nftables) + writeNanosPerRule × (rules written), on one core."},
		FieldDoc{Path: "kubeProxy.costs.syncBase", Type: "duration", Default: dur(kpDefault.Costs.SyncBase), Allowed: "0s..1h", Source: "assumption", Doc: "A sync's fixed work."},
		FieldDoc{Path: "kubeProxy.costs.walkNanosPerServicePort", Type: "number", Unit: "ns/port", Default: ftoa(kpDefault.Costs.WalkNanosPerServicePort) + " (nftables: " + ftoa(nftDefault.Costs.WalkNanosPerServicePort) + ")", Allowed: "0..1e9",
			Source: "derived: upstream v1.37.2 nftables syncProxyRules with its fake backend (10,000 Services × 10 endpoints: partial sync 100–140 ms)", Doc: "Each sync's pass over every Service port apart from generating rules (nftables: categorizing endpoints, checking set elements); iptables' and ipvs' is in generateNanosPerRule."},
		FieldDoc{Path: "kubeProxy.costs.generateNanosPerRule", Type: "number", Unit: "ns/rule", Default: ftoa(kpDefault.Costs.GenerateNanosPerRule), Allowed: "0..1e9",
			Source: "derived: openshift/sdn#403 (mean sync 219.677 ms writing every rule, 104.894 ms writing the changed ones)", Doc: "Generating one rule in Go; every sync generates every Service's rules."},
		FieldDoc{Path: "kubeProxy.costs.writeNanosPerRule", Type: "number", Unit: "ns/rule", Default: ftoa(kpDefault.Costs.WriteNanosPerRule), Allowed: "0..1e9",
			Source: "measured: kubernetes/kubernetes#96018 (iptables-restore of 695,992 lines in 12.772 s)", Doc: "Handing one rule to the kernel; a full sync writes every rule, a partial one the changed Services' (and, for iptables, KUBE-SERVICES and the filter table: a REJECT rule per served port without endpoints)."},
		FieldDoc{Path: "kubeProxy.costs.rulesPerServicePort", Type: "number", Default: ftoa(kpDefault.Costs.RulesPerServicePort), Allowed: "0..1000",
			Source: "pkg/proxy/iptables/proxier.go syncProxyRules", Doc: "Rules per Service port with endpoints (iptables gives one without endpoints a single REJECT rule instead)."},
		FieldDoc{Path: "kubeProxy.costs.rulesPerEndpoint", Type: "number", Default: ftoa(kpDefault.Costs.RulesPerEndpoint), Allowed: "0..1000",
			Source: "pkg/proxy/iptables/proxier.go syncProxyRules", Doc: "Rules per programmed endpoint (the ready ones, or a Service's serving terminating ones when it has none) and Service port."},
		FieldDoc{Path: "kubeProxy.costs.decodeProtobufNanosPerByte", Type: "number", Unit: "ns/byte", Default: ftoa(kpDefault.Costs.DecodeProtobufNanosPerByte), Allowed: "0..1e9",
			Source: "measured: sim/kubeproxy_calibration_test.go (apimachinery v0.37.2 protobuf deserializer)", Doc: "Decoding a received watch event as protobuf."},
		FieldDoc{Path: "kubeProxy.costs.decodeJSONNanosPerByte", Type: "number", Unit: "ns/byte", Default: ftoa(kpDefault.Costs.DecodeJSONNanosPerByte), Allowed: "0..1e9",
			Source: "measured: sim/kubeproxy_calibration_test.go (apimachinery v0.37.2 JSON deserializer)", Doc: "Decoding a received watch event as JSON."},
		FieldDoc{Path: "services", Type: "list of mappings", Required: true, Doc: "The Services, each with the workload behind it."},
		FieldDoc{Path: "services[].name", Type: "string", Required: true, Allowed: "a DNS-1035 label (with count: the copies' names must fit 63 characters)", Doc: "The Service's name (with count:, the base name of its copies)."},
		FieldDoc{Path: "services[].namespace", Type: "string", Default: DefaultNamespace, Allowed: "a DNS label", Doc: "The Service's namespace."},
		FieldDoc{Path: "services[].namespaces", Type: "integer", Default: "1", Allowed: "1..count (the last namespace's name must fit 63 characters)",
			Doc:     "Spreads the copies of count over this many namespaces, NAMESPACE-0 … NAMESPACE-(namespaces-1), copy k in NAMESPACE-(k mod namespaces). The endpoint controllers' pod queues list every Service of a pod's namespace for each pod event (controlPlane.podMapPerService), so a namespace's size costs: upstream's scalability thresholds allow 5,000 Services and 3,000 pods a namespace. Actions name the copies by the namespace field all the same (NAMESPACE/NAME-k).",
			Example: "services:\n  - {name: svc, namespace: team, namespaces: 20, count: 2000, replicas: 5}"},
		FieldDoc{Path: "services[].count", Type: "integer", Default: "1", Allowed: "1..1000000 (at most 1000000 Services in all)",
			Doc:     "Stamps this many identical Services named NAME-0 … NAME-(count-1); actions may name one copy or, by the base name, all of them.",
			Example: "services:\n  - {name: shop, count: 300, replicas: 20}\ntimeline:\n  - {name: create, action: create}\n  - {name: one, action: rollout, services: [shop-7]}\n  - {name: all, action: rollout, services: [shop]}"},
		FieldDoc{Path: "services[].replicas", Type: "integer", Unit: "pods", Default: strconv.Itoa(DefaultReplicas), Allowed: "0..1000000 (at most 10000000 pods in all)",
			Source: "k8s.io/api apps/v1 DeploymentSpec.Replicas", Doc: "Pods of the workload."},
		FieldDoc{Path: "services[].ports", Type: "list of mappings", Default: "one TCP port 80", Allowed: "at most 100; at least 1 unless headless",
			Source: "pkg/apis/core/validation ValidateService", Doc: "The Service's ports; each becomes a container port of its pods and a port of its Endpoints and slices.",
			Example: "ports:\n  - {name: http, port: 80, targetPort: 8080}\n  - {name: grpc, port: 9000, appProtocol: kubernetes.io/h2c}"},
		FieldDoc{Path: "services[].ports[].name", Type: "string", Allowed: "a DNS label, unique; required with more than one port", Doc: "The port's name."},
		FieldDoc{Path: "services[].ports[].protocol", Type: "string", Default: "TCP", Allowed: strings.Join(protocols, ", "), Source: "pkg/apis/core/v1 defaults.go SetDefaults_ServicePort", Doc: "The port's protocol."},
		FieldDoc{Path: "services[].ports[].port", Type: "integer", Required: true, Allowed: "1..65535", Doc: "The Service port."},
		FieldDoc{Path: "services[].ports[].targetPort", Type: "integer", Default: "port", Allowed: "1..65535", Source: "pkg/apis/core/v1 defaults.go SetDefaults_Service", Doc: "The pods' port (what endpoints carry)."},
		FieldDoc{Path: "services[].ports[].appProtocol", Type: "string", Allowed: "1..316 characters", Doc: "The application protocol (copied into endpoint ports)."},
		FieldDoc{Path: "services[].ipFamilies", Type: "list of strings", Default: "IPv4", Allowed: "1 or 2 of " + strings.Join(ipFamilies, ", "), Doc: "Address families; two make a dual-stack Service with a slice per family.", Example: "ipFamilies: [IPv4, IPv6]"},
		FieldDoc{Path: "services[].headless", Type: "boolean", Default: "false", Doc: "clusterIP: None. kube-proxy ignores headless Services' objects (service.kubernetes.io/headless label); watchers with includeHeadless do not."},
		FieldDoc{Path: "services[].publishNotReadyAddresses", Type: "boolean", Default: "false", Doc: "Not-ready pods count as ready endpoints."},
		FieldDoc{Path: "services[].trafficDistribution", Type: "string", Allowed: strings.Join(trafficDistributions, ", "), Doc: "spec.trafficDistribution: zone (or node) hints on every endpoint."},
		FieldDoc{Path: "services[].internalTrafficPolicy", Type: "string", Allowed: strings.Join(trafficPolicies, ", "), Doc: "spec.internalTrafficPolicy (Cluster when unset): with Local, each node's kube-proxy programs only the endpoints on its node (its ready ones, else its serving and terminating ones, no topology), which the kube-proxy figures show; the controllers' writes do not change. A kube-proxy that watches Endpoints (before 1.19, the Endpoints mode) has no such policy and programs them all."},
		FieldDoc{Path: "services[].topologyMode", Type: "string", Allowed: strings.Join(topologyModes, ", "), Source: "k8s.io/endpointslice utils.go hintsEnabled", Doc: "The service.kubernetes.io/topology-mode annotation: Auto gives topology-aware hints when zones allow."},
		FieldDoc{Path: "services[].labels", Type: "mapping of strings", Allowed: "label keys and values", Doc: "The Service's labels, copied into its Endpoints and slices. The value $name stands for each Service's own name (with count: web-0, web-1…), as in app.kubernetes.io/name: $name. service.kubernetes.io/service-proxy-name hides the Service from kube-proxy: one that watches Endpoints (the Endpoints mode) gets none of its objects; today's still gets its slices, decodes them, syncs and observes their programming latency, but writes no rules for them.", Example: "labels: {team: shop}"},
		FieldDoc{Path: "services[].minReadySeconds", Type: "integer or duration", Unit: "seconds", Default: "0", Allowed: "0..86400 (or 0s..24h, whole seconds)", Source: "k8s.io/api apps/v1 DeploymentSpec.MinReadySeconds", Doc: "How long a pod must be ready before the rollout counts it available, from its Ready transition time as stored (whole seconds): a Deployment's or StatefulSet's pod counts up to a second sooner than that after it turned ready; a DaemonSet sees it at its next sync, its workqueue keeping one delayed add (the earliest): minReadySeconds after a sync that saw ready pods not yet available, a second more after a pod turned ready."},
		FieldDoc{Path: "services[].kind", Type: "string", Default: sim.KindDeployment, Allowed: strings.Join(workloadKinds, ", "),
			Doc: "The workload behind the Service, each at its controller's pace: a Deployment (ReplicaSets, maxSurge/maxUnavailable), a StatefulSet (by podManagementPolicy; a rollout replaces up to maxUnavailable pods at once from the highest ordinal) or a DaemonSet (one pod per node; replicas is ignored; maxUnavailable and maxSurge round up, exactly one non-zero: a surge starts each node's new pod beside its old one). The workload has the Service's name, and its pods are named as its controller names them (names reach every endpoint's targetRef): name-<template hash>-<5 random characters>, name-<ordinal>, name-<5 random characters>."},
		FieldDoc{Path: "services[].podManagementPolicy", Type: "string", Default: sim.PodManagementOrderedReady + " (StatefulSet)", Allowed: strings.Join(podPolicies, ", ") + "; only with kind StatefulSet",
			Source:  "pkg/controller/statefulset/stateful_set_control.go updateStatefulSet, updateStatefulSetAfterInvariantEstablished",
			Doc:     "A StatefulSet's spec.podManagementPolicy. OrderedReady creates one pod at a time, each once the lower ordinals are Running, Ready and available, and removes pods from the highest ordinal one at a time. Parallel creates every missing pod and removes every pod beyond replicas at once (in slow-start batches of 1, 2, 4… calls), and its rollouts first replace the old pods that are not available, then available ones while fewer than maxUnavailable are unavailable.",
			Example: "services:\n  - {name: cache, kind: StatefulSet, replicas: 50, podManagementPolicy: Parallel}"},
		FieldDoc{Path: "services[].serviceName", Type: "string", Default: "this Service (its own name)", Allowed: "a Service name (DNS-1035 label); only with kind StatefulSet",
			Doc:     "A StatefulSet's spec.serviceName, the Service that governs it. Each pod gets its own name as hostname and this as subdomain, and the Service of that name gives the pod's endpoints the hostname (a few bytes each, in Endpoints and slices); with another name this Service's endpoints have none (upstream: pkg/controller/statefulset/stateful_set_utils.go initIdentity; ShouldSetHostname).",
			Example: "services:\n  - {name: kafka, kind: StatefulSet, replicas: 5}\n  - {name: kafka-clients, kind: StatefulSet, replicas: 5, serviceName: kafka}"},
		FieldDoc{Path: "services[].maxSurge", Type: "int or percent", Default: FormatIntOrPercent(ms) + " (StatefulSet, DaemonSet: 0)", Allowed: "an integer or a percentage; a StatefulSet: 0 only",
			Source: "k8s.io/api apps/v1 RollingUpdateDeployment (rounded up), RollingUpdateDaemonSet",
			Doc:    "The workload's rolling update strategy: pods above replicas during a rollout. Used by creation, and by rollouts that set neither maxSurge nor maxUnavailable; a scale keeps the strategy the last rollout gave the workload's spec (its percentages scaled to the new replicas). A StatefulSet never surges (its strategy, RollingUpdateStatefulSetStrategy, has maxUnavailable only): a non-zero maxSurge is an error."},
		FieldDoc{Path: "services[].maxUnavailable", Type: "int or percent", Default: FormatIntOrPercent(mu) + " (StatefulSet, DaemonSet: 1)", Allowed: "an integer or 0%..100%; not 0 when maxSurge is 0, nor for a StatefulSet",
			Source: "k8s.io/api apps/v1 RollingUpdateDeployment (rounded down), RollingUpdateStatefulSetStrategy, RollingUpdateDaemonSet",
			Doc:    "The workload's rolling update strategy: pods below replicas during a rollout."},
		FieldDoc{Path: "services[].manualEndpoints", Type: "integer", Unit: "addresses", Allowed: "1..1000000; not with replicas, kind, maxSurge, maxUnavailable, minReadySeconds",
			Source:  "pkg/controller/endpointslicemirroring (UPSTREAM.md §4)",
			Doc:     "A Service without a selector and without a workload, backed by a user-written Endpoints object with this many addresses. The Endpoints mode counts the user's Endpoints writes (calls of their own as the object changes, which no controller's worker holds); the EndpointSlice mode the mirroring controller's slices (at most " + strconv.Itoa(model.MirroringMaxEndpointsPerSubset) + " addresses per subset). Rollouts skip such a Service; scale rewrites its Endpoints object.",
			Example: "services:\n  - {name: external-db, manualEndpoints: 3, ports: [{port: 5432}]}"},
		FieldDoc{Path: "services[].timing", Type: "mapping of distributions", Doc: "The kubelet's delays for the Service's pods.", Example: "timing:\n  ready: {uniform: {min: 0s, max: 10s}}\n  stop: {lognormal: {median: 1s, p99: 5s}}"},
		FieldDoc{Path: "services[].timing.schedule", Type: "distribution", Default: FormatDistribution(timing.Schedule), Source: "kubernetes/perf-tests#1008 (create_to_schedule p99 1s) and assumption", Doc: "Pod created → scheduled onto a node."},
		FieldDoc{Path: "services[].timing.start", Type: "distribution", Default: FormatDistribution(timing.Start), Source: "kubernetes/perf-tests#1008 (schedule_to_run p99 2s) and assumption", Doc: "Scheduled → running with an IP."},
		FieldDoc{Path: "services[].timing.ready", Type: "distribution", Default: FormatDistribution(timing.Ready), Source: "k8s.io/api core/v1 Probe.PeriodSeconds (10s): the first success lands within one period", Doc: "Running → Ready. 0 (`fixed: 0s`) is a pod with no readiness probe: ready in the same status update that gives it its IPs (upstream: the prober counts a container without one ready)."},
		FieldDoc{Path: "services[].timing.stop", Type: "distribution", Default: FormatDistribution(timing.Stop), Source: "assumption", Doc: "Deletion → containers stopped (not ready, still terminating)."},
		FieldDoc{Path: "services[].timing.gracePeriod", Type: "distribution", Default: FormatDistribution(timing.GracePeriod), Source: "k8s.io/api core/v1 PodSpec.TerminationGracePeriodSeconds", Doc: "Deletion → pod object gone."},
		FieldDoc{Path: "timeline", Type: "list of mappings", Required: true, Doc: "The actions, in order; each is a phase of the results, ending when everything it caused has settled (see 'sim explain actions')."},
		FieldDoc{Path: "timeline[].name", Type: "string", Required: true, Allowed: "lowercase a-z, 0-9 and '-', at most 63, unique, not total", Doc: "The phase's name (budgets say PHASE.MODE.FIGURE)."},
		FieldDoc{Path: "timeline[].action", Type: "string", Required: true, Allowed: strings.Join(actionKinds, ", "), Doc: "What happens (see 'sim explain actions')."},
		FieldDoc{Path: "timeline[].services", Type: "list of strings", Default: "all", Allowed: "entry names (all copies) or copies' names (NAME-i), each optionally as NAMESPACE/NAME", Doc: "The Services the action applies to (create, rollout, scale, restartPods, flipReadiness, labelService). A name names the entries of that name in every namespace; NAMESPACE/NAME only that namespace's (an entry without namespace is in default)."},
		FieldDoc{Path: "timeline[].maxSurge", Type: "int or percent", Default: "each Service's own maxSurge", Doc: "rollout: override the Services' strategy (with maxUnavailable: " + rollout + " when only one is given). The workload's spec keeps it, through later scales, until a rollout that sets none (upstream: apps/v1 DeploymentSpec.strategy). StatefulSets never surge: a non-zero maxSurge on a rollout of StatefulSets only is an error."},
		FieldDoc{Path: "timeline[].maxUnavailable", Type: "int or percent", Default: "each Service's own maxUnavailable", Doc: "rollout: override the Services' strategy."},
		FieldDoc{Path: "timeline[].replicas", Type: "integer", Required: true, RequiredWhen: "for scale: replicas or percent", Allowed: "0..1000000; give replicas or percent", Doc: "scale: the new replica count (for a Service with manualEndpoints, the number of addresses the user rewrites its Endpoints object with). A DaemonSet keeps one pod per node: naming one is an error."},
		FieldDoc{Path: "timeline[].percent", Type: "integer", Required: true, RequiredWhen: "for scale: replicas or percent", Allowed: "1..10000; give replicas or percent", Doc: "scale: the new replica count as a percentage of each Service's configured replicas, rounded up (autoscaling up, and back with 100); for a Service with manualEndpoints, of its configured manualEndpoints (the addresses the user rewrites its Endpoints object with)."},
		FieldDoc{Path: "timeline[].spread", Type: "duration", Default: "0s (all at once)", Doc: "rollout, scale, restartPods: start on the Services one after another over this window, at the quantiles of curve, in an order that mixes an entry's copies; drainNodes with waves: the window over which the waves start."},
		FieldDoc{Path: "timeline[].curve", Type: "string", Default: "uniform", Allowed: strings.Join(spreadCurves, ", ") + "; needs spread", Doc: "How spread starts are distributed: uniform (evenly), or diurnal (density 1 − 0.8·cos(2π·t/spread): quiet at the window's ends, five times busier in its middle)."},
		FieldDoc{Path: "timeline[].waves", Type: "integer", Allowed: "1..cluster.nodes; more than 1 needs spread", Doc: "drainNodes: drain the nodes in this many equal waves started evenly over spread, a wave's nodes all at once (without waves, one node at a time); a wave's nodes are schedulable again when the next wave starts (a node-pool upgrade)."},
		FieldDoc{Path: "timeline[].pods", Type: "integer", Default: "1", Allowed: "1..1000000", Doc: "restartPods, flipReadiness: pods per Service. A selector-less Service (manualEndpoints) has none: naming one is an error."},
		FieldDoc{Path: "timeline[].notReadyFor", Type: "duration", Default: "0s (stays not ready)", Doc: "flipReadiness: how long the pods stay not ready."},
		FieldDoc{Path: "timeline[].nodes", Type: "integer", Allowed: "1..cluster.nodes; give nodes or zone", Doc: "failNodes, drainNodes: how many nodes (the first that host pods)."},
		FieldDoc{Path: "timeline[].zone", Type: "string", Allowed: "one of cluster.zones; give nodes or zone", Doc: "failNodes, drainNodes: every node of this zone."},
		FieldDoc{Path: "timeline[].labels", Type: "mapping of strings", Required: true, RequiredWhen: "for labelService", Doc: "labelService: labels to set (an empty value removes the label)."},
		FieldDoc{Path: "timeline[].duration", Type: "duration", Required: true, RequiredWhen: "for wait", Allowed: "> 0", Doc: "wait: how long. failNodes (optional): the nodes come back after this long — a zone blip; their pods turn ready again, or stop if they were deleted meanwhile."},
		FieldDoc{Path: "timeline[].settle", Type: "duration", Default: "0s", Doc: "Idle time after the action's work is done, before the next phase (which starts on the next whole second)."},
		FieldDoc{Path: "modes", Type: "string or list of strings", Default: "both", Allowed: strings.Join(modeNames, ", "), Doc: "The control planes that run (--mode overrides it)."},
		FieldDoc{Path: "guards", Type: "mapping", Doc: "Limits that end a runaway run with an error."},
		FieldDoc{Path: "guards.maxEvents", Type: "integer", Unit: "events", Default: strconv.Itoa(DefaultMaxEvents), Allowed: "1..1e12", Doc: "Engine events."},
		FieldDoc{Path: "guards.endTime", Type: "duration", Default: dur(DefaultEndTime), Allowed: "1s..1000h", Doc: "Virtual time; in a replay, from the recording's last event. The timeline's wait actions together must fit in it."},
		FieldDoc{Path: "guards.maxMemory", Type: "byte size", Default: "3/4 of the memory the process may use (the machine's, or less under a cgroup limit, RLIMIT_AS or GOMEMLIMIT)", Allowed: "1MiB..1EiB",
			Source: "assumption", Doc: "A scenario whose estimated peak memory (nodes, pods at the timeline's peak, services, phases, pods each action changes) is over this is refused before it runs."},
		FieldDoc{Path: "slo", Type: "duration", Default: dur(DefaultSLO), Allowed: "1ms..1000h",
			Source: "kubernetes/perf-tests clusterloader2 CL2_NETWORK_PROGRAMMING_LATENCY_THRESHOLD", Doc: "The propagation latency p99 objective each phase is held to."},
		FieldDoc{Path: "expect", Type: "mapping", Doc: "Budgets for 'sim check': PHASE.MODE.FIGURE (or total.MODE.FIGURE) → {max, min}, in the figure's unit. With --set, a trailing .max or .min is the bound: expect.total.endpointslices.fanoutBytes.max=2TB (or expect[\"total.endpointslices.fanoutBytes\"].max=2TB).",
			Example: "expect:\n  rolling-update.endpointslices.fanoutBytes: {max: 2TB}\n  total.endpoints.propagation.p99Seconds: {max: 30s}"},
	)
	return docs
}

// Topics returns the parts of the format that are not one field.
func Topics() []Topic {
	return []Topic{
		{Name: "actions", Title: "Timeline actions",
			Doc: "Each timeline entry names one action; its phase lasts until everything the action caused has settled (pods ready, controllers idle, every watcher served), plus settle.\n\n" +
				"- create: the Services (all, or those named) and their workloads appear; pods are scheduled, start and turn ready.\n" +
				"- rollout: a rolling update of the workloads, with each Service's maxSurge/maxUnavailable unless the action gives its own.\n" +
				"- scale: the workloads go to replicas pods (a selector-less Service's Endpoints object is rewritten with that many addresses); DaemonSets keep one pod per node, and a scale that names one, or applies to DaemonSets only, is an error.\n" +
				"- restartPods: pods (per Service) are deleted and replaced; selector-less Services (manualEndpoints) have none, and naming one is an error.\n" +
				"- flipReadiness: pods (per Service) turn not ready, for notReadyFor if given (not of selector-less Services, as restartPods).\n" +
				"- failNodes: nodes (or a zone) stop; the node lifecycle controller finds each not ready 40–55 s later (node-monitor-grace-period, from its last Lease renewal) and marks its pods not ready, at its client's pace, and while nodes are down each of its monitor passes (5 s after the last ends) GETs every down node's Lease through that client; the nodes are tainted at 0.1 nodes/s per zone (a taint pass every 100 ms) and their pods evicted 300 s after the taint, replaced elsewhere, the evicted ones terminating until their node is back; the API server keeps each failed node's kube-proxy watch until its buffers fill, then closes it (watcherTerminations) after blocking its dispatcher for the rest of its 100 ms budget; with duration the nodes come back after it, and each one's kube-proxy watches again: away 45 s or more, its client has found the connection lost and it lists everything it watches (relists, resentBytes) once its retries get through, each a new connection dialed for 30 s whose SYNs go out 0, 1, 3, 7 and 15 s in: a 1.37 kube-proxy (EndpointSlices) tries a watch list every 31 s and gets through 0 to 16 s after the node is back; one of Endpoints (before 1.19) a LIST, with a delay doubling from 0.8 s to 30 s (with jitter) between tries, 0 to 75 s after; back sooner, the watch cache replays the events it missed, or when it no longer holds them all (410 Gone), the kube-proxy relists one backoff step (0.8–1.6 s) later.\n" +
				"- drainNodes: nodes (or a zone) are drained as kubectl drain does: all cordoned first, then one node at a time, its pods evicted together (through the Eviction API: a DisruptionTarget status update, then the delete) and the next node started once they are all gone (kubectl checks each second); with waves and spread, a wave's nodes are drained at once (a node-pool upgrade), each wave's nodes back (upgraded) when the next starts, their kube-proxies starting again by listing everything they watch (relists, resentBytes).\n" +
				"- rollout, scale and restartPods with spread start on their Services one after another over that window (curve uniform or diurnal); scale takes percent of the configured replicas (or manualEndpoints) instead of replicas.\n" +
				"- labelService: the Services' labels change (service-proxy-name hides a Service from kube-proxy: see services[].labels).\n" +
				"- wait: nothing happens for duration.",
			Example: "timeline:\n  - {name: create, action: create}\n  - {name: one-endpoint-not-ready, action: flipReadiness, pods: 1}\n  - {name: rolling-update, action: rollout, maxSurge: 25%, maxUnavailable: 0}\n  - {name: scale-up, action: scale, services: [web], replicas: 500}\n  - {name: zone-a-fails, action: failNodes, zone: zone-a, settle: 30s}\n  - {name: drain, action: drainNodes, nodes: 3}\n  - {name: hide, action: labelService, services: [web], labels: {service.kubernetes.io/service-proxy-name: other}}\n  - {name: idle, action: wait, duration: 1m}"},
		{Name: "distributions", Title: "Distributions",
			Doc: "Delays (apiLatency, the timing fields) are distributions, sampled from the run's seeded streams:\n\n" +
				"- a bare duration, or {fixed: D}: always D.\n" +
				"- {uniform: {min: A, max: B}}: uniform between A and B.\n" +
				"- {lognormal: {median: M, p99: P}}: lognormal with that median and 99th percentile (P >= M > 0).\n" +
				"- {exponential: {mean: M}}: exponential with mean M.",
			Example: "timing:\n  schedule: 200ms\n  start: {fixed: 1s}\n  ready: {uniform: {min: 0s, max: 10s}}\n  stop: {lognormal: {median: 1s, p99: 5s}}\n  gracePeriod: {exponential: {mean: 30s}}"},
	}
}

// normalizePath turns "services[0].ports.name" or "services[].ports[].name" into the
// reference form "services[].ports[].name".
func normalizePath(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '[' {
			j := strings.IndexByte(p[i:], ']')
			if j < 0 {
				break
			}
			i += j
			continue
		}
		b.WriteByte(p[i])
	}
	parts := strings.Split(b.String(), ".")
	lists := map[string]bool{"services": true, "timeline": true, "apiServer.watchers": true, "services.ports": true}
	out := ""
	plain := ""
	for i, part := range parts {
		if i > 0 {
			out += "."
			plain += "."
		}
		out += part
		plain += part
		if lists[plain] && i < len(parts)-1 {
			out += "[]"
		}
	}
	return out
}

// Explain describes one field (or the top level with an empty path, or a topic: actions,
// distributions) as 'sim explain' prints it.
func Explain(path string) (string, error) {
	ref := Reference()
	var b strings.Builder
	if path == "" {
		b.WriteString("A scenario is a YAML file with these fields ('sim explain FIELD' for one of them;\n'sim explain actions' and 'sim explain distributions' for those):\n\n")
		writeChildren(&b, ref, "")
		return b.String(), nil
	}
	for _, t := range Topics() {
		if path == t.Name {
			fmt.Fprintf(&b, "%s\n\n%s\n\nEXAMPLE:\n%s\n", strings.ToUpper(t.Title), wrapText(t.Doc, 88), indent(t.Example, "    "))
			return b.String(), nil
		}
	}
	want := normalizePath(path)
	i := slices.IndexFunc(ref, func(f FieldDoc) bool { return f.Path == want })
	if i < 0 {
		var names []string
		for _, f := range ref {
			names = append(names, f.Path)
		}
		msg := fmt.Sprintf("no field %q in the scenario format", path)
		if s := suggestName(want, names); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		return "", fmt.Errorf("%s; 'sim explain' lists the top-level fields", msg)
	}
	f := ref[i]
	fmt.Fprintf(&b, "FIELD:    %s\nTYPE:     %s\n", f.Path, f.Type)
	if f.Unit != "" {
		fmt.Fprintf(&b, "UNIT:     %s\n", f.Unit)
	}
	switch {
	case f.Required && f.RequiredWhen != "":
		fmt.Fprintf(&b, "REQUIRED: %s\n", f.RequiredWhen)
	case f.Required:
		b.WriteString("REQUIRED: yes\n")
	case f.Default != "":
		fmt.Fprintf(&b, "DEFAULT:  %s\n", f.Default)
	}
	if f.Allowed != "" {
		fmt.Fprintf(&b, "ALLOWED:  %s\n", f.Allowed)
	}
	if f.Source != "" {
		fmt.Fprintf(&b, "SOURCE:   %s\n", f.Source)
	}
	fmt.Fprintf(&b, "\nDESCRIPTION:\n%s\n", indent(wrapText(f.Doc, 84), "    "))
	if f.Example != "" {
		fmt.Fprintf(&b, "\nEXAMPLE:\n%s\n", indent(f.Example, "    "))
	}
	if f.Path == "timeline[].action" {
		t := Topics()[0]
		fmt.Fprintf(&b, "\nACTIONS:\n%s\n", indent(t.Doc, "    "))
	}
	if hasChildren(ref, f.Path) {
		b.WriteString("\nFIELDS:\n")
		writeChildren(&b, ref, f.Path)
	}
	return b.String(), nil
}

// required says that f is required, and when: "required", "required for wait".
func (f FieldDoc) required() string {
	if f.RequiredWhen == "" {
		return "required"
	}
	return "required " + f.RequiredWhen
}

func hasChildren(ref []FieldDoc, parent string) bool {
	for _, f := range ref {
		if isChild(f.Path, parent) {
			return true
		}
	}
	return false
}

// isChild reports whether path is a direct field of parent ("" is the top level).
func isChild(path, parent string) bool {
	if parent == "" {
		return !strings.Contains(path, ".")
	}
	rest, ok := strings.CutPrefix(path, parent+".")
	if !ok {
		rest, ok = strings.CutPrefix(path, parent+"[].")
	}
	return ok && !strings.Contains(rest, ".")
}

func writeChildren(b *strings.Builder, ref []FieldDoc, parent string) {
	for _, f := range ref {
		if !isChild(f.Path, parent) {
			continue
		}
		name := f.Path[strings.LastIndexByte(f.Path, '.')+1:]
		line := f.Doc
		if j := strings.Index(line, ". "); j > 0 {
			line = line[:j+1]
		}
		req := ""
		if f.Required {
			req = " (" + f.required() + ")"
		}
		fmt.Fprintf(b, "    %-26s %s%s\n%s\n", name, f.Type, req, indent(wrapText(line, 82), "      "))
	}
}

// wrapText breaks each paragraph line of s at spaces to at most width characters; list
// items ("- …") continue indented.
func wrapText(s string, width int) string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		cont := ""
		if strings.HasPrefix(para, "- ") {
			cont = "  "
		}
		line := ""
		for _, w := range strings.Fields(para) {
			if line != "" && len(line)+1+len(w) > width {
				out = append(out, line)
				line = cont
			}
			if line != "" && line != cont {
				line += " "
			}
			line += w
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

func indent(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}

// Markdown renders the whole reference as docs/scenario.md.
func Markdown() []byte {
	var b strings.Builder
	b.WriteString("# The scenario format\n\n")
	b.WriteString("<!-- Generated from scenarios/reference.go by `go test ./scenarios -run TestScenarioDoc -update`; do not edit. -->\n\n")
	b.WriteString("A scenario is one YAML document. Every field is listed below with its type, unit, default,\n")
	b.WriteString("allowed values and, where the default comes from upstream Kubernetes, the source. `sim explain\n")
	b.WriteString("FIELD.PATH` prints the same for one field; `sim validate --effective FILE` prints a scenario\n")
	b.WriteString("with every default applied; `sim import` makes one from a real cluster.\n\n")
	b.WriteString("Units: durations are Go durations (`500ms`, `1m30s`); byte sizes take SI or binary units\n")
	b.WriteString("(`1.5MiB`, `10KB`); bandwidths are rates (`10Gbit`, `1Gbps`, `100MB/s`; `0` or `unlimited`);\n")
	b.WriteString("int-or-percent values are `3` or `\"25%\"`.\n\n")
	b.WriteString("A minimal scenario:\n\n```yaml\nname: my-cluster\ncluster: {nodes: 2000}\nservices:\n  - {name: web, replicas: 500}\ntimeline:\n  - {name: create, action: create}\n  - {name: rollout, action: rollout}\n```\n\n")
	b.WriteString("## Fields\n\n| field | type | default | allowed | description |\n| --- | --- | --- | --- | --- |\n")
	cell := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "\n", " ") }
	ref := Reference()
	for _, f := range ref {
		typ := f.Type
		if f.Unit != "" {
			typ += " (" + f.Unit + ")"
		}
		def := f.Default
		if def != "" {
			def = "`" + def + "`"
		}
		if f.Required {
			def = f.required()
		}
		desc := f.Doc
		switch {
		case f.Source != "" && f.Default != "":
			desc += " Default from: " + f.Source + "."
		case f.Source != "":
			desc += " Upstream: " + f.Source + "."
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", f.Path, cell(typ), cell(def), cell(f.Allowed), cell(desc))
	}
	b.WriteString("\n## Examples\n")
	for _, f := range ref {
		if f.Example != "" {
			fmt.Fprintf(&b, "\n`%s`:\n\n```yaml\n%s\n```\n", f.Path, f.Example)
		}
	}
	for _, t := range Topics() {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n```yaml\n%s\n```\n", t.Title, t.Doc, t.Example)
	}
	return []byte(b.String())
}
