package cluster_test

import (
	"fmt"

	"github.com/gangsim/gangsim/cluster"
)

// A cache holds nodes and the pods on them; a snapshot is a stable copy
// that later cache changes do not reach.
func ExampleCache_Snapshot() {
	c := cluster.NewCache()
	if err := c.AddNode(cluster.Node{Name: "n1", Allocatable: cluster.NewResources(4000, 8<<30, 110)}); err != nil {
		panic(err)
	}
	web := cluster.NewPodInfo(cluster.Pod{Name: "web", Requests: cluster.NewResources(500, 1<<30, 0)})
	if err := c.AssumePod(web, "n1"); err != nil {
		panic(err)
	}
	s := c.Snapshot()
	if err := c.FinishBinding(web.Key(), 0); err != nil { // the cache moves on ...
		panic(err)
	}
	for _, ni := range s.Nodes() { // ... the snapshot does not
		fmt.Println(ni.Name(), "requested", ni.Requested(), "of", ni.Allocatable())
		for pi := range ni.Pods() {
			fmt.Println(" ", pi.Key(), pi.State())
		}
	}
	pi, _ := c.Pod(web.Key())
	fmt.Println("cache:", pi.Key(), pi.State())
	// Output:
	// n1 requested cpu=500m memory=1Gi pods=1 of cpu=4 memory=8Gi pods=110
	//   default/web Assumed
	// cache: default/web Bound
}

func ExampleParseQuantity() {
	for _, text := range []string{"500m", "1.5", "0.0001", "2Gi", "1e3"} {
		milli, err := cluster.ParseQuantity(text, 1000)
		fmt.Println(text, "=", milli, "millicores", err)
	}
	_, err := cluster.ParseQuantity("1K", 1)
	fmt.Println(err)
	// Output:
	// 500m = 500 millicores <nil>
	// 1.5 = 1500 millicores <nil>
	// 0.0001 = 1 millicores <nil>
	// 2Gi = 2147483648000 millicores <nil>
	// 1e3 = 1000000 millicores <nil>
	// cluster: invalid quantity: "1K" is not a valid quantity: unknown suffix "K"
}
