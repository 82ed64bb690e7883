package queue

import (
	"cmp"
	"slices"
	"time"
	"unsafe"

	"github.com/gangsim/gangsim/internal/prefetch"
)

// activeQueue is activeQ: items in the activeQ order (see entryOrder), kept as
// a few sorted runs of entries that carry the order fields inline.
//
// Items come in bulk and mostly in order: a cluster change moves every
// parked item it may help, in the order they were parked, which is the
// order they were popped; a backoff window ends for many items at once.
// Arrivals are appended as they come and cut into ascending runs at the
// next read (sorted first when they are not mostly in order), so that a
// busy cluster's retries cost a comparison or two each instead of a tree
// insertion and a tree removal. Runs are merged as a merge sort would,
// whenever the newest holds at least half as many entries as the one
// before it: there are at most about log2(n) of them.
//
// An item that leaves activeQ other than by a pop leaves its entry behind,
// told apart by the item's token (as the unschedulable pool's lists do)
// and dropped when it comes to a head or a merge.
type activeQueue[T any] struct {
	runs []activeRun[T] // oldest first
	// arrived holds the arrivals in blocks of arrivalBlock entries: a
	// million pods arriving at once grow no 32 MB list by copies, each
	// left to the collector
	arrived  [][]activeEntry[T]
	narrived int
	blocks   [][]activeEntry[T] // empty blocks kept for reuse
	n        int                // items in activeQ
	spare    [][]activeEntry[T] // by capacity, ascending
	// spareRoom is the spares' capacity together
	spareRoom int
	// ahead is an item half as far ahead as deleteMin fetches, for the
	// caller to fetch what the item refers to (see Queue.Ahead)
	ahead *Item[T]
}

// arrivalBlock is the size of a block of arrivals, and how many empty
// blocks are kept.
const (
	arrivalBlock = 1024
	keptBlocks   = 16
	keptRoom     = 1 << 16 // entries
)

// activeEntry is an item with its order fields, valid while the item is
// in activeQ with the token it had when the entry was made.
type activeEntry[T any] struct {
	firstSeen time.Duration
	seq       uint64
	it        *Item[T]
	prio      int32
	token     uint32
}

type activeRun[T any] struct {
	entries []activeEntry[T]
	head    int // entries before it are gone
}

// maxArrivedRuns is how many ascending runs n arrivals may form and be
// cut into (push merges them as a merge sort would, in n log(runs)
// comparisons); more are sorted into one. Retries come back from a few
// parked lists at a time: a thousand arrivals in five runs are common,
// and merged in a fifth of the comparisons a sort takes.
func maxArrivedRuns(n int) int { return max(4, n/16) }

// entryOf is its entry, with its current token.
func entryOf[T any](it *Item[T]) activeEntry[T] {
	return activeEntry[T]{firstSeen: it.FirstSeen, seq: it.seq, it: it, prio: it.Priority, token: it.token}
}

// entryOrder is the activeQ order: priority descending, first seen
// ascending, then insertion order (unique).
func entryOrder[T any](a, b *activeEntry[T]) int {
	if a.prio != b.prio {
		return cmp.Compare(b.prio, a.prio)
	}
	if a.firstSeen != b.firstSeen {
		return cmp.Compare(a.firstSeen, b.firstSeen)
	}
	return cmp.Compare(a.seq, b.seq)
}

func entryBefore[T any](a, b *activeEntry[T]) bool { return entryOrder(a, b) < 0 }

// sortEntries sorts es in the activeQ order.
func sortEntries[T any](es []activeEntry[T]) {
	slices.SortFunc(es, func(x, y activeEntry[T]) int { return entryOrder(&x, &y) })
}

func (e *activeEntry[T]) valid() bool { return e.it.loc == inActive && e.it.token == e.token }

func (q *activeQueue[T]) len() int { return q.n }

