package controllers_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
	gt "github.com/gangsim/gangsim/gangsimtest"
)

// groups is a PodSet of n groups of a leader <name>-<g> and size-1
// workers <name>-<g>-<w>, LeaderWorkerSet's way: leaders of lead cpus
// that run dl, workers of 1 cpu that run dw (0: until deleted).
func groups(name string, n, size int, lead string, dl, dw time.Duration, act controllers.SetAction) controllers.Workload {
	set := &controllers.PodSet{OnFailure: act,
		Templates: []cluster.Pod{gt.MakePod("").CPU(lead).Label("role", "leader").Obj(), gt.MakePod("").CPU("1").Label("role", "worker").Obj()},
		RunTimes:  []func(cluster.PodKey, int) time.Duration{every(dl), every(dw)}}
	for g := range n {
		set.Members = append(set.Members, controllers.Member{Name: fmt.Sprintf("%s-%d", name, g), Group: g, After: -1})
		for w := 1; w < size; w++ {
			set.Members = append(set.Members, controllers.Member{Name: fmt.Sprintf("%s-%d-%d", name, g, w), Template: 1, Group: g, After: -1,
				Labels: map[string]string{"worker-index": fmt.Sprint(w)}})
		}
	}
	return controllers.Workload{Kind: controllers.KindLeaderWorkerSet, Namespace: "default", Name: name, Template: set.Templates[0], Set: set}
}

// leading marks the set's leaders as the leads of their groups.
func leading(w controllers.Workload) controllers.Workload {
	set := *w.Set
	set.Members = append([]controllers.Member(nil), set.Members...)
	for i := range set.Members {
		set.Members[i].Lead = set.Members[i].Template == 0
	}
	w.Set = &set
	return w
}

// following makes every worker of the set wait for its group's leader,
// pinned to the value of label on its node when label is not "".
func following(w controllers.Workload, label string) controllers.Workload {
	set := *w.Set
	set.Members = append([]controllers.Member(nil), set.Members...)
	leader := 0
	for i := range set.Members {
		if set.Members[i].Template == 0 {
			leader = i
			continue
		}
		set.Members[i].After, set.Members[i].Follow = leader, label
	}
	w.Set = &set
	return w
}

// sets are the PodSets, one a line: "name phase restarts active".
func (r run) sets() []string {
	var out []string
	for _, s := range r.m.Sets() {
		out = append(out, fmt.Sprintf("%s %s %d %d", s.Name, s.Phase, s.Restarts, s.Active))
	}
	return out
}

// tasks is a finite PodSet of tasks of 1-cpu pods <name>-<task>-<i>, each
// of replicas[t] pods that run d[t] (0: until deleted), with policies.
func tasks(name string, replicas []int, d []time.Duration, maxRetry int, policies ...controllers.SetPolicy) controllers.Workload {
	set := &controllers.PodSet{Finite: true, OnFailure: controllers.ActionRestartPod, MaxRetry: maxRetry, Policies: policies}
	for t, n := range replicas {
		set.Templates = append(set.Templates, gt.MakePod("").CPU("1").Label("task", fmt.Sprint(t)).Obj())
		set.RunTimes = append(set.RunTimes, every(d[t]))
		for i := range n {
			set.Members = append(set.Members, controllers.Member{Name: fmt.Sprintf("%s-t%d-%d", name, t, i), Template: t, Group: t, After: -1})
		}
	}
	return controllers.Workload{Kind: controllers.KindVolcanoJob, Namespace: "default", Name: name, Template: set.Templates[0], Set: set}
}

// blocker is a bare pod of cpus that runs d, in the way at time 0.
func blocker(cpus string, d time.Duration) given {
	return given{pod: gt.MakePod("blocker").CPU(cpus).Obj(), d: d, owner: -1}
}

