package scenario_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/scenario"
)

// The capacity-planning day with its Kueue objects: Kueue admits pods at
// the instant of one of the autoscaler's steps (4h33m40s), after it, so
// that the autoscaler has a scan due at the time of its last step. The
// runner gives it the next scan tick, as the cluster autoscaler's loop
// sees a change at its next iteration; it used to stop the run with "its
// next time does not come after its last step".
func TestAutoscalerBesideKueue(t *testing.T) {
	sc, err := scenario.LoadFiles([]string{"../examples/capacity-planning/default.yaml", "../examples/capacity-planning/default-kueue.yaml"})
	require.NoError(t, err)
	require.NotEmpty(t, sc.NodeGroups)
	require.False(t, sc.Kueue.Empty())
	res, err := sc.Run()
	require.NoError(t, err)
	require.NotNil(t, res.Autoscaling)
	require.NotNil(t, res.Kueue)
	assert.Empty(t, res.Stopped)
	assert.Len(t, res.Kueue.Workloads, 1680)
}
