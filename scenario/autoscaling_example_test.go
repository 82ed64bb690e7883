package scenario_test

import (
	"fmt"

	"github.com/gangsim/gangsim/scenario"
)

// A node group grows for pods that find no room and shrinks once they
// are done: two pods of 3 cpu, no node; the scan at 10s asks for two
// 4-cpu nodes, ready 2m later; the pods run 30m (to 32m10s); the nodes
// are unneeded from the scan at 32m20s and leave 10m later. Each node is
// billed from 10s to 42m20s: 2 x 0.703 h at 2/h.
func ExampleParse_nodeGroups() {
	sc, err := scenario.Parse("inline.yaml", []byte(`
nodeGroups:
  - {name: cpu, template: {allocatable: {cpu: "4"}}, max: 5, provisioningDelay: 2m, pricePerHour: 2}
pods:
  - {name: job, requests: {cpu: "3"}, duration: 30m, count: 2}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := sc.Run()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range res.Autoscaler {
		fmt.Println(e.At, e.Kind, e.Nodes)
	}
	g := res.NodeGroups[0]
	fmt.Printf("%s: %d added, %d removed, %.3f node-hours, cost %.3f\n", g.Name, g.NodesAdded, g.NodesRemoved, g.NodeHours, g.Cost)
	for _, p := range res.Pods {
		fmt.Println(p.Name, p.Node, p.Phase)
	}
	// Output:
	// 10s ScaleUp [cpu-1 cpu-2]
	// 2m10s NodeReady [cpu-1 cpu-2]
	// 32m20s NodeUnneeded [cpu-1]
	// 32m20s NodeUnneeded [cpu-2]
	// 42m20s ScaleDown [cpu-1]
	// 42m20s ScaleDown [cpu-2]
	// cpu: 2 added, 2 removed, 1.406 node-hours, cost 2.811
	// job-0 cpu-1 Succeeded
	// job-1 cpu-2 Succeeded
}
