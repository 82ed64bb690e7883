// Package prefetch asks the processor to bring memory into its caches
// ahead of use, without waiting for it.
//
// A plain read of memory that is not cached stalls the processor once it
// is the oldest unfinished instruction, however early it is issued; a
// prefetch is only a hint and never stalls. A busy cluster's cycles read
// records scattered in memory one pop after another: telling the
// processor a few pops ahead which ones lets their misses overlap the
// cycles before (docs/architecture.md).
package prefetch

import "unsafe"

// Object hints that the size bytes at p will be read soon, every cache
// line of them. It never faults, changes nothing and returns at once; on
// processors without a hint (other than amd64 and arm64) it does nothing.
// p must point into one object of at least size bytes.
func Object(p unsafe.Pointer, size uintptr) { object(p, size) }
