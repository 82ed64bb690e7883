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

// Step through cycles one at a time: a high-priority pod finds the node
// full, preempts the low-priority pod, and binds once it has terminated.
func ExampleScheduler_ScheduleOne() {
	grace := 10 * time.Second
	s, _ := gangsim.New(gangsim.Config{TerminationGracePeriod: &grace})
	_ = s.AddNode(cluster.Node{Name: "n", Allocatable: cluster.NewResources(2000, 4<<30, 110)})
	_ = s.AddPod(cluster.Pod{Name: "batch", NodeName: "n", Priority: new(int32(1)), Requests: cluster.NewResources(2000, 0, 0)}, 0)
	_ = s.AddPod(cluster.Pod{Name: "api", Priority: new(int32(100)), Requests: cluster.NewResources(1500, 0, 0)}, 0)

	res, _, _ := s.ScheduleOne()
	fmt.Println(res.Status.Code(), res.Evicted[0].Pod, "evicted; api nominated to", res.Nominated[0].Node)
	_ = s.Run() // the victim terminates, api is retried and binds
	api, _ := s.Pod(cluster.MakePodKey("", "api"))
	fmt.Println(api.Phase, api.Node, "at", s.Now())
	// Output:
	// Unschedulable default/batch evicted; api nominated to n
	// Bound n at 10s
}

// Ask a what-if question mid-run: at two hours, fork the simulation and
// lose a node in the fork only. The original goes on untouched.
func ExampleScheduler_Fork() {
	s, _ := gangsim.New(gangsim.Config{})
	for _, name := range []string{"node-a", "node-b"} {
		_ = s.AddNode(cluster.Node{Name: name, Allocatable: cluster.NewResources(4000, 8<<30, 110)})
	}
	for i, cpu := range []int64{3000, 3000} {
		_ = s.AddPod(cluster.Pod{Name: fmt.Sprintf("job-%d", i), Requests: cluster.NewResources(cpu, 1<<30, 0)}, 8*time.Hour)
	}
	_ = s.RunUntil(2 * time.Hour)

	whatIf, _ := s.Fork()
	_ = whatIf.RemoveNode("node-b")
	_ = whatIf.RunUntil(3 * time.Hour)
	_ = s.RunUntil(3 * time.Hour)
	for _, sim := range []*gangsim.Scheduler{s, whatIf} {
		job, _ := sim.Pod(cluster.MakePodKey("", "job-1"))
		fmt.Println(job.Phase, job.Node+job.Reason)
	}
	// Output:
	// Bound node-b
	// Pending 0/1 nodes are available: 1 Insufficient cpu.
}

// A controller above the engine acts at the simulated time a pod ends: the
// pause hook ends the run after the pod's end, the caller makes the next
// pod at that time, and the run goes on where it stopped.
func ExampleWithPause() {
	ended := false
	s, _ := gangsim.New(gangsim.Config{}, gangsim.WithPause(func(e gangsim.Event) bool {
		ended = ended || e.Kind == gangsim.EventPodSucceeded
		return e.Kind == gangsim.EventPodSucceeded
	}))
	_ = s.AddNode(cluster.Node{Name: "n1", Allocatable: cluster.NewResources(4000, 8<<30, 110)})
	next := 0
	addPod := func() {
		_ = s.AddPod(cluster.Pod{Name: fmt.Sprintf("step-%d", next), Requests: cluster.NewResources(1000, 1<<30, 0)}, 10*time.Minute)
		next++
	}
	addPod()
	for {
		ended = false
		_ = s.Run()
		if !ended {
			break
		}
		fmt.Println("a pod ended at", s.Now())
		if next < 3 {
			addPod()
		}
	}
	// Output:
	// a pod ended at 10m0s
	// a pod ended at 20m0s
	// a pod ended at 30m0s
}
