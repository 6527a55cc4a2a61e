package gcfloor

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"
	"time"
)

func TestPercentFor(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		floor, live uint64
		want        int
	}{
		{128 * mib, 0, 3100},       // before any collection: the goal is 4 MiB × 32
		{128 * mib, 2 * mib, 3100}, // under the runtime's minimum heap
		{128 * mib, 32 * mib, 300},
		{128 * mib, 50 * mib, 156},
		{128 * mib, 64 * mib, 100}, // half the floor: twice the live heap reaches it
		{128 * mib, 90 * mib, 100}, // never under GOGC=100
		{8 * mib, 0, 100},          // a floor at the minimum heap or under changes nothing
	} {
		if got := percentFor(c.floor, c.live); got != c.want {
			t.Errorf("percentFor(%d MiB, %d MiB) = %d, want %d", c.floor/mib, c.live/mib, got, c.want)
		}
	}
}

// gcPercent returns the current GOGC.
func gcPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

// TestSetFollowsTheLiveHeap holds a live heap of a quarter of the floor: after a collection
// the tuner asks for a goal of the floor, four times the live heap (GOGC 300); once the
// live heap is past half the floor, GOGC 100; restore puts back the GOGC before Set.
func TestSetFollowsTheLiveHeap(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetGCPercent(77)
	defer debug.SetGCPercent(before)
	runtime.GC()
	base := liveHeap()
	const floor = 256 << 20
	limitBefore := debug.SetMemoryLimit(-1)
	restore := Set(floor+4*base, 0)
	if got := gcPercent(); got < 100 {
		t.Fatalf("GOGC right after Set = %d, want the floor's (at least 100)", got)
	}
	if got, want := debug.SetMemoryLimit(-1), int64(floor+4*base)*3/2; got != want {
		t.Errorf("memory limit while GOGC is above 100 = %d, want %d (one and a half floors)", got, want)
	}
	held := make([]byte, floor/4)
	waitFor(t, 295, 300) // the test's own allocations move the live heap a little
	more := make([]byte, floor/2)
	waitFor(t, 100, 100)
	if got := debug.SetMemoryLimit(-1); got != limitBefore {
		t.Errorf("memory limit at GOGC 100 = %d, want %d (as before Set)", got, limitBefore)
	}
	runtime.KeepAlive(held)
	runtime.KeepAlive(more)
	// The heap has outgrown the floor: as it shrinks again (held and more are garbage past
	// their KeepAlive, as a run's state is at its end), GOGC stays at 100 and no limit
	// comes back, which would return the freed heap to the kernel page by page (1 GB at
	// the end of 50,000 Services).
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if got := gcPercent(); got != 100 {
		t.Errorf("GOGC after the heap shrank again = %d, want 100 (the floor is done)", got)
	}
	if got := debug.SetMemoryLimit(-1); got != limitBefore {
		t.Errorf("memory limit after the heap shrank again = %d, want %d", got, limitBefore)
	}
	restore()
	if got := gcPercent(); got != 77 {
		t.Errorf("GOGC after restore = %d, want 77 (as before Set)", got)
	}
	if got := debug.SetMemoryLimit(-1); got != limitBefore {
		t.Errorf("memory limit after restore = %d, want %d (as before Set)", got, limitBefore)
	}
	restore() // a second call changes nothing
	if got := gcPercent(); got != 77 {
		t.Errorf("GOGC after a second restore = %d, want 77", got)
	}
}

// waitFor collects until GOGC is within [lo, hi] (the cleanup that sets it runs on its own
// goroutine after the collection), failing after a few seconds.
func waitFor(t *testing.T, lo, hi int) {
	t.Helper()
	var got int
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		if got = gcPercent(); got >= lo && got <= hi {
			return
		}
	}
	t.Fatalf("GOGC = %d after collections, want %d to %d", got, lo, hi)
}

// TestSetCapsTheFloorByTheLimit gives a limit of 64 MiB: the floor is 8 MiB, twice the
// minimum heap, so GOGC stays at 100 however large the floor asked for.
func TestSetCapsTheFloorByTheLimit(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	restore := Set(Default, 64<<20)
	defer restore()
	if got := gcPercent(); got != 100 {
		t.Errorf("GOGC with a floor capped at 8 MiB = %d, want 100", got)
	}
}

// TestSetLeavesTheUsersChoice sets GOGC or GOMEMLIMIT in the environment: Set changes
// nothing.
func TestSetLeavesTheUsersChoice(t *testing.T) {
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv("GOGC", "")
			t.Setenv("GOMEMLIMIT", "")
			t.Setenv(env, "100")
			before := debug.SetGCPercent(55)
			defer debug.SetGCPercent(before)
			restore := Set(Default, 0)
			if got := gcPercent(); got != 55 {
				t.Errorf("GOGC with %s set = %d, want 55 (unchanged)", env, got)
			}
			restore()
			if got := gcPercent(); got != 55 {
				t.Errorf("GOGC after restore with %s set = %d, want 55", env, got)
			}
		})
	}
}

// TestLateCleanupStaysUnderTheCap stalls the tuner, as a cleanup that runs late does, while
// the live heap grows past half the floor: the GOGC set for the small heap would put the
// heap goal after the next collection at 16 times the live heap (640 MiB here), but the
// memory limit keeps it under one and a half floors.
//
// The test reads the goal the runtime works to once a collection has found the larger live
// heap, not the heap's peak: the limit is soft, and how far the heap overshoots it while
// the collector runs beside the allocations depends on the machine's load (112 MiB seen on
// a busy machine here, 346 MiB once on a CI machine). On a busy machine a collection also
// counts as live the blocks allocated while it marked (up to 300 MiB seen), and the
// runtime never sets a goal under the live heap: the goal is bounded by the larger of the
// cap and that live heap, where without the limit it would be 16 times the live heap.
func TestLateCleanupStaysUnderTheCap(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	runtime.GC()
	const floor = 64 << 20
	tu := set(floor, 0)
	defer tu.restore()
	if got := gcPercent(); got <= 100 {
		t.Skipf("GOGC right after Set = %d: the live heap is too large for this floor", got)
	}
	limit := uint64(tu.capBytes())
	tu.mu.Lock() // the tuner's cleanup waits: GOGC keeps its value for the small heap
	live := make([]byte, floor*5/8)
	samples := 0
	var over []string
	var sink [][]byte
	for range 256 { // 512 MiB of garbage in 2 MiB blocks
		sink = append(sink[:0], make([]byte, 2<<20))
		heap := liveHeap()
		goal := heapGoal()
		if heap < floor/2 || liveHeap() != heap {
			continue // no collection has found the larger heap yet, or one ended meanwhile
		}
		samples++
		if goal > max(limit, heap) && len(over) < 3 {
			over = append(over, fmt.Sprintf("goal %d MiB for a live heap of %d MiB", goal>>20, heap>>20))
		}
	}
	runtime.KeepAlive(sink)
	runtime.KeepAlive(live)
	tu.mu.Unlock()
	if samples == 0 {
		t.Fatal("no collection found the larger live heap while 512 MiB were allocated")
	}
	if len(over) > 0 {
		t.Errorf("with the tuner stalled the heap goal went over both the cap of %d MiB and the live heap: %s", limit>>20, strings.Join(over, "; "))
	}
}

// heapGoal is the heap size the collector aims to finish its cycle at.
func heapGoal() uint64 {
	s := [1]metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s[:])
	return s[0].Value.Uint64()
}
