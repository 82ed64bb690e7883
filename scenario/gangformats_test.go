package scenario

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/podgroup"
)

// kubeNodes are n nodes of 2 cpus, labelled rack by racks (node i in rack
// "r<i/perRack>"): each takes two pods of one cpu.
func kubeNodes(n, perRack int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Node\nmetadata: {name: n%d, labels: {rack: r%d}}\nstatus: {allocatable: {cpu: \"2\", memory: 8Gi, pods: \"10\"}}\n", i, i/perRack)
	}
	return b.String()
}

// kubePods are pods p0..p<n-1> of one cpu with the labels and annotations
// given (YAML flow mappings).
func kubePods(n int, labels, annotations string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p%d, labels: %s, annotations: %s}\n"+
			"spec: {containers: [{name: c, resources: {requests: {cpu: \"1\"}}}]}\n", i, labels, annotations)
	}
	return b.String()
}

// runKube loads and runs objects, returning the scenario and the pods'
// nodes by name ("" when pending).
func runKube(t *testing.T, text string) (*Scenario, map[string]string) {
	t.Helper()
	sc, err := Parse("objects.yaml", []byte(text))
	require.NoError(t, err)
	res, err := sc.Run()
	require.NoError(t, err)
	nodes := map[string]string{}
	for _, p := range res.Pods {
		nodes[p.Name] = p.Node
	}
	return sc, nodes
}

func bound(nodes map[string]string) int {
	n := 0
	for _, node := range nodes {
		if node != "" {
			n++
		}
	}
	return n
}

func warningsOf(sc *Scenario) []string {
	var out []string
	for _, w := range sc.Warnings {
		out = append(out, w.String())
	}
	return out
}

func groupOf(t *testing.T, sc *Scenario, name string) podgroup.PodGroup {
	t.Helper()
	for _, g := range sc.PodGroups {
		if g.Name == name {
			return g
		}
	}
	t.Fatalf("no group %s in %v", name, sc.PodGroups)
	return podgroup.PodGroup{}
}

const pluginsGroup = "---\napiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: gang}\nspec: {minMember: 3, scheduleTimeoutSeconds: 10}\n"

// A scheduler-plugins PodGroup of minMember 3, whose 4 pods join it by
// their label, on a cluster with room for 2: Coscheduling binds none, and
// so does the simulator. With room for 3 the gang goes, then the fourth
// waits.
func TestPluginsPodGroupIsAGang(t *testing.T) {
	pods := kubePods(4, "{scheduling.x-k8s.io/pod-group: gang}", "{}")
	sc, nodes := runKube(t, pluginsGroup+pods+kubeNodes(1, 1))
	require.Equal(t, 0, bound(nodes), "a gang of 3 does not fit 2 places: none binds")
	g := groupOf(t, sc, "gang")
	require.Equal(t, podgroup.Gang, g.Policy)
	require.Equal(t, int32(3), g.MinCount)
	require.Contains(t, warningsOf(sc), "PodGroup spec.minMember: read as a gang: a PodGroup of minCount minMember, which the pods labelled scheduling.x-k8s.io/pod-group join (scheduler-plugins' Coscheduling) (1 object, first objects.yaml: PodGroup default/gang)")
	require.Contains(t, warningsOf(sc), "PodGroup spec.scheduleTimeoutSeconds: not modelled: the gang waits until it can be placed whole (Coscheduling gives up after the timeout, then tries again) (1 object, first objects.yaml: PodGroup default/gang)")

	_, nodes = runKube(t, pluginsGroup+pods+kubeNodes(2, 2))
	require.Equal(t, 4, bound(nodes), "room for 4: all bind")
	three := strings.Replace(kubeNodes(2, 2), "cpu: \"2\", memory: 8Gi, pods: \"10\"}}\n---", "cpu: \"1\", memory: 8Gi, pods: \"10\"}}\n---", 1)
	_, nodes = runKube(t, pluginsGroup+pods+three)
	require.Equal(t, 3, bound(nodes), "room for 3: the gang of 3 binds, the fourth finds no room")

	// the older API group, and its label
	legacy := strings.NewReplacer("scheduling.x-k8s.io/v1alpha1", "scheduling.sigs.k8s.io/v1alpha1").Replace(pluginsGroup)
	_, nodes = runKube(t, legacy+kubePods(4, "{pod-group.scheduling.sigs.k8s.io: gang}", "{}")+kubeNodes(1, 1))
	require.Equal(t, 0, bound(nodes))

	// a Deployment's template label makes every replica a member
	deploy := "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 4\n  selector: {matchLabels: {app: web}}\n" +
		"  template:\n    metadata: {labels: {app: web, scheduling.x-k8s.io/pod-group: gang}}\n    spec: {containers: [{name: c, resources: {requests: {cpu: \"1\"}}}]}\n"
	_, nodes = runKube(t, pluginsGroup+deploy+kubeNodes(1, 1))
	require.Equal(t, 0, bound(nodes))
}

