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
	// The fields are in the order the queue uses them: moving an item
	// between pools reads its first 64 bytes alone (where the item is, its
	// order in activeQ, its backoff), a retry the next ones. A busy
	// cluster moves thousands of items scattered in memory at every change.

	token    uint32 // counts its placings: tells its current entry in activeQ or the unschedulable pool
	Priority int32
	loc      location // where the item is
	Kind     Kind
	indexed  bool // in the queue's index by key (Add), not only its owner's hands (Put)
	// FirstSeen is when the scheduler first saw the item; it orders items
	// of equal priority, earliest first.
	FirstSeen time.Duration
	seq       uint64 // insertion order: ties keep it
	// Timestamp is when the item was last requeued; backoff counts from it.
	Timestamp time.Duration
	// UnschedulableCount and ConsecutiveErrors count failed attempts, and
	// drive the backoff.
	UnschedulableCount int
	ConsecutiveErrors  int
	// Size is the number of pods the item schedules (1 for a pod); a group's
	// maximum backoff grows with its square root.
	Size int

	expiry time.Duration // backoff end, valid inBackoff
	bidx   int           // its index in its backoff window, valid inBackoff
	fidx   int           // its index in the queue's list of items in flight, valid inFlight
	// Attempts counts every scheduling attempt.
	Attempts    int
	parkedSince time.Duration // valid inUnschedulable
	// ClusterEventVersion is the owner's count of cluster events (changes
	// that may help parked items, see MoveOn) as the last attempt saw it.
	ClusterEventVersion int64
	// WakeOn is the set of kinds of cluster change (bits the scheduler
	// defines) that move the item out of the unschedulable pool: see
	// ParkFor and MoveOn.
	WakeOn uint64
	// Value is the scheduler's payload.
	Value T
	// Key is unique among the queue's items ("pod/ns/name",
	// "podgroup/ns/name"); Get finds an item by it when it was added
	// with Add or AddGated.
	Key string
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
