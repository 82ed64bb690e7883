package placement

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	fw "github.com/gangsim/gangsim/framework"
)

// bestFirst orders candidates as a stable sort by total, highest first,
// whatever the totals: packed when they are small, by the stable sort
// otherwise.
func TestBestFirstIsAStableSortByTotal(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for range 2000 {
		totals := make([]int64, rng.IntN(40))
		for i := range totals {
			switch rng.IntN(4) {
			case 0:
				totals[i] = int64(rng.IntN(3)) // many ties
			case 1:
				totals[i] = rng.Int64() // past the packed range
			case 2:
				totals[i] = -int64(rng.IntN(100))
			default:
				totals[i] = int64(rng.IntN(1 << 43))
			}
		}
		want := make([]int, len(totals))
		for i := range want {
			want[i] = i
		}
		slices.SortStableFunc(want, func(a, b int) int { return cmp.Compare(totals[b], totals[a]) })
		require.Equal(t, want, bestFirst(totals), "totals %v", totals)
	}
}

// A rejection list equal to a recent one (the same nodes, the same
// statuses) is that one, shared; any difference makes a new list, in node
// order.
func TestStatusListsShareOnlyEqualLists(t *testing.T) {
	a, b := fw.NewStatus(fw.Unschedulable, "a"), fw.NewStatus(fw.Unschedulable, "b")
	scan := func(start int, st ...*fw.Status) []fw.NodeStatus { // a scan from start over len(st) nodes, wrapping
		var out []fw.NodeStatus
		for i := range st {
			n := (start + i) % len(st)
			out = append(out, fw.NodeStatus{Node: n, Status: st[n]})
		}
		return out
	}
	ns := func(node int, st *fw.Status) fw.NodeStatus { return fw.NodeStatus{Node: node, Status: st} }
	var l statusLists
	first := l.sorted(scan(2, a, a, b, a))
	require.Equal(t, []fw.NodeStatus{ns(0, a), ns(1, a), ns(2, b), ns(3, a)}, first)
	again := l.sorted(scan(1, a, a, b, a)) // another start, the same rejections
	require.Same(t, &first[0], &again[0], "shared")
	other := l.sorted(scan(0, a, a, a, a))
	require.Equal(t, []fw.NodeStatus{ns(0, a), ns(1, a), ns(2, a), ns(3, a)}, other)
	require.NotSame(t, &first[0], &other[0])
	fewer := l.sorted(scan(0, a, a, b))
	require.Len(t, fewer, 3)
	// not two ascending runs: sorted, not kept
	mixed := []fw.NodeStatus{ns(3, a), ns(1, b), ns(2, a), ns(0, a)}
	require.Equal(t, []fw.NodeStatus{ns(0, a), ns(1, b), ns(2, a), ns(3, a)}, l.sorted(mixed))
	require.Equal(t, []fw.NodeStatus{ns(3, a), ns(1, b), ns(2, a), ns(0, a)}, mixed, "the scan's list is left as it was")
}

// A list's hash is that of its nodes and statuses in node order, whatever
// node the scan started from (where it wraps): every length and start,
// against the hash of the unwrapped list; and it tells lists apart that
// differ in one status.
func TestStatusHashIgnoresTheWrap(t *testing.T) {
	sts := []*fw.Status{fw.NewStatus(fw.Unschedulable, "a"), fw.NewStatus(fw.Unschedulable, "b"), fw.NewStatus(fw.Unschedulable, "c")}
	for n := 1; n <= 13; n++ {
		inOrder := make([]fw.NodeStatus, n)
		for i := range inOrder {
			inOrder[i] = fw.NodeStatus{Node: i, Status: sts[(i*7+n)%len(sts)]}
		}
		want := hashStatuses(inOrder, 0)
		for start := range n {
			scan := append(slices.Clone(inOrder[start:]), inOrder[:start]...)
			wrap, ok := rotation(scan)
			require.True(t, ok)
			require.Equal(t, want, hashStatuses(scan, wrap), "n=%d start=%d", n, start)
		}
		changed := slices.Clone(inOrder)
		changed[n/2].Status = fw.NewStatus(fw.Unschedulable, "d")
		require.NotEqual(t, want, hashStatuses(changed, 0), "n=%d", n)
	}
}

// BenchmarkStatusHash hashes a scan's 2,000 rejections, wrapped.
func BenchmarkStatusHash(b *testing.B) {
	st := fw.NewStatus(fw.Unschedulable, "x")
	r := make([]fw.NodeStatus, 2000)
	for i := range r {
		r[i] = fw.NodeStatus{Node: (i + 700) % len(r), Status: st}
	}
	wrap, _ := rotation(r)
	var sink uint64
	for b.Loop() {
		sink += hashStatuses(r, wrap)
	}
	_ = sink
}
