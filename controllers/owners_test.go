package controllers_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
	gt "github.com/gangsim/gangsim/gangsimtest"
)

// jobSet is a JobSet "js" of the parent p and its replicated jobs: each
// role name:replicas:pods, every Job Indexed with pods pods of 1 cpu, whose
// run time is rt's for the pod (by key and the times made).
func jobSet(p *controllers.Parent, rt func(cluster.PodKey, int) time.Duration, job controllers.Job, roles ...string) []controllers.Workload {
	ws := []controllers.Workload{{Kind: controllers.KindJobSet, Namespace: "default", Name: "js", Parent: p}}
	for _, r := range roles {
		f := strings.Split(r, ":")
		n, _ := strconv.Atoi(f[1])
		pods, _ := strconv.Atoi(f[2])
		for i := range n {
			name := "js-" + f[0] + "-" + strconv.Itoa(i)
			rules := job
			rules.Completions, rules.Parallelism, rules.Indexed = int32p(int32(pods)), int32(pods), true
			ws = append(ws, controllers.Workload{Kind: controllers.KindJob, Namespace: "default", Name: name,
				Template: gt.MakePod("").CPU("1").Label("jobset.sigs.k8s.io/job-key", name).Obj(), RunTime: rt,
				Job: &rules, Of: p, Role: f[0]})
		}
	}
	return ws
}

// byPrefix gives the pods whose name starts with a prefix the run time
// of the first prefix matching; d otherwise.
func byPrefix(d time.Duration, prefixes ...any) func(cluster.PodKey, int) time.Duration {
	return func(key cluster.PodKey, _ int) time.Duration {
		for i := 0; i+1 < len(prefixes); i += 2 {
			if strings.HasPrefix(strings.TrimPrefix(string(key), "default/"), prefixes[i].(string)) {
				return prefixes[i+1].(time.Duration)
			}
		}
		return d
	}
}

// parents are the parents, one a line: "name state reason restarts at".
func (r run) parents() []string {
	var out []string
	for _, p := range r.m.Parents() {
		line := fmt.Sprintf("%s %s %s %d", p.Name, p.State, p.Reason, p.Restarts)
		if p.Finished() {
			line += " " + p.FinishedAt.String()
		}
		out = append(out, line)
	}
	return out
}

