package admission

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/gangsimtest"
)

// stored is a pod the API server stores, and whether it succeeded.
type stored struct {
	pod      cluster.Pod
	terminal bool
}

func storedPods(pods ...stored) StoredPods {
	return func(yield func(*cluster.Pod, bool) bool) {
		for i := range pods {
			if !yield(&pods[i].pod, pods[i].terminal) {
				return
			}
		}
	}
}

func quotas(t *testing.T, existing []stored, qs ...cluster.ResourceQuota) *Quotas {
	t.Helper()
	var out Quotas
	for _, q := range qs {
		require.NoError(t, out.Set(q, storedPods(existing...)))
	}
	return &out
}

// used returns the usage of the quota of a namespace and name.
func used(qs *Quotas, key string) cluster.ResourceList {
	for st := range qs.All() {
		if st.Quota.Key() == key {
			return st.Used
		}
	}
	return nil
}

// ResourceQuota admission of a pod being created, given the pods already
// there: the API server's refusal, or none.
func TestQuotasCheck(t *testing.T) {
	pod := gangsimtest.MakePod
	running := []stored{{pod: pod("a").CPU("1").Obj()}, {pod: pod("b").CPU("1").Obj()}}
	compute := cluster.ResourceQuota{Name: "compute", Hard: cluster.ResourceList{"requests.cpu": 2000, "pods": 10}}
	two := cluster.ResourceQuota{Name: "two", Hard: cluster.ResourceList{"pods": 2, "count/pods": 2}}
	mem := cluster.ResourceQuota{Name: "mem", Hard: cluster.ResourceList{"limits.memory": 4 * gi}}
	bestEffort := cluster.ResourceQuota{Name: "be", Hard: cluster.ResourceList{"pods": 0}, Scopes: []cluster.QuotaScope{cluster.ScopeBestEffort}}
	high := cluster.ResourceQuota{Name: "high", Hard: cluster.ResourceList{"pods": 0},
		ScopeSelector: []cluster.ScopeRequirement{{Scope: cluster.ScopePriorityClass, Operator: cluster.ScopeOpIn, Values: []string{"high"}}}}
	gpus := cluster.ResourceQuota{Name: "gpus", Hard: cluster.ResourceList{"requests.nvidia.com/gpu": 0}}
	services := cluster.ResourceQuota{Name: "services", Hard: cluster.ResourceList{"services": 0}}
	tests := []struct {
		name    string
		quotas  []cluster.ResourceQuota
		pod     cluster.Pod
		refusal string
	}{
		{name: "no quota", pod: pod("c").CPU("100").Obj()},
		{name: "room left", quotas: []cluster.ResourceQuota{compute}, pod: podWith("", "c", cluster.ResourceRequirements{Requests: cpu(0)})},
		{name: "exceeded: the resources past their limit alone", quotas: []cluster.ResourceQuota{compute}, pod: pod("c").CPU("1").Obj(),
			refusal: `pods "c" is forbidden: exceeded quota: compute, requested: requests.cpu=1, used: requests.cpu=2, limited: requests.cpu=2`},
		{name: "exceeded: several resources in name order", quotas: []cluster.ResourceQuota{two}, pod: pod("c").Obj(),
			refusal: `pods "c" is forbidden: exceeded quota: two, requested: count/pods=1,pods=1, used: count/pods=2,pods=2, limited: count/pods=2,pods=2`},
		{name: "the first quota in name order that is exceeded", quotas: []cluster.ResourceQuota{two, compute}, pod: pod("c").CPU("1").Obj(),
			refusal: `pods "c" is forbidden: exceeded quota: compute, requested: requests.cpu=1, used: requests.cpu=2, limited: requests.cpu=2`},
		{name: "must specify what a quota tracks of cpu and memory", quotas: []cluster.ResourceQuota{mem}, pod: pod("c").CPU("1").Obj(),
			refusal: `pods "c" is forbidden: failed quota: mem: must specify limits.memory for: c`},
		{name: "must specify comes before an exceeded quota", quotas: []cluster.ResourceQuota{compute, mem}, pod: pod("c").CPU("1").Obj(),
			refusal: `pods "c" is forbidden: failed quota: mem: must specify limits.memory for: c`},
		{name: "a scope the pod is not in", quotas: []cluster.ResourceQuota{bestEffort}, pod: pod("c").CPU("1").Obj()},
		{name: "a scope the pod is in", quotas: []cluster.ResourceQuota{bestEffort}, pod: pod("c").MilliCPU(0).Obj(),
			refusal: `pods "c" is forbidden: exceeded quota: be, requested: pods=1, used: pods=0, limited: pods=0`},
		{name: "a priority class scope, another class", quotas: []cluster.ResourceQuota{high}, pod: pod("c").PriorityClass("low").Obj()},
		{name: "a priority class scope, its class", quotas: []cluster.ResourceQuota{high}, pod: pod("c").PriorityClass("high").Obj(),
			refusal: `pods "c" is forbidden: exceeded quota: high, requested: pods=1, used: pods=0, limited: pods=0`},
		{name: "another namespace's quota", quotas: []cluster.ResourceQuota{compute}, pod: pod("c").Namespace("other").CPU("1").Obj()},
		{name: "none of a resource the pod does not ask", quotas: []cluster.ResourceQuota{gpus}, pod: pod("c").CPU("1").Obj()},
		{name: "an extended resource the pod asks", quotas: []cluster.ResourceQuota{gpus}, pod: pod("c").GPU(1).Obj(),
			refusal: `pods "c" is forbidden: exceeded quota: gpus, requested: requests.nvidia.com/gpu=1, used: requests.nvidia.com/gpu=0, limited: requests.nvidia.com/gpu=0`},
		{name: "a quota of other objects than pods", quotas: []cluster.ResourceQuota{services}, pod: pod("c").Obj()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			qs := quotas(t, running, tt.quotas...)
			rej := qs.Check(&tt.pod)
			if tt.refusal == "" {
				require.Nil(t, rej)
				return
			}
			require.NotNil(t, rej)
			require.Equal(t, tt.refusal, rej.Reason)
			require.Equal(t, "gangsim: "+tt.refusal, rej.Error())
			require.ErrorIs(t, rej, ErrRejected)
			require.Equal(t, cluster.MakePodKey(tt.pod.Namespace, tt.pod.Name), rej.Pod)
		})
	}
}

