package noderesources_test

import (
	"fmt"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/plugins/noderesources"
)

// Score two nodes with a rising RequestedToCapacityRatio shape: the
// fuller node scores higher, so pods pack onto it.
func ExampleRequestedToCapacityRatioScore() {
	shape := []noderesources.UtilizationShapePoint{{Utilization: 0, Score: 0}, {Utilization: 100, Score: 10}}
	cpu := []noderesources.ResourceWeight{{Name: cluster.ResourceCPU, Weight: 1}}
	c := cluster.NewCache()
	for _, n := range []string{"busy", "idle"} {
		if err := c.AddNode(gangsimtest.MakeNode(n).CPU("4").Obj()); err != nil {
			fmt.Println(err)
			return
		}
	}
	if err := c.AddPod(gangsimtest.MakePod("running").CPU("2").NodeName("busy").Obj()); err != nil {
		fmt.Println(err)
		return
	}
	pod := cluster.NewPodInfo(gangsimtest.MakePod("incoming").CPU("1").Obj())
	snap := c.Snapshot()
	for i := range 2 {
		node := snap.Node(i)
		fmt.Println(node.Node().Name, noderesources.RequestedToCapacityRatioScore(shape, cpu, pod, node))
	}
	// Output:
	// busy 75
	// idle 25
}
