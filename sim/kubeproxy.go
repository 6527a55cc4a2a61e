package sim

import (
	"math"
	"slices"
	"time"

	"epsim/model"
)

// KubeProxyMode names kube-proxy's data-plane backend.
type KubeProxyMode string

// The backends kube-proxy has on Linux (upstream: pkg/proxy/iptables, nftables, ipvs).
const (
	KubeProxyIPTables KubeProxyMode = "iptables"
	KubeProxyNFTables KubeProxyMode = "nftables"
	KubeProxyIPVS     KubeProxyMode = "ipvs"
)

// fullSyncPeriod is how long iptables and nftables go between periodic full syncs; it is
// also the runner's maxInterval for both. upstream: pkg/proxy/util/utils.go FullSyncPeriod.
const fullSyncPeriod = time.Hour

// largeClusterEndpointsThreshold: above this many endpoints the iptables backend stops its
// hourly full syncs. upstream: iptables/proxier.go largeClusterEndpointsThreshold.
const largeClusterEndpointsThreshold = 1000

// KubeProxyConfig is the kube-proxy every node runs.
type KubeProxyConfig struct {
	// Mode is the backend: iptables (the default), nftables or ipvs.
	Mode KubeProxyMode
	// MinSyncPeriod is the runner's minInterval: the least time from the end of one sync to
	// the start of the next (upstream default 1 s).
	MinSyncPeriod time.Duration
	// SyncPeriod is the ipvs backend's periodic resync (the runner's maxInterval there) and
	// the iptables/nftables retry interval (upstream default 30 s).
	SyncPeriod time.Duration
	// CPU is the cores kube-proxy may use; a sync and a decode are single-threaded, so they
	// run at min(CPU, 1) of one core.
	CPU float64
	// Costs are the per-item CPU costs of a sync and of decoding.
	Costs KubeProxyCosts
}

// KubeProxyCosts is the CPU cost model of one kube-proxy, on one reference core. A sync
// costs SyncBase + WalkNanosPerServicePort × (every Service port) + GenerateNanosPerRule ×
// (rules generated) + WriteNanosPerRule × (rules handed to the kernel); a Service port has
// RulesPerServicePort rules and each of its endpoints RulesPerEndpoint (for iptables, a
// served port without endpoints has one filter rule, written on every sync). iptables and
// ipvs generate every Service's rules on every sync, nftables only those it writes (a
// partial sync skips the unchanged Services). Sources are in DefaultKubeProxy.
type KubeProxyCosts struct {
	SyncBase             time.Duration
	GenerateNanosPerRule float64
	WriteNanosPerRule    float64
	RulesPerServicePort  float64
	RulesPerEndpoint     float64
	// WalkNanosPerServicePort is each sync's pass over every Service port apart from
	// generating rules (nftables: categorizing endpoints, checking set elements).
	WalkNanosPerServicePort float64
	// DecodeProtobufNanosPerByte and DecodeJSONNanosPerByte are the informer's decode cost
	// of a received watch event.
	DecodeProtobufNanosPerByte float64
	DecodeJSONNanosPerByte     float64
}

// Measured with the real apimachinery v0.37.2 serializers on 100-endpoint EndpointSlices
// (sim/kubeproxy_calibration_test.go, `go test ./sim -run TestCalibrateCodecCosts -v
// -calibrate`; one run on the 2-core development machine).
const (
	measuredDecodeProtobufNanosPerByte = 7.3
	measuredDecodeJSONNanosPerByte     = 30.5
	measuredEncodeProtobufNanosPerByte = 2.0
	measuredEncodeJSONNanosPerByte     = 3.9
	measuredTLSNanosPerByte            = 0.23
	measuredGzipNanosPerByte           = 7.5
)

// Published measurements the iptables cost defaults are derived from (DefaultKubeProxy).
const (
	// kubernetes/kubernetes#96018: `time iptables-restore` of a 695,992-line ruleset (a
	// cluster with tens of thousands of Services, iptables-nft) took 12.772 s (real).
	restoreMeasuredLines   = 695_992
	restoreMeasuredSeconds = 12.772
	// openshift/sdn#403 (the KEP-3453 prototype): mean syncProxyRules time on one node of an
	// e2e run, 219.677 ms writing every rule and 104.894 ms writing only the changed ones.
	fullSyncMeasuredMillis    = 219.677
	partialSyncMeasuredMillis = 104.894
	// The v1.37.2 nftables proxier's syncProxyRules with its fake backend (its Go work; no
	// nft), 10,000 ClusterIP Services of one port and 10 endpoints each, on the 2-core
	// development machine (a test in upstream's pkg/proxy/nftables, 2026-12-04): a full sync
	// over a programmed table took 210–270 ms, a partial one with one endpoint changed
	// 100–140 ms, as long as one with no change. The midpoints are taken.
	nftMeasuredServicePorts   = 10_000
	nftMeasuredEndpoints      = 10
	nftFullSyncMeasuredMillis = 240
	nftPartialMeasuredMillis  = 120
)

// nftRulesPerServicePort and nftRulesPerEndpoint are what nftables writes for a ClusterIP
// Service port: its service chain added and flushed and one DNAT rule, with a numgen map of
// one entry per endpoint (no per-endpoint chains without session affinity).
// upstream: nftables/proxier.go syncProxyRules, writeServiceToEndpointDNATs.
const (
	nftRulesPerServicePort = 3
	nftRulesPerEndpoint    = 1
)

// derivedNFTWalkNanosPerServicePort is the nftables partial sync's cost per Service port:
// the sync measured walks every Service and writes one's rules (about 12 µs a port).
func derivedNFTWalkNanosPerServicePort() float64 {
	return math.Round(nftPartialMeasuredMillis * 1e6 / nftMeasuredServicePorts)
}

// derivedNFTGenerateNanosPerRule is the nftables cost of generating one rule: what the
// measured full sync spent beyond the partial one's walk, per rule it generated (about
// 0.9 µs).
func derivedNFTGenerateNanosPerRule() float64 {
	rules := nftMeasuredServicePorts * (nftRulesPerServicePort + nftRulesPerEndpoint*nftMeasuredEndpoints)
	return math.Round((nftFullSyncMeasuredMillis - nftPartialMeasuredMillis) * 1e6 / float64(rules))
}

// measuredWriteNanosPerRule is the iptables-restore cost of one rule (#96018): about 18 µs.
func measuredWriteNanosPerRule() float64 {
	return math.Round(restoreMeasuredSeconds * 1e9 / restoreMeasuredLines)
}

// derivedGenerateNanosPerRule is the cost of generating one rule in Go. A full sync costs
// (generate + write) × rules and a partial one, writing next to nothing, generate × rules,
// so generate = write × partial / (full − partial) (openshift/sdn#403): about 17 µs.
func derivedGenerateNanosPerRule() float64 {
	return math.Round(measuredWriteNanosPerRule() * partialSyncMeasuredMillis / (fullSyncMeasuredMillis - partialSyncMeasuredMillis))
}

