//go:build !linux

package scenario

// machineMemory is read on Linux only: elsewhere a load has no memory
// bound unless Limits.Memory sets one.
func machineMemory() int64 { return 0 }
