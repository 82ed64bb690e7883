package whatif_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/whatif"
)

// The same cluster twice: two nodes of four GPUs, once through the device
// plugin (nvidia.com/gpu in the allocatable), once through DRA (a
// ResourceSlice of four devices per node), and ten pods of one GPU each,
// running for ever. By hand: eight fit, two wait, and one more node of
// four GPUs holds them: both answer 1. Without the slices a copy of a DRA
// node has no GPU, and no count of copies places the two.
const pluginGPUs = `
nodes: [{name: g, allocatable: {cpu: "32", nvidia.com/gpu: "4"}, count: 2}]
pods: [{name: p, requests: {cpu: "1", nvidia.com/gpu: "1"}, count: 10}]
`

const draGPUs = `
nodes: [{name: g, allocatable: {cpu: "32"}, count: 2}]
deviceClasses:
  - {name: gpu.nvidia.com, selectors: [{cel: {expression: 'device.driver == "gpu.nvidia.com"'}}]}
resourceSlices:
  - name: g-0-gpu.nvidia.com-abcde
    driver: gpu.nvidia.com
    nodeName: g-0
    pool: {name: g-0, generation: 3, resourceSliceCount: 1}
    devices: [{name: gpu-0}, {name: gpu-1}, {name: gpu-2}, {name: gpu-3}]
  - name: g-1-gpu.nvidia.com-fghij
    driver: gpu.nvidia.com
    nodeName: g-1
    pool: {name: g-1, generation: 3, resourceSliceCount: 1}
    devices: [{name: gpu-0}, {name: gpu-1}, {name: gpu-2}, {name: gpu-3}]
resourceClaimTemplates:
  - {name: one-gpu, devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}]}}
pods:
  - {name: p, requests: {cpu: "1"}, count: 10, resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]}
`

func TestAddLikeCopiesDevices(t *testing.T) {
	for name, text := range map[string]string{"device plugin": pluginGPUs, "DRA": draGPUs} {
		a, err := whatif.FewestNodesToAdd(parse(t, text), "g-0", whatif.Criteria{Limit: 8}, whatif.Options{})
		require.NoError(t, err, name)
		requireMinimal(t, a)
		assert.Equal(t, 1, a.Count, name)
	}
	// racks: the domain of g-0 and g-1 copied whole, slices with it
	for name, text := range map[string]string{"device plugin": pluginGPUs, "DRA": draGPUs} {
		sc := parse(t, text)
		for i := range sc.Nodes {
			sc.Nodes[i].Labels = map[string]string{"rack": "r1"}
		}
		a, err := whatif.FewestDomainsToAdd(sc, "rack", "r1", whatif.Criteria{Limit: 4}, whatif.Options{})
		require.NoError(t, err, name)
		requireMinimal(t, a)
		assert.Equal(t, 1, a.Count, name)
	}
}

// A copy's slices are named for the new node, and so are their pools,
// whose generation and slice count are the template's; a slice of
// another node is not copied.
func TestAddLikeSliceNames(t *testing.T) {
	sc := parse(t, draGPUs)
	v := whatif.Variant{Changes: []whatif.Change{whatif.AddNodesLike{Node: "g-0", Count: 2}}}
	grown, err := v.Apply(sc)
	require.NoError(t, err)
	require.Len(t, grown.Devices.Slices, 4)
	assert.Len(t, sc.Devices.Slices, 2, "the base is not changed")
	for i, want := range []string{"g-0-new1", "g-0-new2"} {
		s := grown.Devices.Slices[2+i]
		assert.Equal(t, want, s.NodeName)
		assert.Equal(t, want+"-gpu.nvidia.com-abcde", s.Name)
		assert.Equal(t, want, s.Pool.Name)
		assert.Equal(t, int64(3), s.Pool.Generation)
		assert.Equal(t, int64(1), s.Pool.SliceCount)
		assert.Len(t, s.Devices, 4)
	}
}
