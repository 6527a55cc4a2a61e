package scenarios_test

import (
	"fmt"

	"epsim/scenarios"
	"epsim/sim"
)

// peakPods is an Observer that keeps the most pods a run held at a progress report.
type peakPods struct{ held, peak int }

func (p *peakPods) PodsHeld(n int)              { p.held = n }
func (p *peakPods) Progress(sim.Time, int, int) { p.peak = max(p.peak, p.held) }

// An Observer that is also a sim.PodCounter is told how many pods the run holds before each
// progress report: a rolling update holds more than the replicas, its surge and the old pods
// still terminating.
func Example_podsHeld() {
	sc, err := scenarios.Parse("roll.yaml", []byte(`name: roll
cluster: {nodes: 20}
services: [{name: web, replicas: 40}]
timeline: [{name: create, action: create}, {name: rollout, action: rollout}]
`), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	var p peakPods
	if _, err := sim.Run(sc.Config, &p); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("replicas 40, most pods held:", p.peak)
	// Output:
	// replicas 40, most pods held: 56
}
