package controllers_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
	gt "github.com/gangsim/gangsim/gangsimtest"
)

// act is what a test does to the Manager at a time, after the wakeups due
// then: Suspend or Unsuspend a workload, or look at it.
type act struct {
	at time.Duration
	do func(m *controllers.Manager) error
}

// suspendAt and unsuspendAt are acts on the workload of kind and name in
// the default namespace; unsuspendAt resumes it with toPoolB.
func suspendAt(at time.Duration, kind, name string) act {
	return act{at, func(m *controllers.Manager) error { return m.Suspend(controllers.WorkloadRef{Kind: kind, Name: name}) }}
}

func unsuspendAt(at time.Duration, kind, name string) act {
	return act{at, func(m *controllers.Manager) error {
		return m.Unsuspend(controllers.WorkloadRef{Kind: kind, Name: name}, toPoolB)
	}}
}

// toPoolB is the patch of a Kueue flavor whose nodes are pool=b, tainted
// dedicated=b: the pods get the node selector and the toleration, and the
// role they were made for as a label.
func toPoolB(role string, p *cluster.Pod) {
	if p.NodeSelector == nil {
		p.NodeSelector = map[string]string{}
	}
	p.NodeSelector["pool"] = "b"
	p.Tolerations = append(p.Tolerations, cluster.Toleration{Key: "dedicated", Operator: cluster.TolerationEqual, Value: "b",
		Effect: cluster.TaintNoSchedule})
	if p.Labels == nil {
		p.Labels = map[string]string{}
	}
	p.Labels["role"] = role
}

// pools are two nodes of 8 cpus: n1 of pool a, n2 of pool b, tainted: only
// the pods patched by toPoolB go to n2, and they go nowhere else.
var pools = []cluster.Node{
	gt.MakeNode("n1").CPU("8").Memory("32Gi").Label("pool", "a").Obj(),
	gt.MakeNode("n2").CPU("8").Memory("32Gi").Label("pool", "b").Taint("dedicated", "b", cluster.TaintNoSchedule).Obj(),
}

// suspendRun is runCase with acts, and the workloads WithWorkloadChange
// told of, one a line as "time kind/name".
type suspendRun struct {
	run
	told []string
}

// runActs runs the workloads with the pods given on the nodes, doing the
// acts at their times, as controllers.Run does with nothing to do between.
func runActs(t *testing.T, nodes []cluster.Node, pods []given, ws []controllers.Workload, acts []act, opts ...controllers.Option) suspendRun {
	t.Helper()
	for i := range pods {
		if o := pods[i].owner; o >= 0 {
			ws[o].Pods = append(ws[o].Pods, &pods[i].pod)
		}
	}
	var r suspendRun
	opts = append(opts, controllers.WithWorkloadChange(func(ref controllers.WorkloadRef) {
		r.told = append(r.told, fmt.Sprintf("%v %s/%s", r.s.Now(), ref.Kind, ref.Name))
	}))
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
	for _, p := range pods {
		if p.d > 0 {
			r.m.WaitFor(p.pod.Key())
		}
		require.NoError(t, s.AddPod(p.pod, p.d))
	}
	r.err = drive(s, r.m, acts)
	return r
}

// drive is controllers.Run with acts: each is done once the Scheduler has
// run to its time and the controllers have acted on what came before.
func drive(s *gangsim.Scheduler, m *controllers.Manager, acts []act) error {
	m.Start(s)
	for {
		if m.Busy() {
			if err := m.React(); err != nil {
				return err
			}
			continue
		}
		m.Resume()
		w, woken := m.NextWakeup()
		if len(acts) > 0 && (!woken || acts[0].at < w) {
			if err := s.RunUntil(acts[0].at); err != nil {
				return err
			}
			if m.Paused() {
				continue
			}
			if err := acts[0].do(m); err != nil {
				return err
			}
			acts = acts[1:]
			continue
		}
		if woken {
			if err := s.RunUntil(w); err != nil {
				return err
			}
			if !m.Paused() {
				m.Wake(w)
			}
			continue
		}
		if m.InProgress() {
			if err := s.Run(); err != nil || !m.Paused() {
				return err
			}
			continue
		}
		if err := s.Settle(); err != nil {
			return err
		}
		if !m.Paused() && !m.InProgress() && !m.Busy() {
			return nil
		}
	}
}

