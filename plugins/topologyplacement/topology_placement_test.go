package topologyplacement_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/plugins/topologyplacement"
)

// racks builds the nodes n1..n5 (snapshot indexes 0..4): n1 and n3 in rack
// r1, n2 in r2, n5 in r3, and n4 in no rack.
func racks(t *testing.T) (*cluster.Cache, *cluster.Snapshot) {
	t.Helper()
	c := cluster.NewCache()
	for _, n := range []*gangsimtest.NodeWrapper{
		gangsimtest.MakeNode("n1").Rack("r1"), gangsimtest.MakeNode("n2").Rack("r2"), gangsimtest.MakeNode("n3").Rack("r1"),
		gangsimtest.MakeNode("n4"), gangsimtest.MakeNode("n5").Rack("r3"),
	} {
		require.NoError(t, c.AddNode(n.CPU("4").Obj()))
	}
	return c, c.Snapshot()
}

// group is the group w builds, with members scheduled on the named nodes.
func group(w *gangsimtest.PodGroupWrapper, scheduledOn ...string) *fw.Group {
	pg := w.Obj()
	return &fw.Group{PodGroup: &pg, Scheduled: len(scheduledOn), ScheduledNodes: scheduledOn}
}

func TestTopologyPlacementGeneratePlacements(t *testing.T) {
	const rack = gangsimtest.LabelRack
	r1 := fw.Placement{Name: "r1", Nodes: []int{0, 2}, Key: rack, Domain: 0}
	r2 := fw.Placement{Name: "r2", Nodes: []int{1}, Key: rack, Domain: 1}
	r3 := fw.Placement{Name: "r3", Nodes: []int{4}, Key: rack, Domain: 2}
	gang := func() *gangsimtest.PodGroupWrapper { return gangsimtest.MakeGang("g", 2) }
	topology := func(msg string) *fw.Status {
		return fw.NewStatus(fw.Error, "topologyplacement: topology: "+msg).WithPlugin(topologyplacement.Name)
	}
	tests := []struct {
		name   string
		group  *fw.Group
		parent fw.Placement
		want   []fw.Placement // nil: none
		status *fw.Status
	}{
		{"no topology key: the parent placement alone", group(gang()), fw.Placement{}, []fw.Placement{{}}, nil},
		{"no topology key, within a parent", group(gang()), r2, []fw.Placement{r2}, nil},
		{"one per rack in value order; n4 in none", group(gang().Rack()), fw.Placement{}, []fw.Placement{r1, r2, r3}, nil},
		{"a key no node has: none", group(gang().Zone()), fw.Placement{}, nil, nil},
		{"a member on n3 pins r1", group(gang().Rack(), "n3"), fw.Placement{}, []fw.Placement{r1}, nil},
		{"members on n1 and n3 pin r1", group(gang().Rack(), "n1", "n3"), fw.Placement{}, []fw.Placement{r1}, nil},
		{"a member on n5 pins r3", group(gang().Rack(), "n5"), fw.Placement{}, []fw.Placement{r3}, nil},
		{"within a parent: its nodes by rack, whole racks keep their domain", group(gang().Rack()), fw.Placement{Name: "p", Nodes: []int{0, 1, 3}},
			[]fw.Placement{{Name: "r1", Nodes: []int{0}}, {Name: "r2", Nodes: []int{1}, Key: rack, Domain: 1}}, nil},
		{"within a parent without the pinned rack: none", group(gang().Rack(), "n5"), fw.Placement{Name: "p", Nodes: []int{0, 1}}, nil, nil},
		{"within an empty parent: none", group(gang().Rack()), fw.Placement{Name: "p", Nodes: []int{}}, nil, nil},
		{"members in r1 and r2: an error", group(gang().Rack(), "n1", "n2"), fw.Placement{}, nil,
			topology(`more than 1 domain found for key "rack": "r1" and "r2"`)},
		{"a member on a node without the key: an error", group(gang().Rack(), "n1", "n4"), fw.Placement{}, nil,
			topology(`node "n4" of a scheduled member has no label "rack"`)},
		{"a member on a node the snapshot lacks: an error", group(gang().Rack(), "gone"), fw.Placement{}, nil,
			topology(`node "gone" of a scheduled member is not in the snapshot`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, snap := racks(t)
			tp := topologyplacement.NewTopologyPlacement()
			for range 2 { // the second time from its cache
				got, st := tp.GeneratePlacements(snap, tt.group, tt.parent)
				require.Equal(t, tt.status, st)
				if len(got) == 0 {
					got = nil // none, however it is said
				}
				require.Equal(t, tt.want, got)
			}
		})
	}
}

// The domains follow the nodes: a node labelled anew, or a new node, moves
// or adds domains though the generator remembered the old ones.
func TestTopologyPlacementFollowsNodeChanges(t *testing.T) {
	c, snap := racks(t)
	tp := topologyplacement.NewTopologyPlacement()
	g := group(gangsimtest.MakeGang("g", 2).Rack())
	names := func() map[string][]int {
		ps, st := tp.GeneratePlacements(snap, g, fw.Placement{})
		require.Nil(t, st)
		out := map[string][]int{}
		for _, p := range ps {
			out[p.Name] = p.Nodes
		}
		return out
	}
	require.Equal(t, map[string][]int{"r1": {0, 2}, "r2": {1}, "r3": {4}}, names())
	require.NoError(t, c.UpdateNode(gangsimtest.MakeNode("n4").CPU("4").Rack("r2").Obj()))
	require.NoError(t, c.UpdateSnapshot(snap))
	require.Equal(t, map[string][]int{"r1": {0, 2}, "r2": {1, 3}, "r3": {4}}, names(), "n4 joined r2")
	require.NoError(t, c.AddNode(gangsimtest.MakeNode("n0").CPU("4").Rack("r0").Obj()))
	require.NoError(t, c.UpdateSnapshot(snap))
	require.Equal(t, map[string][]int{"r0": {0}, "r1": {1, 3}, "r2": {2, 4}, "r3": {5}}, names(), "n0 came first, in a rack of its own")
}
