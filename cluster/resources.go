package cluster

import (
	"cmp"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
)

// ResourceName names a resource: cpu, memory, pods, or an extended resource
// such as nvidia.com/gpu.
type ResourceName string

// The resources every node and pod has. Any other name is an extended
// (scalar) resource counted in whole units.
const (
	ResourceCPU    ResourceName = "cpu"
	ResourceMemory ResourceName = "memory"
	ResourcePods   ResourceName = "pods"
)

// Scalar is an amount of one extended resource.
type Scalar struct {
	Name  ResourceName
	Value int64
}

// Resources is an amount of every resource: cpu in millicores, memory in
// bytes, a pod count, and extended resources by name.
//
// It is a value type: Add, Sub and With return new values and never change
// their receiver or argument, so copies may be shared freely. Extended
// resources are kept sorted by name with zero amounts dropped, so two equal
// amounts have one representation and Equal is exact. Use Equal, not ==,
// because the extended part is a slice.
type Resources struct {
	MilliCPU int64
	Memory   int64
	Pods     int64
	scalars  []Scalar // sorted by Name, no zero Value; never mutated once shared
}

// NewResources builds Resources from cpu millicores, memory bytes, a pod
// count and extended resources; zero extended amounts are dropped.
func NewResources(milliCPU, memory, pods int64, extended ...Scalar) Resources {
	r := Resources{MilliCPU: milliCPU, Memory: memory, Pods: pods}
	for _, s := range extended {
		r = r.With(s.Name, r.Get(s.Name)+s.Value)
	}
	return r
}

// Get returns the amount of the named resource (0 when absent).
func (r Resources) Get(name ResourceName) int64 {
	switch name {
	case ResourceCPU:
		return r.MilliCPU
	case ResourceMemory:
		return r.Memory
	case ResourcePods:
		return r.Pods
	}
	if i, ok := r.find(name); ok {
		return r.scalars[i].Value
	}
	return 0
}

func (r Resources) find(name ResourceName) (int, bool) {
	return slices.BinarySearchFunc(r.scalars, name, func(s Scalar, n ResourceName) int { return cmp.Compare(s.Name, n) })
}

// With returns a copy of r with the named resource set to v.
func (r Resources) With(name ResourceName, v int64) Resources {
	switch name {
	case ResourceCPU:
		r.MilliCPU = v
		return r
	case ResourceMemory:
		r.Memory = v
		return r
	case ResourcePods:
		r.Pods = v
		return r
	}
	i, found := r.find(name)
	out := make([]Scalar, 0, len(r.scalars)+1)
	out = append(out, r.scalars[:i]...)
	if v != 0 {
		out = append(out, Scalar{name, v})
	}
	if found {
		i++
	}
	out = append(out, r.scalars[i:]...)
	if len(out) == 0 {
		out = nil
	}
	r.scalars = out
	return r
}

// Scalars yields the extended resources in name order.
func (r Resources) Scalars() iter.Seq[Scalar] {
	return slices.Values(r.scalars)
}

// HasScalars reports whether any extended resource is non-zero.
func (r Resources) HasScalars() bool { return len(r.scalars) > 0 }

// Add returns r + o.
func (r Resources) Add(o Resources) Resources { return r.combine(o, 1) }

// Sub returns r - o; components may become negative.
func (r Resources) Sub(o Resources) Resources { return r.combine(o, -1) }

func (r Resources) combine(o Resources, sign int64) Resources {
	out := Resources{MilliCPU: r.MilliCPU + sign*o.MilliCPU, Memory: r.Memory + sign*o.Memory, Pods: r.Pods + sign*o.Pods}
	if len(o.scalars) == 0 {
		out.scalars = r.scalars
		return out
	}
	out.scalars = mergeScalars(make([]Scalar, 0, len(r.scalars)+len(o.scalars)), r.scalars, o.scalars, sign)
	return out
}

