//go:build unix

package scenarios

import "syscall"

// addressSpaceLimit returns RLIMIT_AS (0: unlimited or unknown).
func addressSpaceLimit() int64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil || r.Cur == ^uint64(0) || r.Cur > 1<<62 {
		return 0
	}
	return int64(r.Cur)
}
