package queue_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A failed gated pod activated at the very moment its backoff ends goes
// straight to activeQ: its backoff is over.
func TestActivateAtTheEndOfTheBackoff(t *testing.T) {
	q := newQueue()
	require.NoError(t, q.AddGated(pod("a").seen(10*time.Second).failed(1, 0).obj()))
	require.NoError(t, q.Activate("pod/a", 11*time.Second))
	require.Equal(t, pools{Active: 1}, countsOf(q))
	pop(t, q, 11*time.Second, "pod/a")
}
