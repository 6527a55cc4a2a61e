//go:build !unix

package scenarios

import "time"

// cpuTimes is not measured here; the CPU metrics of BenchmarkScale read zero.
func cpuTimes() (user, sys time.Duration) { return 0, 0 }
