package queue

import (
	"cmp"
	"slices"
	"time"
)

// The backoff queue and the unschedulable pool are visited in bulk: a
// backoff window's items all leave together for activeQ, which orders
// them; a change moves every unschedulable item that waits for it. Their
// order within is never observed (All sorts), so they are kept as lists,
// not trees: a retry in a busy cluster parks, moves and backs off items
// millions of times.

// backoffPool holds the items in backoff, by expiry window. Expiries are
// whole seconds a few seconds ahead, so there are a few windows: a sorted
// list of them is searched faster than a map and a tree are kept.
type backoffPool[T any] struct {
	windows []expiryWindow[T] // by expiry; none empty
	n       int
	spare   [][]*Item[T] // emptied windows' lists, kept for reuse
}

// expiryWindow is the items whose backoff ends at expiry; an item knows
// its index (bidx).
type expiryWindow[T any] struct {
	expiry time.Duration
	items  []*Item[T]
}

func newBackoffPool[T any]() backoffPool[T] { return backoffPool[T]{} }

// window returns the index of the window of expiry, and whether it exists
// (else where it would go).
func (b *backoffPool[T]) window(expiry time.Duration) (int, bool) {
	return slices.BinarySearchFunc(b.windows, expiry, func(w expiryWindow[T], e time.Duration) int { return cmp.Compare(w.expiry, e) })
}

func (b *backoffPool[T]) add(it *Item[T]) {
	i, ok := b.window(it.expiry)
	if !ok {
		var items []*Item[T]
		if k := len(b.spare); k > 0 {
			items, b.spare = b.spare[k-1], b.spare[:k-1]
		}
		b.windows = slices.Insert(b.windows, i, expiryWindow[T]{expiry: it.expiry, items: items})
	}
	w := &b.windows[i]
	it.bidx = len(w.items)
	w.items = append(w.items, it)
	b.n++
}

func (b *backoffPool[T]) remove(it *Item[T]) {
	i, _ := b.window(it.expiry)
	w := &b.windows[i]
	last := w.items[len(w.items)-1]
	w.items[it.bidx], last.bidx = last, it.bidx
	w.items[len(w.items)-1] = nil
	w.items = w.items[:len(w.items)-1]
	if len(w.items) == 0 {
		b.recycle(w.items)
		b.windows = slices.Delete(b.windows, i, i+1)
	}
	b.n--
}

// takeDue removes and returns the items of the earliest window if it ends
// by now.
func (b *backoffPool[T]) takeDue(now time.Duration) ([]*Item[T], bool) {
	if len(b.windows) == 0 || b.windows[0].expiry > now {
		return nil, false
	}
	w := b.windows[0].items
	b.windows = slices.Delete(b.windows, 0, 1)
	b.n -= len(w)
	return w, true
}

// recycle keeps the space of a window taken by takeDue, once its items
// have left, for a later window: a busy cluster's retries fill and empty
// a window a second.
func (b *backoffPool[T]) recycle(w []*Item[T]) {
	if len(b.spare) < keptWindows {
		clear(w)
		b.spare = append(b.spare, w[:0])
	}
}

// keptWindows is how many emptied windows are kept for reuse.
const keptWindows = 4

// firstWanted returns the earliest expiry of a wanted item.
func (b *backoffPool[T]) firstWanted(wanted func(*Item[T]) bool) (time.Duration, bool) {
	for _, w := range b.windows {
		if wanted == nil || slices.ContainsFunc(w.items, wanted) {
			return w.expiry, true
		}
	}
	return 0, false
}

// sorted returns the items in backoffQ order: expiry, then activeQ order.
func (b *backoffPool[T]) sorted() []*Item[T] {
	var out []*Item[T]
	for _, w := range b.windows {
		items := slices.Clone(w.items)
		slices.SortFunc(items, func(x, y *Item[T]) int { return order(before(x, y), before(y, x)) })
		out = append(out, items...)
	}
	return out
}

