// Package heapstart prepares the heap of a command that runs one
// simulation and exits, for the time a user waits for it.
//
// Two costs of such a run are the collector's and the kernel's, not the
// simulation's. A run on a thousand nodes allocates a few tens of MB; the
// collector ran a dozen times over them (a tenth of the run). And the
// first write to each new page of the heap stops the program while the
// kernel maps the page: on the virtual machines runs are measured on,
// about 10 µs a 4 KiB page, more than half of a run on a thousand nodes
// and a third of reading a 40 MB dump. Prepare takes the first away with
// a heap floor. For the second it asks Linux to map the heap's pages 2 MiB
// at a time (transparent huge pages: a five-hundredth of the faults);
// where that cannot be had, a second goroutine writes the pages ahead
// (the prefault), which moves the faults to another core.
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

// HugeBytes is the heap Prepare readies for huge pages: about four times
// what a run on a thousand nodes holds. Readying costs about 7 ms a GiB
// (the runtime's accounts of the range), paid by every run, however
// small; Expect readies more for large inputs, and a heap that grows past
// both takes 4 KiB pages, a small share of so long a run.
const HugeBytes = 256 << 20

// PrefaultBytes is how much heap a second goroutine maps at start, where
// huge pages cannot be had: about what a run on a thousand nodes
// allocates once its file is read.
const PrefaultBytes = 32 << 20

// huge says huge pages back the heap: readied by Prepare (or given by
// the kernel unasked), so that nothing is prefaulted.
var huge bool

// Prepare sets the heap floor and readies the heap for huge pages
// (hugePages); where they cannot be had and the program may run on more
// than one processor, it starts the prefault instead: a goroutine writes
// one byte of each page of a PrefaultBytes allocation, then drops it and
// collects, so that its pages, mapped, go back to the heap for the run's
// next allocations (the collector keeps freed pages for reuse while the
// heap is below its goal, which the floor holds high). It returns a
// channel closed when the prefault is done (at once without one). Call
// it once, first thing.
func Prepare() <-chan struct{} {
	floor = make([]byte, FloorBytes)
	if huge = hugePages(HugeBytes); huge {
		return closed()
	}
	return prefault(PrefaultBytes)
}

// Expect readies the heap of a run that reads inputs of n bytes: reading
// and decoding a large file, then the run, hold up to about
// HugeInputFactor times its size. With huge pages it readies that much
// heap for them, beyond what Prepare readied; otherwise it prefaults
// three times the size (what reading and decoding allocate at once), up
// to MaxPrefaultBytes, once Prepare's prefault is done, on another core.
// Nothing for small inputs, nor on a second call. Call it once the
// inputs' sizes are known, before reading them. The channel is closed
// when the pages are mapped.
func Expect(n int64) <-chan struct{} {
	if huge {
		if want := min(HugeInputFactor*n, MaxHugeBytes); want > HugeBytes && expected.CompareAndSwap(false, true) {
			hugePages(want)
		}
		return closed()
	}
	more := min(3*n, MaxPrefaultBytes) - PrefaultBytes
	if more <= 0 || runtime.GOMAXPROCS(0) < 2 || !expected.CompareAndSwap(false, true) {
		return closed() // nothing to map, or a second call (a second load of the same inputs)
	}
	return prefault(more)
}

// HugeInputFactor is the heap a run holds at its peak, in bytes of its
// inputs, about: a million pods on 100,000 nodes peak at 21 times their
// 107 MB file, the when-will-it-start dump at 6 times its 40 MB.
const HugeInputFactor = 24

// MaxHugeBytes bounds the heap Expect readies for huge pages (address
// space, not memory: pages are mapped only when written).
const MaxHugeBytes = 8 << 30

// prefault writes one byte of each page of an n-byte allocation on a
// second goroutine, when there is a second processor, then drops it and
// collects: the pages go back to the heap mapped. The channel is closed
// when it is done.
func prefault(n int64) <-chan struct{} {
	if runtime.GOMAXPROCS(0) < 2 {
		return closed() // on one processor the prefault would only take turns with the run
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		b := make([]byte, n)
		for i := int64(0); i < n; i += pageBytes {
			b[i] = 1
		}
		runtime.KeepAlive(b)
		b = nil
		runtime.GC()
	}()
	return done
}

func closed() <-chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// expected says Expect has readied its pages.
var expected atomic.Bool

// MaxPrefaultBytes bounds the heap Expect maps ahead: beyond it the
// pages would cost more to map on the side than the run saves (measured
// on the when-will-it-start dump: 128 MB gained a fifth, 256 MB lost).
const MaxPrefaultBytes = 128 << 20

// pageBytes is the smallest page size of the platforms Go runs on: writing
// every pageBytes maps every page however large they are.
const pageBytes = 4096
