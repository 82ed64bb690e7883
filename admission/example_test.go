package admission_test

import (
	"fmt"

	"github.com/gangsim/gangsim/admission"
	"github.com/gangsim/gangsim/cluster"
)

// A namespace's LimitRange gives a bare container its default request, and
// its ResourceQuota admits pods while they leave room, counting each one
// created: the third pod is refused in the API server's words.
func Example() {
	var limits admission.LimitRanger
	var quotas admission.Quotas
	_ = limits.Set(cluster.LimitRange{Namespace: "team", Name: "defaults", Limits: []cluster.LimitRangeItem{
		{Type: cluster.LimitTypeContainer, DefaultRequest: cluster.ResourceList{cluster.ResourceCPU: 500}}}})
	_ = quotas.Set(cluster.ResourceQuota{Namespace: "team", Name: "compute", Hard: cluster.ResourceList{"requests.cpu": 1000}}, nil)
	for _, name := range []string{"a", "b", "c"} {
		p := cluster.Pod{Namespace: "team", Name: name}
		limits.Default(&p)
		if rej := quotas.Check(&p); rej != nil {
			fmt.Println(rej.Reason)
			continue
		}
		quotas.Charge(&p)
	}
	for q := range quotas.All() {
		fmt.Println(q.Quota.Key(), q.Used)
	}
	// Output:
	// pods "c" is forbidden: exceeded quota: compute, requested: requests.cpu=500m, used: requests.cpu=1, limited: requests.cpu=1
	// team/compute requests.cpu=1
}
