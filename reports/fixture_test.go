package reports

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"epsim/sim"
)

// update rewrites every testdata/*.golden file of this package: go test ./reports -update.
var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// checkGolden compares got with testdata/name, or rewrites the file with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./reports -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./reports -update rewrites it)\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

func at(d time.Duration) sim.Time { return sim.Time(d) }

// fixtureResults is a hand-made run shaped like scenarios/5000-nodes.yaml: a 10,000-endpoint
// Service on 5,000 nodes is created, one endpoint flips not-ready, then a rolling update. The
// numbers are plausible, not simulated: the tests check rendering, not the engine.
func fixtureResults() *sim.Results {
	create := sim.PhaseResult{
		Name: "create", Start: 0, End: at(40 * time.Second),
		Endpoints: sim.ModeResult{
			Writes: sim.WriteCounts{Create: 1, Update: 37}, Syncs: 40, Objects: 1,
			EtcdBytes: 22_412_000, RequestBytes: 22_400_000, WatchEvents: 190_114,
			FanoutBytes: 112_030_000_000, PerNodeBytes: 22_406_000, MaxObjectBytes: 1_180_233,
			PeakEgressBytesPerSec: 5_901_000_000,
			Propagation:           sim.Latency{Count: 38, P50Seconds: 1.25, P90Seconds: 2.5, P99Seconds: 3.125, MaxSeconds: 3.5},
		},
		EndpointSlices: sim.ModeResult{
			Writes: sim.WriteCounts{Create: 100, Update: 60}, Syncs: 41, Objects: 100,
			EtcdBytes: 3_905_000, RequestBytes: 3_900_000, WatchEvents: 800_480,
			FanoutBytes: 19_525_000_000, PerNodeBytes: 3_905_000, MaxObjectBytes: 15_340,
			PeakEgressBytesPerSec: 1_201_000_000,
			Propagation:           sim.Latency{Count: 160, P50Seconds: 0.05, P90Seconds: 0.1, P99Seconds: 0.25, MaxSeconds: 0.3},
		},
	}
	notReady := sim.PhaseResult{
		Name: "one-endpoint-not-ready", Start: at(40 * time.Second), End: at(75 * time.Second),
		Endpoints: sim.ModeResult{
			Writes: sim.WriteCounts{Update: 2}, Syncs: 2, Objects: 1,
			EtcdBytes: 2_360_466, WatchEvents: 10_006, FanoutBytes: 5_903_000_000,
			PerNodeBytes: 1_180_600, MaxObjectBytes: 1_180_233, PeakEgressBytesPerSec: 2_951_500_000,
			Propagation: sim.Latency{Count: 2, P50Seconds: 0.75, P90Seconds: 0.75, P99Seconds: 0.75, MaxSeconds: 0.75},
		},
		EndpointSlices: sim.ModeResult{
			Writes: sim.WriteCounts{Update: 2}, Syncs: 2, Objects: 100,
			EtcdBytes: 30_680, WatchEvents: 10_006, FanoutBytes: 76_700_000,
			PerNodeBytes: 15_340, MaxObjectBytes: 15_340, PeakEgressBytesPerSec: 38_350_000,
			Propagation: sim.Latency{Count: 2, P50Seconds: 0.02, P90Seconds: 0.02, P99Seconds: 0.02, MaxSeconds: 0.02},
		},
	}
	rollout := sim.PhaseResult{
		Name: "rollout", Start: at(75 * time.Second), End: at(3 * time.Minute),
		Endpoints: sim.ModeResult{
			Writes: sim.WriteCounts{Update: 1_204}, FailedWrites: 3, NoopWrites: 12, Syncs: 1_300, Objects: 1,
			EtcdBytes: 1_421_000_000, WatchEvents: 6_024_000, FanoutBytes: 7_107_000_000_000,
			PerNodeBytes: 1_421_400_000, MaxObjectBytes: 1_572_864, PeakEgressBytesPerSec: 88_000_000_000,
			TruncatedObjects: 0,
			Propagation:      sim.Latency{Count: 1_204, P50Seconds: 4.5, P90Seconds: 9, P99Seconds: 12.345, MaxSeconds: 15},
		},
		EndpointSlices: sim.ModeResult{
			Writes: sim.WriteCounts{Create: 100, Update: 19_870, Delete: 100}, Syncs: 1_310, Objects: 100,
			EtcdBytes: 305_000_000, WatchEvents: 100_370_070, FanoutBytes: 1_525_000_000_000,
			PerNodeBytes: 305_000_000, MaxObjectBytes: 15_400, PeakEgressBytesPerSec: 9_100_000_000,
			Propagation: sim.Latency{Count: 20_070, P50Seconds: 0.1, P90Seconds: 0.4, P99Seconds: 1.5, MaxSeconds: 2},
		},
	}
	// The consumer side: kube-proxy's programming latency and CPU, the API servers' CPU.
	consumer := func(m *sim.ModeResult, p50, p99, cpu float64, syncs int64, apiCPU float64) {
		m.Programming = sim.Latency{Count: m.Writes.Total(), P50Seconds: p50, P90Seconds: (p50 + p99) / 2, P99Seconds: p99, MaxSeconds: p99 + 0.5}
		m.KubeProxyCPUSeconds, m.KubeProxySyncs, m.PeakSyncSeconds = cpu, syncs, 1.375
		m.KubeProxyDecodeCPUSeconds = float64(m.PerNodeBytes) * 7.5e-9
		m.KubeProxyBusyFraction, m.APIServerCPUSeconds = min(cpu/60, 1), apiCPU
	}
	consumer(&create.Endpoints, 2.5, 4.25, 30.5, 20, 120.25)
	consumer(&create.EndpointSlices, 1.5, 2.5, 12.25, 9, 20.5)
	create.EndpointSlices.KubeProxyFullSyncs, create.Endpoints.KubeProxyFullSyncs = 1, 1
	consumer(&notReady.Endpoints, 2.25, 2.25, 2.75, 1, 5.5)
	consumer(&notReady.EndpointSlices, 1.375, 1.375, 1.375, 1, 0.125)
	consumer(&rollout.Endpoints, 30, 45.5, 150.75, 100, 7000)
	consumer(&rollout.EndpointSlices, 3, 8.5, 60.5, 44, 1500)
	total := sim.PhaseResult{Name: "total", Start: 0, End: at(3 * time.Minute)}
	for _, p := range []sim.PhaseResult{create, notReady, rollout} {
		for _, m := range AllModes {
			dst, src := total.Mode(m), p.Mode(m)
			dst.Writes.Create += src.Writes.Create
			dst.Writes.Update += src.Writes.Update
			dst.Writes.Delete += src.Writes.Delete
			dst.FailedWrites += src.FailedWrites
			dst.NoopWrites += src.NoopWrites
			dst.Syncs += src.Syncs
			dst.Objects = src.Objects
			dst.EtcdBytes += src.EtcdBytes
			dst.RequestBytes += src.RequestBytes
			dst.WatchEvents += src.WatchEvents
			dst.FanoutBytes += src.FanoutBytes
			dst.PerNodeBytes += src.PerNodeBytes
			dst.MaxObjectBytes = max(dst.MaxObjectBytes, src.MaxObjectBytes)
			dst.PeakEgressBytesPerSec = max(dst.PeakEgressBytesPerSec, src.PeakEgressBytesPerSec)
			dst.TruncatedObjects += src.TruncatedObjects
			dst.KubeProxyCPUSeconds += src.KubeProxyCPUSeconds
			dst.KubeProxyDecodeCPUSeconds += src.KubeProxyDecodeCPUSeconds
			dst.KubeProxySyncs += src.KubeProxySyncs
			dst.KubeProxyFullSyncs += src.KubeProxyFullSyncs
			dst.PeakSyncSeconds = max(dst.PeakSyncSeconds, src.PeakSyncSeconds)
			dst.APIServerCPUSeconds += src.APIServerCPUSeconds
		}
	}
	total.Endpoints.Programming = sim.Latency{Count: 1_244, P50Seconds: 28, P90Seconds: 40, P99Seconds: 45.5, MaxSeconds: 46}
	total.EndpointSlices.Programming = sim.Latency{Count: 20_232, P50Seconds: 3, P90Seconds: 6, P99Seconds: 8.5, MaxSeconds: 9}
	total.Endpoints.KubeProxyBusyFraction, total.EndpointSlices.KubeProxyBusyFraction = 0.95, 0.4
	total.Endpoints.Propagation = sim.Latency{Count: 1_244, P50Seconds: 4.25, P90Seconds: 9, P99Seconds: 12.3, MaxSeconds: 15}
	total.EndpointSlices.Propagation = sim.Latency{Count: 20_232, P50Seconds: 0.1, P90Seconds: 0.4, P99Seconds: 1.5, MaxSeconds: 2}

	res := &sim.Results{
		Scenario: "5000-nodes", Seed: 42, Nodes: 5_000, Watchers: 5_003,
		Phases: []sim.PhaseResult{create, notReady, rollout}, Total: total,
		Events: 1_234_567, EndTime: at(3 * time.Minute),
	}
	// A sparse series: quiet seconds are missing, as the engine may leave them out.
	for s := int64(0); s < 180; s += 3 {
		res.Series = append(res.Series, sim.Bucket{
			Second:         s,
			Endpoints:      sim.BucketMode{Writes: 1 + s%7, FanoutBytes: (1 + s%7) * 5_901_000_000, EtcdBytes: (1 + s%7) * 1_180_000},
			EndpointSlices: sim.BucketMode{Writes: 10 + s%11, FanoutBytes: (10 + s%11) * 76_700_000, EtcdBytes: (10 + s%11) * 15_340},
		})
	}
	res.Writes = []sim.WriteRecord{
		{At: at(1500 * time.Millisecond), Mode: sim.ModeEndpoints, Verb: "create", Kind: "Endpoints", Namespace: "default", Name: "big",
			Endpoints: 10_000, ObjectBytes: 1_180_233, EventBytes: 1_180_250, Watchers: 5_003, Outcome: "ok", Phase: "create", Latency: at(3 * time.Second)},
		{At: at(1500 * time.Millisecond), Mode: sim.ModeEndpointSlices, Verb: "create", Kind: "EndpointSlice", Namespace: "default", Name: "big-x7k2p",
			Endpoints: 100, ObjectBytes: 15_340, EventBytes: 15_360, Watchers: 5_003, Outcome: "ok", Phase: "create", Latency: at(50 * time.Millisecond)},
		{At: at(100 * time.Second), Mode: sim.ModeEndpoints, Verb: "update", Kind: "Endpoints", Namespace: "default", Name: "big",
			Endpoints: 13_400, ObjectBytes: 1_600_000, Outcome: "failed", Phase: "rollout"},
	}
	// The big Service carries almost everything; twelve small ones the rest, so the table
	// lists the top ten of thirteen.
	res.Services = []sim.ServiceResult{{Namespace: "default", Name: "big", Replicas: 10_000,
		Endpoints: sim.ServiceModeResult{Writes: 1_236, FailedWrites: 3, FanoutBytes: 7_200_000_000_000, MaxObjectBytes: 1_600_000,
			Propagation: sim.Latency{Count: 1_236, P99Seconds: 12.3}},
		EndpointSlices: sim.ServiceModeResult{Writes: 20_100, FanoutBytes: 1_490_000_000_000, MaxObjectBytes: 15_400,
			Propagation: sim.Latency{Count: 20_100, P99Seconds: 1.5}}}}
	for i := range 12 {
		n := int64(i%5 + 1)
		res.Services = append(res.Services, sim.ServiceResult{Namespace: "shop", Name: fmt.Sprintf("svc-%d", i), Replicas: int(n) * 10,
			Endpoints: sim.ServiceModeResult{Writes: n, FanoutBytes: n * 20_000_000, MaxObjectBytes: 4_000,
				Propagation: sim.Latency{Count: n, P99Seconds: 0.02}},
			EndpointSlices: sim.ServiceModeResult{Writes: n, FanoutBytes: n * 20_500_000, MaxObjectBytes: 4_100,
				Propagation: sim.Latency{Count: n, P99Seconds: 0.021}}})
	}
	for i := range 6 {
		res.Layout = append(res.Layout, sim.LayoutSample{
			At: at(time.Duration(i) * 30 * time.Second), Slices: 100 + i, Endpoints: 10_000 + 10*i,
			Min: 60 + i, Median: 100, Max: 100,
		})
	}
	return res
}
