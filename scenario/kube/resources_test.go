package kube

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Effective requests are computed as Kubernetes computes them.
func TestPodRequests(t *testing.T) {
	c := func(name string, req, lim map[string]string) kubeContainer {
		return kubeContainer{Name: name, Resources: kubeResources{Requests: req, Limits: lim}}
	}
	sidecar := func(name string, req map[string]string) kubeContainer {
		k := c(name, req, nil)
		k.RestartPolicy = "Always"
		return k
	}
	r := func(kv ...string) map[string]string {
		out := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	tests := []struct {
		name string
		spec kubePodSpec
		want map[string]string
	}{
		{"containers add up", kubePodSpec{Containers: []kubeContainer{c("a", r("cpu", "1", "memory", "1Gi"), nil), c("b", r("cpu", "500m"), nil)}},
			r("cpu", "1500m", "memory", "1Gi")},
		{"limits give requests", kubePodSpec{Containers: []kubeContainer{c("a", r("cpu", "100m"), r("cpu", "1", "memory", "2Gi", "example.com/fpga", "2"))}},
			r("cpu", "100m", "memory", "2Gi", "example.com/fpga", "2")},
		{"the largest init container", kubePodSpec{Containers: []kubeContainer{c("a", r("cpu", "1", "memory", "1Gi"), nil)},
			InitContainers: []kubeContainer{c("i1", r("cpu", "3"), nil), c("i2", r("memory", "4Gi"), nil)}},
			r("cpu", "3", "memory", "4Gi")},
		{"a sidecar runs beside the containers", kubePodSpec{Containers: []kubeContainer{c("a", r("cpu", "1"), nil)},
			InitContainers: []kubeContainer{sidecar("log", r("cpu", "200m"))}},
			r("cpu", "1200m")},
		{"and beside the init containers after it", kubePodSpec{Containers: []kubeContainer{c("a", r("cpu", "1"), nil)},
			InitContainers: []kubeContainer{c("before", r("cpu", "2"), nil), sidecar("log", r("cpu", "500m")), c("after", r("cpu", "2"), nil)}},
			r("cpu", "2500m")},
		{"sidecars add up for later ones", kubePodSpec{Containers: []kubeContainer{c("a", r("memory", "1Gi"), nil)},
			InitContainers: []kubeContainer{sidecar("s1", r("memory", "1Gi")), sidecar("s2", r("memory", "1Gi")), c("late", r("memory", "3Gi"), nil)}},
			r("memory", "5Gi")},
		{"pod-level requests replace cpu and memory", kubePodSpec{Containers: []kubeContainer{c("a", r("cpu", "1", "memory", "1Gi", "example.com/fpga", "1"), r("example.com/fpga", "1"))},
			Resources: &kubeResources{Limits: r("cpu", "4")}},
			r("cpu", "4", "memory", "1Gi", "example.com/fpga", "1")},
		{"overhead on top", kubePodSpec{Containers: []kubeContainer{c("a", r("cpu", "1"), nil)}, Overhead: r("cpu", "250m", "memory", "120Mi")},
			r("cpu", "1250m", "memory", "120Mi")},
		{"nothing asked", kubePodSpec{Containers: []kubeContainer{c("a", nil, nil)}}, r()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, field, err := podRequests(&tt.spec, "spec")
			require.NoError(t, err, field)
			require.Equal(t, tt.want, got)
		})
	}
}
