package trace

import (
	"errors"
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/podgroup"
	"github.com/gangsim/gangsim/scenario"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

// golden compares a scenario's result with a file, or rewrites it.
func golden(t *testing.T, sc *scenario.Scenario, path string) {
	t.Helper()
	res, err := sc.Run()
	require.NoError(t, err)
	got, err := res.JSON()
	require.NoError(t, err)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
}

func gpu(milli int64) cluster.Scalar { return cluster.Scalar{Name: DefaultGPUResource, Value: milli} }

// The pooled mode reads GPUs as one extended resource per node, and
// gpu_spec as a node affinity on the model label.
func TestReadTracePooled(t *testing.T) {
	sc, err := Load("testdata/nodes.csv", "testdata/pods.csv", Options{PooledGPUs: true})
	require.NoError(t, err)
	require.Len(t, sc.Nodes, 8)
	n := sc.Nodes[6]
	require.Equal(t, "small-node-6", n.Name)
	require.True(t, cluster.NewResources(96000, 768<<30, 110, gpu(8000)).Equal(n.Allocatable))
	require.Equal(t, map[string]string{DefaultModelLabel: "V100M32"}, n.Labels)
	require.Empty(t, sc.Nodes[1].Labels, "nan is no model")

	require.Len(t, sc.Pods, 12, "every pod is replayed, whatever its final phase in the trace")
	byName := map[string]scenario.Pod{}
	for _, p := range sc.Pods {
		byName[p.Pod.Name] = p
	}
	share := byName["small-pod-01"]
	require.True(t, cluster.NewResources(4000, 16<<30, 0, gpu(500)).Equal(share.Pod.Requests))
	require.Equal(t, 10*time.Second, share.At)
	require.Equal(t, 3590*time.Second, share.Duration)
	require.Equal(t, scenario.Source{File: "testdata/pods.csv", Line: 3, Path: "pod small-pod-01"}, share.Source)
	require.Equal(t, []string{"T4"}, byName["small-pod-03"].Pod.Affinity.NodeAffinity.Required[0].MatchExpressions[0].Values, "repeats go")
	require.Equal(t, []string{"V100M16", "V100M32"}, byName["small-pod-11"].Pod.Affinity.NodeAffinity.Required[0].MatchExpressions[0].Values)
	require.Zero(t, byName["small-pod-06"].Duration, "no deletion time: runs to the end")
	require.Zero(t, byName["small-pod-08"].Duration, "deleted when created: runs to the end")
	require.True(t, cluster.NewResources(32000, 128<<30, 0, gpu(8000)).Equal(byName["small-pod-06"].Pod.Requests))
	require.Empty(t, sc.Devices, "no device objects when pooled")
	golden(t, sc, "testdata/pods-pooled.json")

	sc, err = Load("testdata/nodes.csv", "testdata/pods.csv", Options{PooledGPUs: true, IgnoreGPUSpec: true, MaxPods: 4})
	require.NoError(t, err)
	require.Len(t, sc.Pods, 4)
	require.Nil(t, sc.Pods[2].Pod.Affinity)
}

// Racks and gangs are synthesised on top of the trace, with GPUs as
// devices and pooled.
func TestRacksAndGangs(t *testing.T) {
	for _, pooled := range []bool{false, true} {
		t.Run(map[bool]string{false: "devices", true: "pooled"}[pooled], func(t *testing.T) {
			testRacksAndGangs(t, pooled)
		})
	}
}

func testRacksAndGangs(t *testing.T, pooled bool) {
	opts := Options{PooledGPUs: pooled, RackSize: 2, Gangs: GangOptions{Size: 2, TopologyKey: DefaultRackLabel}}
	sc, err := Load("testdata/nodes.csv", "testdata/pods.csv", opts)
	require.NoError(t, err)
	for i, n := range sc.Nodes {
		require.Equal(t, []string{"rack-0", "rack-0", "rack-1", "rack-1", "rack-2", "rack-2", "rack-3", "rack-3"}[i], n.Labels[DefaultRackLabel])
	}
	require.Equal(t, []podgroup.PodGroup{
		{Name: "gang-0", Policy: podgroup.Gang, MinCount: 2, TopologyKey: DefaultRackLabel},
		{Name: "gang-1", Policy: podgroup.Gang, MinCount: 2, TopologyKey: DefaultRackLabel},
		{Name: "gang-2", Policy: podgroup.Gang, MinCount: 2, TopologyKey: DefaultRackLabel},
	}, sc.PodGroups)
	var members []string
	for _, p := range sc.Pods {
		if p.Pod.PodGroup != "" {
			members = append(members, p.Pod.Name+"@"+p.Pod.PodGroup+"@"+p.At.String()+"+"+p.Duration.String())
		}
	}
	require.Equal(t, []string{
		"small-pod-04@gang-0@1m0s+2h29m0s", "small-pod-05@gang-0@1m0s+2h29m0s",
		"small-pod-06@gang-1@2m0s+0s", "small-pod-09@gang-1@2m0s+5h31m20s",
		"small-pod-10@gang-2@1h1m40s+4h31m40s", "small-pod-11@gang-2@1h1m40s+7h18m20s",
	}, members)
	if pooled {
		golden(t, sc, "testdata/pods-gangs-pooled.json")
		return
	}
	golden(t, sc, "testdata/pods-gangs.json")
}

// A pod file without times (the multigpu variants) arrives at once and
// runs to the end.
func TestTraceWithoutTimes(t *testing.T) {
	sc, err := Load("testdata/nodes.csv", "testdata/pods-short.csv", Options{PooledGPUs: true, GPUResource: "example.com/gpu-milli"})
	require.NoError(t, err)
	for _, p := range sc.Pods {
		require.Zero(t, p.At)
		require.Zero(t, p.Duration)
	}
	require.Equal(t, int64(300), sc.Pods[1].Pod.Requests.Get("example.com/gpu-milli"))
	require.Equal(t, int64(2000), sc.Pods[2].Pod.Requests.Get("example.com/gpu-milli"))
}

func TestTraceErrors(t *testing.T) {
	nodes := "sn,cpu_milli,memory_mib,gpu,model\nn0,4000,1024,0,\n"
	pods := "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time,deletion_time\n"
	tests := []struct {
		name, nodes, pods, want string
	}{
		{"no header", "", pods, "trace: nodes.csv: empty: a header line is required"},
		{"missing column", "sn,cpu_milli,gpu\n", pods, "trace: nodes.csv: line 1: column memory_mib: required (the header has sn,cpu_milli,gpu)"},
		{"column twice", "sn,sn,cpu_milli,memory_mib,gpu\n", pods, "trace: nodes.csv: line 1: column sn: given twice"},
		{"short record", nodes + "n1,4000\n", pods, "trace: nodes.csv: line 3: wrong number of fields"},
		{"bad number", nodes + "n1,4k,1024,0,\n", pods, `trace: nodes.csv: line 3: column cpu_milli: "4k" is not a whole number in 0..4294967296`},
		{"negative", nodes, pods + "p,-1,1,0,0,0,1\n", `trace: pods.csv: line 2: column cpu_milli: "-1" is not a whole number`},
		{"node twice", nodes + "n0,1,1,0,\n", pods, `trace: nodes.csv: line 3: column sn: node "n0" is listed twice (first on line 2)`},
		{"pod twice", nodes, pods + "p,1,1,0,0,0,1\np,1,1,0,0,0,1\n", `trace: pods.csv: line 3: column name: pod "p" is listed twice (first on line 2)`},
		{"two models", "sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,1,A|B\n", pods, `trace: nodes.csv: line 2: column model: a node has one GPU model, not [A B]`},
		{"deleted before created", nodes, pods + "p,1,1,0,0,50,10\n", `trace: pods.csv: line 2: column deletion_time: 10 is before creation_time 50`},
		{"no name", nodes, pods + ",1,1,0,0,0,1\n", `trace: pods.csv: line 2: column name: cluster: invalid pod: name: must not be empty`},
		{"quote", nodes + "\"n1,1,1,0,\n", pods, `trace: nodes.csv: line 3: extraneous or missing " in quoted-field`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read("nodes.csv", strings.NewReader(tt.nodes), "pods.csv", strings.NewReader(tt.pods), Options{})
			require.ErrorIs(t, err, ErrTrace)
			require.ErrorContains(t, err, tt.want)
		})
	}
	_, err := Load("testdata/nodes.csv", "testdata/no-such.csv", Options{})
	require.ErrorIs(t, err, os.ErrNotExist)
	_, err = Read("n", strings.NewReader(nodes), "p", strings.NewReader(pods), Options{RackSize: -1})
	require.ErrorIs(t, err, ErrTrace)
}

