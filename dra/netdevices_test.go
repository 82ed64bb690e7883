package dra

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
)

// The structured allocator on devices no node owns, as kube's allocator
// treats them: a slice with allNodes is reached from every node, one
// with a nodeSelector from the nodes it selects; an allocation of only
// such devices carries kube's node selector (nil for allNodes devices,
// one term with the slices' requirements otherwise), and one holding a
// node-local device is pinned to that node. Issue 48.
func TestAllocateNodeIndependent(t *testing.T) {
	zone := func(z string) cluster.SelectorTerm {
		return cluster.SelectorTerm{MatchExpressions: []cluster.SelectorRequirement{{Key: "zone", Operator: cluster.SelectorIn, Values: []string{z}}}}
	}
	local := nodeSlice("n1-gpus", "n1", gpu("g0", "a100", "r0"))
	fabric := &cluster.ResourceSlice{Name: "fabric", Driver: drv, Pool: cluster.ResourcePool{Name: "fabric", Generation: 1, SliceCount: 1}, AllNodes: true,
		Devices: []cluster.Device{gpu("ng0", "net", "f"), gpu("ng1", "net", "f")}}
	rack := &cluster.ResourceSlice{Name: "rack-a", Driver: drv, Pool: cluster.ResourcePool{Name: "rack-a", Generation: 1, SliceCount: 1},
		NodeSelector: []cluster.SelectorTerm{zone("a")}, Devices: []cluster.Device{gpu("rg0", "rack", "a")}}
	n1 := &cluster.Node{Name: "n1", Labels: map[string]string{"zone": "a"}}
	n2 := &cluster.Node{Name: "n2", Labels: map[string]string{"zone": "b"}}
	all := []*cluster.ResourceSlice{local, fabric, rack}
	netUsed := &AllocatedState{}
	netUsed.Add(&cluster.DeviceRequestAllocation{Driver: drv, Pool: "fabric", Device: "ng0"}, false)
	tests := []struct {
		name      string
		node      *cluster.Node
		claims    []*cluster.ResourceClaim
		allocated *AllocatedState
		want      string // picks, "" for cannot allocate
		wantNode  string
		wantSel   []cluster.SelectorTerm
	}{
		{name: "allNodes device: usable everywhere", node: n2, claims: []*cluster.ResourceClaim{claim("c", exact("gpu", 1, "model=net"))},
			want: "gpu=ng0"},
		{name: "nodeSelector device on a node it selects: the slice's selector", node: n1, claims: []*cluster.ResourceClaim{claim("c", exact("gpu", 1, "model=rack"))},
			want: "gpu=rg0", wantSel: []cluster.SelectorTerm{zone("a")}},
		{name: "nodeSelector device from a node it does not select", node: n2, claims: []*cluster.ResourceClaim{claim("c", exact("gpu", 1, "model=rack"))}},
		{name: "allNodes and nodeSelector devices: the selectors' requirements", node: n1,
			claims: []*cluster.ResourceClaim{claim("c", exact("net", 1, "model=net"), exact("rack", 1, "model=rack"))},
			want:   "net=ng0 rack=rg0", wantSel: []cluster.SelectorTerm{zone("a")}},
		{name: "a node-local device pins the claim to its node", node: n1,
			claims: []*cluster.ResourceClaim{claim("c", exact("local", 1, "model=a100"), exact("net", 1, "model=net"))},
			want:   "local=g0 net=ng0", wantNode: "n1"},
		{name: "a network device another node's claim holds is in use", node: n2, allocated: netUsed,
			claims: []*cluster.ResourceClaim{claim("c", exact("gpu", 1, "model=net"))}, want: "gpu=ng1"},
		{name: "both network devices: one in use elsewhere, cannot allocate", node: n1, allocated: netUsed,
			claims: []*cluster.ResourceClaim{claim("c", exact("gpu", 2, "model=net"))}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, ok, err := Allocate(&Input{Claims: tc.claims, Classes: gpuClass, Slices: all, Node: tc.node,
				Allocated: tc.allocated, Selectors: &eqSelector{}, Features: DefaultFeatures()})
			require.NoError(t, err)
			if tc.want == "" {
				require.False(t, ok)
				return
			}
			require.True(t, ok)
			require.Equal(t, tc.want, picked(res))
			require.Equal(t, tc.wantNode, res[0].Node)
			require.Equal(t, tc.wantSel, res[0].NodeSelector)
			a := res[0]
			require.Equal(t, tc.wantNode == "", a.NodeIndependent())
			require.True(t, a.UsableOn(tc.node))
			if tc.wantNode == "" {
				require.Equal(t, tc.wantSel == nil, a.UsableOn(n2), "n2 is in zone b")
			}
		})
	}
}
