package dra

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
)

// sharedGPU is a device that several claims may share, with 40 units of
// memory under the given policy.
func sharedGPU(p *cluster.CapacityRequestPolicy) cluster.Device {
	d := gpu("g0", "a100", "r0")
	d.AllowMultipleAllocations = true
	d.Capacity = map[cluster.QualifiedName]cluster.DeviceCapacity{"memory": {Value: q(40), RequestPolicy: p}}
	return d
}

func memRequest(n int64) cluster.DeviceRequest {
	r := exact("gpu", 1)
	if n > 0 {
		r.Exactly.Capacity = map[cluster.QualifiedName]cluster.Quantity{"memory": q(n)}
	}
	return r
}

func TestSharedCapacity(t *testing.T) {
	step := &cluster.CapacityRequestPolicy{ValidRange: &cluster.CapacityRange{Min: q(10), Step: qp(10)}}
	values := &cluster.CapacityRequestPolicy{ValidValues: []cluster.Quantity{q(5), q(20), q(30)}}
	def := &cluster.CapacityRequestPolicy{Default: qp(10), ValidRange: &cluster.CapacityRange{Min: q(10), Max: qp(20)}}
	tests := []struct {
		name     string
		policy   *cluster.CapacityRequestPolicy
		used     int64 // committed by other pods
		request  int64 // 0: none
		want     int64 // consumed; 0: does not fit
		twoClaim bool  // a second claim of the pod asks the same
	}{
		{name: "no policy: as requested", request: 15, used: 20, want: 15},
		{name: "no policy: over capacity", request: 25, used: 20},
		{name: "no policy, no request: whole capacity", want: 40},
		{name: "no policy, no request beside another: does not fit", used: 1},
		{name: "step rounds up", policy: step, request: 15, used: 20, want: 20},
		{name: "step rounds up beyond what is left", policy: step, request: 15, used: 30},
		{name: "below min takes min", policy: step, request: 3, used: 30, want: 10},
		{name: "valid values round up", policy: values, request: 6, used: 20, want: 20},
		{name: "valid values beyond what is left", policy: values, request: 21, used: 20},
		{name: "above every valid value violates the policy", policy: values, request: 35},
		{name: "default when unrequested", policy: def, used: 30, want: 10},
		{name: "above max violates the policy", policy: def, request: 25},
		{name: "two claims of the pod share what is left", policy: step, request: 10, used: 20, want: 10, twoClaim: true},
		{name: "two claims of the pod do not fit together", policy: step, request: 15, used: 20, twoClaim: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &AllocatedState{}
			if tt.used > 0 {
				st.Add(&cluster.DeviceRequestAllocation{Driver: drv, Pool: "n1", Device: "g0", ConsumedCapacity: map[cluster.QualifiedName]cluster.Quantity{"memory": q(tt.used)}}, true)
			}
			claims := []*cluster.ResourceClaim{claim("c1", memRequest(tt.request))}
			if tt.twoClaim {
				claims = append(claims, claim("c2", memRequest(tt.request)))
			}
			res, ok, err := Allocate(&Input{Claims: claims, Classes: gpuClass, Slices: []*cluster.ResourceSlice{nodeSlice("s", "n1", sharedGPU(tt.policy))},
				Node: node("n1"), Allocated: st, Selectors: &eqSelector{}, Features: DefaultFeatures()})
			require.NoError(t, err)
			if tt.want == 0 {
				require.False(t, ok, "allocated %+v", res)
				return
			}
			require.True(t, ok)
			for _, r := range res {
				require.Equal(t, map[cluster.QualifiedName]cluster.Quantity{"memory": q(tt.want)}, r.Devices[0].ConsumedCapacity)
			}
		})
	}
}

