//go:build !unix

package sim

import "time"

// cpuTime falls back to the wall clock where getrusage is missing.
func cpuTime() time.Duration { return time.Duration(time.Now().UnixNano()) }
