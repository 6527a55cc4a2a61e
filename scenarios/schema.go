package scenarios

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"epsim/sim"
)

// Scenario is one loaded, validated scenario: its metadata, the engine configuration with
// every default applied, and its budgets.
type Scenario struct {
	// Name is the scenario's name: field, carried into every output.
	Name string
	// Description is the free-text description: field.
	Description string
	// File is where the scenario came from, as errors print it: the path given, or
	// "scenarios/NAME.yaml" for an embedded scenario.
	File string
	// Embedded is true when the scenario was read from the binary, not from disk.
	Embedded bool
	// Config is what sim.Run runs.
	Config sim.Config
	// Expect holds the `expect:` budgets for `sim check`.
	Expect Expect
	// MaxMemory is guards.maxMemory in bytes (0: DefaultMaxMemory).
	MaxMemory int64
	// MemoryEstimate is EstimateMemory of Config, checked against MaxMemory.
	MemoryEstimate int64
}

// Limits that keep a scenario within what one run can hold. They are ours, not upstream's.
const (
	maxNodes        = 1_000_000
	maxServices     = 1_000_000
	maxPods         = 10_000_000
	maxReplicas     = 1_000_000
	maxWatcherCount = 1_000_000
	// maxWatchers bounds all watchers of a mode: one kube-proxy per node plus every extra
	// watcher group's count. Fan-out figures are products of watchers and event bytes.
	maxWatchers = 10_000_000
	// maxActions bounds the timeline: each action is a phase with its own results.
	maxActions        = 10_000
	maxAPIReplicas    = 100
	maxQPS            = 1e6
	maxBurst          = 1_000_000
	maxBatchPeriod    = time.Hour
	maxLongDuration   = 1000 * time.Hour
	maxObjectSizeByte = 1 << 40
)

// Field names per mapping, in the order the documentation lists them.
var (
	topFields        = []string{"name", "description", "seed", "cluster", "controlPlane", "apiServer", "network", "kubeProxy", "services", "timeline", "modes", "guards", "slo", "expect"}
	clusterFields    = []string{"nodes", "zones", "region", "nodeNameFormat", "nodeMilliCPU", "maxPodsPerNode"}
	cpFields         = []string{"endpointSlice", "endpoints", "mirroringWorkers", "maxEndpointsPerSlice", "endpointsTruncation", "informerLag", "endpointsBuildPerPod", "endpointSliceSyncPerPod", "podMapPerService", "minResyncPeriod", "workloads"}
	controllerFields = []string{"workers", "batchPeriod", "qps", "burst", "apiLatency"}
	workloadFields   = []string{"replicaSet", "deployment", "statefulSet", "daemonSet", "burstReplicas", "scheduler", "podCreateFailureRate"}
	workloadKinds    = []string{sim.KindDeployment, sim.KindStatefulSet, sim.KindDaemonSet}
	podPolicies      = []string{sim.PodManagementOrderedReady, sim.PodManagementParallel}
	// workloadControllerFields: the workload controllers have no batch period.
	workloadControllerFields = []string{"workers", "qps", "burst", "apiLatency"}
	clientFields             = []string{"qps", "burst"}
	apiServerFields          = []string{"replicas", "kubeProxyEncoding", "objectSizeLimit", "egressBandwidth", "watchers", "costs"}
	apiCostFields            = []string{"encodeProtobufNanosPerByte", "encodeJSONNanosPerByte", "tlsNanosPerByte", "gzipNanosPerByte", "perEventNanos"}
	kubeProxyFields          = []string{"mode", "minSyncPeriod", "syncPeriod", "cpu", "costs"}
	kubeProxyCostFields      = []string{"syncBase", "walkNanosPerServicePort", "generateNanosPerRule", "writeNanosPerRule", "rulesPerServicePort", "rulesPerEndpoint", "decodeProtobufNanosPerByte", "decodeJSONNanosPerByte"}
	kubeProxyModes           = []string{string(sim.KubeProxyIPTables), string(sim.KubeProxyNFTables), string(sim.KubeProxyIPVS)}
	watcherFields            = []string{"name", "count", "resources", "encoding", "includeHeadless"}
	networkFields            = []string{"enabled", "nodeIngressBandwidth", "transportOverhead", "listCompressionRatio"}
	serviceFields            = []string{"name", "namespace", "namespaces", "count", "replicas", "ports", "ipFamilies", "headless", "publishNotReadyAddresses", "trafficDistribution", "internalTrafficPolicy", "topologyMode", "labels", "minReadySeconds", "kind", "serviceName", "podManagementPolicy", "maxSurge", "maxUnavailable", "manualEndpoints", "timing"}
	portFields               = []string{"name", "protocol", "port", "targetPort", "appProtocol"}
	timingFields             = []string{"schedule", "start", "ready", "stop", "gracePeriod"}
	actionFields             = []string{"name", "action", "services", "maxSurge", "maxUnavailable", "replicas", "pods", "notReadyFor", "nodes", "zone", "labels", "duration", "settle", "percent", "waves", "spread", "curve"}
	guardFields              = []string{"maxEvents", "endTime", "maxMemory"}

	encodings            = []string{string(sim.EncodingProtobuf), string(sim.EncodingJSON)}
	protocols            = []string{"TCP", "UDP", "SCTP"}
	ipFamilies           = []string{"IPv4", "IPv6"}
	trafficDistributions = []string{"PreferClose", "PreferSameZone", "PreferSameNode"}
	trafficPolicies      = []string{"Cluster", "Local"}
	// topologyModes: upstream enables hints for "Auto" or "auto" (k8s.io/endpointslice
	// utils.go hintsEnabled); "Disabled" is the documented way to say no.
	topologyModes  = []string{"Auto", "auto", "Disabled"}
	watchResources = []string{"endpointslices", "endpoints"}
	modeNames      = []string{"both", "endpoints", "endpointslices"}
	spreadCurves   = []string{string(sim.CurveUniform), string(sim.CurveDiurnal)}
	actionKinds    = []string{
		string(sim.ActionCreate), string(sim.ActionRollout), string(sim.ActionScale),
		string(sim.ActionRestartPods), string(sim.ActionFlipReadiness), string(sim.ActionFailNodes),
		string(sim.ActionDrainNodes), string(sim.ActionLabelService), string(sim.ActionWait),
	}
	// actionKindFields lists, per action, the fields beyond name, action and settle.
	actionKindFields = map[sim.ActionKind][]string{
		sim.ActionCreate:        {"services"},
		sim.ActionRollout:       {"services", "maxSurge", "maxUnavailable", "spread", "curve"},
		sim.ActionScale:         {"services", "replicas", "percent", "spread", "curve"},
		sim.ActionRestartPods:   {"services", "pods", "spread", "curve"},
		sim.ActionFlipReadiness: {"services", "pods", "notReadyFor"},
		sim.ActionFailNodes:     {"nodes", "zone", "duration"},
		sim.ActionDrainNodes:    {"nodes", "zone", "waves", "spread"},
		sim.ActionLabelService:  {"services", "labels"},
		sim.ActionWait:          {"duration"},
	}
)