// DefaultKubeProxy returns kube-proxy's upstream defaults for mode and the cost model's
// defaults, with their sources:
//
//   - minSyncPeriod 1 s (ipvs 0), syncPeriod 30 s: upstream
//     pkg/proxy/apis/config/v1alpha1/defaults.go, which sets no default for
//     ipvs.minSyncPeriod, so a configuration file naming mode ipvs (as kubeadm writes) runs
//     with 0: every change synced as soon as the last sync ends. (The deprecated
//     --ipvs-min-sync-period flag defaults to 1 s.)
//   - iptables write cost per rule, measured: restoreMeasuredLines in restoreMeasuredSeconds
//     (kubernetes/kubernetes#96018, iptables-nft).
//   - generation cost per rule, derived from openshift/sdn#403's full and partial sync times
//     (derivedGenerateNanosPerRule); it assumes that e2e run's partial syncs wrote few rules.
//   - rules: iptables writes about 3 lines per ClusterIP Service port (KUBE-SERVICES jump,
//     KUBE-SVC chain and its masquerade rule) and 4 per endpoint (the KUBE-SVC jump, the
//     KUBE-SEP chain, its hairpin masquerade and DNAT rules): iptables/proxier.go
//     syncProxyRules. nftables: below. ipvs writes one virtual server and one ipset entry
//     per port, one real server per endpoint.
//   - nftables: 3 rules per Service port and 1 per endpoint (nftRulesPerServicePort);
//     every sync walks every Service port (12 µs each) but generates and writes only the
//     changed Services' rules in a partial sync (skipServiceUpdate), and has no
//     KUBE-SERVICES: its dispatch is one verdict map's elements. The walk and generation
//     costs are derived from upstream's proxier with its fake backend
//     (nftFullSyncMeasuredMillis), which leaves out the kernel: the write cost is
//     iptables-restore's, an ASSUMPTION (nft's per-operation cost is not measured). A
//     partial sync at 10,000 Services costs about 0.13 s, in line with
//     kubernetes/kubernetes#126013 (a Service added beside 10,000: about 141 ms). A full
//     sync of 1.36.1 took 16m44s at 44,125 Services (#139513), mostly listing the table,
//     which 1.37 does over netlink; a full sync's listing is not modelled, nor the list of
//     every chain and set name that begins every sync (syncProxyRules nftables.List).
//   - ipvs: every sync walks every Service (generation) but sends the kernel only the
//     differences; 10 µs per written rule is an ASSUMPTION (one netlink request each).
//   - sync base 10 ms: ASSUMPTION (a sync's fixed work: locks, metrics, health checks).
//   - decode: measured (above).
func DefaultKubeProxy(mode KubeProxyMode) KubeProxyConfig {
	c := KubeProxyConfig{
		Mode:          mode,
		MinSyncPeriod: time.Second,
		SyncPeriod:    30 * time.Second,
		CPU:           1,
		Costs: KubeProxyCosts{
			SyncBase:                   10 * time.Millisecond,
			GenerateNanosPerRule:       derivedGenerateNanosPerRule(),
			WriteNanosPerRule:          measuredWriteNanosPerRule(),
			RulesPerServicePort:        3,
			RulesPerEndpoint:           4,
			DecodeProtobufNanosPerByte: measuredDecodeProtobufNanosPerByte,
			DecodeJSONNanosPerByte:     measuredDecodeJSONNanosPerByte,
		},
	}
	switch mode {
	case KubeProxyIPVS:
		c.MinSyncPeriod = 0
		c.Costs.WriteNanosPerRule = 10_000
		c.Costs.RulesPerServicePort = 2
		c.Costs.RulesPerEndpoint = 1
	case KubeProxyNFTables:
		c.Costs.WalkNanosPerServicePort = derivedNFTWalkNanosPerServicePort()
		c.Costs.GenerateNanosPerRule = derivedNFTGenerateNanosPerRule()
		c.Costs.RulesPerServicePort = nftRulesPerServicePort
		c.Costs.RulesPerEndpoint = nftRulesPerEndpoint
	}
	return c
}

// DefaultKubeProxyCosts returns the iptables backend's cost defaults (DefaultKubeProxy).
func DefaultKubeProxyCosts() KubeProxyCosts { return DefaultKubeProxy(KubeProxyIPTables).Costs }

// APIServerCosts is the API server's CPU cost model of the watch path, on one core: each
// object is serialized once per encoding (the watch cache's cachingObject shares it between
// watchers), each event to each watcher costs PerEventNanos (its goroutine, HTTP/2 frame and
// write) plus TLSNanosPerByte of its bytes, and a relist is serialized per request and
// gzipped (GzipNanosPerByte of its bytes before compression).
type APIServerCosts struct {
	EncodeProtobufNanosPerByte float64
	EncodeJSONNanosPerByte     float64
	TLSNanosPerByte            float64
	GzipNanosPerByte           float64
	PerEventNanos              float64
}

// DefaultAPIServerCosts returns the measured encode and TLS (AES-128-GCM seal) costs
// (sim/kubeproxy_calibration_test.go) and an ASSUMED 5 µs per event and watcher.
func DefaultAPIServerCosts() APIServerCosts {
	return APIServerCosts{
		EncodeProtobufNanosPerByte: measuredEncodeProtobufNanosPerByte,
		EncodeJSONNanosPerByte:     measuredEncodeJSONNanosPerByte,
		TLSNanosPerByte:            measuredTLSNanosPerByte,
		GzipNanosPerByte:           measuredGzipNanosPerByte,
		PerEventNanos:              5_000,
	}
}

// kubeProxyChange is one received object change waiting in the change tracker.
type kubeProxyChange struct {
	arrived Time // decoded and in the change tracker
	phase   int  // phase of the write, for attribution
	svc     int
	// trigger is the object's last-change-trigger-time annotation (hasTrigger false: none,
	// or a DELETED event, which clears the Service's pending trigger times upstream). The
	// kube-proxy is taken to have started before the run, so every annotation is newer than
	// its tracker's start (upstream: EndpointSliceUpdate's trackerStartTime check).
	trigger    Time
	hasTrigger bool
	// delivered is when the watch event reached the node (for the property test).
	delivered Time
	// endpointDelta changes the Service's count of ready endpoints when applied,
	// fallbackDelta its count of serving and terminating ones, allDelta its count of all,
	// hintsDelta its counts of ready ones with topology hints.
	endpointDelta, fallbackDelta, allDelta int
	hintsDelta                             topologyHints
	// readyKey is, for an Endpoints object (the Endpoints mode), the key of the endpoints
	// map a kube-proxy that watches Endpoints builds of it (model.EndpointsProxyKey); gen is
	// the Service's legacyService.gen when the change came in (see trackLegacy).
	readyKey uint64
	gen      int32
	// unserved says the object is of a Service kube-proxy does not serve (one with a
	// service-proxy-name label, whose slices it still receives: proxySelection): when
	// applied, the Service's endpoints stop counting in the rules, until a change of a
	// served object of it.
	unserved bool
	// service says the change is of the Service object itself (serviceEvent), which the
	// Service change tracker holds: it carries no endpoints and no trigger time, and the
	// Endpoints change tracker never drops it.
	service bool
	// portsDelta, when the object gives its endpoints by port (objectEndpoints.byPort)
	// before or after the change, changes the Service's counts by port.
	portsDelta []objectEndpoints
}

// changes sets c's deltas: what an object's counts now are less what they were.
func (c *kubeProxyChange) changes(now, was objectEndpoints) {
	c.endpointDelta, c.fallbackDelta, c.allDelta = int(now.ready-was.ready), int(now.fallback-was.fallback), int(now.all-was.all)
	c.hintsDelta = now.hints.plus(was.hints, -1)
	if now.byPort != nil || was.byPort != nil {
		c.portsDelta = byPortDelta(now.byPort, was.byPort)
	}
}

