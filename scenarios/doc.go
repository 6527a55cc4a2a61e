// Package scenarios loads, validates and embeds epsim scenarios (YAML) and turns them into a
// sim.Config.
//
// It decodes and checks; it never runs a simulation, reads no clock and uses no randomness.
// Decoding is strict: the YAML is parsed into a yaml.Node tree and walked against the
// schema, so unknown fields (with a "did you mean" suggestion), wrong types, out-of-range
// values and missing required fields are all errors naming the file, line, column and field
// path, and every problem of a file is reported at once (as Errors):
//
//	scenarios/x.yaml:12:5: services[0].ports[1].port: 70000 out of range (1..65535)
//
// Defaults equal upstream Kubernetes defaults wherever upstream has one; defaults.go cites
// the source of each, and marks the assumptions (API latency, bandwidths, kubelet timing).
//
// # Usage
//
//	sc, cfg, err := scenarios.Load("5000-nodes", []string{"cluster.nodes=500"})
//	if err != nil {
//		return err // scenarios.Errors: one problem per line
//	}
//	res, err := sim.Run(cfg, nil)
//
// Load takes a path or the name of a shipped scenario (Names lists them); a file on disk wins.
// --set overrides ("path=value", the value in YAML) are applied to the YAML tree before
// validation, so they are checked like the file, and a problem they cause names the flag:
// cluster.nodes=500, services[0].replicas=2000, controlPlane.endpointSlice.batchPeriod=1s,
// expect["rolling-update.endpoints.fanoutBytes"].max=5GB.
//
// # Units
//
// Durations are Go durations ("30s", "1m30s", "500ms"). Byte sizes are integers or take SI
// (KB = 1000) or IEC (KiB = 1024) units ("1.5MiB"). Bandwidths end in bit, bit/s or bps
// (bits per second) or B/s (bytes per second, ×8) and are stored in bits per second; 0 or
// "unlimited" means no limit. maxSurge/maxUnavailable are integers or whole percentages.
// A delay distribution is a bare duration (fixed) or one of
// {fixed: 5s}, {uniform: {min: 1s, max: 3s}}, {lognormal: {median: 8s, p99: 40s}},
// {exponential: {mean: 2s}}.
//
// # Schema (lowerCamelCase; defaults in brackets)
//
//	name (required), description, seed [1]
//	cluster: nodes (required, 1..1e6), zones [zone-a, zone-b, zone-c], region [region-1],
//	    nodeNameFormat [ip-10-0-%d.ec2.internal], nodeMilliCPU [4000],
//	    maxPodsPerNode [110, 1..250] (the kubelet's maxPods; pods beyond stay Pending)
//	controlPlane: maxEndpointsPerSlice [100, 1..1000], endpointsTruncation [true],
//	    informerLag [20ms] (own writes reach the controller's cache after this),
//	    endpointsBuildPerPod [10µs] (Endpoints sync time per pod before its stale check),
//	    endpointSliceSyncPerPod [15µs] (EndpointSlice sync time per pod before its writes),
//	    podMapPerService [200ns] (pod queue time per Service of the pod's namespace),
//	    minResyncPeriod [12h] (informer resyncs every 1-2×; 0s: none),
//	    endpointSlice / endpoints: workers [5, 1..50], batchPeriod [0], qps [20], burst [30],
//	    apiLatency [fixed 5ms]
//	    workloads: the pod churn's pace: replicaSet / deployment / statefulSet / daemonSet:
//	    workers [5; daemonSet 2], qps [20], burst [30], apiLatency [fixed 5ms] (each KCM
//	    controller has its own client);
//	    burstReplicas [500]; scheduler: qps [50], burst [100]; podCreateFailureRate [0].
//	    Raise the limits (e.g. qps 1e6, burst 1e6) for churn as fast as the pods allow.
//	apiServer: replicas [1], kubeProxyEncoding [protobuf | json], objectSizeLimit [1.5MiB],
//	    egressBandwidth [10Gbit], watchers: [{name, count [1], resources: [endpointslices,
//	    endpoints], encoding [protobuf], includeHeadless [false]}],
//	    costs: {encodeProtobufNanosPerByte [2.0], encodeJSONNanosPerByte [3.9],
//	    tlsNanosPerByte [0.23], gzipNanosPerByte [7.5], perEventNanos [5000]} (watch-path CPU;
//	    sim.DefaultAPIServerCosts)
//	network: enabled [true], nodeIngressBandwidth [1Gbit], transportOverhead [true],
//	  listCompressionRatio [measured | 0.01..1] (compressed/uncompressed size of a relist)
//	kubeProxy: mode [iptables | nftables | ipvs] (sets the cost defaults of that backend),
//	    minSyncPeriod [1s], syncPeriod [30s] (>= minSyncPeriod), cpu [1] (cores),
//	    costs: {syncBase [10ms], walkNanosPerServicePort [0; nftables 12000],
//	    generateNanosPerRule [16770; nftables 923], writeNanosPerRule [18351; ipvs 10000],
//	    rulesPerServicePort [3; ipvs 2], rulesPerEndpoint [4; ipvs 1; nftables 1],
//	    decodeProtobufNanosPerByte [7.3], decodeJSONNanosPerByte [30.5]}
//	    (sources: sim.DefaultKubeProxy)
//	services (required, at least one): name (required), namespace [default], count [1],
//	    namespaces [1] (spreads the copies over NAMESPACE-0 …, round robin), replicas [1], ports [{port: 80}]: {name, protocol [TCP], port, targetPort [= port],
//	    appProtocol}, ipFamilies [IPv4], headless, publishNotReadyAddresses,
//	    trafficDistribution, topologyMode, labels, minReadySeconds (seconds or a duration),
//	    timing: {schedule, start, ready, stop, gracePeriod} (see DefaultPodTiming),
//	    kind [Deployment | StatefulSet | DaemonSet] (StatefulSet: updated from the highest
//	    ordinal; DaemonSet: one pod per node, replicas ignored),
//	    serviceName [the Service's name] (StatefulSet only: its pods' subdomain; the
//	    Service of that name gives its endpoints the pods' hostnames),
//	    podManagementPolicy [OrderedReady | Parallel] (StatefulSet only: one pod at a
//	    time, or all at once)
//	timeline (required, at least one): {name (required, unique), action, services, settle,
//	    and per action: rollout maxSurge/maxUnavailable [25%/25%]; scale replicas or
//	    percent (of each Service's configured replicas, or manualEndpoints); restartPods pods [1];
//	    flipReadiness pods [1], notReadyFor; failNodes/drainNodes nodes or zone;
//	    failNodes duration (the nodes come back after it); drainNodes waves (with spread);
//	    labelService labels; wait duration; rollout, scale, restartPods spread and curve
//	    [uniform | diurnal]}
//	modes [both]: both | endpoints | endpointslices, or a list
//	guards: maxEvents [50,000,000], endTime [24h], maxMemory [3/4 of the memory the
//	    process may use: the machine's, or less under a cgroup limit, RLIMIT_AS or
//	    GOMEMLIMIT] (a scenario whose estimated memory, EstimateMemory, is over it is refused)
//	slo [30s]
//	expect: {"phase.mode.figure": {max, min}} (see Expect)
//
// # Conventions the engine relies on
//
//   - A service entry with count N > 1 stands for N services named name-0 … name-(N-1)
//     (StampName); with count 1 the name is used as is.
//   - An action's services name entries (the base name selects every stamped copy) or single
//     copies (name-3); an empty list means every service. An action naming several services
//     acts on all of them at once (concurrent rollouts).
//   - Every action other than failNodes, drainNodes and wait must come after a create
//     action that created its services.
//   - flipReadiness with notReadyFor 0 (the default) leaves the endpoints not-ready for the
//     rest of the run (until their pods are replaced); with notReadyFor > 0 they turn ready
//     again after that long.
//   - Limits are checked on what the whole timeline reaches: pods after every scale action
//     (at most 10,000,000), watchers per mode (cluster.nodes plus every watcher group's
//     count, at most 10,000,000), at most 10,000 actions; restartPods and flipReadiness ask
//     for no more pods than a service has at that point, as failNodes for nodes.
//   - spread starts a rollout, scale or restartPods on its Services one after another over
//     that window instead of all at once: at the quantiles of the curve (uniform, or diurnal:
//     density 1 − 0.8·cos(2π·t/spread), quiet at the window's ends and five times busier in
//     its middle), handed out in a stride order that mixes the stamped copies of an entry.
//     The phase lasts until the last start's work has settled.
//   - drainNodes with waves and spread drains its nodes (nodes: N takes the first N that
//     host pods, zone a whole zone) in that many equal waves started evenly over spread; a
//     wave's nodes are schedulable again (upgraded) when the next wave starts: a node-pool
//     upgrade.
//   - failNodes with duration brings the nodes back after it: before the 50 s grace period
//     nothing reaches the endpoints; after it their pods went not ready and turn ready again;
//     after the 300 s toleration they were evicted. A zone blip is failNodes of a zone for a
//     minute or two.
//   - Action names are phase names: lowercase DNS labels, so that expect keys
//     "phase.mode.figure" split on dots; "total" is reserved for the sum of all phases.
package scenarios
