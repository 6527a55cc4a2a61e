package scenarios

import (
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"testing"
	"time"

	"epsim/internal/gcfloor"
	"epsim/internal/hugeheap"
	"epsim/sim"
)

// BenchmarkScale is one row per line of issue 15's table, and rows of workloads rolled a pod
// or a few at a time (DaemonSets, a StatefulSet, a Deployment with maxSurge 1): whole runs
// of both control planes with --out off, reporting events/s, ns per event and per pod event
// (CPU) and the peak live heap (the heap left after a GC, sampled once per virtual second of
// the run) in MB, in bytes per pod of the row's replicas and in bytes per pod the run held
// when the peak was read (held-pod: the replicas, a rollout's surge and the old pods still
// terminating; as of the reading, while the heap is as of the GC before it).
// Set EPSIM_HEAPPROFILE=FILE to write an in-use heap profile at the start of the run's second
// phase (every pod of the create phase exists then), or of phase EPSIM_HEAPPROFILE_PHASE;
// EPSIM_HEAPPROFILE_PEAK=FILE writes one near the peak live heap (of the peak itself with
// EPSIM_PEAK_GC_EVERY).
//
// The times are of runs as sim run makes them: with the collector's floor (internal/gcfloor)
// and no observer. The heap is sampled in one more run, untimed, that collects at GOGC=100.
// The live heap is known only as of the last GC, and a large run has few GCs: the peak it
// reports can miss the true peak by 10 %. EPSIM_PEAK_GC_EVERY=DURATION (virtual time, e.g.
// 1h) forces a GC at each multiple of it in that run, so that the peak is exact to that
// resolution.
//
//	go test ./scenarios -run '^$' -bench 'Scale/many-services' -benchtime 1x
func BenchmarkScale(b *testing.B) {
	type row struct {
		name, scenario string
		yaml           string
		sets           []string
		pods           int
	}
	svcs := func(n int) row {
		return row{name: fmt.Sprintf("services=%d", n), yaml: ServicesOf10(n), pods: 10 * n}
	}
	rows := []row{
		{name: "5000-nodes", scenario: "5000-nodes", pods: 10000},
		{name: "many-services", scenario: "many-services", pods: 6000*2 + 3495*8 + 500*100 + 4*1000 + 5000},
		{name: "one-service/pods=1k", scenario: "5000-nodes", sets: []string{"services[0].replicas=1000"}, pods: 1000},
		{name: "one-service/pods=10k", scenario: "5000-nodes", sets: []string{"services[0].replicas=10000"}, pods: 10000},
		{name: "one-service/pods=30k", scenario: "5000-nodes", sets: []string{"services[0].replicas=30000"}, pods: 30000},
		{name: "one-service/pods=100k", scenario: "5000-nodes", sets: []string{"services[0].replicas=100000"}, pods: 100000},
		// Hints on every ready endpoint (trafficDistribution): a touched slice's clean
		// endpoints once were each built again from their pods.
		{name: "one-service/prefer-close/pods=100k", scenario: "5000-nodes", sets: []string{"services[0].replicas=100000", "services[0].trafficDistribution=PreferClose"}, pods: 100000},
		svcs(10), svcs(1000), svcs(10000), svcs(50000),
		{name: "cluster-day", scenario: "cluster-day"},
		// topologyMode Auto on 2,005 Services of mixed sizes, rolled out, then a zone of
		// 1,667 nodes down for 10 minutes: every node readiness change reweighs the zones
		// and looks for overloaded Services.
		{name: "topology-auto/zone-down", yaml: topologyZoneDown, pods: 1200*2 + 700*8 + 100*100 + 4*1000 + 5000},
		// Workloads whose rollouts change a pod or a few a sync: four DaemonSets on 5,000
		// nodes, a StatefulSet of 20,000 replicas (Parallel), and a Deployment of 20,000
		// pods rolled one pod at a time (maxSurge 1, maxUnavailable 0), a scale-down of one
		// pod a step (victimIndex). Each once cost the square of its size. The StatefulSet
		// also at 80,000 replicas and OrderedReady (pods created one at a time): each sync
		// once scanned the ordinals' words.
		{name: "daemonsets/nodes=5k", yaml: rolled("daemonsets", "{name: agent, kind: DaemonSet, count: 4}", ""), pods: 20000},
		{name: "statefulset/replicas=20k", yaml: rolled("statefulset", "{name: db, kind: StatefulSet, podManagementPolicy: Parallel, replicas: 20000}", ""), pods: 20000},
		{name: "statefulset/replicas=80k", yaml: rolled("statefulset", "{name: db, kind: StatefulSet, podManagementPolicy: Parallel, replicas: 80000}", ""), pods: 80000},
		{name: "statefulset/ordered/replicas=80k", yaml: rolled("statefulset", "{name: db, kind: StatefulSet, replicas: 80000}", ""), pods: 80000},
		{name: "one-service/surge-1/pods=20k", yaml: rolled("surge-1", "{name: web, replicas: 20000}", "maxSurge: 1, maxUnavailable: 0, "), pods: 20000},
		// The same at 40,000 pods with maxEndpointsPerSlice 1, a slice an endpoint: each
		// slice created or deleted once moved half the Service's slices in the index of
		// slices by size (a sorted list), each write applied searched the sync's fresh list
		// from its start, and each sync of the truncated Endpoints object walked its address
		// lists' chunks up to the first change.
		{name: "one-service/surge-1/max-per-slice-1/pods=40k", yaml: rolled("surge-1-per-slice-1", "{name: web, replicas: 40000}", "maxSurge: 1, maxUnavailable: 0, "), sets: []string{"controlPlane.maxEndpointsPerSlice=1"}, pods: 40000},
	}
	for _, r := range rows {
		b.Run(r.name, func(b *testing.B) {
			var cfg sim.Config
			if r.yaml != "" {
				sc, err := Parse(r.name+".yaml", []byte(r.yaml), r.sets)
				if err != nil {
					b.Fatal(err)
				}
				cfg = sc.Config
			} else {
				_, c, err := Load(r.scenario, r.sets)
				if err != nil {
					b.Fatal(err)
				}
				cfg = c
			}
			cfg.NoWriteLog = true // as sim run without --out
			var events, podEvents int64
			obs := &heapSampler{profile: os.Getenv("EPSIM_HEAPPROFILE"), peakProfile: os.Getenv("EPSIM_HEAPPROFILE_PEAK"), profilePhase: 1}
			if v := os.Getenv("EPSIM_PEAK_GC_EVERY"); v != "" {
				d, err := time.ParseDuration(v)
				if err != nil || d <= 0 {
					b.Fatalf("EPSIM_PEAK_GC_EVERY=%q: want a positive duration such as 1h", v)
				}
				obs.gcEvery = sim.Time(d)
			}
			if v, err := strconv.Atoi(os.Getenv("EPSIM_HEAPPROFILE_PHASE")); err == nil && v > 0 {
				obs.profilePhase = v
			}
			// The timed runs collect as sim run's do, with the collector's floor
			// (internal/gcfloor) unless GOGC or GOMEMLIMIT is set, on a heap marked for huge
			// pages (internal/hugeheap: once a process, for the first row run; bench-compare
			// runs one row), and without an observer.
			hugeheap.Prepare(EstimateMemory(&cfg), DefaultMaxMemory())
			restore := gcfloor.Set(gcfloor.Default, DefaultMaxMemory())
			b.ReportAllocs()
			start := time.Now()
			user0, sys0 := cpuTimes()
			for b.Loop() {
				res, err := sim.Run(cfg, nil)
				if err != nil {
					b.Fatal(err)
				}
				events += res.Events
				podEvents += res.PodEvents
			}
			secs := time.Since(start).Seconds()
			user1, sys1 := cpuTimes()
			cpu, sys := user1-user0+sys1-sys0, sys1-sys0
			restore()
			// The peak live heap is read from one more run, untimed, at GOGC=100: the live
			// heap is known as of the last collection, and the floor spares a small run most
			// of its collections.
			if _, err := sim.Run(cfg, obs); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(events)/secs, "events/s")
			b.ReportMetric(secs*1e9/float64(max(events, 1)), "ns/event")
			// CPU time (user + system, GC included) is what a shared machine measures fairly.
			b.ReportMetric(cpu.Seconds()*1e9/float64(max(events, 1)), "cpu-ns/event")
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/run")
			// The kernel's part of it is mostly the first touch of the heap's pages. On a
			// virtual machine whose host takes back the pages its guest frees (a balloon's
			// free page reporting), each fresh page waits for the host too: on the 2-core
			// machine issue 15 was measured on, touching 1 GiB of fresh memory took 1.1-2.4
			// s, and 0.08-0.09 s when the guest had just freed the pages. It grows with the
			// peak heap rather than the work, and varies with the host and the hour.
			b.ReportMetric(sys.Seconds()/float64(b.N), "sys-s/run")
			// Per pod change, the unit of work: a large Service's syncs each take in more
			// changes, so it has fewer sync and write events per change than a small one and
			// per-event figures grow with the Service's size even where the work does not.
			b.ReportMetric(cpu.Seconds()*1e9/float64(max(podEvents, 1)), "cpu-ns/pod-event")
			b.ReportMetric(float64(obs.peak)/1e6, "peak-heap-MB")
			if r.pods > 0 {
				b.ReportMetric(float64(obs.peak)/float64(r.pods), "peak-heap-B/pod")
			}
			// Per pod the run held at the peak: a rollout holds its surge and the old pods
			// still terminating besides the replicas (ServicesOf10: 13 a Service).
			if obs.peakHeld > 0 {
				b.ReportMetric(float64(obs.peak)/float64(obs.peakHeld), "peak-heap-B/held-pod")
			}
		})
	}
}

