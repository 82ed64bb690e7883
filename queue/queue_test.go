package queue_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/queue"
)

const ms = time.Millisecond

func TestParkWaitsForMoveAll(t *testing.T) {
	q := newQueue()
	add(t, q, pod("a"))
	pop(t, q, 0, "pod/a")
	require.NoError(t, q.Park("pod/a", 10*time.Second, 7))

	it, _ := q.Get("pod/a")
	require.Equal(t, 1, it.UnschedulableCount)
	require.Equal(t, 10*time.Second, it.Timestamp)
	require.Equal(t, int64(7), it.ClusterEventVersion)
	require.True(t, it.Queued())
	require.Equal(t, pools{Unschedulable: 1}, countsOf(q))

	popNone(t, q, 10*time.Second+4*time.Minute+59*time.Second)
	require.Equal(t, pools{Unschedulable: 1}, countsOf(q), "a cluster change is needed before 5m")

	q.MoveAll(20 * time.Second) // backoff ended at 11s
	require.Equal(t, pools{Active: 1}, countsOf(q))
	pop(t, q, 20*time.Second, "pod/a")
}

func TestMoveAllRespectsBackoff(t *testing.T) {
	q := newQueue()
	add(t, q, pod("a"), pod("b"))
	pop(t, q, 0, "pod/a")
	pop(t, q, 0, "pod/b")
	require.NoError(t, q.Park("pod/a", 10200*ms, 0)) // expiry 11.2s -> 11s
	require.NoError(t, q.Park("pod/b", 5*time.Second, 0))

	q.MoveAll(10500 * ms)
	require.Equal(t, pools{Active: 1, Backoff: 1}, countsOf(q))
	pop(t, q, 10500*ms, "pod/b") // its backoff ended at 6s
	popNone(t, q, 10999*ms)
	pop(t, q, 11*time.Second, "pod/a")
}

func TestFlushMovesParkedAfterMaxUnschedulable(t *testing.T) {
	tests := []struct {
		name string
		cfg  queue.Config
		max  time.Duration
	}{
		{"default 5m", queue.Config{}, 5 * time.Minute},
		{"configured 1m", queue.Config{MaxUnschedulable: time.Minute}, time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := queue.New[int](tt.cfg)
			add(t, q, pod("a"))
			pop(t, q, 0, "pod/a")
			parked := 10 * time.Second
			require.NoError(t, q.Park("pod/a", parked, 0))

			q.Flush(parked + tt.max - time.Nanosecond)
			require.Equal(t, pools{Unschedulable: 1}, countsOf(q))
			q.Flush(parked + tt.max)
			require.Equal(t, pools{Active: 1}, countsOf(q), "exactly parkedSince+max moves it")
		})
	}
}

func TestFlushMovesParkedIntoBackoffWhileItLasts(t *testing.T) {
	q := queue.New[int](queue.Config{Backoff: queue.Backoff{Initial: 10 * time.Minute, Max: 10 * time.Minute}})
	add(t, q, pod("a"))
	pop(t, q, 0, "pod/a")
	require.NoError(t, q.Park("pod/a", 0, 0))

	q.Flush(5 * time.Minute)
	require.Equal(t, pools{Backoff: 1}, countsOf(q), "parked too long, but backing off until 10m")
	wake, ok := q.NextWakeup(nil, 0)
	require.True(t, ok)
	require.Equal(t, 10*time.Minute, wake)
	popNone(t, q, 10*time.Minute-time.Nanosecond)
	pop(t, q, 10*time.Minute, "pod/a")
}

