package queue_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/queue"
)

// TestPopOrder: activeQ pops by priority desc, then FirstSeen asc, then
// insertion order (never by key), pods and groups in one order.
func TestPopOrder(t *testing.T) {
	s := time.Second
	tests := []struct {
		name  string
		items []*itemBuilder // added in this order
		want  []string
	}{
		{
			name:  "priority descending",
			items: []*itemBuilder{pod("a").prio(0), pod("b").prio(10), pod("c").prio(5)},
			want:  []string{"pod/b", "pod/c", "pod/a"},
		},
		{
			name:  "negative priorities",
			items: []*itemBuilder{pod("a").prio(-5), pod("b"), pod("c").prio(-1)},
			want:  []string{"pod/b", "pod/c", "pod/a"},
		},
		{
			name:  "first seen ascending within a priority",
			items: []*itemBuilder{pod("a").seen(3 * s), pod("b").seen(1 * s), pod("c").seen(2 * s)},
			want:  []string{"pod/b", "pod/c", "pod/a"},
		},
		{
			name:  "priority beats first seen",
			items: []*itemBuilder{pod("old").seen(0), pod("new").prio(1).seen(9 * s)},
			want:  []string{"pod/new", "pod/old"},
		},
		{
			name:  "insertion order breaks full ties, not the key",
			items: []*itemBuilder{pod("z").seen(s), pod("m").seen(s), pod("a").seen(s)},
			want:  []string{"pod/z", "pod/m", "pod/a"},
		},
		{
			name: "groups and pods interleave in one order",
			items: []*itemBuilder{
				pod("a").prio(5).seen(2 * s),
				group("g1", 3).prio(5).seen(1 * s),
				pod("b").prio(10).seen(5 * s),
				group("g2", 2).prio(0).seen(0),
				pod("c").prio(5).seen(2 * s),
				group("g3", 4).prio(5).seen(2 * s),
			},
			want: []string{"pod/b", "group/g1", "pod/a", "pod/c", "group/g3", "group/g2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newQueue()
			add(t, q, tt.items...)
			require.Equal(t, tt.want, keysOf(q.All()), "All lists activeQ in pop order")
			head, ok := q.Peek()
			require.True(t, ok)
			require.Equal(t, tt.want[0], head.Key, "Peek")
			require.Equal(t, tt.want, popAll(q, 0))
		})
	}
}

func TestPopKeepsKindAndCountsAttempts(t *testing.T) {
	q := newQueue()
	add(t, q, group("g", 3).prio(1), pod("p"))
	g := pop(t, q, 0, "group/g")
	require.Equal(t, queue.KindGroup, g.Kind)
	require.Equal(t, 3, g.Size)
	require.Equal(t, 1, g.Attempts)
	p := pop(t, q, 0, "pod/p")
	require.Equal(t, queue.KindPod, p.Kind)

	require.NoError(t, q.Requeue("group/g"))
	require.Equal(t, 2, pop(t, q, 0, "group/g").Attempts)
	popNone(t, q, 0)
	_, ok := q.Peek()
	require.False(t, ok)
}

// TestBackoffQueueLeavesInActiveOrder: expiries are truncated to whole
// seconds, so items of one window leave together and pop by priority.
func TestBackoffQueueLeavesInActiveOrder(t *testing.T) {
	ms := time.Millisecond
	q := newQueue()
	add(t, q, pod("a").prio(0), pod("b").prio(5), pod("c").prio(9))
	require.Equal(t, []string{"pod/c", "pod/b", "pod/a"}, popAll(q, 0))

	require.NoError(t, q.BackOff("pod/a", 200*ms, 0, false))  // 1.2s -> 1s
	require.NoError(t, q.BackOff("pod/b", 700*ms, 0, false))  // 1.7s -> 1s
	require.NoError(t, q.BackOff("pod/c", 1100*ms, 0, false)) // 2.1s -> 2s
	require.Equal(t, []string{"pod/b", "pod/a", "pod/c"}, keysOf(q.All()), "backoffQ: expiry, then priority")

	popNone(t, q, 999*ms)
	pop(t, q, time.Second, "pod/b")
	pop(t, q, time.Second, "pod/a")
	popNone(t, q, 1999*ms)
	pop(t, q, 2*time.Second, "pod/c")
}

func TestUpdateReorders(t *testing.T) {
	q := newQueue()
	add(t, q, pod("a"), pod("b"), pod("c"))
	require.NoError(t, q.Update("pod/c", func(it *queue.Item[int]) { it.Priority = 7 }))
	require.NoError(t, q.Update("pod/a", func(it *queue.Item[int]) { it.FirstSeen = time.Second }))
	require.Equal(t, []string{"pod/c", "pod/b", "pod/a"}, popAll(q, 0))
}

func TestUpdateKeepsPool(t *testing.T) {
	q := newQueue()
	add(t, q, pod("flight").prio(2), pod("backoff").prio(1))
	pop(t, q, 0, "pod/flight")
	pop(t, q, 0, "pod/backoff")
	require.NoError(t, q.BackOff("pod/backoff", 0, 0, false))
	require.NoError(t, q.AddGated(pod("gated").obj()))
	before := countsOf(q)

	for _, key := range []string{"pod/flight", "pod/backoff", "pod/gated"} {
		require.NoError(t, q.Update(key, func(it *queue.Item[int]) { it.Priority = 100 }))
	}
	require.Equal(t, before, countsOf(q))
	it, _ := q.Get("pod/flight")
	require.True(t, it.InFlight())
	require.Equal(t, int32(100), it.Priority)
	popNone(t, q, 999*time.Millisecond)
	require.Equal(t, int32(100), pop(t, q, time.Second, "pod/backoff").Priority)
}
