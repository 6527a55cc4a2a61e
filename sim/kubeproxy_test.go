package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"epsim/model"
)

const ms = Time(time.Millisecond)

// flatProxy is a kube-proxy whose every sync takes base and whose decoding is free, so
// timelines can be worked out by hand.
func flatProxy(mode KubeProxyMode, base time.Duration) *kubeProxy {
	cfg := DefaultKubeProxy(mode)
	cfg.Costs = KubeProxyCosts{SyncBase: base, RulesPerServicePort: 3, RulesPerEndpoint: 4}
	return newKubeProxyNode(cfg, 1, 0, false).proxier(0)
}

// deliver hands k an update of object name (Service svc, endpoints endpoints) that reached
// the node at t, triggered at t.
func deliver(k *kubeProxy, name string, svc int, t Time, endpoints int) {
	k.receive(name, kubeProxyChange{svc: svc, trigger: t, hasTrigger: true, delivered: t}, 1, 1000, false, false, objectEndpoints{ready: int32(endpoints), all: int32(endpoints)})
}

// readyEndpoints is the proxier's count of ready endpoints over every Service.
func readyEndpoints(k *kubeProxy) int {
	n := 0
	for _, sv := range k.services {
		n += int(sv.endpoints)
	}
	return n
}

type span struct{ start, end Time }

func syncSpans(k *kubeProxy) []span {
	var out []span
	for _, s := range k.syncs {
		out = append(out, span{s.start, s.end})
	}
	return out
}

func latencies(k *kubeProxy) []Time {
	var out []Time
	for _, l := range k.latency {
		for _, p := range l.parts {
			for i, d := range p.small {
				for range p.smallN[i] {
					out = append(out, Time(d))
				}
			}
		}
		for _, p := range l.parts {
			for i, d := range p.big {
				for range p.bigN[i] {
					out = append(out, d)
				}
			}
		}
	}
	return out
}

func sameTimes[T comparable](t *testing.T, what string, got, want []T) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// TestRunnerTimelines checks the sync loop against timelines worked out by hand from
// upstream pkg/proxy/runner/bounded_frequency_runner.go Loop: a Run() while idle starts fn
// at once; fn's end resets minInterval, and Run() calls until it has passed wait in the
// 1-slot channel, all of them served by one run (bounded_frequency_runner_test.go
// Test_BoundedFrequencyRunnerNoBurst's "run again before minInterval" steps). The change
// tracker is checked out when a sync starts (iptables/proxier.go syncProxyRules calls
// endpointsMap.Update first), so a change arriving mid-sync waits for the next one.
func TestRunnerTimelines(t *testing.T) {
	tests := []struct {
		name    string
		base    time.Duration
		arrive  []Time
		syncs   []span
		latency []Time // per change, in arrival order
	}{
		{
			// 0: idle → sync [0,100ms]; 200, 500, 1000 ms: minInterval runs to 1.1 s, the
			// three Run()s coalesce into one sync [1.1 s, 1.2 s].
			name: "minSyncPeriod coalesces", base: 100 * time.Millisecond,
			arrive:  []Time{0, 200 * ms, 500 * ms, 1000 * ms},
			syncs:   []span{{0, 100 * ms}, {1100 * ms, 1200 * ms}},
			latency: []Time{100 * ms, 1000 * ms, 700 * ms, 200 * ms},
		},
		{
			// 300 ms arrives while the first sync [0, 500 ms] runs: it was not checked out,
			// so it waits for minInterval after that sync's end: [1.5 s, 2 s].
			name: "change mid-sync waits for the next", base: 500 * time.Millisecond,
			arrive:  []Time{0, 300 * ms},
			syncs:   []span{{0, 500 * ms}, {1500 * ms, 2000 * ms}},
			latency: []Time{500 * ms, 1700 * ms},
		},
		{
			// After minInterval passed the loop is idle in select: a change syncs at once.
			name: "idle loop syncs at once", base: 100 * time.Millisecond,
			arrive:  []Time{0, 5000 * ms},
			syncs:   []span{{0, 100 * ms}, {5000 * ms, 5100 * ms}},
			latency: []Time{100 * ms, 100 * ms},
		},
		{
			// A change exactly when minInterval ends is served by the sync starting then.
			name: "change at the end of minInterval", base: 100 * time.Millisecond,
			arrive:  []Time{0, 500 * ms, 1100 * ms},
			syncs:   []span{{0, 100 * ms}, {1100 * ms, 1200 * ms}},
			latency: []Time{100 * ms, 700 * ms, 100 * ms},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := flatProxy(KubeProxyIPTables, tt.base)
			for i, a := range tt.arrive {
				deliver(k, fmt.Sprintf("slice-%d", i), 0, a, 10)
			}
			k.flush(tt.arrive[len(tt.arrive)-1])
			sameTimes(t, "syncs", syncSpans(k), tt.syncs)
			sameTimes(t, "latencies", latencies(k), tt.latency)
		})
	}
}

// TestRunnerPeriodicSync: ipvs passes syncPeriod as the runner's maxInterval, so it syncs
// every 30 s after the last sync's end; iptables and nftables pass FullSyncPeriod (1 h).
// upstream: ipvs/proxier.go and iptables/proxier.go NewProxier.
func TestRunnerPeriodicSync(t *testing.T) {
	for _, tt := range []struct {
		mode  KubeProxyMode
		syncs []span
	}{
		{KubeProxyIPVS, []span{{0, 100 * ms}, {30100 * ms, 30200 * ms}, {60200 * ms, 60300 * ms}, {90300 * ms, 90400 * ms}}},
		{KubeProxyIPTables, []span{{0, 100 * ms}}},
		{KubeProxyNFTables, []span{{0, 100 * ms}}},
	} {
		k := flatProxy(tt.mode, 100*time.Millisecond)
		deliver(k, "a", 0, 0, 10)
		k.flush(100 * Time(time.Second))
		sameTimes(t, string(tt.mode)+" syncs", syncSpans(k), tt.syncs)
	}
}