func TestBackOffLeavesAtExpiry(t *testing.T) {
	q := newQueue()
	add(t, q, pod("a"))
	pop(t, q, 0, "pod/a")
	require.NoError(t, q.BackOff("pod/a", 2500*ms, 3, false)) // 3.5s -> 3s

	it, _ := q.Get("pod/a")
	require.Equal(t, [2]int{1, 0}, [2]int{it.UnschedulableCount, it.ConsecutiveErrors})
	require.Equal(t, 2500*ms, it.Timestamp)
	require.Equal(t, int64(3), it.ClusterEventVersion)
	require.Equal(t, pools{Backoff: 1}, countsOf(q))

	q.MoveAll(2900 * ms)
	require.Equal(t, pools{Backoff: 1}, countsOf(q), "MoveAll leaves backoffQ alone")
	popNone(t, q, 2999*ms)
	pop(t, q, 3*time.Second, "pod/a")
}

// TestBackOffDueAtOnceIsPopped: a sub-second backoff can end, truncated to
// the second, before the instant it starts; a pop at that same instant,
// after pops that found nothing more due, still takes the item.
func TestBackOffDueAtOnceIsPopped(t *testing.T) {
	q := queue.New[int](queue.Config{Backoff: queue.Backoff{Initial: 100 * ms, Max: time.Second}})
	add(t, q, pod("a"))
	add(t, q, pod("b"))
	pop(t, q, 5300*ms, "pod/a")
	require.NoError(t, q.BackOff("pod/a", 5300*ms, 1, false)) // 5.4s -> 5s: due
	pop(t, q, 5300*ms, "pod/a")                               // before b, first seen alike, added first
	pop(t, q, 5300*ms, "pod/b")
}

// TestBackOffCounts: errors drive the backoff while there are any; an
// unschedulable attempt resets them and counts on from the earlier total.
func TestBackOffCounts(t *testing.T) {
	q := newQueue()
	add(t, q, pod("a").failed(3, 0))
	pop(t, q, 0, "pod/a")

	require.NoError(t, q.BackOff("pod/a", 0, 0, true)) // errors 1: 1s
	popNone(t, q, 999*ms)
	it := pop(t, q, time.Second, "pod/a")
	require.Equal(t, [2]int{3, 1}, [2]int{it.UnschedulableCount, it.ConsecutiveErrors})

	require.NoError(t, q.BackOff("pod/a", time.Second, 0, true)) // errors 2: 2s
	popNone(t, q, 2999*ms)
	pop(t, q, 3*time.Second, "pod/a")

	require.NoError(t, q.BackOff("pod/a", 3*time.Second, 0, false)) // unschedulable 4: 8s
	require.Equal(t, [2]int{4, 0}, [2]int{it.UnschedulableCount, it.ConsecutiveErrors})
	popNone(t, q, 10999*ms)
	pop(t, q, 11*time.Second, "pod/a")
}

func TestGroupBackoffScalesWithSize(t *testing.T) {
	q := newQueue()
	add(t, q, group("g", 4).failed(5, 0).prio(1), pod("p").failed(5, 0))
	pop(t, q, 0, "group/g")
	pop(t, q, 0, "pod/p")
	require.NoError(t, q.BackOff("group/g", 0, 0, false)) // 6th failure: 10s*sqrt(4)
	require.NoError(t, q.BackOff("pod/p", 0, 0, false))   // 6th failure: 10s

	pop(t, q, 10*time.Second, "pod/p")
	popNone(t, q, 20*time.Second-time.Nanosecond)
	pop(t, q, 20*time.Second, "group/g")
}

func TestRequeueResetsCountsAndKeepsFirstSeen(t *testing.T) {
	q := newQueue()
	add(t, q, pod("a").seen(time.Second).failed(2, 1), pod("b").seen(2*time.Second))
	pop(t, q, 5*time.Second, "pod/a")
	require.NoError(t, q.Requeue("pod/a"))

	it, _ := q.Get("pod/a")
	require.Equal(t, [2]int{0, 0}, [2]int{it.UnschedulableCount, it.ConsecutiveErrors})
	require.Equal(t, time.Second, it.FirstSeen)
	require.Equal(t, time.Second, it.Timestamp)
	require.Equal(t, pools{Active: 2}, countsOf(q), "straight to activeQ, no backoff")

	pop(t, q, 5*time.Second, "pod/a") // still ahead of b, first seen earlier
	require.NoError(t, q.BackOff("pod/a", 5*time.Second, 0, false))
	pop(t, q, 5*time.Second, "pod/b")
	popNone(t, q, 5999*ms)
	pop(t, q, 6*time.Second, "pod/a") // 1s: the count restarted at 1, not 3
}

