package cluster

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// ResourceList is a list of amounts by resource name, as a container's
// requests or limits are: cpu in millicores, everything else in whole
// units. A name present is set, even to 0; one absent is not set, which is
// what LimitRange defaults and ResourceQuota's rules look at.
type ResourceList map[ResourceName]int64

// Clone returns a copy of l (nil for nil).
func (l ResourceList) Clone() ResourceList { return maps.Clone(l) }

// Resources returns l as Resources (amounts of 0 dropped).
func (l ResourceList) Resources() Resources {
	var r Resources
	for name, v := range l { // With keeps the extended ones in name order, whatever the order given
		r = r.With(name, v)
	}
	return r
}

// String renders l as "cpu=500m,memory=1Gi", names in order, as the API
// server prints resource lists in its messages.
func (l ResourceList) String() string {
	parts := make([]string, 0, len(l))
	for _, name := range slices.Sorted(maps.Keys(l)) {
		parts = append(parts, string(name)+"="+FormatAmount(name, l[name]))
	}
	return strings.Join(parts, ",")
}

// ListOf returns the non-zero amounts of r as a ResourceList: a pod given
// by its total requests sets the resources it asks for.
func ListOf(r Resources) ResourceList {
	l := ResourceList{}
	if r.MilliCPU != 0 {
		l[ResourceCPU] = r.MilliCPU
	}
	if r.Memory != 0 {
		l[ResourceMemory] = r.Memory
	}
	for s := range r.Scalars() {
		l[s.Name] = s.Value
	}
	return l
}

// FormatAmount renders an amount of a resource, or of a quota or limit on
// one (requests.cpu, limits.memory), in Kubernetes notation: cpu in
// millicores ("500m", "2"); memory, storage and huge pages with the
// largest exact suffix, binary first ("1Gi", "500M"); anything else as a
// count.
func FormatAmount(name ResourceName, v int64) string {
	base := BaseResource(name)
	switch {
	case base == ResourceCPU:
		return FormatQuantity(ResourceCPU, v)
	case base == ResourceMemory || base == "ephemeral-storage" || strings.HasPrefix(string(base), "hugepages-"):
		if v == 0 {
			return "0"
		}
		if s := FormatQuantity(ResourceMemory, v); strings.HasSuffix(s, "i") {
			return s
		}
		for _, s := range []struct {
			suffix string
			unit   int64
		}{{"E", 1e18}, {"P", 1e15}, {"T", 1e12}, {"G", 1e9}, {"M", 1e6}, {"k", 1e3}} {
			if v%s.unit == 0 {
				return fmt.Sprintf("%d%s", v/s.unit, s.suffix)
			}
		}
	}
	return fmt.Sprintf("%d", v)
}

// BaseResource is the resource a quota or limit name counts:
// requests.cpu and limits.cpu count cpu, requests.nvidia.com/gpu counts
// nvidia.com/gpu; any other name counts itself.
func BaseResource(name ResourceName) ResourceName {
	for _, prefix := range []string{"requests.", "limits."} {
		if rest, ok := strings.CutPrefix(string(name), prefix); ok {
			return ResourceName(rest)
		}
	}
	return name
}

// ParseAmount parses the quantity of a resource, or of a quota or limit
// on one, in the resource's unit (millicores for cpu, requests.cpu and
// limits.cpu).
func ParseAmount(name ResourceName, text string) (int64, error) {
	return ParseResourceQuantity(BaseResource(name), text)
}

// ResourceRequirements are the requests and limits a container (or a pod,
// in its pod-level spec.resources) sets.
type ResourceRequirements struct {
	Requests ResourceList
	Limits   ResourceList
}

func (r ResourceRequirements) clone() ResourceRequirements {
	return ResourceRequirements{Requests: r.Requests.Clone(), Limits: r.Limits.Clone()}
}

// Container is one container of a pod, as admission sees it: its name,
// its requests and limits as set, and whether it is an init container
// (Sidecar: a restartable one, restartPolicy Always, which runs beside the
// containers).
type Container struct {
	Name      string
	Resources ResourceRequirements
	Init      bool
	Sidecar   bool
}

// PodResources are a pod's resources container by container, as its spec
// gives them: what LimitRange defaults fill and check, and what a
// ResourceQuota counts (limits among it). A pod without them (nil) is its
// Requests alone: admission takes it as one container, named like the
// pod, that asks the pod's non-zero requests and sets no limit.
type PodResources struct {
	// Containers are the containers, then the init containers, each in
	// the pod's order.
	Containers []Container
	// PodLevel is the pod-level spec.resources (cpu and memory only),
	// nil when not set: its amounts replace the containers' sums.
	PodLevel *ResourceRequirements
	// Overhead is spec.overhead, added to the requests (and to the limits
	// that are set).
	Overhead ResourceList
}

