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
// cheaper, and a test of one of each says.
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
	if !hugePagesPay() {
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

// hugePagesPay reports whether faulting fresh memory in as one 2 MiB page takes less time
// here than as 512 pages of 4 KiB. Where memory is cheap to hand out 4 KiB at a time, huge
// pages can cost more: on a virtual machine whose free 4 KiB pages the host has backed
// already (memory used and freed before), while a free 2 MiB block comes from memory the
// host backs only then. On this project's 2-core machine, on one day, a 4 KiB fault cost
// about 10 µs and huge pages won (many-services' system time 0.4-0.5 s to under 0.1 s); on
// a later day a 4 KiB fault cost 2.5 µs and a huge one 5 ms, and marking made
// many-services 5% slower, 50,000 Services 8% and cluster-day 10%. The test takes one
// window of each (a few milliseconds); a failed mapping counts as no.
func hugePagesPay() bool {
	p, err := newProbe()
	if err != nil {
		return false
	}
	defer p.close()
	small, huge := p.time()
	return huge < small
}

// probe is two windows of fresh, 2 MiB-aligned anonymous memory outside the Go heap, one
// marked for 4 KiB pages and one for huge pages, to time how long each takes to fault in.
type probe struct {
	mapping, small, huge []byte
}

// newProbe maps the two windows and marks them.
func newProbe() (*probe, error) {
	// Three huge pages hold two aligned windows wherever the mapping begins.
	mapping, err := syscall.Mmap(-1, 0, 3*hugePage, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, err
	}
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(mapping)))
	off := int((addr+hugePage-1)&^(hugePage-1) - addr)
	p := &probe{mapping: mapping, small: mapping[off : off+hugePage], huge: mapping[off+hugePage : off+2*hugePage]}
	if err := madvise(p.small, syscall.MADV_NOHUGEPAGE); err != nil {
		p.close()
		return nil, err
	}
	if err := madvise(p.huge, syscall.MADV_HUGEPAGE); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

// time writes a byte of every 4 KiB page of each window, the first write of a page being
// its fault, and returns how long each window took.
func (p *probe) time() (small, huge time.Duration) {
	touch := func(w []byte) time.Duration {
		start := time.Now()
		for i := 0; i < len(w); i += 4096 {
			w[i] = 1
		}
		return time.Since(start)
	}
	return touch(p.small), touch(p.huge)
}

// close unmaps the windows.
func (p *probe) close() { syscall.Munmap(p.mapping) }

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