// add puts it in activeQ; the caller sets its location.
func (q *activeQueue[T]) add(it *Item[T]) {
	it.token++
	if k := len(q.arrived); k == 0 || len(q.arrived[k-1]) == arrivalBlock {
		var b []activeEntry[T]
		if m := len(q.blocks); m > 0 {
			b, q.blocks = q.blocks[m-1], q.blocks[:m-1]
		} else {
			b = make([]activeEntry[T], 0, arrivalBlock)
		}
		q.arrived = append(q.arrived, b)
	}
	last := &q.arrived[len(q.arrived)-1]
	*last = append(*last, entryOf(it))
	q.narrived++
	q.n++
}

// remove takes it out of activeQ; its entry stays, stale once the caller
// moves it elsewhere (and if it comes back, its new entry has a new token).
func (q *activeQueue[T]) remove(*Item[T]) { q.n-- }

// min returns the first item in order, without taking it.
func (q *activeQueue[T]) min() (*Item[T], bool) {
	r := q.first()
	if r < 0 {
		return nil, false
	}
	run := &q.runs[r]
	return run.entries[run.head].it, true
}

// deleteMin takes the first item in order.
func (q *activeQueue[T]) deleteMin() (*Item[T], bool) {
	r := q.first()
	if r < 0 {
		return nil, false
	}
	run := &q.runs[r]
	it := run.entries[run.head].it
	run.entries[run.head] = activeEntry[T]{}
	run.head++
	q.readAhead(run, run.head)
	if run.head == len(run.entries) {
		q.drop(r)
	}
	q.n--
	return it, true
}

// readAheadPops is how many pops ahead deleteMin fetches an item.
const readAheadPops = 8

// readAhead fetches the item readAheadPops pops after the entry next of
// run, to be popped next: in a busy cluster the items retried are
// scattered in memory, and its misses then overlap the cycles before its
// pop instead of stalling it.
func (q *activeQueue[T]) readAhead(run *activeRun[T], next int) {
	q.ahead = nil
	if k := next + readAheadPops; k < len(run.entries) {
		ahead := run.entries[k].it
		prefetch.Object(unsafe.Pointer(ahead), unsafe.Sizeof(*ahead))
		q.ahead = run.entries[next+readAheadPops/2].it
	}
}

// first settles the arrivals and returns the run whose head comes first,
// stale heads dropped, or -1 when activeQ is empty.
func (q *activeQueue[T]) first() int {
	q.settle()
	best := -1
	for r := 0; r < len(q.runs); r++ {
		run := &q.runs[r]
		for run.head < len(run.entries) && !run.entries[run.head].valid() {
			run.entries[run.head] = activeEntry[T]{}
			run.head++
		}
		if run.head == len(run.entries) {
			q.drop(r)
			r--
			continue
		}
		if best < 0 || entryBefore(&run.entries[run.head], &q.runs[best].entries[q.runs[best].head]) {
			best = r
		}
	}
	return best
}

// drop removes run r, keeping its space for a later run.
func (q *activeQueue[T]) drop(r int) {
	q.keep(q.runs[r].entries) // zeroed entry by entry as it was read
	q.runs = slices.Delete(q.runs, r, r+1)
}

// recycle keeps b's space for a later run, cleared so that it holds no
// item.
func (q *activeQueue[T]) recycle(b []activeEntry[T]) {
	if len(q.spare) < keptBlocks || cap(b) > cap(q.spare[0]) {
		clear(b)
		q.keep(b)
	}
}

