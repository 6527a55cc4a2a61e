package main

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sync"

	"epsim/sim"
)

// heapProfileRate is the sampling rate of heap profiles that --memprofile restores
// (runtime.MemProfileRate): the process's at start, which main records before it turns
// sampling off; the runtime's default, one sample per 512 KB allocated, where main did not
// run (tests).
var heapProfileRate = 512 * 1024

// startHeapProfile readies --memprofile of command cmd: it checks that path can be
// written, before a run that may be long rather than after it, and turns heap sampling on
// from now (main turns it off at start).
func startHeapProfile(cmd, path string) error {
	f, err := createProfile(cmd, "memprofile", path)
	if err != nil {
		return err
	}
	f.Close()
	runtime.MemProfileRate = heapProfileRate
	return nil
}

// peakHeapProfiler is the Observer behind --memprofile: at each progress report (one per
// virtual second) it reads the live heap and, when a collection has ended since the run
// started and the live heap it left is over 5 % above the largest seen so far, takes a heap
// profile. The last one taken is of about the run's peak, which is what a memory budget is
// about; a profile at the end would show a heap already shrinking. It passes every report
// on to next (the progress bar, or nil).
//
// Before it takes a profile it collects: the runtime publishes the heap a collection found
// only once the next has marked (or when the program asks for a collection), so a profile
// taken without one is of the collection before. For 50,000 Services that profile held
// 416 MB where the collection had left 608 (the profile taken now holds 611). A profiled
// run thus makes a collection more each time its heap has grown 5 % past the largest so
// far: 6 in that run, beside its own 13.
type peakHeapProfiler struct {
	next sim.Observer
	// mu serialises the reports of runs side by side (watch).
	mu sync.Mutex
	// samples are the live heap and the collections completed, as of the last one.
	samples [2]metrics.Sample
	// cycles is the number of collections completed when the run started: a heap profile
	// is of the last collection, and one from before the run has nothing of it.
	cycles  uint64
	peak    uint64
	profile bytes.Buffer
}

func newPeakHeapProfiler(next sim.Observer) *peakHeapProfiler {
	p := &peakHeapProfiler{next: next}
	p.samples[0].Name = "/gc/heap/live:bytes"
	p.samples[1].Name = "/gc/cycles/total:gc-cycles"
	_, p.cycles = p.read()
	return p
}

// read returns the live heap and the collections completed.
func (p *peakHeapProfiler) read() (live, cycles uint64) {
	metrics.Read(p.samples[:])
	if v := p.samples[0].Value; v.Kind() == metrics.KindUint64 {
		live = v.Uint64()
	}
	if v := p.samples[1].Value; v.Kind() == metrics.KindUint64 {
		cycles = v.Uint64()
	}
	return live, cycles
}

// Progress implements sim.Observer.
func (p *peakHeapProfiler) Progress(now sim.Time, phase, phases int) {
	if p.next != nil {
		p.next.Progress(now, phase, phases)
	}
	p.sample()
}

// sample reads the live heap and takes a profile if it has grown past the largest so far
// since a collection (see peakHeapProfiler).
func (p *peakHeapProfiler) sample() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if live, cycles := p.read(); cycles > p.cycles && live > p.peak+p.peak/20 {
		p.peak = max(live, p.take())
	}
}

// watch returns the Observer of one run of several that share p: it passes each report on
// to next (the run's progress, or nil) and samples the heap for p.
func (p *peakHeapProfiler) watch(next sim.Observer) sim.Observer {
	return heapWatch{next: next, heap: p}
}

// heapWatch is one run's report to a shared peakHeapProfiler (peakHeapProfiler.watch).
type heapWatch struct {
	next sim.Observer
	heap *peakHeapProfiler
}

// Progress implements sim.Observer.
func (w heapWatch) Progress(now sim.Time, phase, phases int) {
	if w.next != nil {
		w.next.Progress(now, phase, phases)
	}
	w.heap.sample()
}

// PodsHeld implements sim.PodCounter, for the progress it passes on to.
func (w heapWatch) PodsHeld(n int) { podsHeld(w.next, n) }

// PodsHeld implements sim.PodCounter, for the progress it passes on to.
func (p *peakHeapProfiler) PodsHeld(n int) { podsHeld(p.next, n) }

// take collects, so that the heap profile is of the heap now, and keeps the profile; it
// returns the live heap the collection left.
func (p *peakHeapProfiler) take() (live uint64) {
	runtime.GC()
	live, _ = p.read()
	p.profile.Reset()
	_ = pprof.Lookup("heap").WriteTo(&p.profile, 0)
	return live
}

// writeTo writes the profile to path. A run that no collection ended during a progress
// report (one that reported none, or a small one in a process whose heap was larger) has
// no profile of its own yet: one is taken now, after a collection, of the heap it left.
func (p *peakHeapProfiler) writeTo(path string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.profile.Len() == 0 {
		p.take()
	}
	if err := os.WriteFile(path, p.profile.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--memprofile: %w", err)
	}
	return nil
}
