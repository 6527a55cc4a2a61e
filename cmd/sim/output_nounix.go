//go:build !unix

package main

import (
	"os"
	"syscall"
)

// lockDir takes no lock outside Unix, which has no flock on a directory: two sims writing
// into one --out at once are not kept apart there (the README says so).
func lockDir(dir string) (*os.File, error) { return nil, nil }

// mountPoint reports false: outside Unix no device number tells a mount point apart.
func mountPoint(dir, parent string) bool { return false }

// writable fails unless this process may create a file in dir (probeWritable: no access(2)
// says so without trying).
func writable(dir string) error { return probeWritable(dir) }

// raise reports false: outside Unix a process cannot send itself a signal, so the caller
// exits with the status a shell would report for it.
func raise(sig syscall.Signal) bool { return false }

// keepOwner does nothing outside Unix, where a directory has no owner or group to keep.
func keepOwner(dir string, st os.FileInfo) {}
