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
