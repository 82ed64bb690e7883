package controllers_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
	gt "github.com/gangsim/gangsim/gangsimtest"
)

// BenchmarkManager runs 1,000 nodes of 32 cpu with a ReplicaSet and a
// Job of 20,000 completions, 1,000 at a time, whose controllers make
// every pod. Without run times (20,000 replicas) the controllers make
// their pods at time 0 and have nothing more to do: plain is the same
// pods added without them. With run times of 10m (2,000 replicas) the Job
// runs twenty rounds while the ReplicaSet's pods are replaced as they
// end: 60,000 pods made in all. (scenario's BenchmarkRunWorkloads runs
// the same from Kubernetes objects.)
func BenchmarkManager(b *testing.B) {
	for _, bc := range []struct {
		name     string
		replicas int
		duration time.Duration
		plain    bool
	}{{"plain", 20_000, 0, true}, {"controllers", 20_000, 0, false}, {"controllers-10m", 2000, 10 * time.Minute, false}} {
		b.Run(bc.name, func(b *testing.B) {
			nodes := make([]cluster.Node, 1000)
			for i := range nodes {
				nodes[i] = gt.MakeNode(fmt.Sprintf("n%d", i)).CPU("32").Memory("128Gi").Obj()
			}
			runTime := func(cluster.PodKey, int) time.Duration { return bc.duration }
			completions := int32(20_000)
			ws := []controllers.Workload{
				{Kind: controllers.KindReplicaSet, Namespace: "default", Name: "web", Replicas: bc.replicas, RunTime: runTime,
					Template: gt.MakePod("").CPU("500m").Memory("1Gi").Label("app", "web").Obj()},
				{Kind: controllers.KindJob, Namespace: "default", Name: "etl", RunTime: runTime,
					Template: gt.MakePod("").CPU("1").Memory("2Gi").Label("app", "etl").Obj(),
					Job:      &controllers.Job{Completions: &completions, Parallelism: 1000, BackoffLimit: 6}},
			}
			b.ReportAllocs()
			for b.Loop() {
				if bc.plain {
					benchPlain(b, nodes, ws)
					continue
				}
				m := controllers.NewManager(ws)
				s := benchScheduler(b, nodes, m.Attach())
				if err := controllers.Run(s, m); err != nil {
					b.Fatal(err)
				}
				if bc.duration > 0 && m.Jobs()[0].State != controllers.JobComplete {
					b.Fatalf("the Job is %s", m.Jobs()[0].State)
				}
			}
		})
	}
}

// benchPlain adds the pods the controllers would make at time 0, without
// them, and runs.
func benchPlain(b *testing.B, nodes []cluster.Node, ws []controllers.Workload) {
	s := benchScheduler(b, nodes)
	for _, w := range ws {
		n := w.Replicas
		if w.Job != nil {
			n = int(w.Job.Parallelism)
		}
		for k := range n {
			p := w.Template
			p.Name = fmt.Sprintf("%s-%d", w.Name, k)
			if err := s.AddPod(p, 0); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := s.Run(); err != nil {
		b.Fatal(err)
	}
}

func benchScheduler(b *testing.B, nodes []cluster.Node, opts ...gangsim.Option) *gangsim.Scheduler {
	s, err := gangsim.New(gangsim.Config{}, opts...)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range nodes {
		if err := s.AddNode(n); err != nil {
			b.Fatal(err)
		}
	}
	return s
}
