package queue

// Clone returns an independent copy of the queue, for a fork of a running
// simulation: every item copied, in the same pool and order, its Value
// passed through value (which maps the scheduler's records to the copy's).
// An item in flight is copied in flight.
func (q *Queue[T]) Clone(value func(T) T) *Queue[T] {
	cp := New[T](q.cfg)
	cp.seq = q.seq
	for key, it := range q.items {
		c := *it
		c.Value = value(it.Value)
		cp.items[key] = &c
		cp.place(&c, it.loc)
	}
	return cp
}
