package queue

// Clone returns an independent copy of the queue, for a fork of a running
// simulation: every item copied, in the same pool and order, its Value
// passed through value (which maps the scheduler's records to the copy's).
// An item in flight is copied in flight. moved, when not nil, is told
// each item and its copy: an owner that holds its items (Put) points its
// own copies at them.
func (q *Queue[T]) Clone(value func(T) T, moved func(it, cp *Item[T])) *Queue[T] {
	cp := New[T](q.cfg)
	cp.seq = q.seq
	copyOf := func(it *Item[T]) {
		c := *it
		c.Value, c.loc = value(it.Value), nowhere // placed below, in the copy's pools
		if c.indexed {
			cp.items[c.Key] = &c
		}
		cp.n++
		cp.place(&c, it.loc)
		if moved != nil {
			moved(it, &c)
		}
	}
	for it := range q.All() {
		copyOf(it)
	}
	for _, it := range q.flight {
		copyOf(it)
	}
	if it := q.trying; it != nil {
		copyOf(it)
	}
	return cp
}