func TestPodSetController(t *testing.T) {
	lifecycle := []gangsim.EventKind{gangsim.EventPodArrived, gangsim.EventPodSucceeded, gangsim.EventPodDeleted}
	for _, tt := range []struct {
		name  string
		nodes []cluster.Node
		pods  []given
		set   controllers.Workload
		kinds []gangsim.EventKind
		want  []string
		sets  string
	}{{
		name: "a pod of a group that ends restarts its whole group, the other group runs on",
		pods: []given{{pod: gt.MakePod("work").CPU("1").Obj(), d: 15 * time.Minute, owner: -1}},
		set:  groups("lws", 2, 2, "1", 0, 10*time.Minute, controllers.ActionRestartGroup),
		// both groups' workers end at 10m: each group is deleted and made again
		kinds: lifecycle, want: []string{
			"0s PodArrived work", "0s PodArrived lws-0", "0s PodArrived lws-0-1", "0s PodArrived lws-1", "0s PodArrived lws-1-1",
			"10m0s PodSucceeded lws-0-1", "10m0s PodDeleted lws-0", "10m0s PodArrived lws-0", "10m0s PodArrived lws-0-1",
			"10m0s PodSucceeded lws-1-1", "10m0s PodDeleted lws-1", "10m0s PodArrived lws-1", "10m0s PodArrived lws-1-1",
			"15m0s PodSucceeded work",
		},
		sets: "lws Running 2 4",
	}, {
		name:  "restartPolicy None: only the pod that ended is made again",
		pods:  []given{{pod: gt.MakePod("work").CPU("1").Obj(), d: 15 * time.Minute, owner: -1}},
		set:   groups("lws", 1, 3, "1", 0, 10*time.Minute, controllers.ActionRestartPod),
		kinds: lifecycle, want: []string{
			"0s PodArrived work", "0s PodArrived lws-0", "0s PodArrived lws-0-1", "0s PodArrived lws-0-2",
			"10m0s PodSucceeded lws-0-1", "10m0s PodArrived lws-0-1", "10m0s PodSucceeded lws-0-2", "10m0s PodArrived lws-0-2",
			"15m0s PodSucceeded work",
		},
		sets: "lws Running 0 3",
	}, {
		name:  "restartPolicy None: a leader that ends takes its workers with it",
		pods:  []given{{pod: gt.MakePod("work").CPU("1").Obj(), d: 15 * time.Minute, owner: -1}},
		set:   leading(groups("lws", 1, 2, "1", 10*time.Minute, 0, controllers.ActionRestartPod)),
		kinds: lifecycle, want: []string{
			"0s PodArrived work", "0s PodArrived lws-0", "0s PodArrived lws-0-1",
			"10m0s PodSucceeded lws-0", "10m0s PodDeleted lws-0-1", "10m0s PodArrived lws-0", "10m0s PodArrived lws-0-1",
			"15m0s PodSucceeded work",
		},
		sets: "lws Running 1 2",
	}, {
		name:  "LeaderReady: the workers are made once their leader is bound",
		pods:  []given{blocker("8", 5*time.Minute)},
		set:   following(groups("lws", 1, 3, "1", 0, 0, controllers.ActionRestartGroup), ""),
		kinds: []gangsim.EventKind{gangsim.EventPodArrived, gangsim.EventPodBound}, want: []string{
			"0s PodArrived blocker", "0s PodArrived lws-0", "0s PodBound blocker n1",
			"5m0s PodBound lws-0 n1", "5m0s PodArrived lws-0-1", "5m0s PodArrived lws-0-2", "5m0s PodBound lws-0-1 n1", "5m0s PodBound lws-0-2 n1",
		},
		sets: "lws Running 0 3",
	}, {
		name: "an exclusive placement's workers follow their leader to its pool, though the other pool is free",
		nodes: []cluster.Node{gt.MakeNode("a1").CPU("8").Label("pool", "a").Obj(), gt.MakeNode("b1").CPU("4").Label("pool", "b").Obj(),
			gt.MakeNode("b2").CPU("8").Label("pool", "b").Obj()},
		set: following(groups("lws", 1, 3, "6", 0, 0, controllers.ActionRestartGroup), "pool"),
		// the leader's 6 cpus take a1 (the first that fits); its workers
		// may only go to pool a
		kinds: []gangsim.EventKind{gangsim.EventPodBound}, want: []string{
			"0s PodBound lws-0 a1", "0s PodBound lws-0-1 a1", "0s PodBound lws-0-2 a1",
		},
		sets: "lws Running 0 3",
	}, {
		name:  "a finite set completes when all its pods have succeeded",
		set:   tasks("vj", []int{1, 2}, []time.Duration{10 * time.Minute, 20 * time.Minute}, 3),
		kinds: []gangsim.EventKind{gangsim.EventPodSucceeded, gangsim.EventPodDeleted}, want: []string{
			"10m0s PodSucceeded vj-t0-0", "20m0s PodSucceeded vj-t1-0", "20m0s PodSucceeded vj-t1-1",
		},
		sets: "vj Completed 0 0",
	}, {
		name: "TaskCompleted: CompleteJob ends the set when the master's task is done, deleting the workers",
		set: tasks("vj", []int{1, 2}, []time.Duration{10 * time.Minute, 0}, 3,
			controllers.SetPolicy{Event: controllers.SetTaskCompleted, Group: 0, Action: controllers.ActionComplete}),
		kinds: []gangsim.EventKind{gangsim.EventPodSucceeded, gangsim.EventPodDeleted}, want: []string{
			"10m0s PodSucceeded vj-t0-0", "10m0s PodDeleted vj-t1-0", "10m0s PodDeleted vj-t1-1",
		},
		sets: "vj Completed 0 0",
	}} {
		t.Run(tt.name, func(t *testing.T) {
			nodes := tt.nodes
			if nodes == nil {
				nodes = node8
			}
			r := runCase(t, nodes, 0, tt.pods, []controllers.Workload{tt.set})
			require.NoError(t, r.err)
			require.Equal(t, tt.want, r.of(tt.kinds...))
			require.Equal(t, []string{tt.sets}, r.sets())
		})
	}
}

