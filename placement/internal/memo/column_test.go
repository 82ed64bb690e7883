package memo

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	fw "github.com/gangsim/gangsim/framework"
)

// A scan of the column must find what the entries' scan visits in
// rotation from start until it has want feasible nodes: how many nodes it
// read and found feasible, the lowest index among those of the best fixed
// score, and each normaliser's bounds; and the column's counts must be
// the entries' after any sequence of changes. Checked against brute force
// on random tables, with few score values (ties are common), columns
// rebuilt in the arrays of the one before, and raw scores mostly 0 (the
// normalisers then go unread).
func TestColumnScanMatchesBruteForce(t *testing.T) {
	rejectedStatus := fw.NewStatus(fw.Unschedulable, "no")
	c := &column{}
	for seed := range 300 {
		r := rand.New(rand.NewPCG(uint64(seed), 11))
		n, nNorm := 1+r.IntN(200), r.IntN(maxNormalizers+1)
		varies := r.IntN(2) == 0
		table := &table{nodes: make([]entry, n)}
		set := func(i int) {
			e := &table.nodes[i]
			e.status = nil
			if r.IntN(3) == 0 {
				e.status = rejectedStatus
			}
			e.fixed = int64(r.IntN(4)) - 1
			for j := range nNorm {
				e.norm[j] = 0
				if varies && r.IntN(3) == 0 {
					e.norm[j] = int64(r.IntN(3))
				}
			}
			require.True(t, c.set(e, i))
		}
		c.reset(n, nNorm)
		for i := range n {
			set(i)
		}
		for range 20 {
			for range r.IntN(6) {
				set(r.IntN(n))
			}
			feasible, varied := 0, [maxNormalizers]int{}
			for i := range n {
				if e := &table.nodes[i]; e.status == nil {
					feasible++
					for j := range nNorm {
						if e.norm[j] != 0 {
							varied[j]++
						}
					}
				}
			}
			require.Equal(t, feasible, c.feasible, "seed %d", seed)
			require.Equal(t, varied, c.varied, "seed %d", seed)
			for range 10 {
				start, want := r.IntN(n), 1+r.IntN(n+2)
				processed, found, best, bestV := 0, 0, -1, int64(math.MinInt64)
				lo, hi := [maxNormalizers]int64{math.MaxInt64, math.MaxInt64}, [maxNormalizers]int64{math.MinInt64, math.MinInt64}
				for k := 0; k < n && found < want; k++ {
					i := (start + k) % n
					processed++
					e := &table.nodes[i]
					if e.status != nil {
						continue
					}
					found++
					if e.fixed > bestV || e.fixed == bestV && i < best {
						best, bestV = i, e.fixed
					}
					for j := range nNorm {
						lo[j], hi[j] = min(lo[j], e.norm[j]), max(hi[j], e.norm[j])
					}
				}
				s := c.scan(start, want)
				require.Equal(t, processed, s.processed, "seed %d start %d want %d", seed, start, want)
				require.Equal(t, found, s.found, "seed %d start %d want %d", seed, start, want)
				require.Equal(t, best, s.best, "seed %d start %d want %d", seed, start, want)
				for j := range nNorm {
					if c.varied[j] > 0 && found > 0 {
						require.Equal(t, [2]int64{lo[j], hi[j]}, [2]int64{int64(s.lo[j]), int64(s.hi[j])}, "seed %d normaliser %d", seed, j)
					}
				}
			}
		}
	}
}

// A score outside 32 bits does not fit the column: set says so, and the
// table is then scanned (wide).
func TestColumnRefusesWideScores(t *testing.T) {
	c := &column{}
	c.reset(2, 1)
	require.True(t, c.set(&entry{fixed: 5}, 0))
	require.False(t, c.set(&entry{fixed: math.MaxInt32 + 1}, 1))
	require.False(t, c.set(&entry{fixed: 1, norm: [maxNormalizers]int64{math.MinInt32}}, 1))
	require.True(t, c.set(&entry{status: fw.NewStatus(fw.Unschedulable, "no"), fixed: math.MaxInt64}, 1), "a rejected node's scores are not read")
}

// The column is kept where the scan's range is short against the changes
// a table lags behind, the tree where it is long: a thousand nodes and
// pods of twenty shapes (a score of changes a use, a range of 420 nodes)
// take the column; a hundred thousand nodes (a range of 5,000) the tree,
// unless the changes are in the hundreds; few feasible nodes lengthen the
// range the column reads.
func TestColumnCheaperWhereTheRangeIsShort(t *testing.T) {
	for _, c := range []struct {
		n, want, feasible, changed int
		column                     bool
	}{
		{1000, 420, 1000, 20, true},
		{1000, 420, 1000, 1, false},
		{1000, 420, 100, 20, false}, // the scan reads every node for 100 feasible
		{1000, 420, 0, 20, false},
		{100_000, 5000, 100_000, 23, false},
		{100_000, 5000, 100_000, 400, true},
		{50, 50, 50, 0, true},
	} {
		require.Equal(t, c.column, columnCheaper(c.n, c.want, c.feasible, c.changed), "%+v", c)
	}
}

// The column's scan of a thousand feasible nodes for 420, as the 10k's
// pods read it.
func BenchmarkColumnScan(b *testing.B) {
	c := &column{}
	c.reset(1000, 1)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 1000 {
		c.set(&entry{fixed: int64(r.IntN(200))}, i)
	}
	start := 0
	for b.Loop() {
		s := c.scan(start, 420)
		start = (start + s.processed) % 1000
	}
}
