//go:build unix

package rusage

import (
	"os"
	"syscall"
)

// MaxRSSKiB returns the peak RSS of an ended process, getrusage's ru_maxrss (KiB on Linux),
// and false where the process state carries no such usage.
func MaxRSSKiB(ps *os.ProcessState) (int64, bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, false
	}
	return int64(ru.Maxrss), true
}
