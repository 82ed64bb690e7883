package queue_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/gangsim/gangsim/queue"
)

// BenchmarkAddPop adds 10k items of mixed priorities and first-seen times
// to an empty queue and pops them all.
func BenchmarkAddPop(b *testing.B) {
	const n = 10_000
	items := make([]*queue.Item[int], n)
	for i := range items {
		items[i] = &queue.Item[int]{
			Key:       fmt.Sprintf("pod/default/p%05d", i),
			Priority:  int32(i % 7),
			FirstSeen: time.Duration(i%101) * time.Millisecond,
			Size:      1,
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		q := queue.New[int](queue.Config{})
		for _, it := range items {
			if err := q.Add(it); err != nil {
				b.Fatal(err)
			}
		}
		for range n {
			it, ok := q.Pop(0)
			if !ok {
				b.Fatal("queue ran dry")
			}
			if err := q.Done(it.Key); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkRetryWave is a busy cluster's retry storm: 10,000 items wait in
// the unschedulable pool; a change moves them all, and each is popped,
// fails and is parked again. It reports the cost per retry.
func BenchmarkRetryWave(b *testing.B) {
	const n = 10_000
	q := queue.New[int](queue.Config{})
	for i := range n {
		it := &queue.Item[int]{Key: fmt.Sprintf("pod/default/p%05d", i), Priority: int32(i % 3), FirstSeen: time.Duration(i) * time.Millisecond, Size: 1}
		if err := q.Add(it); err != nil {
			b.Fatal(err)
		}
	}
	now := time.Duration(0)
	wave := func() {
		q.MoveAll(now)
		for {
			it, ok := q.Pop(now)
			if !ok {
				break
			}
			if err := q.ParkFor(it.Key, now, 0, 1); err != nil {
				b.Fatal(err)
			}
		}
		now += time.Minute // past any backoff
	}
	wave()
	b.ReportAllocs()
	for b.Loop() {
		wave()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/retry")
}