// parkedList holds the unschedulable items that wake on one set of kinds
// of change, in the order of their parkedSince. An item taken out early
// leaves its entry behind, told apart by the item's park token and
// compacted away.
type parkedList[T any] struct {
	entries []parkedEntry[T]
	head    int // entries before it are gone
	live    int
	// unwanted says that the entries before index unwanted were found
	// stale or not wanted by firstWanted at clusterEventVersion: while
	// that version holds, the next search starts there (see
	// Queue.NextWakeup)
	unwanted            int
	clusterEventVersion int64
}

type parkedEntry[T any] struct {
	it    *Item[T]
	at    time.Duration // the item's parkedSince then
	token uint32
}

func (e parkedEntry[T]) valid() bool { return e.it.loc == inUnschedulable && e.it.token == e.token }

func (l *parkedList[T]) add(it *Item[T]) {
	it.token++
	e := parkedEntry[T]{it: it, at: it.parkedSince, token: it.token}
	l.live++
	if n := len(l.entries); n == l.head || l.entries[n-1].at <= e.at {
		l.entries = append(l.entries, e) // the usual case: parked now, after the others
		return
	}
	i, _ := slices.BinarySearchFunc(l.entries[l.head:], e.at, func(x parkedEntry[T], at time.Duration) int {
		if x.at <= at {
			return -1
		}
		return 1
	})
	l.entries = slices.Insert(l.entries, l.head+i, e)
	l.unwanted = min(l.unwanted, l.head+i) // the entries after it moved up one
}

// removed notes that one of the items left (its entry is stale now).
func (l *parkedList[T]) removed() {
	l.live--
	if stale := len(l.entries) - l.head - l.live; stale > 64 && stale > l.live {
		kept := l.entries[:0]
		for _, e := range l.entries[l.head:] {
			if e.valid() {
				kept = append(kept, e)
			}
		}
		clear(l.entries[len(kept):])
		l.entries, l.head, l.unwanted = kept, 0, 0
	}
}

// takeAll removes every item and appends it to out.
func (l *parkedList[T]) takeAll(out []*Item[T]) []*Item[T] {
	for _, e := range l.entries[l.head:] {
		if e.valid() {
			out = append(out, e.it)
		}
	}
	clear(l.entries)
	l.entries, l.head, l.live, l.unwanted = l.entries[:0], 0, 0, 0
	return out
}

// takeUntil removes and returns the items parked at or before t.
func (l *parkedList[T]) takeUntil(t time.Duration) []*Item[T] {
	var out []*Item[T]
	for l.head < len(l.entries) {
		e := l.entries[l.head]
		if e.at > t {
			break // the entries are in the order of at: the item is not read
		}
		if e.valid() {
			out = append(out, e.it)
			l.live--
		}
		l.entries[l.head] = parkedEntry[T]{}
		l.head++
	}
	if l.head == len(l.entries) {
		l.entries, l.head, l.unwanted = l.entries[:0], 0, 0
	}
	return out
}

// firstWanted returns the earliest parkedSince of a wanted item. At the
// cluster-event version of its last search it starts where that search
// found nothing wanted: a busy cluster's pool holds thousands of items
// tried against the cluster as it is, which no wakeup wants, and the
// search ran at every wakeup.
func (l *parkedList[T]) firstWanted(wanted func(*Item[T]) bool, clusterEventVersion int64) (time.Duration, bool) {
	from := l.head
	if wanted != nil && clusterEventVersion == l.clusterEventVersion {
		from = max(from, l.unwanted)
	}
	for i := from; i < len(l.entries); i++ {
		if e := l.entries[i]; e.valid() && (wanted == nil || wanted(e.it)) {
			if wanted != nil {
				l.unwanted, l.clusterEventVersion = i, clusterEventVersion
			}
			return e.at, true
		}
	}
	if wanted != nil {
		l.unwanted, l.clusterEventVersion = len(l.entries), clusterEventVersion
	}
	return 0, false
}

func (l *parkedList[T]) items() []*Item[T] {
	var out []*Item[T]
	for _, e := range l.entries[l.head:] {
		if e.valid() {
			out = append(out, e.it)
		}
	}
	return out
}

// order turns two less-than answers into a comparison.
func order(less, greater bool) int {
	switch {
	case less:
		return -1
	case greater:
		return 1
	}
	return 0
}