// twoRoles are the roles a and b of a JobSet.
var twoRoles = []controllers.Role{{Name: "a"}, {Name: "b"}}

// rayCluster is a RayCluster "ray" of a head of 2 cpus and two workers of
// 1 cpu, its templates' roles Kueue's pod sets' names (head, workers),
// whose pods run until deleted.
func rayCluster() controllers.Workload {
	set := &controllers.PodSet{OnFailure: controllers.ActionRestartPod,
		Templates: []cluster.Pod{gt.MakePod("").CPU("2").Label("ray.io/node-type", "head").Obj(), gt.MakePod("").CPU("1").Label("ray.io/node-type", "worker").Obj()},
		Roles:     []string{"head", "workers"},
		Members: []controllers.Member{{Name: "ray-head", Renamed: true, After: -1}, {Name: "ray-workers-worker", Renamed: true, Template: 1, Group: 1, After: -1},
			{Name: "ray-workers-worker", Renamed: true, Template: 1, Group: 2, After: -1}}}
	return controllers.Workload{Kind: controllers.KindRayCluster, Namespace: "default", Name: "ray", Template: set.Templates[0], Set: set}
}

// mpiJob is an MPIJob "mpi": two workers that run until deleted, and a
// launcher Job of one pod of 30 minutes once they are ready; the workers
// are deleted when it succeeds.
func mpiJob() []controllers.Workload {
	p := &controllers.Parent{Roles: []controllers.Role{{Name: "worker"}, {Name: "launcher", DependsOn: []controllers.Dependency{{Role: "worker"}}}},
		SuccessTargets: []string{"launcher"}, Clean: controllers.CleanRunning}
	launcher := job("mpi-launcher", 30*time.Minute, controllers.Job{Parallelism: 1, Completions: int32p(1), BackoffLimit: 6})
	launcher.Of, launcher.Role = p, "launcher"
	workers := replicas(controllers.KindMPIJob, p, "worker", 2, nil)
	workers.Name = "mpi"
	return []controllers.Workload{{Kind: controllers.KindMPIJob, Namespace: "default", Name: "mpi", Parent: p}, workers, launcher}
}

