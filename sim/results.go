package sim

// Mode names one control plane in the results.
type Mode string

// The two modes run side by side.
const (
	ModeEndpoints      Mode = "endpoints"
	ModeEndpointSlices Mode = "endpointslices"
)

// Results is everything one run produced. Reports render it; it holds no wall-clock data.
type Results struct {
	Scenario string `json:"scenario"`
	Seed     uint64 `json:"seed"`
	Nodes    int    `json:"nodes"`
	// Watchers is the number of watchers per mode (kube-proxies plus extra watchers) at the
	// end of the run; ModeResult.Watchers has the most any write went to.
	Watchers int `json:"watchers"`
	// Phases are the timeline's actions in order.
	Phases []PhaseResult `json:"phases"`
	// Total sums every phase.
	Total PhaseResult `json:"total"`
	// Series holds per-second buckets for charts (not in summary.json).
	Series []Bucket `json:"-"`
	// Writes is the API-write log (not in summary.json): empty with Config.NoWriteLog, or
	// when the Observer took it as the run went (WriteLogger).
	Writes []WriteRecord `json:"-"`
	// Layout samples the EndpointSlice layout over time (not in summary.json).
	Layout []LayoutSample `json:"-"`
	// Services is the whole run per Service that some mode wrote for, in creation order.
	Services []ServiceResult `json:"services,omitempty"`
	// Events is the number of events the engine processed.
	Events int64 `json:"events"`
	// PodEvents is the number of pod watch events (adds, updates, deletes) the controllers
	// received: the pod changes the run's work is made of (not in summary.json).
	PodEvents int64 `json:"-"`
	// EndTime is the virtual time the run ended: its last event. Deliveries to watchers may
	// go on after it (Total.End is when the last one arrived).
	EndTime Time `json:"-"`
	// LastWrite is the virtual time of the last API write.
	LastWrite Time `json:"-"`
	// SLOSeconds is the propagation-latency p99 objective the run is judged against.
	SLOSeconds float64 `json:"sloSeconds"`
	// NetworkModel is true when propagation latency includes bandwidth (the fluid model).
	NetworkModel bool `json:"networkModel"`
	// EgressCapacityBytesPerSec is all API servers' egress bandwidth when the network model
	// limits it (0: unlimited).
	EgressCapacityBytesPerSec int64 `json:"egressCapacityBytesPerSec"`
}

// PhaseResult is the accounting for one phase, per mode.
type PhaseResult struct {
	Name           string     `json:"name"`
	Start          Time       `json:"-"`
	End            Time       `json:"-"`
	Endpoints      ModeResult `json:"endpoints"`
	EndpointSlices ModeResult `json:"endpointslices"`
	// PendingPods counts the pods still Pending at the phase's end because they found no
	// node: none was ready, uncordoned and under its maxPodsPerNode. The figures leave them
	// out (no endpoint of theirs exists). The total's is the run's end.
	PendingPods int64 `json:"pendingPods,omitempty"`
}

// Mode returns the result of mode m.
func (p *PhaseResult) Mode(m Mode) *ModeResult {
	if m == ModeEndpoints {
		return &p.Endpoints
	}
	return &p.EndpointSlices
}

// WriteCounts counts committed API writes by verb (no-op and failed writes are counted
// apart, in ModeResult.NoopWrites and FailedWrites).
type WriteCounts struct {
	Create int64 `json:"create"`
	Update int64 `json:"update"`
	Delete int64 `json:"delete"`
}

// Total returns all writes.
func (w WriteCounts) Total() int64 { return w.Create + w.Update + w.Delete }

