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
