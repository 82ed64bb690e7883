package scenario

import (
	"slices"
	"strings"
	"testing"

	"github.com/gangsim/gangsim"
	"github.com/stretchr/testify/require"
)

// The pod templates of the kinds whose operators make the pods go through
// the pass a Deployment's template goes through: a scheduler-plugins
// label joins its PodGroup (the pods made at once and those made later),
// another scheduler's or a GPU sharer's key is warned at the template's
// own path, as on a Deployment. A pod in its operator's gang already (a
// Volcano Job's) keeps it, and the label is warned.
func TestOperatorTemplatesReadAsDeployments(t *testing.T) {
	const tmpl = `{metadata: {labels: {scheduling.x-k8s.io/pod-group: pg}, annotations: {hami.io/gpu-scheduler-policy: spread}},
    spec: {containers: [{name: c, resources: {requests: {cpu: "1", nvidia.com/gpucores: "30"}, limits: {nvidia.com/gpucores: "30"}}}]}}`
	const pg = "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: pg}\nspec: {minMember: 1}\n---\n"
	for _, tt := range []struct {
		kind, doc, meta string
		group           string   // every pod's gang
		also            []string // further warnings, kind and field
	}{{
		kind: "Deployment", meta: "spec.template.metadata", group: "pg",
		doc: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: 2, selector: {matchLabels: {a: b}}, template: " +
			strings.Replace(tmpl, "{labels: {", "{labels: {a: b, ", 1) + "}\n",
	}, {
		kind: "LeaderWorkerSet", meta: "spec.leaderWorkerTemplate.workerTemplate.metadata", group: "pg",
		doc: "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata: {name: l}\nspec: {leaderWorkerTemplate: {size: 2, workerTemplate: " + tmpl + "}}\n",
	}, {
		kind: "RayCluster", meta: "spec.headGroupSpec.template.metadata", group: "pg",
		doc: "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: rc}\nspec: {headGroupSpec: {rayStartParams: {}, template: " + tmpl + "}}\n",
	}, {
		kind: "RayJob", meta: "spec.rayClusterSpec.headGroupSpec.template.metadata", group: "pg",
		doc: "apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: rj}\nspec: {submissionMode: HTTPMode, rayClusterSpec: {headGroupSpec: {rayStartParams: {}, template: " + tmpl + "}}}\n",
	}, {
		kind: "Job", meta: "spec.tasks[0].template.metadata", group: "vj-0",
		doc:  "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: vj}\nspec: {tasks: [{replicas: 2, template: " + tmpl + "}]}\n",
		also: []string{"Job spec.minAvailable", "Job spec.tasks[0].template.metadata.labels[scheduling.x-k8s.io/pod-group]"},
	}, {
		kind: "JobSet", meta: "spec.replicatedJobs[0].template.spec.template.metadata", group: "pg",
		doc: "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: js}\nspec: {replicatedJobs: [{name: w, template: {spec: {parallelism: 2, completions: 2, template: " + tmpl + "}}}]}\n",
	}, {
		kind: "PyTorchJob", meta: "spec.pytorchReplicaSpecs.Worker.template.metadata", group: "pg",
		doc: "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: pt}\nspec: {pytorchReplicaSpecs: {Worker: {replicas: 2, template: " + strings.Replace(tmpl, "name: c", "name: pytorch", 1) + "}}}\n",
	}} {
		t.Run(tt.kind, func(t *testing.T) {
			sc, err := ParseFiles([]File{{Name: "w.yaml", Data: []byte(pg + tt.doc)}})
			require.NoError(t, err)
			var warned []string
			for _, w := range sc.Warnings {
				warned = append(warned, w.Kind+" "+w.Field)
			}
			want := append([]string{tt.kind + " " + tt.meta + ".annotations[hami.io/gpu-scheduler-policy]"}, tt.also...)
			for _, w := range want {
				require.Contains(t, warned, w)
			}
			require.True(t, slices.ContainsFunc(warned, func(w string) bool {
				return strings.HasPrefix(w, tt.kind+" ") && strings.HasSuffix(w, "resources[nvidia.com/gpucores]")
			}), "the GPU share is warned: %v", warned)
			require.NotEmpty(t, sc.Pods)
			for _, p := range sc.Pods {
				require.Equal(t, tt.group, p.Pod.PodGroup, p.Pod.Name)
			}
		})
	}
}

