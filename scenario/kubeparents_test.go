package scenario

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
)

// The public samples of the kinds whose controllers run Jobs or replicas
// (testdata/kube/public-samples, each with the node set beside it and its
// README working out the pods by hand): each runs with a run time of
// 1000s a pod (the samples' own sleep), and its result is the golden
// file's. The cases check by hand what the README says: the pods' names
// and nodes, the labels the real controllers set, the gangs.
func TestPublicSamplesOfParentKinds(t *testing.T) {
	const dir = "testdata/kube/public-samples"
	for _, tt := range []struct {
		kind, sample string
		pods         map[string]string // name: node phase
		check        func(t *testing.T, sc *Scenario, res *Result)
	}{{
		kind: "jobset", sample: "exclusive-placement.yaml",
		// three Jobs of three pods, one node pool each: the leaders (index 0)
		// go to three pools, their followers to their leader's
		pods: map[string]string{
			"exclusive-placement-workers-0-0-0": "a1 Succeeded", "exclusive-placement-workers-0-1-0": "a1 Succeeded", "exclusive-placement-workers-0-2-0": "a1 Succeeded",
			"exclusive-placement-workers-1-0-0": "b1 Succeeded", "exclusive-placement-workers-1-1-0": "b1 Succeeded", "exclusive-placement-workers-1-2-0": "b1 Succeeded",
			"exclusive-placement-workers-2-0-0": "c1 Succeeded", "exclusive-placement-workers-2-1-0": "c1 Succeeded", "exclusive-placement-workers-2-2-0": "c1 Succeeded",
		},
		check: func(t *testing.T, sc *Scenario, res *Result) {
			require.Len(t, sc.Controllers, 4, "the JobSet and its three Jobs")
			require.Equal(t, "JobSet", sc.Controllers[0].Kind)
			w := sc.Controllers[2].workload
			require.Equal(t, "exclusive-placement-workers-1", w.Name)
			require.Equal(t, "cloud.google.com/gke-nodepool", w.Exclusive)
			require.Equal(t, &controllers.Job{Completions: int32p(3), Parallelism: 3, Indexed: true, BackoffLimit: 10}, w.Job)
			sum := sha1.Sum([]byte("default/exclusive-placement-workers-1"))
			for k, v := range map[string]string{
				"jobset.sigs.k8s.io/jobset-name": "exclusive-placement", "jobset.sigs.k8s.io/replicatedjob-name": "workers",
				"jobset.sigs.k8s.io/job-index": "1", "jobset.sigs.k8s.io/job-global-index": "1", "jobset.sigs.k8s.io/replicatedjob-replicas": "3",
				"jobset.sigs.k8s.io/restart-attempt": "0", "jobset.sigs.k8s.io/job-key": hex.EncodeToString(sum[:]),
				"batch.kubernetes.io/job-name": "exclusive-placement-workers-1",
			} {
				require.Equal(t, v, w.Template.Labels[k], k)
			}
			require.Equal(t, 3, w.Of.Failure.MaxRestarts)
			// the leaders arrive at 0s with the webhook's affinities, as the
			// controller gives the leaders it makes
			require.Len(t, sc.Pods, 3, "the three leaders")
			m := sc.manager()
			for _, p := range sc.Pods {
				made, ok := m.Pod(p.Pod.Key())
				require.True(t, ok)
				require.NotNil(t, p.Pod.Affinity.PodAntiAffinity)
				require.Equal(t, made.Affinity, p.Pod.Affinity, p.Pod.Name)
			}
			require.Equal(t, []WorkloadResult{{Kind: "JobSet", Name: "exclusive-placement", Status: "Completed", Reason: "AllJobsCompleted", FinishedAt: "16m40s"}}, res.Workloads)
		},
	}, {
		kind: "trainjob", sample: "04-volcano-integration.yaml",
		// numNodes 4 of the TrainJob: one Job of four pods, 1 cpu and 2Gi
		// each from resourcesPerNode, in one gang of four
		pods: map[string]string{
			"volcano-example-node-0-0-0": "n1 Succeeded", "volcano-example-node-0-1-0": "n2 Succeeded",
			"volcano-example-node-0-2-0": "n1 Succeeded", "volcano-example-node-0-3-0": "n2 Succeeded",
		},
		check: func(t *testing.T, sc *Scenario, res *Result) {
			require.Len(t, sc.PodGroups, 1)
			g := sc.PodGroups[0]
			require.Equal(t, "volcano-example", g.Name)
			require.Equal(t, int32(4), g.MinCount)
			w := sc.Controllers[1].workload
			require.Equal(t, "volcano-example", w.Template.PodGroup)
			want, err := cluster.ParseResources(map[string]string{"cpu": "1", "memory": "2Gi"})
			require.NoError(t, err)
			require.Equal(t, want, w.Template.Requests)
			require.Equal(t, int32(4), *w.Job.Completions)
			require.Equal(t, "volcano-example", w.Template.Labels["jobset.sigs.k8s.io/jobset-name"], "the JobSet is named as the TrainJob")
			require.Equal(t, "PodGroupInitiallyScheduled", res.PodGroups[0].Conditions[0].Type)
			require.Equal(t, []WorkloadResult{{Kind: "TrainJob", Name: "volcano-example", Status: "Completed", Reason: "AllJobsCompleted",
				FinishedAt: res.Workloads[0].FinishedAt}}, res.Workloads, "reported as the TrainJob, under the JobSet's rules")
		},
	}, {
		kind: "mpijob", sample: "pi.yaml",
		// two workers that serve ssh until the launcher is done; the
		// launcher Job's pod runs 1000s; cleanPodPolicy Running deletes
		// the workers then
		pods: map[string]string{"pi-worker-0": " Deleted", "pi-worker-1": " Deleted", "pi-launcher-0": "n1 Succeeded"},
		check: func(t *testing.T, sc *Scenario, res *Result) {
			require.Len(t, sc.Controllers, 3, "the MPIJob, its workers, its launcher Job")
			workers, launcher := sc.Controllers[1].workload, sc.Controllers[2].workload
			require.Nil(t, workers.RunTime, "the workers run until deleted")
			require.Equal(t, 2, workers.Replicas)
			require.Equal(t, "worker", workers.Template.Labels["training.kubeflow.org/job-role"])
			require.Equal(t, "launcher", launcher.Template.Labels["training.kubeflow.org/job-role"])
			require.Equal(t, "pi-launcher", launcher.Name)
			require.True(t, launcher.Job.ReplaceFailedOnly)
			require.Equal(t, controllers.CleanRunning, workers.Of.Clean)
			require.Equal(t, []WorkloadResult{{Kind: "MPIJob", Name: "pi", Status: "Succeeded", Reason: "MPIJobSucceeded", FinishedAt: "16m40s"}}, res.Workloads)
		},
	}, {
		kind: "pytorchjob", sample: "pytorch_job_mnist_gloo.yaml",
		// a master and a worker of one GPU each, one a GPU node
		pods: map[string]string{"pytorch-dist-mnist-gloo-master-0": "gpu1 Succeeded", "pytorch-dist-mnist-gloo-worker-0": "gpu2 Succeeded"},
		check: func(t *testing.T, sc *Scenario, res *Result) {
			master := sc.Controllers[1].workload
			require.Equal(t, "master", master.Template.Labels["training.kubeflow.org/job-role"])
			require.Equal(t, "pytorchjob-controller", master.Template.Labels["training.kubeflow.org/operator-name"])
			require.Equal(t, []string{"master"}, master.Of.SuccessTargets)
			require.Empty(t, res.Jobs, "the training operator makes pods, not Jobs")
		},
	}} {
		t.Run(tt.kind, func(t *testing.T) {
			sample, nodes := filepath.Join(dir, tt.kind, tt.sample), filepath.Join(dir, tt.kind, "nodes.yaml")
			sc, err := LoadFiles([]string{sample, nodes}, WithDefaultDuration(FixedRunTime(1000*time.Second)))
			require.NoError(t, err)
			res, err := sc.Run()
			require.NoError(t, err)
			got := map[string]string{}
			for _, p := range res.Pods {
				got[p.Name] = p.Node + " " + string(p.Phase)
			}
			require.Equal(t, tt.pods, got)
			tt.check(t, sc, res)
			out, err := res.JSON()
			require.NoError(t, err)
			golden(t, filepath.Join(dir, tt.kind, "result.json"), out)
		})
	}
}

