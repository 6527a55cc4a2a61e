//go:build unix

package scenarios

import (
	"syscall"
	"time"
)

// cpuTime is the process's user + system CPU time so far.
func cpuTime() time.Duration {
	user, sys := cpuTimes()
	return user + sys
}

// systemTime is the process's system (kernel) CPU time so far.
func systemTime() time.Duration {
	_, sys := cpuTimes()
	return sys
}

// cpuTimes is the process's user and system CPU time so far.
func cpuTimes() (user, sys time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}
