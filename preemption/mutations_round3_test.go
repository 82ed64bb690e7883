package preemption_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/preemption"
)

// Between two nodes whose victims tie on everything else, preemption
// picks the one whose top-priority victims started last, judged by the
// earliest start among them (as kube-scheduler does): n1's victims
// started at 1m and 10m, n2's at 5m and 6m, so n2 is picked.
func TestPickOneByEarliestStartOfTopVictims(t *testing.T) {
	unit := func(name string, start time.Duration) *preemption.Unit {
		prio := int32(5)
		return preemption.NewPodUnit(cluster.NewPodInfo(cluster.Pod{Name: name, Priority: &prio, StartTime: start}))
	}
	cands := []preemption.Candidate{
		{Node: 0, Victims: []*preemption.Unit{unit("a", time.Minute), unit("b", 10*time.Minute)}},
		{Node: 1, Victims: []*preemption.Unit{unit("c", 5*time.Minute), unit("d", 6*time.Minute)}},
	}
	require.Equal(t, 1, preemption.PickOne(cands))
}
