package queue

import (
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
	"time"
	"unsafe"

	"github.com/google/btree"
)

// Errors of queue operations; each is wrapped with the item key.
var (
	ErrExists   = errors.New("queue: item already present")
	ErrNotFound = errors.New("queue: item not present")
	ErrState    = errors.New("queue: item is not where the operation needs it")
)

// Config holds the queue's timing parameters; zero fields take the
// kube-scheduler defaults.
type Config struct {
	Backoff Backoff
	// MaxUnschedulable is how long an item may stay in the unschedulable
	// pool before it is retried anyway (default 5 minutes).
	MaxUnschedulable time.Duration
}

// Defaults of Config, as kube-scheduler v1.37.
const (
	DefaultInitialBackoff   = time.Second
	DefaultMaxBackoff       = 10 * time.Second
	DefaultMaxUnschedulable = 5 * time.Minute
)

func (c Config) withDefaults() Config {
	if c.Backoff.Initial == 0 {
		c.Backoff.Initial = DefaultInitialBackoff
	}
	if c.Backoff.Max == 0 {
		c.Backoff.Max = DefaultMaxBackoff
	}
	if c.MaxUnschedulable == 0 {
		c.MaxUnschedulable = DefaultMaxUnschedulable
	}
	return c
}

// Queue is kube-scheduler's scheduling queue in simulated time. Items live
// in exactly one of:
//
//   - activeQ: ready, popped in the order priority desc, first seen asc,
//     insertion order;
//   - backoffQ: waiting until their backoff expires (ordered by expiry, then
//     activeQ order);
//   - the unschedulable pool: waiting for a cluster change that may help
//     (MoveAll) or for MaxUnschedulable to pass;
//   - the gated pool: not ready to be tried at all (a gang short of
//     members) until Activate;
//   - in flight: popped, until the scheduler requeues or forgets it.
//
// Time only moves through the now arguments; the queue never reads a clock.
// Unlike kube-scheduler with SchedulerPopFromBackoffQ, Pop never takes an
// item out of backoff early: cycles take no simulated time, so popping a
// backing-off item when activeQ is empty would retry it in a loop at the
// same instant. A Queue is not safe for concurrent use.
type Queue[T any] struct {
	cfg     Config
	active  activeQueue[T]
	backoff backoffPool[T]
	// unschedulable is the unschedulable pool, one list per WakeOn set
	// (in the order of the sets), so that a change moves only the items it
	// may help without visiting the others. There are a few sets: a list
	// is found by a scan, and the pool is walked without a map lookup a
	// list.
	unschedulable []wakeList[T]
	gated         *btree.BTreeG[*Item[T]] // by seq
	items         map[string]*Item[T]     // the items added with Add and AddGated, by key
	n             int                     // the items held, in flight included
	flight        []*Item[T]              // the items in flight, each at its fidx
	trying        *Item[T]                // the item ParkKnownFailures popped for its try: in flight, not listed
	seq           uint64
	popped        *Item[T]   // the item Pop returned last
	moving        []*Item[T] // MoveOn's list, kept between calls
	// lastParked is the unschedulable pool's list for lastWake, the one
	// parked asked for last (lists are never dropped)
	lastWake   uint64
	lastParked *parkedList[T]
	// flushed says that Flush at flushedAt left nothing due then, and that
	// nothing placed since is: every pop flushes, and a busy cluster pops
	// thousands of times at one instant
	flushedAt time.Duration
	flushed   bool
}

// New returns an empty queue.
func New[T any](cfg Config) *Queue[T] {
	return &Queue[T]{
		cfg:     cfg.withDefaults(),
		backoff: newBackoffPool[T](),
		gated:   btree.NewG(32, func(a, b *Item[T]) bool { return a.seq < b.seq }),
		items:   map[string]*Item[T]{},
	}
}

// Grow readies the queue's index of items for n more items without
// growing it step by step (a hint: it changes nothing else).
func (q *Queue[T]) Grow(n int) {
	if n <= 0 {
		return
	}
	items := make(map[string]*Item[T], len(q.items)+n)
	maps.Copy(items, q.items)
	q.items = items
}