// legacyService is what the change tracker of a kube-proxy that watches Endpoints (before
// 1.19) keeps of one Service: the key of its endpoints map as last received, and, while it
// has a pending change, the key that change started from (the map as of the last sync).
// upstream (v1.18): pkg/proxy/endpoints.go EndpointChangeTracker (items, previous, current).
type legacyService struct {
	seen, from uint64
	// gen counts the Service's dropped changes: a pending change of an older gen was
	// dropped (trackLegacy).
	gen                    int32
	seenExists, fromExists bool
	pending                bool
}

// kubeProxySync is one sync the representative kube-proxy ran.
type kubeProxySync struct {
	start, end Time
	cpu        Time
	full       bool
	phase      int // -1: periodic, attributed by start time
}

// runnerState is where kube-proxy's BoundedFrequencyRunner loop is.
type runnerState uint8

const (
	runnerIdle    runnerState = iota // waiting in select for a Run() or the maxInterval timer
	runnerSyncing                    // fn is running
	runnerCooling                    // after fn, waiting out minInterval
)

// kubeProxy is one proxier (of one IP family: see kubeProxyNode) of the representative
// kube-proxy of one mode, standing for every healthy node, so that cost stays O(1) in
// nodes. The approximation, precisely: every node's kube-proxy receives the same events
// (they all select the same objects) at the one delivery time the network model computes
// per write — when the last watcher of the busiest API server replica
// (⌈watchers/replicas⌉ of them sharing its egress) has it through its node's ingress queue
// (network.deliver). Nodes served by a less loaded replica in fact get it earlier, by at most
// one watcher's share of that replica's transfer time; and real kube-proxies' sync loops are
// out of phase with each other, which spreads programming times over up to minSyncPeriod
// plus a sync, where here every node's loop runs in step. So the figures are those of the
// last-served node, and cluster-wide CPU is per-node CPU × nodes.
//
// It is advanced lazily: changes reach it in time order (delivery times never decrease), so
// the runner's state up to a change's arrival is settled when the change comes in, and it
// queues no events (phases end, and the engine's event count stays, as without it).
type kubeProxy struct {
	cfg      KubeProxyConfig
	cpuScale float64 // 1 / min(CPU, 1)
	// dec is the process's informer, which the proxiers of a node share.
	dec *kubeProxyDecoder

	state   runnerState
	signal  bool // a buffered Run() (the runner's channel of capacity 1)
	syncEnd Time // when the running sync ends (runnerSyncing)
	coolEnd Time // when minInterval has passed (runnerCooling)
	// lastEnd is when the last sync ended (the maxInterval timer's start) and lastFull when
	// the last full sync ended. kube-proxy is taken to have started at time 0 with no Service
	// of the scenario, its initial full sync done then (upstream: OnEndpointSlicesSynced
	// syncs at once, needFullSync being true from NewProxier): so the first sync of a run is
	// partial, and the periodic timers run from time 0.
	lastEnd  Time
	lastFull Time
	// largeCluster is largeClusterMode as the last sync set it: more than
	// largeClusterEndpointsThreshold endpoints (ready or not, per Service port).
	largeCluster bool

	// legacy is set for a kube-proxy that watches Endpoints (the Endpoints mode): its
	// change tracker drops an update that leaves a Service's endpoints map as it was at the
	// last sync (trackLegacy). legacyServices holds its record of each Service, and
	// legacyPending counts the Services with a pending change.
	legacy         bool
	legacyServices []legacyService
	legacyPending  int

	// clock is the latest time the loop was advanced to (advance): a change that comes in
	// by another way than the endpoints informer (serviceEvent) is taken no earlier.
	clock Time

	// pending and inFlight trade arrays at each sync (startSync), and one that grew past
	// proxyChangesKeep is let go when its sync ends (finishSync).
	pending  []kubeProxyChange // received, not yet checked out
	inFlight []kubeProxyChange // checked out by the running sync
	current  kubeProxySync

	// services holds what the proxier knows of each Service, by index; expected is how
	// many Services the engine has, for which the first Service makes room at once.
	services     []proxyService
	expected     int
	servicePorts int // Service ports with endpoints known
	// walkPorts is every served Service port the proxier knows, with endpoints or not: its
	// service map (svcPortMap), which every sync walks (WalkNanosPerServicePort).
	walkPorts int
	// portEndpoints is Σ endpoints × ports over the Services with endpoints known: like
	// servicePorts, kept as the Services' counts and ports change, not summed over every
	// Service at every sync (a cluster of 50,000 Services syncs many thousand times).
	portEndpoints int
	// allPortEndpoints is the same for every endpoint, ready or not: the iptables
	// proxier's endpointsMap, whose size decides largeClusterMode (a kube-proxy of
	// Endpoints maps the ready addresses only: committed.proxyEndpoints).
	allPortEndpoints int
	syncSeq          int32
	// hints holds the hint counts of the Services that have some (proxyService.hinted): few
	// do, and the others need not carry them.
	hints map[int]topologyHints
	// byPort holds, for the Services some of whose objects give their endpoints by port
	// (proxyService.partial), those objects' counts summed for each port.
	byPort map[int][]objectEndpoints

	syncs []kubeProxySync
	// latency holds, per phase of the write, each change's network programming latency
	// (programmed − trigger), as runs of equal values: a run programs millions of changes.
	latency []sampleRuns
	// misordered counts changes programmed before they were delivered or delivered before
	// their trigger time (never, unless the loop is wrong).
	misordered int
}

// proxyService is what a proxier keeps of one Service: 56 bytes, in one array for every
// Service of the run (a run may have tens of thousands).
type proxyService struct {
	// objects holds its objects' endpoint counts as kube-proxy last saw them.
	objects seenObjects
	// endpoints counts its ready endpoints, fallback those serving and terminating (the
	// ones programmed when it has no ready endpoint: programmed), all every endpoint.
	endpoints, fallback, all int32
	// ports is its port count (one for a Service without ports).
	ports int32
	// stamp is the last sync (syncSeq) that counted it as changed.
	stamp int32
	// unserved is the last applied change's (kubeProxyChange.unserved): the proxier has no
	// such Service in its service map, so it writes no rule for its endpoints, which the
	// totals leave out. upstream: iptables/proxier.go syncProxyRules walks svcPortMap, filled
	// by the Service informer, which selects !service.kubernetes.io/service-proxy-name.
	unserved bool
	// hinted says some of its ready endpoints have topology hints: kubeProxy.hints has
	// its counts.
	hinted bool
	// known says a change of it was applied: the proxier has it in its service map (when
	// served) from then on, even with no endpoints left, and walks it on every sync.
	known bool
	// partial says some of its objects list only some of its ports: kubeProxy.byPort has
	// their counts, port by port.
	partial bool
}

// serviceCheckout is, for a sync that checks out a change of a Service object, the
// Service's state before the sync's changes, and whether one of them is of an endpoints
// object (startSync).
type serviceCheckout struct{ wasKnown, wasUnserved, objectChanged bool }

