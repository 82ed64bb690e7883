// Package heapstart prepares the heap of a command that runs one
// simulation and exits, for the time a user waits for it.
//
// Two costs of such a run are the collector's and the kernel's, not the
// simulation's. A run on a thousand nodes allocates a few tens of MB; the
// collector ran a dozen times over them (a tenth of the run), and the
// first write to each new page of the heap stops the program while the
// kernel maps it (a sixth). Prepare takes the first away and moves most
// of the second to another core.
package heapstart

import (
	"runtime"
	"sync/atomic"
)

// floor is address space the collector counts as live heap and never
// scans (it holds no pointers) or touches (fresh pages stay unmapped until
// written, and it is never written): the collector's first cycles wait
// until the heap has grown by about its size, so a run on a thousand
// nodes is never collected, and a large run's peak grows by at most this
// much.
var floor []byte

// FloorBytes is the heap floor's size.
const FloorBytes = 64 << 20

// PrefaultBytes is how much heap a second goroutine maps at start: about
// what a run on a thousand nodes allocates once its file is read.
const PrefaultBytes = 32 << 20

// Prepare sets the heap floor and, when the program may run on more than
// one processor, starts the prefault: a goroutine writes one byte of each
// page of a PrefaultBytes allocation, then drops it and collects, so that
// its pages, mapped, go back to the heap for the run's next allocations
// (the collector keeps freed pages for reuse while the heap is below its
// goal, which the floor holds high). It returns a channel closed when the
// prefault is done (at once without one). Call it once, first thing.
func Prepare() <-chan struct{} {
	floor = make([]byte, FloorBytes)
	done := make(chan struct{})
	if runtime.GOMAXPROCS(0) < 2 {
		close(done) // on one processor the prefault would only take turns with the run
		return done
	}
	go func() {
		defer close(done)
		b := make([]byte, PrefaultBytes)
		for i := 0; i < len(b); i += pageBytes {
			b[i] = 1
		}
		runtime.KeepAlive(b)
		b = nil
		runtime.GC()
	}()
	return done
}

// Expect moves to another core the page faults of a run that reads
// inputs of n bytes: reading and decoding a large file allocates about
// three times its size at once, and the prefault of Prepare covers a
// small run only. It prefaults the rest, up to MaxPrefaultBytes, as
// Prepare does, once its own prefault is done; nothing for small inputs
// or on one processor, nor on a second call. Call it once the inputs'
// sizes are known, before reading them. The channel is closed when the
// pages are mapped.
func Expect(n int64) <-chan struct{} {
	done := make(chan struct{})
	more := min(3*n, MaxPrefaultBytes) - PrefaultBytes
	if more <= 0 || runtime.GOMAXPROCS(0) < 2 || !expected.CompareAndSwap(false, true) {
		close(done) // nothing to map, or a second call (a second load of the same inputs)
		return done
	}
	go func() {
		defer close(done)
		b := make([]byte, more)
		for i := int64(0); i < more; i += pageBytes {
			b[i] = 1
		}
		runtime.KeepAlive(b)
		b = nil
		runtime.GC()
	}()
	return done
}

// expected says Expect has mapped its pages.
var expected atomic.Bool

// MaxPrefaultBytes bounds the heap Expect maps ahead: beyond it the
// pages would cost more to map on the side than the run saves (measured
// on the when-will-it-start dump: 128 MB gained a fifth, 256 MB lost).
const MaxPrefaultBytes = 128 << 20

// pageBytes is the smallest page size of the platforms Go runs on: writing
// every pageBytes maps every page however large they are.
const pageBytes = 4096