// Backoff returns the queue's backoff parameters.
func (q *Queue[T]) Backoff() Backoff { return q.cfg.Backoff }

// Get returns the item with the given key, wherever it is (in flight too),
// among those added with Add or AddGated.
func (q *Queue[T]) Get(key string) (*Item[T], bool) {
	it, ok := q.items[key]
	return it, ok
}

// Add puts a new item in activeQ, indexed by its key: the methods that
// take a key find it.
func (q *Queue[T]) Add(it *Item[T]) error { return q.add(it, inActive, true) }

// AddGated puts a new item in the gated pool (see Activate), indexed by
// its key.
func (q *Queue[T]) AddGated(it *Item[T]) error { return q.add(it, inGated, true) }

// Put is Add for an owner that keeps its items and reaches them through
// their pointers, with the methods that take an item (DoneItem and the
// others), as a scheduler's records do: the queue keeps no index of
// them, and a key is neither looked up nor checked for them (Get does not
// find them). An item is handed only to the queue that holds it. A pod a
// scheduler adds costs an insertion into a map and a deletion from it
// otherwise, a twentieth of its cycle.
func (q *Queue[T]) Put(it *Item[T]) error { return q.add(it, inActive, false) }

// PutGated is AddGated for an item the owner reaches itself (Put).
func (q *Queue[T]) PutGated(it *Item[T]) error { return q.add(it, inGated, false) }

func (q *Queue[T]) add(it *Item[T], loc location, indexed bool) error {
	if it.loc != nowhere {
		return fmt.Errorf("%w: %s is in the queue already", ErrExists, it.Key)
	}
	if indexed {
		if _, ok := q.items[it.Key]; ok {
			return fmt.Errorf("%w: %s", ErrExists, it.Key)
		}
		q.items[it.Key] = it
	}
	q.seq++
	it.seq, it.indexed = q.seq, indexed
	q.n++
	q.place(it, loc)
	return nil
}

// byKey runs op on the item a keyed method found, or returns why none
// was.
func byKey[T any](it *Item[T], err error, op func(*Item[T]) error) error {
	if err != nil {
		return err
	}
	return op(it)
}

// lookup is the indexed item with the key.
func (q *Queue[T]) lookup(key string) (*Item[T], error) {
	it, ok := q.items[key]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	return it, nil
}

// leave takes a held item out of the queue's count and index.
func (q *Queue[T]) leave(it *Item[T]) {
	if it.indexed {
		delete(q.items, it.Key)
		it.indexed = false
	}
	q.n--
}

// parked returns the unschedulable pool's list of the items that wake on
// wake.
func (q *Queue[T]) parked(wake uint64) *parkedList[T] {
	if q.lastParked != nil && q.lastWake == wake {
		return q.lastParked // the usual case: pods failing alike park one after another
	}
	l := q.findParked(wake)
	q.lastWake, q.lastParked = wake, l
	return l
}

func (q *Queue[T]) findParked(wake uint64) *parkedList[T] {
	i := 0
	for i < len(q.unschedulable) && q.unschedulable[i].wake < wake {
		i++
	}
	if i == len(q.unschedulable) || q.unschedulable[i].wake != wake {
		q.unschedulable = slices.Insert(q.unschedulable, i, wakeList[T]{wake: wake, list: &parkedList[T]{}})
	}
	return q.unschedulable[i].list
}

// wakeList is the unschedulable pool's list of the items that wake on
// one set of kinds of change.
type wakeList[T any] struct {
	wake uint64
	list *parkedList[T]
}

func parkedBefore[T any](a, b *Item[T]) bool {
	if a.parkedSince != b.parkedSince {
		return a.parkedSince < b.parkedSince
	}
	return a.seq < b.seq
}

func (q *Queue[T]) place(it *Item[T], loc location) {
	if it.loc == inFlight {
		q.land(it)
	}
	it.loc = loc
	switch loc {
	case inFlight:
		it.fidx = len(q.flight)
		q.flight = append(q.flight, it)
	case inBackoff:
		q.backoff.add(it)
		q.flushed = q.flushed && it.expiry > q.flushedAt
	case inUnschedulable:
		q.park(it)
	case inActive:
		q.active.add(it)
	case inGated:
		q.gated.ReplaceOrInsert(it)
	}
}