// ModeResult is one mode's accounting over a phase. Bytes are exact integers.
type ModeResult struct {
	Writes WriteCounts `json:"writes"`
	// Watchers is the most watchers one write of this mode went to in the phase (watchers
	// change as nodes fail, drain and come back).
	Watchers int64 `json:"watchers"`
	// NoopWrites are updates the API server dropped because nothing changed (§7.1).
	NoopWrites   int64 `json:"noopWrites"`
	FailedWrites int64 `json:"failedWrites"`
	// Conflicts are updates refused because they carried a stale resourceVersion.
	Conflicts int64 `json:"conflicts"`
	// Syncs is the number of controller syncs.
	Syncs int64 `json:"syncs"`
	// StaleSyncs are syncs refused because the informer cache lagged the controller's own
	// writes (upstream: the EndpointSlice tracker's StaleSlices).
	StaleSyncs int64 `json:"staleSyncs"`
	// Objects is the number of live objects at the phase's end.
	Objects int64 `json:"objects"`
	// EtcdBytes is the bytes of every object a committed create or update stored; a delete
	// stores no object and adds nothing.
	EtcdBytes int64 `json:"etcdBytes"`
	// RequestBytes is the bytes of request bodies the controller sent, whatever the API server
	// then did with them (committed, no-op and failed writes alike).
	RequestBytes int64 `json:"requestBytes"`
	// WatchEvents is the number of watch events delivered (events × watchers).
	WatchEvents int64 `json:"watchEvents"`
	// FanoutBytes is the bytes delivered to all watchers.
	FanoutBytes int64 `json:"fanoutBytes"`
	// PerNodeBytes is the bytes one kube-proxy received.
	PerNodeBytes int64 `json:"perNodeBytes"`
	// MaxObjectBytes is the largest object written.
	MaxObjectBytes int64 `json:"maxObjectBytes"`
	// PeakEgressBytesPerSec is the largest fan-out in any 1 s window (all API servers).
	PeakEgressBytesPerSec int64 `json:"peakEgressBytesPerSec"`
	// TruncatedObjects counts committed writes (creates and updates) of truncated Endpoints:
	// no-op and failed writes stored nothing and are not counted.
	TruncatedObjects int64 `json:"truncatedObjects"`
	// HiddenAddresses is the most addresses a truncated Endpoints write left out: endpoints
	// that consumers of Endpoints (an Endpoints-based kube-proxy) would not see.
	HiddenAddresses int64 `json:"hiddenAddresses"`
	// Propagation summarises trigger-to-last-watcher latency of this phase's writes.
	Propagation Latency `json:"propagation"`
	// WatcherTerminations counts watches the API server closed as too slow.
	WatcherTerminations int64 `json:"watcherTerminations"`
	// Relists counts watchers that had to list every object again: terminated watchers
	// whose resourceVersion had left the watch cache, kube-proxies of nodes back from a
	// failure of connectionLostAfter or more, or whose missed events had left the cache,
	// and kube-proxies of upgraded nodes, which start again.
	Relists int64 `json:"relists"`
	// ResentBytes is what watchers were sent beyond the live events: relists as sent (gzipped:
	// network.relistSize), and the events the kube-proxy of a node back from a failure missed,
	// replayed from the watch cache. (A terminated watcher that watches again from its
	// resourceVersion gets the events it missed replayed, each sent once: no bytes again.)
	ResentBytes int64 `json:"resentBytes"`
	// Programming summarises network programming latency: for each change kube-proxy
	// received with a trigger time, trigger → the end of the sync that programmed it, as
	// kubeproxy_network_programming_duration_seconds observes it on the mode's one
	// representative kube-proxy (its proxiers of each IP family in one distribution). That
	// node stands for every healthy node, which gets the same events at the same time and
	// syncs in step (kubeProxy), so Count is that node's samples, not all nodes' together.
	Programming Latency `json:"programming"`
	// KubeProxyCPUSeconds is the CPU one kube-proxy spent: decoding events and syncing.
	KubeProxyCPUSeconds float64 `json:"kubeProxyCPUSeconds"`
	// KubeProxyDecodeCPUSeconds is the part of it spent decoding watch events.
	KubeProxyDecodeCPUSeconds float64 `json:"kubeProxyDecodeCPUSeconds"`
	// KubeProxySyncs counts one kube-proxy's syncs, and KubeProxyFullSyncs those that
	// rewrote every rule.
	KubeProxySyncs     int64 `json:"kubeProxySyncs"`
	KubeProxyFullSyncs int64 `json:"kubeProxyFullSyncs"`
	// PeakSyncSeconds is the longest sync (wall time on the node).
	PeakSyncSeconds float64 `json:"peakSyncSeconds"`
	// KubeProxyBusyFraction is the share of the phase one kube-proxy spent syncing: at 1 it
	// syncs back to back and every change waits for a whole sync.
	KubeProxyBusyFraction float64 `json:"kubeProxyBusyFraction"`
	// APIServerCPUSeconds is the API servers' CPU on the watch path (all replicas).
	APIServerCPUSeconds float64 `json:"apiserverCPUSeconds"`
}

