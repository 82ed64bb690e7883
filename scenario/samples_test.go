package scenario

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The files of testdata/kube/samples have the shapes of the public
// samples of scheduler-plugins, Kueue, GPU sharers and the scheduler's
// documentation. Loaded as the command-line tools load them, each loads,
// with the warnings a user needs (by kind and field), and places the pods
// it should.
func TestSamplesLoad(t *testing.T) {
	tests := []struct {
		file     string
		warnings []string
		bound    int // pods bound at the end
		pending  int
	}{
		{"bin-packing-config.yaml", nil, 0, 0},
		{"plugins-config.yaml", []string{
			"KubeSchedulerConfiguration plugin Coscheduling",
			"KubeSchedulerConfiguration pluginConfig Coscheduling",
			"KubeSchedulerConfiguration profiles[].plugins.queueSort",
		}, 0, 0},
		// the gang of 4 of 6 replicas goes whole, the last two find no room
		{"plugins-second-scheduler.yaml", []string{
			"KubeSchedulerConfiguration plugin CapacityScheduling",
			"KubeSchedulerConfiguration plugin Coscheduling",
			"KubeSchedulerConfiguration pluginConfig Coscheduling",
			"KubeSchedulerConfiguration profiles[].schedulerName",
			"PodGroup spec.minMember",
			"PodGroup spec.scheduleTimeoutSeconds",
		}, 4, 2},
		// a pair of 3 cpus on 4: all or nothing, so nothing
		{"kueue-pod-group.yaml", []string{
			"Pod metadata.labels[kueue.x-k8s.io/pod-group-name]",
			"Pod metadata.labels[kueue.x-k8s.io/queue-name]",
		}, 0, 2},
		// six pods in the one rack that holds them
		{"kueue-tas.yaml", []string{ // Kueue runs: its queue label is read; a Job's pods are not steered to Kueue's domains (the gang keeps them in one rack)
			"Job spec.template.metadata.annotations[kueue.x-k8s.io/podset-required-topology]",
			"ResourceFlavor spec.topologyName",
		}, 6, 0},
		{"hami-deployment.yaml", []string{
			"Deployment metadata.labels[kueue.x-k8s.io/queue-name]",
			"Deployment spec.template.metadata.annotations[nvidia.com/use-gputype]",
			"Deployment spec.template.spec.containers[].resources[nvidia.com/gpucores]",
			"Deployment spec.template.spec.containers[].resources[nvidia.com/gpumem]",
			"Node metadata.annotations[hami.io/node-nvidia-register]",
			"Node status.allocatable[nvidia.com/gpucores]",
			"Node status.allocatable[nvidia.com/gpumem]",
		}, 2, 0},
		{"gpushare.yaml", []string{
			"Node metadata.labels[nvidia.com/gpu.replicas]",
			"Node metadata.labels[nvidia.com/gpu.sharing-strategy]",
			"Node status.allocatable[aliyun.com/gpu-count]",
			"Node status.allocatable[aliyun.com/gpu-mem]",
			"Pod metadata.annotations[ALIYUN_COM_GPU_MEM_IDX]",
			"Pod metadata.annotations[ALIYUN_COM_GPU_MEM_POD]",
			"Pod spec.containers[].resources[aliyun.com/gpu-mem]",
		}, 1, 0},
	}
	files, err := filepath.Glob("testdata/kube/samples/*.yaml")
	require.NoError(t, err)
	require.Len(t, files, len(tests), "every sample has its row")
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata/kube/samples", tt.file)
			_, err := os.Stat(path)
			require.NoError(t, err)
			sc, err := Load(path, SkipUnknownPlugins())
			require.NoError(t, err)
			var got []string
			for _, w := range sc.Warnings {
				got = append(got, w.Kind+" "+w.Field)
			}
			require.Equal(t, tt.warnings, got)
			res, err := sc.Run()
			require.NoError(t, err)
			bound, pending := 0, 0
			for _, p := range res.Pods {
				if p.Node != "" {
					bound++
				} else {
					pending++
				}
			}
			require.Equal(t, tt.bound, bound, "bound")
			require.Equal(t, tt.pending, pending, "pending")
		})
	}
}
