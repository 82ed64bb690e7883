package scenario

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// The workload kinds' rules as their controllers' own tests pin them,
// from the objects a user writes: each row is a JobSet, an MPIJob or a
// LeaderWorkerSet read by the importer, with scenario events deleting
// pods (the simulator's way for a pod to fail), and what the controller
// then does. Each row names the upstream test case it ports; the
// controller-level ports, and the rows left out and why, are in package
// controllers (ported_*_test.go).

// replicatedJob is a replicated job of replicas Jobs of pods 1-cpu pods
// that run d, with backoffLimit 0 and extra fields (dependsOn).
func replicatedJob(name string, replicas, pods int, d, extra string) string {
	return fmt.Sprintf(`  - name: %s
    replicas: %d
    %s
    template:
      spec:
        parallelism: %d
        completions: %d
        backoffLimit: 0
        template: {metadata: {annotations: {gangsim.io/duration: %s}}, spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}
`, name, replicas, extra, pods, pods, d)
}

// jobSetDoc is a JobSet "js" of the spec fields given and replicated jobs.
func jobSetDoc(spec string, rjs ...string) string {
	doc := "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: js}\nspec:\n" + spec + "  replicatedJobs:\n"
	for _, rj := range rjs {
		doc += rj
	}
	return doc
}