// TestSyncSelection checks full versus partial syncs and what each writes. upstream:
// iptables/proxier.go syncProxyRules (doFullSync: needFullSync after start-up, or an hour
// since the last full sync unless largeClusterMode, i.e. more than 1000 endpoints; a partial
// sync writes only the chains of changed Services, plus KUBE-SERVICES in full),
// nftables/proxier.go (the same without the large-cluster exception).
func TestSyncSelection(t *testing.T) {
	hour := Time(time.Hour)
	tests := []struct {
		name      string
		mode      KubeProxyMode
		endpoints int  // of the big Service
		at        Time // when the small Service changes again
		wantFull  []bool
		// rules written by each sync (costs: 1 µs per written rule, nothing else)
		wantMicros []int64
	}{
		// kube-proxy did its initial full sync at time 0, so the first sync of the run is
		// partial: the small Service's chains (3 + 10 × 4) and KUBE-SERVICES (one rule per
		// Service port: 1), 44 rules. The big Service arrives during it and is synced a
		// minSyncPeriod later: its chains (3 + 100 × 4) and KUBE-SERVICES (2). Then the small
		// Service changes: its chains and KUBE-SERVICES, 45.
		{"iptables partial", KubeProxyIPTables, 100, 10 * Time(time.Second),
			[]bool{false, false, false}, []int64{44, 405, 45}},
		// An hour after the last sync the runner's maxInterval timer fires, more than an hour
		// after the last full sync: a full sync of 2 × 3 + 110 × 4 = 446 rules; then the
		// change is synced partially.
		{"iptables hourly full", KubeProxyIPTables, 100, hour + 2*Time(time.Second),
			[]bool{false, false, true, false}, []int64{44, 405, 446, 45}},
		// 10 + 1000 endpoints > 1000: largeClusterMode, so the hourly sync is partial and
		// writes only KUBE-SERVICES.
		{"iptables large cluster", KubeProxyIPTables, 1000, hour + 2*Time(time.Second),
			[]bool{false, false, false, false}, []int64{44, 4005, 2, 45}},
		// nftables rewrites no KUBE-SERVICES chain on a partial sync (its map takes
		// element updates), and keeps the hourly full sync in large clusters.
		{"nftables partial", KubeProxyNFTables, 100, 10 * Time(time.Second),
			[]bool{false, false, false}, []int64{43, 403, 43}},
		{"nftables large cluster full", KubeProxyNFTables, 1000, hour + 2*Time(time.Second),
			[]bool{false, false, true, false}, []int64{43, 4003, 3*2 + 4*1010, 43}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := flatProxy(tt.mode, 0)
			k.cfg.Costs.WriteNanosPerRule = 1000
			deliver(k, "small", 0, 0, 10)
			deliver(k, "big", 1, 0, tt.endpoints)
			deliver(k, "small", 0, tt.at, 10)
			k.flush(tt.at)
			var full []bool
			var micros []int64
			for _, s := range k.syncs {
				full = append(full, s.full)
				micros = append(micros, int64(s.cpu/Time(time.Microsecond)))
			}
			sameTimes(t, "full", full, tt.wantFull)
			sameTimes(t, "rules written", micros, tt.wantMicros)
		})
	}
}

// TestDeletionDropsTriggerTimes: a DELETED event drops the Service's pending trigger times.
// upstream: endpointschangetracker.go EndpointSliceUpdate (removeSlice → delete
// lastChangeTriggerTimes[namespacedName]).
func TestDeletionDropsTriggerTimes(t *testing.T) {
	k := flatProxy(KubeProxyIPTables, 100*time.Millisecond)
	deliver(k, "a", 0, 0, 10)
	deliver(k, "a", 0, 200*ms, 11) // waits for minInterval
	deliver(k, "b", 1, 300*ms, 5)  // another Service: kept
	k.receive("a", kubeProxyChange{svc: 0, delivered: 400 * ms}, 1, 100, false, true, objectEndpoints{ready: 11, all: 11})
	k.flush(400 * ms)
	sameTimes(t, "latencies", latencies(k), []Time{100 * ms, 900 * ms})
	if readyEndpoints(k) != 5 {
		t.Errorf("endpoints after deleting a = %d, want 5", readyEndpoints(k))
	}
}