// keep is recycle for a b already zeroed. The spares are kept by capacity,
// the largest few: merged runs grow to the size of activeQ, and a busy
// cluster's retries merge runs of every size over and over.
// Their room together stays below twice the entries in activeQ (or
// keptRoom), so that a queue once large does not hold its peak forever.
func (q *activeQueue[T]) keep(b []activeEntry[T]) {
	limit := max(keptRoom, 2*q.n)
	if cap(b) > limit {
		return
	}
	for len(q.spare) > 0 && (len(q.spare) == keptBlocks || q.spareRoom+cap(b) > limit) {
		if cap(b) <= cap(q.spare[0]) {
			return
		}
		q.spareRoom -= cap(q.spare[0])
		q.spare = slices.Delete(q.spare, 0, 1)
	}
	i, _ := slices.BinarySearchFunc(q.spare, cap(b), func(x []activeEntry[T], c int) int { return cmp.Compare(cap(x), c) })
	q.spare = slices.Insert(q.spare, i, b[:0])
	q.spareRoom += cap(b)
}

// buffer returns an empty list with room for n entries: the smallest
// spare that holds them, or a new one.
func (q *activeQueue[T]) buffer(n int) []activeEntry[T] {
	i, _ := slices.BinarySearchFunc(q.spare, n, func(x []activeEntry[T], c int) int { return cmp.Compare(cap(x), c) })
	if i == len(q.spare) {
		return make([]activeEntry[T], 0, n)
	}
	b := q.spare[i]
	q.spare = slices.Delete(q.spare, i, i+1)
	q.spareRoom -= cap(b)
	return b
}

// settle cuts the arrivals into runs.
func (q *activeQueue[T]) settle() {
	if q.narrived == 0 {
		return
	}
	a := q.buffer(q.narrived)
	for _, b := range q.arrived {
		a = append(a, b...)
		clear(b)
		if len(q.blocks) < keptBlocks {
			q.blocks = append(q.blocks, b[:0])
		}
	}
	clear(q.arrived)
	q.arrived, q.narrived = q.arrived[:0], 0
	cuts, most := 0, maxArrivedRuns(len(a))
	for i := 1; i < len(a) && cuts < most; i++ {
		if entryBefore(&a[i], &a[i-1]) {
			cuts++
		}
	}
	if cuts >= most {
		sortEntries(a)
	}
	if cuts == 0 || cuts >= most {
		q.push(a) // one run
		return
	}
	start := 0
	for i := 1; i <= len(a); i++ {
		if i == len(a) || entryBefore(&a[i], &a[i-1]) {
			q.push(append(q.buffer(i-start), a[start:i]...))
			start = i
		}
	}
	q.recycle(a)
}

// push adds a sorted run, merging the newest runs while the last is at
// least half the size of the one before it.
func (q *activeQueue[T]) push(entries []activeEntry[T]) {
	q.runs = append(q.runs, activeRun[T]{entries: entries})
	for k := len(q.runs); k >= 2; k = len(q.runs) {
		x, y := &q.runs[k-2], &q.runs[k-1]
		if 2*(len(y.entries)-y.head) < len(x.entries)-x.head {
			return
		}
		merged := q.buffer(len(x.entries) - x.head + len(y.entries) - y.head)
		xs, ys := x.entries[x.head:], y.entries[y.head:]
		for len(xs) > 0 || len(ys) > 0 {
			var e *activeEntry[T]
			if len(ys) == 0 || len(xs) > 0 && !entryBefore(&ys[0], &xs[0]) {
				e, xs = &xs[0], xs[1:]
			} else {
				e, ys = &ys[0], ys[1:]
			}
			if e.valid() {
				merged = append(merged, *e)
			}
		}
		q.recycle(x.entries)
		q.recycle(y.entries)
		q.runs = q.runs[:k-2]
		if len(merged) == 0 {
			q.recycle(merged)
			return
		}
		q.runs = append(q.runs, activeRun[T]{entries: merged})
	}
}

// items returns activeQ's items in order.
func (q *activeQueue[T]) items() []*Item[T] {
	q.settle()
	var es []activeEntry[T]
	for _, run := range q.runs {
		for _, e := range run.entries[run.head:] {
			if e.valid() {
				es = append(es, e)
			}
		}
	}
	sortEntries(es)
	out := make([]*Item[T], len(es))
	for i := range es {
		out[i] = es[i].it
	}
	return out
}