// topologyZoneDown is many-services' mix of Services, fewer of the small ones, all with
// topology hints (topologyMode Auto): created, rolled out, and then zone-a fails for 10
// minutes.
const topologyZoneDown = `name: topology-zone-down
seed: 1
cluster:
  nodes: 5000
services:
  - {name: tiny, count: 1200, replicas: 2, topologyMode: Auto}
  - {name: small, count: 700, replicas: 8, topologyMode: Auto}
  - {name: medium, count: 100, replicas: 100, topologyMode: Auto}
  - {name: large, count: 4, replicas: 1000, topologyMode: Auto}
  - {name: huge, replicas: 5000, topologyMode: Auto}
timeline:
  - {name: create, action: create}
  - {name: rollout, action: rollout, services: [small, medium, large, huge]}
  - {name: zone-down, action: failNodes, zone: zone-a, duration: 10m}
`

// rolled is a scenario of one Service entry on 5,000 nodes, created and then rolled out with
// the rollout's extra fields (ending in ", ").
func rolled(name, service, rollout string) string {
	return fmt.Sprintf(`name: %s
seed: 1
cluster:
  nodes: 5000
guards:
  endTime: 1000h
services: [%s]
timeline: [{name: create, action: create}, {name: rollout, %saction: rollout}]
`, name, service, rollout)
}

