package queue_test

import (
	"iter"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/queue"
)

// Builders and helpers shared by the package's tests.

type itemBuilder struct{ it queue.Item[int] }

// pod starts a pod item with key "pod/<name>", priority 0, first seen at 0.
func pod(name string) *itemBuilder {
	return &itemBuilder{queue.Item[int]{Key: "pod/" + name, Kind: queue.KindPod, Size: 1}}
}

// group starts a group item with key "group/<name>" scheduling size pods.
func group(name string, size int) *itemBuilder {
	return &itemBuilder{queue.Item[int]{Key: "group/" + name, Kind: queue.KindGroup, Size: size}}
}

func (b *itemBuilder) prio(p int32) *itemBuilder {
	b.it.Priority = p
	return b
}

// seen sets both FirstSeen and Timestamp.
func (b *itemBuilder) seen(t time.Duration) *itemBuilder {
	b.it.FirstSeen, b.it.Timestamp = t, t
	return b
}

func (b *itemBuilder) failed(unschedulable, errors int) *itemBuilder {
	b.it.UnschedulableCount, b.it.ConsecutiveErrors = unschedulable, errors
	return b
}

func (b *itemBuilder) obj() *queue.Item[int] {
	it := b.it
	return &it
}

func newQueue() *queue.Queue[int] { return queue.New[int](queue.Config{}) }

func add(t testing.TB, q *queue.Queue[int], items ...*itemBuilder) {
	t.Helper()
	for _, b := range items {
		require.NoError(t, q.Add(b.obj()))
	}
}

// pop pops the head at now and requires that it is key.
func pop(t testing.TB, q *queue.Queue[int], now time.Duration, key string) *queue.Item[int] {
	t.Helper()
	it, ok := q.Pop(now)
	require.True(t, ok, "nothing to pop at %v, want %s", now, key)
	require.Equal(t, key, it.Key, "popped at %v", now)
	require.True(t, it.InFlight())
	return it
}

// popNone requires that nothing is ready at now.
func popNone(t testing.TB, q *queue.Queue[int], now time.Duration) {
	t.Helper()
	it, ok := q.Pop(now)
	require.False(t, ok, "popped %v at %v, want nothing", it, now)
}

// popAll pops until activeQ is empty and returns the keys in pop order.
func popAll(q *queue.Queue[int], now time.Duration) []string {
	var keys []string
	for {
		it, ok := q.Pop(now)
		if !ok {
			return keys
		}
		keys = append(keys, it.Key)
	}
}

func keysOf(seq iter.Seq[*queue.Item[int]]) []string {
	keys := []string{}
	for it := range seq {
		keys = append(keys, it.Key)
	}
	return keys
}

// pools is the queue's Counts as one comparable value.
type pools struct{ Active, Backoff, Unschedulable, Gated int }

func countsOf(q *queue.Queue[int]) pools {
	a, b, u, g := q.Counts()
	return pools{a, b, u, g}
}
