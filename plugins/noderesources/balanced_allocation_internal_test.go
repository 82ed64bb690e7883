package noderesources

import (
	"math/rand/v2"
	"testing"

	"github.com/gangsim/gangsim/cluster"
)

// The cpu+memory fast path must give exactly the general formula's score.
func TestBalancedFastPathMatchesGeneral(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	fast := NewBalancedCPUMemory()
	general := &BalancedAllocation{Resources: fast.Resources}
	for i := range 20000 {
		c := cluster.NewCache()
		alloc := cluster.NewResources(1+rng.Int64N(64000), 1+rng.Int64N(256<<30), 110)
		if err := c.AddNode(cluster.Node{Name: "n", Allocatable: alloc}); err != nil {
			t.Fatal(err)
		}
		used := cluster.Pod{Name: "used", NodeName: "n", Requests: cluster.NewResources(rng.Int64N(alloc.MilliCPU*2), rng.Int64N(alloc.Memory*2), 0)}
		if err := c.AddPod(used); err != nil {
			t.Fatal(err)
		}
		ni, _ := c.Node("n")
		pod := cluster.NewPodInfo(cluster.Pod{Name: "p", Requests: cluster.NewResources(rng.Int64N(alloc.MilliCPU), rng.Int64N(alloc.Memory), 0)})
		got, _ := fast.Score(nil, pod, ni)
		if want, _ := general.Score(nil, pod, ni); got != want {
			t.Fatalf("case %d: fast path %d, general %d (alloc %v, used %v, pod %v)", i, got, want, alloc, used.Requests, pod.Pod().Requests)
		}
	}
}