func TestSuspendAndResume(t *testing.T) {
	// Each workload is suspended mid-run and resumed with toPoolB: the
	// pods it had before run on n1 (pool a), those it makes after on n2,
	// which proves the Scheduler got the patched template. No pod deleted
	// by the suspension counts as failed.
	for _, tt := range []struct {
		name    string
		pods    []given
		ws      []controllers.Workload
		acts    []act
		want    []string // PodBound, PodSucceeded, PodDeleted
		wantJ   []string
		wantP   []string
		wantS   []string
		told    []string
		failed  []string          // the pods counted as failed: no other
		labels  map[string]string // a pod key: the role the patch was given
		unknown bool              // the workloads include one the acts do not name
	}{{
		// 0: etl-0, etl-1 run 30m. 30m: etl-2, etl-3 (completions left 2).
		// 40m: suspended, both deleted, not failures: Active 0, told at
		// 40m. 50m: the deadline (50m from 0) would fail it; suspended, its
		// clock stopped. 60m: resumed, the deadline now 60m+50m; the next
		// names etl-4, etl-5 run on n2 to 90m: 4 completions, Complete.
		name: "a NonIndexed Job",
		ws: []controllers.Workload{job("etl", 30*time.Minute, controllers.Job{Completions: int32p(4), Parallelism: 2, BackoffLimit: 6,
			ActiveDeadline: 50 * time.Minute})},
		acts: []act{suspendAt(40*time.Minute, controllers.KindJob, "etl"), unsuspendAt(time.Hour, controllers.KindJob, "etl")},
		want: []string{"0s PodBound etl-0 n1", "0s PodBound etl-1 n1", "30m0s PodSucceeded etl-0", "30m0s PodSucceeded etl-1",
			"30m0s PodBound etl-2 n1", "30m0s PodBound etl-3 n1", "40m0s PodDeleted etl-2", "40m0s PodDeleted etl-3",
			"1h0m0s PodBound etl-4 n2", "1h0m0s PodBound etl-5 n2", "1h30m0s PodSucceeded etl-4", "1h30m0s PodSucceeded etl-5"},
		wantJ:  []string{"etl Complete 4/0 1h30m0s"},
		told:   []string{"40m0s Job/etl", "1h30m0s Job/etl"},
		labels: map[string]string{"default/etl-4": "", "default/etl-1": "-"},
	}, {
		// 0: indexes 0 (10m) and 1 (30m). 10m: 0 done, index 2 made.
		// 20m: suspended: train-1-0 and train-2-0 deleted; index 0 stays
		// done. 25m: resumed: indexes 1 and 2 made again (their second
		// pods) on n2, done at 55m; index 3 then, done at 85m.
		name: "an Indexed Job with a succeeded index",
		ws: func() []controllers.Workload {
			w := job("train", 0, controllers.Job{Completions: int32p(4), Parallelism: 2, BackoffLimit: 6, Indexed: true})
			w.RunTime = byPrefix(30*time.Minute, "train-0-", 10*time.Minute)
			return []controllers.Workload{w}
		}(),
		acts: []act{suspendAt(20*time.Minute, controllers.KindJob, "train"), unsuspendAt(25*time.Minute, controllers.KindJob, "train")},
		want: []string{"0s PodBound train-0-0 n1", "0s PodBound train-1-0 n1", "10m0s PodSucceeded train-0-0", "10m0s PodBound train-2-0 n1",
			"20m0s PodDeleted train-1-0", "20m0s PodDeleted train-2-0", "25m0s PodBound train-1-1 n2", "25m0s PodBound train-2-1 n2",
			"55m0s PodSucceeded train-1-1", "55m0s PodSucceeded train-2-1", "55m0s PodBound train-3-0 n2", "1h25m0s PodSucceeded train-3-0"},
		wantJ: []string{"train Complete 4/0 1h25m0s"},
		told:  []string{"20m0s Job/train", "1h25m0s Job/train"},
	}, {
		// A JobSet of roles a (one Job of 2 pods) and b (one of 1 pod),
		// 30m each. 10m: suspended: its Jobs suspended, their 3 pods
		// deleted. 20m: resumed: each Job makes its pods again, on n2, the
		// patch given each Job's role; all done at 50m.
		name: "a JobSet of two roles",
		ws:   jobSet(&controllers.Parent{Roles: twoRoles}, every(30*time.Minute), controllers.Job{BackoffLimit: 6}, "a:1:2", "b:1:1"),
		acts: []act{suspendAt(10*time.Minute, controllers.KindJobSet, "js"), unsuspendAt(20*time.Minute, controllers.KindJobSet, "js")},
		want: []string{"0s PodBound js-a-0-0-0 n1", "0s PodBound js-a-0-1-0 n1", "0s PodBound js-b-0-0-0 n1",
			"10m0s PodDeleted js-a-0-0-0", "10m0s PodDeleted js-a-0-1-0", "10m0s PodDeleted js-b-0-0-0",
			"20m0s PodBound js-a-0-0-1 n2", "20m0s PodBound js-a-0-1-1 n2", "20m0s PodBound js-b-0-0-1 n2",
			"50m0s PodSucceeded js-a-0-0-1", "50m0s PodSucceeded js-a-0-1-1", "50m0s PodSucceeded js-b-0-0-1"},
		wantJ:  []string{"js-a-0 Complete 2/0 50m0s", "js-b-0 Complete 1/0 50m0s"},
		wantP:  []string{"js Completed AllJobsCompleted 0 50m0s"},
		told:   []string{"10m0s JobSet/js", "50m0s JobSet/js"},
		labels: map[string]string{"default/js-a-0-1-1": "a", "default/js-b-0-0-1": "b"},
	}, {
		// 0: the workers (until deleted) are ready, the launcher starts,
		// 30m. 10m: suspended: the three pods deleted. 20m: resumed: the
		// workers made again under their names, the launcher's next pod,
		// on n2; it succeeds at 50m and the workers are deleted.
		name: "an MPIJob",
		ws:   mpiJob(),
		acts: []act{suspendAt(10*time.Minute, controllers.KindMPIJob, "mpi"), unsuspendAt(20*time.Minute, controllers.KindMPIJob, "mpi")},
		want: []string{"0s PodBound mpi-worker-0 n1", "0s PodBound mpi-worker-1 n1", "0s PodBound mpi-launcher-0 n1",
			"10m0s PodDeleted mpi-worker-0", "10m0s PodDeleted mpi-worker-1", "10m0s PodDeleted mpi-launcher-0",
			"20m0s PodBound mpi-worker-0 n2", "20m0s PodBound mpi-worker-1 n2", "20m0s PodBound mpi-launcher-1 n2",
			"50m0s PodSucceeded mpi-launcher-1", "50m0s PodDeleted mpi-worker-0", "50m0s PodDeleted mpi-worker-1"},
		wantJ:  []string{"mpi-launcher Complete 1/0 50m0s"},
		wantP:  []string{"mpi Succeeded MPIJobSucceeded 0 50m0s"},
		told:   []string{"10m0s MPIJob/mpi", "50m0s MPIJob/mpi"},
		labels: map[string]string{"default/mpi-worker-1": "worker", "default/mpi-launcher-1": "launcher"},
	}, {
		// KubeRay's suspend deletes the head and the workers; resumed,
		// their next names run on n2, each given its template's role. A
		// RayCluster runs until deleted: it does not finish.
		name: "a RayCluster",
		ws:   []controllers.Workload{rayCluster()},
		acts: []act{suspendAt(10*time.Minute, controllers.KindRayCluster, "ray"), unsuspendAt(20*time.Minute, controllers.KindRayCluster, "ray")},
		want: []string{"0s PodBound ray-head-0 n1", "0s PodBound ray-workers-worker-0 n1", "0s PodBound ray-workers-worker-1 n1",
			"10m0s PodDeleted ray-head-0", "10m0s PodDeleted ray-workers-worker-0", "10m0s PodDeleted ray-workers-worker-1",
			"20m0s PodBound ray-head-1 n2", "20m0s PodBound ray-workers-worker-2 n2", "20m0s PodBound ray-workers-worker-3 n2"},
		wantS:  []string{"ray Running 0 3"},
		told:   []string{"10m0s RayCluster/ray"},
		labels: map[string]string{"default/ray-head-1": "head", "default/ray-workers-worker-3": "workers"},
	}, {
		// 0s: urgent preempts etl-0, which terminates for 30s: a failure,
		// as an eviction is. 10s: the backoff of 10s over, etl-1 is made
		// (pending: n1 is taken, n2 tainted); then suspended: etl-1
		// deleted, not a failure, but Active is still 1 (etl-0), the hook
		// waits. 30s: etl-0 gone, Active 0, told. 1m: resumed: etl-2 runs
		// on n2 for an hour.
		name: "a pod evicted before the suspension is active until it is gone",
		pods: []given{
			{pod: gt.MakePod("etl-0").CPU("8").NodeName("n1").Label("job-name", "etl").Obj(), d: time.Hour, owner: 0},
			{pod: gt.MakePod("urgent").CPU("8").Priority(1000).Obj(), d: 5 * time.Minute, owner: -1},
		},
		ws: []controllers.Workload{func() controllers.Workload {
			w := job("etl", time.Hour, controllers.Job{Parallelism: 1, Completions: int32p(1), BackoffLimit: 6})
			w.Template.Requests = gt.MakePod("").CPU("8").Obj().Requests
			return w
		}()},
		acts: []act{suspendAt(10*time.Second, controllers.KindJob, "etl"),
			{20 * time.Second, func(m *controllers.Manager) error {
				if n := m.Active(controllers.WorkloadRef{Kind: controllers.KindJob, Name: "etl"}); n != 1 {
					return fmt.Errorf("active %d, want the pod terminating", n)
				}
				return nil
			}},
			unsuspendAt(time.Minute, controllers.KindJob, "etl")},
		want: []string{"10s PodDeleted etl-1", "30s PodDeleted etl-0", "30s PodBound urgent n1", "1m0s PodBound etl-2 n2",
			"5m30s PodSucceeded urgent", "1h1m0s PodSucceeded etl-2"},
		wantJ:  []string{"etl Complete 1/1 1h1m0s"},
		told:   []string{"30s Job/etl", "1h1m0s Job/etl"},
		failed: []string{"default/etl-0"},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			r := runActs(t, pools, tt.pods, tt.ws, tt.acts)
			require.NoError(t, r.err)
			require.Equal(t, tt.want, r.of(bound...))
			require.Equal(t, tt.wantJ, r.jobs())
			require.Equal(t, tt.wantP, r.parents())
			require.Equal(t, tt.wantS, r.sets())
			require.Equal(t, tt.told, r.told)
			for _, key := range r.m.Made() {
				require.Equal(t, slices.Contains(tt.failed, string(key)), r.m.Failed(key), key)
			}
			for _, key := range tt.failed {
				require.True(t, r.m.Failed(cluster.PodKey(key)), key)
			}
			for key, role := range tt.labels {
				p, ok := r.m.Pod(cluster.PodKey(key))
				require.True(t, ok, key)
				if role == "-" { // made before the patch
					require.NotContains(t, p.Labels, "role", key)
					require.Empty(t, p.Tolerations, key)
					continue
				}
				require.Equal(t, role, p.Labels["role"], key)
				require.Equal(t, "b", p.NodeSelector["pool"], key)
			}
			for _, ref := range refsOf(tt.ws) {
				done, failed := r.m.Finished(ref)
				require.Equal(t, done, len(tt.told) == 2, ref)
				require.False(t, failed, ref)
				if done {
					require.Zero(t, r.m.Active(ref), ref)
				}
			}
		})
	}
}