func TestParentRules(t *testing.T) {
	roles := []controllers.Role{{Name: "a"}, {Name: "b"}}
	deadline := controllers.Job{BackoffLimit: 6, ActiveDeadline: 10 * time.Minute}
	for _, tt := range []struct {
		name    string
		nodes   []cluster.Node
		pods    []given
		ws      []controllers.Workload
		kinds   []gangsim.EventKind
		want    []string // events of kinds
		wantP   string
		wantJ   []string
		labels  map[string]string // pod key: label=value it has
		sameDom [][]string        // pod names placed in one domain, each set in another
	}{{
		name:  "success All: the JobSet completes when every Job has",
		ws:    jobSet(&controllers.Parent{Roles: roles, Clean: controllers.CleanAll}, byPrefix(20*time.Minute, "js-a", 10*time.Minute), controllers.Job{BackoffLimit: 6}, "a:1:1", "b:2:2"),
		kinds: []gangsim.EventKind{gangsim.EventPodSucceeded}, want: []string{
			"10m0s PodSucceeded js-a-0-0-0", "20m0s PodSucceeded js-b-0-0-0", "20m0s PodSucceeded js-b-0-1-0",
			"20m0s PodSucceeded js-b-1-0-0", "20m0s PodSucceeded js-b-1-1-0"},
		wantP: "js Completed AllJobsCompleted 0 20m0s",
		wantJ: []string{"js-a-0 Complete 1/0 10m0s", "js-b-0 Complete 2/0 20m0s", "js-b-1 Complete 2/0 20m0s"},
	}, {
		name: "success Any of a role: the first Job done completes it, the Jobs running are deleted",
		ws: jobSet(&controllers.Parent{Roles: roles, SuccessAny: true, SuccessTargets: []string{"b"}, Clean: controllers.CleanAll},
			byPrefix(time.Hour, "js-b-0", 10*time.Minute), controllers.Job{BackoffLimit: 6}, "a:1:1", "b:2:1"),
		kinds: []gangsim.EventKind{gangsim.EventPodSucceeded, gangsim.EventPodDeleted}, want: []string{
			"10m0s PodSucceeded js-b-0-0-0", "10m0s PodDeleted js-a-0-0-0", "10m0s PodDeleted js-b-1-0-0"},
		wantP: "js Completed AllJobsCompleted 0 10m0s",
		wantJ: []string{"js-a-0 Deleted 0/0 10m0s", "js-b-0 Complete 1/0 10m0s", "js-b-1 Deleted 0/0 10m0s"},
	}, {
		name:  "InOrder: a role starts once the one before is ready",
		nodes: []cluster.Node{gt.MakeNode("n1").CPU("2").Obj()},
		pods:  []given{{pod: gt.MakePod("blocker").CPU("2").Obj(), d: 5 * time.Minute, owner: -1}},
		ws:    jobSet(&controllers.Parent{Roles: roles, InOrder: true, Clean: controllers.CleanAll}, byPrefix(time.Hour), controllers.Job{BackoffLimit: 6}, "a:1:1", "b:1:1"),
		kinds: []gangsim.EventKind{gangsim.EventPodArrived, gangsim.EventPodBound}, want: []string{
			"0s PodArrived blocker", "0s PodArrived js-a-0-0-0", "0s PodBound blocker n1", "5m0s PodBound js-a-0-0-0 n1",
			"5m0s PodArrived js-b-0-0-0", "5m0s PodBound js-b-0-0-0 n1"},
		wantP: "js Completed AllJobsCompleted 0 1h5m0s",
		wantJ: []string{"js-a-0 Complete 1/0 1h5m0s", "js-b-0 Complete 1/0 1h5m0s"},
	}, {
		name: "dependsOn Complete: a role waits for another to complete",
		ws: jobSet(&controllers.Parent{Roles: []controllers.Role{{Name: "init"}, {Name: "b", DependsOn: []controllers.Dependency{{Role: "init", Complete: true}}}},
			Clean: controllers.CleanAll}, byPrefix(time.Hour, "js-init", 10*time.Minute), controllers.Job{BackoffLimit: 6}, "init:1:1", "b:1:2"),
		kinds: []gangsim.EventKind{gangsim.EventPodArrived}, want: []string{
			"0s PodArrived js-init-0-0-0", "10m0s PodArrived js-b-0-0-0", "10m0s PodArrived js-b-0-1-0"},
		wantP: "js Completed AllJobsCompleted 0 1h10m0s",
		wantJ: []string{"js-init-0 Complete 1/0 10m0s", "js-b-0 Complete 2/0 1h10m0s"},
	}, {
		name:  "no failure policy: a Job that fails fails the JobSet, and the others are deleted",
		ws:    jobSet(&controllers.Parent{Roles: roles, Clean: controllers.CleanAll}, byPrefix(time.Hour), deadline, "a:1:1", "b:1:1"),
		kinds: []gangsim.EventKind{gangsim.EventPodDeleted}, want: []string{"10m0s PodDeleted js-a-0-0-0", "10m0s PodDeleted js-b-0-0-0"},
		wantP: "js Failed FailedJobs 0 10m0s",
		wantJ: []string{"js-a-0 Failed 0/1 DeadlineExceeded 10m0s", "js-b-0 Failed 0/1 DeadlineExceeded 10m0s"},
	}, {
		name: "RestartJobSet up to maxRestarts: each attempt makes the Jobs anew, then the JobSet fails",
		ws: jobSet(&controllers.Parent{Roles: roles[:1], Failure: &controllers.FailurePolicy{MaxRestarts: 1}, Clean: controllers.CleanAll,
			AttemptLabel: "jobset.sigs.k8s.io/restart-attempt"}, byPrefix(time.Hour), deadline, "a:1:1"),
		kinds:  []gangsim.EventKind{gangsim.EventPodArrived, gangsim.EventPodDeleted},
		want:   []string{"0s PodArrived js-a-0-0-0", "10m0s PodDeleted js-a-0-0-0", "10m0s PodArrived js-a-0-0-1", "20m0s PodDeleted js-a-0-0-1"},
		wantP:  "js Failed ReachedMaxRestarts 1 20m0s",
		wantJ:  []string{"js-a-0 Failed 0/1 DeadlineExceeded 20m0s"},
		labels: map[string]string{"default/js-a-0-0-1": "jobset.sigs.k8s.io/restart-attempt=1"},
	}, {
		name: "a rule on the failure's reason and role: FailJobSet",
		ws: jobSet(&controllers.Parent{Roles: roles[:1], Clean: controllers.CleanAll, Failure: &controllers.FailurePolicy{MaxRestarts: 5,
			Rules: []controllers.FailureRule{
				{Action: controllers.RestartAll, Reasons: []string{"BackoffLimitExceeded"}},
				{Action: controllers.FailParent, Reasons: []string{"DeadlineExceeded"}, Roles: []string{"a"}}}}},
			byPrefix(time.Hour), deadline, "a:1:1"),
		wantP: "js Failed FailJobSetFailurePolicyAction 0 10m0s",
		wantJ: []string{"js-a-0 Failed 0/1 DeadlineExceeded 10m0s"},
	}, {
		name: "RestartJobSetAndIgnoreMaxRestarts restarts past maxRestarts 0",
		ws: jobSet(&controllers.Parent{Roles: roles[:1], Clean: controllers.CleanAll, Failure: &controllers.FailurePolicy{
			Rules: []controllers.FailureRule{{Action: controllers.RestartAllUncounted}}}},
			func(key cluster.PodKey, _ int) time.Duration {
				if strings.HasSuffix(string(key), "-0") {
					return time.Hour
				}
				return 5 * time.Minute
			}, deadline, "a:1:1"),
		kinds: []gangsim.EventKind{gangsim.EventPodSucceeded}, want: []string{"15m0s PodSucceeded js-a-0-0-1"},
		wantP: "js Completed AllJobsCompleted 1 15m0s",
		wantJ: []string{"js-a-0 Complete 1/0 15m0s"},
	}, {
		name: "RestartJob makes the failed Job alone anew, counted against maxRestarts",
		ws: func() []controllers.Workload {
			ws := jobSet(&controllers.Parent{Roles: roles, Clean: controllers.CleanAll, Failure: &controllers.FailurePolicy{MaxRestarts: 1,
				Rules: []controllers.FailureRule{{Action: controllers.RestartChild}}}}, byPrefix(time.Hour), controllers.Job{BackoffLimit: 6}, "a:1:1", "b:1:1")
			rules := *ws[1].Job
			rules.ActiveDeadline = 10 * time.Minute
			ws[1].Job = &rules
			return ws
		}(),
		kinds: []gangsim.EventKind{gangsim.EventPodArrived, gangsim.EventPodDeleted}, want: []string{
			"0s PodArrived js-a-0-0-0", "0s PodArrived js-b-0-0-0",
			"10m0s PodDeleted js-a-0-0-0", "10m0s PodArrived js-a-0-0-1", // b runs on
			"20m0s PodDeleted js-a-0-0-1", "20m0s PodDeleted js-b-0-0-0"},
		wantP: "js Failed ReachedMaxRestarts 0 20m0s",
		wantJ: []string{"js-a-0 Failed 0/1 DeadlineExceeded 20m0s", "js-b-0 Deleted 0/0 20m0s"},
	}, {
		name:  "a suspended JobSet makes no Job",
		ws:    jobSet(&controllers.Parent{Roles: roles[:1], Suspended: true}, byPrefix(time.Hour), deadline, "a:1:1"),
		wantP: "js Suspended  0",
	}, {
		name: "exclusive placement: a Job's pods share the leader's domain, and no other Job's",
		nodes: []cluster.Node{
			gt.MakeNode("n1").CPU("1").Label("pool", "a").Obj(), gt.MakeNode("n2").CPU("1").Label("pool", "a").Obj(),
			gt.MakeNode("n3").CPU("1").Label("pool", "b").Obj(), gt.MakeNode("n4").CPU("1").Label("pool", "b").Obj()},
		ws: func() []controllers.Workload {
			ws := jobSet(&controllers.Parent{Roles: roles[:1], Clean: controllers.CleanAll}, byPrefix(time.Hour), controllers.Job{BackoffLimit: 6}, "a:2:2")
			ws[1].Exclusive, ws[2].Exclusive = "pool", "pool"
			return ws
		}(),
		// the followers are made once their leader is bound, at once
		kinds: []gangsim.EventKind{gangsim.EventPodArrived}, want: []string{
			"0s PodArrived js-a-0-0-0", "0s PodArrived js-a-1-0-0", "0s PodArrived js-a-0-1-0", "0s PodArrived js-a-1-1-0"},
		wantP:   "js Completed AllJobsCompleted 0 1h0m0s",
		wantJ:   []string{"js-a-0 Complete 2/0 1h0m0s", "js-a-1 Complete 2/0 1h0m0s"},
		sameDom: [][]string{{"js-a-0-0-0", "js-a-0-1-0"}, {"js-a-1-0-0", "js-a-1-1-0"}},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			nodes := tt.nodes
			if nodes == nil {
				nodes = node8
			}
			r := runCase(t, nodes, 0, tt.pods, tt.ws)
			require.NoError(t, r.err)
			require.Equal(t, tt.want, r.of(tt.kinds...))
			require.Equal(t, []string{tt.wantP}, r.parents())
			require.Equal(t, tt.wantJ, r.jobs())
			for key, kv := range tt.labels {
				p, ok := r.m.Pod(cluster.PodKey(key))
				require.True(t, ok, key)
				k, v, _ := strings.Cut(kv, "=")
				require.Equal(t, v, p.Labels[k], key)
			}
			if tt.sameDom != nil {
				pool := map[string]string{}
				for _, e := range r.of(gangsim.EventPodBound) {
					f := strings.Fields(e)
					pool[f[2]] = map[string]string{"n1": "a", "n2": "a", "n3": "b", "n4": "b"}[f[3]]
				}
				require.Equal(t, pool[tt.sameDom[0][0]], pool[tt.sameDom[0][1]])
				require.Equal(t, pool[tt.sameDom[1][0]], pool[tt.sameDom[1][1]])
				require.NotEqual(t, pool[tt.sameDom[0][0]], pool[tt.sameDom[1][0]])
			}
		})
	}
}

