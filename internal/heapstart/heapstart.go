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
// a heap floor, and moves the second to another core: a second goroutine
// maps pages ahead of the run (the prefault). A run that holds a large heap, or
// runs long, has Linux map its heap 2 MiB at a time (transparent huge
// pages: a five-hundredth of the faults, and fewer misses of the
// processor's address cache); a short run does not, because on a host
// that hands free memory back to its hypervisor a fresh 2 MiB page costs
// milliseconds, a third of a run on a thousand nodes right after another
// program freed its memory.
package heapstart

import (
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"
	"unsafe"
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

// HugeBytes is the least heap readied for huge pages: about four times
// what a run on a thousand nodes holds. Readying costs about 7 ms a GiB
// (the runtime's accounts of the range) and two forced collections; a
// heap that grows past what was readied takes 4 KiB pages, a small share
// of so long a run.
const HugeBytes = 256 << 20

// PrefaultBytes is how much heap a second goroutine maps at start: about
// what a run on a thousand nodes allocates once its file is read.
const PrefaultBytes = 32 << 20

// LongRun is how long a run goes on before its heap is readied for huge
// pages (when its inputs did not call for them at once): long enough that
// runs on a thousand nodes are over, short against the runs that gain
// from huge pages (a few percent of a minute's run).
const LongRun = 250 * time.Millisecond

// huge says huge pages back the heap: readied (or given by the kernel
// unasked), so that nothing more is prefaulted.
var huge atomic.Bool

// Prepare sets the heap floor and, where the program may run on more than
// one processor, starts the prefault of PrefaultBytes (prefault), whose
// pages the run's next allocations take (the collector keeps free pages
// for reuse while the heap is below its goal, which the floor holds
// high). A run still going after LongRun has its heap readied for huge
// pages then (hugePages). It returns a channel closed when the prefault
// is done (at once without one). Call it once, first thing.
func Prepare() <-chan struct{} {
	floor = make([]byte, FloorBytes)
	prefaulting = prefault(PrefaultBytes)
	time.AfterFunc(LongRun, func() { readyHuge(HugeBytes) })
	return prefaulting
}

// prefaulting is closed when Prepare's prefault is done.
var prefaulting <-chan struct{}

// readyHuge readies n bytes of heap for huge pages, once: the first of
// Expect and the LongRun timer to ask does it. It waits for Prepare's
// prefault, which frees its allocation: freed while the readying
// allocates, its pages would be taken unreleased, and the runtime would
// clear the whole readied range, writing every page of it.
func readyHuge(n int64) bool {
	if !readied.CompareAndSwap(false, true) {
		return false
	}
	if prefaulting != nil {
		<-prefaulting
	}
	if hugePages(n) {
		huge.Store(true)
	}
	return true
}

// readied says the heap was readied for huge pages, or tried.
var readied atomic.Bool

// Expect readies the heap of a run that reads inputs of n bytes: reading
// and decoding a large file, then the run, hold up to about
// HugeInputFactor times its size. When that is HugeBytes or more it
// readies that much heap for huge pages; otherwise, or where huge pages
// cannot be had, it prefaults three times the size (what reading and
// decoding allocate at once), up to MaxPrefaultBytes, once Prepare's
// prefault is done, on another core. Nothing for small inputs, nor on a
// second call. Call it once the inputs' sizes are known, before reading
// them. The channel is closed when the pages are mapped.
func Expect(n int64) <-chan struct{} {
	want := min(HugeInputFactor*n, MaxHugeBytes)
	more := min(3*n, MaxPrefaultBytes) - PrefaultBytes
	if want < HugeBytes && more <= 0 || !expected.CompareAndSwap(false, true) {
		return closed() // a small input, or a second call (a second load of the same inputs)
	}
	if want >= HugeBytes {
		readyHuge(want)
	}
	if more <= 0 || huge.Load() || runtime.GOMAXPROCS(0) < 2 {
		return closed()
	}
	done := make(chan struct{})
	go func() { // after Prepare's prefault, so that the two do not take each other's pages
		defer close(done)
		if prefaulting != nil {
			<-prefaulting
		}
		<-prefault(more)
	}()
	return done
}

// HugeInputFactor is the heap a run holds at its peak, in bytes of its
// inputs, about: a million pods on 100,000 nodes peak at 21 times their
// 107 MB file, the when-will-it-start dump at 6 times its 40 MB.
const HugeInputFactor = 24

// MaxHugeBytes bounds the heap Expect readies for huge pages (address
// space, not memory: pages are mapped only when written).
const MaxHugeBytes = 8 << 30

// prefault maps the pages of n bytes of heap on a second goroutine, when
// there is a second processor, so that the run's next allocations find
// them mapped. Where Linux can map a range without writing it (populate),
// the goroutine takes an n-byte allocation only to learn where the heap
// grows next, drops it and gives its pages back (the runtime then knows
// them clear, and gives them again without clearing), and maps them from
// the lowest up, the order the runtime gives pages in: the run's
// allocations take them as they are mapped, from the start. Elsewhere it
// writes one byte of each page of the allocation, then drops it and
// collects: the pages go back to the heap mapped, for the allocations
// after that. The channel is closed when it is done.
func prefault(n int64) <-chan struct{} {
	if runtime.GOMAXPROCS(0) < 2 {
		return closed() // on one processor the prefault would only take turns with the run
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		b := make([]byte, n)
		from := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		if populate(from, pageBytes) { // a page of the live allocation: supported
			runtime.KeepAlive(b)
			b = nil
			debug.FreeOSMemory()
			for off := uintptr(0); off < uintptr(n); off += populateStep {
				populate(from+off, min(populateStep, uintptr(n)-off))
			}
			return
		}
		for i := int64(0); i < n; i += pageBytes {
			b[i] = 1
		}
		runtime.KeepAlive(b)
		b = nil
		runtime.GC()
	}()
	return done
}

// populateStep is how much the prefault maps a call: the run's
// allocations take the pages mapped by each call as soon as it returns.
const populateStep = 1 << 20

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
