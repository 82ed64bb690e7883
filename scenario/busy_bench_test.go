package scenario_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/gangsim/gangsim/scenario"
	"github.com/gangsim/gangsim/scenario/synthetic"
)

// BenchmarkBusyGangCluster runs the synthetic busy cluster
// (docs/synthetic.md) from its file's bytes to the end: the load and the
// run, what a user of the scenario command waits for. Sizes small
// (100 nodes), medium (400) and large (2,000, three days of 50,000 pods);
// seeds 1 to 3, so no figure rests on one input. Select with
// -bench 'BusyGangCluster/medium'.
func BenchmarkBusyGangCluster(b *testing.B) {
	for _, size := range []string{"small", "medium", "large"} {
		for seed := uint64(1); seed <= 3; seed++ {
			c, err := synthetic.Sized(size, seed)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%s/seed=%d", size, seed), func(b *testing.B) {
				var file bytes.Buffer
				if err := synthetic.Write(&file, c); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				var res *scenario.Result
				for b.Loop() {
					sc, err := scenario.Parse("busy.json", file.Bytes())
					if err != nil {
						b.Fatal(err)
					}
					if res, err = sc.Run(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(res.Stats.Cycles), "cycles")
				b.ReportMetric(float64(res.Stats.Evictions), "evictions")
			})
		}
	}
}