// refsOf are the references to the workloads that are no parent's child.
func refsOf(ws []controllers.Workload) []controllers.WorkloadRef {
	var out []controllers.WorkloadRef
	for _, w := range ws {
		if w.Of == nil {
			out = append(out, controllers.WorkloadRef{Kind: w.Kind, Name: w.Name, Namespace: w.Namespace})
		}
	}
	return out
}

func TestSuspendedFromTheStart(t *testing.T) {
	// WithSuspended holds the Job as Kueue's webhook does, its spec not
	// suspended: nothing runs until 15m, when it is resumed on n2; its
	// active deadline of 20m counts from then. Suspending it again while
	// held does nothing, and tells nothing.
	held := func(ref controllers.WorkloadRef) bool {
		return ref == controllers.WorkloadRef{Kind: controllers.KindJob, Name: "etl", Namespace: "default"}
	}
	ws := []controllers.Workload{job("etl", 10*time.Minute, controllers.Job{Completions: int32p(2), Parallelism: 2, BackoffLimit: 6,
		ActiveDeadline: 20 * time.Minute})}
	var states []string
	look := func(at time.Duration) act {
		return act{at, func(m *controllers.Manager) error {
			done, _ := m.Finished(controllers.WorkloadRef{Kind: controllers.KindJob, Name: "etl"})
			states = append(states, fmt.Sprintf("%v %s done=%v", at, m.Jobs()[0].State, done))
			return nil
		}}
	}
	r := runActs(t, pools, nil, ws, []act{look(0), suspendAt(5*time.Minute, controllers.KindJob, "etl"),
		unsuspendAt(15*time.Minute, controllers.KindJob, "etl"), look(16 * time.Minute)}, controllers.WithSuspended(held))
	require.NoError(t, r.err)
	require.Equal(t, []string{"15m0s PodBound etl-0 n2", "15m0s PodBound etl-1 n2", "25m0s PodSucceeded etl-0", "25m0s PodSucceeded etl-1"},
		r.of(bound...))
	require.Equal(t, []string{"0s Suspended done=false", "16m0s Running done=false"}, states)
	require.Equal(t, []string{"etl Complete 2/0 25m0s"}, r.jobs())
	require.Equal(t, []string{"25m0s Job/etl"}, r.told)
}