// decodeScenario decodes a whole document over the defaults.
func (d *decoder) decodeScenario(root *yaml.Node) *Scenario {
	sc := &Scenario{File: d.file, Config: DefaultConfig()}
	cfg := &sc.Config
	var memAt *yaml.Node // guards.maxMemory, where a memory refusal points
	if root == nil {
		d.errorf(nil, "", "empty scenario (required fields: name, cluster, services, timeline)")
		return sc
	}
	f, ok := d.fields(root, "", topFields)
	if !ok {
		return sc
	}
	if e, ok := f["name"]; ok {
		if v, ok := d.name(e.val); ok {
			sc.Name, cfg.Name = v, v
		}
	} else {
		d.missing(root, "", "name")
	}
	if e, ok := f["description"]; ok {
		sc.Description, _ = d.str(e.val, "description")
	}
	if e, ok := f["seed"]; ok {
		if v, ok := d.integer(e.val, "seed", 0, math.MaxInt64); ok {
			cfg.Seed = uint64(v)
		}
	}
	if e, ok := f["cluster"]; ok {
		d.cluster(e.val, "cluster", &cfg.Cluster)
	} else {
		d.missing(root, "", "cluster")
	}
	if e, ok := f["controlPlane"]; ok {
		d.controlPlane(e.val, "controlPlane", &cfg.ControlPlane)
	}
	if e, ok := f["apiServer"]; ok {
		d.apiServer(e.val, "apiServer", &cfg.APIServer, cfg.Cluster.Nodes)
	}
	if e, ok := f["network"]; ok {
		g, _ := d.fields(e.val, "network", networkFields)
		if e, ok := g["enabled"]; ok {
			cfg.Network.Enabled, _ = d.boolean(e.val, "network.enabled")
		}
		if e, ok := g["nodeIngressBandwidth"]; ok {
			cfg.Network.NodeIngressBitsPerSec, _ = d.bandwidth(e.val, "network.nodeIngressBandwidth")
		}
		if e, ok := g["transportOverhead"]; ok {
			cfg.Network.TransportOverhead, _ = d.boolean(e.val, "network.transportOverhead")
		}
		if e, ok := g["listCompressionRatio"]; ok {
			// "measured" (the default) leaves the ratio to the model: 0.
			switch v := e.val; {
			case v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str" && v.Value == measuredRatio:
				cfg.Network.ListCompressionRatio = 0
			case v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str":
				d.errorf(v, "network.listCompressionRatio", "expected a number (0.01..1) or %s, got %s", measuredRatio, describe(v))
			default:
				cfg.Network.ListCompressionRatio, _ = d.number(v, "network.listCompressionRatio", 0.01, 1)
			}
		}
	}
	if e, ok := f["kubeProxy"]; ok {
		d.kubeProxy(e.val, "kubeProxy", &cfg.KubeProxy)
	}
	if e, ok := f["services"]; ok {
		cfg.Services = d.services(e.val, "services")
	} else {
		d.missing(root, "", "services")
		d.servicesIncomplete = true
	}
	if e, ok := f["timeline"]; ok {
		cfg.Timeline = d.timeline(e.val, "timeline", cfg)
	} else {
		d.missing(root, "", "timeline")
	}
	if e, ok := f["modes"]; ok {
		d.modes(e.val, "modes", cfg)
	}
	endTimeOK := true
	if e, ok := f["guards"]; ok {
		g, _ := d.fields(e.val, "guards", guardFields)
		if e, ok := g["maxEvents"]; ok {
			cfg.MaxEvents, _ = d.integer(e.val, "guards.maxEvents", 1, 1e12)
		}
		if e, ok := g["endTime"]; ok {
			cfg.EndTime, endTimeOK = d.durationIn(e.val, "guards.endTime", time.Second, maxLongDuration)
		}
		if e, ok := g["maxMemory"]; ok {
			sc.MaxMemory, _ = d.byteSize(e.val, "guards.maxMemory", 1<<20, 1<<60)
			memAt = e.val
		}
	}
	if endTimeOK {
		d.checkWaits(cfg.EndTime)
	}
	if e, ok := f["slo"]; ok {
		cfg.SLO, _ = d.durationIn(e.val, "slo", time.Millisecond, maxLongDuration)
	}
	if e, ok := f["expect"]; ok {
		sc.Expect = d.expect(e.val, "expect", d.phases)
	}
	if len(d.errs) == 0 {
		d.checkMemory(sc, memAt)
	}
	return sc
}