func TestDoneForgets(t *testing.T) {
	q := newQueue()
	add(t, q, pod("a"))
	pop(t, q, 0, "pod/a")
	require.Equal(t, 1, q.Len())
	require.NoError(t, q.Done("pod/a"))
	require.Zero(t, q.Len())
	_, ok := q.Get("pod/a")
	require.False(t, ok)
	q.MoveAll(time.Hour)
	popNone(t, q, time.Hour)
	add(t, q, pod("a")) // the key is free again
	require.Equal(t, 1, pop(t, q, 0, "pod/a").Attempts)
}

// place puts "pod/x" in the named pool, with "pod/y" active beside it.
func place(t *testing.T, where string) *queue.Queue[int] {
	q := newQueue()
	switch where {
	case "active":
		add(t, q, pod("x"))
	case "gated":
		require.NoError(t, q.AddGated(pod("x").obj()))
	default:
		add(t, q, pod("x"))
		pop(t, q, 0, "pod/x")
		switch where {
		case "backoff":
			require.NoError(t, q.BackOff("pod/x", 0, 0, false))
		case "unschedulable":
			require.NoError(t, q.Park("pod/x", 0, 0))
		}
	}
	add(t, q, pod("y").prio(-1))
	return q
}

func TestDeleteFromEveryPool(t *testing.T) {
	for _, where := range []string{"active", "backoff", "unschedulable", "gated", "in flight"} {
		t.Run(where, func(t *testing.T) {
			q := place(t, where)
			it, err := q.Delete("pod/x")
			require.NoError(t, err)
			require.Equal(t, "pod/x", it.Key)
			require.False(t, it.Queued())
			_, ok := q.Get("pod/x")
			require.False(t, ok)
			require.Equal(t, 1, q.Len())
			require.Equal(t, pools{Active: 1}, countsOf(q))
			q.MoveAll(time.Hour)
			require.NoError(t, q.Activate("pod/y", time.Hour))
			require.Equal(t, []string{"pod/y"}, popAll(q, time.Hour))
		})
	}
}

func TestGateAndActivate(t *testing.T) {
	q := newQueue()
	require.NoError(t, q.AddGated(pod("a").obj()))
	require.Equal(t, pools{Gated: 1}, countsOf(q))
	popNone(t, q, time.Hour)
	require.NoError(t, q.Activate("pod/a", time.Hour))
	require.Equal(t, pools{Active: 1}, countsOf(q))

	require.NoError(t, q.Gate("pod/a"))
	require.Equal(t, pools{Gated: 1}, countsOf(q))
	q.MoveAll(time.Hour)
	popNone(t, q, time.Hour)
	require.Equal(t, pools{Gated: 1}, countsOf(q), "MoveAll and Flush leave gated items")
	require.NoError(t, q.Activate("pod/a", time.Hour))
	require.NoError(t, q.Activate("pod/a", time.Hour), "activating an active item is a no-op")
	require.Equal(t, pools{Active: 1}, countsOf(q))
	pop(t, q, time.Hour, "pod/a")

	require.NoError(t, q.Activate("pod/a", time.Hour))
	it, _ := q.Get("pod/a")
	require.True(t, it.InFlight(), "activating an in-flight item is a no-op")

	require.NoError(t, q.Park("pod/a", time.Hour, 0))
	require.NoError(t, q.Activate("pod/a", time.Hour+500*ms)) // backoff until 1h+1s
	require.Equal(t, pools{Backoff: 1}, countsOf(q))
	popNone(t, q, time.Hour+999*ms)
	pop(t, q, time.Hour+time.Second, "pod/a")
}