// Pods an operator makes later, from a template whose label names a
// PodGroup of the inputs, join it as those made at once do: a
// LeaderWorkerSet's workers made once their leader is bound (LeaderReady).
func TestOperatorPodsMadeLaterJoinTheLabelledGroup(t *testing.T) {
	doc := "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: pg}\nspec: {minMember: 1}\n---\n" +
		"apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata: {name: l}\n" +
		"spec: {startupPolicy: LeaderReady, leaderWorkerTemplate: {size: 3, workerTemplate: {metadata: {labels: {scheduling.x-k8s.io/pod-group: pg}}, " +
		"spec: {containers: [{name: c, resources: {requests: {cpu: \"1\"}}}]}}}}\n---\n" +
		"apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: \"8\", memory: 8Gi, pods: \"110\"}}\n"
	sc, err := ParseFiles([]File{{Name: "w.yaml", Data: []byte(doc)}})
	require.NoError(t, err)
	var arrived []string
	_, err = sc.Run(gangsim.WithObserver(func(e gangsim.Event) {
		if e.Kind == gangsim.EventPodArrived {
			arrived = append(arrived, e.Pod.Pod().Name+" "+e.Pod.Pod().PodGroup)
		}
	}))
	require.NoError(t, err)
	require.Equal(t, []string{"l-0 pg", "l-0-1 pg", "l-0-2 pg"}, arrived)
}

// A RayCluster with KubeRay's gang label and nothing that names the
// batch scheduler (KubeRay's is an operator flag): the head and workers
// are a gang, and the warning names the scheduler assumed.
func TestRayGangLabelWithoutSchedulerAssumesCoscheduling(t *testing.T) {
	doc := "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: rc, labels: {ray.io/gang-scheduling-enabled: \"true\"}}\n" +
		"spec: {headGroupSpec: {rayStartParams: {}, template: {spec: {containers: [{name: h}]}}},\n" +
		"  workerGroupSpecs: [{groupName: w, replicas: 2, minReplicas: 0, maxReplicas: 2, rayStartParams: {}, template: {spec: {containers: [{name: w}]}}}]}\n"
	sc, err := ParseFiles([]File{{Name: "rc.yaml", Data: []byte(doc)}})
	require.NoError(t, err)
	require.Len(t, sc.PodGroups, 1)
	require.Equal(t, "rc", sc.PodGroups[0].Name)
	require.EqualValues(t, 3, sc.PodGroups[0].MinCount)
	require.Len(t, sc.Pods, 3)
	for _, p := range sc.Pods {
		require.Equal(t, "rc", p.Pod.PodGroup, p.Pod.Name)
		require.Equal(t, "rc", p.Pod.Labels["scheduling.x-k8s.io/pod-group"], p.Pod.Name)
	}
	i := slices.IndexFunc(sc.Warnings, func(w Warning) bool { return w.Field == "metadata.labels[ray.io/gang-scheduling-enabled]" })
	require.GreaterOrEqual(t, i, 0, "%v", sc.Warnings)
	require.Contains(t, sc.Warnings[i].Detail, "scheduler-plugins")
	require.Contains(t, sc.Warnings[i].Detail, "the real cluster needs KubeRay's batch scheduler")
}

// What the operators' webhooks refuse is an error naming the field, and
// what their controllers make of a value is what the simulator makes.
func TestOperatorKindsWebhookChecks(t *testing.T) {
	const c = "template: {spec: {containers: [{name: pytorch}]}}"
	for _, tt := range []struct {
		name, doc, err string
	}{{
		name: "PyTorchJob without a container named pytorch",
		doc:  "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: pt}\nspec: {pytorchReplicaSpecs: {Worker: {replicas: 1, template: {spec: {containers: [{name: c}]}}}}}\n",
		err:  "spec.pytorchReplicaSpecs.Worker.template.spec.containers: required: a container named pytorch",
	}, {
		name: "PyTorchJob of no workers",
		doc:  "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: pt}\nspec: {pytorchReplicaSpecs: {Master: {" + c + "}, Worker: {replicas: 0, " + c + "}}}\n",
		err:  "spec.pytorchReplicaSpecs.Worker.replicas: 0: the training operator's webhook asks for at least 1",
	}, {
		name: "PyTorchJob named with a leading digit",
		doc:  "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: 1pt}\nspec: {pytorchReplicaSpecs: {Worker: {replicas: 1, " + c + "}}}\n",
		err:  "metadata.name: \"1pt\" must start with a letter",
	}, {
		name: "PyTorchJob with an invalid name",
		doc:  "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: Pt_1}\nspec: {pytorchReplicaSpecs: {Worker: {replicas: 1, " + c + "}}}\n",
		err:  "metadata.name",
	}, {
		name: "MPIJob of no workers",
		doc: "apiVersion: kubeflow.org/v2beta1\nkind: MPIJob\nmetadata: {name: m}\nspec: {mpiReplicaSpecs: {Launcher: {template: {spec: {containers: [{name: l}]}}}, " +
			"Worker: {replicas: 0, template: {spec: {containers: [{name: w}]}}}}}\n",
		err: "spec.mpiReplicaSpecs.Worker.replicas: 0: the MPI operator's webhook asks for at least 1",
	}, {
		name: "MPIJob whose last worker's hostname is too long",
		doc: "apiVersion: kubeflow.org/v2beta1\nkind: MPIJob\nmetadata: {name: " + strings.Repeat("m", 60) + "}\nspec: {mpiReplicaSpecs: {Launcher: {template: {spec: {containers: [{name: l}]}}}, " +
			"Worker: {replicas: 2, template: {spec: {containers: [{name: w}]}}}}}\n",
		err: "the pod hostname " + strings.Repeat("m", 60) + "-worker-1",
	}} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseFiles([]File{{Name: "w.yaml", Data: []byte(tt.doc)}})
			require.Error(t, err)
			require.Contains(t, err.Error(), tt.err)
		})
	}
}

