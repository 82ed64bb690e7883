package placement_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/plugins/interpodaffinity"
	"github.com/gangsim/gangsim/plugins/nodeaffinity"
	"github.com/gangsim/gangsim/plugins/podtopologyspread"
)

type fixedSnapshot struct{ s *cluster.Snapshot }

func (f fixedSnapshot) Snapshot() *cluster.Snapshot { return f.s }

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

// kube-scheduler's minDomains example: three hostname domains holding
// 2, 2 and 1 matching pods, maxSkew 2 and minDomains 4: the least counts
// as 0, and only the domain holding 1 takes the pod (1+1-0 = 2).
func TestSpreadMinDomains(t *testing.T) {
	var nodes []*nodeBuilder
	var pods []*podBuilder
	for i, n := range []int{2, 2, 1} {
		name := []string{"a", "b", "c"}[i]
		nodes = append(nodes, node(name).milli(8000).label(podtopologyspread.LabelHostname, name))
		for j := range n {
			p := pod(name + string(rune('0'+j))).on(name)
			p.p.Labels = map[string]string{"foo": ""}
			pods = append(pods, p)
		}
	}
	snap := snapshot(t, nodes, pods...)
	pts, err := podtopologyspread.NewPodTopologySpread(nil, fixedSnapshot{snap})
	require.NoError(t, err)
	in := pod("in")
	in.p.Labels = map[string]string{"foo": ""}
	in.p.TopologySpreadConstraints = []cluster.TopologySpreadConstraint{{
		MaxSkew: 2, MinDomains: new(int32(4)), TopologyKey: podtopologyspread.LabelHostname, WhenUnsatisfiable: cluster.DoNotSchedule,
		LabelSelector: &cluster.LabelSelector{MatchExpressions: []cluster.LabelRequirement{{Key: "foo", Operator: cluster.LabelExists}}},
	}}
	pi := in.info()
	state := fw.NewCycleState()
	require.Nil(t, pts.PreFilter(state, pi, snap))
	var verdicts []bool
	for i := range snap.Len() {
		verdicts = append(verdicts, pts.Filter(state, pi, snap.Node(i)) == nil)
	}
	require.Equal(t, []bool{false, false, true}, verdicts)
}