// checkWaits refuses a timeline whose wait actions alone last longer than guards.endTime
// (endTime > 0): its run could never finish. It points at the wait that passes the limit.
func (d *decoder) checkWaits(endTime time.Duration) {
	if endTime <= 0 {
		return
	}
	var total time.Duration // at most endTime + maxLongDuration: no overflow
	for i, w := range d.waits {
		total += w.duration
		if total <= endTime {
			continue
		}
		if i == 0 {
			d.errorf(w.node, w.path, "wait of %v is longer than guards.endTime %v: the run could never finish (raise guards.endTime or shorten the wait)", w.duration, endTime)
		} else {
			d.errorf(w.node, w.path, "the timeline's waits up to here add up to %v, longer than guards.endTime %v: the run could never finish (raise guards.endTime or shorten the waits)", total, endTime)
		}
		return
	}
}

func (d *decoder) cluster(n *yaml.Node, path string, c *sim.ClusterConfig) {
	f, ok := d.fields(n, path, clusterFields)
	if !ok {
		return
	}
	if e, ok := f["nodes"]; ok {
		v, _ := d.integer(e.val, join(path, "nodes"), 1, maxNodes)
		c.Nodes = int(v)
	} else {
		d.missing(n, path, "nodes")
	}
	if e, ok := f["zones"]; ok {
		p := join(path, "zones")
		// Not a list: list said so, and a count of it would only repeat the error.
		if items, isList := d.list(e.val, p, "zone names"); isList && (len(items) == 0 || len(items) > 1000) {
			d.errorf(e.val, p, "need 1..1000 zones, got %d", len(items))
		} else if isList {
			c.Zones = nil
			for i, it := range items {
				z, ok := d.str(it, index(p, i))
				if !ok {
					continue
				}
				switch {
				case z != "" && (len(z) > 63 || !labelValueExpr.MatchString(z)):
					// "" stands for nodes without the label (their endpoints carry no zone).
					d.errorf(it, index(p, i), "zone %q must be a label value: 1..63 characters [A-Za-z0-9-_.], starting and ending alphanumeric, or \"\" for nodes without a zone label", z)
				case slices.Contains(c.Zones, z):
					d.errorf(it, index(p, i), "duplicate zone %q", z)
				default:
					c.Zones = append(c.Zones, z)
				}
			}
		}
	}
	if e, ok := f["region"]; ok {
		p := join(path, "region")
		if v, ok := d.str(e.val, p); ok {
			if v == "" || len(v) > 63 || !labelValueExpr.MatchString(v) {
				d.errorf(e.val, p, "region %q must be a label value: 1..63 characters [A-Za-z0-9-_.], starting and ending alphanumeric", v)
			} else {
				c.Region = v
			}
		}
	}
	if e, ok := f["nodeNameFormat"]; ok {
		p := join(path, "nodeNameFormat")
		if v, ok := d.str(e.val, p); ok {
			if msg := checkNodeNameFormat(v, max(c.Nodes, 1)); msg != "" {
				d.errorf(e.val, p, "%s", msg)
			} else {
				c.NodeNameFormat = v
			}
		}
	}
	if e, ok := f["nodeMilliCPU"]; ok {
		c.NodeMilliCPU, _ = d.integer(e.val, join(path, "nodeMilliCPU"), 1, 10_000_000)
	}
	if e, ok := f["maxPodsPerNode"]; ok {
		// No more than a node's pod address range holds: its pods would share addresses.
		if v, ok := d.integer(e.val, join(path, "maxPodsPerNode"), 1, sim.NodePodAddresses); ok {
			c.MaxPodsPerNode = int(v)
		}
	}
}

// checkNodeNameFormat requires exactly one %d and no other verb, and names that are DNS
// subdomains (upstream: node names are validated as DNS-1123 subdomains).
func checkNodeNameFormat(format string, nodes int) string {
	if strings.Count(format, "%") != 1 || strings.Count(format, "%d") != 1 {
		return fmt.Sprintf("%q must contain exactly one %%d (the node index) and no other %% verbs, like %q", format, DefaultNodeNameFormat)
	}
	for _, i := range []int{0, nodes - 1} {
		name := fmt.Sprintf(format, i)
		if len(name) > 253 || !dns1123Sub.MatchString(name) {
			return fmt.Sprintf("%q gives node name %q, which is not a DNS subdomain (lowercase a-z, 0-9, '-' and '.', at most 253 characters)", format, name)
		}
	}
	return ""
}

func (d *decoder) controlPlane(n *yaml.Node, path string, cp *sim.ControlPlaneConfig) {
	f, ok := d.fields(n, path, cpFields)
	if !ok {
		return
	}
	if e, ok := f["endpointSlice"]; ok {
		d.controller(e.val, join(path, "endpointSlice"), &cp.EndpointSlice)
	}
	if e, ok := f["endpoints"]; ok {
		d.controller(e.val, join(path, "endpoints"), &cp.Endpoints)
	}
	if e, ok := f["mirroringWorkers"]; ok {
		if v, ok := d.integer(e.val, join(path, "mirroringWorkers"), 1, MaxWorkers); ok {
			cp.MirroringWorkers = int(v)
		}
	}
	if e, ok := f["maxEndpointsPerSlice"]; ok {
		v, ok := d.integer(e.val, join(path, "maxEndpointsPerSlice"), 1, MaxEndpointsPerSliceLimit)
		if ok {
			cp.MaxEndpointsPerSlice = int(v)
		}
	}
	if e, ok := f["endpointsTruncation"]; ok {
		if v, ok := d.boolean(e.val, join(path, "endpointsTruncation")); ok {
			cp.EndpointsTruncation = v
		}
	}
	if e, ok := f["informerLag"]; ok {
		if v, ok := d.durationIn(e.val, join(path, "informerLag"), time.Microsecond, time.Minute); ok {
			cp.InformerLag = v
		}
	}
	if e, ok := f["endpointsBuildPerPod"]; ok {
		if v, ok := d.durationIn(e.val, join(path, "endpointsBuildPerPod"), time.Nanosecond, time.Second); ok {
			cp.EndpointsBuildPerPod = v
		}
	}
	if e, ok := f["endpointSliceSyncPerPod"]; ok {
		if v, ok := d.durationIn(e.val, join(path, "endpointSliceSyncPerPod"), time.Nanosecond, time.Second); ok {
			cp.EndpointSliceSyncPerPod = v
		}
	}
	if e, ok := f["podMapPerService"]; ok {
		if v, ok := d.durationIn(e.val, join(path, "podMapPerService"), time.Nanosecond, time.Millisecond); ok {
			cp.PodMapPerService = v
		}
	}
	if e, ok := f["minResyncPeriod"]; ok {
		if v, ok := d.durationIn(e.val, join(path, "minResyncPeriod"), 0, 30*24*time.Hour); ok {
			cp.MinResyncPeriod = v
		}
	}
	if e, ok := f["workloads"]; ok {
		d.workloads(e.val, join(path, "workloads"), &cp.Workloads)
	}
}

