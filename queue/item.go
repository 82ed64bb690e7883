package queue

import "time"

// Kind tells what an item schedules: one pod, or a root group of pods.
type Kind uint8

// The kinds of queue items.
const (
	KindPod Kind = iota
	KindGroup
)

// Where an item is; exactly one place at a time.
type location uint8

const (
	nowhere location = iota
	inActive
	inBackoff
	inUnschedulable
	inGated
	inFlight
)

// Item is one schedulable entity in the queue: a pod, or a root group
// whose pods are scheduled together. The scheduler owns the Value; the
// queue reads only the fields below and its own bookkeeping.
type Item[T any] struct {
	// Key is unique among the queue's items ("pod/ns/name",
	// "podgroup/ns/name"); it is the final tie-break of every order.
	Key      string
	Kind     Kind
	Priority int32
	// FirstSeen is when the scheduler first saw the item; it orders items
	// of equal priority, earliest first.
	FirstSeen time.Duration
	// Timestamp is when the item was last requeued; backoff counts from it.
	Timestamp time.Duration
	// Size is the number of pods the item schedules (1 for a pod); a group's
	// maximum backoff grows with its square root.
	Size int
	// UnschedulableCount and ConsecutiveErrors count failed attempts, and
	// drive the backoff.
	UnschedulableCount int
	ConsecutiveErrors  int
	// Attempts counts every scheduling attempt.
	Attempts int
	// Version is the cluster version (see MoveAll) the last attempt saw.
	Version int64
	// WakeOn is the set of kinds of cluster change (bits the scheduler
	// defines) that move the item out of the unschedulable pool: see
	// ParkFor and MoveOn.
	WakeOn uint64
	// Value is the scheduler's payload.
	Value T

	seq         uint64        // insertion order: ties keep it
	loc         location      // where the item is
	expiry      time.Duration // backoff end, valid inBackoff
	parkedSince time.Duration // valid inUnschedulable
	token       uint32        // counts its parkings: tells its current entry in the unschedulable pool
	bidx        int           // its index in its backoff window, valid inBackoff
}

// Gated reports whether the item waits in the gated pool.
func (it *Item[T]) Gated() bool { return it.loc == inGated }

// InFlight reports whether the item was popped and not yet requeued.
func (it *Item[T]) InFlight() bool { return it.loc == inFlight }

// Queued reports whether the item is in any of the queue's pools.
func (it *Item[T]) Queued() bool { return it.loc != nowhere && it.loc != inFlight }

// before is the activeQ order on items (see entryBefore).
func before[T any](a, b *Item[T]) bool {
	x, y := entryOf(a), entryOf(b)
	return entryBefore(&x, &y)
}
