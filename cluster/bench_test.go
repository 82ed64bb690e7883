package cluster

import (
	"fmt"
	"testing"
)

var benchSizes = []int{1000, 50000}

// benchCache returns a cache of n nodes with two bound pods each, and the
// node names in order.
func benchCache(b *testing.B, n int) (*Cache, []string) {
	b.Helper()
	c := NewCache()
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("n%05d", i)
		if err := c.AddNode(node(names[i]).cpu(32).mem(128*gi).label("zone", fmt.Sprint(i%3)).obj()); err != nil {
			b.Fatal(err)
		}
		for j := range 2 {
			if err := c.AddPod(pod(fmt.Sprintf("p%d-%d", i, j)).milli(500).mem(gi).on(names[i]).obj()); err != nil {
				b.Fatal(err)
			}
		}
	}
	return c, names
}

// BenchmarkUpdateSnapshotOneChangedNode measures refreshing a snapshot
// after one node changed (a pod assumed on it, or forgotten again): the
// cost must not grow with the cluster.
func BenchmarkUpdateSnapshotOneChangedNode(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			c, names := benchCache(b, n)
			s := c.Snapshot()
			pi := pod("bench").milli(100).mem(mi).info()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				var err error
				if i%2 == 0 {
					err = c.AssumePod(pi, names[(i/2)%n])
				} else {
					err = c.ForgetPod(pi.Key())
				}
				if err != nil {
					b.Fatal(err)
				}
				if err := c.UpdateSnapshot(s); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkReserveUnreserve measures one tentative placement on a
// snapshot and its rollback, as a scheduling cycle does per candidate.
func BenchmarkReserveUnreserve(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			c, _ := benchCache(b, n)
			s := c.Snapshot()
			pi := pod("bench").milli(100).mem(mi).info()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				cp := s.Checkpoint()
				s.Reserve(pi, i%n)
				s.Rollback(cp)
				i++
			}
		})
	}
}
