package cluster

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// deepCopy returns r with its own extended slice, to compare against later.
func deepCopy(r Resources) Resources { return r.clone() }

func TestResourcesAddSub(t *testing.T) {
	tests := []struct {
		name     string
		a, b     Resources
		sum, dif Resources
	}{
		{"zero", Resources{}, Resources{}, Resources{}, Resources{}},
		{"cpu and memory", res(500, gi), res(250, mi), res(750, gi+mi), res(250, gi-mi)},
		{"pods", NewResources(0, 0, 3), NewResources(0, 0, 1), NewResources(0, 0, 4), NewResources(0, 0, 2)},
		{"extended on the left only", res(1, 0, gpu(2)), res(1, 0), res(2, 0, gpu(2)), res(0, 0, gpu(2))},
		{"extended on the right only", res(0, 0), res(0, 0, gpu(2)), res(0, 0, gpu(2)), res(0, 0, gpu(-2))},
		{"same extended", res(0, 0, gpu(3)), res(0, 0, gpu(1)), res(0, 0, gpu(4)), res(0, 0, gpu(2))},
		{"interleaved names", res(0, 0, gpu(1)), res(0, 0, fpga(1)), res(0, 0, fpga(1), gpu(1)), res(0, 0, fpga(-1), gpu(1))},
		{"difference cancels to zero", res(100, 0, gpu(2)), res(100, 0, gpu(2)), res(200, 0, gpu(4)), Resources{}},
		{"negative result", res(100, 0), res(300, 0), res(400, 0), res(-200, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a0, b0 := deepCopy(tt.a), deepCopy(tt.b)
			sum, dif := tt.a.Add(tt.b), tt.a.Sub(tt.b)
			assert.True(t, sum.Equal(tt.sum), "sum %v, want %v", sum, tt.sum)
			assert.True(t, dif.Equal(tt.dif), "difference %v, want %v", dif, tt.dif)
			// Canonical form: one representation per amount.
			assert.Equal(t, tt.sum, sum)
			assert.Equal(t, tt.dif, dif)
			assert.Equal(t, a0, tt.a, "Add/Sub changed the receiver")
			assert.Equal(t, b0, tt.b, "Add/Sub changed the argument")
			// Add then Sub gives back the original, representation included.
			assert.Equal(t, tt.a, sum.Sub(tt.b))
			assert.Equal(t, tt.a, dif.Add(tt.b))
		})
	}
}

// TestResourcesNoAliasing writes into every result and checks that the
// operands did not see it: results never share storage with the values
// they came from in a way a later change could leak through.
func TestResourcesNoAliasing(t *testing.T) {
	a := res(100, 0, fpga(1), gpu(2))
	b := res(0, 0, gpu(1))
	cpuOnly := res(5, 0)
	a0, b0 := deepCopy(a), deepCopy(b)
	results := []Resources{a.Add(b), a.Sub(b), a.Add(cpuOnly), a.Sub(cpuOnly), a.With(gpuName, 9), a.With(ResourceCPU, 1), cpuOnly.Add(a)}
	for i := range results {
		results[i].addInPlace(res(0, 0, fpga(1), gpu(1)), 1)
		results[i].addInPlace(res(0, 0, fpga(5), gpu(5)), -1)
	}
	assert.Equal(t, a0, a)
	assert.Equal(t, b0, b)

	// A copy of a value and the value itself are independent even when the
	// copy is changed in place.
	c := a
	c.addInPlace(res(0, 0, fpga(1), gpu(1)), 1)
	assert.Equal(t, a0, a, "addInPlace wrote through a shared slice")
	assert.Equal(t, int64(3), c.Get(gpuName))
}

