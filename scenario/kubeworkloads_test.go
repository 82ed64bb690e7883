package scenario

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
)

// wantPod is what a test expects of a pod a workload made.
type wantPod struct {
	key      string
	labels   map[string]string // a subset of the pod's labels
	requests cluster.Resources
	owner    string // "Kind name selector"
	pinned   string // the node a DaemonSet pod is pinned to
}

func podsByKey(sc *Scenario) map[string]*cluster.Pod {
	out := map[string]*cluster.Pod{}
	for i := range sc.Pods {
		out[string(sc.Pods[i].Pod.Key())] = &sc.Pods[i].Pod
	}
	return out
}

func ownerString(o *cluster.Owner) string {
	if o == nil {
		return ""
	}
	return o.Kind + " " + o.Name + " " + o.Selector.String()
}

func checkPods(t *testing.T, sc *Scenario, want []wantPod) {
	t.Helper()
	var keys []string
	for _, p := range sc.Pods {
		keys = append(keys, string(p.Pod.Key()))
	}
	var wantKeys []string
	for _, w := range want {
		wantKeys = append(wantKeys, w.key)
	}
	require.Equal(t, wantKeys, keys)
	pods := podsByKey(sc)
	for _, w := range want {
		p := pods[w.key]
		for k, v := range w.labels {
			require.Equal(t, v, p.Labels[k], "%s label %s", w.key, k)
		}
		require.True(t, w.requests.Equal(p.Requests), "%s requests %v, want %v", w.key, p.Requests, w.requests)
		require.Equal(t, w.owner, ownerString(p.Owner), w.key)
		if w.pinned != "" {
			terms := p.Affinity.NodeAffinity.Required
			require.Len(t, terms, 1, w.key)
			require.Equal(t, []cluster.SelectorRequirement{{Key: "metadata.name", Operator: "In", Values: []string{w.pinned}}}, terms[0].MatchFields)
			require.Empty(t, p.NodeName, "the scheduler places it")
		}
	}
}

// A Deployment, a StatefulSet, a Job and a DaemonSet, as kubectl prints
// them, each make the pods their controllers would create.
func TestWorkloadsMakeTheirPods(t *testing.T) {
	for _, f := range []string{"testdata/kube/workloads.yaml", "testdata/kube/workloads.json"} {
		sc, err := Load(f)
		require.NoError(t, err)
		web := cluster.NewResources(250, 128<<20, 0)
		db := cluster.NewResources(4000, 4<<30, 0) // the init container's 4 cpu, the container's 4Gi
		train := cluster.NewResources(2000, 8<<30, 0, cluster.Scalar{Name: "nvidia.com/gpu", Value: 1})
		exporter := cluster.NewResources(100, 64<<20, 0)
		const rs = "ReplicaSet web-6b588869dd app=web,pod-template-hash=6b588869dd"
		jobSel := "Job train batch.kubernetes.io/job-name=train"
		uid := "2b8e3a5c-77f1-4d0a-9e52-6f1c0d4b8a93"
		checkPods(t, sc, []wantPod{
			{"shop/web-6b588869dd-0", map[string]string{"app": "web", "tier": "front", "pod-template-hash": "6b588869dd"}, web, rs, ""},
			{"shop/web-6b588869dd-1", nil, web, rs, ""},
			{"shop/web-6b588869dd-2", nil, web, rs, ""},
			{"shop/db-0", map[string]string{"app": "db", "statefulset.kubernetes.io/pod-name": "db-0", "apps.kubernetes.io/pod-index": "0"}, db, "StatefulSet db app=db", ""},
			{"shop/db-1", map[string]string{"statefulset.kubernetes.io/pod-name": "db-1", "apps.kubernetes.io/pod-index": "1"}, db, "StatefulSet db app=db", ""},
			// an Indexed Job's pods are <job>-<index>-<k>, the k-th pod of the index
			{"ml/train-0-0", map[string]string{"batch.kubernetes.io/job-name": "train", "batch.kubernetes.io/job-completion-index": "0", "controller-uid": uid}, train, jobSel, ""},
			{"ml/train-1-0", map[string]string{"batch.kubernetes.io/job-completion-index": "1"}, train, jobSel, ""},
			{"ml/train-2-0", nil, train, jobSel, ""},
			{"ml/train-3-0", map[string]string{"batch.kubernetes.io/job-completion-index": "3"}, train, jobSel, ""},
			// edge-1 has a NoExecute taint the DaemonSet does not tolerate;
			// cpu-b is cordoned, which DaemonSet pods tolerate
			{"monitoring/node-exporter-gpu-a", map[string]string{"app": "node-exporter"}, exporter, "DaemonSet node-exporter app=node-exporter", "gpu-a"},
			{"monitoring/node-exporter-cpu-a", nil, exporter, "DaemonSet node-exporter app=node-exporter", "cpu-a"},
			{"monitoring/node-exporter-cpu-b", nil, exporter, "DaemonSet node-exporter app=node-exporter", "cpu-b"},
		})
		pods := podsByKey(sc)
		require.Equal(t, "db-critical", pods["shop/db-0"].PriorityClassName)
		require.Equal(t, []string{"pod-template-hash"}, pods["shop/web-6b588869dd-0"].TopologySpreadConstraints[0].MatchLabelKeys)
		tols := pods["monitoring/node-exporter-cpu-b"].Tolerations
		require.Len(t, tols, 8, "its own, the controller's six, and network-unavailable for host network")
		require.Equal(t, "node.kubernetes.io/unschedulable", tols[6].Key)
	}
}

