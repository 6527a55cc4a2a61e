package main

import (
	"bytes"
	"fmt"
	"os"
	"runtime/metrics"
	"runtime/pprof"

	"epsim/sim"
)

// heapProfileRate is the sampling rate of heap profiles that --memprofile restores
// (runtime.MemProfileRate): the process's at start, which main records before it turns
// sampling off; the runtime's default, one sample per 512 KB allocated, where main did not
// run (tests).
var heapProfileRate = 512 * 1024

// peakHeapProfiler is the Observer behind --memprofile: at each progress report (one per
// virtual second) it reads the live heap and, when that is over 5 % above the largest seen
// so far, takes a heap profile. The last one taken is of about the run's peak, which is
// what a memory budget is about; a profile at the end would show a heap already shrinking.
// It passes every report on to next (the progress bar, or nil).
type peakHeapProfiler struct {
	next    sim.Observer
	sample  [1]metrics.Sample
	peak    uint64
	profile bytes.Buffer
}

func newPeakHeapProfiler(next sim.Observer) *peakHeapProfiler {
	p := &peakHeapProfiler{next: next}
	p.sample[0].Name = "/gc/heap/live:bytes"
	return p
}

// Progress implements sim.Observer.
func (p *peakHeapProfiler) Progress(now sim.Time, phase, phases int) {
	if p.next != nil {
		p.next.Progress(now, phase, phases)
	}
	metrics.Read(p.sample[:])
	if v := p.sample[0].Value; v.Kind() == metrics.KindUint64 && v.Uint64() > p.peak+p.peak/20 {
		p.peak = v.Uint64()
		p.take()
	}
}

// PodsHeld implements sim.PodCounter, for the progress it passes on to.
func (p *peakHeapProfiler) PodsHeld(n int) { podsHeld(p.next, n) }

func (p *peakHeapProfiler) take() {
	p.profile.Reset()
	// The heap profile is that of the last completed garbage collection: no GC is forced,
	// so profiling does not change the run's own collections.
	_ = pprof.Lookup("heap").WriteTo(&p.profile, 0)
}

// writeTo writes the profile to path (one taken now if the run reported no progress).
func (p *peakHeapProfiler) writeTo(path string) error {
	if p.profile.Len() == 0 {
		p.take()
	}
	if err := os.WriteFile(path, p.profile.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--memprofile: %w", err)
	}
	return nil
}