// replicas is a Kubeflow job's child of n replicas of role, 1-cpu pods.
func replicas(kind string, p *controllers.Parent, role string, n int, rt func(cluster.PodKey, int) time.Duration) controllers.Workload {
	return controllers.Workload{Kind: kind, Namespace: "default", Name: "tj", Template: gt.MakePod("").CPU("1").Obj(),
		RunTime: rt, Replicas: n, Of: p, Role: role}
}

func TestKubeflowReplicas(t *testing.T) {
	t.Run("a PyTorchJob succeeds with its master; cleanPodPolicy Running deletes the workers", func(t *testing.T) {
		p := &controllers.Parent{Roles: []controllers.Role{{Name: "master"}, {Name: "worker"}}, SuccessTargets: []string{"master"},
			Clean: controllers.CleanRunning, IndexLabel: "training.kubeflow.org/replica-index"}
		rt := byPrefix(time.Hour, "tj-master", 10*time.Minute)
		r := runCase(t, node8, 0, nil, []controllers.Workload{{Kind: controllers.KindPyTorchJob, Namespace: "default", Name: "tj", Parent: p},
			replicas(controllers.KindPyTorchJob, p, "master", 1, rt), replicas(controllers.KindPyTorchJob, p, "worker", 2, rt)})
		require.NoError(t, r.err)
		require.Equal(t, []string{"0s PodBound tj-master-0 n1", "0s PodBound tj-worker-0 n1", "0s PodBound tj-worker-1 n1",
			"10m0s PodSucceeded tj-master-0", "10m0s PodDeleted tj-worker-0", "10m0s PodDeleted tj-worker-1"}, r.of(bound...))
		require.Equal(t, []string{"tj Succeeded PyTorchJobSucceeded 0 10m0s"}, r.parents())
		require.Empty(t, r.jobs(), "replicas are pods of their own, not Jobs")
		w1, _ := r.m.Pod("default/tj-worker-1")
		require.Equal(t, "1", w1.Labels["training.kubeflow.org/replica-index"])
	})
	t.Run("an MPIJob's launcher waits for its workers to be ready; workers without a run time stay with cleanPodPolicy None", func(t *testing.T) {
		p := &controllers.Parent{Roles: []controllers.Role{{Name: "worker"}, {Name: "launcher", DependsOn: []controllers.Dependency{{Role: "worker"}}}},
			SuccessTargets: []string{"launcher"}, Clean: controllers.CleanNone}
		launcher := job("mpi-launcher", 30*time.Minute, controllers.Job{Parallelism: 1, Completions: int32p(1), BackoffLimit: 6})
		launcher.Of, launcher.Role = p, "launcher"
		workers := replicas(controllers.KindMPIJob, p, "worker", 2, nil)
		workers.Name = "mpi"
		r := runCase(t, []cluster.Node{gt.MakeNode("n1").CPU("3").Obj()},
			0, []given{{pod: gt.MakePod("blocker").CPU("2").Obj(), d: 5 * time.Minute, owner: -1}},
			[]controllers.Workload{{Kind: controllers.KindMPIJob, Namespace: "default", Name: "mpi", Parent: p}, workers, launcher})
		require.NoError(t, r.err)
		require.Equal(t, []string{"0s PodBound blocker n1", "0s PodBound mpi-worker-0 n1", "5m0s PodSucceeded blocker",
			"5m0s PodBound mpi-worker-1 n1", "5m0s PodBound mpi-launcher-0 n1", "35m0s PodSucceeded mpi-launcher-0"}, r.of(bound...))
		require.Equal(t, []string{"mpi Succeeded MPIJobSucceeded 0 35m0s"}, r.parents())
		require.Equal(t, []string{"mpi-launcher Complete 1/0 35m0s"}, r.jobs())
	})
}