// TestProgrammingAfterDelivery is the property: every change is programmed no sooner than
// it reached the node, which is no sooner than it was triggered, on random small clusters,
// backends and sync periods; and every change with a trigger time is programmed exactly once.
func TestProgrammingAfterDelivery(t *testing.T) {
	seeds := 6
	if testing.Short() {
		seeds = 2
	}
	for seed := range uint64(seeds) {
		rng := rand.New(rand.NewPCG(seed, 16))
		cfg := testConfig(20+rng.IntN(200), 50+rng.IntN(400))
		cfg.Seed = seed
		cfg.Network = NetworkConfig{Enabled: true, NodeIngressBitsPerSec: 1e8, TransportOverhead: true}
		cfg.APIServer.EgressBitsPerSec = 1e9
		modes := []KubeProxyMode{KubeProxyIPTables, KubeProxyNFTables, KubeProxyIPVS}
		cfg.KubeProxy = DefaultKubeProxy(modes[rng.IntN(3)])
		cfg.KubeProxy.MinSyncPeriod = time.Duration(rng.IntN(3000)) * time.Millisecond
		cfg.KubeProxy.CPU = 0.1 + rng.Float64()
		if seed%2 == 1 {
			cfg.Services[0].IPFamilies = []string{"IPv4", "IPv6"}
		}
		e, err := newEngine(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.run(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for mi, node := range e.kubeProxies {
			for fi, k := range node.families {
				if k == nil {
					continue
				}
				if len(latencies(k)) == 0 && (mi == modeIndex(ModeEndpointSlices) || fi == 0) {
					// (The Endpoints side's IPv6 proxier has the Service and no endpoints.)
					t.Fatalf("seed %d mode %d family %d: no programming samples", seed, mi, fi)
				}
				if k.misordered != 0 {
					t.Fatalf("seed %d (%s, minSyncPeriod %v): %d changes programmed before delivery or delivered before their trigger",
						seed, cfg.KubeProxy.Mode, cfg.KubeProxy.MinSyncPeriod, k.misordered)
				}
				if len(k.pending) != 0 || len(k.inFlight) != 0 {
					t.Errorf("seed %d: %d changes never programmed", seed, len(k.pending)+len(k.inFlight))
				}
			}
		}
	}
}

// TestCostDefaultsFromSources recomputes the iptables cost defaults by hand from the
// published figures they come from (DefaultKubeProxy): 12.772 s for 695,992 restored lines
// (kubernetes/kubernetes#96018) and mean syncs of 219.677 ms full against 104.894 ms partial
// (openshift/sdn#403).
func TestCostDefaultsFromSources(t *testing.T) {
	c := DefaultKubeProxy(KubeProxyIPTables).Costs
	write := 12.772e9 / 695_992 // 18,351 ns
	generate := write * 104.894 / (219.677 - 104.894)
	for _, x := range []struct {
		name      string
		got, want float64
	}{
		{"writeNanosPerRule", c.WriteNanosPerRule, 18_351},
		{"generateNanosPerRule", c.GenerateNanosPerRule, 16_770},
		{"write from the source", c.WriteNanosPerRule, write},
		{"generate from the source", c.GenerateNanosPerRule, generate},
	} {
		if d := x.got - x.want; d > 1 || d < -1 {
			t.Errorf("%s = %.1f, want %.1f", x.name, x.got, x.want)
		}
	}
	// The partial/full ratio the derivation reproduces: a sync of N rules that writes all of
	// them against one that writes none.
	if r := c.GenerateNanosPerRule / (c.GenerateNanosPerRule + c.WriteNanosPerRule); r < 0.477 || r > 0.478 {
		t.Errorf("partial/full = %.4f, want 104.894/219.677 = 0.4775", r)
	}
}

// TestNFTablesCosts checks nftables' cost defaults against the measurement they come from
// (upstream's nftables proxier with its fake backend, 10,000 Services × 10 endpoints: full
// sync 210–270 ms, partial 100–140 ms, Go work only), and the worked example of the two
// backends' partial sync there, one endpoint changed: nftables walks every Service and
// generates and writes one Service's chain (3 + 10 × 1 rules), about 0.13 s, consistent with
// kubernetes/kubernetes#126013 (a Service added beside 10,000: about 141 ms); iptables
// generates every Service's rules and rewrites KUBE-SERVICES, about 7.4 s.
// upstream: nftables/proxier.go syncProxyRules (skipServiceUpdate), iptables/proxier.go.
func TestNFTablesCosts(t *testing.T) {
	c := DefaultKubeProxy(KubeProxyNFTables).Costs
	if c.RulesPerServicePort != 3 || c.RulesPerEndpoint != 1 {
		t.Errorf("nftables rules: %v a Service port, %v an endpoint; want 3 and 1", c.RulesPerServicePort, c.RulesPerEndpoint)
	}
	const services, endpoints = 10_000, 10
	rules := float64(services * (3 + endpoints))
	// Go work alone (no base, no write): the measured syncs.
	partial := (c.WalkNanosPerServicePort*services + c.GenerateNanosPerRule*(3+endpoints)) / 1e6
	full := (c.WalkNanosPerServicePort*services + c.GenerateNanosPerRule*rules) / 1e6
	if partial < 100 || partial > 140 || full < 210 || full > 270 {
		t.Errorf("nftables Go work: partial %.1f ms, full %.1f ms; measured 100–140 and 210–270", partial, full)
	}
	if d := DefaultKubeProxy(KubeProxyIPTables).Costs; d.WalkNanosPerServicePort != 0 {
		t.Errorf("iptables walk cost %v, want 0 (in its generation cost)", d.WalkNanosPerServicePort)
	}
	syncOf := func(mode KubeProxyMode) time.Duration {
		cfg := DefaultKubeProxy(mode)
		k := newKubeProxyNode(cfg, 1, 0, false).proxier(0)
		for i := range services {
			k.receive(fmt.Sprint(i), kubeProxyChange{svc: i, delivered: 0}, 1, 1000, false, false, objectEndpoints{ready: endpoints, all: endpoints})
		}
		k.flush(0)
		k.receive("0", kubeProxyChange{svc: 0, delivered: Time(time.Minute)}, 1, 1000, false, false, objectEndpoints{ready: endpoints, all: endpoints})
		k.flush(Time(time.Minute))
		last := k.syncs[len(k.syncs)-1]
		if last.full {
			t.Errorf("%s: the sync of one change is a full sync", mode)
		}
		return time.Duration(last.cpu)
	}
	if got := syncOf(KubeProxyNFTables); got < 120*time.Millisecond || got > 150*time.Millisecond {
		t.Errorf("nftables partial sync of one Service among 10,000: %v, want about 0.13 s", got)
	}
	if got := syncOf(KubeProxyIPTables); got < 7*time.Second || got > 8*time.Second {
		t.Errorf("iptables partial sync of one Service among 10,000: %v, want about 7.4 s", got)
	}
}

// TestWatchCPU: the watch path serializes an object once per encoding whatever the number of
// watchers (upstream: apiserver storage/cacher/caching_object.go), pays per watcher and event
// a fixed cost and TLS over the bytes, and serializes (and gzips) a relist once per request;
// an update's DELETED (the old object) and a replayed event once per watcher (cacher.go
// setCachingObjects, dispatchEvent).
func TestWatchCPU(t *testing.T) {
	costs := APIServerCosts{EncodeProtobufNanosPerByte: 2, EncodeJSONNanosPerByte: 4, TLSNanosPerByte: 0.5, GzipNanosPerByte: 3, PerEventNanos: 1000}
	a := &apiServer{e: &Engine{cfg: Config{APIServer: APIServerConfig{Costs: costs}}}}
	cm := committed{objectBytes: [2]int64{1000, 3000}}
	tests := []struct {
		name       string
		encoded    [2]bool
		perWatcher [2]int64
		events     int64
		d          delivery
		want       Time
	}{
		// 1000 B × 2 once; 10 events × 1 µs; 10 × 1020 B × 0.5.
		{"protobuf, 10 watchers", [2]bool{true, false}, [2]int64{}, 10, delivery{}, 2000 + 10_000 + 5100},
		// Ten times the watchers: the serialization is not repeated.
		{"protobuf, 100 watchers", [2]bool{true, false}, [2]int64{}, 100, delivery{}, 2000 + 100_000 + 51_000},
		// A JSON watcher adds one JSON serialization (3000 B × 4).
		{"both encodings", [2]bool{true, true}, [2]int64{}, 10, delivery{}, 2000 + 12_000 + 10_000 + 5100},
		// Two watchers relist 50 kB uncompressed: serialized twice (× 2 ns) and sent (× 0.5).
		{"relists", [2]bool{true, false}, [2]int64{}, 10, delivery{relists: 2, relistRawBytes: 100_000, resentBytes: 100_000},
			2000 + 10_000 + 5100 + 200_000 + 50_000},
		// Gzipped to a quarter: serialized (× 2) and gzipped (× 3) whole, a quarter sent.
		{"gzipped relists", [2]bool{true, false}, [2]int64{}, 10, delivery{relists: 2, relistRawBytes: 100_000, resentBytes: 25_000},
			2000 + 10_000 + 5100 + 200_000 + 300_000 + 12_500},
		// Ten watchers whose selector stopped matching get a DELETED with the old object,
		// which each of them serializes: 10 × 1000 B × 2, no shared serialization.
		{"deleted by a selector change", [2]bool{}, [2]int64{10_000, 0}, 10, delivery{}, 20_000 + 10_000 + 5100},
		// Replayed events are serialized per watcher too: 30,000 B × 2.
		{"a replay", [2]bool{true, false}, [2]int64{}, 10, delivery{replayedBytes: 30_000}, 2000 + 10_000 + 5100 + 60_000},
	}
	for _, tt := range tests {
		if got := a.watchCPU(&cm, tt.encoded, tt.perWatcher, tt.events, tt.events*1020, tt.d); got != tt.want {
			t.Errorf("%s: %d ns, want %d", tt.name, got, tt.want)
		}
	}
}

// TestCPUShare: at half a core a sync and a decode take twice as long on the node, for the
// same CPU; the change enters the tracker only once decoded.
func TestCPUShare(t *testing.T) {
	k := flatProxy(KubeProxyIPTables, 100*time.Millisecond)
	k.cfg.CPU, k.cpuScale = 0.5, 2
	k.cfg.Costs.DecodeProtobufNanosPerByte = 10
	// 1000 bytes × 10 ns = 10 µs of decoding, 20 µs on the node.
	deliver(k, "a", 0, 0, 10)
	k.flush(0)
	s := k.syncs[0]
	if s.start != 20*Time(time.Microsecond) || s.end-s.start != 200*ms || s.cpu != 100*ms {
		t.Errorf("sync %+v, want start 20µs, 200ms on the node for 100ms of CPU", s)
	}
	if k.dec.cpu[0] != 10*Time(time.Microsecond) {
		t.Errorf("decode CPU %v, want 10µs", k.dec.cpu[0])
	}
}

// TestKubeProxyTotalsFollowChanges checks the running totals startSync reads (Service
// ports with endpoints, endpoints × ports, all endpoints × ports) against a sum over every
// Service, through random endpoint deltas (negative counts included, ready,
// serving-terminating, all, with zone and node hints and hinted for the proxier's zone and
// node), port changes and Services turning unserved and back. A Service whose ready
// endpoints all have node hints, some for the proxier's node, counts only those; else, all
// with zone hints and some for its zone, those (topologyModeFromHints).
func TestKubeProxyTotalsFollowChanges(t *testing.T) {
	k := newKubeProxyNode(KubeProxyConfig{}, 1, 0, false).proxier(0)
	r := rand.New(rand.NewPCG(3, 4))
	hints := map[int]*[4]int32{} // zone-hinted, for the zone, node-hinted, for the node
	for step := range 5000 {
		i := r.IntN(40)
		if r.IntN(4) == 0 {
			k.service(i, r.IntN(4)) // 0 counts as one port, as for a Service without ports
		} else {
			ports := 1
			if i < len(k.services) {
				ports = int(k.services[i].ports)
			}
			k.service(i, ports)
			c := kubeProxyChange{svc: i, endpointDelta: r.IntN(7) - 3, fallbackDelta: r.IntN(5) - 2,
				allDelta: r.IntN(9) - 4, unserved: r.IntN(6) == 0}
			if hints[i] == nil {
				hints[i] = &[4]int32{}
			}
			if r.IntN(2) == 0 {
				d := [4]int32{int32(r.IntN(7) - 3), int32(r.IntN(5) - 2), int32(r.IntN(7) - 3), int32(r.IntN(3) - 1)}
				c.hintsDelta = topologyHints{d[0], d[1], d[2], d[3]}
				for j := range d {
					hints[i][j] += d[j]
				}
			}
			k.apply(&c)
		}
		ports, total, all, walk := 0, 0, 0, 0
		for i, sv := range k.services {
			if sv.unserved {
				continue
			}
			if sv.known {
				walk += int(sv.ports)
			}
			n := int(sv.endpoints)
			switch {
			case n <= 0:
				n = int(sv.fallback) // none ready: the serving terminating ones
			case hints[i] != nil && hints[i][2] == sv.endpoints && hints[i][3] > 0:
				n = int(hints[i][3]) // every ready one node-hinted: the node's
			case hints[i] != nil && hints[i][0] == sv.endpoints && hints[i][1] > 0:
				n = int(hints[i][1]) // every ready one zone-hinted: the zone's
			}
			if n > 0 {
				ports += int(sv.ports)
				total += n * int(sv.ports)
			}
			all += max(int(sv.all), 0) * int(sv.ports)
		}
		if ports != k.servicePorts || total != k.portEndpoints || all != k.allPortEndpoints || walk != k.walkPorts {
			t.Fatalf("step %d: totals %d ports, %d endpoint rules, %d endpoints, %d walked ports; summed %d, %d, %d, %d",
				step, k.servicePorts, k.portEndpoints, k.allPortEndpoints, k.walkPorts, ports, total, all, walk)
		}
	}
}

// TestSyncWalksEveryServicePort: nftables' syncProxyRules ranges over the whole service map
// (svcPortMap, filled by the Service informer) on every sync, categorizing each Service
// port's endpoints before it decides on skipServiceUpdate, so a Service whose endpoints are
// all gone, or whose last object was deleted, is still walked; one the Service informer no
// longer selects (unserved) is not. upstream: nftables/proxier.go syncProxyRules, proxy
// servicechangetracker.go (a Service leaves svcPortMap only by its own DELETED event).
func TestSyncWalksEveryServicePort(t *testing.T) {
	cfg := DefaultKubeProxy(KubeProxyNFTables)
	cfg.Costs = KubeProxyCosts{WalkNanosPerServicePort: float64(time.Millisecond)}
	k := newKubeProxyNode(cfg, 1, 0, false).proxier(0)
	sec := Time(time.Second)
	update := func(name string, svc, ports int, at Time, ready int32, unserved, deleted bool) {
		k.receive(name, kubeProxyChange{svc: svc, delivered: at, unserved: unserved}, ports, 0, false, deleted,
			objectEndpoints{ready: ready, all: ready})
	}
	update("a", 0, 2, 0, 5, false, false)      // Service 0, 2 ports: walked
	update("b", 1, 1, 10*sec, 3, false, false) // Service 1, 1 port: 3 walked
	update("a", 0, 2, 20*sec, 0, false, false) // Service 0 has no endpoints: still walked
	update("a", 0, 2, 30*sec, 0, false, true)  // its slice deleted: the Service stays
	update("b", 1, 1, 40*sec, 3, true, false)  // Service 1 unserved: not walked
	k.flush(40 * sec)
	var got []time.Duration
	for _, s := range k.syncs {
		got = append(got, time.Duration(s.cpu))
	}
	ms := time.Millisecond
	sameTimes(t, "sync CPU", got, []time.Duration{2 * ms, 3 * ms, 3 * ms, 3 * ms, 2 * ms})
}

// TestProxierPerFamily: a node runs a proxier per IP family (upstream metaproxier), each
// with its own sync loop. An IPv4 change at 0 and an IPv6 change at 10 ms each start a sync
// at once (100 ms each): one loop would have held the second for minInterval (1 s) after
// the first sync. The informer is shared: at 10 µs of decoding each, two events delivered
// together are decoded one after the other.
func TestProxierPerFamily(t *testing.T) {
	cfg := DefaultKubeProxy(KubeProxyIPTables)
	cfg.Costs = KubeProxyCosts{SyncBase: 100 * time.Millisecond, RulesPerServicePort: 3, RulesPerEndpoint: 4}
	node := newKubeProxyNode(cfg, 1, 0, false)
	change := func(t Time) kubeProxyChange {
		return kubeProxyChange{svc: 0, trigger: t, hasTrigger: true, delivered: t}
	}
	node.proxier(0).receive("web-v4", change(0), 1, 1000, false, false, objectEndpoints{ready: 10, all: 10})
	node.proxier(1).receive("web-v6", change(10*ms), 1, 1000, false, false, objectEndpoints{ready: 10, all: 10})
	var lat []Time
	for _, k := range node.proxiers() {
		k.flush(10 * ms)
		lat = append(lat, latencies(k)...)
	}
	sameTimes(t, "IPv4 syncs", syncSpans(node.proxier(0)), []span{{0, 100 * ms}})
	sameTimes(t, "IPv6 syncs", syncSpans(node.proxier(1)), []span{{10 * ms, 110 * ms}})
	sameTimes(t, "latencies", lat, []Time{100 * ms, 100 * ms})
	if k := node.proxier(1); readyEndpoints(k) != 10 || k.servicePorts != 1 {
		t.Errorf("IPv6 proxier: %d endpoints, %d Service ports; want 10 and 1", readyEndpoints(k), k.servicePorts)
	}

	cfg.Costs.DecodeProtobufNanosPerByte = 10
	node = newKubeProxyNode(cfg, 1, 0, false)
	node.proxier(0).receive("web-v4", change(0), 1, 1000, false, false, objectEndpoints{ready: 10, all: 10})
	node.proxier(1).receive("web-v6", change(0), 1, 1000, false, false, objectEndpoints{ready: 10, all: 10})
	us := Time(time.Microsecond)
	if s4, s6 := node.proxier(0).current.start, node.proxier(1).current.start; s4 != 10*us || s6 != 20*us {
		t.Errorf("syncs start at %v and %v, want 10µs and 20µs (one informer decodes both)", s4, s6)
	}
	if node.dec.cpu[0] != 20*us {
		t.Errorf("decode CPU %v, want 20µs", node.dec.cpu[0])
	}
}

// TestDualStackEngineProxiers runs a dual-stack Service through the engine: the EndpointSlice
// side's node has both proxiers, each programming its family's endpoints; the Endpoints side
// only the primary family's (the Endpoints controller writes only that family's addresses).
func TestDualStackEngineProxiers(t *testing.T) {
	cfg := testConfig(20, 30)
	cfg.Services[0].IPFamilies = []string{"IPv6", "IPv4"}
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.run(); err != nil {
		t.Fatal(err)
	}
	slices := e.kubeProxies[modeIndex(ModeEndpointSlices)]
	for fi, k := range slices.families {
		if k == nil {
			t.Fatalf("EndpointSlices: no proxier for family %d", fi)
		}
		if readyEndpoints(k) != 30 || len(k.syncs) == 0 {
			t.Errorf("EndpointSlices family %d: %d endpoints programmed, %d syncs; want 30 and some", fi, readyEndpoints(k), len(k.syncs))
		}
	}
	// The Endpoints side's IPv4 proxier has the Service (its IPv4 cluster IP) and no
	// endpoints: it synced the Service's creation.
	legacy := e.kubeProxies[modeIndex(ModeEndpoints)]
	if v4, v6 := legacy.families[0], legacy.families[1]; v4 == nil || v6 == nil || readyEndpoints(v6) != 30 || readyEndpoints(v4) != 0 || len(v4.syncs) == 0 {
		t.Errorf("Endpoints: proxiers %v, want IPv6's with 30 endpoints and IPv4's with none but a sync", legacy.families)
	}
}

// TestServiceAddedSyncs: a new Service is a change of each proxier's Service change tracker
// (for each IP family it has a cluster IP of), so the proxier syncs as soon as its Service
// informer has it, before the first endpoints object of the Service comes; that object
// then waits for minSyncPeriod after that sync. A headless Service (no cluster IP) makes no
// change, and one with a service-proxy-name label is not selected by the Service informer.
// upstream: iptables/proxier.go OnServiceAdd → OnServiceUpdate (serviceChanges.Update, then
// Sync); servicechangetracker.go Update, serviceToServiceMap; proxy/util ShouldSkipService;
// cmd/kube-proxy/app/server.go (labelSelectorNoProxyName).
func TestServiceAddedSyncs(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*ServiceConfig)
		sync bool // a sync at the Service's creation (time 0)
	}{
		{"cluster IP", func(*ServiceConfig) {}, true},
		{"dual-stack", func(s *ServiceConfig) { s.IPFamilies = []string{"IPv4", "IPv6"} }, true},
		{"headless", func(s *ServiceConfig) { s.Headless = true }, false},
		{"service-proxy-name", func(s *ServiceConfig) { s.Labels = map[string]string{model.LabelServiceProxyName: "other"} }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(20, 30)
			cfg.Timeline = cfg.Timeline[:1]
			tc.edit(&cfg.Services[0])
			e, err := newEngine(cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.run(); err != nil {
				t.Fatal(err)
			}
			for mi, node := range e.kubeProxies {
				for fi, k := range node.families {
					if fi >= len(e.services[0].svc.IPFamilies) && k == nil {
						continue
					}
					atCreation := k != nil && len(k.syncs) > 0 && k.syncs[0].start == 0
					if atCreation != tc.sync {
						t.Errorf("mode %d family %d: a sync at the Service's creation = %v, want %v", mi, fi, atCreation, tc.sync)
					}
					if tc.sync && k != nil && len(k.syncs) > 1 && k.syncs[1].start < k.syncs[0].end+Time(cfg.KubeProxy.MinSyncPeriod) {
						t.Errorf("mode %d family %d: second sync at %v, before minSyncPeriod after the first (%v)", mi, fi, k.syncs[1].start, k.syncs[0].end)
					}
				}
			}
		})
	}
}