// A label naming a PodGroup no input defines: Coscheduling schedules the
// pod alone, and the simulator too, with a warning.
func TestPluginsLabelWithoutGroup(t *testing.T) {
	sc, nodes := runKube(t, kubePods(2, "{scheduling.x-k8s.io/pod-group: missing}", "{}")+kubeNodes(1, 1))
	require.Equal(t, 2, bound(nodes))
	require.Contains(t, warningsOf(sc), "Pod metadata.labels[scheduling.x-k8s.io/pod-group]: names a PodGroup of scheduling.x-k8s.io that no input defines: the pod is scheduled on its own, as Coscheduling schedules it (2 objects, first objects.yaml: Pod default/p0)")
}

const kueueGroup = "{kueue.x-k8s.io/pod-group-name: trio, kueue.x-k8s.io/queue-name: team-a}"

// A Kueue pod group of total count 3 is all or nothing: on room for 2
// nothing binds; on room for 3 all do. Its PodGroup is named after the
// group, and warnings say what was read and what was not.
func TestKueuePodGroupIsAGang(t *testing.T) {
	pods := kubePods(3, kueueGroup, `{kueue.x-k8s.io/pod-group-total-count: "3"}`)
	sc, nodes := runKube(t, pods+kubeNodes(1, 1))
	require.Equal(t, 0, bound(nodes))
	g := groupOf(t, sc, "trio")
	require.Equal(t, podgroup.Gang, g.Policy)
	require.Equal(t, int32(3), g.MinCount)
	got := warningsOf(sc)
	require.Contains(t, got, "Pod metadata.labels[kueue.x-k8s.io/pod-group-name]: read as a gang: the pods of one group name form a PodGroup of that name, all or nothing, of minCount the kueue.x-k8s.io/pod-group-total-count (Kueue admits a pod group whole); its priority is its first pod's (1 object, first objects.yaml: Pod default/p0)")
	require.Contains(t, got, "Pod metadata.labels[kueue.x-k8s.io/queue-name]: the inputs hold no Kueue object, so Kueue does not run: the pods are scheduled as if admitted at once (3 objects, first objects.yaml: Pod default/p0)")
	_, nodes = runKube(t, pods+kubeNodes(2, 2))
	require.Equal(t, 3, bound(nodes))
}

// The total count against the pods present: fewer pods wait for the rest,
// as Kueue waits; pods beyond it, the last created, are left out, as
// Kueue deletes them.
func TestKueueTotalCountAgainstThePods(t *testing.T) {
	sc, nodes := runKube(t, kubePods(2, kueueGroup, `{kueue.x-k8s.io/pod-group-total-count: "3"}`)+kubeNodes(2, 2))
	require.Equal(t, 0, bound(nodes), "2 of 3 pods: the group waits")
	require.Contains(t, strings.Join(warningsOf(sc), "\n"), "(above the pods present): the group waits for the rest of its pods, as Kueue does")

	sc, nodes = runKube(t, kubePods(4, kueueGroup, `{kueue.x-k8s.io/pod-group-total-count: "3"}`)+kubeNodes(2, 2))
	require.Len(t, sc.Pods, 3)
	require.NotContains(t, nodes, "p3", "the pod created last is left out")
	require.Equal(t, 3, bound(nodes))
	require.Contains(t, strings.Join(warningsOf(sc), "\n"), "(pods beyond it): the pods created last beyond a group's total count are left out, as Kueue deletes them")
}