// park puts it in the unschedulable pool (its location set).
func (q *Queue[T]) park(it *Item[T]) {
	q.parked(it.WakeOn).add(it)
	q.flushed = q.flushed && it.parkedSince > q.flushedAt-q.cfg.MaxUnschedulable
}

// unplace takes it out of its pool; it must be removed before any field an
// order depends on changes.
func (q *Queue[T]) unplace(it *Item[T]) {
	switch loc := it.loc; loc {
	case inBackoff:
		q.backoff.remove(it)
	case inUnschedulable:
		it.loc = nowhere // its entry is stale from now on
		q.parked(it.WakeOn).removed()
	case inActive:
		q.active.remove(it)
	case inGated:
		q.gated.Delete(it)
	case inFlight:
		q.land(it)
	}
	it.loc = nowhere
}

// land takes an item in flight off the list of them (its location is the
// caller's to set).
func (q *Queue[T]) land(it *Item[T]) {
	if it == q.trying {
		q.trying = nil
		return
	}
	last := len(q.flight) - 1
	moved := q.flight[last]
	q.flight[it.fidx], moved.fidx = moved, it.fidx
	q.flight[last] = nil
	q.flight = q.flight[:last]
}

// held reports an item the queue does not hold (never added, or gone).
func held[T any](it *Item[T]) error {
	if it == nil || it.loc == nowhere {
		return fmt.Errorf("%w: %s", ErrNotFound, keyOf(it))
	}
	return nil
}

func keyOf[T any](it *Item[T]) string {
	if it == nil {
		return "a nil item"
	}
	return it.Key
}

// Update changes a queued item's priority or size in place (an item's
// order fields may only change through here).
func (q *Queue[T]) Update(key string, change func(*Item[T])) error {
	it, err := q.lookup(key)
	return byKey(it, err, func(it *Item[T]) error { return q.UpdateItem(it, change) })
}

// UpdateItem is Update for an item the owner holds.
func (q *Queue[T]) UpdateItem(it *Item[T], change func(*Item[T])) error {
	if err := held(it); err != nil {
		return err
	}
	loc := it.loc
	q.unplace(it)
	change(it)
	q.place(it, loc)
	return nil
}

// Delete removes an item from wherever it is.
func (q *Queue[T]) Delete(key string) (*Item[T], error) {
	it, err := q.lookup(key)
	if err != nil {
		return nil, err
	}
	return it, q.DeleteItem(it)
}

// DeleteItem is Delete for an item the owner holds.
func (q *Queue[T]) DeleteItem(it *Item[T]) error {
	if err := held(it); err != nil {
		return err
	}
	q.unplace(it)
	q.leave(it)
	return nil
}

// Activate moves a gated or unschedulable item to activeQ, or to backoffQ
// if its backoff has not expired at now.
func (q *Queue[T]) Activate(key string, now time.Duration) error {
	it, err := q.lookup(key)
	return byKey(it, err, func(it *Item[T]) error { return q.ActivateItem(it, now) })
}

// ActivateItem is Activate for an item the owner holds.
func (q *Queue[T]) ActivateItem(it *Item[T], now time.Duration) error {
	if err := held(it); err != nil {
		return err
	}
	if it.loc != inGated && it.loc != inUnschedulable {
		return nil
	}
	q.unplace(it)
	q.activeOrBackoff(it, now)
	return nil
}

// Gate moves a queued item into the gated pool.
func (q *Queue[T]) Gate(key string) error {
	it, err := q.lookup(key)
	return byKey(it, err, q.GateItem)
}

// GateItem is Gate for an item the owner holds.
func (q *Queue[T]) GateItem(it *Item[T]) error {
	if err := held(it); err != nil {
		return err
	}
	q.unplace(it)
	q.place(it, inGated)
	return nil
}