// workloads decodes the workload controllers' pace (controlPlane.workloads).
func (d *decoder) workloads(n *yaml.Node, path string, w *sim.WorkloadsConfig) {
	f, ok := d.fields(n, path, workloadFields)
	if !ok {
		return
	}
	if e, ok := f["replicaSet"]; ok {
		d.controllerWith(e.val, join(path, "replicaSet"), &w.ReplicaSet, workloadControllerFields)
	}
	if e, ok := f["deployment"]; ok {
		d.controllerWith(e.val, join(path, "deployment"), &w.Deployment, workloadControllerFields)
	}
	if e, ok := f["statefulSet"]; ok {
		d.controllerWith(e.val, join(path, "statefulSet"), &w.StatefulSet, workloadControllerFields)
	}
	if e, ok := f["daemonSet"]; ok {
		d.controllerWith(e.val, join(path, "daemonSet"), &w.DaemonSet, workloadControllerFields)
	}
	if e, ok := f["burstReplicas"]; ok {
		if v, ok := d.integer(e.val, join(path, "burstReplicas"), 1, maxReplicas); ok {
			w.BurstReplicas = int(v)
		}
	}
	if e, ok := f["scheduler"]; ok {
		var c sim.ControllerConfig
		c.QPS, c.Burst = w.SchedulerQPS, w.SchedulerBurst
		d.controllerWith(e.val, join(path, "scheduler"), &c, clientFields)
		w.SchedulerQPS, w.SchedulerBurst = c.QPS, c.Burst
	}
	if e, ok := f["podCreateFailureRate"]; ok {
		if v, ok := d.number(e.val, join(path, "podCreateFailureRate"), 0, 0.99); ok {
			w.PodCreateFailureRate = v
		}
	}
}

func (d *decoder) controller(n *yaml.Node, path string, c *sim.ControllerConfig) {
	d.controllerWith(n, path, c, controllerFields)
}

// controllerWith decodes the fields of a controller's machinery that allowed lists.
func (d *decoder) controllerWith(n *yaml.Node, path string, c *sim.ControllerConfig, allowed []string) {
	f, ok := d.fields(n, path, allowed)
	if !ok {
		return
	}
	if e, ok := f["workers"]; ok {
		if v, ok := d.integer(e.val, join(path, "workers"), 1, MaxWorkers); ok {
			c.Workers = int(v)
		}
	}
	if e, ok := f["batchPeriod"]; ok {
		c.BatchPeriod, _ = d.durationIn(e.val, join(path, "batchPeriod"), 0, maxBatchPeriod)
	}
	if e, ok := f["qps"]; ok {
		p := join(path, "qps")
		if v, ok := d.number(e.val, p, 0, maxQPS); ok {
			if v == 0 {
				d.errorf(e.val, p, "0 out of range (qps must be > 0, at most %g)", float64(maxQPS))
			} else {
				c.QPS = v
			}
		}
	}
	if e, ok := f["burst"]; ok {
		if v, ok := d.integer(e.val, join(path, "burst"), 1, maxBurst); ok {
			c.Burst = int(v)
		}
	}
	if e, ok := f["apiLatency"]; ok {
		if v, ok := d.distribution(e.val, join(path, "apiLatency")); ok {
			c.APILatency = v
		}
	}
}

func (d *decoder) apiServer(n *yaml.Node, path string, a *sim.APIServerConfig, nodes int) {
	f, ok := d.fields(n, path, apiServerFields)
	if !ok {
		return
	}
	if e, ok := f["replicas"]; ok {
		if v, ok := d.integer(e.val, join(path, "replicas"), 1, maxAPIReplicas); ok {
			a.Replicas = int(v)
		}
	}
	if e, ok := f["kubeProxyEncoding"]; ok {
		if v, ok := d.enum(e.val, join(path, "kubeProxyEncoding"), encodings); ok {
			a.KubeProxyEncoding = sim.Encoding(v)
		}
	}
	if e, ok := f["objectSizeLimit"]; ok {
		if v, ok := d.byteSize(e.val, join(path, "objectSizeLimit"), 1, maxObjectSizeByte); ok {
			a.ObjectSizeLimitBytes = v
		}
	}
	if e, ok := f["egressBandwidth"]; ok {
		a.EgressBitsPerSec, _ = d.bandwidth(e.val, join(path, "egressBandwidth"))
	}
	if e, ok := f["watchers"]; ok {
		p := join(path, "watchers")
		items, _ := d.list(e.val, p, "watcher groups")
		seen := map[string]bool{}
		total := int64(nodes)
		defer func() {
			if total > maxWatchers {
				d.errorf(e.val, p, "%d watchers in total (cluster.nodes + sum of count) is too many (at most %d)", total, maxWatchers)
			}
		}()
		for i, it := range items {
			w, ok := d.watcher(it, index(p, i))
			if !ok {
				continue
			}
			if seen[w.Name] {
				d.errorf(it, index(p, i)+".name", "duplicate watcher name %q", w.Name)
				continue
			}
			seen[w.Name] = true
			total += int64(w.Count)
			a.Watchers = append(a.Watchers, w)
		}
	}
	if e, ok := f["costs"]; ok {
		d.apiServerCosts(e.val, join(path, "costs"), &a.Costs)
	}
}

