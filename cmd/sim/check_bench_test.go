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
// the other (each checked alone). x-sequential is the first's wall time over the second's;
// x-ideal is it over the ideal, the longest scenario's run or the sum of them over the
// cores, whichever is more. Wall time is what it measures, so run it on an otherwise idle
// machine.
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
	// check runs the jobs on --jobs workers and returns its wall time.
	check := func(jobs []*checkJob, workers int) time.Duration {
		o := &checkOptions{quiet: true, jobs: workers}
		start := time.Now()
		for _, r := range o.runScenarios(e, jobs) {
			if r.err != nil {
				b.Fatal(r.err)
			}
		}
		return time.Since(start)
	}
	var sequential, parallel, longest time.Duration
	for b.Loop() {
		// Each scenario alone: the sum is the sequential check, the longest bounds the
		// parallel one.
		var slowest time.Duration
		for i := range jobs {
			d := check(jobs[i:i+1], 1)
			sequential += d
			slowest = max(slowest, d)
		}
		longest += slowest
		parallel += check(jobs, 0)
	}
	cores := runtime.GOMAXPROCS(0)
	ideal := max(float64(longest), float64(sequential)/float64(cores))
	b.ReportMetric(float64(parallel)/float64(sequential), "x-sequential")
	b.ReportMetric(float64(parallel)/ideal, "x-ideal")
	b.ReportMetric(float64(cores), "cores")
}
