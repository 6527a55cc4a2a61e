package hugeheap

import (
	"math"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
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
// Nor does it mark anything, reporting false, where huge pages cost more to fault in than
// 4 KiB ones (hugePagesPay): the machine, not the kernel's setting, decides which is
// cheaper, and a test of a few of each says.
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
	if prepared.done || prepared.declined || n < minBytes || uint64(n) > math.MaxInt/4 || !advisable() {
		return false
	}
	if !hugePagesPay(n) {
		prepared.declined = true
		return false
	}
	prepared.done = mark(n)
	return prepared.done
}

// prepared records whether Prepare has marked the heap, or found huge pages the dearer.
var prepared struct {
	sync.Mutex
	done, declined bool
}

// hugePagesPay reports whether faulting fresh memory in as 2 MiB pages takes less time here
// than as 4 KiB ones. Where memory is cheap to hand out 4 KiB at a time, huge pages can
// cost more: on a virtual machine whose host takes free 2 MiB blocks back (free page
// reporting: this project's machine's balloon reports them, and the host has them back
// about 2 s after they are freed), a block faults in at the host's pace, 4 KiB pages at a
// time, unless a process freed it a moment ago, while 4 KiB pages come from memory the
// guest had used and freed, backed already. On this project's 2-core machine, on one day, a
// 4 KiB fault cost about 10 µs and huge pages won (many-services' system time 0.4-0.5 s to
// under 0.1 s); on a later day a 4 KiB fault cost 2.5 µs and a huge page 5-7 ms but for the
// few a process had just freed (0.2 ms), and marking made many-services 5% slower, 50,000
// Services 8% and cluster-day 10%.
//
// It faults in one 2 MiB window of 4 KiB pages, then up to hugeProbes(n) windows of one
// huge page each for a heap of n bytes, and says no at the first huge page that took longer
// than the small pages: the kernel hands out the blocks freed last first, so the first few
// can be cheap where the rest of a run's are not, and one is not enough to tell. A failed
// mapping counts as no. The windows are freed afterwards, backed: the run's first pages
// reuse them.
func hugePagesPay(n int64) bool {
	small, err := newWindow(syscall.MADV_NOHUGEPAGE)
	if err != nil {
		return false
	}
	defer small.close()
	var held []*window // until the end, so that each probe takes a block of its own
	defer func() {
		for _, w := range held {
			w.close()
		}
	}()
	return hugeFaultsCheaper(small.fault(), hugeProbes(n), func() (time.Duration, bool) {
		huge, err := newWindow(syscall.MADV_HUGEPAGE)
		if err != nil {
			return 0, false
		}
		held = append(held, huge)
		return huge.fault(), true
	})
}

// window is a 2 MiB-aligned window of fresh anonymous memory outside the Go heap, advised
// for 4 KiB pages or for a huge page.
type window struct {
	mapping, mem []byte
}

// newWindow maps a window and advises the kernel of its use (advice).
func newWindow(advice int) (*window, error) {
	// Two huge pages' worth holds an aligned one wherever the mapping begins.
	mapping, err := syscall.Mmap(-1, 0, 2*hugePage, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, err
	}
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(mapping)))
	off := int((addr+hugePage-1)&^(hugePage-1) - addr)
	w := &window{mapping: mapping, mem: mapping[off : off+hugePage]}
	if err := madvise(w.mem, advice); err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

// fault writes a byte of every 4 KiB page of the window, the first write of a page being
// its fault, and returns how long that took.
func (w *window) fault() time.Duration {
	start := time.Now()
	for i := 0; i < len(w.mem); i += 4096 {
		w.mem[i] = 1
	}
	return time.Since(start)
}

// close unmaps the window.
func (w *window) close() { syscall.Munmap(w.mapping) }

// madvise advises the kernel of b's use.
func madvise(b []byte, advice int) error {
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), uintptr(advice))
	if errno != 0 {
		return errno
	}
	return nil
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
