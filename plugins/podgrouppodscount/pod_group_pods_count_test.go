package podgrouppodscount_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/plugins/podgrouppodscount"
)

// A placement scores the group's pods it would hold: those already
// scheduled (anywhere in the subtree) and those proposed for it.
func TestPodGroupPodsCountScorePlacement(t *testing.T) {
	pg := gangsimtest.MakeGang("g", 4).Obj()
	proposed := func(n int) []fw.Assignment {
		var out []fw.Assignment
		for i := range n {
			out = append(out, fw.Assignment{Pod: cluster.NewPodInfo(gangsimtest.MakePod(fmt.Sprintf("p%d", i)).Group("g").Obj()), Node: i % 2})
		}
		return out
	}
	tests := []struct {
		name      string
		scheduled int
		proposed  []fw.Assignment
		want      int64
	}{
		{"nothing", 0, nil, 0},
		{"proposed only", 0, proposed(3), 3},
		{"scheduled only", 2, nil, 2},
		{"both", 2, proposed(3), 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := &fw.Group{PodGroup: &pg, Scheduled: tt.scheduled}
			got, st := podgrouppodscount.PodGroupPodsCount{}.ScorePlacement(nil, g, &fw.Placement{Name: "r1"}, tt.proposed)
			require.Nil(t, st)
			require.Equal(t, tt.want, got)
		})
	}
}

// Counts are stretched to 0..100 against the best placement, truncated;
// when no placement holds a pod, normalising is an error and the scores
// are left as they were.
func TestPodGroupPodsCountNormalizePlacementScores(t *testing.T) {
	none := fw.NewStatus(fw.Error, "no pods from pod group are assigned to any of the candidate placements").WithPlugin(podgrouppodscount.Name)
	tests := []struct {
		name   string
		scores []int64
		want   []int64
		status *fw.Status
	}{
		{"the best gets 100", []int64{4, 2, 0}, []int64{100, 50, 0}, nil},
		{"truncated: 100*1/3 = 33", []int64{3, 1}, []int64{100, 33}, nil},
		{"order kept", []int64{7, 3, 5}, []int64{100, 42, 71}, nil},
		{"equal counts all 100", []int64{2, 2}, []int64{100, 100}, nil},
		{"one placement", []int64{5}, []int64{100}, nil},
		{"all zero", []int64{0, 0}, []int64{0, 0}, none},
		{"no placement", []int64{}, []int64{}, none},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pg := gangsimtest.MakeGang("g", 2).Obj()
			scores := append([]int64{}, tt.scores...)
			require.Equal(t, tt.status, podgrouppodscount.PodGroupPodsCount{}.NormalizePlacementScores(&fw.Group{PodGroup: &pg}, scores))
			require.Equal(t, tt.want, scores)
		})
	}
}
