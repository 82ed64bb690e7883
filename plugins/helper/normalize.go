package helper

import (
	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// DefaultNormalizeScore is kube-scheduler's DefaultNormalizeScore for one
// score: 100*raw/highest, or raw unchanged when the highest is 0 or less.
func DefaultNormalizeScore(raw, highest int64) int64 {
	if highest <= 0 {
		return raw
	}
	return fw.MaxNodeScore * raw / highest
}

// ReverseNormalizeScore is DefaultNormalizeScore with reverse for one
// score: 100 - 100*raw/highest, or 100 when the highest is 0.
func ReverseNormalizeScore(raw, highest int64) int64 {
	if highest == 0 {
		return fw.MaxNodeScore
	}
	return fw.MaxNodeScore - fw.MaxNodeScore*raw/highest
}

// NormalizeScores normalises scores in place against the highest of them,
// by DefaultNormalizeScore, or by ReverseNormalizeScore when reverse is
// set.
func NormalizeScores(scores []fw.NodeScore, reverse bool) {
	var most int64
	for _, s := range scores {
		most = max(most, s.Score)
	}
	for i := range scores {
		if reverse {
			scores[i].Score = ReverseNormalizeScore(scores[i].Score, most)
		} else {
			scores[i].Score = DefaultNormalizeScore(scores[i].Score, most)
		}
	}
}

// SnapshotSource gives a plugin the cycle's snapshot at points that are
// not handed it (PreScore); framework.Handle is one.
type SnapshotSource interface {
	Snapshot() *cluster.Snapshot
}