func (q *Queue[T]) activeOrBackoff(it *Item[T], now time.Duration) {
	if exp := q.cfg.Backoff.Expiry(it.Timestamp, failures(it), it.Size); failures(it) > 0 && exp > now {
		it.expiry = exp
		q.place(it, inBackoff)
		return
	}
	q.place(it, inActive)
}

// Flush moves the items whose time has come at now: expired backoffs to
// activeQ, and items parked unschedulable for MaxUnschedulable or longer to
// activeQ or backoffQ.
func (q *Queue[T]) Flush(now time.Duration) {
	if q.flushed && q.flushedAt == now {
		return // nothing came since that can be due
	}
	for {
		due, ok := q.backoff.takeDue(now)
		if !ok {
			break
		}
		for _, it := range due {
			q.place(it, inActive)
		}
		q.backoff.recycle(due)
	}
	for _, w := range q.unschedulable {
		for _, it := range w.list.takeUntil(now - q.cfg.MaxUnschedulable) {
			it.loc = nowhere
			q.activeOrBackoff(it, now)
		}
	}
	q.flushedAt, q.flushed = now, true
}

// Pop flushes at now and takes the head of activeQ; the item is then in
// flight until Requeue, Park, BackOff or Done.
func (q *Queue[T]) Pop(now time.Duration) (*Item[T], bool) {
	q.Flush(now)
	it, ok := q.active.deleteMin()
	if !ok {
		return nil, false
	}
	q.place(it, inFlight) // deleteMin took it out of activeQ
	it.Attempts++
	q.popped = it
	return it, true
}

// ParkKnownFailures pops the head of activeQ and parks it, as Pop and then
// ParkFor(key, now, clusterEventVersion, wakeOn) would, for as long as try
// takes the item popped (returning the wakeOn to park it for) and at most
// max times, and calls parked with each item parked; it returns how many
// items try took. An item try declines is put back at the head, as it
// was before the pop, for Pop to return: try must decline before it
// changes anything. ParkKnownFailures stops before an item Pop would have to
// flush for, and neither function may add to activeQ.
//
// It is the cycle of a busy cluster's retries, which fail the way a
// retry of their kind just failed: their pops and parkings, item after
// item in one run of activeQ, with no search for the head between them.
func (q *Queue[T]) ParkKnownFailures(now time.Duration, clusterEventVersion int64, max int, try func(*Item[T]) (uint64, bool), parked func(*Item[T])) int {
	taken := 0
	for taken < max && q.flushed && q.flushedAt == now {
		r := q.active.first()
		if r < 0 {
			break
		}
		// the head of the first run comes before the heads of the others
		// (first dropped their stale heads): its items up to the first of
		// those heads are popped one after another
		var bound *activeEntry[T]
		for o := range q.active.runs {
			if o != r {
				if h := &q.active.runs[o].entries[q.active.runs[o].head]; bound == nil || entryBefore(h, bound) {
					bound = h
				}
			}
		}
		run := &q.active.runs[r]
		for taken < max && run.head < len(run.entries) {
			e := &run.entries[run.head]
			if !e.valid() {
				*e = activeEntry[T]{}
				run.head++
				continue
			}
			if bound != nil && entryBefore(bound, e) {
				break
			}
			it := e.it
			q.active.readAhead(run, run.head+1)
			// in flight while try looks at it, held apart from the list
			// of items in flight: most are parked at once, and a busy
			// cluster parks millions
			it.loc, q.trying, q.popped = inFlight, it, it
			it.Attempts++
			q.active.n--
			wakeOn, ok := try(it)
			if !ok {
				q.trying = nil
				it.loc = inActive
				it.Attempts--
				q.active.n++
				return taken
			}
			*e = activeEntry[T]{}
			run.head++
			q.parkFailed(it, now, clusterEventVersion, wakeOn)
			parked(it)
			taken++
			if q.active.narrived != 0 || !q.flushed {
				break // try broke its promise, or a parking may be due: a pop sorts it out
			}
		}
		if run.head == len(run.entries) {
			q.active.drop(r)
		}
		if q.active.narrived != 0 {
			break
		}
	}
	return taken
}

