package placement_test

import (
	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/placement"
)

// Helpers shared by the package's tests; nodes and pods are built with
// gangsimtest.

const (
	mi = int64(1) << 20
	gi = int64(1) << 30

	NS = cluster.TaintNoSchedule
	NE = cluster.TaintNoExecute
	PN = cluster.TaintPreferNoSchedule
)

// podInfo is the pending pod w builds.
func podInfo(w *gangsimtest.PodWrapper) *cluster.PodInfo { return cluster.NewPodInfo(w.Obj()) }

// newPodScheduler arranges filters and scorers as a profile does (a score
// plugin that has PreScore runs it) into a PodScheduler.
func newPodScheduler(filters []fw.FilterPlugin, scorers []placement.WeightedScorer, pct int32) *placement.PodScheduler {
	pp := placement.PodPlugins{Filter: filters, Score: scorers}
	for _, ws := range scorers {
		if pre, ok := ws.Plugin.(fw.PreScorePlugin); ok {
			pp.PreScore = append(pp.PreScore, pre)
		}
	}
	return placement.NewPodScheduler(pp, pct, placement.Shortcuts{})
}
