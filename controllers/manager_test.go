package controllers_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
	gt "github.com/gangsim/gangsim/gangsimtest"
)

// given is a pod a test adds before the run, with its run time, and the
// workload that owns it (-1: none).
type given struct {
	pod   cluster.Pod
	d     time.Duration
	owner int
}

// run is one case's run: the events of the kinds it shows, one a line as
// "time kind pod [node]", the Manager and the Scheduler at the end.
type run struct {
	events []string
	m      *controllers.Manager
	s      *gangsim.Scheduler
	err    error
}

// runCase adds the nodes, then the quota of pods in the default namespace
// (0: none), then the pods given (each with a run time waited for), gives
// the owned ones to their workloads, and runs the controllers to the end.
func runCase(t *testing.T, nodes []cluster.Node, quota int64, pods []given, ws []controllers.Workload, opts ...controllers.Option) run {
	t.Helper()
	for i := range pods {
		if o := pods[i].owner; o >= 0 {
			ws[o].Pods = append(ws[o].Pods, &pods[i].pod)
		}
	}
	var r run
	r.m = controllers.NewManager(ws, opts...)
	s, err := gangsim.New(gangsim.Config{CheckInvariants: true}, r.m.Attach(), gangsim.WithObserver(func(e gangsim.Event) {
		line := fmt.Sprintf("%v %s %s", e.At, e.Kind, e.PodKey().Display())
		if e.Kind == gangsim.EventPodBound {
			line += " " + e.Node
		}
		r.events = append(r.events, line)
	}))
	require.NoError(t, err)
	r.s = s
	for _, n := range nodes {
		require.NoError(t, s.AddNode(n))
	}
	if quota > 0 {
		require.NoError(t, s.SetResourceQuota(cluster.ResourceQuota{Namespace: "default", Name: "q", Hard: cluster.ResourceList{"pods": quota}}))
	}
	for _, p := range pods {
		if p.d > 0 {
			r.m.WaitFor(p.pod.Key())
		}
		require.NoError(t, s.AddPod(p.pod, p.d))
	}
	r.err = controllers.Run(s, r.m)
	return r
}

// of keeps the events of the kinds given.
func (r run) of(kinds ...gangsim.EventKind) []string {
	var out []string
	for _, e := range r.events {
		for _, k := range kinds {
			if strings.Fields(e)[1] == k.String() {
				out = append(out, e)
			}
		}
	}
	return out
}

// jobs are the Jobs, one a line: "name state succeeded/failed reason at".
func (r run) jobs() []string {
	var out []string
	for _, j := range r.m.Jobs() {
		line := fmt.Sprintf("%s %s %d/%d", j.Name, j.State, j.Succeeded, j.Failed)
		if j.Reason != "" {
			line += " " + j.Reason
		}
		if j.Finished() {
			line += " " + j.FinishedAt.String()
		}
		out = append(out, line)
	}
	return out
}

// every returns a RunTime of d for every pod.
func every(d time.Duration) func(cluster.PodKey, int) time.Duration {
	return func(cluster.PodKey, int) time.Duration { return d }
}

func int32p(v int32) *int32 { return &v }

// job is a Job of 1-cpu pods that run d.
func job(name string, d time.Duration, rules controllers.Job) controllers.Workload {
	return controllers.Workload{Kind: controllers.KindJob, Namespace: "default", Name: name,
		Template: gt.MakePod("").CPU("1").Label("job-name", name).Obj(), RunTime: every(d), Job: &rules}
}

// service is a ReplicaSet, StatefulSet or DaemonSet of 1-cpu pods that
// run d.
func service(kind, name string, replicas int, d time.Duration) controllers.Workload {
	return controllers.Workload{Kind: kind, Namespace: "default", Name: name,
		Template: gt.MakePod("").CPU("1").Label("app", name).Obj(), RunTime: every(d), Replicas: replicas}
}

var (
	node8    = []cluster.Node{gt.MakeNode("n1").CPU("8").Memory("32Gi").Obj()}
	bound    = []gangsim.EventKind{gangsim.EventPodBound, gangsim.EventPodSucceeded, gangsim.EventPodDeleted}
	arrivals = []gangsim.EventKind{gangsim.EventPodArrived, gangsim.EventPodSucceeded}
)

// batch is a bare pod of 1 cpu that runs 90 minutes: work that keeps the
// run going while services replace their pods.
func batch() given {
	return given{pod: gt.MakePod("batch").CPU("1").Obj(), d: 90 * time.Minute, owner: -1}
}

