// Package hugeheap asks the kernel to back the heap a run is about to fill with transparent
// huge pages (2 MiB) instead of 4 KiB pages.
//
// A run fills its heap once, from nothing to its peak, and every 4 KiB page it touches for
// the first time is a page fault: 56,000 of them for many-services (224 MB), 0.4-0.5 s of
// system time in a run of 3.5 s on a 2-core virtual machine, where a fault costs about
// 10 µs. The Go runtime leaves its heap to the kernel's default, and where that default is
// "madvise" (as on most distributions) the heap gets 4 KiB pages only. Prepare maps the
// heap a run will need, marks it with madvise(MADV_HUGEPAGE) and frees it again: the
// runtime's page allocator hands out its lowest free addresses first, so the run's spans
// are carved from the marked range and fault 2 MiB at a time. Nothing of it is touched
// until used: the resident memory is about as before.
//
// Whether that pays is the machine's: where 4 KiB pages fault in cheaply and free 2 MiB
// blocks do not (a virtual machine whose host takes free blocks back), huge pages cost more
// than they save. Prepare times a window of small pages and a few huge pages first, and
// marks nothing where small pages win.
package hugeheap

import (
	"strings"
	"time"
)

// minBytes is the least heap Prepare marks: a smaller run faults a few thousand times at
// most.
const minBytes = 16 << 20

// hugePage is the size of a transparent huge page on the platforms that have them (x86-64,
// arm64 with 4 KiB pages).
const hugePage = 2 << 20

// thpMode returns the mode the kernel's transparent huge page setting selects (the bracketed
// word of /sys/kernel/mm/transparent_hugepage/enabled: "always", "madvise" or "never"), or
// "" when the text names none.
func thpMode(setting string) string {
	open := strings.IndexByte(setting, '[')
	end := strings.IndexByte(setting, ']')
	if open < 0 || end < open {
		return ""
	}
	return setting[open+1 : end]
}

// thpDisabled reports whether a GODEBUG value turns the runtime's use of huge pages off
// (disablethp=1): the user's choice stands for this heap too. A later setting of a name
// overrides an earlier one, as the runtime reads them.
func thpDisabled(godebug string) bool {
	off := false
	for kv := range strings.SplitSeq(godebug, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(kv), "disablethp="); ok {
			off = v == "1"
		}
	}
	return off
}

// hugePageSpan returns the range [beg, end) of the huge pages that hold any of the n bytes
// at p.
func hugePageSpan(p, n uintptr) (beg, end uintptr) {
	return p &^ (hugePage - 1), (p + n + hugePage - 1) &^ (hugePage - 1)
}

// hugeProbes is how many huge pages hugePagesPay faults in before it calls huge pages the
// cheaper, for a heap of n bytes: one for each 16 MiB of it, at least 8 (16 MiB, the
// smallest heap Prepare marks) and at most 32 (64 MiB). Where they are cheap, each takes
// about 0.2 ms; the first dear one ends the probe.
func hugeProbes(n int64) int {
	return int(min(max(n/(8*hugePage), 8), 32))
}

// hugeFaultsCheaper is hugePagesPay's verdict: a window of small pages took small to fault
// in, and nextHuge faults in one more huge page and says how long it took (false: it could
// not). Huge pages are cheaper when each of probes of them took less time than the small
// window; it stops at the first that did not.
func hugeFaultsCheaper(small time.Duration, probes int, nextHuge func() (time.Duration, bool)) bool {
	for range probes {
		took, ok := nextHuge()
		if !ok || took >= small {
			return false
		}
	}
	return true
}
