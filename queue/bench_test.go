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
