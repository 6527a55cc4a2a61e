//go:build !unix

package scenarios

import "time"

// cpuTime is not measured here; the CPU metrics of BenchmarkScale read zero.
func cpuTime() time.Duration { return 0 }

// systemTime is not measured here either.
func systemTime() time.Duration { return 0 }
