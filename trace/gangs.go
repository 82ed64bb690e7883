package trace

import (
	"fmt"

	"github.com/gangsim/gangsim/podgroup"
	"github.com/gangsim/gangsim/scenario"
)

// makeGangs returns the pods, in file order, and the gangs GangOptions
// synthesise: every Size pods asking for at least MinGPUs whole GPUs make
// a PodGroup; its members arrive with the first of them and each runs
// until its own deletion.
func makeGangs(pods []tracePod, opts Options) ([]scenario.Pod, []podgroup.PodGroup) {
	out := make([]scenario.Pod, len(pods))
	for i := range pods {
		out[i] = pods[i].pod
	}
	g := opts.Gangs
	if g.Size < 2 {
		return out, nil
	}
	var members []int
	for i := range pods {
		if pods[i].gpus >= int64(g.MinGPUs) {
			members = append(members, i)
		}
	}
	var groups []podgroup.PodGroup
	for start := 0; start < len(members); start += g.Size {
		gang := members[start:min(start+g.Size, len(members))]
		name := fmt.Sprintf("gang-%d", len(groups))
		groups = append(groups, podgroup.PodGroup{Name: name, Policy: podgroup.Gang, MinCount: int32(len(gang)), TopologyKey: g.TopologyKey})
		at := pods[gang[0]].pod.At
		for _, i := range gang {
			p := &out[i]
			p.Pod.PodGroup, p.At = name, at
			if d := pods[i].deletion; d > 0 {
				p.Duration = d - at
			}
		}
	}
	return out, groups
}
