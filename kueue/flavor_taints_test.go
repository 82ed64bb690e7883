package kueue

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gangsim/gangsim/cluster"
)

// A flavor's nodeTaints exclude the pod sets that do not tolerate them
// when their effect keeps pods off the nodes: NoSchedule and NoExecute
// alike (Kueue checks both); a PreferNoSchedule taint does not exclude.
// The first flavor is tainted, the second not: a pod set not tolerating
// the taint goes to the second.
func TestFlavorTaintEffects(t *testing.T) {
	for _, tc := range []struct {
		effect cluster.TaintEffect
		want   string // the flavor the workload is admitted with
	}{
		{cluster.TaintNoSchedule, "plain"},
		{cluster.TaintNoExecute, "plain"},
		{cluster.TaintPreferNoSchedule, "tainted"},
	} {
		t.Run(string(tc.effect), func(t *testing.T) {
			cq := newCQ("cq", "", group(quotas("tainted", rq{name: cpu, nominal: "4"}), quotas("plain", rq{name: cpu, nominal: "4"})))
			o := objects([]ClusterQueue{cq})
			for i := range o.ResourceFlavors {
				if o.ResourceFlavors[i].Name == "tainted" {
					o.ResourceFlavors[i].NodeTaints = []cluster.Taint{{Key: "dedicated", Value: "x", Effect: tc.effect}}
				}
			}
			r := newRun(t, o)
			r.add(wl("w", "lq-cq", 0, 0, 1, "1"))
			r.settle()
			w := r.a.workloads["default/w"]
			if assert.NotNil(t, w.admission, r.message("w")) {
				assert.Equal(t, tc.want, w.admission.PodSets[0].Flavors[cpu])
			}
		})
	}
}
