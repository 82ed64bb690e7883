package trace

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gangsim/gangsim/cluster"
)

// The device objects of the device mode (the default): each node's GPUs
// are devices of a node-local ResourceSlice, and each pod asking for GPUs
// names a ResourceClaimTemplate of its shape.
const (
	// GPUDriver is the driver of the GPU devices, and the domain of their
	// attributes.
	GPUDriver = "gpu.nvidia.com"
	// GPUClass is the DeviceClass every GPU request names: the devices of
	// GPUDriver.
	GPUClass = "gpu.nvidia.com"
	// GPUCapacity is the capacity a GPU device is shared by: 1000
	// thousandths of a GPU (milligpu), taken by the pods sharing it.
	GPUCapacity cluster.QualifiedName = "milligpu"
	// ModelAttribute is the string attribute holding a device's GPU model,
	// in GPUDriver's domain.
	ModelAttribute cluster.QualifiedName = "model"
	// GPUClaim names a pod's claim entry and the template's one request.
	GPUClaim = "gpu"
)

// gpuShape is what a pod asks of GPUs: count whole devices, or (milli
// above 0) milli thousandths of one shared device; of one of models when
// there are any (sorted, no repeats).
type gpuShape struct {
	count  int64
	milli  int64
	models string // "|"-joined
}

// compare orders shapes: whole before shared, by count, by share, then
// by models.
func (s gpuShape) compare(o gpuShape) int {
	return cmp.Or(cmp.Compare(s.milli, o.milli), cmp.Compare(s.count, o.count), strings.Compare(s.models, o.models))
}

// name is the template's name before any collision is resolved: "gpu-2",
// "gpu-share-600", "gpu-1-v100m16" (models lower-cased, each run of
// characters a name may not hold replaced by one "-").
func (s gpuShape) name() string {
	n := fmt.Sprintf("gpu-%d", s.count)
	if s.milli > 0 {
		n = fmt.Sprintf("gpu-share-%d", s.milli)
	}
	if s.models == "" {
		return n
	}
	var m strings.Builder
	for _, r := range s.models {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			m.WriteRune(r)
		case r >= 'A' && r <= 'Z':
			m.WriteRune(r + 'a' - 'A')
		case !strings.HasSuffix(m.String(), "-"):
			m.WriteByte('-')
		}
	}
	return strings.TrimRight(n+"-"+m.String(), "-")
}

// spec is the claim a pod of the shape gets: one request of the class,
// for count devices whole, or for milli of one device's capacity; a model
// list is a selector.
func (s gpuShape) spec() cluster.ResourceClaimSpec {
	r := &cluster.ExactDeviceRequest{DeviceClassName: GPUClass, Count: s.count}
	if s.milli > 0 {
		r.Capacity = map[cluster.QualifiedName]cluster.Quantity{GPUCapacity: cluster.Quantity(s.milli * 1000)}
	}
	if s.models != "" {
		r.Selectors = []cluster.DeviceSelector{{CEL: modelSelector(strings.Split(s.models, "|"))}}
	}
	return cluster.ResourceClaimSpec{Requests: []cluster.DeviceRequest{{Name: GPUClaim, Exactly: r}}}
}

// modelSelector is the CEL expression selecting a device of one of the
// models: device.attributes["gpu.nvidia.com"].model in ["A", "B"].
func modelSelector(models []string) string {
	quoted := make([]string, len(models))
	for i, m := range models {
		quoted[i] = strconv.Quote(m)
	}
	return fmt.Sprintf("device.attributes[%q].%s in [%s]", GPUDriver, ModelAttribute, strings.Join(quoted, ", "))
}

// gpuClass is the class of the GPU devices.
func gpuClass() cluster.DeviceClass {
	return cluster.DeviceClass{Name: GPUClass, Selectors: []cluster.DeviceSelector{{CEL: fmt.Sprintf("device.driver == %q", GPUDriver)}}}
}

// gpuSlice is a node's slice, "<node>-gpus": one device per GPU, "gpu-0",
// "gpu-1"..., of the node's model (none when the node has no model), each
// shared by capacity. count is at most cluster.MaxSlicedDevices.
func gpuSlice(node string, count int64, model string) cluster.ResourceSlice {
	devs := make([]cluster.Device, count)
	for i := range devs {
		d := &devs[i]
		d.Name = fmt.Sprintf("gpu-%d", i)
		d.AllowMultipleAllocations = true
		d.Capacity = map[cluster.QualifiedName]cluster.DeviceCapacity{GPUCapacity: {Value: 1000 * 1000}}
		if model != "" {
			d.Attributes = map[cluster.QualifiedName]cluster.DeviceAttribute{ModelAttribute: {StringValue: &model}}
		}
	}
	return cluster.ResourceSlice{Name: node + "-gpus", Driver: GPUDriver,
		Pool: cluster.ResourcePool{Name: node, SliceCount: 1}, NodeName: node, Devices: devs}
}

// gpuTemplates makes one template per distinct shape, in shape order, and
// returns them with the name of each shape's template. Names are the
// shapes' own; when one is taken (two model lists that differ only in
// case or punctuation) or is not a valid name, it gets a suffix "-2" or
// "-3" or, failing that, is "gpu-shape-N" (N the shape's rank): the names
// depend on the set of shapes only, never on file order. A shape no
// template can hold (a selector too long) is an error.
func gpuTemplates(shapes []gpuShape) ([]cluster.ResourceClaimTemplate, map[gpuShape]string, error) {
	slices.SortFunc(shapes, gpuShape.compare)
	shapes = slices.Compact(shapes)
	names := make(map[gpuShape]string, len(shapes))
	taken := make(map[string]bool, len(shapes))
	out := make([]cluster.ResourceClaimTemplate, 0, len(shapes))
	for i, s := range shapes {
		t := cluster.ResourceClaimTemplate{Spec: s.spec()}
		base := s.name()
		var err error
		for _, name := range []string{base, base + "-2", base + "-3", fmt.Sprintf("gpu-shape-%d", i)} {
			t.Name = name
			if err = t.Validate(); !taken[name] && err == nil {
				break
			}
		}
		if err != nil {
			return nil, nil, err
		}
		taken[t.Name] = true
		names[s] = t.Name
		out = append(out, t)
	}
	return out, names, nil
}
