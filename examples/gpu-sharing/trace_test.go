package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	return path
}

func TestLoad(t *testing.T) {
	nodes, err := LoadNodes(writeFile(t, "n.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,32000,262144,0,\nn1,96000,786432,8,V100M32\nn2,64000,1024,2,nan\n"))
	require.NoError(t, err)
	require.Equal(t, []Node{
		{Name: "n0", MilliCPU: 32000, MemoryMiB: 262144},
		{Name: "n1", MilliCPU: 96000, MemoryMiB: 786432, GPUs: 8, Model: "V100M32"},
		{Name: "n2", MilliCPU: 64000, MemoryMiB: 1024, GPUs: 2},
	}, nodes)
	pods, err := LoadPods(writeFile(t, "p.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n"+
		"a,4000,100,0,0,\nb,6000,200,1,460,\nc,8000,300,8,1000,V100M16|V100M32\nd,1000,0,1,1200,nan\n"))
	require.NoError(t, err)
	require.Equal(t, []Pod{
		{Name: "a", MilliCPU: 4000, MemoryMiB: 100},
		{Name: "b", MilliCPU: 6000, MemoryMiB: 200, NumGPU: 1, GPUMilli: 460},
		{Name: "c", MilliCPU: 8000, MemoryMiB: 300, NumGPU: 8, GPUMilli: 1000, Models: []string{"V100M16", "V100M32"}},
		{Name: "d", MilliCPU: 1000, NumGPU: 1, GPUMilli: 1000}, // clamped, as the artefact does
	}, pods)
	require.True(t, pods[1].Sharing())
	require.EqualValues(t, 8000, pods[2].TotalGPUMilli())

	// Without gpu_milli (the multigpu50 variant) every GPU is whole.
	pods, err = LoadPods(writeFile(t, "p.csv", "name,cpu_milli,memory_mib,num_gpu\na,1,1,2\n"))
	require.NoError(t, err)
	require.EqualValues(t, 1000, pods[0].GPUMilli)
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct {
		name, nodes, pods, want string
	}{
		{name: "bad number", nodes: "sn,cpu_milli,memory_mib,gpu\nn0,1,1,0\nn1,x,1,0\n", want: "n.csv: line 3: column cpu_milli: \"x\" is not a whole number"},
		{name: "negative", pods: "name,cpu_milli,memory_mib,num_gpu,gpu_milli\na,1,-5,0,0\n", want: "p.csv: line 2: column memory_mib"},
		{name: "missing column", nodes: "sn,cpu_milli,gpu\nn0,1,0\n", want: "n.csv: line 1: column memory_mib: required"},
		{name: "duplicate node", nodes: "sn,cpu_milli,memory_mib,gpu\nn0,1,1,0\nn0,1,1,0\n", want: "line 3: column sn: node \"n0\" is listed twice (first on line 2)"},
		{name: "too many GPUs", nodes: "sn,cpu_milli,memory_mib,gpu\nn0,1,1,9\n", want: "line 2: column gpu: 9 GPUs"},
		{name: "GPU pod of nothing", pods: "name,cpu_milli,memory_mib,num_gpu,gpu_milli\na,1,1,1,0\n", want: "line 2: column gpu_milli"},
		{name: "short line", pods: "name,cpu_milli,memory_mib,num_gpu\na,1,1\n", want: "p.csv: line 2: wrong number of fields"},
		{name: "empty", pods: "", want: "p.csv: empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.nodes != "" {
				_, err = LoadNodes(writeFile(t, "n.csv", tc.nodes))
			} else {
				_, err = LoadPods(writeFile(t, "p.csv", tc.pods))
			}
			require.ErrorContains(t, err, tc.want)
			var te *TraceError
			require.ErrorAs(t, err, &te)
		})
	}
	_, err := LoadNodes(filepath.Join(t.TempDir(), "none.csv"))
	require.ErrorIs(t, err, os.ErrNotExist)
}
