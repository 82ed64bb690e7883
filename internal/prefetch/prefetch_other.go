//go:build !amd64 && !arm64

package prefetch

import "unsafe"

func object(unsafe.Pointer, uintptr) {}
