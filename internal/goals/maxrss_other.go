//go:build !unix

package main

import "os"

// maxRSSKiB reports false: outside Unix no getrusage gives a process's peak RSS.
func maxRSSKiB(ps *os.ProcessState) (int64, bool) { return 0, false }
