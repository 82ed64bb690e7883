package trace

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/scenario"
)

// shared asks for milli thousandths of one GPU; whole for count GPUs.
func shared(milli int64, models ...string) cluster.ResourceClaimSpec {
	return gpuShape{count: 1, milli: milli, models: strings.Join(models, "|")}.spec()
}

func whole(count int64, models ...string) cluster.ResourceClaimSpec {
	return gpuShape{count: count, models: strings.Join(models, "|")}.spec()
}

// By default every GPU node has a slice of its GPUs, and every pod asking
// for GPUs a claim from the template of its shape.
func TestReadTraceDevices(t *testing.T) {
	sc, err := Load("testdata/gpu-nodes.csv", "testdata/gpu-pods.csv", Options{})
	require.NoError(t, err)

	require.Equal(t, []cluster.DeviceClass{{Name: "gpu.nvidia.com", Selectors: []cluster.DeviceSelector{{CEL: `device.driver == "gpu.nvidia.com"`}}}}, sc.Devices.Classes)
	require.Len(t, sc.Devices.Slices, 2, "a node without GPUs has no slice")
	sl := sc.Devices.Slices[0]
	require.Equal(t, "t4-0-gpus", sl.Name)
	require.Equal(t, GPUDriver, sl.Driver)
	require.Equal(t, "t4-0", sl.NodeName)
	require.Equal(t, cluster.ResourcePool{Name: "t4-0", SliceCount: 1}, sl.Pool)
	require.Len(t, sl.Devices, 2)
	t4 := "T4"
	require.Equal(t, cluster.Device{Name: "gpu-1", AllowMultipleAllocations: true,
		Attributes: map[cluster.QualifiedName]cluster.DeviceAttribute{"model": {StringValue: &t4}},
		Capacity:   map[cluster.QualifiedName]cluster.DeviceCapacity{"milligpu": {Value: cluster.Quantity(1000 * 1000)}}}, sl.Devices[1])
	require.Len(t, sc.Devices.Slices[1].Devices, 8)
	for _, n := range sc.Nodes {
		require.Zero(t, n.Allocatable.Get(DefaultGPUResource), "no pooled resource")
	}
	require.Equal(t, "V100M16", sc.Nodes[2].Labels[DefaultModelLabel], "the label stays")

	var names []string
	specs := map[string]cluster.ResourceClaimSpec{}
	for _, tm := range sc.Devices.Templates {
		names = append(names, tm.Name)
		specs[tm.Name] = tm.Spec
	}
	require.Equal(t, []string{"gpu-1", "gpu-1-t4-v100m16", "gpu-2", "gpu-share-250-t4", "gpu-share-600"}, names, "one per shape, sorted")
	require.Equal(t, whole(2), specs["gpu-2"])
	require.Equal(t, shared(600), specs["gpu-share-600"])
	sel := specs["gpu-1-t4-v100m16"].Requests[0].Exactly.Selectors
	require.Equal(t, []cluster.DeviceSelector{{CEL: `device.attributes["gpu.nvidia.com"].model in ["T4", "V100M16"]`}}, sel)
	require.Equal(t, cluster.Quantity(250*1000), specs["gpu-share-250-t4"].Requests[0].Exactly.Capacity["milligpu"])

	tests := []struct {
		pod, template string
	}{
		{"cpu", ""},
		{"two", "gpu-2"},
		{"two-nan", "gpu-2"},
		{"share-600", "gpu-share-600"},
		{"share-600-again", "gpu-share-600"},
		{"one", "gpu-1"},
		{"one-no-milli", "gpu-1"},
		{"one-of-models", "gpu-1-t4-v100m16"},
		{"share-t4", "gpu-share-250-t4"},
	}
	require.Len(t, sc.Pods, len(tests))
	for i, tt := range tests {
		t.Run(tt.pod, func(t *testing.T) {
			p := sc.Pods[i].Pod
			require.Equal(t, tt.pod, p.Name)
			require.Zero(t, p.Requests.Get(DefaultGPUResource))
			require.Nil(t, p.Affinity, "the selector alone keeps a pod to its models")
			if tt.template == "" {
				require.Empty(t, p.ResourceClaims)
				return
			}
			require.Equal(t, []cluster.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: tt.template}}, p.ResourceClaims)
		})
	}

	res, err := sc.Run()
	require.NoError(t, err)
	for _, p := range res.Pods {
		require.Equal(t, gangsim.PhaseBound, p.Phase, p.Name)
	}
	byName := map[string]scenario.PodResult{}
	for _, p := range res.Pods {
		byName[p.Name] = p
	}
	require.Equal(t, "t4-0", byName["share-t4"].Node, "its selector keeps it to the T4s")

	sc, err = Load("testdata/gpu-nodes.csv", "testdata/gpu-pods.csv", Options{IgnoreGPUSpec: true})
	require.NoError(t, err)
	require.Equal(t, "gpu-1", sc.Pods[7].Pod.ResourceClaims[0].ResourceClaimTemplateName, "no models, no selector")
}

// The default trace's golden, with GPUs as devices (pods-pooled.json is
// the same trace pooled).
func TestTraceDevicesGolden(t *testing.T) {
	sc, err := Load("testdata/nodes.csv", "testdata/pods.csv", Options{})
	require.NoError(t, err)
	golden(t, sc, "testdata/pods.json")
}

