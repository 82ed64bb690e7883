// Package podgrouppodscount is the PodGroupPodsCount placement score: a
// placement that holds more of the group's pods scores higher.
package podgrouppodscount

import (
	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// Name is the plugin's name in profiles.
const Name = "PodGroupPodsCount"

// New returns the plugin; it takes no arguments.
func New(any, fw.Handle) (fw.Plugin, error) { return PodGroupPodsCount{}, nil }

// PodGroupPodsCount scores a placement by how many of the group's pods it
// holds: already scheduled members plus the proposed ones, normalised to
// 0..100 against the best candidate.
type PodGroupPodsCount struct{}

var (
	_ fw.PlacementScorePlugin     = PodGroupPodsCount{}
	_ fw.PlacementScoreNormalizer = PodGroupPodsCount{}
	_ fw.NodeIndependentScorer    = PodGroupPodsCount{}
)

// ScoreIgnoresNodes marks the score as a pod count.
func (PodGroupPodsCount) ScoreIgnoresNodes() {}

// Name returns Name.
func (PodGroupPodsCount) Name() string { return Name }

// ScorePlacement counts scheduled plus proposed pods (of the whole
// subtree, for a composite).
func (PodGroupPodsCount) ScorePlacement(_ *cluster.Snapshot, g *fw.Group, _ *fw.Placement, proposed []fw.Assignment) (int64, *fw.Status) {
	return int64(g.Scheduled + len(proposed)), nil
}

// NormalizePlacementScores maps counts to score*100/max; all zero is an
// error, as in kube-scheduler.
func (PodGroupPodsCount) NormalizePlacementScores(_ *fw.Group, scores []int64) *fw.Status {
	var most int64
	for _, s := range scores {
		most = max(most, s)
	}
	if most == 0 {
		return errNoPodsPlaced
	}
	for i := range scores {
		scores[i] = scores[i] * fw.MaxNodeScore / most
	}
	return nil
}

var errNoPodsPlaced = fw.NewStatus(fw.Error, "no pods from pod group are assigned to any of the candidate placements").WithPlugin(Name)
