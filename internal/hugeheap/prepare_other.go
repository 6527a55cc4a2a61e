//go:build !linux

package hugeheap

// Prepare does nothing where the kernel has no transparent huge pages to ask for (it is
// Linux's), and reports false.
func Prepare(n, limit int64) bool { return false }