// A required topology annotation becomes the group's topology key: the
// gang of 3 needs one rack with room for 3.
func TestKueueTopologyIsTheGroupsKey(t *testing.T) {
	ann := `{kueue.x-k8s.io/pod-group-total-count: "3", kueue.x-k8s.io/podset-required-topology: rack}`
	pods := kubePods(3, kueueGroup, ann)
	sc, nodes := runKube(t, pods+kubeNodes(4, 1))
	require.Equal(t, "rack", groupOf(t, sc, "trio").TopologyKey)
	require.Equal(t, 0, bound(nodes), "four racks of room 2: no rack holds 3")
	_, nodes = runKube(t, pods+kubeNodes(4, 2))
	require.Equal(t, 3, bound(nodes), "two racks of room 4")
	racks := map[string]bool{}
	for _, n := range nodes {
		racks[map[string]string{"n0": "r0", "n1": "r0", "n2": "r1", "n3": "r1"}[n]] = true
	}
	require.Len(t, racks, 1, "in one rack")

	// a Job's pods, which Kueue places as one PodSet
	job := "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: train, labels: {kueue.x-k8s.io/queue-name: team-a}}\nspec:\n  parallelism: 3\n  completions: 3\n" +
		"  template:\n    metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: rack}}\n" +
		"    spec: {restartPolicy: Never, containers: [{name: c, resources: {requests: {cpu: \"1\"}}}]}\n"
	sc, nodes = runKube(t, job+kubeNodes(4, 1))
	g := groupOf(t, sc, "job-train")
	require.Equal(t, "rack", g.TopologyKey)
	require.Equal(t, int32(3), g.MinCount)
	require.Equal(t, 0, bound(nodes))
	require.Contains(t, strings.Join(warningsOf(sc), "\n"), "Job metadata.labels[kueue.x-k8s.io/queue-name]: the inputs hold no Kueue object, so Kueue does not run")
	_, nodes = runKube(t, job+kubeNodes(4, 2))
	require.Equal(t, 3, bound(nodes))

	// preferred: no constraint, warned
	sc, nodes = runKube(t, kubePods(3, "{}", "{kueue.x-k8s.io/podset-preferred-topology: rack}")+kubeNodes(4, 1))
	require.Equal(t, 3, bound(nodes))
	require.Contains(t, strings.Join(warningsOf(sc), "\n"), "Pod metadata.annotations[kueue.x-k8s.io/podset-preferred-topology]: approximated: Kueue tries one domain of this level, then larger ones, then several")
}

// GPU sharing is warned: the sharer's resources, annotations and node labels.
func TestGPUShareWarns(t *testing.T) {
	text := "apiVersion: v1\nkind: Node\nmetadata: {name: g, labels: {nvidia.com/gpu.replicas: \"4\"}}\n" +
		"status: {allocatable: {cpu: \"8\", memory: 32Gi, pods: \"10\", aliyun.com/gpu-mem: \"32\", aliyun.com/gpu-count: \"2\"}}\n" +
		"---\napiVersion: v1\nkind: Pod\nmetadata: {name: share, annotations: {ALIYUN_COM_GPU_MEM_IDX: \"0\", hami.io/gpu-scheduler-policy: binpack}}\n" +
		"spec: {containers: [{name: c, resources: {limits: {aliyun.com/gpu-mem: \"3\"}}}]}\n"
	sc, nodes := runKube(t, text)
	require.Equal(t, "g", nodes["share"], "counted as an extended resource, as kube-scheduler counts it")
	got := strings.Join(warningsOf(sc), "\n")
	for _, want := range []string{
		"Pod spec.containers[].resources[aliyun.com/gpu-mem]: GPU memory shared by Aliyun gpushare: counted as one amount over all of a node's GPUs; the gpushare extender's check that it fits on one GPU is not modelled",
		"Pod metadata.annotations[ALIYUN_COM_GPU_MEM_IDX]: the assignment of the gpushare scheduler extender is not modelled: ignored",
		"Pod metadata.annotations[hami.io/gpu-scheduler-policy]: HAMi's GPU sharing (its scheduler extender and device plugin) is not modelled: ignored",
		"Node metadata.labels[nvidia.com/gpu.replicas]: GPUs shared in time (time-slicing or MPS)",
		"Node status.allocatable[aliyun.com/gpu-mem]: GPU memory shared by Aliyun gpushare",
	} {
		require.Contains(t, got, want)
	}
}