// objectEndpoints is an object's count of ready endpoints, of serving and terminating ones
// (never ready: a terminating endpoint is not ready), and of all its endpoints; and of its
// ready ones, their topology hints: each of them for every port of the Service.
//
// An object that does not give every port of the Service the same endpoints (a slice that
// lists only some of the ports, as for pods that lack a named targetPort; an Endpoints
// object whose subsets list different ports) has them by port instead: byPort[j] for the
// Service's port j, and the counts above zero. kube-proxy reads an object's endpoints as
// those of each port it lists, by name and protocol, that has a port number.
// upstream: pkg/proxy/endpointslicecache.go endpointInfoByServicePort (nil and 0 ports
// ignored); pkg/proxy/endpoints.go (v1.18) endpointsToEndpointsMap. (Ports past a Service's
// 64th are taken as listed: unlistedSlicePorts's mask has 64 bits.)
type objectEndpoints struct {
	ready, fallback, all int32
	hints                topologyHints
	byPort               []objectEndpoints
}

// plus returns o's counts with sign times p's added (byPort aside).
func (o objectEndpoints) plus(p objectEndpoints, sign int32) objectEndpoints {
	return objectEndpoints{ready: o.ready + sign*p.ready, fallback: o.fallback + sign*p.fallback,
		all: o.all + sign*p.all, hints: o.hints.plus(p.hints, sign)}
}

// counted reports whether o counts any endpoint or hint (byPort aside).
func (o objectEndpoints) counted() bool {
	return o.ready != 0 || o.fallback != 0 || o.all != 0 || o.hints != (topologyHints{})
}

// byPortDelta returns, port by port, the counts of now less those of was (objects that
// give their endpoints by port; nil for none).
func byPortDelta(now, was []objectEndpoints) []objectEndpoints {
	d := make([]objectEndpoints, max(len(now), len(was)))
	for j := range d {
		if j < len(now) {
			d[j] = d[j].plus(now[j], 1)
		}
		if j < len(was) {
			d[j] = d[j].plus(was[j], -1)
		}
	}
	return d
}

// forPorts returns counts as an object that gives them to the ports of a Service of ports
// ports but the unlisted ones (bit j: port j; see unlistedSlicePorts).
func (o objectEndpoints) forPorts(unlisted uint64, ports int) objectEndpoints {
	if unlisted == 0 {
		return o
	}
	out := objectEndpoints{byPort: make([]objectEndpoints, ports)}
	for j := range out.byPort {
		if j >= 64 || unlisted&(1<<j) == 0 {
			out.byPort[j] = objectEndpoints{ready: o.ready, fallback: o.fallback, all: o.all, hints: o.hints}
		}
	}
	return out
}

// topologyHints counts ready endpoints with zone hints, those hinted for the zone of the
// node kube-proxy runs on, and the same for node hints.
type topologyHints struct{ zoneHinted, forZone, nodeHinted, forNode int32 }

// plus returns h with sign times o added.
func (h topologyHints) plus(o topologyHints, sign int32) topologyHints {
	return topologyHints{h.zoneHinted + sign*o.zoneHinted, h.forZone + sign*o.forZone,
		h.nodeHinted + sign*o.nodeHinted, h.forNode + sign*o.forNode}
}

// narrowed returns how many of ready endpoints with hints h a node's kube-proxy programs:
// when every one has a node hint and some are hinted for the node, those (PreferSameNode);
// else when every one has a zone hint and some are hinted for the node's zone, those
// (PreferSameZone); else all of them.
// upstream: pkg/proxy/topology.go topologyModeFromHints, availableForTopology.
func (h topologyHints) narrowed(ready int32) int32 {
	switch {
	case h.nodeHinted == ready && h.forNode > 0:
		return h.forNode
	case h.zoneHinted == ready && h.forZone > 0:
		return h.forZone
	}
	return ready
}

// proxyPlace is the node a representative kube-proxy stands for: its name and zone; and,
// for the endpoints of a Service of internal traffic policy Local, localOnly (only those on
// that node count: proxyCounts).
type proxyPlace struct {
	node, zone string
	localOnly  bool
}

// representativeNode returns the place of the node the representative kube-proxies stand
// for, which stands for the healthy nodes: the last of nodes not in a zone an action of
// timeline fails or drains (failNodes and drainNodes with a count take the first nodes).
// Of a Service's endpoints with hints, it programs those hinted for it: a Service of fewer
// pods than nodes has none on most nodes, and each zone that stays up is hinted about as
// many endpoints as another (the hints are spread by the zones' CPU), while a zone that
// failed is hinted none.
func representativeNode(nodes []*model.Node, timeline []Action) proxyPlace {
	lost := map[string]bool{}
	for _, a := range timeline {
		if (a.Kind == ActionFailNodes || a.Kind == ActionDrainNodes) && a.Zone != "" {
			lost[a.Zone] = true
		}
	}
	for i := len(nodes) - 1; i >= 0; i-- {
		if n := nodes[i]; !lost[n.Zone] || i == 0 {
			return proxyPlace{node: n.Name, zone: n.Zone}
		}
	}
	return proxyPlace{}
}

// kubeProxyDecoder is a kube-proxy process's informer: it decodes every watch event it
// receives, one at a time in arrival order, whichever proxier the object is for.
type kubeProxyDecoder struct {
	busy Time   // when the last decode ends
	cpu  []Time // decode CPU per phase
}

// newProxier returns a proxier whose informer is dec (one latency log per phase of dec's),
// of a kube-proxy that watches Endpoints when legacy.
func newProxier(cfg KubeProxyConfig, dec *kubeProxyDecoder, services int, legacy bool) *kubeProxy {
	return &kubeProxy{
		legacy:   legacy,
		cfg:      cfg,
		expected: services,
		cpuScale: 1 / math.Min(math.Max(cfg.CPU, 1e-3), 1),
		dec:      dec,
		latency:  make([]sampleRuns, len(dec.cpu)),
	}
}

// kubeProxyNode is the representative node's kube-proxy process: one informer and a
// proxier per IP family, each with its own sync loop, change tracker and rules. Upstream
// runs it so on every node that supports both families (cmd/kube-proxy/app/server_linux.go
// platformCheckSupported and createProxier → NewDualStackProxier), and the metaproxier
// hands each EndpointSlice to the proxier of its address type (pkg/proxy/metaproxier).
// A proxier is made at the first object for its family: the proxier of a family no object
// of the run is for would only run its periodic syncs of an empty rule set, which are left
// out.
type kubeProxyNode struct {
	cfg      KubeProxyConfig
	dec      *kubeProxyDecoder
	families [2]*kubeProxy // by family index: IPv4, IPv6
	services int           // the engine's Services, for its proxiers to make room for
	legacy   bool          // it watches Endpoints (the Endpoints mode)
}

// newKubeProxyNode returns the kube-proxy of a run of phases phases and (at its start)
// services Services, one that watches Endpoints (before 1.19) when legacy.
func newKubeProxyNode(cfg KubeProxyConfig, phases, services int, legacy bool) *kubeProxyNode {
	return &kubeProxyNode{cfg: cfg, dec: &kubeProxyDecoder{cpu: make([]Time, phases)}, services: services, legacy: legacy}
}

// proxier returns the proxier of family i (0 IPv4, 1 IPv6), made now if need be.
func (n *kubeProxyNode) proxier(i int) *kubeProxy {
	if n.families[i] == nil {
		n.families[i] = newProxier(n.cfg, n.dec, n.services, n.legacy)
	}
	return n.families[i]
}