// mergeScalars appends a + sign*b to dst, both sorted, dropping zeros.
func mergeScalars(dst, a, b []Scalar, sign int64) []Scalar {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		var s Scalar
		switch {
		case j == len(b) || i < len(a) && a[i].Name < b[j].Name:
			s = a[i]
			i++
		case i == len(a) || b[j].Name < a[i].Name:
			s = Scalar{b[j].Name, sign * b[j].Value}
			j++
		default:
			s = Scalar{a[i].Name, a[i].Value + sign*b[j].Value}
			i++
			j++
		}
		if s.Value != 0 {
			dst = append(dst, s)
		}
	}
	if len(dst) == 0 {
		return nil
	}
	return dst
}

// addInPlace adds sign*o to r. The extended part is replaced, never written
// through: values handed out earlier (NodeInfo.Requested) may share it.
// It allocates only when o has extended resources.
func (r *Resources) addInPlace(o Resources, sign int64) {
	r.MilliCPU += sign * o.MilliCPU
	r.Memory += sign * o.Memory
	r.Pods += sign * o.Pods
	if len(o.scalars) == 0 {
		return
	}
	r.scalars = mergeScalars(make([]Scalar, 0, len(r.scalars)+len(o.scalars)), r.scalars, o.scalars, sign)
}

// clone returns r with an extended slice of its own.
func (r Resources) clone() Resources {
	r.scalars = slices.Clone(r.scalars)
	return r
}

// Equal reports whether r and o hold the same amount of every resource.
func (r Resources) Equal(o Resources) bool {
	return r.MilliCPU == o.MilliCPU && r.Memory == o.Memory && r.Pods == o.Pods && slices.Equal(r.scalars, o.scalars)
}

// IsZero reports whether every amount is zero.
func (r Resources) IsZero() bool {
	return r.MilliCPU == 0 && r.Memory == 0 && r.Pods == 0 && len(r.scalars) == 0
}

// Fits reports whether r is no more than capacity in every resource.
func (r Resources) Fits(capacity Resources) bool {
	if r.MilliCPU > capacity.MilliCPU || r.Memory > capacity.Memory || r.Pods > capacity.Pods {
		return false
	}
	for _, s := range r.scalars {
		if s.Value > capacity.Get(s.Name) {
			return false
		}
	}
	return true
}

// LessOrEqual is Fits under the name a comparison reads best with.
func (r Resources) LessOrEqual(o Resources) bool { return r.Fits(o) }

// IsNegative reports whether any amount is below zero.
func (r Resources) IsNegative() bool {
	return r.MilliCPU < 0 || r.Memory < 0 || r.Pods < 0 || slices.ContainsFunc(r.scalars, func(s Scalar) bool { return s.Value < 0 })
}

// String renders r as "cpu=500m memory=1Gi pods=1 nvidia.com/gpu=2",
// omitting zero amounts; "{}" when all are zero.
func (r Resources) String() string {
	var parts []string
	add := func(n ResourceName, v int64) {
		if v != 0 {
			parts = append(parts, fmt.Sprintf("%s=%s", n, FormatQuantity(n, v)))
		}
	}
	add(ResourceCPU, r.MilliCPU)
	add(ResourceMemory, r.Memory)
	add(ResourcePods, r.Pods)
	for _, s := range r.scalars {
		add(s.Name, s.Value)
	}
	if len(parts) == 0 {
		return "{}"
	}
	return strings.Join(parts, " ")
}

// ParseResources parses a resource list such as {cpu: "500m", memory: "1Gi",
// nvidia.com/gpu: "2"}. Names are visited in sorted order so the first error
// reported is deterministic; an error names the resource and the text.
func ParseResources(list map[string]string) (Resources, error) {
	var r Resources
	ok := true
	for name, text := range list { // With keeps names in order: any order will do
		v, err := ParseResourceQuantity(ResourceName(name), text)
		if name == "" || err != nil {
			ok = false
			break
		}
		r = r.With(ResourceName(name), v)
	}
	if ok {
		return r, nil
	}
	// the error of the first bad name in name order, whatever the map's
	r = Resources{}
	for _, name := range slices.Sorted(maps.Keys(list)) {
		if name == "" {
			return Resources{}, fieldError(ErrQuantity, "", "", "a resource name is empty")
		}
		v, err := ParseResourceQuantity(ResourceName(name), list[name])
		if err != nil {
			return Resources{}, Within(name, err)
		}
		r = r.With(ResourceName(name), v)
	}
	return r, nil
}