func TestJobController(t *testing.T) {
	for _, tt := range []struct {
		name   string
		nodes  []cluster.Node
		pods   []given
		job    controllers.Workload
		quota  int64 // a quota of pods in the namespace; 0: none
		kinds  []gangsim.EventKind
		want   []string
		wantJ  string
		failed []string // pods counted as failed
	}{{
		name:  "completions, parallelism at a time",
		job:   job("etl", 30*time.Minute, controllers.Job{Completions: int32p(5), Parallelism: 3, BackoffLimit: 6}),
		kinds: bound, want: []string{
			"0s PodBound etl-0 n1", "0s PodBound etl-1 n1", "0s PodBound etl-2 n1",
			"30m0s PodSucceeded etl-0", "30m0s PodSucceeded etl-1", "30m0s PodSucceeded etl-2",
			"30m0s PodBound etl-3 n1", "30m0s PodBound etl-4 n1",
			"1h0m0s PodSucceeded etl-3", "1h0m0s PodSucceeded etl-4",
		},
		wantJ: "etl Complete 5/0 1h0m0s",
	}, {
		name:  "a work queue makes no pod after its first success",
		job:   job("queue", 20*time.Minute, controllers.Job{Parallelism: 2, BackoffLimit: 6}),
		kinds: bound, want: []string{
			"0s PodBound queue-0 n1", "0s PodBound queue-1 n1", "20m0s PodSucceeded queue-0", "20m0s PodSucceeded queue-1",
		},
		wantJ: "queue Complete 2/0 20m0s",
	}, {
		name:  "a suspended Job makes nothing",
		job:   job("held", time.Hour, controllers.Job{Parallelism: 1, BackoffLimit: 6, Suspended: true}),
		kinds: bound,
		wantJ: "held Suspended 0/0",
	}, {
		name: "the active deadline fails the Job and deletes its pods",
		job: job("slow", time.Hour, controllers.Job{Completions: int32p(4), Parallelism: 2, BackoffLimit: 6,
			ActiveDeadline: 10 * time.Minute}),
		kinds:  bound,
		want:   []string{"0s PodBound slow-0 n1", "0s PodBound slow-1 n1", "10m0s PodDeleted slow-0", "10m0s PodDeleted slow-1"},
		wantJ:  "slow Failed 0/2 DeadlineExceeded 10m0s",
		failed: []string{"default/slow-0", "default/slow-1"},
	}, {
		name:   "a Job past its backoff limit already fails at once, its running pod deleted",
		pods:   []given{{pod: gt.MakePod("old-c").CPU("1").NodeName("n1").Obj(), d: 10 * time.Minute, owner: 0}},
		job:    job("old", 10*time.Minute, controllers.Job{Completions: int32p(3), Parallelism: 1, BackoffLimit: 1, Failed: 2}),
		kinds:  bound,
		want:   []string{"0s PodDeleted old-c"},
		wantJ:  "old Failed 0/3 BackoffLimitExceeded 0s",
		failed: []string{"default/old-c"},
	}, {
		name: "an Indexed Job runs the indexes neither done nor running",
		pods: []given{{pod: gt.MakePod("train-1-x").CPU("1").NodeName("n1").Label(controllers.JobCompletionIndexLabel, "1").Obj(),
			d: 10 * time.Minute, owner: 0}},
		job: job("train", 10*time.Minute, controllers.Job{Completions: int32p(4), Parallelism: 2, BackoffLimit: 6, Indexed: true,
			Succeeded: 1, SucceededIndexes: []int{0}}),
		kinds: arrivals, want: []string{
			"0s PodArrived train-1-x", "0s PodArrived train-2-0",
			// the controller acts on each pod as it ends
			"10m0s PodSucceeded train-1-x", "10m0s PodArrived train-3-0", "10m0s PodSucceeded train-2-0",
			"20m0s PodSucceeded train-3-0",
		},
		wantJ: "train Complete 4/0 20m0s",
	}, {
		name: "a preemption victim is a failure: past the backoff limit the Job fails",
		pods: []given{
			{pod: gt.MakePod("etl-0").CPU("8").NodeName("n1").Obj(), d: time.Hour, owner: 0},
			{pod: gt.MakePod("urgent").CPU("8").Priority(1000).Obj(), d: 5 * time.Minute, owner: -1},
		},
		job:    job("etl", time.Hour, controllers.Job{Parallelism: 1, BackoffLimit: 0}),
		kinds:  []gangsim.EventKind{gangsim.EventPodBound, gangsim.EventPodEvicted, gangsim.EventPodDeleted},
		want:   []string{"0s PodEvicted etl-0", "30s PodDeleted etl-0", "30s PodBound urgent n1"},
		wantJ:  "etl Failed 0/1 BackoffLimitExceeded 0s",
		failed: []string{"default/etl-0"},
	}, {
		name:  "a pod admission refuses is made again when a pod of the Job ends",
		job:   job("etl", 10*time.Minute, controllers.Job{Completions: int32p(3), Parallelism: 3, BackoffLimit: 6}),
		quota: 2,
		kinds: []gangsim.EventKind{gangsim.EventPodBound, gangsim.EventPodRejected}, want: []string{
			"0s PodRejected etl-2", // at its creation, before the cycles that bind the others
			"0s PodBound etl-0 n1", "0s PodBound etl-1 n1", "10m0s PodBound etl-3 n1",
		},
		wantJ: "etl Complete 3/0 20m0s",
	}} {
		t.Run(tt.name, func(t *testing.T) {
			nodes := tt.nodes
			if nodes == nil {
				nodes = node8
			}
			r := runCase(t, nodes, tt.quota, tt.pods, []controllers.Workload{tt.job})
			require.NoError(t, r.err)
			require.Equal(t, tt.want, r.of(tt.kinds...))
			require.Equal(t, []string{tt.wantJ}, r.jobs())
			for _, key := range tt.failed {
				require.True(t, r.m.Failed(cluster.PodKey(key)), key)
				require.True(t, r.m.Deleted(cluster.PodKey(key)), key)
			}
		})
	}
}