// FuzzRead: any pair of files is a scenario or an error wrapping ErrTrace,
// never a panic, with GPUs as devices or pooled; what loads also runs.
func FuzzRead(f *testing.F) {
	nodes, _ := os.ReadFile("testdata/nodes.csv")
	for _, name := range []string{"testdata/pods.csv", "testdata/pods-short.csv"} {
		pods, _ := os.ReadFile(name)
		f.Add(nodes, pods, 2, 2)
	}
	f.Add([]byte("sn,cpu_milli,memory_mib,gpu\nn,1,1,1\n"), []byte("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\np,1,1,1,1,nan|\n"), 0, 3)
	f.Fuzz(func(t *testing.T, nodes, pods []byte, rack, gang int) {
		if len(nodes)+len(pods) > 1<<14 {
			t.Skip("large files make slow runs, not interesting ones")
		}
		opts := Options{RackSize: rack % 8, Gangs: GangOptions{Size: gang % 8, TopologyKey: DefaultRackLabel}, PooledGPUs: rack/8%2 != 0}
		sc, err := Read("nodes.csv", strings.NewReader(string(nodes)), "pods.csv", strings.NewReader(string(pods)), opts)
		if err != nil {
			if !errors.Is(err, ErrTrace) {
				t.Fatalf("error does not wrap ErrTrace: %v", err)
			}
			return
		}
		if len(sc.Pods) > 100 || len(sc.Nodes) > 100 {
			return
		}
		sc.Config.MaxCycles = 10_000
		_, _ = sc.Run()
	})
}