func TestResourcesAddInPlaceLikeAdd(t *testing.T) {
	operands := []Resources{
		{}, res(100, mi), NewResources(0, 0, 1), res(0, 0, gpu(1)), res(0, 0, gpu(-1)),
		res(10, 0, fpga(2)), res(0, 0, fpga(1), gpu(1)), res(0, 0, fpga(-2), gpu(3)),
	}
	for _, a := range operands {
		for _, b := range operands {
			for _, sign := range []int64{1, -1} {
				want := a.Add(b)
				if sign < 0 {
					want = a.Sub(b)
				}
				got := a.clone()
				got.addInPlace(b, sign)
				assert.Equal(t, want, got, "%v + %d*(%v)", a, sign, b)
			}
		}
	}
}

func TestResourcesWithGet(t *testing.T) {
	base := res(500, gi, gpu(2))
	tests := []struct {
		name ResourceName
		v    int64
		want Resources
	}{
		{ResourceCPU, 1, NewResources(1, gi, 0, gpu(2))},
		{ResourceMemory, 7, NewResources(500, 7, 0, gpu(2))},
		{ResourcePods, 3, NewResources(500, gi, 3, gpu(2))},
		{gpuName, 5, res(500, gi, gpu(5))},
		{gpuName, 0, res(500, gi)},                   // zero drops the entry
		{fpgaName, 1, res(500, gi, fpga(1), gpu(2))}, // inserted in name order
		{"zz.io/last", 1, res(500, gi, gpu(2), Scalar{"zz.io/last", 1})},
		{"absent.io/x", 0, res(500, gi, gpu(2))},
	}
	for _, tt := range tests {
		t.Run(string(tt.name), func(t *testing.T) {
			got := base.With(tt.name, tt.v)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.v, got.Get(tt.name))
			assert.Equal(t, res(500, gi, gpu(2)), base, "With changed its receiver")
		})
	}
	assert.Zero(t, base.Get("absent.io/x"))
	assert.Equal(t, int64(500), base.Get(ResourceCPU))
	assert.Equal(t, gi, base.Get(ResourceMemory))
	assert.Nil(t, res(0, 0, gpu(1)).With(gpuName, 0).scalars, "no empty non-nil slice")
}

func TestNewResources(t *testing.T) {
	r := NewResources(1, 2, 3, gpu(2), fpga(0), gpu(1), Scalar{ResourceCPU, 10})
	assert.Equal(t, int64(11), r.MilliCPU)
	assert.Equal(t, int64(3), r.Get(gpuName), "duplicates add up")
	assert.Equal(t, []Scalar{gpu(3)}, r.scalars, "zero amounts dropped")
	var names []ResourceName
	for s := range NewResources(0, 0, 0, gpu(1), fpga(1), Scalar{"a.io/b", 1}).Scalars() {
		names = append(names, s.Name)
	}
	assert.Equal(t, []ResourceName{"a.io/b", fpgaName, gpuName}, names)
	assert.True(t, r.HasScalars())
	assert.False(t, res(1, 1).HasScalars())
}

func TestResourcesEqual(t *testing.T) {
	tests := []struct {
		name string
		a, b Resources
		want bool
	}{
		{"both zero", Resources{}, NewResources(0, 0, 0, gpu(0)), true},
		{"same", res(1, 2, gpu(3)), NewResources(1, 2, 0, gpu(1), gpu(2)), true},
		{"cpu differs", res(1, 2), res(2, 2), false},
		{"memory differs", res(1, 2), res(1, 3), false},
		{"pods differ", NewResources(0, 0, 1), NewResources(0, 0, 2), false},
		{"extended value differs", res(0, 0, gpu(1)), res(0, 0, gpu(2)), false},
		{"extended name differs", res(0, 0, gpu(1)), res(0, 0, fpga(1)), false},
		{"extended missing", res(0, 0, gpu(1)), Resources{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.a.Equal(tt.b))
			assert.Equal(t, tt.want, tt.b.Equal(tt.a))
		})
	}
}

