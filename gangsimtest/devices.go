package gangsimtest

import (
	"fmt"

	"github.com/gangsim/gangsim/cluster"
)

// GPUDriver is the driver of the GPUs GPUSlice makes.
const GPUDriver = "gpu.nvidia.com"

// GPUClass is a device class of every device of GPUDriver, named gpu.
func GPUClass() cluster.DeviceClass {
	return cluster.DeviceClass{Name: "gpu", Selectors: []cluster.DeviceSelector{{CEL: `device.driver == "` + GPUDriver + `"`}}}
}

// GPUSlice is the slice of a node's count GPUs (gpu-0, gpu-1, ...) of a
// model ("" for none), as the trace importer makes them: shared GPUs have
// a capacity of 1000 milligpu that claims take parts of (KEP-5075).
func GPUSlice(node string, count int, model string, shared bool) cluster.ResourceSlice {
	devs := make([]cluster.Device, count)
	for i := range devs {
		devs[i] = cluster.Device{Name: fmt.Sprintf("gpu-%d", i)}
		if model != "" {
			devs[i].Attributes = map[cluster.QualifiedName]cluster.DeviceAttribute{"model": {StringValue: &model}}
		}
		if shared {
			devs[i].AllowMultipleAllocations = true
			devs[i].Capacity = map[cluster.QualifiedName]cluster.DeviceCapacity{"milligpu": {Value: 1000 * 1000}}
		}
	}
	return cluster.ResourceSlice{Name: node + "-gpus", Driver: GPUDriver, Pool: cluster.ResourcePool{Name: node, SliceCount: 1}, NodeName: node, Devices: devs}
}

// GPUSpec asks GPUClass for count whole GPUs (of a model, when set), or,
// with milli > 0, for that many thousandths of one shared GPU.
func GPUSpec(count int64, model string, milli int64) cluster.ResourceClaimSpec {
	r := &cluster.ExactDeviceRequest{DeviceClassName: "gpu", Count: count}
	if model != "" {
		r.Selectors = []cluster.DeviceSelector{{CEL: fmt.Sprintf(`device.attributes[%q].model == %q`, GPUDriver, model)}}
	}
	if milli > 0 {
		r.Capacity = map[cluster.QualifiedName]cluster.Quantity{"milligpu": cluster.Quantity(milli * 1000)}
	}
	return cluster.ResourceClaimSpec{Requests: []cluster.DeviceRequest{{Name: "gpu", Exactly: r}}}
}
