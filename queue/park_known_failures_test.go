package queue_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/queue"
)

// twins are two queues given the same operations, except that one parks
// the head of activeQ with ParkKnownFailures where the other pops and parks item by
// item with Pop and ParkFor.
type twins struct {
	t        *testing.T
	r        *rand.Rand
	bulk     *queue.Queue[int] // ParkKnownFailures
	each     *queue.Queue[int] // Pop and ParkFor
	inFlight []string          // the same in both, sorted
	next     int
	now      time.Duration
	taken    int // items ParkKnownFailures took, over the test
}

// TestParkKnownFailuresIsPopThenParkFor checks ParkKnownFailures against Pop and ParkFor on
// random queues: the same items taken in the same order, each parked for
// the wakeOn try gave, an item declined left where it was, and the two
// queues the same in every field the queue shows after each operation.
func TestParkKnownFailuresIsPopThenParkFor(t *testing.T) {
	total := 0
	for seed := uint64(1); seed <= 20; seed++ {
		tw := &twins{t: t, r: rand.New(rand.NewPCG(seed, 7)), bulk: newQueue(), each: newQueue()}
		for range 600 {
			tw.step()
			tw.same()
		}
		total += tw.taken
	}
	require.Greater(t, total, 5000, "ParkKnownFailures took too few items for the test to mean much")
}

func (tw *twins) both(op func(q *queue.Queue[int]) error) {
	tw.t.Helper()
	require.NoError(tw.t, op(tw.bulk))
	require.NoError(tw.t, op(tw.each))
}

func (tw *twins) step() {
	switch op := tw.r.IntN(12); {
	case op < 3:
		tw.next++
		it := queue.Item[int]{
			Key: fmt.Sprintf("k%03d", tw.next), Priority: []int32{0, 0, 1, 5}[tw.r.IntN(4)],
			FirstSeen: time.Duration(tw.r.IntN(4)) * time.Second, Timestamp: tw.now, Size: 1,
		}
		tw.both(func(q *queue.Queue[int]) error { c := it; return q.Add(&c) })
	case op < 5:
		// a real cycle: Pop on both
		a, okA := tw.bulk.Pop(tw.now)
		b, okB := tw.each.Pop(tw.now)
		require.Equal(tw.t, okA, okB)
		if okA {
			require.Equal(tw.t, a.Key, b.Key)
			tw.inFlight = append(tw.inFlight, a.Key)
			slices.Sort(tw.inFlight)
		}
	case op < 7 && len(tw.inFlight) > 0:
		i := tw.r.IntN(len(tw.inFlight))
		k := tw.inFlight[i]
		tw.inFlight = slices.Delete(tw.inFlight, i, i+1)
		switch wake := uint64(1 + tw.r.IntN(3)); tw.r.IntN(4) {
		case 0:
			tw.both(func(q *queue.Queue[int]) error { return q.ParkFor(k, tw.now, 3, wake) })
		case 1:
			isError := tw.r.IntN(2) == 0
			tw.both(func(q *queue.Queue[int]) error { return q.BackOff(k, tw.now, 3, isError) })
		case 2:
			tw.both(func(q *queue.Queue[int]) error { return q.Requeue(k) })
		default:
			tw.both(func(q *queue.Queue[int]) error { return q.Done(k) })
		}
	case op == 7:
		kinds := uint64(1 + tw.r.IntN(7))
		tw.both(func(q *queue.Queue[int]) error { q.MoveOn(tw.now, kinds); return nil })
	case op == 8:
		tw.now += time.Duration(tw.r.IntN(4000)) * time.Millisecond
		if tw.r.IntN(2) == 0 {
			tw.both(func(q *queue.Queue[int]) error { q.Flush(tw.now); return nil })
		}
	default:
		tw.parkKnownFailures()
	}
}

// parkKnownFailures runs ParkKnownFailures on one twin and the same by hand on the other.
func (tw *twins) parkKnownFailures() {
	t := tw.t
	flushed := tw.r.IntN(2) == 0
	if flushed {
		tw.both(func(q *queue.Queue[int]) error { q.Flush(tw.now); return nil })
	}
	max := 1 + tw.r.IntN(40)
	declineAt := tw.r.IntN(60) // the how-manieth item try declines (never past max)
	wake := func(key string) uint64 { return uint64(1 + len(key)%3 + int(key[len(key)-1])%2) }
	var tried []string
	n := tw.bulk.ParkKnownFailures(tw.now, 9, max, func(it *queue.Item[int]) (uint64, bool) {
		require.True(t, it.InFlight(), "try is given the item popped")
		if len(tried) == 0 { // a clone made now copies it too, in flight
			var flying []string
			cp := tw.bulk.Clone(func(v int) int { return v }, func(_, c *queue.Item[int]) {
				if c.InFlight() {
					flying = append(flying, c.Key)
				}
			})
			require.Equal(t, tw.bulk.Len(), cp.Len())
			require.Contains(t, flying, it.Key)
		}
		tried = append(tried, it.Key)
		if len(tried) > declineAt {
			return 0, false
		}
		return wake(it.Key), true
	}, func(it *queue.Item[int]) {
		require.True(t, it.Queued() && !it.InFlight(), "parked is given the item parked")
		require.Equal(t, tried[len(tried)-1], it.Key)
	})
	require.LessOrEqual(t, n, max)
	require.True(t, len(tried) == n || len(tried) == n+1 && n == declineAt, "tried %d, took %d, declines the %dth", len(tried), n, declineAt+1)
	tw.taken += n
	for i := range n {
		it, ok := tw.each.Pop(tw.now)
		require.True(t, ok)
		require.Equal(t, tried[i], it.Key, "ParkKnownFailures's %dth item", i+1)
		require.NoError(t, tw.each.ParkFor(it.Key, tw.now, 9, wake(it.Key)))
	}
	if len(tried) > n {
		head, ok := tw.each.Peek()
		require.True(t, ok)
		require.Equal(t, tried[n], head.Key, "the item declined stays the head")
	}
	if active, _, _, _ := tw.each.Counts(); flushed && len(tried) == n && n < max {
		// flushed at now, with nothing parked due: it stops only when
		// activeQ is empty, never between its runs
		require.Zero(t, active, "ParkKnownFailures stopped with items active")
	}
}

// same requires the twins to show the same queue.
func (tw *twins) same() {
	tw.t.Helper()
	require.Equal(tw.t, show(tw.each, tw.now), show(tw.bulk, tw.now))
}

// show is everything a queue shows of its items, in the order All gives.
func show(q *queue.Queue[int], now time.Duration) []string {
	var out []string
	a, b, u, g := q.Counts()
	out = append(out, fmt.Sprintf("counts %d %d %d %d, len %d", a, b, u, g, q.Len()))
	for it := range q.All() {
		out = append(out, fmt.Sprintf("%s attempts %d unsched %d errors %d at %v version %d wake %d", it.Key,
			it.Attempts, it.UnschedulableCount, it.ConsecutiveErrors, it.Timestamp, it.ClusterEventVersion, it.WakeOn))
	}
	wake, ok := q.NextWakeup(nil, 0)
	out = append(out, fmt.Sprintf("next wakeup %v %v (now %v)", wake, ok, now))
	told := 0 // a clone copies each item once, those in flight included
	q.Clone(func(v int) int { return v }, func(_, _ *queue.Item[int]) { told++ })
	out = append(out, fmt.Sprintf("copied %d", told))
	return out
}
