package metrics_test

import (
	"testing"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/metrics"
	"github.com/gangsim/gangsim/scenario"
)

// BenchmarkRecorder replays the event stream of the capacity-planning
// example's default day (about 160k events, 224 nodes, two domain keys)
// into a Recorder and builds its report: the cost metrics add to a run.
func BenchmarkRecorder(b *testing.B) {
	sc, err := scenario.Load("../examples/capacity-planning/default.yaml")
	if err != nil {
		b.Fatal(err)
	}
	var events []gangsim.Event
	if _, err := sc.Run(gangsim.WithObserver(func(e gangsim.Event) { events = append(events, e) })); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		rec := metrics.NewRecorder(metrics.Options{DomainKeys: []string{"topology.kubernetes.io/zone", "rack"}})
		for _, e := range events {
			rec.Observe(e)
		}
		_ = rec.Report()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(events)), "ns/event")
}