func TestResourcesFits(t *testing.T) {
	capacity := NewResources(4000, 8*gi, 110, gpu(2))
	tests := []struct {
		name string
		r    Resources
		want bool
	}{
		{"zero", Resources{}, true},
		{"exactly the capacity", capacity, true},
		{"less", NewResources(1000, gi, 1, gpu(1)), true},
		{"cpu over", res(4001, 0), false},
		{"memory over", res(0, 8*gi+1), false},
		{"pods over", NewResources(0, 0, 111), false},
		{"gpu over", res(0, 0, gpu(3)), false},
		{"extended the capacity lacks", res(0, 0, fpga(1)), false},
		{"negative extended the capacity lacks", res(0, 0, fpga(-1)), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.r.Fits(capacity))
			assert.Equal(t, tt.want, tt.r.LessOrEqual(capacity))
		})
	}
	assert.True(t, res(0, 0).Fits(res(0, 0, gpu(1))), "capacity extras need no request")
}

func TestResourcesIsZeroIsNegative(t *testing.T) {
	tests := []struct {
		name           string
		r              Resources
		zero, negative bool
	}{
		{"zero value", Resources{}, true, false},
		{"zero extended dropped", NewResources(0, 0, 0, gpu(0)), true, false},
		{"cpu", res(1, 0), false, false},
		{"memory", res(0, 1), false, false},
		{"pods", NewResources(0, 0, 1), false, false},
		{"extended", res(0, 0, gpu(1)), false, false},
		{"negative cpu", res(-1, 0), false, true},
		{"negative memory", res(0, -1), false, true},
		{"negative pods", NewResources(0, 0, -1), false, true},
		{"negative extended", res(1, 1, fpga(1), gpu(-1)), false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.zero, tt.r.IsZero())
			assert.Equal(t, tt.negative, tt.r.IsNegative())
		})
	}
}

func TestResourcesString(t *testing.T) {
	tests := []struct {
		r    Resources
		want string
	}{
		{Resources{}, "{}"},
		{NewResources(500, gi, 1, gpu(2)), "cpu=500m memory=1Gi pods=1 nvidia.com/gpu=2"},
		{res(2000, 1000), "cpu=2 memory=1000"},
		{res(0, 0, fpga(1), gpu(4)), "example.com/fpga=1 nvidia.com/gpu=4"},
		{res(-250, 0), "cpu=-250m"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.r.String())
		})
	}
}

func TestParseResources(t *testing.T) {
	got, err := ParseResources(map[string]string{"cpu": "1.5", "memory": "2Gi", "pods": "110", "nvidia.com/gpu": "2", "example.com/fpga": "0"})
	require.NoError(t, err)
	assert.Equal(t, NewResources(1500, 2*gi, 110, gpu(2)), got, "zero extended amounts dropped")

	got, err = ParseResources(nil)
	require.NoError(t, err)
	assert.True(t, got.IsZero())

	tests := []struct {
		name    string
		list    map[string]string
		mention []string
	}{
		{"bad cpu", map[string]string{"cpu": "1x", "memory": "1Gi"}, []string{`: cpu: `, `"1x"`}},
		{"negative gpu", map[string]string{"nvidia.com/gpu": "-1"}, []string{`: nvidia.com/gpu: `, `"-1"`}},
		{"first in name order", map[string]string{"memory": "x", "cpu": "y", "zz": "z"}, []string{`: cpu: `, `"y"`}},
		{"cpu overflow", map[string]string{"cpu": "10Ei"}, []string{`: cpu: `, "too large"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 3 { // the same error every time, whatever the map order
				r, err := ParseResources(tt.list)
				require.ErrorIs(t, err, ErrQuantity)
				assert.True(t, r.IsZero())
				for _, m := range tt.mention {
					assert.Contains(t, err.Error(), m)
				}
			}
		})
	}
	_, err = ParseResources(map[string]string{"": "1"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "a resource name is empty")
	var fe *FieldError
	_, err = ParseResources(map[string]string{"cpu": "1x"})
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "cpu", fe.Field, "the resource name is the field")
}