func TestActivateFailedGatedItemBacksOff(t *testing.T) {
	q := newQueue()
	require.NoError(t, q.AddGated(pod("a").seen(10*time.Second).failed(1, 0).obj()))
	require.NoError(t, q.Activate("pod/a", 10500*ms))
	require.Equal(t, pools{Backoff: 1}, countsOf(q))
	popNone(t, q, 10999*ms)
	pop(t, q, 11*time.Second, "pod/a")
}

func TestErrors(t *testing.T) {
	// "pod/queued" waits in activeQ, "pod/flight" is in flight.
	setup := func(t *testing.T) *queue.Queue[int] {
		q := newQueue()
		add(t, q, pod("flight").prio(1), pod("queued"))
		pop(t, q, 0, "pod/flight")
		return q
	}
	tests := []struct {
		name string
		key  string
		op   func(q *queue.Queue[int]) error
		want error
	}{
		{"add queued", "pod/queued", func(q *queue.Queue[int]) error { return q.Add(pod("queued").obj()) }, queue.ErrExists},
		{"add in flight", "pod/flight", func(q *queue.Queue[int]) error { return q.Add(pod("flight").obj()) }, queue.ErrExists},
		{"add gated", "pod/queued", func(q *queue.Queue[int]) error { return q.AddGated(pod("queued").obj()) }, queue.ErrExists},
		{"update missing", "pod/none", func(q *queue.Queue[int]) error { return q.Update("pod/none", func(*queue.Item[int]) {}) }, queue.ErrNotFound},
		{"delete missing", "pod/none", func(q *queue.Queue[int]) error { _, err := q.Delete("pod/none"); return err }, queue.ErrNotFound},
		{"activate missing", "pod/none", func(q *queue.Queue[int]) error { return q.Activate("pod/none", 0) }, queue.ErrNotFound},
		{"gate missing", "pod/none", func(q *queue.Queue[int]) error { return q.Gate("pod/none") }, queue.ErrNotFound},
		{"done missing", "pod/none", func(q *queue.Queue[int]) error { return q.Done("pod/none") }, queue.ErrNotFound},
		{"requeue missing", "pod/none", func(q *queue.Queue[int]) error { return q.Requeue("pod/none") }, queue.ErrNotFound},
		{"park missing", "pod/none", func(q *queue.Queue[int]) error { return q.Park("pod/none", 0, 0) }, queue.ErrNotFound},
		{"backoff missing", "pod/none", func(q *queue.Queue[int]) error { return q.BackOff("pod/none", 0, 0, false) }, queue.ErrNotFound},
		{"done queued", "pod/queued", func(q *queue.Queue[int]) error { return q.Done("pod/queued") }, queue.ErrState},
		{"requeue queued", "pod/queued", func(q *queue.Queue[int]) error { return q.Requeue("pod/queued") }, queue.ErrState},
		{"park queued", "pod/queued", func(q *queue.Queue[int]) error { return q.Park("pod/queued", 0, 0) }, queue.ErrState},
		{"backoff queued", "pod/queued", func(q *queue.Queue[int]) error { return q.BackOff("pod/queued", 0, 0, true) }, queue.ErrState},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := setup(t)
			err := tt.op(q)
			require.ErrorIs(t, err, tt.want)
			for _, other := range []error{queue.ErrExists, queue.ErrNotFound, queue.ErrState} {
				if other != tt.want {
					require.False(t, errors.Is(err, other), "also wraps %v", other)
				}
			}
			require.ErrorContains(t, err, tt.key)
			require.Equal(t, 2, q.Len(), "a failed call changes nothing")
			require.Equal(t, pools{Active: 1}, countsOf(q))
			it, _ := q.Get("pod/flight")
			require.True(t, it.InFlight())
			queued, _ := q.Get("pod/queued")
			require.Zero(t, queued.UnschedulableCount+queued.ConsecutiveErrors)
		})
	}
}

