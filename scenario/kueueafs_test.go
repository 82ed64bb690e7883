package scenario

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/kueue"
)

// afsQueues is a ClusterQueue cq of 1 cpu in the usage-based admission
// mode with LocalQueues la and lb, and a Configuration with admission
// fair sharing (a half-life of 1 hour, a sample a minute) when afs.
func afsQueues(afs string) string {
	s := "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}\n---\n" +
		"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\nspec:\n  namespaceSelector: {}\n" +
		"  admissionScope: {admissionMode: UsageBasedAdmissionFairSharing}\n" +
		"  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: default\n      resources: [{name: cpu, nominalQuota: \"1\"}]\n"
	for _, l := range []string{"la", "lb"} {
		s += "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: " + l + ", namespace: default}\nspec: {clusterQueue: cq}\n"
	}
	if afs != "" {
		s += "---\napiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n" + afs + "\n"
	}
	return s
}

// la submits a1, a2, a3 at 0s, lb submits b1 at 1s, each 1 cpu for 10
// minutes, in a queue of 1 cpu. Without admission fair sharing the queue
// is FIFO: a1, a2, a3, b1. With it (α = 1 − 0.5^(1/60) = 0.011486 a
// sample), la has used the cpu for 10 minutes when a1 ends (1 − (1−α)^11
// = 0.119 with the penalty) and lb nothing: b1 goes second. At 20 minutes
// lb is at 0.119 and la has decayed to 0.119 × (1−α)^10 = 0.106: a2, then
// a3. With the gate off, the Configuration's section is ignored.
func TestKueueAdmissionFairSharingOrdersByUsage(t *testing.T) {
	order := func(afs string) []string {
		pods := "pods:\n"
		for _, p := range []struct{ name, at, q string }{{"a1", "0s", "la"}, {"a2", "0s", "la"}, {"a3", "0s", "la"}, {"b1", "1s", "lb"}} {
			pods += "- {name: " + p.name + ", at: " + p.at + ", duration: 10m, requests: {cpu: \"1\"}, labels: {kueue.x-k8s.io/queue-name: " + p.q + "}}\n"
		}
		return admissionOrder(t, afsQueues(afs)+kubeNodes(1, 1), pods)
	}
	on := "admissionFairSharing: {usageHalfLifeTime: 1h, usageSamplingInterval: 1m}"
	fifo := []string{"pod-a1", "pod-a2", "pod-a3", "pod-b1"}
	require.Equal(t, fifo, order(""))
	require.Equal(t, []string{"pod-a1", "pod-b1", "pod-a2", "pod-a3"}, order(on))
	require.Equal(t, fifo, order(on+"\nfeatureGates: {AdmissionFairSharing: false}"))
}

// The fields are read as Kueue reads them: the sampling interval is 5
// minutes when not given (or 0), the half-life 0; the ClusterQueue's
// admissionScope in v1beta1 as in v1beta2.
func TestKueueAdmissionFairSharingFields(t *testing.T) {
	conf := func(body string) *kueue.AdmissionFairSharing {
		sc, err := Parse("c.yaml", []byte("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"+body+"\n"))
		require.NoError(t, err)
		return sc.Kueue.Configuration.AdmissionFairSharing
	}
	require.Equal(t, &kueue.AdmissionFairSharing{UsageSamplingInterval: int64(5 * time.Minute)}, conf("admissionFairSharing: {}"))
	require.Equal(t, &kueue.AdmissionFairSharing{UsageHalfLifeTime: int64(time.Hour), UsageSamplingInterval: int64(5 * time.Minute)},
		conf("admissionFairSharing: {usageHalfLifeTime: 1h, usageSamplingInterval: 0s}"))
	require.Equal(t, &kueue.AdmissionFairSharing{UsageHalfLifeTime: int64(168 * time.Hour), UsageSamplingInterval: int64(time.Minute),
		ResourceWeights: map[cluster.ResourceName]float64{"cpu": 1, "nvidia.com/gpu": 10}},
		conf("admissionFairSharing: {usageHalfLifeTime: 168h, usageSamplingInterval: 1m, resourceWeights: {cpu: 1, nvidia.com/gpu: 10}}"))
	for _, v := range []string{"v1beta1", "v1beta2"} {
		sc, err := Parse("q.yaml", []byte("apiVersion: kueue.x-k8s.io/"+v+"\nkind: ClusterQueue\nmetadata: {name: cq}\nspec: {admissionScope: {admissionMode: UsageBasedAdmissionFairSharing}}\n"))
		require.NoError(t, err, v)
		require.Equal(t, kueue.UsageBasedAdmissionFairSharing, sc.Kueue.ClusterQueues[0].AdmissionMode, v)
	}
}