// Kueue's own kinds are read and checked, and run without a warning; its
// other kinds are skipped with one.
func TestKueueKindsWarn(t *testing.T) {
	sc, err := Parse("q.yaml", []byte("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\nspec: {namespaceSelector: {}}\n"+
		"---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata: {name: lq, namespace: team}\nspec: {clusterQueue: cq}\n"+
		"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: AdmissionCheck\nmetadata: {name: prov}\nspec: {controllerName: x}\n"))
	require.NoError(t, err)
	require.Equal(t, []string{
		"AdmissionCheck: Kueue's admission checks and MultiKueue are not modelled: objects skipped; workloads are admitted once they have quota (1 object, first q.yaml: AdmissionCheck prov)",
	}, warningsOf(sc))
	require.Len(t, sc.Kueue.ClusterQueues, 1)
	require.Len(t, sc.Kueue.LocalQueues, 1)
	require.Equal(t, "cq", sc.Kueue.LocalQueues[0].ClusterQueue)
}

// Conflicts and malformed keys are errors, naming the pod and the key.
func TestGangFormatErrors(t *testing.T) {
	count3 := `{kueue.x-k8s.io/pod-group-total-count: "3"}`
	for _, tt := range []struct{ name, text, want string }{
		{"a pod in two gang formats", pluginsGroup + kubePods(1, "{scheduling.x-k8s.io/pod-group: gang, kueue.x-k8s.io/pod-group-name: trio}", count3),
			`line 9: Pod default/p0: metadata.labels[kueue.x-k8s.io/pod-group-name]: the pod is in a gang by labels[scheduling.x-k8s.io/pod-group] already ("gang"): a pod is in one gang; keep one of the two`},
		{"a count without a group", kubePods(1, "{}", count3),
			`Pod default/p0: metadata.annotations[kueue.x-k8s.io/pod-group-total-count]: Required value: both the "kueue.x-k8s.io/pod-group-total-count" annotation and the "kueue.x-k8s.io/pod-group-name" label should be set`},
		{"a group without a count", kubePods(1, "{kueue.x-k8s.io/pod-group-name: trio}", "{}"),
			`Pod default/p0: metadata.labels[kueue.x-k8s.io/pod-group-name]: Required value: both`},
		{"a count that is not a number", kubePods(1, "{kueue.x-k8s.io/pod-group-name: trio}", `{kueue.x-k8s.io/pod-group-total-count: "many"}`),
			`metadata.annotations[kueue.x-k8s.io/pod-group-total-count]: Invalid value: "many": group total count should be a whole number greater than zero`},
		{"counts that disagree", kubePods(1, "{kueue.x-k8s.io/pod-group-name: trio}", count3) +
			strings.Replace(kubePods(1, "{kueue.x-k8s.io/pod-group-name: trio}", `{kueue.x-k8s.io/pod-group-total-count: "4"}`), "p0", "p1", 1),
			`Pod default/p1: metadata.annotations[kueue.x-k8s.io/pod-group-total-count]: 4, where Pod default/p0 of the same pod group gives 3: the pods of a group give one total count`},
		{"a bad group name", kubePods(1, "{kueue.x-k8s.io/pod-group-name: Trio}", count3), `metadata.labels[kueue.x-k8s.io/pod-group-name]: `},
		{"two topology annotations", kubePods(1, "{}", "{kueue.x-k8s.io/podset-required-topology: rack, kueue.x-k8s.io/podset-preferred-topology: zone}"),
			`Invalid value: must not contain more than one topology annotation`},
		{"a topology that is not a label key", kubePods(1, "{}", "{kueue.x-k8s.io/podset-required-topology: \"bad key\"}"),
			`metadata.annotations[kueue.x-k8s.io/podset-required-topology]: "bad key" is not a label key`},
		{"pods of one group requiring two topologies",
			kubePods(1, "{kueue.x-k8s.io/pod-group-name: duo}", `{kueue.x-k8s.io/pod-group-total-count: "2", kueue.x-k8s.io/podset-required-topology: rack}`) +
				strings.Replace(kubePods(1, "{kueue.x-k8s.io/pod-group-name: duo}", `{kueue.x-k8s.io/pod-group-total-count: "2", kueue.x-k8s.io/podset-required-topology: zone}`), "p0", "p1", 1),
			`Pod default/p1: metadata.annotations[kueue.x-k8s.io/podset-required-topology]: "zone", where Pod default/p0 of the same group requires "rack": a group has one topology`},
		{"a negative minMember", "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: g}\nspec: {minMember: -1}\n",
			"PodGroup default/g: spec.minMember: -1 is below 0"},
		{"a PodGroup in both APIs", pluginsGroup + "---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: gang}\nspec: {schedulingPolicy: {basic: {}}}\n",
			"defined twice"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("objects.yaml", []byte(tt.text))
			require.ErrorContains(t, err, tt.want)
		})
	}
}

