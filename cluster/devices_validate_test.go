package cluster

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func gpuSlice() ResourceSlice {
	model := "A100"
	return ResourceSlice{Name: "n1-gpu", Driver: "gpu.example.com", Pool: ResourcePool{Name: "n1", SliceCount: 1}, NodeName: "n1",
		Devices: []Device{{Name: "gpu-0", Attributes: map[QualifiedName]DeviceAttribute{"model": {StringValue: &model}},
			Capacity: map[QualifiedName]DeviceCapacity{"memory": {Value: 80 << 30 * 1000}}}}}
}

func gpuClaim() ResourceClaim {
	return ResourceClaim{Name: "two-gpus", Spec: ResourceClaimSpec{Requests: []DeviceRequest{{Name: "gpus",
		Exactly: &ExactDeviceRequest{DeviceClassName: "gpu.example.com", Count: 2}}}}}
}

// Each bad device object is refused with the object and the field, as the
// API server refuses it; the good ones pass.
func TestDeviceObjectsValidate(t *testing.T) {
	q := func(v Quantity) *Quantity { return &v }
	tests := []struct {
		name   string
		object interface{ Validate() error }
		field  string // "" when valid
	}{
		{"a slice", new(gpuSlice()), ""},
		{"a claim", new(gpuClaim()), ""},
		{"a class", &DeviceClass{Name: "gpu.example.com", Selectors: []DeviceSelector{{CEL: `device.driver == "gpu.example.com"`}}}, ""},
		{"class without name", &DeviceClass{}, "metadata.name"},
		{"class with empty selector", &DeviceClass{Name: "c", Selectors: []DeviceSelector{{CEL: " "}}}, "spec.selectors[0].cel.expression"},
		{"class with a long selector", &DeviceClass{Name: "c", Selectors: []DeviceSelector{{CEL: strings.Repeat("x", MaxCELLength+1)}}}, "spec.selectors[0].cel.expression"},
		{"class with a bare extended resource", &DeviceClass{Name: "c", ExtendedResourceName: "gpu"}, "spec.extendedResourceName"},
		{"slice reaching no node", func() *ResourceSlice { s := gpuSlice(); s.NodeName = ""; return &s }(), "spec"},
		{"slice reaching two ways", func() *ResourceSlice { s := gpuSlice(); s.AllNodes = true; return &s }(), "spec"},
		{"slice of an upper-case driver", func() *ResourceSlice { s := gpuSlice(); s.Driver = "GPU"; return &s }(), "spec.driver"},
		{"slice of no pool count", func() *ResourceSlice { s := gpuSlice(); s.Pool.SliceCount = 0; return &s }(), "spec.pool.resourceSliceCount"},
		{"device listed twice", func() *ResourceSlice { s := gpuSlice(); s.Devices = append(s.Devices, s.Devices[0]); return &s }(), "spec.devices[1].name"},
		{"device with a bad name", func() *ResourceSlice { s := gpuSlice(); s.Devices[0].Name = "GPU_0"; return &s }(), "spec.devices[0].name"},
		{"attribute with two values", func() *ResourceSlice {
			s := gpuSlice()
			a := s.Devices[0].Attributes["model"]
			a.IntValue = new(int64(1))
			s.Devices[0].Attributes["model"] = a
			return &s
		}(), "spec.devices[0].attributes[model]"},
		{"attribute with a bad name", func() *ResourceSlice {
			s := gpuSlice()
			s.Devices[0].Attributes["gpu.example.com/1st"] = s.Devices[0].Attributes["model"]
			return &s
		}(), "spec.devices[0].attributes[gpu.example.com/1st]"},
		{"request policy on an exclusive device", func() *ResourceSlice {
			s := gpuSlice()
			s.Devices[0].Capacity["memory"] = DeviceCapacity{Value: 1000, RequestPolicy: &CapacityRequestPolicy{Default: q(500)}}
			return &s
		}(), "spec.devices[0].capacity[memory].requestPolicy"},
		{"default outside valid values", func() *ResourceSlice {
			s := gpuSlice()
			s.Devices[0].AllowMultipleAllocations = true
			s.Devices[0].Capacity["memory"] = DeviceCapacity{Value: 1000, RequestPolicy: &CapacityRequestPolicy{Default: q(300), ValidValues: []Quantity{250, 500}}}
			return &s
		}(), "spec.devices[0].capacity[memory].requestPolicy.default"},
		{"valid values not ascending", func() *ResourceSlice {
			s := gpuSlice()
			s.Devices[0].AllowMultipleAllocations = true
			s.Devices[0].Capacity["memory"] = DeviceCapacity{Value: 1000, RequestPolicy: &CapacityRequestPolicy{ValidValues: []Quantity{500, 250}}}
			return &s
		}(), "spec.devices[0].capacity[memory].requestPolicy.validValues[1]"},
		{"device taint of an unknown effect", func() *ResourceSlice {
			s := gpuSlice()
			s.Devices[0].Taints = []DeviceTaint{{Key: "k", Effect: "Evict"}}
			return &s
		}(), "spec.devices[0].taints[0].effect"},
		{"request without a class", func() *ResourceClaim { c := gpuClaim(); c.Spec.Requests[0].Exactly.DeviceClassName = ""; return &c }(), "spec.devices.requests[0].exactly.deviceClassName"},
		{"request both ways", func() *ResourceClaim {
			c := gpuClaim()
			c.Spec.Requests[0].FirstAvailable = []DeviceSubRequest{{Name: "a", ExactDeviceRequest: ExactDeviceRequest{DeviceClassName: "c"}}}
			return &c
		}(), "spec.devices.requests[0]"},
		{"All with a count", func() *ResourceClaim {
			c := gpuClaim()
			c.Spec.Requests[0].Exactly.AllocationMode = DeviceAllocationAll
			return &c
		}(), "spec.devices.requests[0].exactly.count"},
		{"admin access in an alternative", func() *ResourceClaim {
			c := gpuClaim()
			c.Spec.Requests[0].Exactly = nil
			c.Spec.Requests[0].FirstAvailable = []DeviceSubRequest{{Name: "a", ExactDeviceRequest: ExactDeviceRequest{DeviceClassName: "c", AdminAccess: true}}}
			return &c
		}(), "spec.devices.requests[0].firstAvailable[0].adminAccess"},
		{"constraint naming no request", func() *ResourceClaim {
			c := gpuClaim()
			c.Spec.Constraints = []DeviceConstraint{{Requests: []string{"cpus"}, MatchAttribute: "gpu.example.com/model"}}
			return &c
		}(), "spec.devices.constraints[0].requests[0]"},
		{"constraint on an unqualified attribute", func() *ResourceClaim {
			c := gpuClaim()
			c.Spec.Constraints = []DeviceConstraint{{MatchAttribute: "model"}}
			return &c
		}(), "spec.devices.constraints[0]"},
		{"constraint both ways", func() *ResourceClaim {
			c := gpuClaim()
			c.Spec.Constraints = []DeviceConstraint{{MatchAttribute: "d.io/a", DistinctAttribute: "d.io/b"}}
			return &c
		}(), "spec.devices.constraints[0]"},
		{"template with a bad request name", &ResourceClaimTemplate{Name: "t", Spec: ResourceClaimSpec{Requests: []DeviceRequest{{Name: "A", Exactly: &ExactDeviceRequest{DeviceClassName: "c"}}}}},
			"spec.spec.devices.requests[0].name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.object.Validate()
			if tt.field == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrInvalidDevices)
			var fe *FieldError
			require.True(t, errors.As(err, &fe))
			require.Equal(t, tt.field, fe.Field, "%v", err)
			require.NotEmpty(t, fe.Object)
		})
	}
}