func TestPortedJobSetObjects(t *testing.T) {
	leader := replicatedJob("leader", 1, 1, "1h", "")
	workers := replicatedJob("workers", 2, 2, "1h", "")
	rule := "  failurePolicy:\n    maxRestarts: 1\n    rules:\n    - {name: r, action: FailJobSet, onJobFailureReasons: [BackoffLimitExceeded], targetReplicatedJobs: [leader]}\n"
	for _, tt := range []struct {
		name   string // JobSet's case
		doc    string
		events string
		want   WorkloadResult
		first  map[string]string // pod: when it first arrived ("" never)
	}{{
		name: "TestFailurePolicyRuleIsApplicable: the rule matches the parent replicatedJob and the reason",
		doc:  jobSetDoc(rule, leader, workers), events: "{at: 5m, deletePod: js-leader-0-0-0}",
		want: WorkloadResult{Kind: "JobSet", Name: "js", Status: "Failed", Reason: "FailJobSetFailurePolicyAction", FinishedAt: "5m0s"},
	}, {
		name: "TestFailurePolicyRuleIsApplicable: the rule does not match the parent replicatedJob (RestartJobSet by default)",
		doc:  jobSetDoc(rule, leader, workers), events: "{at: 5m, deletePod: js-workers-1-1-0}",
		want:  WorkloadResult{Kind: "JobSet", Name: "js", Status: "Completed", Reason: "AllJobsCompleted", Restarts: 1, FinishedAt: "1h5m0s"},
		first: map[string]string{"js-leader-0-0-1": "5m0s"},
	}, {
		name:   "TestApplyFailurePolicyRuleAction: RestartJobSetAndIgnoreMaxRestarts does not count toward max restarts",
		doc:    jobSetDoc("  failurePolicy:\n    maxRestarts: 0\n    rules:\n    - {name: r, action: RestartJobSetAndIgnoreMaxRestarts}\n", leader, workers),
		events: "{at: 5m, deletePod: js-leader-0-0-0}",
		want:   WorkloadResult{Kind: "JobSet", Name: "js", Status: "Completed", Reason: "AllJobsCompleted", Restarts: 1, FinishedAt: "1h5m0s"},
	}, {
		name:   "TestApplyFailurePolicyRuleAction: RestartJobSet action when restarts >= maxRestarts fails the jobset",
		doc:    jobSetDoc("  failurePolicy: {maxRestarts: 0}\n", leader, workers),
		events: "{at: 5m, deletePod: js-workers-0-1-0}",
		want:   WorkloadResult{Kind: "JobSet", Name: "js", Status: "Failed", Reason: "ReachedMaxRestarts", FinishedAt: "5m0s"},
	}, {
		name: "TestNumJobsMatchingSuccessPolicy: Any of the leader's Jobs completes the JobSet",
		doc:  jobSetDoc("  successPolicy: {operator: Any, targetReplicatedJobs: [leader]}\n", replicatedJob("leader", 1, 1, "10m", ""), workers),
		want: WorkloadResult{Kind: "JobSet", Name: "js", Status: "Completed", Reason: "AllJobsCompleted", FinishedAt: "10m0s"},
	}, {
		name: "TestNumJobsExpectedToSucceed: All of the targets (the workers' 2 Jobs), the others deleted",
		doc:  jobSetDoc("  successPolicy: {operator: All, targetReplicatedJobs: [workers]}\n", leader, replicatedJob("workers", 2, 2, "20m", "")),
		want: WorkloadResult{Kind: "JobSet", Name: "js", Status: "Completed", Reason: "AllJobsCompleted", FinishedAt: "20m0s"},
	}, {
		name:  "TestDependencyReachedStatus: depends on ReplicatedJob reaches complete status",
		doc:   jobSetDoc("", replicatedJob("leader", 1, 1, "10m", ""), replicatedJob("workers", 2, 2, "1h", "dependsOn: [{name: leader, status: Complete}]")),
		want:  WorkloadResult{Kind: "JobSet", Name: "js", Status: "Completed", Reason: "AllJobsCompleted", FinishedAt: "1h10m0s"},
		first: map[string]string{"js-leader-0-0-0": "0s", "js-workers-0-0-0": "10m0s", "js-workers-1-1-0": "10m0s"},
	}, {
		// the leader's 9 pods on 8 cpus: its Job is ready at 10m, when
		// the ninth is bound
		name:  "TestReplicatedJobStarted: InOrder, the next replicated job waits until all Jobs are ready",
		doc:   jobSetDoc("  startupPolicy: {startupPolicyOrder: InOrder}\n", replicatedJob("leader", 1, 9, "10m", ""), workers),
		want:  WorkloadResult{Kind: "JobSet", Name: "js", Status: "Completed", Reason: "AllJobsCompleted", FinishedAt: "1h10m0s"},
		first: map[string]string{"js-leader-0-8-0": "0s", "js-workers-0-0-0": "10m0s", "js-workers-1-1-0": "10m0s"},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"nodes.yaml": ctlNodes, "js.yaml": tt.doc}
			if tt.events != "" {
				files["events.yaml"] = "events: [" + tt.events + "]\n"
			}
			r := runObjects(t, files)
			require.Equal(t, []WorkloadResult{tt.want}, r.res.Workloads)
			arrived := map[string]string{} // pod key: when it first arrived
			for _, e := range r.named("PodArrived") {
				var at, kind, pod string
				_, _ = fmt.Sscan(e, &at, &kind, &pod)
				if _, ok := arrived[pod]; !ok {
					arrived[pod] = at
				}
			}
			for pod, at := range tt.first {
				require.Equal(t, at, arrived["default/"+pod], pod)
			}
		})
	}
}

