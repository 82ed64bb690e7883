package noderesources

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// The one-pass placement score equals the resource-by-resource one it
// falls back to for long resource lists.
func TestPlacementScoreOnePassMatchesEach(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	names := []cluster.ResourceName{cluster.ResourceCPU, cluster.ResourceMemory, cluster.ResourcePods, "nvidia.com/gpu", "example.com/fpga"}
	for trial := range 500 {
		c := cluster.NewCache()
		for i := range 1 + rng.IntN(6) {
			alloc := cluster.NewResources(rng.Int64N(8000), rng.Int64N(16<<30), 110, cluster.Scalar{Name: "nvidia.com/gpu", Value: rng.Int64N(4)})
			name := fmt.Sprintf("n%d", i)
			if err := c.AddNode(cluster.Node{Name: name, Allocatable: alloc}); err != nil {
				t.Fatal(err)
			}
			if err := c.AddPod(cluster.Pod{Name: "p" + name, NodeName: name, Requests: cluster.NewResources(rng.Int64N(alloc.MilliCPU+1), rng.Int64N(alloc.Memory+1), 0)}); err != nil {
				t.Fatal(err)
			}
		}
		snap := c.Snapshot()
		var proposed []fw.Assignment
		for i := range rng.IntN(4) {
			pod := cluster.NewPodInfo(cluster.Pod{Name: fmt.Sprintf("q%d", i), Requests: cluster.NewResources(rng.Int64N(2000), rng.Int64N(4<<30), 0, cluster.Scalar{Name: "nvidia.com/gpu", Value: rng.Int64N(2)})})
			proposed = append(proposed, fw.Assignment{Pod: pod, Node: 0})
		}
		f := &Fit{}
		for _, n := range names {
			if rng.IntN(2) == 0 {
				f.Resources = append(f.Resources, ResourceWeight{Name: n, Weight: 1 + rng.Int64N(5)})
			}
		}
		p := &fw.Placement{}
		got, _ := f.ScorePlacement(snap, &fw.Group{}, p, proposed)
		if want := f.scoreEach(snap, p, proposed); got != want {
			t.Fatalf("trial %d: one pass %d, each %d (resources %v)", trial, got, want, f.Resources)
		}
	}
}
