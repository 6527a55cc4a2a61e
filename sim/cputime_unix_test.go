//go:build unix

package sim

import (
	"syscall"
	"time"
)

// cpuTime is the process's user and system CPU time: unlike the wall clock it does not grow
// while other processes hold the cores, so a calibration on a busy machine stays fair.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return time.Duration(time.Now().UnixNano())
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
