package plugins_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/plugins"
)

// The kubelet's admission is NodeResourcesFit's check, with its message:
// the Scheduler quotes it when a pod arrives running on a node without room.
func TestKubeletAdmission(t *testing.T) {
	for _, tt := range []struct {
		name string
		pod  *gangsimtest.PodWrapper
		want string // "": admitted
	}{
		{name: "room", pod: gangsimtest.MakePod("p").CPU("1").Memory("1Gi")},
		{name: "cpu short", pod: gangsimtest.MakePod("p").CPU("3"), want: "Insufficient cpu"},
		{name: "cpu and memory short", pod: gangsimtest.MakePod("p").CPU("3").Memory("9Gi"), want: "Insufficient cpu, Insufficient memory"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := cluster.NewCache()
			require.NoError(t, c.AddNode(gangsimtest.MakeNode("n1").CPU("2").Memory("8Gi").Obj()))
			ni, _ := c.Node("n1")
			st := plugins.KubeletAdmission(cluster.NewPodInfo(tt.pod.Obj()), ni)
			if tt.want == "" {
				require.Nil(t, st)
				return
			}
			require.NotNil(t, st)
			require.Equal(t, tt.want, st.Message())
		})
	}
}