// proxiers returns the proxiers made, IPv4's first.
func (n *kubeProxyNode) proxiers() []*kubeProxy {
	var out []*kubeProxy
	for _, k := range n.families {
		if k != nil {
			out = append(out, k)
		}
	}
	return out
}

// service makes room for Service index i with ports Service ports. The first call makes
// room for every Service the engine has (services, when more than i).
func (k *kubeProxy) service(i, ports int) {
	if len(k.services) <= i {
		n := max(i+1, k.expected)
		k.services = slices.Grow(k.services, n-len(k.services))
		for len(k.services) < n {
			k.services = append(k.services, proxyService{ports: 1})
		}
	}
	if p := int32(max(ports, 1)); p != k.services[i].ports {
		k.counted(i, -1)
		k.services[i].ports = p
		k.counted(i, 1)
	}
}

// counted adds sign times Service i's part to the totals startSync reads: its ports once
// known, its ports with endpoints programmed and Σ endpoints programmed over its ports,
// Σ endpoints of any kind over its ports. An unserved Service has no part.
func (k *kubeProxy) counted(i, sign int) {
	sv := &k.services[i]
	if sv.unserved {
		return
	}
	p := int(sv.ports)
	if sv.known {
		k.walkPorts += sign * p
	}
	if sv.partial {
		ports, programmed, all := k.portTotals(i)
		k.servicePorts += sign * ports
		k.portEndpoints += sign * programmed
		k.allPortEndpoints += sign * all
		return
	}
	if n := k.programmed(i); n > 0 {
		k.servicePorts += sign * p
		k.portEndpoints += sign * n * p
	}
	if n := int(sv.all); n > 0 {
		k.allPortEndpoints += sign * n * p
	}
}

// portTotals returns, over Service i's ports, how many have endpoints programmed, the sum
// of the endpoints programmed (programmedPort) and the sum of its endpoints of any kind.
func (k *kubeProxy) portTotals(i int) (ports, programmed, all int) {
	sv := &k.services[i]
	p := int(sv.ports)
	if !sv.partial {
		if n := k.programmed(i); n > 0 {
			ports, programmed = p, n*p
		}
		return ports, programmed, max(int(sv.all), 0) * p
	}
	for j := range p {
		n, a := k.programmedPort(i, j)
		if n > 0 {
			ports++
			programmed += n
		}
		all += max(a, 0)
	}
	return ports, programmed, all
}

// programmed is how many endpoints the proxier writes rules for for each port of Service
// i, whose objects all list every port (proxyService.partial false): programmedOf, from
// the Service's counts.
func (k *kubeProxy) programmed(i int) int {
	sv := &k.services[i]
	if sv.endpoints <= 0 {
		return int(sv.fallback)
	}
	if sv.hinted {
		return int(k.hints[i].narrowed(sv.endpoints))
	}
	return int(sv.endpoints)
}

// programmedPort returns how many endpoints the proxier writes rules for for port j of
// Service i, and how many endpoints of any kind the port has.
func (k *kubeProxy) programmedPort(i, j int) (programmed, all int) {
	sv := &k.services[i]
	c := objectEndpoints{ready: sv.endpoints, fallback: sv.fallback, all: sv.all}
	if sv.hinted {
		c.hints = k.hints[i]
	}
	if bp := k.byPort[i]; j < len(bp) {
		c = c.plus(bp[j], 1)
	}
	return programmedOf(c), int(c.all)
}

// programmedOf is how many of the endpoints counted in c the proxier writes rules for: the
// ready ones, or when there is none, those serving and terminating; of ready ones with
// topology hints, those the hints give its node (topologyHints.narrowed).
// upstream: pkg/proxy/topology.go CategorizeEndpoints (the fallback to terminating
// endpoints).
func programmedOf(c objectEndpoints) int {
	if c.ready <= 0 {
		return int(c.fallback)
	}
	return int(c.hints.narrowed(c.ready))
}

// apply takes change c into its Service's counts (ready, serving and terminating, all) and
// served state, and keeps the totals.
func (k *kubeProxy) apply(c *kubeProxyChange) {
	k.counted(c.svc, -1)
	sv := &k.services[c.svc]
	sv.endpoints += int32(c.endpointDelta)
	sv.fallback += int32(c.fallbackDelta)
	sv.all += int32(c.allDelta)
	if c.hintsDelta != (topologyHints{}) {
		h := k.hints[c.svc].plus(c.hintsDelta, 1)
		if sv.hinted = h != (topologyHints{}); sv.hinted {
			if k.hints == nil {
				k.hints = map[int]topologyHints{}
			}
			k.hints[c.svc] = h
		} else {
			delete(k.hints, c.svc)
		}
	}
	if c.portsDelta != nil {
		k.applyByPort(c.svc, c.portsDelta)
	}
	sv.unserved = c.unserved
	sv.known = true
	k.counted(c.svc, 1)
}

// applyByPort adds delta, port by port, to the counts of Service i's objects that give
// their endpoints by port; once none is left, the Service is counted as a whole again.
func (k *kubeProxy) applyByPort(i int, delta []objectEndpoints) {
	bp := k.byPort[i]
	if len(bp) < len(delta) {
		bp = append(bp, make([]objectEndpoints, len(delta)-len(bp))...)
	}
	left := false
	for j := range bp {
		if j < len(delta) {
			bp[j] = bp[j].plus(delta[j], 1)
		}
		left = left || bp[j].counted()
	}
	sv := &k.services[i]
	if sv.partial = left; left {
		if k.byPort == nil {
			k.byPort = map[int][]objectEndpoints{}
		}
		k.byPort[i] = bp
	} else {
		delete(k.byPort, i)
	}
}

// maxInterval is the runner's maxInterval. upstream: iptables and nftables proxier.go
// NewProxier pass FullSyncPeriod (their syncPeriod only sets the retry interval and the
// iptables canary monitor); ipvs/proxier.go passes syncPeriod.
func (k *kubeProxy) maxInterval() Time {
	if k.cfg.Mode == KubeProxyIPVS {
		return Time(k.cfg.SyncPeriod)
	}
	return Time(fullSyncPeriod)
}

// receive takes one watch event of the object of that name (of Service c.svc): delivered to
// every node at delivered, decoded there, then handed to the change tracker.
// upstream: endpointschangetracker.go EndpointSliceUpdate.
func (k *kubeProxy) receive(name string, c kubeProxyChange, ports int, eventBytes int64, json bool, deleted bool, counts objectEndpoints) {
	k.service(c.svc, ports)
	perByte := k.cfg.Costs.DecodeProtobufNanosPerByte
	if json {
		perByte = k.cfg.Costs.DecodeJSONNanosPerByte
	}
	decode := Time(float64(eventBytes) * perByte)
	k.dec.cpu[c.phase] += decode
	k.dec.busy = max(k.dec.busy, c.delivered) + Time(float64(decode)*k.cpuScale)
	c.arrived = k.dec.busy
	var old objectEndpoints
	if deleted {
		old = k.services[c.svc].objects.remove(name)
		counts = objectEndpoints{}
	} else {
		old = k.services[c.svc].objects.set(name, counts)
	}
	c.changes(counts, old)
	k.advance(c.arrived, false)
	if deleted && !k.legacy {
		// A deletion's trigger time is by definition the last update's, so upstream drops
		// every pending trigger time of the Service (lastChangeTriggerTimes is per Service).
		// A kube-proxy that watches Endpoints only leaves out the deleted object's own
		// (pkg/proxy/endpoints.go EndpointChangeTracker.Update, v1.18); trackLegacy drops
		// them when the deletion cancels the pending change.
		for i := range k.pending {
			if k.pending[i].svc == c.svc {
				k.pending[i].hasTrigger = false
			}
		}
	}
	if k.legacy {
		k.trackLegacy(&c, deleted)
	}
	k.pending = append(k.pending, c)
	if k.legacy && k.legacyPending == 0 {
		// The tracker's Update returned false (no Service has a change): no Sync.
		return
	}
	// proxier.OnEndpointSliceUpdate → Sync → runner.Run(): coalesced in a 1-slot channel.
	if k.state == runnerIdle {
		k.startSync(c.arrived)
	} else {
		k.signal = true
	}
}

