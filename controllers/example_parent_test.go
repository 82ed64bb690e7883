package controllers_test

import (
	"fmt"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
	gt "github.com/gangsim/gangsim/gangsimtest"
)

// A JobSet of two replicated jobs, an initializer and the trainers, which
// depend on its completion: the parent's controller makes the
// initializer's Job at time 0 and the trainers' once it completes; the
// JobSet completes with them.
func ExampleParent() {
	one, two := int32(1), int32(2)
	js := &controllers.Parent{Roles: []controllers.Role{{Name: "init"},
		{Name: "train", DependsOn: []controllers.Dependency{{Role: "init", Complete: true}}}}, Clean: controllers.CleanAll}
	child := func(name, role string, pods *int32, d time.Duration) controllers.Workload {
		return controllers.Workload{Kind: controllers.KindJob, Namespace: "default", Name: name, Of: js, Role: role,
			Template: gt.MakePod("").CPU("1").Obj(),
			RunTime:  func(cluster.PodKey, int) time.Duration { return d },
			Job:      &controllers.Job{Completions: pods, Parallelism: *pods, Indexed: true, BackoffLimit: 6}}
	}
	m := controllers.NewManager([]controllers.Workload{
		{Kind: controllers.KindJobSet, Namespace: "default", Name: "llm", Parent: js},
		child("llm-init-0", "init", &one, 10*time.Minute),
		child("llm-train-0", "train", &two, time.Hour),
	})
	s, _ := gangsim.New(gangsim.Config{}, m.Attach(), gangsim.WithObserverOf(func(e gangsim.Event) {
		fmt.Println(e.At, e.Kind, e.PodKey())
	}, gangsim.EventPodBound))
	_ = s.AddNode(gt.MakeNode("n1").CPU("4").Obj())
	if err := controllers.Run(s, m); err != nil {
		fmt.Println(err)
		return
	}
	p := m.Parents()[0]
	fmt.Println(p.Name, p.State, p.FinishedAt)
	// Output:
	// 0s PodBound default/llm-init-0-0-0
	// 10m0s PodBound default/llm-train-0-0-0
	// 10m0s PodBound default/llm-train-0-1-0
	// llm Completed 1h10m0s
}
