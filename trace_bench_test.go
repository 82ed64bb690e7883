package gangsim

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/gangsim/gangsim/cluster"
)

// openbDirVar names the environment variable holding the folder of the
// Alibaba cluster-trace-gpu-v2023 "openb" CSV files. The trace is
// research-use data: it is read at run time, never committed; without the
// variable the trace benchmarks skip.
const openbDirVar = "GANGSIM_OPENB_DIR"

// gpuMilli is how the trace's GPUs are modelled: an extended resource in
// thousandths of a GPU, so that sharing pods (gpu_milli < 1000) fit
// beside each other. It does not model packing onto one physical device.
const gpuMilli cluster.ResourceName = "alibaba.com/gpu-milli"

func readCSV(b *testing.B, name string) [][]string {
	b.Helper()
	dir := os.Getenv(openbDirVar)
	if dir == "" {
		b.Skipf("set %s to the openb trace folder to run this benchmark", openbDirVar)
	}
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		b.Skipf("trace not available: %v", err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		b.Fatal(err)
	}
	return rows[1:]
}

func atoi(b *testing.B, s string) int64 {
	if s == "" {
		return 0
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		b.Fatalf("trace value %q: %v", s, err)
	}
	return v
}

// BenchmarkTraceOpenB replays the openb trace: 1,523 nodes, 8,152 pods
// arriving at their creation times and running until their deletion
// times, over about 149 simulated days. It reports pods/s of wall time.
func BenchmarkTraceOpenB(b *testing.B) {
	nodes := readCSV(b, "openb_node_list_all_node.csv")
	pods := readCSV(b, "openb_pod_list_default.csv")
	b.ReportAllocs()
	var bound, pending int
	for b.Loop() {
		s, err := New(Config{})
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range nodes {
			alloc := cluster.NewResources(atoi(b, n[1]), atoi(b, n[2])<<20, 110, cluster.Scalar{Name: gpuMilli, Value: 1000 * atoi(b, n[3])})
			if err := s.AddNode(cluster.Node{Name: n[0], Allocatable: alloc}); err != nil {
				b.Fatal(err)
			}
		}
		for _, p := range pods {
			gpus, share := atoi(b, p[3]), atoi(b, p[4])
			want := 1000 * gpus
			if gpus == 1 && share > 0 {
				want = share
			}
			at := time.Duration(atoi(b, p[8])) * time.Second
			if err := s.RunUntil(at); err != nil {
				b.Fatal(err)
			}
			var run time.Duration
			if p[9] != "" {
				run = time.Duration(atoi(b, p[9])-atoi(b, p[8])) * time.Second
			}
			pod := cluster.Pod{Name: p[0], Requests: cluster.NewResources(atoi(b, p[1]), atoi(b, p[2])<<20, 0, cluster.Scalar{Name: gpuMilli, Value: want})}
			if err := s.AddPod(pod, run); err != nil {
				b.Fatal(err)
			}
		}
		if err := s.Run(); err != nil {
			b.Fatal(err)
		}
		bound += s.Stats().Scheduled
		for st := range s.Pods() {
			if st.Phase == PhasePending {
				pending++
			}
		}
	}
	b.ReportMetric(float64(bound)/b.Elapsed().Seconds(), "pods/s")
	b.ReportMetric(float64(pending)/float64(b.N), "pending")
}