// Ahead returns an item likely to be popped a few pops after the last
// one, or nil. It may be popped later or have left already: it is only
// for fetching ahead what the caller keeps for it, so that the memory is
// at hand when its turn comes (the queue fetches the item itself).
func (q *Queue[T]) Ahead() *Item[T] { return q.active.ahead }

// Peek returns the head of activeQ without taking it.
func (q *Queue[T]) Peek() (*Item[T], bool) { return q.active.min() }

func (q *Queue[T]) inFlight(key string) (*Item[T], error) {
	if it := q.popped; it != nil && it.loc == inFlight && it.indexed && len(it.Key) == len(key) &&
		(unsafe.StringData(it.Key) == unsafe.StringData(key) || it.Key == key) {
		return it, nil // the usual case: the item just popped, named by its own key; no lookup
	}
	it, err := q.lookup(key)
	if err != nil {
		return nil, err
	}
	return it, flying(it)
}

// flying reports an item that is not in flight.
func flying[T any](it *Item[T]) error {
	if err := held(it); err != nil {
		return err
	}
	if it.loc != inFlight {
		return fmt.Errorf("%w: %s is not in flight", ErrState, it.Key)
	}
	return nil
}

// Done forgets an in-flight item that needs no more scheduling.
func (q *Queue[T]) Done(key string) error {
	it, err := q.inFlight(key)
	return byKey(it, err, q.DoneItem)
}

// DoneItem is Done for an item the owner holds.
func (q *Queue[T]) DoneItem(it *Item[T]) error {
	if err := flying(it); err != nil {
		return err
	}
	q.unplace(it)
	q.leave(it)
	return nil
}

// Requeue puts an in-flight item straight back in activeQ with its counts
// reset and its timestamps kept: the leftovers of a successful group cycle.
func (q *Queue[T]) Requeue(key string) error {
	it, err := q.inFlight(key)
	return byKey(it, err, q.RequeueItem)
}

// RequeueItem is Requeue for an item the owner holds.
func (q *Queue[T]) RequeueItem(it *Item[T]) error {
	if err := flying(it); err != nil {
		return err
	}
	it.UnschedulableCount, it.ConsecutiveErrors = 0, 0
	q.place(it, inActive)
	return nil
}

// Park records an unschedulable attempt of an in-flight item at now and
// puts it in the unschedulable pool, where it waits for MoveAll, any
// MoveOn or MaxUnschedulable. clusterEventVersion is the owner's count of
// cluster events the attempt saw (Item.ClusterEventVersion).
func (q *Queue[T]) Park(key string, now time.Duration, clusterEventVersion int64) error {
	return q.ParkFor(key, now, clusterEventVersion, AnyChange)
}

// AnyChange is the WakeOn of an item any change may help.
const AnyChange = ^uint64(0)

// ParkFor is Park for an item that only the kinds of change in wakeOn may
// help: MoveOn moves it for those alone.
func (q *Queue[T]) ParkFor(key string, now time.Duration, clusterEventVersion int64, wakeOn uint64) error {
	it, err := q.inFlight(key)
	return byKey(it, err, func(it *Item[T]) error { return q.ParkItem(it, now, clusterEventVersion, wakeOn) })
}

// ParkItem is ParkFor for an item the owner holds.
func (q *Queue[T]) ParkItem(it *Item[T], now time.Duration, clusterEventVersion int64, wakeOn uint64) error {
	if err := flying(it); err != nil {
		return err
	}
	q.parkFailed(it, now, clusterEventVersion, wakeOn)
	return nil
}

// parkFailed records an unschedulable attempt of an in-flight item at
// now and parks it for wakeOn.
func (q *Queue[T]) parkFailed(it *Item[T], now time.Duration, clusterEventVersion int64, wakeOn uint64) {
	it.UnschedulableCount++
	it.ConsecutiveErrors = 0
	it.Timestamp, it.parkedSince, it.ClusterEventVersion, it.WakeOn = now, now, clusterEventVersion, wakeOn
	q.place(it, inUnschedulable)
}

