package scenario

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
)

// The gangs the importer makes of an operator's kind (a Volcano Job's, a
// LeaderWorkerSet's under Volcano, a RayCluster's under Volcano) have
// their pods' priority: kube-scheduler v1.37 schedules a gang's pods only
// when their priority is the group's, and a group left at priority 0
// while its pods name a class was never scheduled (found by
// TestRandomWorkloadKinds).
func TestOperatorGangsTakeTheirPodsPriority(t *testing.T) {
	const tmpl = "{spec: {priorityClassName: high, containers: [{name: c, resources: {requests: {cpu: 1}}}]}}"
	for _, c := range []struct{ name, doc string }{
		{"Volcano Job", "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: vj}\nspec: {minAvailable: 3, tasks: [{name: a, replicas: 1, template: " + tmpl +
			"}, {name: b, replicas: 2, template: " + tmpl + "}]}\n"},
		{"Volcano Job with task minimums", "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: vj}\nspec: {priorityClassName: high, tasks: [" +
			"{name: a, replicas: 1, template: {spec: {containers: [{name: c}]}}}, {name: b, replicas: 2, minAvailable: 1, template: {spec: {containers: [{name: c}]}}}]}\n"},
		{"LeaderWorkerSet under Volcano", "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata: {name: l}\n" +
			"spec: {replicas: 1, leaderWorkerTemplate: {size: 3, workerTemplate: {spec: {schedulerName: volcano, priorityClassName: high, containers: [{name: c}]}}}}\n"},
		{"RayCluster under Volcano", "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: rc, labels: {volcano.sh/queue-name: q}}\n" +
			"spec: {headGroupSpec: {rayStartParams: {}, template: " + tmpl + "}, workerGroupSpecs: [{groupName: g, replicas: 2, rayStartParams: {}, template: " + tmpl + "}]}\n"},
		{"RayCluster of KubeRay's gang label", "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: rc, labels: {ray.io/gang-scheduling-enabled: \"true\"}}\n" +
			"spec: {headGroupSpec: {rayStartParams: {}, template: " + tmpl + "}, workerGroupSpecs: [{groupName: g, replicas: 2, rayStartParams: {}, template: " + tmpl + "}]}\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc, err := ParseFiles([]File{{Name: "w.yaml", Data: []byte(c.doc)}, {Name: "c.yaml", Data: []byte(
				"priorityClasses: [{name: high, value: 1000}]\nnodes: [{name: n, allocatable: {cpu: 8, memory: 8Gi}}]\n")}})
			require.NoError(t, err)
			res, err := sc.Run()
			require.NoError(t, err)
			require.Len(t, res.Pods, 3)
			for _, p := range res.Pods {
				require.Equal(t, gangsim.PhaseBound, p.Phase, "%s: %s", p.Name, p.Reason)
			}
		})
	}
}
