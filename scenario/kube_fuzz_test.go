package scenario

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzKubeObjects: any input is Kubernetes objects, a scenario, or an
// error wrapping ErrScenario, never a panic; what loads also runs, as
// FuzzParse checks it. The seeds are the kubectl dumps and the bad files
// of testdata/kube (device objects among them), and its samples of other
// schedulers' formats (scheduler-plugins and Kueue gangs, configurations
// in ConfigMaps, GPU sharing), and the public samples of the kinds that
// run Jobs or replicas (JobSet, TrainJob, MPIJob, PyTorchJob), and a Kueue
// Workload.
func FuzzKubeObjects(f *testing.F) {
	for _, pattern := range []string{"testdata/kube/*.json", "testdata/kube/*.yaml", "testdata/kube/bad/*", "testdata/kube/samples/*",
		"testdata/kube/public-samples/*/*.yaml"} {
		files, _ := filepath.Glob(pattern)
		for _, name := range files {
			if data, err := os.ReadFile(name); err == nil {
				f.Add(data)
			}
		}
	}
	for _, seed := range kubeObjectSeeds {
		f.Add([]byte(seed))
	}
	// Kueue's public samples
	if files, _ := filepath.Glob("testdata/kube/public/kueue/*.yaml"); len(files) > 0 {
		for _, name := range files {
			if data, err := os.ReadFile(name); err == nil {
				f.Add(data)
			}
		}
	}
	// every seed as kubectl's JSON List too, which is read item by item
	for _, pattern := range []string{"testdata/kube/*.yaml", "testdata/kube/bad/*.yaml", "testdata/kube/samples/*", "testdata/kube/public-samples/*/*.yaml"} {
		files, _ := filepath.Glob(pattern)
		for _, name := range files {
			if data, err := os.ReadFile(name); err == nil {
				if list, ok := asKubectlList(f, data); ok {
					f.Add(list)
				}
			}
		}
	}
	if dump, err := os.ReadFile("testdata/kube/cluster.json"); err == nil {
		if list, ok := asKubectlYAMLList(f, dump); ok {
			f.Add(list)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkKubeInput(t, data, nil) })
}

