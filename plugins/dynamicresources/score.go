package dynamicresources

import (
	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/plugins/helper"
)

// Scoring: only requests with firstAvailable alternatives rank nodes.

// PreScore skips the pod unless a claim to allocate has a request with
// alternatives.
func (pl *DynamicResources) PreScore(state *fw.CycleState, _ *cluster.PodInfo, _ []*cluster.NodeInfo) *fw.Status {
	if s := readState(state); s == nil || !s.scored {
		return statusSkip
	}
	return nil
}

// Score sums, over the requests with alternatives, 8 less the index of the
// alternative the node's allocation takes: the first alternative scores
// most.
func (pl *DynamicResources) Score(state *fw.CycleState, _ *cluster.PodInfo, ni *cluster.NodeInfo) (int64, *fw.Status) {
	s := readState(state)
	if s == nil || !s.scored {
		return 0, nil
	}
	results, err := pl.allocationOn(s, ni)
	if err != nil {
		return 0, fw.NewStatus(fw.Error, err.Error()).WithPlugin(Name)
	}
	var score int64
	for i, rc := range s.toAllocate {
		taken := map[string]bool{}
		for _, d := range results[i].Devices {
			taken[d.Request] = true
		}
		for _, r := range rc.Spec.Requests {
			for j, sub := range r.FirstAvailable {
				if taken[r.Name+"/"+sub.Name] {
					score += int64(firstAvailableMaxSize - j)
				}
			}
		}
	}
	return score, nil
}

// PreScoreIgnoresNodes: PreScore reads the pod's state alone.
func (*DynamicResources) PreScoreIgnoresNodes() {}

// PreScoreSkips tells from the pod (and its claims as the snapshot holds
// them) that no claim it allocates has alternatives: PreScore will skip.
func (pl *DynamicResources) PreScoreSkips(pod *cluster.PodInfo) bool {
	p := pod.Pod()
	if len(p.ResourceClaims) == 0 {
		return true // an extended resources' claim has no alternatives
	}
	snap := pl.h.Snapshot()
	for i := range p.ResourceClaims {
		key := p.ClaimKey(i)
		rc, ok := snap.ResourceClaim(key)
		if !ok {
			continue // PreFilter rejects the pod
		}
		if _, _, allocated := snap.ClaimNode(key); allocated {
			continue
		}
		for _, r := range rc.Spec.Requests {
			if len(r.FirstAvailable) > 0 {
				return false
			}
		}
	}
	return true
}

// NormalizeOne is DefaultNormalizeScore for one score.
func (*DynamicResources) NormalizeOne(raw, highest int64) int64 {
	return helper.DefaultNormalizeScore(raw, highest)
}

// NormalizeScore scales the scores to 0..100, the highest to 100.
func (pl *DynamicResources) NormalizeScore(_ *fw.CycleState, _ *cluster.PodInfo, scores []fw.NodeScore) *fw.Status {
	helper.NormalizeScores(scores, false)
	return nil
}