// Three pods of 0.6 GPU on a node of two GPUs: as devices, two fit (each
// on a GPU of its own; the third would need 0.6 of one and 0.4 is left on
// each); pooled, the 2,000 thousandths hold all three.
func TestSharesPackOnDevices(t *testing.T) {
	nodes := "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,65536,2,T4\n"
	pods := "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,1000,1024,1,600\np1,1000,1024,1,600\np2,1000,1024,1,600\n"
	for _, tt := range []struct {
		name   string
		pooled bool
		bound  int
	}{
		{"devices", false, 2},
		{"pooled", true, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := Read("nodes.csv", strings.NewReader(nodes), "pods.csv", strings.NewReader(pods), Options{PooledGPUs: tt.pooled})
			require.NoError(t, err)
			res, err := sc.Run()
			require.NoError(t, err)
			bound := 0
			for _, p := range res.Pods {
				if p.Phase == gangsim.PhaseBound {
					bound++
				}
			}
			require.Equal(t, tt.bound, bound)
		})
	}
}

// Template names are the shapes' own, made unique and valid whatever the
// models are called, and independent of file order.
func TestTemplateNames(t *testing.T) {
	tests := []struct {
		name   string
		shapes []gpuShape
		want   []string
	}{
		{"plain", []gpuShape{{count: 8}, {count: 1, milli: 50}, {count: 1}, {count: 1}}, []string{"gpu-1", "gpu-8", "gpu-share-50"}},
		{"models", []gpuShape{{count: 1, models: "A10|V100M16"}, {count: 1, models: "G2"}}, []string{"gpu-1-a10-v100m16", "gpu-1-g2"}},
		{"case collision", []gpuShape{{count: 1, models: "a"}, {count: 1, models: "A"}}, []string{"gpu-1-a", "gpu-1-a-2"}},
		{"punctuation", []gpuShape{{count: 1, models: "x_y"}, {count: 1, models: "x.y"}, {count: 1, models: "x-y"}}, []string{"gpu-1-x-y", "gpu-1-x-y-2", "gpu-1-x-y-3"}},
		{"ends badly", []gpuShape{{count: 1, models: "x_"}, {count: 2, models: "_"}}, []string{"gpu-1-x", "gpu-2"}},
		{"long", []gpuShape{{count: 1, models: strings.Repeat("m", 300)}}, []string{"gpu-shape-0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, order := range [][]gpuShape{tt.shapes, reversed(tt.shapes)} {
				templates, names, err := gpuTemplates(order)
				require.NoError(t, err)
				var got []string
				for _, tm := range templates {
					got = append(got, tm.Name)
					require.NoError(t, tm.Validate())
				}
				require.Equal(t, tt.want, got)
				require.Len(t, names, len(tt.want))
			}
		})
	}
}

func reversed(s []gpuShape) []gpuShape {
	out := make([]gpuShape, len(s))
	for i, v := range s {
		out[len(s)-1-i] = v
	}
	return out
}

func TestTraceDeviceErrors(t *testing.T) {
	pods := "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n"
	tests := []struct {
		name, nodes, pods, want string
	}{
		{"too many GPUs", "sn,cpu_milli,memory_mib,gpu\nn0,1,1,129\n", pods,
			"trace: nodes.csv: line 2: column gpu: 129 GPUs: one slice holds at most 128 devices"},
		{"share above one", "sn,cpu_milli,memory_mib,gpu\nn0,1,1,1\n", pods + "p,1,1,1,1500,\n",
			"trace: pods.csv: line 2: column gpu_milli: 1500: a GPU is 1000 thousandths"},
		{"models of no node", "sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,0,\nn1,1,1,2,\n", pods + "p,1,1,1,1000,T4\n",
			`trace: nodes.csv: line 3: column model: node "n1" has GPUs of no model, and pod "p" (line 2) asks for models`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read("nodes.csv", strings.NewReader(tt.nodes), "pods.csv", strings.NewReader(tt.pods), Options{})
			require.ErrorIs(t, err, ErrTrace)
			require.ErrorContains(t, err, tt.want)
		})
	}
	// Pooled, a node of many GPUs and a model-less one are fine.
	_, err := Read("nodes.csv", strings.NewReader("sn,cpu_milli,memory_mib,gpu\nn0,1,1,129\n"), "pods.csv",
		strings.NewReader(pods+"p,1,1,1,1000,T4\n"), Options{PooledGPUs: true})
	require.NoError(t, err)
}

// A trace of many pods makes few templates: one per shape.
func TestTemplatesPerShape(t *testing.T) {
	var b strings.Builder
	b.WriteString("name,cpu_milli,memory_mib,num_gpu,gpu_milli\n")
	for i := range 8000 {
		fmt.Fprintf(&b, "p%d,1,1,1,%d\n", i, []int{1000, 500, 250}[i%3])
	}
	sc, err := Read("nodes.csv", strings.NewReader("sn,cpu_milli,memory_mib,gpu\nn0,1,1,8\n"), "pods.csv", strings.NewReader(b.String()), Options{})
	require.NoError(t, err)
	require.Len(t, sc.Devices.Templates, 3)
}