func TestSuspendHeldPodsDeleted(t *testing.T) {
	// A held Job's Pods given at time 0 are deleted at its first sync, as
	// the Job controller deletes a suspended Job's pods; not failures.
	pods := []given{{pod: gt.MakePod("etl-0").CPU("1").Label("job-name", "etl").Obj(), d: time.Hour, owner: 0}}
	ws := []controllers.Workload{job("etl", time.Hour, controllers.Job{Completions: int32p(1), Parallelism: 1, BackoffLimit: 6})}
	r := runActs(t, pools, pods, ws, nil, controllers.WithSuspended(func(controllers.WorkloadRef) bool { return true }))
	require.NoError(t, r.err)
	require.Equal(t, []string{"0s PodDeleted etl-0"}, r.of(gangsim.EventPodBound, gangsim.EventPodDeleted))
	require.Equal(t, []string{"etl Suspended 0/0"}, r.jobs())
	require.False(t, r.m.Failed("default/etl-0"))
	require.True(t, r.m.Deleted("default/etl-0"))
	require.Zero(t, r.m.Active(controllers.WorkloadRef{Kind: controllers.KindJob, Name: "etl"}))
}

func TestSuspendRefuses(t *testing.T) {
	lws := groups("lws", 1, 2, "1", 0, 0, controllers.ActionRestartGroup)
	ws := append(jobSet(&controllers.Parent{Roles: twoRoles}, every(time.Minute), controllers.Job{BackoffLimit: 6}, "a:1:1"), lws,
		service(controllers.KindReplicaSet, "web", 1, 0))
	m := controllers.NewManager(ws)
	for _, tt := range []struct {
		ref  controllers.WorkloadRef
		want error
		msg  string
	}{
		{controllers.WorkloadRef{Kind: controllers.KindJob, Name: "nothing"}, controllers.ErrUnknownWorkload, "Job default/nothing: no such workload"},
		{controllers.WorkloadRef{Kind: controllers.KindJobSet, Name: "js", Namespace: "other"}, controllers.ErrUnknownWorkload, "JobSet other/js"},
		{controllers.WorkloadRef{Kind: controllers.KindJob, Name: "js-a-0"}, controllers.ErrNoSuspend, "a child of JobSet js is suspended with it"},
		{controllers.WorkloadRef{Kind: controllers.KindLeaderWorkerSet, Name: "lws"}, controllers.ErrNoSuspend, "held group by group"},
		{controllers.WorkloadRef{Kind: controllers.KindReplicaSet, Name: "web"}, controllers.ErrNoSuspend, "a ReplicaSet has none"},
	} {
		err := m.Suspend(tt.ref)
		require.ErrorIs(t, err, tt.want, tt.ref)
		require.ErrorContains(t, err, tt.msg)
		err = m.Unsuspend(tt.ref, nil)
		require.ErrorIs(t, err, tt.want, tt.ref)
		require.Zero(t, m.Active(tt.ref))
	}
	require.NoError(t, m.Suspend(controllers.WorkloadRef{Kind: controllers.KindJobSet, Name: "js"}))
}

