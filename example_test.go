package gangsim_test

import (
	"fmt"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
)

// Schedule three pods onto two nodes and read where they went.
func Example() {
	s, _ := gangsim.New(gangsim.Config{})
	for _, name := range []string{"node-a", "node-b"} {
		_ = s.AddNode(cluster.Node{Name: name, Allocatable: cluster.NewResources(4000, 8<<30, 110)})
	}
	for _, p := range []struct {
		name string
		cpu  int64
	}{{"web", 3000}, {"db", 2000}, {"huge", 5000}} {
		_ = s.AddPod(cluster.Pod{Name: p.name, Requests: cluster.NewResources(p.cpu, 1<<30, 0)}, 0)
	}
	_ = s.Run()
	for st := range s.Pods() {
		fmt.Println(st.Key, st.Phase, st.Node+st.Reason)
	}
	// Output:
	// default/db Bound node-b
	// default/huge Pending 0/2 nodes are available: 2 Insufficient cpu.
	// default/web Bound node-a
}
