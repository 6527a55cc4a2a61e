package hugeheap

import (
	"math"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"unsafe"
)

// Prepare marks about n bytes of heap, but no more than half of limit (the memory the
// process may use; nothing when it is unknown, 0), for transparent huge pages and frees
// them for the allocations that follow (see the package comment), once a process: a later
// call does nothing and reports false. A process that runs several simulations (a test
// binary) has its heap already, and marking each one's again carved its spans from holes
// in marked memory, each hole then resident as a whole huge page (the test process of
// cmd/sim peaked at 192 MB of RSS instead of 114). Even marked once, such a process may
// keep holes resident: a caller that runs several simulations should not call it.
//
// It does nothing either, and reports false, when n is under 16 MiB, when the kernel's
// setting is not "madvise" ("always" backs the heap with huge pages already, "never" gives
// none), when GODEBUG has disablethp=1, or when the kernel commits memory strictly
// (vm.overcommit_memory 2: the mapping, untouched, would count against its limit). n
// should be the run's expected peak heap: the whole of it is mapped at once, hence the
// bound by limit.
//
// It runs a collection, and is meant for the start of a run, before the heap holds much.
func Prepare(n, limit int64) bool {
	if limit <= 0 {
		return false
	}
	n = min(n, limit/2)
	prepared.Lock()
	defer prepared.Unlock()
	// A quarter of the address space at most: a 32-bit process has 4 GiB of it in all.
	if prepared.done || n < minBytes || uint64(n) > math.MaxInt/4 || !advisable() {
		return false
	}
	prepared.done = mark(n)
	return prepared.done
}

// prepared records whether Prepare has marked the heap.
var prepared struct {
	sync.Mutex
	done bool
}

// mark maps n bytes of heap, marks them for huge pages and frees them.
func mark(n int64) bool {
	heap := make([]byte, n) // fresh pages: the runtime knows them zero and touches none
	beg, end := hugePageSpan(uintptr(unsafe.Pointer(unsafe.SliceData(heap))), uintptr(n))
	// The huge pages at either end are shared with the heap around the range (the heap is
	// mapped in 64 MiB arenas, so they are mapped): marking them too keeps the range's first
	// spans, which the runtime hands out first, from being 4 KiB pages.
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, beg, end-beg, syscall.MADV_HUGEPAGE)
	runtime.KeepAlive(heap) // the last use: the collection below frees the range
	runtime.GC()
	return errno == 0
}

// advisable reports whether marking memory for huge pages changes what the kernel gives it.
func advisable() bool {
	if thpDisabled(os.Getenv("GODEBUG")) {
		return false
	}
	setting, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || thpMode(string(setting)) != "madvise" {
		return false
	}
	overcommit, err := os.ReadFile("/proc/sys/vm/overcommit_memory")
	return err == nil && strings.TrimSpace(string(overcommit)) != "2"
}
