package gangsim_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
)

// A pod with scheduling gates waits, untried, until a controller removes
// them; it is placed at the time the last one goes.
func ExampleScheduler_UngatePod() {
	s, _ := gangsim.New(gangsim.Config{})
	_ = s.AddNode(cluster.Node{Name: "n", Allocatable: cluster.NewResources(4000, 8<<30, 110)})
	key := cluster.MakePodKey("", "train")
	_ = s.AddPod(cluster.Pod{Name: "train", Requests: cluster.NewResources(1000, 0, 0), SchedulingGates: []string{"example.com/data", "example.com/quota"}}, 0)
	_ = s.Run()
	st, _ := s.Pod(key)
	fmt.Println(st.Phase, st.Reason)

	_ = s.AdvanceTo(10 * time.Minute)
	_ = s.UngatePod(key, "example.com/data")
	st, _ = s.Pod(key)
	fmt.Println(st.Phase, st.Reason)
	_ = s.UngatePod(key)
	_ = s.Run()
	st, _ = s.Pod(key)
	fmt.Println(st.Phase, st.Node, st.BoundAt)
	// Output:
	// Pending waiting for scheduling gates: [example.com/data example.com/quota]
	// Pending waiting for scheduling gates: [example.com/quota]
	// Bound n 10m0s
}

// A ResourceQuota refuses to create the pods its namespace has no room
// for, as the API server does; a LimitRange gives containers their
// defaults. The refused pod does not exist.
func ExampleScheduler_SetResourceQuota() {
	s, _ := gangsim.New(gangsim.Config{})
	_ = s.AddNode(cluster.Node{Name: "n", Allocatable: cluster.NewResources(8000, 8<<30, 110)})
	_ = s.SetLimitRange(cluster.LimitRange{Namespace: "team", Name: "defaults", Limits: []cluster.LimitRangeItem{
		{Type: cluster.LimitTypeContainer, DefaultRequest: cluster.ResourceList{cluster.ResourceCPU: 500}}}})
	_ = s.SetResourceQuota(cluster.ResourceQuota{Namespace: "team", Name: "compute", Hard: cluster.ResourceList{"requests.cpu": 1000}})
	for _, name := range []string{"a", "b", "c"} {
		err := s.AddPod(cluster.Pod{Namespace: "team", Name: name}, 0)
		var rej *gangsim.RejectedError
		if errors.As(err, &rej) {
			fmt.Println(rej.Reason)
		}
	}
	_ = s.Run()
	for q := range s.ResourceQuotas() {
		fmt.Println(q.Quota.Name, q.Used)
	}
	// Output:
	// pods "c" is forbidden: exceeded quota: compute, requested: requests.cpu=500m, used: requests.cpu=1, limited: requests.cpu=1
	// compute requests.cpu=1
}
