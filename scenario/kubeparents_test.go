package scenario

import (
	"crypto/sha1"
	"encoding/hex"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

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