func TestNeverSuspendedUnchanged(t *testing.T) {
	// The options and a hook that holds nothing leave a run as it was,
	// event for event.
	for name, ws := range map[string]func() []controllers.Workload{
		"JobSet": func() []controllers.Workload {
			return jobSet(&controllers.Parent{Roles: twoRoles}, every(30*time.Minute), controllers.Job{BackoffLimit: 6}, "a:1:2", "b:1:1")
		},
		"MPIJob": mpiJob,
		"RayCluster": func() []controllers.Workload {
			return []controllers.Workload{rayCluster(), job("etl", time.Hour, controllers.Job{Parallelism: 1, BackoffLimit: 1})}
		},
	} {
		t.Run(name, func(t *testing.T) {
			plain := runCase(t, pools, 0, nil, ws())
			require.NoError(t, plain.err)
			with := runActs(t, pools, nil, ws(), nil, controllers.WithSuspended(func(controllers.WorkloadRef) bool { return false }))
			require.NoError(t, with.err)
			require.Equal(t, plain.events, with.events)
			require.Equal(t, plain.jobs(), with.jobs())
		})
	}
}

func TestJobSetResumesRoleByRole(t *testing.T) {
	// Role b depends on role a being ready. 0: a's pod binds, a is
	// ready, b's pod arrives and binds. 10m: suspended. 20m: resumed: a's
	// Job first, its pod pending (blocker holds n2 until 25m); b's Job
	// stays suspended until a is ready again: its pod arrives at 25m, not
	// at 20m. A Kubeflow job would resume both at once.
	p := &controllers.Parent{Roles: []controllers.Role{{Name: "a"}, {Name: "b", DependsOn: []controllers.Dependency{{Role: "a"}}}}}
	ws := jobSet(p, every(30*time.Minute), controllers.Job{BackoffLimit: 6}, "a:1:1", "b:1:1")
	pods := []given{{pod: gt.MakePod("blocker").CPU("8").NodeName("n2").Toleration("dedicated", "b", cluster.TaintNoSchedule).Obj(),
		d: 25 * time.Minute, owner: -1}}
	var states [][]string
	look := act{21 * time.Minute, func(m *controllers.Manager) error {
		for _, j := range m.Jobs() {
			states = append(states, []string{j.Name, string(j.State)})
		}
		return nil
	}}
	r := runActs(t, pools, pods, ws, []act{suspendAt(10*time.Minute, controllers.KindJobSet, "js"),
		unsuspendAt(20*time.Minute, controllers.KindJobSet, "js"), look})
	require.NoError(t, r.err)
	require.Equal(t, []string{"0s PodArrived js-a-0-0-0", "0s PodBound js-a-0-0-0 n1", "0s PodArrived js-b-0-0-0", "0s PodBound js-b-0-0-0 n1",
		"20m0s PodArrived js-a-0-0-1", "25m0s PodBound js-a-0-0-1 n2", "25m0s PodArrived js-b-0-0-1", "25m0s PodBound js-b-0-0-1 n2"},
		r.of(gangsim.EventPodArrived, gangsim.EventPodBound)[1:]) // the blocker's arrival first
	require.Equal(t, [][]string{{"js-a-0", "Running"}, {"js-b-0", "Suspended"}}, states)
	require.Equal(t, []string{"js-a-0 Complete 1/0 55m0s", "js-b-0 Complete 1/0 55m0s"}, r.jobs())
	require.Equal(t, []string{"js Completed AllJobsCompleted 0 55m0s"}, r.parents())
}

