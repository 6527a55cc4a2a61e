// Package rusage reads what the kernel counted of an ended child process that os/exec
// does not say: its peak resident set size. The measuring commands (internal/peakrss,
// internal/goals) share it.
package rusage