// TestBurstOfChangesLetGo: a burst of changes (the ADDED events of many Services while a
// sync runs) is checked out by the next sync and programmed by it, every change once, and
// its list is not held after that sync ends; a list the size of a usual sync's is kept.
func TestBurstOfChangesLetGo(t *testing.T) {
	k := flatProxy(KubeProxyIPTables, 10*time.Millisecond)
	const burst = 3 * proxyChangesKeep
	k.serviceEvent(0, 1, 0, 0, true) // the first sync starts at once
	for i := 1; i <= burst; i++ {
		k.serviceEvent(i, 1, ms, 0, true) // arrive while it runs
	}
	if len(k.pending) != burst {
		t.Fatalf("%d changes pending during the first sync, want %d", len(k.pending), burst)
	}
	k.advance(k.current.end+Time(k.cfg.MinSyncPeriod), true) // the second sync starts
	if k.state != runnerSyncing || len(k.syncs) != 1 {
		t.Fatalf("state %v after %d syncs: want the second sync running", k.state, len(k.syncs))
	}
	if len(k.inFlight) != burst || len(k.pending) != 0 {
		t.Errorf("the second sync checked out %d changes, left %d pending; want %d, 0", len(k.inFlight), len(k.pending), burst)
	}
	k.advance(Time(time.Hour), true) // it ends, and periodic syncs after it
	if len(k.syncs) < 2 || k.state == runnerSyncing {
		t.Fatalf("%d syncs, state %v: want the burst's sync ended", len(k.syncs), k.state)
	}
	if c := max(cap(k.pending), cap(k.inFlight)); c > proxyChangesKeep {
		t.Errorf("after the burst's sync, a list of capacity %d is kept (limit %d)", c, proxyChangesKeep)
	}
	// A usual sync's list is kept for the next ones.
	for i := range 3 {
		k.serviceEvent(i, 1, k.clock, 0, true)
	}
	k.advance(2*Time(time.Hour), true)
	if max(cap(k.pending), cap(k.inFlight)) == 0 {
		t.Error("after a sync of 3 changes, no list is kept for the next sync")
	}
}