// maxNanos bounds every per-item cost setting (one second per byte, rule or event).
const maxNanos = 1e9

// nanos reads a non-negative cost in nanoseconds into *dst.
func (d *decoder) nanos(f map[string]entry, path, name string, dst *float64) {
	if e, ok := f[name]; ok {
		if v, ok := d.number(e.val, join(path, name), 0, maxNanos); ok {
			*dst = v
		}
	}
}

// apiServerCosts reads apiServer.costs: the watch path's CPU model (sim.APIServerCosts).
func (d *decoder) apiServerCosts(n *yaml.Node, path string, c *sim.APIServerCosts) {
	f, ok := d.fields(n, path, apiCostFields)
	if !ok {
		return
	}
	d.nanos(f, path, "encodeProtobufNanosPerByte", &c.EncodeProtobufNanosPerByte)
	d.nanos(f, path, "encodeJSONNanosPerByte", &c.EncodeJSONNanosPerByte)
	d.nanos(f, path, "tlsNanosPerByte", &c.TLSNanosPerByte)
	d.nanos(f, path, "gzipNanosPerByte", &c.GzipNanosPerByte)
	d.nanos(f, path, "perEventNanos", &c.PerEventNanos)
}

// kubeProxy reads kubeProxy: the backend (whose cost defaults apply first), the runner's
// periods, the CPU and the cost model (sim.DefaultKubeProxy cites each default's source).
func (d *decoder) kubeProxy(n *yaml.Node, path string, k *sim.KubeProxyConfig) {
	f, ok := d.fields(n, path, kubeProxyFields)
	if !ok {
		return
	}
	if e, ok := f["mode"]; ok {
		if v, ok := d.enum(e.val, join(path, "mode"), kubeProxyModes); ok {
			*k = sim.DefaultKubeProxy(sim.KubeProxyMode(v))
		}
	}
	if e, ok := f["minSyncPeriod"]; ok {
		if v, ok := d.durationIn(e.val, join(path, "minSyncPeriod"), 0, time.Hour); ok {
			k.MinSyncPeriod = v
		}
	}
	if e, ok := f["syncPeriod"]; ok {
		if v, ok := d.durationIn(e.val, join(path, "syncPeriod"), time.Millisecond, 24*time.Hour); ok {
			k.SyncPeriod = v
		}
	}
	if k.SyncPeriod < k.MinSyncPeriod {
		// upstream: the runner panics when maxInterval < minInterval; validation refuses it.
		d.errorf(n, join(path, "syncPeriod"), "%v is shorter than minSyncPeriod %v", k.SyncPeriod, k.MinSyncPeriod)
	}
	if e, ok := f["cpu"]; ok {
		p := join(path, "cpu")
		if v, ok := d.number(e.val, p, 0, 1024); ok {
			if v < 0.001 {
				d.errorf(e.val, p, "%g out of range (cpu must be at least 0.001 cores)", v)
			} else {
				k.CPU = v
			}
		}
	}
	if e, ok := f["costs"]; ok {
		p := join(path, "costs")
		g, ok := d.fields(e.val, p, kubeProxyCostFields)
		if !ok {
			return
		}
		c := &k.Costs
		if e, ok := g["syncBase"]; ok {
			if v, ok := d.durationIn(e.val, join(p, "syncBase"), 0, time.Hour); ok {
				c.SyncBase = v
			}
		}
		d.nanos(g, p, "walkNanosPerServicePort", &c.WalkNanosPerServicePort)
		d.nanos(g, p, "generateNanosPerRule", &c.GenerateNanosPerRule)
		d.nanos(g, p, "writeNanosPerRule", &c.WriteNanosPerRule)
		for _, x := range []struct {
			name string
			dst  *float64
		}{{"rulesPerServicePort", &c.RulesPerServicePort}, {"rulesPerEndpoint", &c.RulesPerEndpoint}} {
			if e, ok := g[x.name]; ok {
				if v, ok := d.number(e.val, join(p, x.name), 0, 1000); ok {
					*x.dst = v
				}
			}
		}
		d.nanos(g, p, "decodeProtobufNanosPerByte", &c.DecodeProtobufNanosPerByte)
		d.nanos(g, p, "decodeJSONNanosPerByte", &c.DecodeJSONNanosPerByte)
	}
}