func TestSharedCapacityFeatureOff(t *testing.T) {
	f := DefaultFeatures()
	f.ConsumableCapacity = false
	_, _, err := Allocate(&Input{Claims: []*cluster.ResourceClaim{claim("c", memRequest(5))}, Classes: gpuClass,
		Slices: []*cluster.ResourceSlice{nodeSlice("s", "n1", sharedGPU(nil))}, Node: node("n1"), Selectors: &eqSelector{}, Features: f})
	require.EqualError(t, err, "claim default/c, request gpu: has capacity requests, but the DRAConsumableCapacity feature is disabled")
	// Off, a shared device is taken whole, by one claim.
	res, ok, err := Allocate(&Input{Claims: []*cluster.ResourceClaim{claim("c1", exact("gpu", 1)), claim("c2", exact("gpu", 1))}, Classes: gpuClass,
		Slices: []*cluster.ResourceSlice{nodeSlice("s", "n1", sharedGPU(nil))}, Node: node("n1"), Selectors: &eqSelector{}, Features: f})
	require.NoError(t, err)
	require.False(t, ok, "%+v", res)
}

// migSlices is a GPU's memory counter (40) in one slice, and partitions
// that consume it in another.
func migSlices(parts ...int64) []*cluster.ResourceSlice {
	counters := nodeSlice("a-counters", "n1")
	counters.Pool.SliceCount = 2
	counters.SharedCounters = []cluster.CounterSet{{Name: "gpu0", Counters: map[string]cluster.Quantity{"memory": q(40)}}}
	devs := nodeSlice("b-devices", "n1")
	devs.Pool.SliceCount = 2
	for i, m := range parts {
		d := gpu("mig"+string(rune('0'+i)), "a100", "r0")
		d.ConsumesCounters = []cluster.DeviceCounterConsumption{{CounterSet: "gpu0", Counters: map[string]cluster.Quantity{"memory": q(m)}}}
		devs.Devices = append(devs.Devices, d)
	}
	return []*cluster.ResourceSlice{devs, counters}
}

func TestPartitionableCounters(t *testing.T) {
	tests := []struct {
		name      string
		parts     []int64
		count     int64
		allocated *AllocatedState
		want      string
	}{
		{name: "two partitions that overflow the counter", parts: []int64{30, 20}, count: 2},
		{name: "two partitions that fit", parts: []int64{20, 20}, count: 2, want: "gpu=mig0 gpu=mig1"},
		{name: "the first fits alone", parts: []int64{30, 20}, count: 1, want: "gpu=mig0"},
		{name: "a committed partition takes its share", parts: []int64{30, 20}, count: 1, allocated: exclusive("n1/mig0")},
		{name: "skips a partition that does not fit", parts: []int64{30, 20, 10}, count: 2, want: "gpu=mig0 gpu=mig2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, ok, err := Allocate(&Input{Claims: []*cluster.ResourceClaim{claim("c", exact("gpu", tt.count))}, Classes: gpuClass,
				Slices: migSlices(tt.parts...), Node: node("n1"), Allocated: tt.allocated, Selectors: &eqSelector{}, Features: DefaultFeatures()})
			require.NoError(t, err)
			if tt.want == "" {
				require.False(t, ok, "allocated %s", picked(res))
				return
			}
			require.True(t, ok)
			require.Equal(t, tt.want, picked(res))
		})
	}

	// Off, partitions are not offered at all (their counters' slice is dropped, the pool incomplete).
	f := DefaultFeatures()
	f.PartitionableDevices = false
	_, ok, err := Allocate(&Input{Claims: []*cluster.ResourceClaim{claim("c", exact("gpu", 1))}, Classes: gpuClass,
		Slices: migSlices(10), Node: node("n1"), Selectors: &eqSelector{}, Features: f})
	require.NoError(t, err)
	require.False(t, ok)

	// A partition consuming an unknown counter set makes the pool invalid.
	bad := migSlices(10)
	bad[0].Devices[0].ConsumesCounters[0].CounterSet = "gpu9"
	_, _, err = Allocate(&Input{Claims: []*cluster.ResourceClaim{claim("c", exact("gpu", 1))}, Classes: gpuClass,
		Slices: bad, Node: node("n1"), Selectors: &eqSelector{}, Features: DefaultFeatures()})
	require.ErrorIs(t, err, ErrInvalidPools)
}

