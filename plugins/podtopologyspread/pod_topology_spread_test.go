package podtopologyspread_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/plugins/podtopologyspread"
)

// fixedSnapshot hands the plugin one snapshot.
type fixedSnapshot struct{ s *cluster.Snapshot }

func (f fixedSnapshot) Snapshot() *cluster.Snapshot { return f.s }

// kube-scheduler's minDomains example: three hostname domains holding
// 2, 2 and 1 matching pods, maxSkew 2 and minDomains 4: the least counts
// as 0, and only the domain holding 1 takes the pod (1+1-0 = 2).
func TestSpreadMinDomains(t *testing.T) {
	c := cluster.NewCache()
	for i, n := range []int{2, 2, 1} {
		name := []string{"a", "b", "c"}[i]
		require.NoError(t, c.AddNode(gangsimtest.MakeNode(name).CPU("8000m").Label(podtopologyspread.LabelHostname, name).Obj()))
		for j := range n {
			require.NoError(t, c.AddPod(gangsimtest.MakePod(name+string(rune('0'+j))).NodeName(name).Label("foo", "").Obj()))
		}
	}
	snap := c.Snapshot()
	pts, err := podtopologyspread.NewPodTopologySpread(nil, fixedSnapshot{snap})
	require.NoError(t, err)
	in := gangsimtest.MakePod("in").Label("foo", "").Obj()
	in.TopologySpreadConstraints = []cluster.TopologySpreadConstraint{{
		MaxSkew: 2, MinDomains: new(int32(4)), TopologyKey: podtopologyspread.LabelHostname, WhenUnsatisfiable: cluster.DoNotSchedule,
		LabelSelector: &cluster.LabelSelector{MatchExpressions: []cluster.LabelRequirement{{Key: "foo", Operator: cluster.LabelExists}}},
	}}
	pi := cluster.NewPodInfo(in)
	state := fw.NewCycleState()
	require.Nil(t, pts.PreFilter(state, pi, snap))
	var verdicts []bool
	for i := range snap.Len() {
		verdicts = append(verdicts, pts.Filter(state, pi, snap.Node(i)) == nil)
	}
	require.Equal(t, []bool{false, false, true}, verdicts)
}
