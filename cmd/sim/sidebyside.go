package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"time"

	"epsim/internal/gcfloor"
	"epsim/scenarios"

	"github.com/schollz/progressbar/v3"
)

// sideBySide runs run(i) for each i of order, the first ones first, on workers goroutines
// at once, and calls done on the caller's goroutine as each returns. It returns when all
// have. run writes its result where i says, so that what the runs give is in the caller's
// order whatever order they end in.
func sideBySide(workers int, order []int, run func(i int), done func()) {
	next := make(chan int)
	finished := make(chan struct{})
	for range max(1, workers) {
		go func() {
			for i := range next {
				run(i)
				finished <- struct{}{}
			}
		}()
	}
	go func() {
		for _, i := range order {
			next <- i
		}
		close(next)
	}()
	for range order {
		<-finished
		done()
	}
}

// indexes returns 0 to n-1, in order.
func indexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// workersFor is how many runs of these estimated peaks go side by side for --jobs jobs (0:
// one per core): no more than there are runs, and as many as fit in limit together
// (fitJobs).
func workersFor(jobs int, estimates []int64, limit int64) int {
	if jobs == 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	return fitJobs(max(1, min(jobs, len(estimates))), estimates, limit)
}

// fitJobs lowers jobs so that the runs going side by side fit in limit together: each fits on
// its own (the loader checked its estimate, scenarios.EstimateMemory), not necessarily several
// at once. estimates are the runs' estimated peaks; a limit of 0 or less is no limit.
func fitJobs(jobs int, estimates []int64, limit int64) int {
	var most int64
	for _, m := range estimates {
		most = max(most, m)
	}
	if limit <= 0 || most <= 0 {
		return jobs
	}
	return int(max(1, min(int64(jobs), limit/most)))
}

// sharedGC sets the collector for jobs runs side by side in one heap (a plan's points, a
// check's scenarios): the floor under the heap goal that sim run keeps (gcfloor.Default),
// once per run going, and a soft memory limit at guards.maxMemory's default (3/4 of the
// machine: the collector works harder as the heap nears it). It returns what undoes both.
// Where GOGC or GOMEMLIMIT is set in the environment, it leaves the collector as the user
// set it. The runs must not set the collector themselves (runOptions.sharedGC).
//
// A lone run's collector works on an idle core; runs side by side share their collector,
// which takes the cores they need. On 2 cores a plan of two 5000-nodes points took 1.27–1.42
// × the ideal (one point's time × points / cores) at GOGC=100 alone and 1.13–1.25 × at
// GOGC=200, which sim plan set before; with the floor, which such points never reach,
// 0.96–1.09 × (BenchmarkPlanParallel). Points that outgrow it collect at GOGC=100 as sim
// run's do: a plan of four many-services points took 10.8–13.5 s against 11.9–12.7 s at
// GOGC=200 and peaked at 433–453 MB of RSS instead of 506–517 MB.
//
// Without floored (a command's --memprofile: a heap profile is of a collection, and runs
// under the floor may make none), only the memory limit is set.
func sharedGC(jobs int, floored bool) (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	limit := int64(-1) // unchanged
	m := scenarios.DefaultMaxMemory()
	if m > 0 {
		limit = debug.SetMemoryLimit(m)
	}
	unfloor := func() {}
	if floored {
		unfloor = gcfloor.Set(gcfloor.Default*uint64(max(jobs, 1)), m)
	}
	return func() {
		unfloor()
		if limit >= 0 {
			debug.SetMemoryLimit(limit)
		}
	}
}

// countProgress is the progress of runs side by side on stderr: a bar of the runs done on
// a terminal, else a plain line now and then (pointLines); nothing with --quiet.
type countProgress struct {
	bar   *progressbar.ProgressBar
	lines *pointLines
}

// newCountProgress starts the progress of total runs counted in unit ("points",
// "scenarios") of what ("plan growth", "check").
func newCountProgress(e *env, quiet bool, what, unit string, total int) *countProgress {
	p := &countProgress{}
	switch {
	case quiet || total == 0:
	case e.stderrIsTerminal:
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(e.stderr),
			progressbar.OptionSetDescription(what),
			progressbar.OptionSetWidth(30),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	default:
		p.lines = newPointLines(e, what, unit, total)
	}
	return p
}

// done counts one run done.
func (p *countProgress) done() {
	if p.bar != nil {
		p.bar.Add(1)
	}
	p.lines.done()
}

// finish clears the bar.
func (p *countProgress) finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
}
