package gangsim_test

import (
	"fmt"
	"time"

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

// Run a scenario from Go and read its typed result, as a policy test does.
func ExampleParseScenario() {
	sc, err := gangsim.ParseScenario("inline.yaml", []byte(`
nodes:
  - {name: rack-a, labels: {rack: a}, allocatable: {cpu: "4"}, count: 2}
  - {name: rack-b, labels: {rack: b}, allocatable: {cpu: "2"}, count: 2}
podGroups:
  - {name: train, minCount: 4, topologyKey: rack}
pods:
  - {name: worker, requests: {cpu: "2"}, podGroup: train, count: 4}
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
	for _, p := range res.Pods {
		fmt.Println(p.Name, p.Node, p.Phase)
	}
	fmt.Println(res.PodGroups[0].Conditions[0].Status)
	// Output:
	// worker-0 rack-a-0 Bound
	// worker-1 rack-a-1 Bound
	// worker-2 rack-a-0 Bound
	// worker-3 rack-a-1 Bound
	// True
}

// Step through cycles one at a time: a high-priority pod finds the node
// full, preempts the low-priority pod, and binds once it has terminated.
func ExampleScheduler_ScheduleOne() {
	grace := 10 * time.Second
	s, _ := gangsim.New(gangsim.Config{TerminationGracePeriod: &grace})
	_ = s.AddNode(cluster.Node{Name: "n", Allocatable: cluster.NewResources(2000, 4<<30, 110)})
	_ = s.AddPod(cluster.Pod{Name: "batch", NodeName: "n", Priority: 1, Requests: cluster.NewResources(2000, 0, 0)}, 0)
	_ = s.AddPod(cluster.Pod{Name: "api", Priority: 100, Requests: cluster.NewResources(1500, 0, 0)}, 0)

	res, _, _ := s.ScheduleOne()
	fmt.Println(res.Status.Code(), res.Evicted[0].Pod, "evicted; api nominated to", res.Nominated[0].Node)
	_ = s.Run() // the victim terminates, api is retried and binds
	api, _ := s.Pod(cluster.MakePodKey("", "api"))
	fmt.Println(api.Phase, api.Node, "at", s.Now())
	// Output:
	// Unschedulable default/batch evicted; api nominated to n
	// Bound n at 10s
}