// A workload makes only the pods it lacks: the inputs' pods it controls
// count, a Deployment whose ReplicaSet is in the inputs leaves the pods to
// it, a Job counts its successes, and a DaemonSet skips the nodes that run
// its pod already.
func TestWorkloadsCountTheirPods(t *testing.T) {
	const text = `
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "8"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2, labels: {disk: ssd}}, status: {allocatable: {cpu: "8"}}}
- apiVersion: v1
  kind: Node
  metadata: {name: n3, labels: {disk: ssd}}
  spec: {taints: [{key: soft, effect: PreferNoSchedule}]}
  status: {allocatable: {cpu: "8"}}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: shop}
  spec:
    replicas: 5
    selector: {matchLabels: {app: web}}
    template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}}
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata:
    name: web-abc
    namespace: shop
    ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: d1, controller: true}]
  spec:
    replicas: 3
    selector: {matchLabels: {app: web, pod-template-hash: abc}}
    template: {metadata: {labels: {app: web, pod-template-hash: abc}}, spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}}
- apiVersion: v1
  kind: Pod
  metadata:
    name: web-abc-x1y2z
    namespace: shop
    labels: {app: web, pod-template-hash: abc}
    ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-abc, uid: r1, controller: true}]
  spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}], nodeName: n1}
  status: {phase: Running}
- apiVersion: apps/v1
  kind: StatefulSet
  metadata: {name: db}
  spec:
    replicas: 3
    podManagementPolicy: Parallel
    ordinals: {start: 1}
    selector: {matchLabels: {app: db}}
    template: {metadata: {labels: {app: db}}, spec: {containers: [{name: c}]}}
- apiVersion: v1
  kind: Pod
  metadata:
    name: db-2
    labels: {app: db}
    ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: db, uid: s1, controller: true}]
  spec: {containers: [{name: c}], nodeName: n2}
  status: {phase: Running}
- apiVersion: batch/v1
  kind: Job
  metadata: {name: etl}
  spec: {parallelism: 3, completions: 4, template: {spec: {containers: [{name: c}], restartPolicy: Never}}}
- {apiVersion: v1, kind: Pod, metadata: {name: etl-a, ownerReferences: [{kind: Job, name: etl, controller: true}]}, spec: {containers: [{name: c}], nodeName: n1}, status: {phase: Succeeded}}
- {apiVersion: v1, kind: Pod, metadata: {name: etl-b, ownerReferences: [{kind: Job, name: etl, controller: true}]}, spec: {containers: [{name: c}], nodeName: n1}, status: {phase: Succeeded}}
- {apiVersion: v1, kind: Pod, metadata: {name: etl-c, ownerReferences: [{kind: Job, name: etl, controller: true}]}, spec: {containers: [{name: c}], nodeName: n1}, status: {phase: Running}}
- apiVersion: batch/v1
  kind: Job
  metadata: {name: paused}
  spec: {suspend: true, template: {spec: {containers: [{name: c}]}}}
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: agent, namespace: kube-system}
  spec:
    selector: {matchLabels: {app: agent}}
    template: {metadata: {labels: {app: agent}}, spec: {containers: [{name: c}], nodeSelector: {disk: ssd}}}
- apiVersion: v1
  kind: Pod
  metadata:
    name: agent-q8k2w
    namespace: kube-system
    labels: {app: agent}
    ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: a1, controller: true}]
  spec:
    containers: [{name: c}]
    affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n2]}]}]}}}
  status: {phase: Pending}
`
	sc, err := Parse("objects.yaml", []byte(text))
	require.NoError(t, err)
	rs := "ReplicaSet web-abc app=web,pod-template-hash=abc"
	cpu := cluster.NewResources(100, 0, 0)
	checkPods(t, sc, []wantPod{ // workloads make their pods where they are listed
		{"shop/web-abc-0", map[string]string{"pod-template-hash": "abc"}, cpu, rs, ""},
		{"shop/web-abc-1", nil, cpu, rs, ""},
		{"shop/web-abc-x1y2z", nil, cpu, rs, ""},
		{"default/db-1", nil, cluster.Resources{}, "StatefulSet db app=db", ""},
		{"default/db-3", nil, cluster.Resources{}, "StatefulSet db app=db", ""},
		{"default/db-2", nil, cluster.Resources{}, "StatefulSet db app=db", ""},
		{"default/etl-0", map[string]string{"job-name": "etl"}, cluster.Resources{}, "Job etl batch.kubernetes.io/job-name=etl", ""},
		{"default/etl-c", nil, cluster.Resources{}, "Job etl <none>", ""},
		{"kube-system/agent-n3", nil, cluster.Resources{}, "DaemonSet agent app=agent", "n3"},
		{"kube-system/agent-q8k2w", nil, cluster.Resources{}, "DaemonSet agent <none>", ""},
	})
}
