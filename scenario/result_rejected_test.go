package scenario

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
)

// A pod admission refused once and created later under the same key is
// reported as the scheduler knows it, not as rejected; one never created
// is rejected, with its refusal.
func TestPodResultRejectedOnlyWhenNeverCreated(t *testing.T) {
	s, err := gangsim.New(gangsim.Config{})
	require.NoError(t, err)
	made := cluster.Pod{Namespace: "default", Name: "made"}
	require.NoError(t, s.AddPod(made, 0))
	never := cluster.Pod{Namespace: "default", Name: "never"}
	r := &recorder{rejected: map[cluster.PodKey]string{made.Key(): "quota", never.Key(): "quota"}}
	var stats StatsResult
	st, ok := s.SharedPod(&made) // added as a copy: found by its key
	require.True(t, ok)
	got := r.podResult(s, nil, &made, st, ok, &stats)
	require.Equal(t, gangsim.PhasePending, got.Phase)
	st, ok = s.SharedPod(&never)
	require.False(t, ok)
	got = r.podResult(s, nil, &never, st, ok, &stats)
	require.Equal(t, PodResult{Name: "never", Phase: gangsim.PhaseRejected, Reason: "quota"}, got)
	require.Equal(t, 1, stats.Rejected)
	require.Equal(t, 1, stats.Pending)
}