func (d *decoder) watcher(n *yaml.Node, path string) (sim.WatcherConfig, bool) {
	w := sim.WatcherConfig{Count: 1, Encoding: sim.EncodingProtobuf}
	f, ok := d.fields(n, path, watcherFields)
	if !ok {
		return w, false
	}
	before := len(d.errs)
	if e, ok := f["name"]; ok {
		if v, ok := d.str(e.val, join(path, "name")); ok {
			if v == "" || len(v) > 63 || !dns1123Label.MatchString(v) {
				d.errorf(e.val, join(path, "name"), "%q must be a DNS label (lowercase a-z, 0-9 and '-', at most 63 characters), like coredns", v)
			}
			w.Name = v
		}
	} else {
		d.missing(n, path, "name")
	}
	if e, ok := f["count"]; ok {
		v, _ := d.integer(e.val, join(path, "count"), 1, maxWatcherCount)
		w.Count = int(v)
	}
	if e, ok := f["resources"]; ok {
		p := join(path, "resources")
		items, _ := d.list(e.val, p, "resources")
		if len(items) == 0 {
			d.errorf(e.val, p, "need at least one of %s", strings.Join(watchResources, ", "))
		}
		for i, it := range items {
			v, ok := d.enum(it, index(p, i), watchResources)
			switch {
			case !ok:
			case (v == "endpointslices" && w.EndpointSlices) || (v == "endpoints" && w.Endpoints):
				d.errorf(it, index(p, i), "duplicate resource %q", v)
			case v == "endpointslices":
				w.EndpointSlices = true
			default:
				w.Endpoints = true
			}
		}
	} else {
		d.missing(n, path, "resources")
	}
	if e, ok := f["encoding"]; ok {
		v, _ := d.enum(e.val, join(path, "encoding"), encodings)
		w.Encoding = sim.Encoding(v)
	}
	if e, ok := f["includeHeadless"]; ok {
		w.IncludeHeadless, _ = d.boolean(e.val, join(path, "includeHeadless"))
	}
	return w, len(d.errs) == before
}

func (d *decoder) services(n *yaml.Node, path string) []sim.ServiceConfig {
	items, ok := d.list(n, path, "services")
	if !ok {
		d.servicesIncomplete = true
		return nil
	}
	if len(items) == 0 {
		d.errorf(n, path, "need at least one service")
		d.servicesIncomplete = true
		return nil
	}
	var out []sim.ServiceConfig
	var outIndex []int
	type where struct {
		node  *yaml.Node
		count int
	}
	// bases[namespace][name] = the entry with that name; used to find name clashes between
	// plain names and stamped copies (a service "web-1" next to "web" with count 3).
	bases := map[string]map[string]where{}
	totalServices, totalPods := 0, 0
	for i, it := range items {
		p := index(path, i)
		s, ok := d.service(it, p)
		if !ok {
			if !dns1035Label.MatchString(s.Name) {
				// No usable name: the timeline may refer to it by the name it should have.
				d.servicesIncomplete = true
			}
			if s.Name != "" {
				if d.rejected == nil {
					d.rejected = map[string]int{}
				}
				d.rejected[s.Name] = max(d.rejected[s.Name], s.Count)
			}
			continue
		}
		totalServices += s.Count
		totalPods += s.Count * s.Replicas
		byName := bases[s.Namespace]
		if byName == nil {
			byName = map[string]where{}
			bases[s.Namespace] = byName
		}
		if prev, dup := byName[s.Name]; dup {
			d.errorf(it, p+".name", "duplicate service %s/%s (first at line %d)", s.Namespace, s.Name, prev.node.Line)
			continue
		}
		byName[s.Name] = where{it, s.Count}
		out = append(out, s)
		outIndex = append(outIndex, i)
	}
	// A plain name "base-N" clashes with a stamped base when N < its count; the only
	// candidate base is the name up to its last '-'.
	for i, s := range out {
		cut := strings.LastIndexByte(s.Name, '-')
		if cut <= 0 {
			continue
		}
		base := s.Name[:cut]
		w, ok := bases[s.Namespace][base]
		if !ok || w.count <= 1 {
			continue
		}
		if idx, ok := stampIndex(s.Name, base); ok && idx < w.count {
			j := outIndex[i]
			d.errorf(items[j], index(path, j)+".name", "service %s/%s clashes with copy %d of %q (count %d, line %d)", s.Namespace, s.Name, idx, base, w.count, w.node.Line)
		}
	}
	if totalServices > maxServices {
		d.errorf(n, path, "%d services in total (sum of count) is too many (at most %d)", totalServices, maxServices)
	}
	if totalPods > maxPods {
		d.errorf(n, path, "%d pods in total (sum of count × replicas) is too many (at most %d)", totalPods, maxPods)
	}
	return out
}

// StampName returns the name of copy i of a service entry with the given count: the base
// name itself when count is 1, else "base-i" (i in 0..count-1).
func StampName(base string, count, i int) string {
	if count <= 1 {
		return base
	}
	return base + "-" + strconv.Itoa(i)
}

