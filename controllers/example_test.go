package controllers_test

import (
	"fmt"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
	gt "github.com/gangsim/gangsim/gangsimtest"
)

// A Job of five completions, three at a time, whose pods run 30 minutes,
// on a node of 4 cpu: the Job controller makes three pods at time 0, two
// more as the first succeed, and the Job completes at 1h.
func ExampleRun() {
	completions := int32(5)
	m := controllers.NewManager([]controllers.Workload{{
		Kind:      controllers.KindJob,
		Namespace: "default",
		Name:      "etl",
		Template:  gt.MakePod("").CPU("1").Obj(),
		RunTime:   func(cluster.PodKey, int) time.Duration { return 30 * time.Minute },
		Job:       &controllers.Job{Completions: &completions, Parallelism: 3, BackoffLimit: 6},
	}})
	s, _ := gangsim.New(gangsim.Config{}, m.Attach(), gangsim.WithObserverOf(func(e gangsim.Event) {
		fmt.Println(e.At, e.Kind, e.PodKey())
	}, gangsim.EventPodBound, gangsim.EventPodSucceeded))
	_ = s.AddNode(gt.MakeNode("n1").CPU("4").Obj())
	if err := controllers.Run(s, m); err != nil {
		fmt.Println(err)
		return
	}
	j := m.Jobs()[0]
	fmt.Println(j.Name, j.State, j.Succeeded, j.FinishedAt)
	// Output:
	// 0s PodBound default/etl-0
	// 0s PodBound default/etl-1
	// 0s PodBound default/etl-2
	// 30m0s PodSucceeded default/etl-0
	// 30m0s PodSucceeded default/etl-1
	// 30m0s PodSucceeded default/etl-2
	// 30m0s PodBound default/etl-3
	// 30m0s PodBound default/etl-4
	// 1h0m0s PodSucceeded default/etl-3
	// 1h0m0s PodSucceeded default/etl-4
	// etl Complete 5 1h0m0s
}

// A Volcano Job of an MPI master and two workers, as a PodSet: the master
// runs 10 minutes, the workers until deleted; the policy TaskCompleted:
// CompleteJob of the master's task completes the set when the master is
// done, deleting the workers.
func ExamplePodSet() {
	set := &controllers.PodSet{
		Finite:    true,
		OnFailure: controllers.ActionRestartPod,
		MaxRetry:  3,
		Templates: []cluster.Pod{gt.MakePod("").CPU("1").Obj(), gt.MakePod("").CPU("1").Obj()},
		RunTimes:  []func(cluster.PodKey, int) time.Duration{func(cluster.PodKey, int) time.Duration { return 10 * time.Minute }, nil},
		Members: []controllers.Member{
			{Name: "mpi-master-0", Template: 0, Group: 0, After: -1},
			{Name: "mpi-worker-0", Template: 1, Group: 1, After: -1},
			{Name: "mpi-worker-1", Template: 1, Group: 1, After: -1},
		},
		Policies: []controllers.SetPolicy{{Event: controllers.SetTaskCompleted, Group: 0, Action: controllers.ActionComplete}},
	}
	m := controllers.NewManager([]controllers.Workload{{Kind: controllers.KindVolcanoJob, Namespace: "default", Name: "mpi",
		Template: set.Templates[0], Set: set}})
	s, _ := gangsim.New(gangsim.Config{}, m.Attach(), gangsim.WithObserverOf(func(e gangsim.Event) {
		fmt.Println(e.At, e.Kind, e.PodKey())
	}, gangsim.EventPodBound, gangsim.EventPodSucceeded, gangsim.EventPodDeleted))
	_ = s.AddNode(gt.MakeNode("n1").CPU("4").Obj())
	if err := controllers.Run(s, m); err != nil {
		fmt.Println(err)
		return
	}
	st := m.Sets()[0]
	fmt.Println(st.Name, st.Phase, st.Active)
	// Output:
	// 0s PodBound default/mpi-master-0
	// 0s PodBound default/mpi-worker-0
	// 0s PodBound default/mpi-worker-1
	// 10m0s PodSucceeded default/mpi-master-0
	// 10m0s PodDeleted default/mpi-worker-0
	// 10m0s PodDeleted default/mpi-worker-1
	// mpi Completed 0
}