func TestPortedMPIJobObjects(t *testing.T) {
	mpi := func(spec string, workerCPU, launcherD string) string {
		return fmt.Sprintf(`apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: mpi}
spec:
%s  mpiReplicaSpecs:
    Launcher: {template: {metadata: {annotations: {gangsim.io/duration: %s}}, spec: {containers: [{name: l, resources: {requests: {cpu: "1"}}}]}}}
    Worker: {replicas: 2, template: {metadata: {annotations: {gangsim.io/duration: 2h}}, spec: {containers: [{name: w, resources: {requests: {cpu: "%s"}}}]}}}
`, spec, launcherD, workerCPU)
	}
	for _, tt := range []struct {
		name   string // mpi-operator's case
		doc    string
		events string
		want   WorkloadResult
		phases map[string]string // pod: phase and node at the end ("" for a pod never made)
	}{{
		name: "TestAllResourcesCreated: the workers and the launcher at once (AtStartup)",
		doc:  mpi("", "1", "10m"),
		want: WorkloadResult{Kind: "MPIJob", Name: "mpi", Status: "Succeeded", Reason: "MPIJobSucceeded", FinishedAt: "10m0s"},
		// cleanPodPolicy None by default: the workers run on
		phases: map[string]string{"mpi-launcher-0": "Succeeded n1", "mpi-worker-0": "Succeeded n1", "mpi-worker-1": "Succeeded n1"},
	}, {
		// 5-cpu workers: the second is bound when the first ends, at 2h,
		// and the launcher is made then
		name:   "TestLauncherActiveWorkerNotReady: WaitForWorkersReady holds the launcher while a worker is not ready",
		doc:    mpi("  launcherCreationPolicy: WaitForWorkersReady\n", "5", "10m"),
		want:   WorkloadResult{Kind: "MPIJob", Name: "mpi", Status: "Succeeded", Reason: "MPIJobSucceeded", FinishedAt: "2h10m0s"},
		phases: map[string]string{"mpi-worker-0": "Succeeded n1", "mpi-worker-1": "Succeeded n1", "mpi-launcher-0": "Succeeded n1"},
	}, {
		name:   "TestShutdownWorker: the launcher done, cleanPodPolicy Running deletes the workers",
		doc:    mpi("  runPolicy: {cleanPodPolicy: Running}\n", "1", "10m"),
		want:   WorkloadResult{Kind: "MPIJob", Name: "mpi", Status: "Succeeded", Reason: "MPIJobSucceeded", FinishedAt: "10m0s"},
		phases: map[string]string{"mpi-launcher-0": "Succeeded n1", "mpi-worker-0": "Deleted ", "mpi-worker-1": "Deleted "},
	}, {
		name:   "TestLauncherFailed: the launcher Job past its backoff limit fails the MPIJob",
		doc:    mpi("  runPolicy: {backoffLimit: 0, cleanPodPolicy: All}\n", "1", "1h"),
		events: "{at: 5m, deletePod: mpi-launcher-0}",
		want:   WorkloadResult{Kind: "MPIJob", Name: "mpi", Status: "Failed", Reason: "MPIJobFailed", FinishedAt: "5m0s"},
		phases: map[string]string{"mpi-launcher-0": "Failed ", "mpi-worker-0": "Deleted ", "mpi-worker-1": "Deleted "},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"nodes.yaml": ctlNodes, "mpi.yaml": tt.doc}
			if tt.events != "" {
				files["events.yaml"] = "events: [" + tt.events + "]\n"
			}
			r := runObjects(t, files)
			require.Equal(t, []WorkloadResult{tt.want}, r.res.Workloads)
			ph := r.phases()
			for pod, want := range tt.phases {
				require.Equal(t, want, ph[pod], pod)
			}
		})
	}
}

func TestPortedLeaderWorkerSetObjects(t *testing.T) {
	lws := func(restart string) string {
		return `apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: l}
spec:
  replicas: 2
  leaderWorkerTemplate:
    size: 2
` + restart + `    workerTemplate: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}
`
	}
	for _, tt := range []struct {
		name string // LWS's rule
		doc  string
		want []string
	}{{
		name: "handleRestartPolicy: RecreateGroupOnPodRestart (the default), a worker deleted deletes its leader",
		doc:  lws(""),
		want: []string{"0s PodArrived default/l-0", "0s PodArrived default/l-0-1", "0s PodArrived default/l-1", "0s PodArrived default/l-1-1",
			"5m0s PodDeleted default/l-1-1", "5m0s PodDeleted default/l-1", "5m0s PodArrived default/l-1", "5m0s PodArrived default/l-1-1"},
	}, {
		name: "handleRestartPolicy: restartPolicy None, the worker alone is made again",
		doc:  lws("    restartPolicy: None\n"),
		want: []string{"0s PodArrived default/l-0", "0s PodArrived default/l-0-1", "0s PodArrived default/l-1", "0s PodArrived default/l-1-1",
			"5m0s PodDeleted default/l-1-1", "5m0s PodArrived default/l-1-1"},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			r := runObjects(t, map[string]string{"nodes.yaml": ctlNodes, "lws.yaml": tt.doc,
				"events.yaml": "events: [{at: 5m, deletePod: l-1-1}]\n"})
			require.Equal(t, tt.want, r.named("PodArrived", "PodDeleted"))
		})
	}
}
