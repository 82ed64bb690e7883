//go:build !linux

package heapstart

// hugePages readies huge pages on Linux only; elsewhere the prefault
// maps pages ahead.
func hugePages(int64) bool { return false }

// populate maps pages without writing them on Linux only; elsewhere the
// prefault writes them.
func populate(from, n uintptr) bool { return false }
