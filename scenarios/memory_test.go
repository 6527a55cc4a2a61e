package scenarios

import "testing"

// TestFootprintCounts checks what the memory estimate counts, as the engine makes it: a
// DaemonSet's pods are one per node, a percent scale takes a Service to that share of its
// replicas (rounded up) or a selector-less Service to that share of its manualEndpoints,
// and the pods of nodes that fail or are drained change.
func TestFootprintCounts(t *testing.T) {
	for _, c := range []struct {
		name, yaml     string
		pods, touched  int64
		services, phas int64
	}{
		{"replicas", "services: [{name: web, count: 3, replicas: 10}]\ntimeline: [{name: c, action: create}, {name: r, action: rollout}]",
			30, 30 + 3*30, 3, 2},
		{"daemonset", "services: [{name: agent, kind: DaemonSet, count: 2}]\ntimeline: [{name: c, action: create}, {name: r, action: rollout}]",
			200, 200 + 3*200, 2, 2},
		{"percent-scale", "services: [{name: web, count: 3, replicas: 10}]\ntimeline: [{name: c, action: create}, {name: up, action: scale, percent: 150}]",
			45, 45 + 45, 3, 2},
		{"scale-replicas", "services: [{name: web, replicas: 10}, {name: db, replicas: 4}]\ntimeline: [{name: c, action: create}, {name: up, action: scale, services: [web], replicas: 25}]",
			29, 29 + 25, 2, 2},
		// ext's 3 addresses at 200% are 6, counted as the replicas scale gives it are.
		{"percent-scale-manual", "services: [{name: ext, manualEndpoints: 3, ports: [{port: 5432}]}, {name: web, replicas: 4}]\ntimeline: [{name: c, action: create}, {name: up, action: scale, percent: 200}]",
			8 + 6, 8 + 6 + 8 + 6, 2, 2},
		{"drain-half", "services: [{name: web, replicas: 40}]\ntimeline: [{name: c, action: create}, {name: d, action: drainNodes, nodes: 50}]",
			40, 40 + 20, 1, 2},
		{"zone-fails", "services: [{name: web, replicas: 30}]\ntimeline: [{name: c, action: create}, {name: f, action: failNodes, zone: b}]",
			30, 30 + 10, 1, 2},
		{"flip", "services: [{name: web, count: 2, replicas: 30}]\ntimeline: [{name: c, action: create}, {name: f, action: flipReadiness, pods: 5}]",
			60, 60 + 2*5, 2, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc, err := Parse(c.name+".yaml", []byte("name: m\ncluster: {nodes: 100, zones: [a, b, c]}\n"+c.yaml+"\n"), nil)
			if err != nil {
				t.Fatal(err)
			}
			fp := footprintOf(&sc.Config)
			want := footprint{nodes: 100, pods: c.pods, services: c.services, phases: c.phas, touched: c.touched}
			if fp != want {
				t.Errorf("footprint %+v, want %+v", fp, want)
			}
			if sc.MemoryEstimate != fp.bytes() || fp.bytes() != EstimateMemory(&sc.Config) {
				t.Errorf("MemoryEstimate %d, footprint's bytes %d, EstimateMemory %d: want one figure", sc.MemoryEstimate, fp.bytes(), EstimateMemory(&sc.Config))
			}
		})
	}
}
