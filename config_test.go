package gangsim

import (
	"math"
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

// A profile's percentageOfNodesToScore is 0 to 100, as kube-scheduler's
// validation has it for the configuration and for each profile (issue 48).
func TestProfilePercentageOfNodesToScore(t *testing.T) {
	for _, pct := range []int32{-5, 101, 5000} {
		cfg := Config{Profiles: []Profile{{SchedulerName: "s", PercentageOfNodesToScore: &pct}}}
		err := cfg.Validate()
		require.ErrorIs(t, err, ErrConfig, "%d", pct)
		require.ErrorContains(t, err, "profiles[0].percentageOfNodesToScore")
	}
	for _, pct := range []int32{0, 50, 100} {
		cfg := Config{Profiles: []Profile{{SchedulerName: "s", PercentageOfNodesToScore: &pct}}}
		require.NoError(t, cfg.Validate(), "%d", pct)
	}
}

// Score weights follow kube-scheduler: 0 means 1, a weight must not be
// negative, and any positive weight is taken as long as the weights times
// the largest node score add up within int64; a weight above 100 is
// fine (issue 48).
func TestScoreWeightsAsKube(t *testing.T) {
	profile := func(w int32) Config {
		return Config{Profiles: []Profile{{SchedulerName: "s", Plugins: &Plugins{Score: PluginSet{Enabled: []PluginRef{{Name: "NodeAffinity", Weight: w}}}}}}}
	}
	for _, w := range []int32{0, 1, 101, 1 << 30, math.MaxInt32} {
		require.NoError(t, profile(w).Validate(), "%d", w)
	}
	err := profile(-1).Validate()
	require.ErrorIs(t, err, ErrConfig)
	require.ErrorContains(t, err, "NodeAffinity")
}
