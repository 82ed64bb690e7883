package scenario

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
)

// The case, as Kubernetes objects: a quota of two cores and a
// Deployment of four one-core replicas. Two pods are created and bound;
// the other two are refused by the API server and reported so; the
// LimitRange's default memory request is given to the pods created.
func TestKubeQuotaAdmitsTwoOfFour(t *testing.T) {
	sc, err := Load("testdata/kube/quota.yaml")
	require.NoError(t, err)
	require.Empty(t, sc.Warnings, "LimitRange and ResourceQuota are read, not skipped")
	require.Len(t, sc.ResourceQuotas, 1)
	require.Len(t, sc.LimitRanges, 1)
	var names []string
	s, err := sc.NewScheduler()
	require.NoError(t, err)
	res, err := sc.Run()
	require.NoError(t, err)
	var phases []gangsim.Phase
	for _, p := range res.Pods {
		names = append(names, p.Name)
		phases = append(phases, p.Phase)
	}
	require.Equal(t, []gangsim.Phase{gangsim.PhaseBound, gangsim.PhaseBound, gangsim.PhaseRejected, gangsim.PhaseRejected}, phases, names)
	require.Equal(t, `pods "web-`+names[2][len("shop/web-"):]+`" is forbidden: exceeded quota: compute, requested: requests.cpu=1, used: requests.cpu=2, limited: requests.cpu=2`, res.Pods[2].Reason)
	require.Equal(t, 2, res.Stats.Scheduled)
	require.Equal(t, 2, res.Stats.Rejected)
	require.Zero(t, res.Stats.Pending, "refused is not pending")

	require.NoError(t, s.Run())
	for _, p := range sc.Pods {
		require.NoError(t, ignoreRejected(s.AddPod(p.Pod, 0)))
	}
	require.NoError(t, s.Run())
	ni, _ := s.Node("n")
	require.Equal(t, cluster.NewResources(2000, 512<<20, 2), ni.Requested(), "each created pod requests the LimitRange's default memory")
	for q := range s.ResourceQuotas() {
		require.Equal(t, cluster.ResourceList{"requests.cpu": 2000, "requests.memory": 512 << 20}, q.Used)
	}
}

func ignoreRejected(err error) error {
	if err != nil && errors.Is(err, gangsim.ErrRejected) {
		return nil
	}
	return err
}

// What a quota or limit range holds that the simulator does not apply is
// a warning; what the API server refuses is an error naming the object
// and its field.
func TestKubeAdmissionObjectsWarnAndFail(t *testing.T) {
	sc, err := Parse("q.yaml", []byte(`apiVersion: v1
kind: ResourceQuota
metadata: {name: objects, namespace: a}
spec:
  hard: {services: "5", count/deployments.apps: "2", pods: "10", limits.nvidia.com/gpu: "4"}
  scopes: [NotTerminating]
---
apiVersion: v1
kind: LimitRange
metadata: {name: storage, namespace: a}
spec:
  limits: [{type: PersistentVolumeClaim, max: {storage: 10Gi}}]
`))
	require.NoError(t, err)
	var got []string
	for _, w := range sc.Warnings {
		got = append(got, w.String())
	}
	require.Equal(t, []string{
		"LimitRange spec.limits[].type PersistentVolumeClaim: not modelled: the simulator has no volumes; the item is kept and never applied (1 object, first q.yaml: LimitRange a/storage)",
		"ResourceQuota spec.hard.count/deployments.apps: not modelled: it counts objects other than pods, or nothing a pod asks for; not enforced (1 object, first q.yaml: ResourceQuota a/objects)",
		"ResourceQuota spec.hard.limits.nvidia.com/gpu: not modelled: it counts objects other than pods, or nothing a pod asks for; not enforced (1 object, first q.yaml: ResourceQuota a/objects)",
		"ResourceQuota spec.hard.services: not modelled: it counts objects other than pods, or nothing a pod asks for; not enforced (1 object, first q.yaml: ResourceQuota a/objects)",
		"ResourceQuota spec.scopes NotTerminating: not modelled: pods' activeDeadlineSeconds is not, so every pod is NotTerminating (1 object, first q.yaml: ResourceQuota a/objects)",
	}, got)

	for _, tt := range []struct{ text, want string }{
		{"apiVersion: v1\nkind: LimitRange\nmetadata: {name: l}\nspec: {limits: [{type: Node}]}", `LimitRange default/l: spec.limits[0].type: "Node" is not Container, Pod or PersistentVolumeClaim`},
		{"apiVersion: v1\nkind: LimitRange\nmetadata: {name: l}\nspec: {limits: [{type: Container, max: {cpus: 1}}]}", `LimitRange default/l: spec.limits[0].max.cpus: "cpus" is not a standard resource name`},
		{"apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q}\nspec: {hard: {pods: -1}}", `ResourceQuota default/q: spec.hard.pods: "-1" is not a valid quantity`},
		{"apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q}\nspec: {hardd: {pods: 1}}", `ResourceQuota default/q: spec.hardd: unknown field`},
		{"apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q}\nspec: {hard: {cpu: 1}, scopes: [BestEffort]}", `ResourceQuota default/q: spec.hard.cpu: unsupported scope applied to resource`},
	} {
		_, err := Parse("in.yaml", []byte(tt.text))
		require.ErrorContains(t, err, tt.want)
	}
}

// A scenario pod's limits make it one container: its quota usage has
// them, and a request it leaves out defaults to its limit.
func TestScenarioPodLimits(t *testing.T) {
	sc, err := Parse("s.yaml", []byte(`nodes: [{name: n, allocatable: {cpu: "4", memory: 8Gi}}]
resourceQuotas: [{name: q, hard: {limits.cpu: "3", requests.memory: 2Gi}}]
pods:
  - {name: a, requests: {memory: 1Gi}, limits: {cpu: "2"}}
  - {name: b, requests: {memory: 1Gi}, limits: {cpu: "2"}}
  - {name: c, requests: {cpu: "1", memory: 1Gi}}
`))
	require.NoError(t, err)
	require.Equal(t, cluster.NewResources(2000, 1<<30, 0), sc.Pods[0].Pod.Requests)
	res, err := sc.Run()
	require.NoError(t, err)
	require.Equal(t, gangsim.PhaseBound, res.Pods[0].Phase)
	require.Equal(t, `pods "b" is forbidden: exceeded quota: q, requested: limits.cpu=2, used: limits.cpu=2, limited: limits.cpu=3`, res.Pods[1].Reason)
	require.Equal(t, `pods "c" is forbidden: failed quota: q: must specify limits.cpu for: c`, res.Pods[2].Reason)
}
