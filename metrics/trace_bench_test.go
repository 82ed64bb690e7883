package metrics_test

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/metrics"
)

// openbDirVar names the environment variable holding the folder of the
// Alibaba cluster-trace-gpu-v2023 "openb" CSV files, research-use data
// that is read at run time and never committed; without it the benchmark
// skips.
const openbDirVar = "GANGSIM_OPENB_DIR"

// gpuMilli models the trace's GPUs in thousandths, so that sharing pods
// fit beside each other.
const gpuMilli cluster.ResourceName = "alibaba.com/gpu-milli"

func readTrace(b *testing.B, name string) [][]string {
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

func num(b *testing.B, s string) int64 {
	if s == "" {
		return 0
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		b.Fatalf("trace value %q: %v", s, err)
	}
	return v
}

// BenchmarkRecorderOpenB records the openb trace (1,523 nodes, 8,152 pods
// over about 149 simulated days) and reports the recorder's cost per
// event beside the simulation's, and the trace's mean stranded GPU
// share (in thousandths of a GPU).
func BenchmarkRecorderOpenB(b *testing.B) {
	nodes := readTrace(b, "openb_node_list_all_node.csv")
	pods := readTrace(b, "openb_pod_list_default.csv")
	var events []gangsim.Event
	s, err := gangsim.New(gangsim.Config{}, gangsim.WithObserver(func(e gangsim.Event) { events = append(events, e) }))
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range nodes {
		alloc := cluster.NewResources(num(b, n[1]), num(b, n[2])<<20, 110, cluster.Scalar{Name: gpuMilli, Value: 1000 * num(b, n[3])})
		if err := s.AddNode(cluster.Node{Name: n[0], Allocatable: alloc}); err != nil {
			b.Fatal(err)
		}
	}
	for _, p := range pods {
		gpus, share := num(b, p[3]), num(b, p[4])
		want := 1000 * gpus
		if gpus == 1 && share > 0 {
			want = share
		}
		if err := s.RunUntil(time.Duration(num(b, p[8])) * time.Second); err != nil {
			b.Fatal(err)
		}
		var run time.Duration
		if p[9] != "" {
			run = time.Duration(num(b, p[9])-num(b, p[8])) * time.Second
		}
		pod := cluster.Pod{Name: p[0], Requests: cluster.NewResources(num(b, p[1]), num(b, p[2])<<20, 0, cluster.Scalar{Name: gpuMilli, Value: want})}
		if err := s.AddPod(pod, run); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Run(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var rep *metrics.Report
	for b.Loop() {
		rec := metrics.NewRecorder(metrics.Options{})
		for _, e := range events {
			rec.Observe(e)
		}
		rep = rec.Report()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(events)), "ns/event")
	b.ReportMetric(float64(len(events)), "events")
	for _, r := range rep.Resources {
		if r.Resource == gpuMilli {
			b.ReportMetric(r.Fragmented, "stranded-gpu-milli")
			b.ReportMetric(100*r.Utilization, "gpu-util-%")
		}
	}
}
