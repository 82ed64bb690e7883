//go:build amd64 || arm64

package prefetch

import "unsafe"

// object prefetches each 64-byte step from p and the last byte: PREFETCHT0
// on amd64, PRFM PLDL1KEEP on arm64.
//
//go:noescape
func object(p unsafe.Pointer, size uintptr)
