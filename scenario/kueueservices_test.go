package scenario

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
)

// A LeaderWorkerSet or a RayCluster that Kueue admits is a service: its
// pods' run times make it churn, and that churn does not keep the run
// going, as a service's does not without Kueue. A LeaderWorkerSet's pods
// of time 0, held by Kueue, were counted as work to wait for, and since a
// restarted group's pods take the same names the run never ended (found
// by TestRandomWorkloadKinds); a RayCluster's replacements take new names.
func TestKueueServicesDoNotKeepTheRunGoing(t *testing.T) {
	const kueueObjects = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f}\n---\n" +
		"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\nspec: {namespaceSelector: {}, resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: 8}]}]}]}\n---\n" +
		"apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lq}\nspec: {clusterQueue: cq}\n---\n"
	const tmpl = "{metadata: {annotations: {gangsim.io/duration: 30s}}, spec: {containers: [{name: c, resources: {requests: {cpu: 1}}}]}}"
	for _, c := range []struct{ name, doc string }{
		{"LeaderWorkerSet", "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata: {name: l, labels: {kueue.x-k8s.io/queue-name: lq}}\n" +
			"spec: {replicas: 2, leaderWorkerTemplate: {size: 2, workerTemplate: " + tmpl + "}}\n"},
		{"RayCluster", "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: rc, labels: {kueue.x-k8s.io/queue-name: lq}}\n" +
			"spec: {headGroupSpec: {rayStartParams: {}, template: " + tmpl + "}, workerGroupSpecs: [{groupName: g, replicas: 2, rayStartParams: {}, template: " + tmpl + "}]}\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc, err := ParseFiles([]File{{Name: "w.yaml", Data: []byte(kueueObjects + c.doc)},
				{Name: "c.yaml", Data: []byte("nodes: [{name: n, allocatable: {cpu: 8, memory: 8Gi}}]\n")}})
			require.NoError(t, err)
			res, err := sc.RunUntil(func(e gangsim.Event) bool { return e.At > 24*time.Hour })
			require.NoError(t, err)
			require.Empty(t, res.Stopped, "the run went on past a day")
		})
	}
}