// A Job of two completions is held from time 0, as Kueue's webhook holds
// the Jobs it manages; at 10m the queue admits it to a flavor whose nodes
// are pool=gpu, and the Job runs there; at 20m it is evicted: its pods
// are deleted, not failures, and the hook says when none is left; at 30m
// it is admitted again and completes at 1h.
func ExampleManager_Suspend() {
	completions := int32(2)
	etl := controllers.WorkloadRef{Kind: controllers.KindJob, Name: "etl"}
	var s *gangsim.Scheduler
	var m *controllers.Manager
	m = controllers.NewManager([]controllers.Workload{{
		Kind: controllers.KindJob, Namespace: "default", Name: "etl",
		Template: gt.MakePod("").CPU("1").Obj(),
		RunTime:  func(cluster.PodKey, int) time.Duration { return 30 * time.Minute },
		Job:      &controllers.Job{Completions: &completions, Parallelism: 2, BackoffLimit: 6},
	}}, controllers.WithSuspended(func(ref controllers.WorkloadRef) bool { return ref.Kind == controllers.KindJob }),
		controllers.WithWorkloadChange(func(ref controllers.WorkloadRef) {
			done, failed := m.Finished(ref)
			fmt.Println(s.Now(), "changed:", ref.Name, "active", m.Active(ref), "done", done, "failed", failed)
		}))
	admit := func(_ string, p *cluster.Pod) {
		p.NodeSelector = map[string]string{"pool": "gpu"}
	}
	s, _ = gangsim.New(gangsim.Config{}, m.Attach(), gangsim.WithObserverOf(func(e gangsim.Event) {
		fmt.Println(e.At, e.Kind, e.PodKey(), e.Node)
	}, gangsim.EventPodBound, gangsim.EventPodSucceeded, gangsim.EventPodDeleted))
	_ = s.AddNode(gt.MakeNode("cpu-1").CPU("4").Label("pool", "cpu").Obj())
	_ = s.AddNode(gt.MakeNode("gpu-1").CPU("4").Label("pool", "gpu").Obj())
	m.Start(s)
	settle := func(t time.Duration) { // run to t, the controllers acting on the way (controllers.Run's loop)
		for {
			if m.Busy() {
				_ = m.React()
				continue
			}
			m.Resume()
			if w, woken := m.NextWakeup(); woken && w <= t {
				if _ = s.RunUntil(w); !m.Paused() {
					m.Wake(w)
				}
				continue
			}
			if _ = s.RunUntil(t); !m.Paused() {
				return
			}
		}
	}
	settle(10 * time.Minute)
	_ = m.Unsuspend(etl, admit)
	settle(20 * time.Minute)
	_ = m.Suspend(etl)
	settle(30 * time.Minute)
	_ = m.Unsuspend(etl, admit)
	if err := controllers.Run(s, m); err != nil {
		fmt.Println(err)
	}
	fmt.Println(m.Failed("default/etl-0"), m.Jobs()[0].State)
	// Output:
	// 10m0s PodBound default/etl-0 gpu-1
	// 10m0s PodBound default/etl-1 gpu-1
	// 20m0s PodDeleted default/etl-0 gpu-1
	// 20m0s PodDeleted default/etl-1 gpu-1
	// 20m0s changed: etl active 0 done false failed false
	// 30m0s PodBound default/etl-2 gpu-1
	// 30m0s PodBound default/etl-3 gpu-1
	// 1h0m0s PodSucceeded default/etl-2 gpu-1
	// 1h0m0s PodSucceeded default/etl-3 gpu-1
	// 1h0m0s changed: etl active 0 done true failed false
	// false Complete
}