// TestLargeClusterModeAsUpstream: iptables' largeClusterMode counts every endpoint in the
// proxier's endpointsMap, ready or not, and a sync decides on a full sync with the mode the
// previous sync set (upstream: iptables/proxier.go syncProxyRules reads largeClusterMode for
// doFullSync before it counts totalEndpoints).
func TestLargeClusterModeAsUpstream(t *testing.T) {
	hour := Time(time.Hour)
	tests := []struct {
		name     string
		deliver  func(k *kubeProxy)
		until    Time
		wantFull []bool
	}{
		// The sync that checks out the big Service is an hour after the last full sync
		// (time 0), and the last sync left largeClusterMode off: a full sync, though the
		// big Service takes the count past 1000.
		{"mode of the previous sync", func(k *kubeProxy) {
			deliver(k, "small", 0, 0, 10)
			deliver(k, "small", 0, hour-500*ms, 10)
			deliver(k, "big", 1, hour-100*ms, 1000)
		}, hour, []bool{false, false, true}},
		// 10 + 1000 endpoints, only 110 of them ready: large, so the hourly sync is partial.
		{"endpoints not ready count", func(k *kubeProxy) {
			deliver(k, "small", 0, 0, 10)
			k.receive("big", kubeProxyChange{svc: 1, trigger: 0, hasTrigger: true, delivered: 0}, 1, 1000, false, false, objectEndpoints{ready: 100, all: 1000})
		}, hour + 2*Time(time.Second), []bool{false, false, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := flatProxy(KubeProxyIPTables, 0)
			k.cfg.Costs.WriteNanosPerRule = 1000
			tt.deliver(k)
			k.flush(tt.until)
			var full []bool
			for _, s := range k.syncs {
				full = append(full, s.full)
			}
			sameTimes(t, "full", full, tt.wantFull)
		})
	}
}

