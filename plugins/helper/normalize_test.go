package helper_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/plugins/helper"
	"github.com/gangsim/gangsim/plugins/tainttoleration"
)

func TestNormalizeReverse(t *testing.T) {
	tests := []struct {
		name       string
		scores     []int64
		normalized []int64
	}{
		{"none", []int64{}, []int64{}},
		{"all zero -> all 100", []int64{0, 0, 0}, []int64{100, 100, 100}},
		{"0,1,2: 100-100*c/2", []int64{0, 1, 2}, []int64{100, 50, 0}},
		{"0,1,3: 100-33 = 67", []int64{0, 1, 3}, []int64{100, 67, 0}},
		{"all equal and non-zero -> 0", []int64{2, 2}, []int64{0, 0}},
		{"order kept", []int64{4, 0, 1}, []int64{0, 100, 75}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scores := func() []fw.NodeScore {
				out := make([]fw.NodeScore, len(tt.scores))
				for i, v := range tt.scores {
					out[i] = fw.NodeScore{Node: i, Score: v}
				}
				return out
			}
			values := func(ns []fw.NodeScore) []int64 {
				out := make([]int64, len(ns))
				for i := range ns {
					out[i] = ns[i].Score
				}
				return out
			}
			got := scores()
			helper.NormalizeScores(got, true)
			require.Equal(t, tt.normalized, values(got))
			got = scores()
			require.Nil(t, tainttoleration.TaintToleration{}.NormalizeScore(nil, nil, got))
			require.Equal(t, tt.normalized, values(got), "the plugin normalises the same")
		})
	}
}