func int32p(v int32) *int32 { return &v }

// A dump of a running JobSet holds its Jobs and their pods, and a running
// PyTorchJob its pods: the Job is read from its JobSet, once, and the
// running pods are the controllers' own, not made again.
func TestDumpsOfParentKinds(t *testing.T) {
	dump := `apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js, uid: u1}
spec:
  replicatedJobs:
  - name: w
    template: {spec: {parallelism: 2, completions: 2, template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: js-w-0, ownerReferences: [{apiVersion: jobset.x-k8s.io/v1alpha2, kind: JobSet, name: js, uid: u1, controller: true}]}
spec: {parallelism: 2, completions: 2, completionMode: Indexed, template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}}
---
apiVersion: v1
kind: Pod
metadata:
  name: js-w-0-0-abcde
  labels: {batch.kubernetes.io/job-completion-index: "0"}
  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: js-w-0, controller: true}]
spec: {nodeName: n1, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
status: {phase: Running}
---
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: pt}
spec:
  pytorchReplicaSpecs:
    Master: {replicas: 1, template: {spec: {containers: [{name: pytorch}]}}}
    Worker: {replicas: 2, template: {spec: {containers: [{name: pytorch}]}}}
---
apiVersion: v1
kind: Pod
metadata:
  name: pt-master-0
  ownerReferences: [{apiVersion: kubeflow.org/v1, kind: PyTorchJob, name: pt, controller: true}]
spec: {nodeName: n1, containers: [{name: pytorch}]}
status: {phase: Running}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", pods: "110"}}
`
	sc, err := ParseFiles([]File{{Name: "dump.yaml", Data: []byte(dump)}}, WithDefaultDuration(FixedRunTime(10*time.Minute)))
	require.NoError(t, err)
	jobs := 0
	for _, c := range sc.Controllers {
		if c.Kind == "Job" {
			jobs++
		}
	}
	require.Equal(t, 1, jobs, "the Job of the dump is its JobSet's")
	require.Contains(t, sc.Warnings[0].Detail, "made by the JobSet of the inputs")
	res, err := sc.Run()
	require.NoError(t, err)
	var names []string
	for _, p := range res.Pods {
		names = append(names, p.Name+" "+string(p.Phase))
	}
	require.Equal(t, []string{"js-w-0-1-0 Succeeded", "js-w-0-0-abcde Succeeded", "pt-worker-0 Succeeded", "pt-worker-1 Succeeded", "pt-master-0 Succeeded"}, names,
		"index 0 and the master run already: only the others are made")
}