// Kueue's own gates are removed: Kueue removes them when it admits a pod,
// and the simulator takes pods as admitted. Other gates stay.
func TestKueueGatesRemoved(t *testing.T) {
	text := "apiVersion: v1\nkind: Pod\nmetadata: {name: held, labels: {kueue.x-k8s.io/queue-name: q}}\n" +
		"spec: {schedulingGates: [{name: kueue.x-k8s.io/admission}, {name: kueue.x-k8s.io/topology}], containers: [{name: c, resources: {requests: {cpu: \"1\"}}}]}\n" +
		"---\napiVersion: v1\nkind: Pod\nmetadata: {name: other}\n" +
		"spec: {schedulingGates: [{name: kueue.x-k8s.io/admission}, {name: example.com/hold}], containers: [{name: c, resources: {requests: {cpu: \"1\"}}}]}\n"
	sc, nodes := runKube(t, text+kubeNodes(1, 1))
	require.Equal(t, "n0", nodes["held"])
	require.Equal(t, "", nodes["other"], "its own gate holds it")
	require.Contains(t, strings.Join(warningsOf(sc), "\n"), "Pod spec.schedulingGates[kueue.x-k8s.io/admission]: Kueue's gate, which Kueue removes when it admits the pod: removed, since the pod is taken as admitted (2 objects")
}

// A Job Kueue holds suspended makes no pods, and a warning says how to
// simulate it admitted.
func TestKueueSuspendedJobWarns(t *testing.T) {
	job := "apiVersion: batch/v1\nkind: Job\nmetadata: {name: wait, labels: {kueue.x-k8s.io/queue-name: q}}\n" +
		"spec: {suspend: true, template: {spec: {restartPolicy: Never, containers: [{name: c}]}}}\n"
	sc, err := Parse("job.yaml", []byte(job))
	require.NoError(t, err)
	require.Empty(t, sc.Pods)
	require.Contains(t, strings.Join(warningsOf(sc), "\n"), "Job spec.suspend: Kueue suspends a Job until it admits it, and Kueue's admission is not modelled: the Job makes no pods; give spec.suspend: false to simulate it admitted")
}