// stampIndex reports whether name is base-N and returns N.
func stampIndex(name, base string) (int, bool) {
	rest, ok := strings.CutPrefix(name, base+"-")
	if !ok || rest == "" || (len(rest) > 1 && rest[0] == '0') || strings.TrimLeft(rest, "0123456789") != "" || len(rest) > 9 {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil
}

func (d *decoder) service(n *yaml.Node, path string) (sim.ServiceConfig, bool) {
	s := DefaultService()
	f, ok := d.fields(n, path, serviceFields)
	if !ok {
		return s, false
	}
	before := len(d.errs)
	if e, ok := f["count"]; ok {
		v, _ := d.integer(e.val, join(path, "count"), 1, maxServices)
		s.Count = max(int(v), 1)
	}
	if e, ok := f["name"]; ok {
		p := join(path, "name")
		if v, ok := d.str(e.val, p); ok {
			longest := StampName(v, s.Count, s.Count-1)
			switch {
			case !dns1035Label.MatchString(v):
				d.errorf(e.val, p, "%q must be a DNS-1035 label (lowercase a-z, 0-9 and '-', starting with a letter)", v)
			case len(longest) > 63:
				d.errorf(e.val, p, "%q is too long: service names are at most 63 characters (the last copy would be %q)", v, longest)
			}
			s.Name = v
		}
	} else {
		d.missing(n, path, "name")
	}
	if e, ok := f["namespace"]; ok {
		p := join(path, "namespace")
		if v, ok := d.str(e.val, p); ok {
			if len(v) > 63 || !dns1123Label.MatchString(v) {
				d.errorf(e.val, p, "%q must be a DNS label (lowercase a-z, 0-9 and '-', at most 63 characters)", v)
			}
			s.Namespace = v
		}
	}
	if e, ok := f["namespaces"]; ok {
		p := join(path, "namespaces")
		if v, ok := d.integer(e.val, p, 1, maxServices); ok {
			s.Namespaces = int(v)
			if last := s.NamespaceOf(s.Namespaces - 1); s.Namespaces > s.Count {
				d.errorf(e.val, p, "%d is more than count (%d): each namespace needs a Service of the entry", s.Namespaces, s.Count)
			} else if len(last) > 63 {
				d.errorf(e.val, p, "namespace %q of the last copies is too long (at most 63 characters): shorten namespace", last)
			}
		}
	}
	if e, ok := f["replicas"]; ok {
		v, _ := d.integer(e.val, join(path, "replicas"), 0, maxReplicas)
		s.Replicas = int(v)
	}
	if e, ok := f["headless"]; ok {
		s.Headless, _ = d.boolean(e.val, join(path, "headless"))
	}
	if e, ok := f["ports"]; ok {
		s.Ports = d.ports(e.val, join(path, "ports"), s.Headless)
	}
	if e, ok := f["ipFamilies"]; ok {
		p := join(path, "ipFamilies")
		items, _ := d.list(e.val, p, "IP families")
		if len(items) == 0 || len(items) > 2 {
			d.errorf(e.val, p, "need 1 or 2 IP families (IPv4, IPv6), got %d", len(items))
		}
		s.IPFamilies = nil
		for i, it := range items {
			if v, ok := d.enum(it, index(p, i), ipFamilies); ok {
				if slices.Contains(s.IPFamilies, v) {
					d.errorf(it, index(p, i), "duplicate IP family %s", v)
					continue
				}
				s.IPFamilies = append(s.IPFamilies, v)
			}
		}
	}
	if e, ok := f["publishNotReadyAddresses"]; ok {
		s.PublishNotReadyAddresses, _ = d.boolean(e.val, join(path, "publishNotReadyAddresses"))
	}
	if e, ok := f["trafficDistribution"]; ok {
		s.TrafficDistribution, _ = d.enum(e.val, join(path, "trafficDistribution"), trafficDistributions)
	}
	if e, ok := f["internalTrafficPolicy"]; ok {
		s.InternalTrafficPolicy, _ = d.enum(e.val, join(path, "internalTrafficPolicy"), trafficPolicies)
	}
	if e, ok := f["topologyMode"]; ok {
		s.TopologyMode, _ = d.enum(e.val, join(path, "topologyMode"), topologyModes)
	}
	if e, ok := f["labels"]; ok {
		s.Labels, _ = d.stringMap(e.val, join(path, "labels"), checkServiceLabel)
	}
	if e, ok := f["kind"]; ok {
		if v, ok := d.enum(e.val, join(path, "kind"), workloadKinds); ok {
			s.WorkloadKind = v
		}
	}
	if e, ok := f["serviceName"]; ok {
		p := join(path, "serviceName")
		if v, ok := d.str(e.val, p); ok {
			switch {
			case s.WorkloadKind != sim.KindStatefulSet:
				d.errorf(e.key, p, "applies to kind StatefulSet only (a StatefulSet's spec.serviceName, its governing Service)")
			case len(v) > 63 || !dns1035Label.MatchString(v):
				d.errorf(e.val, p, "%q must be a DNS-1035 label (lowercase a-z, 0-9 and '-', starting with a letter, at most 63 characters), as a Service's name", v)
			default:
				s.ServiceName = v
			}
		}
	}
	if s.WorkloadKind == sim.KindStatefulSet {
		s.PodManagementPolicy = sim.PodManagementOrderedReady
	}
	if e, ok := f["podManagementPolicy"]; ok {
		p := join(path, "podManagementPolicy")
		if v, ok := d.enum(e.val, p, podPolicies); ok {
			if s.WorkloadKind != sim.KindStatefulSet {
				d.errorf(e.key, p, "applies to kind StatefulSet only (a StatefulSet's spec.podManagementPolicy)")
			} else {
				s.PodManagementPolicy = v
			}
		}
	}
	if e, ok := f["minReadySeconds"]; ok {
		p := join(path, "minReadySeconds")
		if v := d.resolve(e.val, p); v != nil && v.Kind == yaml.ScalarNode && v.ShortTag() == "!!int" {
			// upstream: apps/v1 DeploymentSpec.MinReadySeconds is an int32 of seconds.
			secs, _ := d.integer(v, p, 0, 86400)
			s.MinReady = time.Duration(secs) * time.Second
		} else if v, ok := d.durationIn(e.val, p, 0, 24*time.Hour); ok {
			if v%time.Second != 0 {
				// The API has no fraction of a second here: a controller would count a pod
				// available at a time no Deployment can ask for.
				d.errorf(e.val, p, "%v is not whole seconds: the API's minReadySeconds is an integer of seconds (use %v or %v)",
					v, v.Truncate(time.Second), v.Truncate(time.Second)+time.Second)
			}
			s.MinReady = v
		}
	}
	s.MaxSurge, s.MaxUnavailable = DefaultStrategy(s.WorkloadKind)
	d.strategy(n, f, path, &s.MaxSurge, &s.MaxUnavailable)
	if e, ok := f["maxSurge"]; ok && s.WorkloadKind == sim.KindStatefulSet && s.MaxSurge.Value != 0 {
		// upstream: apps/v1 RollingUpdateStatefulSetStrategy has maxUnavailable only; the
		// StatefulSet controller never runs more pods than replicas.
		d.errorf(e.val, join(path, "maxSurge"), "a StatefulSet never surges (its rolling update has maxUnavailable only): maxSurge must be 0 or left out")
	}
	if s.WorkloadKind == sim.KindDaemonSet && s.MaxSurge.Value != 0 && s.MaxUnavailable.Value != 0 {
		// upstream: pkg/apis/apps/validation ValidateRollingUpdateDaemonSet.
		at := n
		if e, ok := f["maxSurge"]; ok {
			at = e.val
		}
		d.errorf(at, join(path, "maxSurge"), "a DaemonSet's maxSurge and maxUnavailable may not both be non-zero (set maxUnavailable: 0 to surge)")
	}
	if e, ok := f["manualEndpoints"]; ok {
		p := join(path, "manualEndpoints")
		if v, ok := d.integer(e.val, p, 1, maxReplicas); ok {
			s.ManualEndpoints = int(v)
			// A selector-less Service has no workload: nothing to replicate or roll.
			for _, k := range []string{"replicas", "kind", "serviceName", "podManagementPolicy", "maxSurge", "maxUnavailable", "minReadySeconds"} {
				if g, ok := f[k]; ok {
					d.errorf(g.key, join(path, k), "does not apply to a service with manualEndpoints (no selector, no workload)")
				}
			}
			s.Replicas = 0
		}
	}
	if e, ok := f["timing"]; ok {
		d.timing(e.val, join(path, "timing"), &s.Timing)
	}
	return s, len(d.errs) == before
}

func (d *decoder) ports(n *yaml.Node, path string, headless bool) []sim.ServicePortConfig {
	items, ok := d.list(n, path, "ports")
	if !ok {
		return nil
	}
	if len(items) == 0 && !headless {
		// upstream: pkg/apis/core/validation ValidateService requires ports unless the
		// service is headless (clusterIP: None).
		d.errorf(n, path, "a service needs at least one port unless it is headless")
	}
	if len(items) > 100 {
		// upstream: an EndpointSlice holds at most 100 ports (discovery/v1 maxPorts).
		d.errorf(n, path, "%d ports is too many (at most 100)", len(items))
		return nil
	}
	var out []sim.ServicePortConfig
	names := map[string]bool{}
	for i, it := range items {
		p := index(path, i)
		f, ok := d.fields(it, p, portFields)
		if !ok {
			continue
		}
		port := sim.ServicePortConfig{Protocol: "TCP"}
		if e, ok := f["name"]; ok {
			if v, ok := d.str(e.val, join(p, "name")); ok {
				if len(v) > 63 || !dns1123Label.MatchString(v) {
					d.errorf(e.val, join(p, "name"), "%q must be a DNS label (lowercase a-z, 0-9 and '-', at most 63 characters)", v)
				} else if names[v] {
					d.errorf(e.val, join(p, "name"), "duplicate port name %q", v)
				}
				names[v] = true
				port.Name = v
			}
		} else if len(items) > 1 {
			// upstream: ValidateService, "must be specified when there is more than one port".
			d.missing(it, p, "name")
		}
		if e, ok := f["protocol"]; ok {
			port.Protocol, _ = d.enum(e.val, join(p, "protocol"), protocols)
		}
		if e, ok := f["port"]; ok {
			v, _ := d.integer(e.val, join(p, "port"), 1, 65535)
			port.Port = int32(v)
		} else {
			d.missing(it, p, "port")
		}
		port.TargetPort = port.Port
		if e, ok := f["targetPort"]; ok {
			v, _ := d.integer(e.val, join(p, "targetPort"), 1, 65535)
			port.TargetPort = int32(v)
		}
		if e, ok := f["appProtocol"]; ok {
			if v, ok := d.str(e.val, join(p, "appProtocol")); ok {
				if v == "" || len(v) > 316 {
					d.errorf(e.val, join(p, "appProtocol"), "must be 1..316 characters (a protocol name like http, h2c, kubernetes.io/ws)")
				}
				port.AppProtocol = v
			}
		}
		out = append(out, port)
	}
	return out
}

func (d *decoder) timing(n *yaml.Node, path string, t *sim.PodTiming) {
	f, ok := d.fields(n, path, timingFields)
	if !ok {
		return
	}
	for _, x := range []struct {
		name string
		dst  *sim.Distribution
	}{{"schedule", &t.Schedule}, {"start", &t.Start}, {"ready", &t.Ready}, {"stop", &t.Stop}, {"gracePeriod", &t.GracePeriod}} {
		if e, ok := f[x.name]; ok {
			if v, ok := d.distribution(e.val, join(path, x.name)); ok {
				*x.dst = v
			}
		}
	}
}

func (d *decoder) modes(n *yaml.Node, path string, cfg *sim.Config) {
	r := d.resolve(n, path)
	if r == nil {
		return
	}
	var names []string
	if r.Kind == yaml.SequenceNode {
		items, _ := d.list(r, path, "modes")
		if len(items) == 0 {
			d.errorf(r, path, "need at least one mode (endpoints, endpointslices)")
			return
		}
		for i, it := range items {
			if v, ok := d.enum(it, index(path, i), modeNames[1:]); ok {
				names = append(names, v)
			}
		}
	} else if v, ok := d.enum(r, path, modeNames); ok {
		names = []string{v}
	}
	if len(names) == 0 {
		return
	}
	cfg.RunEndpoints, cfg.RunEndpointSlices = false, false
	for _, v := range names {
		cfg.RunEndpoints = cfg.RunEndpoints || v == "both" || v == "endpoints"
		cfg.RunEndpointSlices = cfg.RunEndpointSlices || v == "both" || v == "endpointslices"
	}
}

// name decodes a scenario's or plan's name: 1..253 characters on one line.
func (d *decoder) name(n *yaml.Node) (string, bool) {
	v, ok := d.str(n, "name")
	if !ok {
		return "", false
	}
	if strings.TrimSpace(v) == "" || len(v) > 253 || strings.ContainsAny(v, "\n\r\t") {
		d.errorf(n, "name", "must be 1..253 characters on one line")
	}
	return v, true
}