// kubeObjectSeeds are FuzzKubeObjects' own seeds, beside the files of
// testdata/kube; the kinds' targets (kindfuzz_test.go) take those of
// their kinds.
var kubeObjectSeeds = []string{
	`{"apiVersion": "v1", "kind": "PodList", "items": [{"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}}]}`,
	"apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d}\nspec: {selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c}]}}}\n" +
		"---\napiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: \"1\"}}\n",
	"apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\nspec: {devices: {requests: [{name: r, exactly: {deviceClassName: g, capacity: {requests: {mem: 1Gi}}}}]}}\n" +
		"---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec: {driver: d, allNodes: true, pool: {name: p, resourceSliceCount: 1}, devices: [{name: d0, attributes: {m: {int: 1}}, capacity: {mem: {value: 2Gi}}}]}\n" +
		"---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, resources: {claims: [{name: g}]}}], resourceClaims: [{name: g, resourceClaimName: c}]}\n",
	`{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "s"}, "data": {"c": "kind: KubeSchedulerConfiguration\napiVersion: kubescheduler.config.k8s.io/v1\nprofiles: [{pluginConfig: [{name: NodeResourcesFit, args: {scoringStrategy: {type: RequestedToCapacityRatio, requestedToCapacityRatio: {shape: [{utilization: 0, score: 0}]}}}}]}]\n"}}`,
	"apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {kueue.x-k8s.io/pod-group-name: g}, annotations: {kueue.x-k8s.io/pod-group-total-count: \"2\", kueue.x-k8s.io/podset-required-topology: rack}}\n" +
		"spec: {containers: [{name: c}]}\n---\napiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: g2}\nspec: {minMember: 2}\n",
	"apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w, ownerReferences: [{kind: Job, name: j, controller: true}]}\n" +
		"spec: {podSets: [{name: a, count: 2, minCount: 1, topologyRequest: {required: rack, podIndexLabel: x/i}, template: {spec: {containers: [{name: c}]}}}, " +
		"{count: 1, topologyRequest: {preferred: block}, template: {metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: rack}}, spec: {containers: [{name: c}]}}}]}\n" +
		"status: {conditions: [{type: Finished, status: \"False\"}], admission: {clusterQueue: cq}}\n",
	// a dump's Workloads with Kueue running: one admitted, one pending
	"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f}\n---\n" +
		"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\nspec: {resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: 2}]}]}]}\n---\n" +
		"apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lq}\nspec: {clusterQueue: cq}\n---\n" +
		"apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: a}\nspec: {queueName: lq, podSets: [{count: 2, template: {spec: {containers: [{name: c, resources: {requests: {cpu: 1}}}]}}}]}\n" +
		"status: {conditions: [{type: QuotaReserved, status: \"True\"}], admission: {clusterQueue: cq, podSetAssignments: [{name: main, count: 1, flavors: {cpu: f}}]}}\n---\n" +
		"apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: b}\nspec: {queueName: lq, podSets: [{template: {spec: {containers: [{name: c}]}}}]}\n---\n" +
		"apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: \"2\"}}\n",
	"apiVersion: v1\nkind: Pod\nmetadata: {generateName: web-}\nspec: {containers: [{name: c}]}\n---\n" +
		"apiVersion: v1\nkind: Pod\nmetadata: {name: web-0}\nspec: {containers: [{name: c}]}\n---\n" +
		"apiVersion: batch/v1\nkind: Job\nmetadata: {generateName: pi-}\nspec: {template: {spec: {containers: [{name: c}]}}}\n",
	"apiVersion: v1\nkind: Pod\nmetadata: {name: g}\nspec: {schedulingGates: [{name: example.com/a}, {name: b}], containers: [{name: c}]}\n---\n" +
		"apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: r}\nspec: {selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: {schedulingGates: [{name: w}], containers: [{name: c}]}}}\n",
	"apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q}\nspec: {hard: {requests.cpu: \"2\", limits.memory: 1Gi, pods: \"3\", count/pods: \"4\"}, " +
		"scopeSelector: {matchExpressions: [{scopeName: PriorityClass, operator: NotIn, values: [low]}]}}\n---\n" +
		"apiVersion: v1\nkind: LimitRange\nmetadata: {name: l}\nspec: {limits: [{type: Container, default: {memory: 256Mi}, defaultRequest: {cpu: 100m}, max: {cpu: \"1\"}, maxLimitRequestRatio: {cpu: \"4\"}}, {type: Pod, max: {cpu: \"2\"}}]}\n---\n" +
		"apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: \"4\"}}\n---\n" +
		"apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: r}\nspec: {replicas: 5, selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, resources: {requests: {cpu: 500m}}}], initContainers: [{name: i}]}}}\n",
	// controllers with run times, whose runs make pods
	"apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {completions: 4, parallelism: 2, completionMode: Indexed, backoffLimit: 1,\n" +
		"  template: {metadata: {annotations: {gangsim.io/duration: 10m}}, spec: {containers: [{name: c, resources: {requests: {cpu: 1}}}]}}}\n" +
		"---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: s}\nspec: {replicas: 2, podManagementPolicy: Parallel, selector: {matchLabels: {a: b}},\n" +
		"  template: {metadata: {labels: {a: b}, annotations: {gangsim.io/duration: 5m}}, spec: {containers: [{name: c}]}}}\n" +
		"---\napiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: \"1\"}}\n",
	// the scheduling.k8s.io Workload and PodGroup of each version a
	// cluster of v1.35 to v1.37 serves (kubeversions_test.go)
	workloadV1alpha1, podGroupV1alpha2, workloadV1alpha3, workloadV1beta1,
	// a seed for each kind that runs Jobs or replicas, with its rules
	"apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: js, annotations: {alpha.jobset.sigs.k8s.io/exclusive-topology: zone}}\n" +
		"spec: {successPolicy: {operator: Any, targetReplicatedJobs: [w]}, failurePolicy: {maxRestarts: 2, rules: [{name: r, action: RestartJobSet, onJobFailureReasons: [DeadlineExceeded]}]},\n" +
		"  replicatedJobs: [{name: init, template: {spec: {template: {spec: {containers: [{name: c}]}}}}},\n" +
		"    {name: w, replicas: 2, dependsOn: [{name: init, status: Complete}], template: {spec: {parallelism: 2, completions: 2, activeDeadlineSeconds: 60,\n" +
		"      template: {metadata: {annotations: {gangsim.io/duration: 2m}}, spec: {containers: [{name: c, resources: {requests: {cpu: 1}}}]}}}}}]}\n" +
		"---\napiVersion: v1\nkind: Node\nmetadata: {name: n, labels: {zone: a}}\nstatus: {allocatable: {cpu: \"2\"}}\n",
	"apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainingRuntime\nmetadata: {name: rt}\n" +
		"spec: {mlPolicy: {numNodes: 2, torch: {}}, podGroupPolicy: {coscheduling: {scheduleTimeoutSeconds: 60}}, template: {spec: {startupPolicy: {startupPolicyOrder: InOrder},\n" +
		"  replicatedJobs: [{name: node, template: {metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}, spec: {template: {spec: {containers: [{name: node}]}}}}}]}}}\n" +
		"---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: tj}\nspec: {runtimeRef: {kind: TrainingRuntime, name: rt}, trainer: {numNodes: 3, resourcesPerNode: {requests: {cpu: 1}}}}\n",
	"apiVersion: kubeflow.org/v2beta1\nkind: MPIJob\nmetadata: {name: m}\nspec: {launcherCreationPolicy: WaitForWorkersReady, runPolicy: {cleanPodPolicy: All, schedulingPolicy: {minAvailable: 2}},\n" +
		"  mpiReplicaSpecs: {Launcher: {template: {spec: {containers: [{name: l}]}}}, Worker: {replicas: 2, template: {spec: {containers: [{name: w}]}}}}}\n" +
		"---\napiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: p}\nspec: {runPolicy: {schedulingPolicy: {}}, pytorchReplicaSpecs: {Master: {replicas: 1, template: {spec: {schedulerName: volcano, containers: [{name: pytorch}]}}},\n" +
		"  Worker: {replicas: 2, restartPolicy: Never, template: {spec: {containers: [{name: pytorch}]}}}}}\n",
	// the kinds whose controllers keep lists of pods: a LeaderWorkerSet of
	// subgroups and LeaderReady, a RayJob with its cluster and gang, a
	// Volcano Job with policies and minSuccess
	"apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata: {name: l, annotations: {leaderworkerset.sigs.k8s.io/exclusive-topology: rack, " +
		"leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology: kubernetes.io/hostname}}\n" +
		"spec: {replicas: 2, startupPolicy: LeaderReady, leaderWorkerTemplate: {size: 5, restartPolicy: None, subGroupPolicy: {subGroupSize: 2},\n" +
		"  leaderTemplate: {metadata: {annotations: {gangsim.io/duration: 5m}}, spec: {schedulerName: volcano, containers: [{name: c, resources: {requests: {cpu: 1}}}]}},\n" +
		"  workerTemplate: {spec: {containers: [{name: c, resources: {requests: {cpu: 1}}}]}}}}\n" +
		"---\napiVersion: v1\nkind: Node\nmetadata: {name: n, labels: {rack: r1}}\nstatus: {allocatable: {cpu: \"4\"}}\n",
	"apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: j, labels: {ray.io/gang-scheduling-enabled: \"true\"}}\nspec: {shutdownAfterJobFinishes: true,\n" +
		"  submitterPodTemplate: {metadata: {annotations: {gangsim.io/duration: 10m}}, spec: {containers: [{name: s}]}},\n" +
		"  rayClusterSpec: {headGroupSpec: {rayStartParams: {}, template: {spec: {containers: [{name: h, resources: {requests: {cpu: 1}}}]}}},\n" +
		"    workerGroupSpecs: [{groupName: g, replicas: 3, minReplicas: 1, maxReplicas: 2, numOfHosts: 2, rayStartParams: {}, template: {spec: {containers: [{name: w}]}}}]}}\n" +
		"---\napiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: \"4\"}}\n",
	"apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: v, uid: u1}\nspec: {minAvailable: 2, minSuccess: 2, maxRetry: 2, policies: [{event: PodEvicted, action: RestartJob}],\n" +
		"  tasks: [{name: ps, replicas: 1, policies: [{event: TaskCompleted, action: CompleteJob}], template: {metadata: {annotations: {gangsim.io/duration: 1m}}, spec: {containers: [{name: c}]}}},\n" +
		"    {replicas: 2, minAvailable: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: 1}}}]}}}]}\n" +
		"---\napiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: \"1\"}}\n",
	// kinds that make pods, skipped and counted (their specs read loosely)
	skippedKinds,
	"apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: r}\nspec: {rayClusterSpec: {workerGroupSpecs: [{replicas: x, numOfHosts: [1]}]}, submissionMode: HTTPMode}\n",
	// an admission section, and a GKE node that turns the admission on
	"admission: {extendedResourceToleration: true}\nnodes: [{name: n, labels: {cloud.google.com/gke-nodepool: p}, allocatable: {cpu: \"1\"}}]\n",
	// Kueue's Configuration and a Cohort
	"apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nwaitForPodsReady: {timeout: 10m, requeuingStrategy: {timestamp: Eviction, backoffLimitCount: 5}}\n" +
		"admissionFairSharing: {usageHalfLifeTime: 168h, usageSamplingInterval: 5m, resourceWeights: {cpu: 1}}\nfairSharing: {preemptionStrategies: [LessThanOrEqualToFinalShare]}\n" +
		"---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: Cohort\nmetadata: {name: all}\nspec: {resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: 4, lendingLimit: 9}]}]}]}\n",
	// admission fair sharing: a usage-based ClusterQueue and its weighted LocalQueue
	"apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nadmissionFairSharing: {usageHalfLifeTime: 1h}\n" +
		"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\nspec: {admissionScope: {admissionMode: UsageBasedAdmissionFairSharing}}\n" +
		"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: l, namespace: ns}\nspec: {clusterQueue: cq, fairSharing: {weight: 500m}}\n",
}

// checkByItemAsWhole checks that a file read with its List item by item
// (JSON, or YAML as kubectl lays it out) loads as the whole file does: the
// same scenario, or the same error.
func checkByItemAsWhole(t *testing.T, data []byte, sc *Scenario, err error) {
	t.Helper()
	readListsByItem = false
	whole, wholeErr := ParseFiles([]File{{Name: "fuzz", Data: data}}, fuzzLimits)
	readListsByItem = true
	if err != nil || wholeErr != nil {
		require.Equal(t, fmt.Sprint(wholeErr), fmt.Sprint(err))
		return
	}
	a, _ := json.Marshal(sc)
	b, _ := json.Marshal(whole)
	require.Equal(t, string(b), string(a))
}
