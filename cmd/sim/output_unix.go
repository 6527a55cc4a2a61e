//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockDir takes an exclusive, non-blocking lock on dir itself (flock on the directory), so
// that a second sim writing into the same --out fails at once. The lock goes with the
// process: a killed sim leaves no stale lock behind. A lock taken on a directory that was
// swapped away meanwhile is retried on the new one.
func lockDir(dir string) (*os.File, error) {
	for range 10 {
		f, err := os.Open(dir)
		if err != nil {
			return nil, outputError(dir, plainPathError(err))
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, fmt.Errorf("--out %s: %w", dir, errLocked)
			}
			return nil, fmt.Errorf("--out %s: lock: %w", dir, err)
		}
		held, err1 := f.Stat()
		now, err2 := os.Stat(dir)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return f, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("--out %s: %w", dir, errLocked)
}

// mountPoint reports whether dir is on another filesystem than its parent.
func mountPoint(dir, parent string) bool {
	a, err1 := os.Stat(dir)
	b, err2 := os.Stat(parent)
	if err1 != nil || err2 != nil {
		return false
	}
	sa, ok1 := a.Sys().(*syscall.Stat_t)
	sb, ok2 := b.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && sa.Dev != sb.Dev
}

// writable fails unless this process may create entries in dir (access(2) with W_OK).
func writable(dir string) error { return syscall.Access(dir, 0x2 /* W_OK */) }

// raise sends sig to this process, so that it ends of the signal as it would have without
// a handler. It reports whether the signal was sent.
func raise(sig syscall.Signal) bool { return syscall.Kill(os.Getpid(), sig) == nil }

// keepOwner gives dir the owner and group of st, another directory's, as far as this process
// may: both as root (a root's run into a user's --out left the user a directory they could
// no longer write), the group as a member of it; otherwise dir keeps its own.
func keepOwner(dir string, st os.FileInfo) {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		if os.Chown(dir, int(sys.Uid), int(sys.Gid)) != nil {
			os.Chown(dir, -1, int(sys.Gid))
		}
	}
}
