package metrics_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/metrics"
	"github.com/gangsim/gangsim/trace"
)

// openbDirVar names the environment variable holding the folder of the
// Alibaba cluster-trace-gpu-v2023 "openb" CSV files, research-use data
// that is read at run time and never committed; without it the benchmark
// skips.
const openbDirVar = "GANGSIM_OPENB_DIR"

// BenchmarkRecorderOpenB records the openb trace (1,523 nodes in racks of
// 8, 8,152 pods over about 149 simulated days, multi-GPU pods in rack-bound
// gangs of 4) and reports the recorder's cost per event, the GPU
// utilisation and the mean stranded GPU share (thousandths of a GPU). The
// trace is read with pooled GPUs: the recorder measures resources, and
// pooled GPUs are one (trace.DefaultGPUResource); the devices of the
// default reading are not a resource it reports.
func BenchmarkRecorderOpenB(b *testing.B) {
	dir := os.Getenv(openbDirVar)
	if dir == "" {
		b.Skipf("set %s to the openb trace folder to run this benchmark", openbDirVar)
	}
	sc, err := trace.Load(filepath.Join(dir, "openb_node_list_all_node.csv"), filepath.Join(dir, "openb_pod_list_default.csv"),
		trace.Options{PooledGPUs: true, RackSize: 8, Gangs: trace.GangOptions{Size: 4, TopologyKey: trace.DefaultRackLabel}})
	if err != nil {
		b.Fatal(err)
	}
	var events []gangsim.Event
	if _, err := sc.Run(gangsim.WithObserver(func(e gangsim.Event) { events = append(events, e) })); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var rep *metrics.Report
	for b.Loop() {
		rec := metrics.NewRecorder(metrics.Options{DomainKeys: []string{trace.DefaultRackLabel}})
		for _, e := range events {
			rec.Observe(e)
		}
		rep = rec.Report()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(events)), "ns/event")
	b.ReportMetric(float64(len(events)), "events")
	for _, r := range rep.Resources {
		if r.Resource == trace.DefaultGPUResource {
			b.ReportMetric(100*r.Utilization, "gpu-util-%")
			b.ReportMetric(r.Fragmented, "stranded-gpu-milli")
		}
	}
}
