package dra

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
)

// Shared capacity at its edges: a request of exactly a valid value takes
// that value, a claim may take the last of a capacity, and a default
// outside the policy's range or steps is still allowed, as kube allows it.
func TestSharedCapacityEdges(t *testing.T) {
	values := &cluster.CapacityRequestPolicy{ValidValues: []cluster.Quantity{q(5), q(20), q(30)}}
	offStep := &cluster.CapacityRequestPolicy{Default: qp(5), ValidRange: &cluster.CapacityRange{Min: q(10), Step: qp(10)}}
	for _, tt := range []struct {
		name          string
		policy        *cluster.CapacityRequestPolicy
		used, request int64
		want          int64 // 0: does not fit
	}{
		{name: "a valid value asked exactly", policy: values, request: 20, used: 20, want: 20},
		{name: "the last of the capacity", request: 15, used: 25, want: 15},
		{name: "a default off the steps", policy: offStep, used: 30, want: 5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := &AllocatedState{}
			if tt.used > 0 {
				st.Add(&cluster.DeviceRequestAllocation{Driver: drv, Pool: "n1", Device: "g0", ConsumedCapacity: map[cluster.QualifiedName]cluster.Quantity{"memory": q(tt.used)}}, true)
			}
			res, ok, err := Allocate(&Input{Claims: []*cluster.ResourceClaim{claim("c1", memRequest(tt.request))}, Classes: gpuClass,
				Slices: []*cluster.ResourceSlice{nodeSlice("s", "n1", sharedGPU(tt.policy))},
				Node:   node("n1"), Allocated: st, Selectors: &eqSelector{}, Features: DefaultFeatures()})
			require.NoError(t, err)
			if tt.want == 0 {
				require.False(t, ok)
				return
			}
			require.True(t, ok)
			require.Equal(t, map[cluster.QualifiedName]cluster.Quantity{"memory": q(tt.want)}, res[0].Devices[0].ConsumedCapacity)
		})
	}
}
