package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

// heldBlocks keeps what allocateHeld allocated alive until the test lets it go.
var heldBlocks [][]byte

// heldBlock is the size of allocateHeld's blocks.
const heldBlock = 4 << 10

// allocateHeld allocates n bytes in blocks that stay alive: the allocations a heap profile
// of the peak has to hold.
//
//go:noinline
func allocateHeld(n int) {
	for ; n > 0; n -= heldBlock {
		heldBlocks = append(heldBlocks, make([]byte, heldBlock))
	}
}

// garbageSink keeps the garbage's allocations from being optimised away.
var garbageSink []byte

// heldInProfile returns the bytes in use that the heap profile's records of allocateHeld
// stand for, scaled for sampling as pprof scales them: an allocation of s bytes is sampled
// with probability 1-e^(-s/rate).
func heldInProfile() float64 {
	n, _ := runtime.MemProfile(nil, true)
	records := make([]runtime.MemProfileRecord, n+64)
	n, _ = runtime.MemProfile(records, true)
	rate := float64(runtime.MemProfileRate)
	var sum float64
	for _, r := range records[:n] {
		objects, bytes := r.InUseObjects(), r.InUseBytes()
		if objects <= 0 || !slices.ContainsFunc(r.Stack(), func(pc uintptr) bool {
			f := runtime.FuncForPC(pc)
			return f != nil && strings.HasSuffix(f.Name(), ".allocateHeld")
		}) {
			continue
		}
		scale := 1.0
		if rate > 1 {
			scale = 1 / -math.Expm1(-float64(bytes)/float64(objects)/rate)
		}
		sum += float64(bytes) * scale
	}
	return sum
}

// TestMemprofileHoldsTheLatestCollection: the profile taken at the report after a
// collection holds what that collection found alive. The runtime publishes a collection's
// heap only once the next one has marked, or after a collection the program asks for: the
// profile taken without one was of the collection before, which had not seen the blocks
// allocated since (50,000 Services' profile held 416 MB where the collection had left 608).
func TestMemprofileHoldsTheLatestCollection(t *testing.T) {
	const held = 32 << 20
	runtime.GC()
	p := newPeakHeapProfiler(nil)
	cycles := func() uint64 { _, c := p.read(); return c }
	// No collection while the blocks are allocated: it would publish those allocated
	// before it.
	percent := debug.SetGCPercent(-1)
	if percent < 0 {
		debug.SetGCPercent(percent)
		t.Skip("GOGC=off: the runtime never collects on its own")
	}
	heldBlocks = make([][]byte, 0, held/heldBlock) // not allocateHeld's
	allocateHeld(held)
	defer func() { heldBlocks = nil }()
	debug.SetGCPercent(percent)
	// Garbage until the runtime collects on its own, as it does during a run.
	for before := cycles(); cycles() == before; {
		garbageSink = make([]byte, 1<<20)
	}
	garbageSink = nil
	p.Progress(0, 0, 1)
	if p.profile.Len() == 0 {
		t.Fatal("the report after a collection took no profile")
	}
	// The profile was written from the runtime's records as they are now: no collection
	// has ended since (none is due before the heap doubles).
	if got := heldInProfile(); got < held/2 || got > 2*held {
		t.Errorf("the profile holds %.1f MiB of allocateHeld's blocks, want about the %d MiB the collection found alive", got/(1<<20), held>>20)
	}
	if p.peak < held {
		t.Errorf("peak live heap %d bytes, want at least the %d MiB held", p.peak, held>>20)
	}
}
