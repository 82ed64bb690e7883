package autoscaler_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/autoscaler"
	"github.com/gangsim/gangsim/cluster"
	gt "github.com/gangsim/gangsim/gangsimtest"
)

// A node group of 8-cpu nodes that take 3 minutes to come up; ten pods of
// 3 cpu (two a node) running an hour. The scan at 10s asks for 5 nodes;
// they are ready at 3m10s and empty at 1h3m10s; ten minutes later they
// go. Each node lived 1h13m (requested at 10s, removed at 1h13m10s):
// 5 * 1h13m = 6.083 node-hours, at 0.40 an hour 2.43.
func ExampleRun() {
	a, _ := autoscaler.New(autoscaler.Config{}, []autoscaler.NodeGroup{{
		Name:              "cpu",
		Template:          gt.MakeNode("t").CPU("8").Memory("32Gi").Obj(),
		Max:               10,
		ProvisioningDelay: autoscaler.Delay{Fixed: 3 * time.Minute},
		PricePerHour:      0.40,
	}}, rand.New(rand.NewPCG(1, 1)))
	s, _ := gangsim.New(gangsim.Config{}, a.Attach())
	for i := range 10 {
		p := gt.MakePod(fmt.Sprintf("web-%d", i)).CPU("3").Memory("4Gi").Obj()
		p.Owner = &cluster.Owner{Kind: "ReplicaSet", Name: "web"}
		_ = s.AddPod(p, time.Hour)
	}
	end, _ := autoscaler.Run(s, a)
	for _, e := range a.Events() {
		if e.Kind == autoscaler.EventScaleUp || e.Kind == autoscaler.EventNodeReady {
			fmt.Println(e.At, e.Kind, e.Nodes)
		}
	}
	g := a.Groups(end)[0]
	fmt.Printf("%s: added %d, removed %d, %.3f node-hours, cost %.2f\n", g.Name, g.NodesAdded, g.NodesRemoved, g.NodeHours, g.Cost)
	w := a.PodWaits(end)[0]
	fmt.Println(w.Pod, "waited", w.ForRoom, "for room and", w.ForNode, "for a node")
	// Output:
	// 10s ScaleUp [cpu-1 cpu-2 cpu-3 cpu-4 cpu-5]
	// 3m10s NodeReady [cpu-1 cpu-2 cpu-3 cpu-4 cpu-5]
	// cpu: added 5, removed 5, 6.083 node-hours, cost 2.43
	// default/web-0 waited 10s for room and 3m0s for a node
}