// trackLegacy is the change tracker of a kube-proxy that watches Endpoints, for change c
// of an Endpoints object (its DELETED event when deleted): the Service's pending change
// starts from the map as received before (which is the map as of the last sync), and when
// c leaves the map equal to that, the change is dropped with the Service's pending trigger
// times. A dropped change still carries its counts (a not-ready address, say) to the next
// sync, but it is not a change of that sync, nor programmed. upstream (v1.18):
// pkg/proxy/endpoints.go EndpointChangeTracker.Update, endpointsToEndpointsMap (see
// model.EndpointsProxyKey).
func (k *kubeProxy) trackLegacy(c *kubeProxyChange, deleted bool) {
	if len(k.legacyServices) <= c.svc {
		n := max(c.svc+1, len(k.services))
		k.legacyServices = append(k.legacyServices, make([]legacyService, n-len(k.legacyServices))...)
	}
	ls := &k.legacyServices[c.svc]
	if !ls.pending {
		ls.pending, ls.from, ls.fromExists = true, ls.seen, ls.seenExists
		k.legacyPending++
	}
	ls.seen, ls.seenExists = c.readyKey, !deleted
	if deleted {
		ls.seen = 0
	}
	c.gen = ls.gen
	if ls.seen == ls.from && ls.seenExists == ls.fromExists {
		// reflect.DeepEqual(change.previous, change.current): the item and the Service's
		// lastChangeTriggerTimes are deleted. c and the changes pending before it keep the
		// old gen: dropped.
		ls.pending = false
		ls.gen++
		k.legacyPending--
		c.hasTrigger = false
	}
}

// dropped reports whether pending change c was dropped by the legacy change tracker since it
// came in (trackLegacy).
func (k *kubeProxy) dropped(c *kubeProxyChange) bool {
	return k.legacy && !c.service && c.gen != k.legacyServices[c.svc].gen
}

// serviceCheckouts returns, before a sync applies its pending changes, the state of each
// Service with a change of its Service object among them (serviceCheckout); nil when there
// is none, as in most syncs.
func (k *kubeProxy) serviceCheckouts() map[int]serviceCheckout {
	var out map[int]serviceCheckout
	for i := range k.pending {
		if c := &k.pending[i]; c.service {
			if out == nil {
				out = map[int]serviceCheckout{}
			}
			if _, ok := out[c.svc]; !ok {
				sv := &k.services[c.svc]
				out[c.svc] = serviceCheckout{wasKnown: sv.known, wasUnserved: sv.unserved}
			}
		}
	}
	if out == nil {
		return nil
	}
	for i := range k.pending {
		if c := &k.pending[i]; !c.service && !k.dropped(c) {
			if co, ok := out[c.svc]; ok {
				co.objectChanged = true
				out[c.svc] = co
			}
		}
	}
	return out
}

// serviceEvent takes an event of the Service informer for Service svc (of ports Service
// ports), made at t in phase phase: its ADDED event (served), as for a new Service, or its
// DELETED event (not served), as when a service-proxy-name label hides it. Either is a change
// of the Service change tracker (a Service with a cluster IP of the proxier's family comes or
// goes), so the proxier asks for a sync, whose partial sync writes or removes the Service's
// rules: from that sync on, its endpoints count in the rules only when served. The change
// carries no trigger time: only endpoints objects are sampled. The event is taken at t (a
// Service object is small, and its watch is not the endpoints' one), or, when the loop has
// already run past that (an endpoints event delivered later was decoded), then; its
// decoding is not counted.
// upstream: iptables/proxier.go (and nftables', ipvs') OnServiceAdd and OnServiceDelete →
// OnServiceUpdate (serviceChanges.Update true, then Sync); servicechangetracker.go Update,
// serviceToServiceMap; metaproxier OnServiceAdd (both families' proxiers).
func (k *kubeProxy) serviceEvent(svc, ports int, t Time, phase int, served bool) {
	k.service(svc, ports)
	t = max(t, k.clock)
	k.advance(t, false)
	k.pending = append(k.pending, kubeProxyChange{arrived: t, delivered: t, phase: phase, svc: svc, service: true, unserved: !served})
	if k.state == runnerIdle {
		k.startSync(t)
	} else {
		k.signal = true
	}
}

// advance runs the runner loop over every transition before t (at or before t when
// inclusive). upstream: pkg/proxy/runner/bounded_frequency_runner.go Loop.
func (k *kubeProxy) advance(t Time, inclusive bool) {
	before := func(x Time) bool { return x < t || (inclusive && x <= t) }
	k.clock = max(k.clock, t)
	for {
		switch k.state {
		case runnerSyncing:
			if !before(k.syncEnd) {
				return
			}
			k.finishSync()
		case runnerCooling:
			if !before(k.coolEnd) {
				return
			}
			if k.signal {
				k.signal = false
				k.startSync(k.coolEnd)
			} else {
				k.state = runnerIdle
			}
		case runnerIdle:
			timer := k.lastEnd + k.maxInterval()
			if !before(timer) {
				return
			}
			k.startSync(timer) // periodic: no changes, attributed by start time
		}
	}
}

