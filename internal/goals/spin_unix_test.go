//go:build unix

package main

import (
	"syscall"
	"time"
)

// spin burns d of this process's CPU time (user and system, as getrusage counts it), however
// long a busy machine takes to give it that much.
func spin(d time.Duration) {
	for {
		var ru syscall.Rusage
		if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
			return
		}
		if time.Duration(ru.Utime.Nano()+ru.Stime.Nano()) >= d {
			return
		}
		for i := 0; i < 1e5; i++ {
		}
	}
}