// BackOff records a failed attempt of an in-flight item at now (an error
// when isError, else unschedulable) and puts it in backoffQ until its
// backoff expires.
func (q *Queue[T]) BackOff(key string, now time.Duration, clusterEventVersion int64, isError bool) error {
	it, err := q.inFlight(key)
	return byKey(it, err, func(it *Item[T]) error { return q.BackOffItem(it, now, clusterEventVersion, isError) })
}

// BackOffItem is BackOff for an item the owner holds.
func (q *Queue[T]) BackOffItem(it *Item[T], now time.Duration, clusterEventVersion int64, isError bool) error {
	if err := flying(it); err != nil {
		return err
	}
	if isError {
		it.ConsecutiveErrors++
	} else {
		it.UnschedulableCount++
		it.ConsecutiveErrors = 0
	}
	it.Timestamp, it.ClusterEventVersion = now, clusterEventVersion
	it.expiry = q.cfg.Backoff.Expiry(now, failures(it), it.Size)
	q.place(it, inBackoff)
	return nil
}

// MoveAll moves every unschedulable item to activeQ, or to backoffQ while
// its backoff lasts: the cluster changed in a way that may help them.
func (q *Queue[T]) MoveAll(now time.Duration) { q.MoveOn(now, AnyChange) }

// MoveOn moves the unschedulable items that wake on one of the kinds of
// change in kinds, as MoveAll does; the others are not visited.
func (q *Queue[T]) MoveOn(now time.Duration, kinds uint64) {
	for _, w := range q.unschedulable {
		if w.wake&kinds == 0 {
			continue
		}
		q.moving = w.list.takeAll(q.moving[:0])
		for _, it := range q.moving {
			it.loc = nowhere
			q.activeOrBackoff(it, now)
		}
		clear(q.moving)
	}
}

// NextWakeup returns the earliest time after now at which Flush would move
// an item, and whether there is one; wanted filters the items considered.
// clusterEventVersion is the version of all that wanted reads besides the
// item (the owner's count of cluster events, as in
// Item.ClusterEventVersion): while it holds, an item wanted says no to is
// not asked again (its own fields change only through the queue). Without
// wanted, clusterEventVersion is not read.
func (q *Queue[T]) NextWakeup(wanted func(*Item[T]) bool, clusterEventVersion int64) (time.Duration, bool) {
	var best time.Duration
	found := false
	consider := func(t time.Duration) {
		if !found || t < best {
			best, found = t, true
		}
	}
	if at, ok := q.backoff.firstWanted(wanted); ok {
		consider(at)
	}
	for _, w := range q.unschedulable {
		if at, ok := w.list.firstWanted(wanted, clusterEventVersion); ok {
			consider(at + q.cfg.MaxUnschedulable)
		}
	}
	return best, found
}

// Counts returns how many items are in each pool.
func (q *Queue[T]) Counts() (active, backoff, unschedulable, gated int) {
	for _, w := range q.unschedulable {
		unschedulable += w.list.live
	}
	return q.active.len(), q.backoff.n, unschedulable, q.gated.Len()
}

// Len returns the number of items the queue holds, in flight included.
func (q *Queue[T]) Len() int { return q.n }

// All yields every item the queue holds: activeQ in pop order, then
// backoffQ, the unschedulable pool and the gated pool in their orders.
func (q *Queue[T]) All() iter.Seq[*Item[T]] {
	return func(yield func(*Item[T]) bool) {
		// the unschedulable pool's lists merged back into one order
		var parked []*Item[T]
		for _, w := range q.unschedulable {
			parked = append(parked, w.list.items()...)
		}
		slices.SortFunc(parked, func(x, y *Item[T]) int { return order(parkedBefore(x, y), parkedBefore(y, x)) })
		for _, list := range [][]*Item[T]{q.active.items(), q.backoff.sorted(), parked} {
			for _, it := range list {
				if !yield(it) {
					return
				}
			}
		}
		q.gated.Ascend(func(it *Item[T]) bool { return yield(it) })
	}
}