// startSync begins syncProxyRules at t: it checks out every pending change and computes
// what it writes. upstream: iptables/proxier.go syncProxyRules (doFullSync, the partial
// sync's skipped chains), nftables/proxier.go syncProxyRules, ipvs/proxier.go syncProxyRules.
func (k *kubeProxy) startSync(t Time) {
	k.syncSeq++
	seq := k.syncSeq
	phase := -1
	var changedPorts, changedEndpoints int
	checkouts := k.serviceCheckouts()
	for i := range k.pending {
		c := &k.pending[i]
		k.apply(c)
		if k.dropped(c) {
			c.hasTrigger = false
			continue
		}
		phase = max(phase, c.phase)
	}
	for i := range k.pending {
		c := &k.pending[i]
		if k.legacy && !c.service {
			// Checked out: the tracker's items are emptied.
			if k.dropped(c) {
				continue
			}
			k.legacyServices[c.svc].pending = false
		}
		sv := &k.services[c.svc]
		if co, ok := checkouts[c.svc]; ok && !co.objectChanged && co.wasKnown && co.wasUnserved == sv.unserved {
			// Its only changes are of the Service object, and leave it as it was (its
			// service-proxy-name label put on and taken off again): upstream's tracker
			// drops an item whose previous and current maps are equal, and the sync skips
			// the Service's chains. upstream: servicechangetracker.go Update.
			continue
		}
		if sv.stamp != seq && !sv.unserved {
			sv.stamp = seq
			changedPorts += int(sv.ports)
			if sv.partial {
				_, programmed, _ := k.portTotals(c.svc)
				changedEndpoints += programmed
			} else {
				changedEndpoints += max(k.programmed(c.svc), 0) * int(sv.ports)
			}
		}
	}
	// The last sync emptied inFlight (finishSync): the checked-out changes move to it by
	// trading arrays, not by a copy.
	k.inFlight, k.pending = k.pending, k.inFlight[:0]
	k.legacyPending = 0
	totalEndpoints := k.portEndpoints
	full := k.fullSync(t)
	k.largeCluster = k.allPortEndpoints > largeClusterEndpointsThreshold
	costs := k.cfg.Costs
	// iptables gives a served port without endpoints one filter rule instead (REJECT, or
	// DROP when only its node's endpoints count), and writes the filter table whole on
	// every sync. upstream: iptables/proxier.go syncProxyRules (filterRules, written
	// before a partial sync skips an unchanged Service's nat chains).
	noEndpoints := 0
	if k.cfg.Mode == KubeProxyIPTables {
		noEndpoints = k.walkPorts - k.servicePorts
	}
	all := costs.RulesPerServicePort*float64(k.servicePorts) + costs.RulesPerEndpoint*float64(totalEndpoints) + float64(noEndpoints)
	written, generated := all, all
	if !full {
		written = costs.RulesPerServicePort*float64(changedPorts) + costs.RulesPerEndpoint*float64(changedEndpoints)
		switch k.cfg.Mode {
		case KubeProxyIPTables:
			// KUBE-SERVICES (one jump per Service port) and the filter table are
			// rewritten on every sync.
			written += float64(k.servicePorts + noEndpoints)
		case KubeProxyNFTables:
			// A partial sync generates only the changed Services' chains (skipServiceUpdate).
			generated = written
		}
	}
	// The walk covers every Service port of the service map, endpoints or not (upstream:
	// nftables/proxier.go syncProxyRules ranges over svcPortMap, categorizing each one's
	// endpoints before skipServiceUpdate).
	cpu := Time(costs.SyncBase) + Time(costs.WalkNanosPerServicePort*float64(k.walkPorts)+costs.GenerateNanosPerRule*generated+costs.WriteNanosPerRule*written)
	k.current = kubeProxySync{start: t, end: t + Time(float64(cpu)*k.cpuScale), cpu: cpu, full: full, phase: phase}
	k.state = runnerSyncing
	k.syncEnd = k.current.end
}

// fullSync says whether a sync at t rewrites everything. upstream: iptables/proxier.go
// syncProxyRules doFullSync (needFullSync — set only at start-up, after a failed sync or a
// topology change, none of which a run has — or an hour since the last full sync outside
// largeClusterMode); nftables/proxier.go the same without the large-cluster exception; ipvs
// has no partial syncs but writes only differences to the kernel, which the cost model
// treats as a partial sync.
//
// An hour since the last full sync is measured from its end (lastFullSync is set when it
// succeeds) and counts as more than an hour when equal: on a real clock some time always
// passes. largeClusterMode is the one the last sync set: doFullSync reads it before this
// sync counts the endpoints.
func (k *kubeProxy) fullSync(t Time) bool {
	due := t-k.lastFull >= Time(fullSyncPeriod)
	switch k.cfg.Mode {
	case KubeProxyIPVS:
		return false
	case KubeProxyNFTables:
		return due
	}
	return due && !k.largeCluster
}

// proxyChangesKeep is the capacity up to which a kube-proxy keeps a list of changes when its
// sync ends, for the syncs to come: a larger one is a burst's. (The ADDED events of 50,000
// Services at once filled lists of 5 MB, two per kube-proxy, which both kube-proxies then
// held all run: 21 MB of that run's live heap.)
const proxyChangesKeep = 1024

// finishSync ends the running sync: the checked-out changes are programmed and observed in
// kubeproxy_network_programming_duration_seconds. upstream: iptables/proxier.go
// syncProxyRules (after RestoreAll), runner Loop (minInterval reset after fn).
func (k *kubeProxy) finishSync() {
	end := k.current.end
	for _, c := range k.inFlight {
		if c.hasTrigger {
			k.latency[c.phase].add(end - c.trigger)
			if end < c.delivered || c.delivered < c.trigger {
				k.misordered++
			}
		}
	}
	k.inFlight = k.inFlight[:0]
	if cap(k.inFlight) > proxyChangesKeep {
		k.inFlight = nil
	}
	k.syncs = append(k.syncs, k.current)
	k.lastEnd = end
	if k.current.full {
		k.lastFull = end
	}
	k.state = runnerCooling
	k.coolEnd = end + Time(k.cfg.MinSyncPeriod)
}

// kubeProxiesService hands Service s's appearing to (served) or leaving (not served) the
// kube-proxies' Service informers now to the kube-proxy of each mode run: to the proxier of
// each of its IP families (kubeProxy.serviceEvent). It appears when created without a
// service-proxy-name label (kube-proxy's Service informer does not select one with it) or
// when that label is removed, and leaves when the label is added. A headless Service (no
// cluster IP) and one of type ExternalName make no change and no sync either way.
// upstream: cmd/kube-proxy/app/server.go (the Service informer's selector; a selector
// transition is an ADDED or DELETED event: apiserver cacher), proxy/util ShouldSkipService,
// servicechangetracker.go serviceToServiceMap.
func (e *Engine) kubeProxiesService(s *serviceState, served bool) {
	svc := s.svc
	if svc.IsHeadless() || svc.ExternalName {
		return
	}
	for _, c := range e.ctls {
		n := e.kubeProxies[modeIndex(c.mode)]
		if n == nil {
			continue
		}
		for _, f := range svc.IPFamilies {
			i := 0
			if f == model.IPv6 {
				i = 1
			}
			n.proxier(i).serviceEvent(s.idx, len(svc.Ports), e.now, e.phase, served)
		}
	}
}

// kubeProxyServes reports whether the proxier of family (0 IPv4, 1 IPv6) has Service svc in
// its service map, and so writes rules for the endpoints of the objects it receives of it:
// not when the Service is headless or of type ExternalName, hidden by the service-proxy-name
// label, or without a cluster IP of that family. It is the Service's, whatever the labels
// of the object: a headless Service's mirrored EndpointSlices, whose labels are its
// Endpoints object's, reach kube-proxy (no headless label) but get no rule.
// upstream: cmd/kube-proxy/app/server.go (the Service informer's selectors);
// servicechangetracker.go serviceToServiceMap (ShouldSkipService; a cluster IP of the
// tracker's family).
func kubeProxyServes(svc *model.Service, family int) bool {
	if svc.IsHeadless() || svc.ExternalName || hiddenFromKubeProxy(svc.Labels) {
		return false
	}
	for _, f := range svc.IPFamilies {
		if (f == model.IPv6) == (family == 1) {
			return true
		}
	}
	return false
}

// servedMemo remembers kubeProxyServes of one Service object for both families: a write's
// event asks it (805,000 times in many-services), and a Service object is never changed in
// place but replaced (a label change makes a new one), so its answer stays.
type servedMemo struct {
	svc    *model.Service
	served [2]bool
}

