package scenarios

import (
	"fmt"
	"testing"

	"epsim/sim"
)

// BenchmarkHeapCost splits a run's live heap into what each Service costs and what each
// pod costs, the two terms of issue 15's goal of 1 KB a pod: many-services has a Service
// for every 10 pods, most of them of 2 or 8 pods, so a Service's fixed cost weighs as much
// as its pods'. It creates Services of 2 and of 10 pods on 5,000 nodes (no rollout: the
// steady state) and reports the peak live heap of each, with a GC forced every virtual
// minute:
//
//   - B/pod: the heap 8 more pods a Service add, per pod (10,000 Services of 10 pods
//     against 10,000 of 2);
//   - B/service: the heap a Service of 2 pods adds (10,000 of them against one), less its
//     pods' share at B/pod.
//
// The results (latency samples and series) are included, as in BenchmarkScale. The peak is
// as the Services are made: what a Service costs while it changes. One that then has
// nothing to do for an hour drops its builders (sim's settle.go): for one of 2 pods, 0.9 KB
// of its B/service for its Endpoints builder (measured when it settled after 5 minutes),
// about as much again for its EndpointSlice reconciler by the heap profile. Since Services
// of any size settle (2ef8f3a), the first of the 10,000 Services of 10 pods do before the
// last are made, which takes B/pod from 624 to 510 and B/service from 3,718 to 3,915 (a
// fit of two points): compare the two only with runs of the same settling.
//
//	go test ./scenarios -run '^$' -bench HeapCost -benchtime 1x
func BenchmarkHeapCost(b *testing.B) {
	const services = 10_000
	peak := func(count, replicas int) float64 {
		sc, err := Parse("heap-cost.yaml", []byte(fmt.Sprintf(`name: heap-cost
seed: 1
cluster:
  nodes: 5000
services:
  - name: s
    count: %d
    replicas: %d
timeline:
  - name: create
    action: create
`, count, replicas)), nil)
		if err != nil {
			b.Fatal(err)
		}
		cfg := sc.Config
		cfg.NoWriteLog = true
		obs := &heapSampler{gcEvery: sim.Time(60e9)}
		if _, err := sim.Run(cfg, obs); err != nil {
			b.Fatal(err)
		}
		return float64(obs.peak)
	}
	var perPod, perService, base float64
	for b.Loop() {
		base = peak(1, 2)
		small, big := peak(services, 2), peak(services, 10)
		perPod = (big - small) / (services * 8)
		perService = (small-base)/(services-1) - 2*perPod
	}
	b.ReportMetric(perPod, "B/pod")
	b.ReportMetric(perService, "B/service")
	b.ReportMetric(base/1e6, "base-MB")
}
