//go:build !unix

package main

import "time"

// spin burns about d of CPU time: d of wall time busy (the CPU time is not readable here).
func spin(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}
