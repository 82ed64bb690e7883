package interpodaffinity_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/plugins/interpodaffinity"
	"github.com/gangsim/gangsim/plugins/nodeaffinity"
	"github.com/gangsim/gangsim/plugins/podtopologyspread"
)

func scoresOf(raw ...int64) []fw.NodeScore {
	out := make([]fw.NodeScore, len(raw))
	for i, r := range raw {
		out[i] = fw.NodeScore{Node: i, Score: r}
	}
	return out
}

func normalized(s []fw.NodeScore) []int64 {
	out := make([]int64, len(s))
	for i := range s {
		out[i] = s[i].Score
	}
	return out
}

// The normalisations of the three plugins, on kube-scheduler's examples.
func TestAffinityNormalisation(t *testing.T) {
	ipa, err := interpodaffinity.NewInterPodAffinity(nil, nil)
	require.NoError(t, err)
	s := scoresOf(-3, 0, 5)
	require.Nil(t, ipa.NormalizeScore(nil, nil, s))
	require.Equal(t, []int64{0, 37, 100}, normalized(s), "stretched between lowest and highest, truncated")
	s = scoresOf(4, 4)
	require.Nil(t, ipa.NormalizeScore(nil, nil, s))
	require.Equal(t, []int64{0, 0}, normalized(s), "all equal: 0 everywhere")

	pts, err := podtopologyspread.NewPodTopologySpread(nil, nil)
	require.NoError(t, err)
	state := fw.NewCycleState()
	s = scoresOf(4, 2, 0, 5)
	require.Nil(t, pts.NormalizeScore(state, nil, s))
	require.Equal(t, []int64{20, 60, 100, 0}, normalized(s))
	s = scoresOf(9, 7, 6, 4)
	require.Nil(t, pts.NormalizeScore(state, nil, s))
	require.Equal(t, []int64{44, 66, 77, 100}, normalized(s))
	s = scoresOf(0, 0)
	require.Nil(t, pts.NormalizeScore(state, nil, s))
	require.Equal(t, []int64{100, 100}, normalized(s), "highest 0: 100 everywhere")

	s = scoresOf(0, 10, 40)
	require.Nil(t, nodeaffinity.NodeAffinity{}.NormalizeScore(nil, nil, s))
	require.Equal(t, []int64{0, 25, 100}, normalized(s))
}