func TestDeviceTolerations(t *testing.T) {
	taint := DeviceTaint{Key: "broken", Value: "yes", Effect: DeviceTaintNoSchedule}
	for _, tc := range []struct {
		tol  DeviceToleration
		want bool
	}{
		{DeviceToleration{Operator: TolerationExists}, true},
		{DeviceToleration{Key: "broken", Value: "yes"}, true},
		{DeviceToleration{Key: "broken", Value: "no"}, false},
		{DeviceToleration{Key: "broken", Operator: TolerationExists, Effect: DeviceTaintNoExecute}, false},
		{DeviceToleration{Key: "other", Operator: TolerationExists}, false},
	} {
		require.Equal(t, tc.want, tc.tol.Tolerates(&taint), "%+v", tc.tol)
	}
}

func TestQuantityValueRoundsUp(t *testing.T) {
	q, err := ParseDeviceQuantity("0.5")
	require.NoError(t, err)
	require.Equal(t, Quantity(500), q)
	require.Equal(t, int64(1), q.Value())
	q, err = ParseDeviceQuantity("80Gi")
	require.NoError(t, err)
	require.Equal(t, int64(80<<30), q.Value())
	require.Equal(t, "500m", Quantity(500).String())
	require.Equal(t, "2", Quantity(2000).String())
}
