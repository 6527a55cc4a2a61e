package scenarios

import (
	"testing"

	"epsim/sim"
)

// BenchmarkRun times whole runs of shipped scenarios, with and without the network model, and
// the 5000-nodes change stream on 500 and 50,000 nodes (fan-out cost must not grow with nodes).
// Reference: issue 4 "Benchmarks", issue 8 "enabling the network model costs less than 2×".
func BenchmarkRun(b *testing.B) {
	cases := []struct {
		name, scenario string
		sets           []string
	}{
		{"quick", "quick", nil},
		{"5000-nodes", "5000-nodes", nil},
		{"5000-nodes/network=off", "5000-nodes", []string{"network.enabled=false"}},
		{"5000-nodes/nodes=500", "5000-nodes", []string{"cluster.nodes=500"}},
		// 50,000 kube-proxies take the Endpoints' backlog past the default 24 h guard (the
		// fluid model sends every event to every watcher, README "Known limit").
		{"5000-nodes/nodes=50000", "5000-nodes", []string{"cluster.nodes=50000", "guards.endTime=1000h"}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			_, cfg, err := Load(c.scenario, c.sets)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := sim.Run(cfg, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
