package gangsim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
)

// recorded is an allocation of one GPU of a node, as a dump records it.
func recorded(node, device string) *cluster.AllocationResult {
	return &cluster.AllocationResult{Node: node, Devices: []cluster.DeviceRequestAllocation{
		{Request: "gpu", Driver: gpuDriver, Pool: node, Device: device}}}
}

// A claim that arrives allocated (a dump's status.allocation) gives its
// first running pod exactly those devices; an allocation of another node
// than the pod's, or of a device another claim holds, is refused with
// the pod, the entry and why. Issue 48.
func TestRecordedAllocationIsTaken(t *testing.T) {
	ts := newDeviceSched(t, false).gpus("n1", 2, "A100", false, "").gpus("n2", 1, "A100", false, "")
	require.NoError(t, ts.AddResourceClaim(cluster.ResourceClaim{Name: "held", Spec: gpuSpec(1, "", 0), Allocation: recorded("n1", "gpu-1")}))
	require.NoError(t, ts.AddPod(claimPod("a", "", "held").NodeName("n1").Obj(), 0))
	node, devs := ts.devicesOf("default/held")
	require.Equal(t, "n1", node)
	require.Equal(t, []string{"gpu-1"}, devs)

	require.NoError(t, ts.AddResourceClaim(cluster.ResourceClaim{Name: "elsewhere", Spec: gpuSpec(1, "", 0), Allocation: recorded("n1", "gpu-0")}))
	err := ts.AddPod(claimPod("b", "", "elsewhere").NodeName("n2").Obj(), 0)
	require.ErrorContains(t, err, `pod default/b: resourceClaims[0]: claim default/elsewhere: status.allocation: its devices are on node "n1", the pod runs on "n2"`)

	require.NoError(t, ts.AddResourceClaim(cluster.ResourceClaim{Name: "twice", Spec: gpuSpec(1, "", 0), Allocation: recorded("n1", "gpu-1")}))
	err = ts.AddPod(claimPod("c", "", "twice").NodeName("n1").Obj(), 0)
	require.ErrorContains(t, err, "claim default/twice: status.allocation: device gpu.nvidia.com/n1/gpu-1 is held by another claim")
}