// TestDefaultMinSyncPeriodPerMode: v1alpha1 defaults.go defaults iptables.minSyncPeriod and
// nftables.minSyncPeriod to 1 s but sets none for ipvs, so ipvs runs with 0: a change that
// arrives during a sync is synced as soon as it ends, where iptables waits a second.
func TestDefaultMinSyncPeriodPerMode(t *testing.T) {
	for _, tt := range []struct {
		mode  KubeProxyMode
		syncs []span
	}{
		{KubeProxyIPVS, []span{{0, 100 * ms}, {100 * ms, 200 * ms}}},
		{KubeProxyIPTables, []span{{0, 100 * ms}, {1100 * ms, 1200 * ms}}},
		{KubeProxyNFTables, []span{{0, 100 * ms}, {1100 * ms, 1200 * ms}}},
	} {
		k := flatProxy(tt.mode, 100*time.Millisecond)
		deliver(k, "a", 0, 0, 10)
		deliver(k, "a", 0, 50*ms, 11)
		k.flush(50 * ms)
		sameTimes(t, string(tt.mode)+" syncs", syncSpans(k), tt.syncs)
	}
}

// TestTerminatingFallback: a Service with no ready endpoint has rules for its serving and
// terminating ones; once one is ready, for the ready ones only. Syncs write 3 rules per
// changed Service port and 4 per programmed endpoint (1 µs each), plus a KUBE-SERVICES jump
// per Service port with endpoints, or a REJECT filter rule per one without.
// upstream: pkg/proxy/topology.go CategorizeEndpoints.
func TestTerminatingFallback(t *testing.T) {
	k := flatProxy(KubeProxyIPTables, 0)
	k.cfg.Costs.WriteNanosPerRule = 1000
	k.cfg.MinSyncPeriod = 0
	change := func(at Time, counts objectEndpoints) {
		k.receive("web", kubeProxyChange{svc: 0, delivered: at}, 1, 0, false, false, counts)
		k.flush(at)
	}
	change(0, objectEndpoints{ready: 10, all: 10})
	change(ms, objectEndpoints{fallback: 10, all: 10}) // all terminating, still serving
	change(2*ms, objectEndpoints{ready: 1, fallback: 10, all: 11})
	change(3*ms, objectEndpoints{all: 10}) // none ready or serving
	var micros []int64
	for _, s := range k.syncs {
		micros = append(micros, int64(s.cpu/Time(time.Microsecond)))
	}
	sameTimes(t, "rules written", micros, []int64{44, 44, 8, 4})
}

