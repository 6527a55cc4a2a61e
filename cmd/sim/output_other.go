//go:build !linux

package main

// exchange would swap the directories a and b in one atomic rename; outside Linux commit
// falls back to two renames.
func exchange(a, b string) error { return errExchangeUnsupported }
