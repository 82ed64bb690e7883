package queue

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestActiveSparesStayBounded: the kept run buffers stay sorted by
// capacity, hold no item, count their room right and never hold more than
// the limit; buffer hands out the smallest that fits.
func TestActiveSparesStayBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var q activeQueue[int]
	it := &Item[int]{}
	for range 400 {
		q.n = rng.IntN(3 * keptRoom)
		if rng.IntN(2) == 0 {
			b := make([]activeEntry[int], rng.IntN(4*keptRoom)+1)
			for i := range b {
				b[i].it = it
			}
			q.recycle(b)
		} else {
			n := rng.IntN(2 * keptRoom)
			var fitting []int
			for _, s := range q.spare {
				if cap(s) >= n {
					fitting = append(fitting, cap(s))
				}
			}
			b := q.buffer(n)
			require.GreaterOrEqual(t, cap(b), n)
			require.Zero(t, len(b))
			if len(fitting) > 0 {
				require.Equal(t, fitting[0], cap(b), "the smallest spare that fits")
			}
		}
		room := 0
		for i, s := range q.spare {
			room += cap(s)
			require.Zero(t, len(s))
			if i > 0 {
				require.LessOrEqual(t, cap(q.spare[i-1]), cap(s))
			}
			held := false
			for _, e := range s[:cap(s)] {
				held = held || e.it != nil
			}
			require.False(t, held, "a kept buffer holds no item")
		}
		require.Equal(t, room, q.spareRoom)
		require.LessOrEqual(t, len(q.spare), keptBlocks)
	}
}