// TestKubeProxyProgramsTheZonesHintedEndpoints runs Services with hints (trafficDistribution
// PreferSameZone, PreferSameNode with a Deployment and with a DaemonSet, topology-mode Auto)
// and without, through a rollout, and checks how many endpoints the representative
// kube-proxy programs of each against upstream's rule applied to the stored slices: the
// ready endpoints, unless every one has a node hint and some are hinted for the proxier's
// node (the last), then those; else unless every one has a zone hint and some are hinted
// for its zone, those; none ready: the serving terminating ones.
// upstream: pkg/proxy/topology.go CategorizeEndpoints, topologyModeFromHints,
// availableForTopology.
func TestKubeProxyProgramsTheZonesHintedEndpoints(t *testing.T) {
	cfg := testConfig(30, 60)
	base := cfg.Services[0]
	cfg.Services = nil
	for _, c := range []struct{ name, traffic, mode, kind string }{
		{"same-zone", "PreferSameZone", "", ""}, {"auto", "", "Auto", ""}, {"plain", "", "", ""},
		{"same-node", "PreferSameNode", "", ""}, {"node-local", "PreferSameNode", "", KindDaemonSet},
	} {
		s := base
		s.Name, s.TrafficDistribution, s.TopologyMode, s.WorkloadKind = c.name, c.traffic, c.mode, c.kind
		cfg.Services = append(cfg.Services, s)
	}
	cfg.Timeline = append(cfg.Timeline, Action{Name: "rollout", Kind: ActionRollout})
	e, err := newEngine(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.run(); err != nil {
		t.Fatal(err)
	}
	zone, node := e.proxyAt.zone, e.proxyAt.node
	y := e.ctls[0].syncer.(*sliceSyncer)
	k := e.kubeProxies[modeIndex(ModeEndpointSlices)].proxier(0)
	narrowed := map[string]int{}
	for _, s := range e.services {
		var ready, hinted, forZone, nodeHinted, forNode, fallback int
		for _, st := range y.stored[s.idx].list {
			for _, ep := range st.slice.Endpoints {
				switch c := ep.Conditions; {
				case c.Ready != model.ConditionFalse:
					ready++
					if ep.Hints != nil && len(ep.Hints.ForZones) > 0 {
						hinted++
						if slices.Contains(ep.Hints.ForZones, zone) {
							forZone++
						}
					}
					if ep.Hints != nil && len(ep.Hints.ForNodes) > 0 {
						nodeHinted++
						if slices.Contains(ep.Hints.ForNodes, node) {
							forNode++
						}
					}
				case c.Serving != model.ConditionFalse && c.Terminating == model.ConditionTrue:
					fallback++
				}
			}
		}
		want := ready
		switch {
		case ready == 0:
			want = fallback
		case nodeHinted == ready && forNode > 0:
			want = forNode
			narrowed["node"]++
		case hinted == ready && forZone > 0:
			want = forZone
			narrowed["zone"]++
		}
		if got := k.programmed(s.idx); got != want {
			t.Errorf("%s: kube-proxy programs %d endpoints, want %d (%d ready, %d hinted, %d for %s)",
				s.svc.Name, got, want, ready, hinted, forZone, zone)
		}
	}
	if narrowed["zone"] == 0 || narrowed["node"] == 0 {
		t.Errorf("Services narrowed to the zone's and to the node's endpoints: %v, want some of each", narrowed)
	}
}

// TestRepresentativeNode checks the node the representative kube-proxies stand for: the
// last node, unless its zone is one a failNodes or drainNodes action takes whole (their
// counts take the first nodes), then the last node of another zone; the first node when
// every zone is taken.
func TestRepresentativeNode(t *testing.T) {
	var nodes []*model.Node
	for i, z := range []string{"a", "b", "c", "a", "b", "c"} {
		nodes = append(nodes, &model.Node{Name: fmt.Sprintf("n%d", i), Zone: z})
	}
	fail := func(zone string) Action { return Action{Kind: ActionFailNodes, Zone: zone} }
	for _, tc := range []struct {
		timeline []Action
		want     string
	}{
		{nil, "n5"},
		{[]Action{{Kind: ActionFailNodes, Nodes: 5}, {Kind: ActionRollout}}, "n5"},
		{[]Action{fail("c")}, "n4"},
		{[]Action{fail("c"), {Kind: ActionDrainNodes, Zone: "b"}}, "n3"},
		{[]Action{fail("a"), fail("b"), fail("c")}, "n0"},
	} {
		if got := representativeNode(nodes, tc.timeline); got.node != tc.want || got.zone != nodes[tc.want[1]-'0'].Zone {
			t.Errorf("%+v: %+v, want %s", tc.timeline, got, tc.want)
		}
	}
	if got := representativeNode(nil, nil); got != (proxyPlace{}) {
		t.Errorf("no nodes: %+v", got)
	}
}

// TestServiceProxyNameSyncs follows a Service through the service-proxy-name label: kube-proxy's
// Service informer does not select it, so the label's coming is the Service's DELETED event
// and its going an ADDED one (a selector transition), each a change of every proxier's
// Service change tracker and a sync at once, before the controllers' rewrites of the
// Service's endpoints objects arrive. The first sync removes the Service's rules (the
// sync has nothing left to write); the second writes them again in the EndpointSlice mode,
// whose kube-proxy kept receiving the hidden Service's slices, and not yet in the Endpoints
// mode, whose kube-proxy gets the Endpoints object back only with its rewrite.
// upstream: iptables/proxier.go OnServiceDelete and OnServiceAdd → OnServiceUpdate
// (serviceChanges.Update, then Sync); cmd/kube-proxy/app/server.go labelSelectorNoProxyName.
func TestServiceProxyNameSyncs(t *testing.T) {
	cfg := testConfig(20, 30)
	cfg.Timeline = []Action{
		{Name: "create", Kind: ActionCreate},
		{Name: "settle", Kind: ActionWait, Duration: 5 * time.Second},
		{Name: "hide", Kind: ActionLabelService, Labels: map[string]string{model.LabelServiceProxyName: "other"}},
		{Name: "settle-hidden", Kind: ActionWait, Duration: 5 * time.Second},
		{Name: "show", Kind: ActionLabelService, Labels: map[string]string{model.LabelServiceProxyName: ""}},
	}
	e, res := runEngineOf(t, cfg, nil)
	base := Time(DefaultKubeProxyCosts().SyncBase)
	for _, m := range []Mode{ModeEndpointSlices, ModeEndpoints} {
		k := e.kubeProxies[modeIndex(m)].families[0]
		syncAt := func(at Time) *kubeProxySync {
			for i := range k.syncs {
				if k.syncs[i].start == at {
					return &k.syncs[i]
				}
			}
			return nil
		}
		hide, show := syncAt(res.Phases[2].Start), syncAt(res.Phases[4].Start)
		if hide == nil || show == nil {
			t.Errorf("%s: syncs at the label's coming and going %v and %v, want both", m, hide, show)
			continue
		}
		if hide.cpu != base {
			t.Errorf("%s: the sync hiding the Service cost %v, want the base %v (no rule left)", m, hide.cpu, base)
		}
		// Its 30 endpoints' rules cost about 4 ms; the Service port's own under 0.1 ms.
		if wantEndpoints, got := m == ModeEndpointSlices, show.cpu > base+ms; got != wantEndpoints {
			t.Errorf("%s: the sync showing the Service cost %v against the base %v; endpoints programmed = %v, want %v", m, show.cpu, base, got, wantEndpoints)
		}
	}
}

// TestReplayServiceCreatedDuringSyncsKubeProxy: a Service created during a recording reaches
// kube-proxy's Service informer as it reaches the controllers', so every kube-proxy syncs
// then, and the Service's first endpoints object, written a few milliseconds later, waits
// out minSyncPeriod after that sync: three syncs in all with the one later update (the
// recording of TestReplayServiceCreatedDuring), and the first object programmed a
// minSyncPeriod late. upstream: iptables/proxier.go OnServiceAdd → Sync.
func TestReplayServiceCreatedDuringSyncsKubeProxy(t *testing.T) {
	cfg := testConfig(3, 1)
	for _, warm := range []bool{false, true} {
		svcs, nodes, err := ClusterObjects(cfg)
		if err != nil {
			t.Fatal(err)
		}
		svcs[0].CreationTimestamp = timestamp(Time(30 * time.Second))
		src := staleTrace(10, nodes, 10*time.Second, 60*time.Second)
		res, _, err := ReplayWith(ReplayOptions{Warm: warm}, cfg, svcs, nodes, src, nil)
		if err != nil {
			t.Fatal(err)
		}
		churn := res.Phases[len(res.Phases)-1]
		for _, m := range []Mode{ModeEndpoints, ModeEndpointSlices} {
			r := churn.Mode(m)
			if r.KubeProxySyncs != 3 || r.Programming.MaxSeconds < 1 {
				t.Errorf("warm %t, %s: %d syncs, programming max %v; want 3 (the Service's, its first object's a minSyncPeriod later, the update's) and at least 1 s",
					warm, m, r.KubeProxySyncs, r.Programming.MaxSeconds)
			}
		}
	}
}