// A JobSet whose Job fails (its pod deleted, backoffLimit 0) restarts
// under its failure policy: its Jobs are made anew, their pods named by
// the next suffix with the next restart attempt; a PyTorchJob's worker
// deleted is made again under its name, and the job succeeds with its
// master, leaving that worker running (cleanPodPolicy None).
func TestParentKindsRestartAndRemake(t *testing.T) {
	r := runObjects(t, map[string]string{"nodes.yaml": ctlNodes, "js.yaml": `apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js}
spec:
  failurePolicy: {maxRestarts: 1}
  replicatedJobs:
  - name: w
    template:
      spec:
        backoffLimit: 0
        template: {metadata: {annotations: {gangsim.io/duration: 30m}}, spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}
---
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: pt}
spec:
  pytorchReplicaSpecs:
    Master: {template: {metadata: {annotations: {gangsim.io/duration: 20m}}, spec: {containers: [{name: pytorch, resources: {requests: {cpu: "1"}}}]}}}
    Worker: {replicas: 1, template: {metadata: {annotations: {gangsim.io/duration: 20m}}, spec: {containers: [{name: pytorch, resources: {requests: {cpu: "1"}}}]}}}
`, "events.yaml": "events: [{at: 5m, deletePod: js-w-0-0-0}, {at: 10m, deletePod: pt-worker-0}]\n"})
	require.Equal(t, []string{
		"0s PodArrived default/js-w-0-0-0", "0s PodArrived default/pt-master-0", "0s PodArrived default/pt-worker-0",
		"5m0s PodDeleted default/js-w-0-0-0", "5m0s PodArrived default/js-w-0-0-1",
		"10m0s PodDeleted default/pt-worker-0", "10m0s PodArrived default/pt-worker-0",
		"20m0s PodSucceeded default/pt-master-0", "30m0s PodSucceeded default/pt-worker-0", "35m0s PodSucceeded default/js-w-0-0-1",
	}, r.named("PodArrived", "PodSucceeded", "PodDeleted"))
	require.Equal(t, []WorkloadResult{
		{Kind: "JobSet", Name: "js", Status: "Completed", Reason: "AllJobsCompleted", Restarts: 1, FinishedAt: "35m0s"},
		{Kind: "PyTorchJob", Name: "pt", Status: "Succeeded", Reason: "PyTorchJobSucceeded", FinishedAt: "20m0s"},
	}, r.res.Workloads)
	require.Equal(t, JobResult{Name: "js-w-0", Status: "Complete", Succeeded: 1, FinishedAt: "35m0s"}, r.job("js-w-0"))
	p, ok := r.sc.Controllers[1].workload, true
	require.True(t, ok)
	require.Equal(t, "js-w-0", p.Name)
}