// Clone returns a deep copy (nil for nil).
func (r *PodResources) Clone() *PodResources {
	if r == nil {
		return nil
	}
	c := &PodResources{Containers: slices.Clone(r.Containers), Overhead: r.Overhead.Clone()}
	for i := range c.Containers {
		c.Containers[i].Resources = c.Containers[i].Resources.clone()
	}
	if r.PodLevel != nil {
		pl := r.PodLevel.clone()
		c.PodLevel = &pl
	}
	return c
}

// Requests are the pod's effective requests as Kubernetes computes them
// (resource helpers' PodRequests): the sum over the containers; at least
// the largest init container, a sidecar counting beside the containers
// and the init containers after it; pod-level requests replacing the cpu
// and memory so computed; plus the overhead.
func (r *PodResources) Requests() ResourceList {
	out := r.total(func(c *ResourceRequirements) ResourceList { return c.Requests })
	if r.PodLevel != nil {
		maps.Copy(out, r.PodLevel.Requests)
	}
	for name, v := range r.Overhead {
		out[name] += v
	}
	return out
}

// Limits are the pod's effective limits (PodLimits): computed as the
// requests are, the overhead added only to the limits that are set.
func (r *PodResources) Limits() ResourceList {
	out := r.total(func(c *ResourceRequirements) ResourceList { return c.Limits })
	if r.PodLevel != nil {
		maps.Copy(out, r.PodLevel.Limits)
	}
	for name, v := range r.Overhead {
		if _, ok := out[name]; ok {
			out[name] += v
		}
	}
	return out
}

// total sums one list over the containers as Kubernetes does: init
// containers run one after another, a sidecar keeps running.
func (r *PodResources) total(list func(*ResourceRequirements) ResourceList) ResourceList {
	out, sidecars, initMax := ResourceList{}, ResourceList{}, ResourceList{}
	for i := range r.Containers {
		c := &r.Containers[i]
		l := list(&c.Resources)
		switch {
		case !c.Init:
			addList(out, l)
		case c.Sidecar:
			addList(out, l)
			addList(sidecars, l)
			maxList(initMax, sidecars)
		default:
			run := l.Clone()
			if run == nil {
				run = ResourceList{}
			}
			addList(run, sidecars)
			maxList(initMax, run)
		}
	}
	maxList(out, initMax)
	return out
}

func addList(dst, src ResourceList) {
	for name, v := range src {
		dst[name] += v
	}
}

func maxList(dst, src ResourceList) {
	for name, v := range src {
		if old, ok := dst[name]; !ok || v > old {
			dst[name] = v
		}
	}
}

// SingleContainer is the resources of a pod that is one container named
// name, asking requests (their non-zero amounts) with limits; a limit
// without a request requests its limit, as the API server defaults it.
func SingleContainer(name string, requests Resources, limits ResourceList) *PodResources {
	req := ListOf(requests)
	for n, v := range limits {
		if _, ok := req[n]; !ok {
			req[n] = v
		}
	}
	return &PodResources{Containers: []Container{{Name: name, Resources: ResourceRequirements{Requests: req, Limits: limits.Clone()}}}}
}

// Problem is what the API server refuses in container resources, the
// field and what is wrong ("" when nothing): a negative amount, a request
// above its limit.
func (r *PodResources) Problem() (field, detail string) {
	for i, c := range r.Containers {
		at := fmt.Sprintf("containers[%d]", i)
		if c.Init {
			at = "init" + at
		}
		if c.Name != "" {
			at += " (" + c.Name + ")"
		}
		if f, d := c.Resources.validate(); d != "" {
			return at + ".resources." + f, d
		}
	}
	if pl := r.PodLevel; pl != nil {
		if f, d := pl.validate(); d != "" {
			return "resources." + f, d
		}
	}
	for _, name := range slices.Sorted(maps.Keys(r.Overhead)) {
		if r.Overhead[name] < 0 {
			return "overhead." + string(name), "must not be negative"
		}
	}
	return "", ""
}

func (r *ResourceRequirements) validate() (field, detail string) {
	if r.valid() {
		return "", "" // the usual case, without sorting the names
	}
	for _, l := range []struct {
		field string
		list  ResourceList
	}{{"requests", r.Requests}, {"limits", r.Limits}} {
		for _, name := range slices.Sorted(maps.Keys(l.list)) {
			if l.list[name] < 0 {
				return l.field + "." + string(name), "must not be negative"
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(r.Requests)) {
		if lim, ok := r.Limits[name]; ok && r.Requests[name] > lim {
			return "requests." + string(name), fmt.Sprintf("%s must be less than or equal to %s limit of %s",
				FormatAmount(name, r.Requests[name]), name, FormatAmount(name, lim))
		}
	}
	return "", ""
}

// valid reports whether validate finds nothing wrong; validate then need
// not sort the names to say which is first at fault.
func (r *ResourceRequirements) valid() bool {
	for name, q := range r.Requests {
		if lim, ok := r.Limits[name]; q < 0 || ok && q > lim {
			return false
		}
	}
	for _, q := range r.Limits {
		if q < 0 {
			return false
		}
	}
	return true
}