// kubeProxyServesService is kubeProxyServes of Service s's current object, remembered.
func (e *Engine) kubeProxyServesService(s *serviceState, family int) bool {
	if len(e.served) <= s.idx {
		e.served = append(e.served, make([]servedMemo, len(e.services)-len(e.served))...)
	}
	m := &e.served[s.idx]
	if m.svc != s.svc {
		*m = servedMemo{svc: s.svc, served: [2]bool{kubeProxyServes(s.svc, 0), kubeProxyServes(s.svc, 1)}}
	}
	return m.served[family]
}

// hiddenFromKubeProxy reports whether Service labels have the service-proxy-name label,
// which kube-proxy's Service informer does not select.
func hiddenFromKubeProxy(labels map[string]string) bool {
	_, ok := labels[model.LabelServiceProxyName]
	return ok
}

// kubeProxiesIdle runs every kube-proxy's loop from t to the end, and returns when the last
// of them became idle: its last sync done and minSyncPeriod passed (t at the latest).
func (e *Engine) kubeProxiesIdle(t Time) Time {
	idle := t
	for _, n := range e.kubeProxies {
		if n == nil {
			continue
		}
		for _, k := range n.proxiers() {
			k.flush(t)
			idle = max(idle, k.coolEnd)
		}
	}
	return idle
}

// flush runs the loop to the end: periodic syncs up to until, then whatever is signalled.
func (k *kubeProxy) flush(until Time) {
	k.advance(until, true)
	for k.state != runnerIdle {
		k.advance(max(k.syncEnd, k.coolEnd), true)
	}
}

// portsAlike reports whether every endpoints object the controllers write for Service s
// gives kube-proxy every port of it: the pods' endpoints of a selector of numbered
// targetPorts all have every port (upstream FindPort resolves a number as it is), so the
// EndpointSlice controller's slices and the Endpoints controller's subsets list every
// port, with its name, protocol and number. A named targetPort may not resolve on some
// pods, and a user's Endpoints object lists what it lists: those are looked at.
func (s *serviceState) portsAlike() bool {
	if s.manual != nil {
		return false
	}
	for i := range s.svc.Ports {
		if tp := &s.svc.Ports[i].TargetPort; tp.IsString || tp.IntVal == 0 {
			return false
		}
	}
	return true
}

// unlistedSlicePorts returns the ports of a Service of ports svc (bit j: svc[j], of the
// first 64) that an EndpointSlice of ports ports gives kube-proxy no endpoints for: it
// reads a slice's endpoints as those of each port it lists by name and protocol with a
// port number. 0: the slice gives every one (the EndpointSlice controller's slices list
// the Service's ports in their order, but for pods that lack a named targetPort).
// upstream: pkg/proxy/endpointslicecache.go endpointInfoByServicePort.
func unlistedSlicePorts(svc []model.ServicePort, ports []model.EndpointPort) uint64 {
	if len(ports) == len(svc) {
		j := 0
		for j < len(svc) && slicePortGives(&ports[j], &svc[j]) {
			j++
		}
		if j == len(svc) {
			return 0
		}
	}
	return unlistedPorts(svc, ports, slicePortGives)
}

// unlistedPorts returns the ports of a Service of ports svc (bit j: svc[j], of the first
// 64) that no port of ports gives endpoints.
func unlistedPorts[P any](svc []model.ServicePort, ports []P, gives func(*P, *model.ServicePort) bool) uint64 {
	var unlisted uint64
	for j := range min(len(svc), 64) {
		listed := false
		for i := range ports {
			if gives(&ports[i], &svc[j]) {
				listed = true
				break
			}
		}
		if !listed {
			unlisted |= 1 << j
		}
	}
	return unlisted
}

// slicePortGives reports whether an EndpointSlice port gives Service port sp endpoints.
func slicePortGives(p *model.EndpointPort, sp *model.ServicePort) bool {
	proto := model.ProtocolTCP // the API server's default
	if p.Protocol != nil && *p.Protocol != "" {
		proto = *p.Protocol
	}
	return p.Name != nil && *p.Name == sp.Name && p.Port != nil && *p.Port != 0 && proto == protocolOf(sp)
}

// endpointsPortGives reports whether an Endpoints subset's port gives Service port sp
// endpoints. upstream (v1.18): pkg/proxy/endpoints.go endpointsToEndpointsMap (port 0
// ignored).
func endpointsPortGives(p *model.EndpointsPort, sp *model.ServicePort) bool {
	proto := p.Protocol
	if proto == "" {
		proto = model.ProtocolTCP
	}
	return p.Name == sp.Name && p.Port != 0 && proto == protocolOf(sp)
}

// protocolOf is a Service port's protocol, TCP when unset.
func protocolOf(sp *model.ServicePort) model.Protocol {
	if sp.Protocol == "" {
		return model.ProtocolTCP
	}
	return sp.Protocol
}

// unlistedEndpointsPorts is unlistedSlicePorts for an Endpoints subset's ports.
func unlistedEndpointsPorts(svc []model.ServicePort, ports []model.EndpointsPort) uint64 {
	return unlistedPorts(svc, ports, endpointsPortGives)
}

// addSubset adds to byPort (by Service port, sized for svc) the ready addresses of a subset
// that gives every port but the unlisted ones: a kube-proxy of Endpoints maps those only,
// so they are all its endpoints too.
func addSubset(byPort []objectEndpoints, unlisted uint64, ready int) {
	for j := range byPort {
		if j >= 64 || unlisted&(1<<j) == 0 {
			byPort[j].ready += int32(ready)
			byPort[j].all += int32(ready)
		}
	}
}

// subsetsByPort returns an Endpoints object's counts by port of a Service of ports svc
// (objectEndpoints.byPort) when one of its subsets does not give every port; nil when each
// does, as the object's counts as a whole are then every port's.
func subsetsByPort(svc []model.ServicePort, subsets []model.SubsetSize) []objectEndpoints {
	return byPortOf(svc, subsets, func(ss *model.SubsetSize) ([]model.EndpointsPort, int) {
		return ss.Ports, ss.Addresses
	})
}

// manualSubsetsByPort is subsetsByPort for the subsets of a user's Endpoints object.
func manualSubsetsByPort(svc []model.ServicePort, subsets []model.EndpointSubset) []objectEndpoints {
	return byPortOf(svc, subsets, func(ss *model.EndpointSubset) ([]model.EndpointsPort, int) {
		return ss.Ports, len(ss.Addresses)
	})
}

// byPortOf is subsetsByPort for subsets of any form: parts gives a subset's ports and its
// ready addresses.
func byPortOf[S any](svc []model.ServicePort, subsets []S, parts func(*S) (ports []model.EndpointsPort, ready int)) []objectEndpoints {
	var byPort []objectEndpoints
	for i := range subsets {
		if ports, _ := parts(&subsets[i]); unlistedEndpointsPorts(svc, ports) != 0 {
			byPort = make([]objectEndpoints, max(len(svc), 1))
			break
		}
	}
	if byPort == nil {
		return nil
	}
	for i := range subsets {
		ports, ready := parts(&subsets[i])
		addSubset(byPort, unlistedEndpointsPorts(svc, ports), ready)
	}
	return byPort
}