// The gangs the operators make for scheduler-plugins' Coscheduling: a
// TrainJob's runtime with podGroupPolicy coscheduling, an MPIJob with a
// schedulingPolicy. Their pods, made at time 0 or later, are labelled for
// the PodGroup and join it; a gang that cannot be whole waits.
func TestCoschedulingGangsOfParentKinds(t *testing.T) {
	r := runObjects(t, map[string]string{"nodes.yaml": ctlNodes, "tj.yaml": `apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata: {name: rt, namespace: ml}
spec:
  mlPolicy: {numNodes: 1, torch: {}}
  podGroupPolicy: {coscheduling: {scheduleTimeoutSeconds: 60}}
  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
          spec: {template: {spec: {containers: [{name: node, resources: {requests: {cpu: "1"}}}]}}}
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: tj, namespace: ml}
spec:
  runtimeRef: {kind: TrainingRuntime, name: rt}
  trainer: {numNodes: 3, resourcesPerNode: {requests: {cpu: "2"}}}
---
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: big}
spec:
  runPolicy: {schedulingPolicy: {}}
  mpiReplicaSpecs:
    Launcher: {template: {spec: {containers: [{name: l, resources: {requests: {cpu: "1"}}}]}}}
    Worker: {replicas: 8, template: {spec: {containers: [{name: w, resources: {requests: {cpu: "1"}}}]}}}
`}, WithDefaultDuration(FixedRunTime(10*time.Minute)))
	groups := map[string]int32{}
	for _, g := range r.sc.PodGroups {
		groups[g.Namespace+"/"+g.Name] = g.MinCount
	}
	require.Equal(t, map[string]int32{"ml/tj": 3, "default/big": 9}, groups)
	for _, p := range r.sc.Pods {
		want := "tj"
		if p.Pod.Namespace == "default" {
			want = "big"
		}
		require.Equal(t, want, p.Pod.PodGroup, p.Pod.Name)
		require.Equal(t, want, p.Pod.Labels["scheduling.x-k8s.io/pod-group"], p.Pod.Name)
	}
	ph := r.phases()
	for _, name := range []string{"ml/tj-node-0-0-0", "ml/tj-node-0-1-0", "ml/tj-node-0-2-0"} {
		require.Equal(t, "Succeeded n1", ph[name], "6 cpu of 8: the gang of three fits")
	}
	require.Equal(t, "Pending ", ph["big-launcher-0"], "nine cpu: the gang never fits, and waits whole")
	require.Equal(t, "Pending ", ph["big-worker-7"])
}

// A PyTorchJob without a Master: the training operator (v1.8, v1.9)
// takes worker 0 for its master and labels it job-role master, at once
// and when it makes the pod again; no other worker has the label.
func TestPyTorchJobWithoutMasterLabelsWorkerZero(t *testing.T) {
	files := map[string]string{"nodes.yaml": ctlNodes, "pt.yaml": `apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: pt}
spec:
  pytorchReplicaSpecs:
    Worker: {replicas: 2, template: {metadata: {annotations: {gangsim.io/duration: 20m}}, spec: {containers: [{name: pytorch, resources: {requests: {cpu: "1"}}}]}}}
`, "events.yaml": "events: [{at: 5m, deletePod: pt-worker-0}, {at: 6m, deletePod: pt-worker-1}]\n"}
	var in []File
	for _, name := range []string{"events.yaml", "nodes.yaml", "pt.yaml"} {
		in = append(in, File{Name: name, Data: []byte(files[name])})
	}
	sc, err := ParseFiles(in)
	require.NoError(t, err)
	var arrived []string
	_, err = sc.Run(gangsim.WithObserver(func(e gangsim.Event) {
		if e.Kind == gangsim.EventPodArrived {
			arrived = append(arrived, fmt.Sprintf("%v %s %q", e.At, e.Pod.Pod().Name, e.Pod.Pod().Labels["training.kubeflow.org/job-role"]))
		}
	}))
	require.NoError(t, err)
	require.Equal(t, []string{`0s pt-worker-0 "master"`, `0s pt-worker-1 ""`, `5m0s pt-worker-0 "master"`, `6m0s pt-worker-1 ""`}, arrived)
}
