package autoscaler

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	gt "github.com/gangsim/gangsim/gangsimtest"
)

// arrival is a pod and when it comes.
type arrival struct {
	at  time.Duration
	pod cluster.Pod
	run time.Duration
}

// dayGroups are a day's node groups: 2,000 nodes at most in all; GPU
// nodes are tainted, and GPU pods tolerate the taint.
func dayGroups() []NodeGroup {
	cpu := group("cpu", "8", 1500)
	cpu.Template = gt.MakeNode("t").CPU("8").Memory("32Gi").Pods(110).Label("pool", "cpu").Obj()
	cpu.ProvisioningDelay, cpu.PricePerHour = Delay{Fixed: 3 * time.Minute}, 0.4
	mem := group("mem", "4", 300)
	mem.Template = gt.MakeNode("t").CPU("4").Memory("64Gi").Pods(110).Label("pool", "mem").Obj()
	mem.ProvisioningDelay, mem.PricePerHour = Delay{Fixed: 3 * time.Minute}, 0.5
	gpu := group("gpu", "32", 200)
	gpu.Template = gt.MakeNode("t").CPU("32").Memory("256Gi").GPU(8).Pods(110).Label("pool", "gpu").
		Taint(string(ResourceGPU), "", cluster.TaintNoSchedule).Obj()
	gpu.ProvisioningDelay, gpu.PricePerHour, gpu.RackSize = Delay{Fixed: 5 * time.Minute}, 32.77, 8
	return []NodeGroup{cpu, mem, gpu}
}

// dayPods are n pods arriving over a day, seeded: 80% cpu pods (1-2
// cpu), 15% memory pods (8-16Gi), 5% GPU pods (1-8 GPUs), each running
// 10m to 2h.
func dayPods(n int, seed uint64) []arrival {
	rng := rand.New(rand.NewPCG(seed, seed))
	out := make([]arrival, n)
	for i := range out {
		w := gt.MakePod(fmt.Sprintf("p-%05d", i))
		kind := rng.IntN(100)
		switch {
		case kind < 80:
			w = w.MilliCPU(int64(1000 + rng.IntN(1000))).Memory(fmt.Sprintf("%dGi", 2+rng.IntN(3)))
		case kind < 95:
			w = w.MilliCPU(500).Memory(fmt.Sprintf("%dGi", 8+rng.IntN(9)))
		default:
			w = w.CPU("4").Memory("32Gi").GPU(int64(1+rng.IntN(8))).Toleration(string(ResourceGPU), "", cluster.TaintNoSchedule)
		}
		out[i] = arrival{at: time.Duration(rng.Int64N(int64(24 * time.Hour))), pod: owned(w, fmt.Sprintf("rs-%d", kind/5)),
			run: 10*time.Minute + time.Duration(rng.Int64N(int64(110*time.Minute)))}
	}
	slices.SortStableFunc(out, func(x, y arrival) int { return int(x.at - y.at) })
	return out
}

// runDay drives s and a through the arrivals, then to the end.
func runDay(s *gangsim.Scheduler, a *Autoscaler, pods []arrival) (time.Duration, error) {
	if err := a.Start(s); err != nil {
		return 0, err
	}
	for _, p := range pods {
		if err := a.Advance(s, p.at); err != nil {
			return 0, err
		}
		if err := s.AddPod(p.pod, p.run); err != nil {
			return 0, err
		}
	}
	return Run(s, a)
}

// BenchmarkAutoscaledDay is a day of 50,000 pods on node groups of at
// most 2,000 nodes (cpu, memory and GPU pools), autoscaled, on three
// seeds of the arrivals.
func BenchmarkAutoscaledDay(b *testing.B) {
	for seed := uint64(1); seed <= 3; seed++ {
		b.Run(fmt.Sprintf("seed=%d", seed), func(b *testing.B) { benchDay(b, seed) })
	}
}

func benchDay(b *testing.B, seed uint64) {
	pods := dayPods(50_000, seed)
	b.ReportAllocs()
	for b.Loop() {
		a, err := New(Config{MaxNodesTotal: 2000}, dayGroups(), rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			b.Fatal(err)
		}
		s, err := gangsim.New(gangsim.Config{}, a.Attach())
		if err != nil {
			b.Fatal(err)
		}
		end, err := runDay(s, a, pods)
		if err != nil {
			b.Fatal(err)
		}
		var nodes, added int
		var cost float64
		for _, g := range a.Groups(end) {
			nodes += g.MaxNodes
			added += g.NodesAdded
			cost += g.Cost
		}
		b.ReportMetric(float64(len(a.Events())), "decisions")
		b.ReportMetric(float64(added), "nodes-added")
		b.ReportMetric(cost, "cost")
	}
}
