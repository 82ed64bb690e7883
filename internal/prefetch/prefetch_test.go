package prefetch

import (
	"testing"
	"unsafe"
)

// TestObjectChangesNothing: hints on every part of an object, of any size
// and offset, neither fault nor change memory.
func TestObjectChangesNothing(t *testing.T) {
	b := make([]byte, 1024)
	for i := range b {
		b[i] = byte(i)
	}
	for _, off := range []int{0, 1, 17, 63, 64, 130} {
		for _, size := range []uintptr{0, 1, 63, 64, 65, 176, 512} {
			Object(unsafe.Pointer(&b[off]), size)
		}
	}
	Object(nil, 0)
	for i := range b {
		if b[i] != byte(i) {
			t.Fatalf("byte %d changed to %d", i, b[i])
		}
	}
}

func BenchmarkObject(b *testing.B) {
	x := make([]int64, 1<<20)
	for i := 0; b.Loop(); i++ {
		Object(unsafe.Pointer(&x[(i*4099)&(1<<20-32)]), 176)
	}
}
