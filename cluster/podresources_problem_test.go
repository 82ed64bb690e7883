package cluster

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The API server's checks of container resources, and which field it
// names first: names in order, requests before limits, negatives before a
// request above its limit.
func TestPodResourcesProblem(t *testing.T) {
	c := func(req, lim ResourceList) Container {
		return Container{Name: "main", Resources: ResourceRequirements{Requests: req, Limits: lim}}
	}
	tests := []struct {
		name          string
		r             PodResources
		field, detail string
	}{
		{"fine", PodResources{Containers: []Container{c(ResourceList{"cpu": 1000, "memory": 5}, ResourceList{"cpu": 1000})}}, "", ""},
		{"negative request", PodResources{Containers: []Container{c(ResourceList{"memory": -1, "cpu": -2}, nil)}},
			"containers[0] (main).resources.requests.cpu", "must not be negative"},
		{"negative limit", PodResources{Containers: []Container{c(ResourceList{"cpu": 1}, ResourceList{"memory": -1})}},
			"containers[0] (main).resources.limits.memory", "must not be negative"},
		{"request above limit", PodResources{Containers: []Container{c(ResourceList{"cpu": 2000, "memory": 1}, ResourceList{"cpu": 1000, "memory": 1})}},
			"containers[0] (main).resources.requests.cpu", "2 must be less than or equal to cpu limit of 1"},
		{"pod level", PodResources{PodLevel: &ResourceRequirements{Requests: ResourceList{"cpu": 2000}, Limits: ResourceList{"cpu": 1000}}},
			"resources.requests.cpu", "2 must be less than or equal to cpu limit of 1"},
		{"overhead", PodResources{Overhead: ResourceList{"cpu": -1}}, "overhead.cpu", "must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, d := tt.r.Problem()
			require.Equal(t, tt.field, f)
			require.Equal(t, tt.detail, d)
		})
	}
}

// A ResourceList's Resources hold its extended resources in name order,
// whatever the map's order: runs are the same bytes every time.
func TestResourceListResourcesInNameOrder(t *testing.T) {
	l := ResourceList{"cpu": 1000, "z.io/b": 2, "a.io/c": 3, "m.io/a": 4, "memory": 5, "pods": 6}
	for range 20 {
		r := l.Resources()
		var names []ResourceName
		for s := range r.Scalars() {
			names = append(names, s.Name)
		}
		require.Equal(t, []ResourceName{"a.io/c", "m.io/a", "z.io/b"}, names)
		require.Equal(t, int64(1000), r.MilliCPU)
		require.Equal(t, int64(5), r.Memory)
		require.Equal(t, int64(6), r.Pods)
	}
}