func TestNextWakeup(t *testing.T) {
	q := newQueue()
	_, ok := q.NextWakeup(nil, 0)
	require.False(t, ok, "empty queue")

	add(t, q, pod("a").prio(3), pod("b").prio(2).failed(2, 0), pod("c").prio(1), pod("flight"))
	require.Equal(t, []string{"pod/a", "pod/b", "pod/c", "pod/flight"}, popAll(q, 0))
	require.NoError(t, q.BackOff("pod/a", 2*time.Second, 0, false)) // 1st failure: 3s
	require.NoError(t, q.BackOff("pod/b", time.Second, 0, false))   // 3rd failure: 1s+4s = 5s
	require.NoError(t, q.Park("pod/c", time.Second, 0))             // 1s+5m
	add(t, q, pod("d"))
	require.NoError(t, q.AddGated(pod("e").obj()))

	only := func(keys ...string) func(*queue.Item[int]) bool {
		return func(it *queue.Item[int]) bool {
			for _, k := range keys {
				if it.Key == k {
					return true
				}
			}
			return false
		}
	}
	tests := []struct {
		name   string
		wanted func(*queue.Item[int]) bool
		want   time.Duration
		ok     bool
	}{
		{"all", nil, 3 * time.Second, true},
		{"earliest backoff filtered out", only("pod/b", "pod/c"), 5 * time.Second, true},
		{"parked only", only("pod/c"), time.Second + 5*time.Minute, true},
		{"active, gated and in flight never wake", only("pod/d", "pod/e", "pod/flight"), 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := q.NextWakeup(tt.wanted, 0)
			require.Equal(t, tt.ok, ok)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestAllOrder(t *testing.T) {
	q := newQueue()
	add(t, q, pod("a").prio(9), pod("b").prio(8).failed(2, 0), pod("c").prio(7), pod("f").prio(6), pod("h").prio(5))
	require.Len(t, popAll(q, 0), 5)
	require.NoError(t, q.BackOff("pod/b", time.Second, 0, false))   // expiry 5s
	require.NoError(t, q.BackOff("pod/a", 2*time.Second, 0, false)) // expiry 3s
	require.NoError(t, q.Park("pod/c", time.Second, 0))
	require.NoError(t, q.Park("pod/f", 500*ms, 0))
	add(t, q, pod("x").prio(1), pod("y").prio(2))
	require.NoError(t, q.AddGated(pod("g2").obj()))
	require.NoError(t, q.AddGated(pod("g1").obj()))

	want := []string{"pod/y", "pod/x", "pod/a", "pod/b", "pod/f", "pod/c", "pod/g2", "pod/g1"}
	require.Equal(t, want, keysOf(q.All()), "active, backoff, unschedulable, gated; h in flight is left out")
	require.Equal(t, 9, q.Len())
	require.Equal(t, pools{2, 2, 2, 2}, countsOf(q))

	var first []string
	for it := range q.All() {
		first = append(first, it.Key)
		if len(first) == 3 {
			break
		}
	}
	require.Equal(t, want[:3], first, "stopping early is honoured across pools")
}

// MoveOn moves only the unschedulable items that wake on one of the kinds
// of change given, respecting their backoff as MoveAll does; an item
// parked by Park wakes on any change.
func TestMoveOnMovesTheHelpedOnly(t *testing.T) {
	q := newQueue()
	add(t, q, pod("a"), pod("b"), pod("c"))
	pop(t, q, 0, "pod/a")
	pop(t, q, 0, "pod/b")
	pop(t, q, 0, "pod/c")
	require.NoError(t, q.ParkFor("pod/a", 0, 0, 1))
	require.NoError(t, q.ParkFor("pod/b", 0, 0, 2|4))
	require.NoError(t, q.Park("pod/c", 0, 0))
	q.MoveOn(5*time.Second, 1)
	require.Equal(t, pools{Active: 2, Unschedulable: 1}, countsOf(q))
	pop(t, q, 5*time.Second, "pod/a")
	pop(t, q, 5*time.Second, "pod/c")
	popNone(t, q, 5*time.Second)
	q.MoveOn(5*time.Second, 8)
	require.Equal(t, pools{Unschedulable: 1}, countsOf(q), "no kind b wakes on")
	q.MoveOn(5*time.Second, 4)
	pop(t, q, 5*time.Second, "pod/b")
}

// All gives the unschedulable pool in the order items were parked, whatever
// they wake on.
func TestAllMergesTheUnschedulablePool(t *testing.T) {
	q := newQueue()
	add(t, q, pod("a"), pod("b"), pod("c"))
	for _, k := range []string{"pod/a", "pod/b", "pod/c"} {
		pop(t, q, 0, k)
	}
	require.NoError(t, q.ParkFor("pod/b", time.Second, 0, 2))
	require.NoError(t, q.ParkFor("pod/a", 2*time.Second, 0, 1))
	require.NoError(t, q.Park("pod/c", 3*time.Second, 0))
	require.Equal(t, []string{"pod/b", "pod/a", "pod/c"}, keysOf(q.All()))
}

// While the cluster-event version holds, the unschedulable pool skips the
// items its last search found unwanted; every way an item comes into a
// list in front of where that search stopped must still be seen: a change
// moving the list out and the items parked again, an item re-parked in
// place by Update, a list emptied by time, and one compacted.
func TestNextWakeupRemembersUnwantedItems(t *testing.T) {
	wantedIfPriority := func(it *queue.Item[int]) bool { return it.Priority > 0 }
	const clusterEventVersion = 7
	parkAll := func(t *testing.T, q *queue.Queue[int], at time.Duration) {
		t.Helper()
		for {
			it, ok := q.Pop(at)
			if !ok {
				return
			}
			require.NoError(t, q.Park(it.Key, at, 0))
		}
	}
	setup := func(t *testing.T, n int) *queue.Queue[int] {
		q := newQueue()
		for i := range n {
			add(t, q, pod(fmt.Sprint("p", i)))
		}
		parkAll(t, q, time.Second)
		_, ok := q.NextWakeup(wantedIfPriority, clusterEventVersion)
		require.False(t, ok, "no item is wanted yet")
		return q
	}
	t.Run("moved out and parked again", func(t *testing.T) {
		q := setup(t, 3)
		q.MoveAll(time.Minute)
		require.NoError(t, q.Update("pod/p0", func(it *queue.Item[int]) { it.Priority = 1 }))
		parkAll(t, q, time.Minute)
		at, ok := q.NextWakeup(wantedIfPriority, clusterEventVersion)
		require.True(t, ok)
		require.Equal(t, time.Minute+queue.DefaultMaxUnschedulable, at)
	})
	t.Run("re-parked in place by Update", func(t *testing.T) {
		q := newQueue()
		for i := range 3 { // parked at 1s, 2s, 3s
			add(t, q, pod(fmt.Sprint("p", i)))
			parkAll(t, q, time.Duration(i+1)*time.Second)
		}
		_, ok := q.NextWakeup(wantedIfPriority, clusterEventVersion)
		require.False(t, ok)
		// p0 goes back in its place, before the entries already read
		require.NoError(t, q.Update("pod/p0", func(it *queue.Item[int]) { it.Priority = 1 }))
		at, ok := q.NextWakeup(wantedIfPriority, clusterEventVersion)
		require.True(t, ok)
		require.Equal(t, time.Second+queue.DefaultMaxUnschedulable, at)
	})
	t.Run("emptied by time", func(t *testing.T) {
		q := setup(t, 3)
		q.Flush(time.Hour) // past MaxUnschedulable: all back to activeQ
		add(t, q, pod("late").prio(1))
		parkAll(t, q, time.Hour)
		at, ok := q.NextWakeup(wantedIfPriority, clusterEventVersion)
		require.True(t, ok)
		require.Equal(t, time.Hour+queue.DefaultMaxUnschedulable, at)
	})
	t.Run("compacted", func(t *testing.T) {
		q := setup(t, 200)
		for i := range 150 { // stale entries: more than 64 and than those left
			_, err := q.Delete(fmt.Sprint("pod/p", i))
			require.NoError(t, err)
		}
		require.NoError(t, q.Update("pod/p199", func(it *queue.Item[int]) { it.Priority = 1 }))
		at, ok := q.NextWakeup(wantedIfPriority, clusterEventVersion)
		require.True(t, ok)
		require.Equal(t, time.Second+queue.DefaultMaxUnschedulable, at)
	})
}

// Grow keeps the queue's items, where they are, and takes more.
func TestGrowKeepsItems(t *testing.T) {
	q := newQueue()
	add(t, q, pod("a"))
	add(t, q, pod("b"))
	pop(t, q, 0, "pod/a")
	q.Grow(1000)
	q.Grow(-1)
	require.Equal(t, 2, q.Len())
	require.Equal(t, pools{Active: 1}, countsOf(q), "a is in flight, b active")
	require.Error(t, q.Add(&pod("b").it), "the grown index still knows b")
	require.NoError(t, q.Done("pod/a"))
	add(t, q, pod("c"))
	pop(t, q, 0, "pod/b")
	pop(t, q, 0, "pod/c")
}

// An item added with Put is its owner's to reach: no key finds it, the
// item methods do, and it counts and pops as any other.
func TestPutItemsAreReachedByPointer(t *testing.T) {
	q := newQueue()
	a, g := pod("a").obj(), pod("g").obj()
	require.NoError(t, q.Put(a))
	require.NoError(t, q.PutGated(g))
	add(t, q, pod("b").prio(-1))
	require.Equal(t, 3, q.Len())
	_, ok := q.Get("pod/a")
	require.False(t, ok)
	require.ErrorIs(t, q.Activate("pod/g", 0), queue.ErrNotFound)
	require.Equal(t, pools{Active: 2, Gated: 1}, countsOf(q))
	require.Same(t, a, pop(t, q, 0, "pod/a"))
	require.ErrorIs(t, q.Done("pod/a"), queue.ErrNotFound, "not by its key")
	require.NoError(t, q.DoneItem(a))
	require.False(t, a.Queued() || a.InFlight())
	require.ErrorIs(t, q.DoneItem(a), queue.ErrNotFound, "gone")
	require.NoError(t, q.ActivateItem(g, 0))
	require.Equal(t, []string{"pod/g", "pod/b"}, popAll(q, 0))
	require.Equal(t, 2, q.Len(), "both in flight")
	require.NoError(t, q.Put(a), "a done item may come back")
	require.Equal(t, 3, q.Len())
}

// The item methods refuse what the keyed ones refuse, and a nil item.
func TestItemMethodsErrors(t *testing.T) {
	q := newQueue()
	queued, flight, never := pod("queued").obj(), pod("flight").prio(1).obj(), pod("never").obj()
	require.NoError(t, q.Put(queued))
	require.NoError(t, q.Put(flight))
	pop(t, q, 0, "pod/flight")
	for name, err := range map[string]error{
		"done queued":    q.DoneItem(queued),
		"requeue queued": q.RequeueItem(queued),
		"park queued":    q.ParkItem(queued, 0, 0, queue.AnyChange),
		"backoff queued": q.BackOffItem(queued, 0, 0, true),
	} {
		require.ErrorIs(t, err, queue.ErrState, name)
	}
	for name, err := range map[string]error{
		"done never":     q.DoneItem(never),
		"delete never":   q.DeleteItem(never),
		"activate never": q.ActivateItem(never, 0),
		"gate never":     q.GateItem(never),
		"update never":   q.UpdateItem(never, func(*queue.Item[int]) {}),
		"done nil":       q.DoneItem(nil),
		"delete nil":     q.DeleteItem(nil),
	} {
		require.ErrorIs(t, err, queue.ErrNotFound, name)
	}
	require.Equal(t, 2, q.Len(), "a failed call changes nothing")
	require.Equal(t, pools{Active: 1}, countsOf(q))
	require.True(t, flight.InFlight())
}