// urgent is a Job of one pod of 8 cpus and priority 1000 that runs 5
// minutes, made once the PodSet named after is ready; with stops, it
// stops that workload when it completes.
func urgent(kind, after string, stops bool) controllers.Workload {
	one := int32(1)
	ref := &controllers.WorkloadRef{Kind: kind, Name: after}
	w := controllers.Workload{Kind: controllers.KindJob, Namespace: "default", Name: "urgent",
		Template: gt.MakePod("").CPU("8").Priority(1000).Obj(), RunTime: every(5 * time.Minute),
		Job: &controllers.Job{Completions: &one, Parallelism: 1, BackoffLimit: 6}, After: ref}
	if stops {
		w.Stops = ref
	}
	return w
}

func TestPodSetLinks(t *testing.T) {
	kinds := []gangsim.EventKind{gangsim.EventPodArrived, gangsim.EventPodBound, gangsim.EventPodEvicted, gangsim.EventPodDeleted, gangsim.EventPodSucceeded}
	evicted := controllers.SetPolicy{Event: controllers.SetPodEvicted, Group: -1, Action: controllers.ActionRestartAll}
	for _, tt := range []struct {
		name string
		ws   []controllers.Workload
		want []string
		sets string
		jobs string
	}{{
		name: "PodEvicted: RestartJob deletes and makes again every pod; they run once the preemptor is done",
		ws: []controllers.Workload{tasks("vj", []int{2}, []time.Duration{time.Hour}, 2, evicted),
			urgent(controllers.KindVolcanoJob, "vj", false)},
		// the urgent Job waits for the set's pods to be bound, then
		// preempts both: the set restarts (1 of 2 retries), its new pods
		// wait for the urgent one to end (bound 1s later, when the
		// victims are gone and its backoff is over)
		want: []string{
			"0s PodArrived vj-t0-0", "0s PodArrived vj-t0-1", "0s PodBound vj-t0-0 n1", "0s PodBound vj-t0-1 n1",
			"0s PodArrived urgent-0", "0s PodEvicted vj-t0-0", "0s PodEvicted vj-t0-1",
			"0s PodDeleted vj-t0-0", "0s PodDeleted vj-t0-1", "0s PodArrived vj-t0-0", "0s PodArrived vj-t0-1",
			"1s PodBound urgent-0 n1", "5m1s PodSucceeded urgent-0", "5m1s PodBound vj-t0-0 n1", "5m1s PodBound vj-t0-1 n1",
			"1h5m1s PodSucceeded vj-t0-0", "1h5m1s PodSucceeded vj-t0-1",
		},
		sets: "vj Completed 1 0", jobs: "urgent Complete 1/0 5m1s",
	}, {
		name: "PodEvicted: RestartJob at maxRetry fails the set and deletes its pods",
		ws: []controllers.Workload{tasks("vj", []int{2}, []time.Duration{time.Hour}, 1, evicted),
			urgent(controllers.KindVolcanoJob, "vj", false)},
		want: []string{
			"0s PodArrived vj-t0-0", "0s PodArrived vj-t0-1", "0s PodBound vj-t0-0 n1", "0s PodBound vj-t0-1 n1",
			"0s PodArrived urgent-0", "0s PodEvicted vj-t0-0", "0s PodEvicted vj-t0-1",
			"0s PodDeleted vj-t0-0", "0s PodDeleted vj-t0-1", "1s PodBound urgent-0 n1", "5m1s PodSucceeded urgent-0",
		},
		sets: "vj Failed 1 0", jobs: "urgent Complete 1/0 5m1s",
	}, {
		name: "a Job that stops its cluster deletes the cluster's pods when it completes",
		ws:   []controllers.Workload{groups("ray", 1, 1, "0", 0, 0, controllers.ActionRestartPod), urgent(controllers.KindLeaderWorkerSet, "ray", true)},
		want: []string{
			"0s PodArrived ray-0", "0s PodBound ray-0 n1", "0s PodArrived urgent-0", "0s PodBound urgent-0 n1",
			"5m0s PodSucceeded urgent-0", "5m0s PodDeleted ray-0",
		},
		sets: "ray Running 0 0", jobs: "urgent Complete 1/0 5m0s",
	}} {
		t.Run(tt.name, func(t *testing.T) {
			r := runCase(t, node8, 0, nil, tt.ws)
			require.NoError(t, r.err)
			require.Equal(t, tt.want, r.of(kinds...))
			require.Equal(t, []string{tt.sets}, r.sets())
			require.Equal(t, []string{tt.jobs}, r.jobs())
		})
	}
}