// ServiceResult is one Service's accounting over the whole run, per mode.
type ServiceResult struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Replicas is the Service's size as the scenario gives it (its workload's replicas, the
	// number of nodes for a DaemonSet; 0 when unknown, as in a replay).
	Replicas       int               `json:"replicas"`
	Endpoints      ServiceModeResult `json:"endpoints"`
	EndpointSlices ServiceModeResult `json:"endpointslices"`
}

// Mode returns the result of mode m.
func (s *ServiceResult) Mode(m Mode) *ServiceModeResult {
	if m == ModeEndpoints {
		return &s.Endpoints
	}
	return &s.EndpointSlices
}

// ServiceModeResult is what one mode's controller wrote for one Service.
type ServiceModeResult struct {
	// Writes counts committed writes (creates, updates, deletes) of the Service's objects.
	Writes int64 `json:"writes"`
	// FailedWrites counts writes refused as over the object size limit.
	FailedWrites int64 `json:"failedWrites"`
	// FanoutBytes is the bytes delivered to all watchers for those writes.
	FanoutBytes int64 `json:"fanoutBytes"`
	// MaxObjectBytes is the largest object of the Service written.
	MaxObjectBytes int64 `json:"maxObjectBytes"`
	// Propagation summarises trigger-to-last-watcher latency of those writes.
	Propagation Latency `json:"propagation"`
}

// Latency summarises a latency distribution in seconds.
type Latency struct {
	Count      int64   `json:"count"`
	P50Seconds float64 `json:"p50Seconds"`
	P90Seconds float64 `json:"p90Seconds"`
	P99Seconds float64 `json:"p99Seconds"`
	MaxSeconds float64 `json:"maxSeconds"`
}

// MaxSeriesBuckets bounds the buckets of Results.Series: a run longer than this many seconds
// gets coarser buckets (2 s, 4 s, …) instead of more of them, so that the series' memory
// never grows with the span of virtual time.
const MaxSeriesBuckets = 1 << 16

// Bucket is one interval of virtual time, per mode: one second, or Width seconds when the
// run was too long for 1 s buckets (see MaxSeriesBuckets).
type Bucket struct {
	// Second is where the bucket starts, in seconds of virtual time.
	Second int64
	// Width is the bucket's length in seconds; 0 means 1.
	Width          int64
	Endpoints      BucketMode
	EndpointSlices BucketMode
}

// Seconds returns the bucket's length in seconds (at least 1).
func (b *Bucket) Seconds() int64 { return max(b.Width, 1) }

// BucketMode is one mode's traffic in one bucket.
type BucketMode struct {
	Writes int64
	// FanoutBytes is what left the API servers in this bucket for watch events (the bytes
	// fanoutBytes counts): spread over the time the links took to send it when the network
	// model has a bandwidth, else at commit time.
	FanoutBytes int64
	// ResentBytes is what left the API servers in this bucket beyond the live events (the
	// bytes resentBytes counts: relists, a node's missed events), spread the same way.
	ResentBytes int64
	EtcdBytes   int64
	// MaxLatencySeconds is the largest propagation latency of a write committed this second.
	MaxLatencySeconds float64
}

// WriteRecord is one API write, for writes.jsonl.
type WriteRecord struct {
	At          Time   `json:"-"`
	Mode        Mode   `json:"mode"`
	Verb        string `json:"verb"`
	Kind        string `json:"kind"`
	Namespace   string `json:"namespace"`
	Name        string `json:"name"`
	Endpoints   int    `json:"endpoints"`
	ObjectBytes int64  `json:"objectBytes"`
	EventBytes  int64  `json:"eventBytes"`
	Watchers    int64  `json:"watchers"`
	// Outcome is "ok", "noop" or "failed".
	Outcome string `json:"outcome"`
	Phase   string `json:"phase"`
	// Latency is trigger → last watcher has it (0 when unknown).
	Latency Time `json:"-"`
}

// LayoutSample is the EndpointSlice layout at one instant (all services).
type LayoutSample struct {
	At        Time
	Slices    int
	Endpoints int
	// Min, Median and Max endpoints per slice.
	Min, Median, Max int
}