// Usage is the pods not in a terminal phase; count/pods counts every pod
// stored, so a succeeded pod frees all but it and a deleted one frees it
// too.
func TestQuotasUsage(t *testing.T) {
	pod := gangsimtest.MakePod
	q := cluster.ResourceQuota{Name: "q", Hard: cluster.ResourceList{"pods": 5, "count/pods": 5, "cpu": 8000}}
	job, web := pod("job").CPU("1").Obj(), pod("web").CPU("2").Obj()
	other := pod("x").Namespace("other").CPU("4").Obj()
	qs := quotas(t, []stored{{pod: job}, {pod: pod("done").CPU("3").Obj(), terminal: true}, {pod: other}}, q)
	require.Equal(t, cluster.ResourceList{"pods": 1, "count/pods": 2, "cpu": 1000}, used(qs, "default/q"), "counted from the namespace's pods at Set")

	steps := []struct {
		name string
		do   func()
		want cluster.ResourceList
	}{
		{"created", func() { qs.Charge(&web) }, cluster.ResourceList{"pods": 2, "count/pods": 3, "cpu": 3000}},
		{"another namespace's pod", func() { qs.Charge(&other) }, cluster.ResourceList{"pods": 2, "count/pods": 3, "cpu": 3000}},
		{"succeeded: stored still", func() { qs.Ended(&job, false, true) }, cluster.ResourceList{"pods": 1, "count/pods": 3, "cpu": 2000}},
		{"a succeeded pod deleted", func() { qs.Ended(&job, true, false) }, cluster.ResourceList{"pods": 1, "count/pods": 2, "cpu": 2000}},
		{"deleted", func() { qs.Ended(&web, false, false) }, cluster.ResourceList{"pods": 0, "count/pods": 1, "cpu": 0}},
	}
	for _, st := range steps {
		st.do()
		require.Equal(t, st.want, used(qs, "default/q"), st.name)
	}
	require.NoError(t, qs.Recount(storedPods(stored{pod: pod("done").CPU("3").Obj(), terminal: true})))
	require.EqualError(t, qs.Recount(storedPods(stored{pod: web})),
		"resource quota default/q counts count/pods=1,cpu=0,pods=0 used, the pods use count/pods=1,cpu=2,pods=1")
}

// Set replaces a quota of the same name and counts it anew; All yields
// copies by namespace and name; a clone's usage is its own.
func TestQuotasSetAllClone(t *testing.T) {
	pod := gangsimtest.MakePod
	a := pod("a").CPU("1").Obj()
	existing := []stored{{pod: a}}
	qs := quotas(t, existing,
		cluster.ResourceQuota{Namespace: "z", Name: "q", Hard: cluster.ResourceList{"pods": 1}},
		cluster.ResourceQuota{Name: "b", Hard: cluster.ResourceList{"pods": 1}},
		cluster.ResourceQuota{Name: "a", Hard: cluster.ResourceList{"pods": 1, "services": 3}})
	var keys []string
	for st := range qs.All() {
		keys = append(keys, st.Quota.Key())
		st.Used["pods"], st.Quota.Hard["pods"] = 99, 99 // the caller's copies
	}
	require.Equal(t, []string{"default/a", "default/b", "z/q"}, keys)
	require.Equal(t, cluster.ResourceList{"pods": 1}, used(qs, "default/a"), "services count no pods and are not tracked")
	require.NotNil(t, qs.Check(&existing[0].pod))

	require.NoError(t, qs.Set(cluster.ResourceQuota{Name: "a", Hard: cluster.ResourceList{"pods": 3, "requests.cpu": 4000}}, storedPods(existing...)))
	require.Equal(t, cluster.ResourceList{"pods": 1, "requests.cpu": 1000}, used(qs, "default/a"), "replaced and counted anew")

	fork := qs.Clone()
	b := pod("b").Obj()
	fork.Charge(&b)
	require.Equal(t, int64(1), used(qs, "default/b")["pods"])
	require.Equal(t, int64(2), used(&fork, "default/b")["pods"])

	err := qs.Set(cluster.ResourceQuota{Name: "bad", Hard: cluster.ResourceList{"pods": -1}}, storedPods())
	require.ErrorIs(t, err, cluster.ErrResourceQuota)
	require.Nil(t, used(qs, "default/bad"))
}

// The zero Quotas hold none and admit every pod.
func TestQuotasZero(t *testing.T) {
	var qs Quotas
	p := gangsimtest.MakePod("p").CPU("1").Obj()
	require.Nil(t, qs.Check(&p))
	qs.Charge(&p)
	qs.Ended(&p, false, false)
	require.NoError(t, qs.Recount(storedPods(stored{pod: p})))
	require.Empty(t, qs.Clone())
	for range qs.All() {
		t.Fatal("no quota")
	}
}
