//go:build unix

package main

import (
	"os"
	"syscall"
)

// maxRSSKiB returns the peak RSS of an ended process, getrusage's ru_maxrss (KiB on Linux).
func maxRSSKiB(ps *os.ProcessState) (int64, bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, false
	}
	return int64(ru.Maxrss), true
}