func TestSuspendedBySpec(t *testing.T) {
	// A Job whose spec says suspend: true is suspended already: Suspend
	// does nothing and tells nothing; Unsuspend runs it, on n2.
	ws := []controllers.Workload{job("etl", 10*time.Minute, controllers.Job{Completions: int32p(1), Parallelism: 1, BackoffLimit: 6, Suspended: true})}
	r := runActs(t, pools, nil, ws, []act{suspendAt(time.Minute, controllers.KindJob, "etl"), unsuspendAt(2*time.Minute, controllers.KindJob, "etl")},
		controllers.WithSuspended(func(controllers.WorkloadRef) bool { t.Error("asked of a Job suspended by its spec"); return true }))
	require.NoError(t, r.err)
	require.Equal(t, []string{"2m0s PodBound etl-0 n2", "12m0s PodSucceeded etl-0"}, r.of(bound...))
	require.Equal(t, []string{"12m0s Job/etl"}, r.told)
}

func TestSuspendNoOps(t *testing.T) {
	// Unsuspending a running Job does nothing (its patch is not taken:
	// etl-1 runs on n1); suspending it twice deletes and tells once;
	// suspending it once it has completed does nothing.
	etl := controllers.WorkloadRef{Kind: controllers.KindJob, Name: "etl"}
	ws := []controllers.Workload{job("etl", 10*time.Minute, controllers.Job{Completions: int32p(2), Parallelism: 1, BackoffLimit: 6})}
	r := runActs(t, pools, nil, ws, []act{unsuspendAt(time.Minute, controllers.KindJob, "etl"),
		suspendAt(15*time.Minute, controllers.KindJob, "etl"), suspendAt(16*time.Minute, controllers.KindJob, "etl"),
		{20 * time.Minute, func(m *controllers.Manager) error { return m.Unsuspend(etl, nil) }},
		suspendAt(time.Hour, controllers.KindJob, "etl")})
	require.NoError(t, r.err)
	require.Equal(t, []string{"0s PodBound etl-0 n1", "10m0s PodSucceeded etl-0", "10m0s PodBound etl-1 n1", "15m0s PodDeleted etl-1",
		"20m0s PodBound etl-2 n1", "30m0s PodSucceeded etl-2"}, r.of(bound...))
	require.Equal(t, []string{"15m0s Job/etl", "30m0s Job/etl"}, r.told)
	require.Equal(t, []string{"etl Complete 2/0 30m0s"}, r.jobs())
}