func TestDistinctAttributeQuirk(t *testing.T) {
	// Kube keys distinct values by request name: a request's third device
	// is compared only with its second, so A, B, A passes.
	s := nodeSlice("s", "n1", gpu("g0", "a100", "A"), gpu("g1", "a100", "B"), gpu("g2", "a100", "A"))
	c := withConstraints(claim("c", exact("gpu", 3)), cluster.DeviceConstraint{DistinctAttribute: drv + "/pcieRoot"})
	res, ok, err := Allocate(&Input{Claims: []*cluster.ResourceClaim{c}, Classes: gpuClass, Slices: []*cluster.ResourceSlice{s},
		Node: node("n1"), Selectors: &eqSelector{}, Features: DefaultFeatures()})
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "gpu=g0 gpu=g1 gpu=g2", picked(res))
}

// A partition refused after its counters were checked (a taint it does
// not tolerate) gives them back, as kube consumes a device's counters
// only once every check passed: the next partition of the same counter
// set still fits.
func TestRefusedPartitionGivesCountersBack(t *testing.T) {
	tolerating := exact("gpu", 1)
	tolerating.Exactly.Tolerations = []cluster.DeviceToleration{{Key: "broken", Operator: cluster.TolerationExists}}
	tests := []struct {
		name    string
		effect  cluster.DeviceTaintEffect
		parts   []int64 // of a counter of 40; the first tainted
		request cluster.DeviceRequest
		want    string
	}{
		{name: "NoSchedule", effect: cluster.DeviceTaintNoSchedule, parts: []int64{30, 30}, request: exact("gpu", 1), want: "gpu=mig1"},
		{name: "NoExecute", effect: cluster.DeviceTaintNoExecute, parts: []int64{30, 30}, request: exact("gpu", 1), want: "gpu=mig1"},
		{name: "the rest of the counter for two", effect: cluster.DeviceTaintNoSchedule, parts: []int64{20, 20, 20}, request: exact("gpu", 2), want: "gpu=mig1 gpu=mig2"},
		{name: "tolerated", effect: cluster.DeviceTaintNoSchedule, parts: []int64{30, 30}, request: tolerating, want: "gpu=mig0"},
		{name: "None is ignored", effect: cluster.DeviceTaintNone, parts: []int64{30, 30}, request: exact("gpu", 1), want: "gpu=mig0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			slices := migSlices(tt.parts...)
			slices[0].Devices[0].Taints = []cluster.DeviceTaint{{Key: "broken", Value: "yes", Effect: tt.effect}}
			res, ok, err := Allocate(&Input{Claims: []*cluster.ResourceClaim{claim("c", tt.request)}, Classes: gpuClass,
				Slices: slices, Node: node("n1"), Selectors: &eqSelector{}, Features: DefaultFeatures()})
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, tt.want, picked(res))
		})
	}
}

// The same when capacity refuses the partition, which it can only in mode
// All (the other candidates' capacity is checked before): a partition
// that no longer allows multiple allocations while a share of it is still
// allocated (republished by its driver) is listed by mode All, whose
// capacity check then fails on it; the counters it took come back for the
// firstAvailable alternative after it.
func TestPartitionRefusedForCapacityGivesCountersBack(t *testing.T) {
	slices := hugeMIG(q(100), q(30), q(50)) // mig0, mig1
	mig0, mig1 := &slices[0].Devices[0], &slices[0].Devices[1]
	mig0.Attributes["model"] = str("a")
	mig1.Attributes["model"] = str("b")
	mig0.Capacity = map[cluster.QualifiedName]cluster.DeviceCapacity{"memory": {Value: q(10)}}
	st := &AllocatedState{} // the share, which also holds mig0's 30 of the counter
	st.Add(&cluster.DeviceRequestAllocation{Driver: drv, Pool: "n1", Device: "mig0", ConsumedCapacity: map[cluster.QualifiedName]cluster.Quantity{"memory": q(10)}}, true)
	all := allOf("x", "model=a").Exactly
	one := exact("x", 1, "model=b").Exactly
	c := claim("c", cluster.DeviceRequest{Name: "gpu", FirstAvailable: []cluster.DeviceSubRequest{
		{Name: "all-a", ExactDeviceRequest: *all}, {Name: "one-b", ExactDeviceRequest: *one}}})
	res, ok, err := Allocate(&Input{Claims: []*cluster.ResourceClaim{c}, Classes: gpuClass, Slices: slices, Node: node("n1"),
		Allocated: st, Selectors: &eqSelector{}, Features: DefaultFeatures()})
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "gpu/one-b=mig1", picked(res))
}
