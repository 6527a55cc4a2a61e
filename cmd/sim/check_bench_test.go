package main

import (
	"io"
	"runtime"
	"testing"
	"time"
)

// BenchmarkCheckParallel measures how well `sim check` of several scenarios uses the cores:
// the shipped scenarios but cluster-day (the longest by far, alone it is the whole wall time
// of a parallel check) checked side by side (--jobs, default: the cores) against one after
// the other (each checked alone). x-sequential is the first's wall time over the second's; x-ideal is
// it over the ideal, the longest scenario's run or the sum of them over the cores, whichever
// is more. Wall time is what it measures, so run it on an otherwise idle machine.
//
//	go test ./cmd/sim -run '^$' -bench CheckParallel -benchtime 3x
func BenchmarkCheckParallel(b *testing.B) {
	var jobs []*checkJob
	for _, name := range []string{"quick", "zone-outage", "dual-stack", "truncation", "5000-nodes", "many-services"} {
		sc, err := loadCheckScenario(name, nil)
		if err != nil {
			b.Fatal(err)
		}
		jobs = append(jobs, &checkJob{arg: name, sc: sc})
	}
	e := newEnv(io.Discard, io.Discard)
	cores := runtime.GOMAXPROCS(0)
	var sequential, parallel, longest time.Duration
	for b.Loop() {
		for _, j := range []int{1, 0} {
			o := &checkOptions{quiet: true, jobs: j}
			if j == 1 {
				// Each scenario alone, timed: the longest bounds the parallel check.
				var slowest time.Duration
				for i := range jobs {
					start := time.Now()
					if r := o.runScenarios(e, jobs[i:i+1]); r[0].err != nil {
						b.Fatal(r[0].err)
					}
					d := time.Since(start)
					sequential += d
					slowest = max(slowest, d)
				}
				longest += slowest
				continue
			}
			start := time.Now()
			for _, r := range o.runScenarios(e, jobs) {
				if r.err != nil {
					b.Fatal(r.err)
				}
			}
			parallel += time.Since(start)
		}
	}
	ideal := max(float64(longest), float64(sequential)/float64(cores))
	b.ReportMetric(float64(parallel)/float64(sequential), "x-sequential")
	b.ReportMetric(float64(parallel)/ideal, "x-ideal")
	b.ReportMetric(float64(cores), "cores")
}
