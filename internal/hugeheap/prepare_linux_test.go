package hugeheap

import (
	"bufio"
	"errors"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// TestMarkedHeapHoldsTheRunsObjects checks the outcome Prepare is for: objects allocated
// after it lie in memory the kernel has marked for huge pages (VmFlags "hg" in
// /proc/self/smaps).
func TestMarkedHeapHoldsTheRunsObjects(t *testing.T) {
	if !advisable() {
		t.Skip("the kernel's transparent huge pages are not in madvise mode here")
	}
	if !mark(64 << 20) {
		t.Fatal("mark(64 MiB) = false on a kernel in madvise mode")
	}
	// The range is free for the spans that follow, not held until a collection the heap's
	// growth would call for.
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc >= 64<<20 {
		t.Errorf("after mark(64 MiB) the heap holds %d MiB: the range was not freed", ms.HeapAlloc>>20)
	}
	// Objects of a size class that the test binary has barely used, so that their spans
	// are new ones.
	type node struct {
		next *node
		pad  [200]byte
	}
	var head *node
	const objects = 100000 // about 21 MB
	for range objects {
		head = &node{next: head}
	}
	marked := 0
	n := 0
	for q := head; q != nil; q = q.next {
		if n%(objects/20) == 0 {
			flags, err := vmFlagsAt(uintptr(unsafe.Pointer(q)))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(" "+flags+" ", " hg ") {
				marked++
			}
		}
		n++
	}
	// The first few hundred KiB of objects may come from pages the runtime held before
	// mark (each P keeps a cache of up to 64 pages): the oldest sample may be there.
	if marked < 19 {
		t.Errorf("%d of 20 objects sampled lie in memory marked for huge pages, want 19 or more", marked)
	}
}

// vmFlagsAt returns the VmFlags line of the mapping that holds address a.
func vmFlagsAt(a uintptr) (string, error) { return smapsField(a, "VmFlags") }

// smapsField returns the value of field in /proc/self/smaps for the mapping that holds
// address a ("2048 kB" for Rss).
func smapsField(a uintptr, field string) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, ok := mappingRange(line); ok {
			in = lo <= a && a < hi
			continue
		}
		if rest, ok := strings.CutPrefix(line, field+":"); ok && in {
			return strings.TrimSpace(rest), nil
		}
	}
	return "", sc.Err()
}

// The windows Prepare times to tell whether huge pages pay fault in as their kinds: one
// aligned huge page each, faulted in whole, a window advised for 4 KiB pages with none of it
// in huge pages and one marked for huge pages in one huge page (where the kernel had a free
// 2 MiB block).
func TestWindowsFaultInAsTheirKinds(t *testing.T) {
	if !advisable() {
		t.Skip("the kernel's transparent huge pages are not in madvise mode here")
	}
	for _, tc := range []struct {
		name   string
		advice int
		flag   string
	}{{"4 KiB", syscall.MADV_NOHUGEPAGE, "nh"}, {"huge", syscall.MADV_HUGEPAGE, "hg"}} {
		w, err := newWindow(tc.advice)
		if err != nil {
			t.Fatal(err)
		}
		defer w.close()
		took := w.fault()
		addr := uintptr(unsafe.Pointer(unsafe.SliceData(w.mem)))
		if addr%hugePage != 0 || len(w.mem) != hugePage {
			t.Errorf("%s window at %#x, %d bytes: want one aligned huge page", tc.name, addr, len(w.mem))
		}
		flags, err := vmFlagsAt(addr)
		rss, err2 := smapsField(addr, "Rss")
		anonHuge, err3 := smapsField(addr, "AnonHugePages")
		if err := errors.Join(err, err2, err3); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(" "+flags+" ", " "+tc.flag+" ") {
			t.Errorf("%s window's flags %q lack %q", tc.name, flags, tc.flag)
		}
		if rss != "2048 kB" {
			t.Errorf("%s window: Rss %s, want the whole window faulted in (2048 kB)", tc.name, rss)
		}
		switch {
		case tc.flag == "nh" && anonHuge != "0 kB":
			t.Errorf("4 KiB window: AnonHugePages %s, want 0 kB", anonHuge)
		case tc.flag == "hg" && anonHuge != "2048 kB":
			t.Logf("huge window: AnonHugePages %s: the kernel had no free 2 MiB block", anonHuge)
		}
		t.Logf("%s window faulted in in %v", tc.name, took)
	}
	t.Logf("huge pages pay here now: %v", hugePagesPay(minBytes))
}

// mappingRange parses the address range that starts a mapping's header line in smaps
// ("c000000000-c004000000 rw-p ...").
func mappingRange(line string) (lo, hi uintptr, ok bool) {
	field, _, _ := strings.Cut(line, " ")
	l, h, found := strings.Cut(field, "-")
	if !found {
		return 0, 0, false
	}
	a, err1 := strconv.ParseUint(l, 16, 64)
	b, err2 := strconv.ParseUint(h, 16, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return uintptr(a), uintptr(b), true
}

// TestPrepareMarksOnce checks that Prepare marks once a process, and that a call it refuses
// for its size or its limit does not use that once up.
func TestPrepareMarksOnce(t *testing.T) {
	if !advisable() {
		t.Skip("the kernel's transparent huge pages are not in madvise mode here")
	}
	const limit = 1 << 30
	if Prepare(minBytes-1, limit) {
		t.Error("Prepare marked a heap under minBytes")
	}
	if Prepare(32<<20, 0) {
		t.Error("Prepare marked a heap with the process's memory unknown")
	}
	if Prepare(32<<20, 2*minBytes-2) {
		t.Error("Prepare marked a heap whose half of the limit is under minBytes")
	}
	first := Prepare(32<<20, limit) // false when an earlier run of this test (-count) marked
	if !first && !prepared.done && !prepared.declined {
		t.Fatal("Prepare(32 MiB) = false on a kernel in madvise mode, neither marked nor declined by the probe")
	}
	if first && prepared.declined {
		t.Error("Prepare marked the heap where the probe found huge pages the dearer")
	}
	if Prepare(32<<20, limit) {
		t.Error("a second Prepare marked the heap again")
	}
}
