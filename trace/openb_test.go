package trace

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
)

// openbDirVar names the environment variable holding the folder of the
// Alibaba cluster-trace-gpu-v2023 "openb" CSV files. The trace is
// research-use data: it is read at run time, never committed; without the
// variable these tests and benchmarks skip.
const openbDirVar = "GANGSIM_OPENB_DIR"

// openbFiles returns the default node and pod files of the trace.
func openbFiles(tb testing.TB) (nodes, pods string) {
	tb.Helper()
	dir := os.Getenv(openbDirVar)
	if dir == "" {
		tb.Skipf("set %s to the openb trace folder to run this", openbDirVar)
	}
	nodes, pods = filepath.Join(dir, "openb_node_list_all_node.csv"), filepath.Join(dir, "openb_pod_list_default.csv")
	for _, f := range []string{nodes, pods} {
		if _, err := os.Stat(f); err != nil {
			tb.Skipf("trace not available: %v", err)
		}
	}
	return nodes, pods
}

// replayed is a pod's end state.
type replayed struct {
	phase gangsim.Phase
	node  string
}

// directReplay replays the trace straight through the scheduler's Go API,
// as the engine's trace benchmark did before this importer: the reference
// the importer must match.
func directReplay(t *testing.T, nodesPath, podsPath string) map[string]replayed {
	read := func(path string) [][]string {
		f, err := os.Open(path)
		require.NoError(t, err)
		defer f.Close()
		rows, err := csv.NewReader(f).ReadAll()
		require.NoError(t, err)
		return rows[1:]
	}
	atoi := func(s string) int64 {
		if s == "" {
			return 0
		}
		v, err := strconv.ParseInt(s, 10, 64)
		require.NoError(t, err)
		return v
	}
	s, err := gangsim.New(gangsim.Config{})
	require.NoError(t, err)
	for _, n := range read(nodesPath) {
		alloc := cluster.NewResources(atoi(n[1]), atoi(n[2])<<20, 110, cluster.Scalar{Name: DefaultGPUResource, Value: 1000 * atoi(n[3])})
		require.NoError(t, s.AddNode(cluster.Node{Name: n[0], Allocatable: alloc}))
	}
	for _, p := range read(podsPath) {
		gpus, share := atoi(p[3]), atoi(p[4])
		want := 1000 * gpus
		if gpus == 1 && share > 0 {
			want = share
		}
		at := time.Duration(atoi(p[8])) * time.Second
		require.NoError(t, s.RunUntil(at))
		var run time.Duration
		if p[9] != "" {
			run = time.Duration(atoi(p[9])-atoi(p[8])) * time.Second
		}
		pod := cluster.Pod{Name: p[0], Requests: cluster.NewResources(atoi(p[1]), atoi(p[2])<<20, 0, cluster.Scalar{Name: DefaultGPUResource, Value: want})}
		require.NoError(t, s.AddPod(pod, run))
	}
	require.NoError(t, s.Run())
	out := map[string]replayed{}
	for st := range s.Pods() {
		out[st.Key.Display()] = replayed{st.Phase, st.Node}
	}
	return out
}

// The openb trace read pooled, replayed through the importer and the
// scenario runner, ends as the direct replay does: every pod in the same
// phase on the same node.
func TestOpenBReplayMatchesDirect(t *testing.T) {
	nodes, pods := openbFiles(t)
	want := directReplay(t, nodes, pods)
	start := time.Now()
	sc, err := Load(nodes, pods, Options{PooledGPUs: true})
	require.NoError(t, err)
	loaded := time.Since(start)
	res, err := sc.Run()
	require.NoError(t, err)
	got := map[string]replayed{}
	phases := map[gangsim.Phase]int{}
	for _, p := range res.Pods {
		got[p.Name] = replayed{p.Phase, p.Node}
		phases[p.Phase]++
	}
	require.Equal(t, want, got)
	t.Logf("openb: %d nodes, %d pods: %v, %d bound by cycles; import %v, import and replay %v",
		len(sc.Nodes), len(sc.Pods), phases, res.Stats.Scheduled, loaded, time.Since(start))
}

// TestOpenBReplay imports and replays the trace, GPUs as devices (the
// default) and pooled, and logs how the pods end; run one mode alone
// (-run 'TestOpenBReplay$/devices') to time a whole process. On devices
// a share must fit in what one GPU has left, so pods may wait, or land
// elsewhere, where pooled they were placed.
func TestOpenBReplay(t *testing.T) {
	nodes, pods := openbFiles(t)
	for _, tt := range []struct {
		name string
		opts Options
	}{
		{"devices", Options{}},
		{"pooled", Options{PooledGPUs: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			sc, err := Load(nodes, pods, tt.opts)
			require.NoError(t, err)
			loaded := time.Since(start)
			res, err := sc.Run()
			require.NoError(t, err)
			phases := map[gangsim.Phase]int{}
			for _, p := range res.Pods {
				phases[p.Phase]++
			}
			t.Logf("openb %s: %d nodes, %d slices, %d templates, %d pods: %v, %d bound by cycles in %d cycles; import %v, import and replay %v",
				tt.name, len(sc.Nodes), len(sc.Devices.Slices), len(sc.Devices.Templates), len(sc.Pods), phases,
				res.Stats.Scheduled, res.Stats.Cycles, loaded, time.Since(start))
		})
	}
}

// BenchmarkOpenBImport reads the trace into a scenario, GPUs as devices
// and pooled.
func BenchmarkOpenBImport(b *testing.B) {
	nodes, pods := openbFiles(b)
	for _, pooled := range []bool{false, true} {
		b.Run(map[bool]string{false: "devices", true: "pooled"}[pooled], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Load(nodes, pods, Options{PooledGPUs: pooled}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkOpenBReplay replays the trace through the scenario runner:
// 1,523 nodes, 8,152 pods arriving at their creation times and running
// until their deletion times, over about 149 simulated days, GPUs as
// devices (trace, racks+gangs) and pooled. It reports pods bound per
// second of wall time and the pods left pending.
func BenchmarkOpenBReplay(b *testing.B) {
	nodes, pods := openbFiles(b)
	for _, bc := range []struct {
		name string
		opts Options
	}{
		{"trace", Options{}},
		{"racks+gangs", Options{RackSize: 16, Gangs: GangOptions{Size: 4, TopologyKey: DefaultRackLabel}}},
		{"pooled", Options{PooledGPUs: true}},
		{"pooled/racks+gangs", Options{PooledGPUs: true, RackSize: 16, Gangs: GangOptions{Size: 4, TopologyKey: DefaultRackLabel}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			sc, err := Load(nodes, pods, bc.opts)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			var bound, pending int
			for b.Loop() {
				res, err := sc.Run()
				if err != nil {
					b.Fatal(err)
				}
				bound += res.Stats.Scheduled
				pending += res.Stats.Pending
			}
			b.ReportMetric(float64(bound)/b.Elapsed().Seconds(), "pods/s")
			b.ReportMetric(float64(pending)/float64(b.N), "pending")
		})
	}
}