// Bad values are errors naming the file, the object and the field.
func TestKueueAdmissionFairSharingErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\nspec: {admissionScope: {admissionMode: Usage}}\n",
			`spec.admissionScope.admissionMode: Unsupported value: "Usage"`},
		{"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\nspec: {admissionScope: {}}\n",
			"spec.admissionScope.admissionMode"},
		{"apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nadmissionFairSharing: {usageHalfLifeTime: soon}\n",
			"admissionFairSharing.usageHalfLifeTime"},
		{"apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nadmissionFairSharing: {usageHalfLifeTime: -1h}\n",
			"admissionFairSharing.usageHalfLifeTime: Invalid value"},
		{"apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nadmissionFairSharing: {usageSamplingInterval: -1m}\n",
			"admissionFairSharing.usageSamplingInterval: Invalid value"},
		{"apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nadmissionFairSharing: {resourceWeights: {cpu: -1}}\n",
			"admissionFairSharing.resourceWeights[cpu]"},
		{"apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: l, namespace: ns}\nspec: {clusterQueue: cq, fairSharing: {weight: \"-1\"}}\n",
			"LocalQueue ns/l: spec.fairSharing: Invalid value"},
	} {
		_, err := Parse("f.yaml", []byte(tc.text))
		require.Error(t, err, tc.text)
		require.ErrorContains(t, err, "f.yaml", tc.text)
		require.ErrorContains(t, err, tc.want, tc.text)
	}
}

// A dump's LocalQueue tells what admission fair sharing counted so far
// (status.fairSharing.admissionFairSharingStatus.consumedResources): the
// simulation starts from it. a1 (la) and b1 (lb) arrive together for the
// one cpu: with no history the queue takes them in order, a1 first; with
// la having consumed 5 cpu lately, lb's b1 goes first.
func TestKueueAdmissionFairSharingFromADump(t *testing.T) {
	order := func(status string) []string {
		objects := afsQueues("admissionFairSharing: {usageHalfLifeTime: 1h, usageSamplingInterval: 1m}") + kubeNodes(1, 1)
		if status != "" {
			objects = strings.Replace(objects, "metadata: {name: la, namespace: default}\nspec: {clusterQueue: cq}\n",
				"metadata: {name: la, namespace: default}\nspec: {clusterQueue: cq}\n"+status+"\n", 1)
		}
		pods := "pods:\n- {name: a1, duration: 10m, requests: {cpu: \"1\"}, labels: {kueue.x-k8s.io/queue-name: la}}\n" +
			"- {name: b1, duration: 10m, requests: {cpu: \"1\"}, labels: {kueue.x-k8s.io/queue-name: lb}}\n"
		return admissionOrder(t, objects, pods)
	}
	require.Equal(t, []string{"pod-a1", "pod-b1"}, order(""))
	dumped := "status: {fairSharing: {weightedShare: 0, admissionFairSharingStatus: {consumedResources: {cpu: \"5\"}, lastUpdate: \"2026-12-06T10:00:00Z\"}}}"
	require.Equal(t, []string{"pod-b1", "pod-a1"}, order(dumped))
	// a quantity that is none is refused, naming the object and the field
	_, err := Parse("lq.yaml", []byte("apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: la, namespace: default}\nspec: {clusterQueue: cq}\n"+
		"status: {fairSharing: {admissionFairSharingStatus: {consumedResources: {cpu: lots}}}}\n"))
	require.ErrorContains(t, err, "LocalQueue")
	require.ErrorContains(t, err, "status.fairSharing.admissionFairSharingStatus.consumedResources[cpu]")
}

// admissionOrder runs Kubernetes objects and a scenario file of pods, and
// returns the Workloads in the order Kueue admitted them, by their names
// without the hash ("pod-a1").
func admissionOrder(t *testing.T, objects, pods string) []string {
	t.Helper()
	res := runObjectsAndPods(t, objects, pods)
	var got []string
	for _, e := range res.KueueEvents {
		if e.Kind == "QuotaReserved" {
			got = append(got, e.Workload[:len("pod-a1")]) // pod-a1-<hash>: the Workload's name
		}
	}
	return got
}
