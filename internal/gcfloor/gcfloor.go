// Package gcfloor puts a floor under the Go collector's heap goal for the length of a run.
//
// At GOGC=100 the collector runs whenever the heap reaches twice its live part, so a run
// whose live heap grows from nothing to 100 MB collects at 4, 6, 12, 23, 44, 69 and 96 MB
// before its last few collections at 150-170 MB (many-services): the early ones mark little
// each, but they and the write barriers they turn on were most of the collector's work. With
// a floor, the goal is the floor until the live heap reaches half of it, and twice the live
// heap (GOGC=100) from there: the early collections become one, and the peak, set by the
// late ones, is as before. (The Go compiler raises its starting heap the same way.)
//
// The floor is for the heap's first growth only: once the live heap has reached half of
// it, GOGC stays at 100 until the end, however small the heap gets again. A run lets its
// state go at its end (sim's Engine.release); a floor set again for the small heap left
// came with its memory limit, and the runtime then returned the freed heap to the kernel
// in 64 KiB pieces before the process exited (1 GB and 6,000 system calls for 50,000
// Services).
package gcfloor

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Default is the floor sim's runs use (192 MiB). At 128 MiB, many-services made three
// collections instead of ten, for about 6% less CPU (median of 9 pairs) and the same peak
// RSS; at 192 MiB it makes two, for about 6% less again (median of 6 interleaved pairs,
// 0.86-1.00) and 223 MB of RSS instead of 199 (2026-12-08), under issue 15's 250 MB. A run
// that never allocates as much never collects (5000-nodes: 0.20 to 0.17-0.18 CPU-s, and 38
// to 53 MB of RSS).
const Default = 192 << 20

// minHeap is the heap goal the runtime never goes under (its heapMinimum at GOGC=100).
const minHeap = 4 << 20

// Set keeps the collector's heap goal at floor bytes at least, capped at an eighth of limit
// when limit is above 0 (a machine or container with little memory gets a low floor), until
// the returned restore is called. It does nothing, and restore neither, when the
// environment sets GOGC or GOMEMLIMIT: the user's choice stands. The floor is kept by
// setting GOGC after each collection (debug.SetGCPercent), from the live heap it left.
//
// While GOGC is above 100, a soft memory limit of one and a half floors holds too
// (debug.SetMemoryLimit), lifted once GOGC is back at 100 for good. GOGC is set by a
// cleanup that runs after the collection, on its own goroutine; until it has run, the GOGC
// set for a small live heap applies to the larger one the collection left, whose goal is
// then many times the floor (32 times 75 MB for many-services). The limit keeps a late
// cleanup from letting the heap grow that far.
func Set(floor uint64, limit int64) (restore func()) {
	t := set(floor, limit)
	if t == nil {
		return func() {}
	}
	return t.restore
}

// set is Set, returning its tuner (nil when the environment chooses).
func set(floor uint64, limit int64) *tuner {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return nil
	}
	if limit > 0 {
		floor = min(floor, uint64(limit)/8)
	}
	t := &tuner{floor: floor, limitBefore: debug.SetMemoryLimit(-1)}
	t.mu.Lock()
	t.before = debug.SetGCPercent(100)
	t.apply()
	if !t.outgrown {
		t.arm()
	}
	t.mu.Unlock()
	return t
}

// restore puts back the GOGC and memory limit from before Set; a second call does nothing.
func (t *tuner) restore() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.stopped {
		t.stopped = true
		debug.SetGCPercent(t.before)
		if t.capped {
			debug.SetMemoryLimit(t.limitBefore)
		}
	}
}

// apply sets GOGC for the live heap the last collection left, and holds the memory limit
// (capBytes) while GOGC is above 100. t.mu must be held.
func (t *tuner) apply() {
	p := t.percent()
	debug.SetGCPercent(p)
	switch c := t.capBytes(); {
	case p > 100 && !t.capped && c < t.limitBefore:
		debug.SetMemoryLimit(c)
		t.capped = true
	case p == 100 && t.capped:
		debug.SetMemoryLimit(t.limitBefore)
		t.capped = false
	}
	if p == 100 {
		t.outgrown = true
	}
}

// capBytes is the memory limit while the floor holds GOGC above 100: one and a half floors,
// above the floor's heap goal and the runtime's own memory beside the heap.
func (t *tuner) capBytes() int64 { return int64(t.floor + t.floor/2) }

// tuner keeps one floor: after each collection a cleanup of an object made unreachable
// for it (arm) sets GOGC for the next.
type tuner struct {
	floor uint64

	mu      sync.Mutex
	before  int  // GOGC before Set, restored at the end
	stopped bool // restored: the next cleanup does nothing
	// outgrown is true once the live heap has reached half the floor: the floor is done
	// and GOGC stays at 100 (see collected).
	outgrown bool
	// limitBefore is the memory limit before Set; capped is true while Set's cap replaces
	// it (apply).
	limitBefore int64
	capped      bool
}

// percent is the GOGC that puts the next heap goal at the floor, given the live heap the
// last collection left (minHeap before any), or 100 once twice the live heap is above it.
func (t *tuner) percent() int {
	return percentFor(t.floor, liveHeap())
}

// percentFor is percent for a live heap of live bytes.
func percentFor(floor, live uint64) int {
	live = max(live, minHeap)
	if 2*live >= floor {
		return 100
	}
	return int(floor*100/live) - 100
}

// liveHeap is the live heap as of the last collection (0 before the first).
func liveHeap() uint64 {
	s := [1]metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s[:])
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// sentinel is the object whose cleanup tells the tuner that a collection happened: a
// pointer field keeps it out of the tiny allocator, whose blocks may never be collected
// while a neighbour lives.
type sentinel struct{ _ *int }

// arm makes a sentinel that the next collection finds unreachable, whose cleanup sets GOGC
// for the collection after and arms again. t.mu must be held.
func (t *tuner) arm() {
	runtime.AddCleanup(new(sentinel), (*tuner).collected, t)
}

// collected is the cleanup of arm's sentinel.
func (t *tuner) collected() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	t.apply()
	if !t.outgrown {
		t.arm()
	}
}
