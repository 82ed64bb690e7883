package scenario

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A scenario whose run reaches the safety cap returns its result so far,
// with why it stopped, instead of no result.
func TestRunStoppedAtTheCapKeepsItsResult(t *testing.T) {
	sc, err := Load("testdata/livelock.yaml")
	require.NoError(t, err)
	sc.Config.MaxCycles = 500
	res, err := sc.Run()
	require.NoError(t, err)
	require.Equal(t, "500 evictions, simulated time 1h22m45s; evicted most: default/v (500 evictions, the last by default/db)", res.Stopped)
	require.Equal(t, 500, res.Stats.Evictions)
	require.Len(t, res.Pods, 2)
	again, err := sc.Run()
	require.NoError(t, err)
	a, _ := res.JSON()
	b, _ := again.JSON()
	require.Equal(t, string(a), string(b), "stopped the same way each time")
}