// A Ray worker group of numOfHosts 0 makes no pod, as KubeRay makes
// replicas times numOfHosts, and says so.
func TestRayZeroHostsMakeNoWorkers(t *testing.T) {
	doc := "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: rc}\n" +
		"spec: {headGroupSpec: {rayStartParams: {}, template: {spec: {containers: [{name: h}]}}},\n" +
		"  workerGroupSpecs: [{groupName: w, replicas: 2, numOfHosts: 0, rayStartParams: {}, template: {spec: {containers: [{name: w}]}}}]}\n"
	sc, err := ParseFiles([]File{{Name: "rc.yaml", Data: []byte(doc)}})
	require.NoError(t, err)
	require.Len(t, sc.Pods, 1)
	require.Equal(t, "rc-head-0", sc.Pods[0].Pod.Name)
	require.True(t, slices.ContainsFunc(sc.Warnings, func(w Warning) bool {
		return w.Kind == "RayCluster" && w.Field == "spec.workerGroupSpecs[].numOfHosts"
	}), "%v", sc.Warnings)
}

// With the gang label and a sign of Volcano (its queue label), the gang is
// Volcano's: the queue names the batch scheduler, the gang label does
// not. With the gang label alone, a template's own scheduler-plugins
// label is replaced by the cluster's PodGroup, as KubeRay replaces it,
// and a warning says so.
func TestRayGangLabelWithVolcanoQueueAndOwnLabel(t *testing.T) {
	spec := "spec: {headGroupSpec: {rayStartParams: {}, template: {metadata: {labels: {scheduling.x-k8s.io/pod-group: mine}}, spec: {containers: [{name: h}]}}},\n" +
		"  workerGroupSpecs: [{groupName: w, replicas: 2, minReplicas: 0, maxReplicas: 2, rayStartParams: {}, template: {spec: {containers: [{name: w}]}}}]}\n"
	sc, err := ParseFiles([]File{{Name: "rc.yaml", Data: []byte("apiVersion: ray.io/v1\nkind: RayCluster\n" +
		"metadata: {name: rc, labels: {ray.io/gang-scheduling-enabled: \"true\", volcano.sh/queue-name: q}}\n" + spec)}})
	require.NoError(t, err)
	require.Len(t, sc.PodGroups, 1)
	require.Equal(t, "ray-rc-pg", sc.PodGroups[0].Name)
	i := slices.IndexFunc(sc.Warnings, func(w Warning) bool { return strings.Contains(w.Detail, "KubeRay's Volcano PodGroup") })
	require.GreaterOrEqual(t, i, 0, "%v", sc.Warnings)
	require.Contains(t, sc.Warnings[i].Detail, "read as Volcano's gang")

	sc, err = ParseFiles([]File{{Name: "rc.yaml", Data: []byte("apiVersion: ray.io/v1\nkind: RayCluster\n" +
		"metadata: {name: rc, labels: {ray.io/gang-scheduling-enabled: \"true\"}}\n" + spec)}})
	require.NoError(t, err)
	require.Len(t, sc.PodGroups, 1)
	require.Equal(t, "rc", sc.PodGroups[0].Name)
	i = slices.IndexFunc(sc.Warnings, func(w Warning) bool { return strings.Contains(w.Detail, `label "mine" is replaced`) })
	require.GreaterOrEqual(t, i, 0, "%v", sc.Warnings)
}