// heapSampler is an Observer that records the largest live heap seen at progress reports.
type heapSampler struct {
	peak uint64
	// held is the count of pods the run holds (sim.PodCounter), peakHeld that count when
	// the peak was read.
	held, peakHeld int
	sample         [1]metrics.Sample
	profile        string
	// peakProfile, if set, is written with the in-use heap profile whenever the peak grows
	// by more than 5 % (EPSIM_HEAPPROFILE_PEAK): the last one written is of about the peak,
	// in size, though it may be of another moment (many-services peaks at 4h40m and within
	// 0.3 % of that at 9h30m, with other things live). With gcEvery set, when the live heap
	// is read after a GC at each step, it is written at every new peak: the last one is of
	// the peak itself.
	peakProfile string
	profiled    uint64 // the peak when peakProfile was last written
	// profilePhase is the phase at whose start the heap profile is written.
	profilePhase int
	phase        int
	// gcEvery, if positive, forces a GC at each multiple of it in virtual time (nextGC is
	// the next), before the live heap is read (EPSIM_PEAK_GC_EVERY). last is the time of
	// the last report: a smaller one starts another run.
	gcEvery, nextGC, last sim.Time
}

func (h *heapSampler) PodsHeld(n int) { h.held = n }

func (h *heapSampler) Progress(now sim.Time, phase, _ int) {
	if h.sample[0].Name == "" {
		h.sample[0].Name = "/gc/heap/live:bytes"
	}
	if now < h.last {
		h.nextGC = 0
	}
	h.last = now
	if h.gcEvery > 0 && now >= h.nextGC {
		runtime.GC()
		h.nextGC = now - now%h.gcEvery + h.gcEvery
	}
	metrics.Read(h.sample[:])
	if v := h.sample[0].Value; v.Kind() == metrics.KindUint64 && v.Uint64() > h.peak {
		h.peak, h.peakHeld = v.Uint64(), h.held
		if h.peakProfile != "" && (h.gcEvery > 0 || h.peak > h.profiled+h.profiled/20) {
			// A new peak, or without forced GCs one over 5 % above the last profile's: write
			// the profile of the new peak.
			if f, err := os.Create(h.peakProfile); err == nil {
				_ = pprof.WriteHeapProfile(f)
				_ = f.Close()
			}
			h.profiled = h.peak
		}
	}
	if h.profile != "" && phase == h.profilePhase && h.phase == phase-1 {
		// A heap profile may be as of the GC before last (runtime.MemProfile): two GCs
		// make sure it leaves out what was garbage when the phase started.
		runtime.GC()
		runtime.GC()
		if f, err := os.Create(h.profile); err == nil {
			_ = pprof.WriteHeapProfile(f)
			_ = f.Close()
		}
	}
	h.phase = phase
}
