package main

import (
	"fmt"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// ZoneExclusive keeps pods that carry the same "exclusive" label value in
// different zones: a policy that reads other nodes than the one it filters.
// Its PreFilter counts such pods per zone; its extensions keep the counts
// right while preemption tries victims, so the engine never assumes it
// reads only one node.
type ZoneExclusive struct{}

const zoneExclusiveName = "ZoneExclusive"

var (
	_ fw.PreFilterPlugin     = ZoneExclusive{}
	_ fw.PreFilterExtensions = ZoneExclusive{}
	_ fw.FilterPlugin        = ZoneExclusive{}
)

// zoneCounts counts, per zone, the pods that share the incoming pod's
// exclusive value.
type zoneCounts map[string]int

func (z zoneCounts) Clone() fw.StateData {
	cp := make(zoneCounts, len(z))
	for k, v := range z {
		cp[k] = v
	}
	return cp
}

func (ZoneExclusive) Name() string { return zoneExclusiveName }

func exclusive(p *cluster.PodInfo) string { return p.Pod().Labels["exclusive"] }

// PreFilter skips pods without the label, and counts the others' peers.
func (ZoneExclusive) PreFilter(state *fw.CycleState, pod *cluster.PodInfo, snap *cluster.Snapshot) *fw.Status {
	value := exclusive(pod)
	if value == "" {
		return fw.NewStatus(fw.Skip)
	}
	counts := zoneCounts{}
	for _, ni := range snap.Nodes() {
		for other := range ni.Pods() {
			if other.Key() != pod.Key() && exclusive(other) == value {
				counts[ni.Node().Labels["zone"]]++
			}
		}
	}
	state.Write(zoneExclusiveName, counts)
	return nil
}

func (ZoneExclusive) AddPod(state *fw.CycleState, pod, added *cluster.PodInfo, node *cluster.NodeInfo) *fw.Status {
	return change(state, pod, added, node, 1)
}

func (ZoneExclusive) RemovePod(state *fw.CycleState, pod, removed *cluster.PodInfo, node *cluster.NodeInfo) *fw.Status {
	return change(state, pod, removed, node, -1)
}

func change(state *fw.CycleState, pod, other *cluster.PodInfo, node *cluster.NodeInfo, delta int) *fw.Status {
	if exclusive(other) != exclusive(pod) {
		return nil
	}
	data, _ := state.Read(zoneExclusiveName)
	data.(zoneCounts)[node.Node().Labels["zone"]] += delta
	return nil
}

// Filter rejects a node whose zone already holds a peer; evicting the peer
// would help, so the rejection is Unschedulable and preemption may try.
func (ZoneExclusive) Filter(state *fw.CycleState, pod *cluster.PodInfo, node *cluster.NodeInfo) *fw.Status {
	data, _ := state.Read(zoneExclusiveName)
	if zone := node.Node().Labels["zone"]; data.(zoneCounts)[zone] > 0 {
		return fw.NewStatus(fw.Unschedulable, fmt.Sprintf("zone already holds an exclusive %q pod", exclusive(pod)))
	}
	return nil
}

// PreferLabel scores 100 on nodes with a label value, 0 elsewhere. Its
// answer depends on the node alone, so it signs every pod with nothing,
// and the engine remembers its scores per node.
type PreferLabel struct{ args PreferLabelArgs }

// PreferLabelArgs say which label value to prefer.
type PreferLabelArgs struct {
	Label string `yaml:"label"`
	Value string `yaml:"value"`
}

var (
	_ fw.ScorePlugin = (*PreferLabel)(nil)
	_ fw.Signer      = (*PreferLabel)(nil)
)

func (*PreferLabel) Name() string { return "PreferLabel" }

func (p *PreferLabel) Score(_ *fw.CycleState, _ *cluster.PodInfo, node *cluster.NodeInfo) (int64, *fw.Status) {
	if node.Node().Labels[p.args.Label] == p.args.Value {
		return fw.MaxNodeScore, nil
	}
	return 0, nil
}

func (*PreferLabel) Sign(_ *cluster.PodInfo, sig []byte) ([]byte, bool) { return sig, true }

// GoldRacks scores a placement 100 when all its nodes are in the gold tier.
type GoldRacks struct{}

var _ fw.PlacementScorePlugin = GoldRacks{}

func (GoldRacks) Name() string { return "GoldRacks" }

func (GoldRacks) ScorePlacement(snap *cluster.Snapshot, _ *fw.Group, p *fw.Placement, _ []fw.Assignment) (int64, *fw.Status) {
	for _, i := range p.Nodes {
		if snap.Node(i).Node().Labels["tier"] != "gold" {
			return 0, nil
		}
	}
	return fw.MaxNodeScore, nil
}

// Registry registers the three plugins.
func Registry() fw.Registry {
	return fw.Registry{
		zoneExclusiveName: {New: func(any, fw.Handle) (fw.Plugin, error) { return ZoneExclusive{}, nil }},
		"PreferLabel": {
			New: func(args any, _ fw.Handle) (fw.Plugin, error) {
				a, ok := args.(*PreferLabelArgs)
				if !ok || a.Label == "" {
					return nil, fmt.Errorf("PreferLabel needs arguments with a label")
				}
				return &PreferLabel{args: *a}, nil
			},
			Args: func() any { return &PreferLabelArgs{} },
		},
		"GoldRacks": {New: func(any, fw.Handle) (fw.Plugin, error) { return GoldRacks{}, nil }},
	}
}
