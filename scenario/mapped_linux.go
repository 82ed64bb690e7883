//go:build linux

package scenario

import (
	"os"
	"syscall"
)

// mapFile maps a regular file of size bytes into memory, read only, its
// pages mapped at once (MAP_POPULATE) from the kernel's page cache: no
// copy, and none of the fresh pages a read into the heap costs (on a
// virtual machine the first write to each one is the dearest part of
// reading a large file). ok is false when the file cannot be mapped; it is
// then read.
func mapFile(f *os.File, size int64) (data []byte, unmap func(), ok bool) {
	if size <= 0 || int64(int(size)) != size {
		return nil, nil, false
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_POPULATE)
	if err != nil {
		return nil, nil, false
	}
	return b, func() { _ = syscall.Munmap(b) }, true
}
