package kueue_test

import (
	"fmt"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/kueue"
)

// A ClusterQueue may lend at most its nominal quota: Kueue's webhook
// refuses a lendingLimit above it, naming the field.
func ExampleClusterQueue_Validate() {
	ten := int64(10_000) // 10 cpu, in millicores
	q := kueue.ClusterQueue{Name: "team-a", CohortName: "all", ResourceGroups: []kueue.ResourceGroup{{
		CoveredResources: []cluster.ResourceName{cluster.ResourceCPU},
		Flavors: []kueue.FlavorQuotas{{Name: "default", Resources: []kueue.ResourceQuota{
			{Name: cluster.ResourceCPU, NominalQuota: 9_000, LendingLimit: &ten}}}},
	}}}
	fmt.Println(q.Validate())
	// Output: spec.resourceGroups[0].flavors[0].resources[0].lendingLimit: Invalid value: "10": must be less than or equal to the nominalQuota
}

// Topology-aware scheduling: a flavor over two racks of two nodes (2 cpu
// each, one of r1's half taken by a pod Kueue does not manage), and a
// workload of 3 pods of 1 cpu that must share a rack. r1 holds 3 pods
// (n1 1, n2 2), r2 4: the best fit is r1; in it n2 takes 2 and n1 the
// last.
func ExampleAdmitter_SetNodes() {
	cpu := cluster.ResourceCPU
	objs := &kueue.Objects{
		Topologies:      []kueue.Topology{{Name: "dc", Levels: []string{"rack", "kubernetes.io/hostname"}}},
		ResourceFlavors: []kueue.ResourceFlavor{{Name: "tas", NodeLabels: map[string]string{"pool": "a"}, TopologyName: "dc"}},
		ClusterQueues: []kueue.ClusterQueue{{Name: "cq", NamespaceSelector: &cluster.LabelSelector{}, ResourceGroups: []kueue.ResourceGroup{{
			CoveredResources: []cluster.ResourceName{cpu},
			Flavors:          []kueue.FlavorQuotas{{Name: "tas", Resources: []kueue.ResourceQuota{{Name: cpu, NominalQuota: 100_000}}}},
		}}}},
		LocalQueues: []kueue.LocalQueue{{Namespace: "default", Name: "lq", ClusterQueue: "cq"}},
	}
	a, err := kueue.New(objs, kueue.DefaultConfig())
	if err != nil {
		fmt.Println(err)
		return
	}
	node := func(name, rack string, used int64) kueue.TASNode {
		return kueue.TASNode{Name: name, Labels: map[string]string{"pool": "a", "rack": rack, "kubernetes.io/hostname": name},
			Allocatable: cluster.ResourceList{cpu: 2000, cluster.ResourcePods: 110}, NonTAS: cluster.ResourceList{cpu: used}}
	}
	nodes := []kueue.TASNode{node("n1", "r1", 1000), node("n2", "r1", 0), node("n3", "r2", 0), node("n4", "r2", 0)}
	a.SetNodes(func() []kueue.TASNode { return nodes })
	_ = a.Add(&kueue.Workload{Namespace: "default", Name: "w", Queue: "lq", PodSets: []kueue.PodSet{{
		Name: "main", Count: 3, Requests: cluster.ResourceList{cpu: 1000}, Topology: &kueue.TopologyRequest{Required: "rack"}}}})
	for _, e := range a.Step() {
		if e.Kind == kueue.QuotaReserved {
			fmt.Println(e.Workload, e.Admission.PodSets[0].TopologyAssignment)
		}
	}
	// Output: default/w kubernetes.io/hostname=n1:1 kubernetes.io/hostname=n2:2
}
