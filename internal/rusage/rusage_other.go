//go:build !unix

package rusage

import "os"

// MaxRSSKiB reports false: outside Unix no getrusage gives a process's peak RSS.
func MaxRSSKiB(ps *os.ProcessState) (int64, bool) { return 0, false }
