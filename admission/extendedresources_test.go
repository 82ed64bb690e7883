package admission_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gangsim/gangsim/admission"
	"github.com/gangsim/gangsim/cluster"
)

func TestExtendedResourceToleration(t *testing.T) {
	gpu := cluster.Toleration{Key: "nvidia.com/gpu", Operator: cluster.TolerationExists, Effect: cluster.TaintNoSchedule}
	fpga := cluster.Toleration{Key: "example.com/fpga", Operator: cluster.TolerationExists, Effect: cluster.TaintNoSchedule}
	other := cluster.Toleration{Key: "dedicated", Operator: cluster.TolerationEqual, Value: "ml", Effect: cluster.TaintNoSchedule}
	containers := func(reqs ...cluster.ResourceList) *cluster.PodResources {
		r := &cluster.PodResources{}
		for i, l := range reqs {
			r.Containers = append(r.Containers, cluster.Container{Name: string(rune('a' + i)), Resources: cluster.ResourceRequirements{Requests: l}, Init: i > 0})
		}
		return r
	}
	gpus, err := cluster.ParseResources(map[string]string{"nvidia.com/gpu": "2"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		pod   cluster.Pod
		want  []cluster.Toleration
		added bool
	}{
		{"no extended resource", cluster.Pod{Resources: containers(cluster.ResourceList{"cpu": 1000, "hugepages-2Mi": 1 << 21})}, nil, false},
		{"a GPU", cluster.Pod{Resources: containers(cluster.ResourceList{"cpu": 1000, "nvidia.com/gpu": 1})}, []cluster.Toleration{gpu}, true},
		{"after its own, in name order, init containers too",
			cluster.Pod{Tolerations: []cluster.Toleration{other}, Resources: containers(cluster.ResourceList{"nvidia.com/gpu": 1}, cluster.ResourceList{"example.com/fpga": 1})},
			[]cluster.Toleration{other, fpga, gpu}, true},
		{"already tolerated", cluster.Pod{Tolerations: []cluster.Toleration{gpu}, Resources: containers(cluster.ResourceList{"nvidia.com/gpu": 1})}, []cluster.Toleration{gpu}, false},
		{"a kubernetes.io name is not extended", cluster.Pod{Resources: containers(cluster.ResourceList{"kubernetes.io/batch-cpu": 1})}, nil, false},
		{"a pod without containers: its requests", cluster.Pod{Requests: gpus}, []cluster.Toleration{gpu}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := append([]cluster.Toleration(nil), tt.pod.Tolerations...)
			got, added := admission.ExtendedResourceToleration(&tt.pod)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.added, added)
			assert.Equal(t, before, append([]cluster.Toleration(nil), tt.pod.Tolerations...), "the pod is not changed")
		})
	}
}
