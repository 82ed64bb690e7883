//go:build !linux

package heapstart

// hugePages readies huge pages on Linux only; elsewhere the prefault
// maps pages ahead.
func hugePages(int64) bool { return false }
