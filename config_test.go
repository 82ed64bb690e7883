package gangsim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/gangsimtest"
)

// Times and durations beyond a hundred years are refused, naming the field,
// so that no sum of them wraps.
func TestTimeLimits(t *testing.T) {
	huge := MaxSimulatedTime + time.Hour
	for _, cfg := range []Config{
		{PodInitialBackoff: time.Second, PodMaxBackoff: huge},
		{TerminationGracePeriod: &huge},
		{MaxUnschedulable: huge},
	} {
		_, err := New(cfg)
		require.Error(t, err)
	}
	s, err := New(Config{})
	require.NoError(t, err)
	err = s.AddPod(cluster.Pod{Name: "p"}, huge)
	require.ErrorContains(t, err, "duration")
	require.ErrorIs(t, s.RunUntil(huge), ErrPastTime)
	require.ErrorIs(t, s.AdvanceTo(huge), ErrPastTime)
	// the longest run from the latest time still ends, saturated, in range
	require.NoError(t, s.AddNode(gangsimtest.MakeNode("n").CPU("1").Memory("1Gi").Pods(10).Obj()))
	require.NoError(t, s.AdvanceTo(MaxSimulatedTime))
	require.NoError(t, s.AddPod(cluster.Pod{Name: "late"}, MaxSimulatedTime))
	require.NoError(t, s.Run())
	st, _ := s.Pod(cluster.MakePodKey("", "late"))
	require.Equal(t, PhaseSucceeded, st.Phase)
	require.Equal(t, 2*MaxSimulatedTime, st.EndedAt, "a hundred years after it was bound, without wrapping")
}
