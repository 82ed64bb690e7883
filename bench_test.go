package gangsim

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/podgroup"
)

// benchCluster is the oracle generator's shape: nodes of 8, 16 or 32 cpus
// with 4GiB per cpu; pods of 0.1-2 cpus with 0.5-4GiB per cpu.
func benchCluster(b *testing.B, nodes, pods int, seed uint64) (*Scheduler, []cluster.Pod) {
	return benchClusterWith(b, Config{}, nodes, pods, seed)
}

func benchClusterWith(b *testing.B, cfg Config, nodes, pods int, seed uint64) (*Scheduler, []cluster.Pod) {
	b.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	s, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	nodeCPU := []int64{8000, 16000, 32000}
	for i := range nodes {
		cpu := nodeCPU[rng.IntN(len(nodeCPU))]
		n := cluster.Node{Name: fmt.Sprintf("node-%05d", i), Allocatable: cluster.NewResources(cpu, cpu/1000*4<<30, 110)}
		if err := s.AddNode(n); err != nil {
			b.Fatal(err)
		}
	}
	podCPU := []int64{100, 250, 500, 1000, 2000}
	memPerCPU := []int64{512 << 20, 1 << 30, 2 << 30, 4 << 30}
	out := make([]cluster.Pod, pods)
	for i := range out {
		cpu := podCPU[rng.IntN(len(podCPU))]
		out[i] = cluster.Pod{Name: fmt.Sprintf("pod-%05d", i), Requests: cluster.NewResources(cpu, cpu*memPerCPU[rng.IntN(len(memPerCPU))]/1000, 0)}
	}
	return s, out
}

// BenchmarkSchedulePods places 10,000 pods on 5,000 nodes with the default
// profile (adaptive percentageOfNodesToScore) and reports pods/s.
func BenchmarkSchedulePods(b *testing.B) {
	for _, pct := range []int32{0, 100} {
		b.Run(fmt.Sprintf("nodes=5000/pods=10000/pct=%d", pct), func(b *testing.B) {
			b.ReportAllocs()
			var pods int
			for b.Loop() {
				b.StopTimer()
				s, ps := benchClusterWith(b, Config{PercentageOfNodesToScore: pct}, 5000, 10000, 1)
				for _, p := range ps {
					if err := s.AddPod(p, 0); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				if err := s.Run(); err != nil {
					b.Fatal(err)
				}
				pods += s.Stats().Scheduled
			}
			b.ReportMetric(float64(pods)/b.Elapsed().Seconds(), "pods/s")
		})
	}
}

// BenchmarkScheduleGangs places 1,000 gangs of 8 pods (minCount 8) on 5,000
// nodes and reports groups/s.
func BenchmarkScheduleGangs(b *testing.B) {
	benchGangs(b, 8, "", func(b *testing.B) (*Scheduler, []cluster.Pod) { return benchCluster(b, 5000, 8000, 2) })
}

// BenchmarkScheduleTopologyGangs places 1,000 gangs of 16 pods with a rack
// topology key on 10,000 nodes in 100 racks and reports groups/s.
func BenchmarkScheduleTopologyGangs(b *testing.B) {
	benchGangs(b, 16, "rack", func(b *testing.B) (*Scheduler, []cluster.Pod) { return rackCluster(b, false) })
}

// rackCluster is 10,000 nodes in 100 racks and 16,000 pods of 20 request
// shapes; oneShape gives the pods of each run of 16 the first one's.
func rackCluster(b *testing.B, oneShape bool) (*Scheduler, []cluster.Pod) {
	s, ps := benchCluster(b, 0, 16000, 3)
	if oneShape {
		for i := range ps {
			ps[i].Requests = ps[i-i%16].Requests
		}
	}
	for i := range 10000 {
		n := cluster.Node{Name: fmt.Sprintf("node-%05d", i), Labels: map[string]string{"rack": fmt.Sprintf("rack-%03d", i%100)},
			Allocatable: cluster.NewResources(32000, 128<<30, 110)}
		if err := s.AddNode(n); err != nil {
			b.Fatal(err)
		}
	}
	return s, ps
}

// BenchmarkScheduleTopologyGangsOneShape is BenchmarkScheduleTopologyGangs
// with the pods of a gang alike, as pods made from one template are: a
// gang then has one pod signature instead of a dozen.
func BenchmarkScheduleTopologyGangsOneShape(b *testing.B) {
	benchGangs(b, 16, "rack", func(b *testing.B) (*Scheduler, []cluster.Pod) { return rackCluster(b, true) })
}

// benchGangs builds a cluster, adds 1,000 gangs of size pods (minCount
// size) with the topology key, times Run and reports groups/s.
func benchGangs(b *testing.B, size int, topology string, build func(*testing.B) (*Scheduler, []cluster.Pod)) {
	b.ReportAllocs()
	var groups int
	for b.Loop() {
		b.StopTimer()
		s, ps := build(b)
		for g := range 1000 {
			name := fmt.Sprintf("gang-%04d", g)
			if err := s.AddPodGroup(podgroup.PodGroup{Name: name, Policy: podgroup.Gang, MinCount: int32(size), TopologyKey: topology}); err != nil {
				b.Fatal(err)
			}
			for i := range size {
				p := ps[g*size+i]
				p.PodGroup = name
				if err := s.AddPod(p, 0); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.StartTimer()
		if err := s.Run(); err != nil {
			b.Fatal(err)
		}
		for gs := range s.PodGroups() {
			if gs.Scheduled == size {
				groups++
			}
		}
	}
	b.ReportMetric(float64(groups)/b.Elapsed().Seconds(), "groups/s")
}

// BenchmarkScheduleAntiAffinity places 10 deployments of 1,000 replicas,
// each replica with required anti-affinity to its own deployment on the
// hostname (one replica per node), on 5,000 nodes; reports pods/s.
func BenchmarkScheduleAntiAffinity(b *testing.B) {
	benchWorkloads(b, func(p *cluster.Pod, app string) {
		p.Affinity = &cluster.Affinity{PodAntiAffinity: &cluster.PodAffinity{Required: []cluster.PodAffinityTerm{{
			LabelSelector: &cluster.LabelSelector{MatchLabels: map[string]string{"app": app}},
			TopologyKey:   "kubernetes.io/hostname",
		}}}}
	})
}

// BenchmarkScheduleZoneSpread places 10 deployments of 1,000 replicas,
// each spread over 20 zones with maxSkew 1 (DoNotSchedule), on 5,000
// nodes; reports pods/s.
func BenchmarkScheduleZoneSpread(b *testing.B) {
	benchWorkloads(b, func(p *cluster.Pod, app string) {
		p.TopologySpreadConstraints = []cluster.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: cluster.DoNotSchedule,
			LabelSelector: &cluster.LabelSelector{MatchLabels: map[string]string{"app": app}},
		}}
	})
}

// benchWorkloads schedules 10 deployments of 1,000 pods, shaped by shape,
// on 5,000 nodes in 20 zones.
func benchWorkloads(b *testing.B, shape func(p *cluster.Pod, app string)) {
	b.ReportAllocs()
	var pods int
	for b.Loop() {
		b.StopTimer()
		s, ps := benchCluster(b, 0, 10000, 4)
		for i := range 5000 {
			cpu := []int64{8000, 16000, 32000}[i%3]
			n := cluster.Node{Name: fmt.Sprintf("node-%05d", i), Labels: map[string]string{"topology.kubernetes.io/zone": fmt.Sprintf("zone-%02d", i%20)},
				Allocatable: cluster.NewResources(cpu, cpu/1000*4<<30, 110)}
			if err := s.AddNode(n); err != nil {
				b.Fatal(err)
			}
		}
		for i, p := range ps {
			app := fmt.Sprintf("app-%d", i%10)
			p.Labels = map[string]string{"app": app}
			shape(&p, app)
			if err := s.AddPod(p, 0); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		if err := s.Run(); err != nil {
			b.Fatal(err)
		}
		pods += s.Stats().Scheduled
		if s.Stats().Scheduled != len(ps) {
			b.Fatalf("%d of %d pods scheduled", s.Stats().Scheduled, len(ps))
		}
	}
	b.ReportMetric(float64(pods)/b.Elapsed().Seconds(), "pods/s")
}

// BenchmarkBusyGPUCluster is a busy GPU cluster: 640 nodes of 8 GPUs in 40
// racks, 3,000 service pods of higher priority, and 400 rack-bound gangs
// of 8 pods x 8 GPUs arriving every 30 s and running 2 hours, so that
// most gang cycles fail while they wait; it reports the whole run.
func BenchmarkBusyGPUCluster(b *testing.B) {
	benchWholeRun(b, runBusyGPUCluster, false)
}

func runBusyGPUCluster(b testing.TB, s *Scheduler) {
	for i := range 640 {
		n := cluster.Node{Name: fmt.Sprintf("node-%03d", i), Labels: map[string]string{"rack": fmt.Sprintf("rack-%02d", i/16)},
			Allocatable: cluster.NewResources(64000, 512<<30, 110).With("nvidia.com/gpu", 8)}
		if err := s.AddNode(n); err != nil {
			b.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 3000 {
		cpu := int64(250 * (1 + rng.IntN(8)))
		p := cluster.Pod{Name: fmt.Sprintf("svc-%04d", i), Priority: new(int32(1000)), Requests: cluster.NewResources(cpu, cpu<<20, 0)}
		if err := s.AddPod(p, 0); err != nil {
			b.Fatal(err)
		}
	}
	for g := range 400 {
		if err := s.RunUntil(time.Duration(g) * 30 * time.Second); err != nil {
			b.Fatal(err)
		}
		name := fmt.Sprintf("train-%03d", g)
		if err := s.AddPodGroup(podgroup.PodGroup{Name: name, Policy: podgroup.Gang, MinCount: 8, TopologyKey: "rack", Priority: new(int32(100))}); err != nil {
			b.Fatal(err)
		}
		for i := range 8 {
			p := cluster.Pod{Name: fmt.Sprintf("%s-%d", name, i), PodGroup: name,
				Requests: cluster.NewResources(8000, 64<<30, 0).With("nvidia.com/gpu", 8)}
			if err := s.AddPod(p, 2*time.Hour); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := s.Run(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkOversubscribedDays is an oversubscribed cluster: 2,000 nodes,
// 50,000 pods arriving over three simulated days (Poisson, 12 to 48 hours
// of run time, three priorities) asking for about twice what the cluster
// holds, and 40 node failures (each node back two hours later). It reports
// the whole run.
func BenchmarkOversubscribedDays(b *testing.B) {
	benchWholeRun(b, func(b testing.TB, s *Scheduler) { runOversubscribed(b, s, 2000, 50000) }, true)
}

// runOversubscribed runs the oversubscribed days on nodes nodes with pods
// pods (the failures scale with the nodes).
func runOversubscribed(b testing.TB, s *Scheduler, nodes, pods int) {
	rng := rand.New(rand.NewPCG(7, 8))
	nodeCPU := []int64{8000, 16000, 32000}
	node := func(i int) cluster.Node {
		cpu := nodeCPU[i%3]
		return cluster.Node{Name: fmt.Sprintf("node-%04d", i), Labels: map[string]string{"topology.kubernetes.io/zone": fmt.Sprintf("zone-%d", i%4)},
			Allocatable: cluster.NewResources(cpu, cpu/1000*4<<30, 110)}
	}
	for i := range nodes {
		if err := s.AddNode(node(i)); err != nil {
			b.Fatal(err)
		}
	}
	type failure struct {
		at   time.Duration
		node int
		back bool
	}
	var failures []failure
	for range nodes / 50 {
		at := time.Duration(rng.Int64N(int64(70 * time.Hour)))
		n := rng.IntN(nodes)
		failures = append(failures, failure{at, n, false}, failure{at + 2*time.Hour, n, true})
	}
	slices.SortFunc(failures, func(x, y failure) int { return cmp.Compare(x.at, y.at) })
	down := map[int]bool{}
	podCPU := []int64{1000, 2000, 4000, 8000}
	prios := []int32{0, 100, 1000}
	at := time.Duration(0)
	for i := range pods {
		at += time.Duration(rng.ExpFloat64() * float64(72*time.Hour) / float64(pods))
		for len(failures) > 0 && failures[0].at <= at {
			f := failures[0]
			failures = failures[1:]
			if err := s.RunUntil(f.at); err != nil {
				b.Fatal(err)
			}
			switch {
			case !f.back && !down[f.node]:
				if err := s.RemoveNode(node(f.node).Name); err != nil {
					b.Fatal(err)
				}
				down[f.node] = true
			case f.back && down[f.node]:
				if err := s.AddNode(node(f.node)); err != nil {
					b.Fatal(err)
				}
				delete(down, f.node)
			}
		}
		if err := s.RunUntil(at); err != nil {
			b.Fatal(err)
		}
		cpu := podCPU[rng.IntN(len(podCPU))]
		p := cluster.Pod{Name: fmt.Sprintf("pod-%05d", i), Priority: new(prios[rng.IntN(3)]), Requests: cluster.NewResources(cpu, cpu<<20, 0)}
		if err := s.AddPod(p, 12*time.Hour+time.Duration(rng.Int64N(int64(36*time.Hour)))); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Run(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkOversubscribedSmall is BenchmarkOversubscribedDays on 100
// nodes with 2,500 pods, for profiling.
func BenchmarkOversubscribedSmall(b *testing.B) {
	benchWholeRun(b, func(b testing.TB, s *Scheduler) { runOversubscribed(b, s, 100, 2500) }, true)
}

// BenchmarkOversubscribedMedium is BenchmarkOversubscribedDays on 400
// nodes with 10,000 pods: how the cost grows between the small and the
// full size.
func BenchmarkOversubscribedMedium(b *testing.B) {
	benchWholeRun(b, func(b testing.TB, s *Scheduler) { runOversubscribed(b, s, 400, 10000) }, true)
}

// benchWholeRun times run on a fresh default Scheduler per iteration.
func benchWholeRun(b *testing.B, run func(testing.TB, *Scheduler), evictions bool) {
	b.ReportAllocs()
	var s *Scheduler
	for b.Loop() {
		b.StopTimer()
		var err error
		if s, err = New(Config{}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		run(b, s)
	}
	b.ReportMetric(float64(s.Stats().Cycles), "cycles")
	if evictions {
		b.ReportMetric(float64(s.Stats().Evictions), "evictions")
	}
}

// BenchmarkFork forks a running simulation of 5,000 nodes with 50,000
// pods bound and 5,000 pending.
func BenchmarkFork(b *testing.B) {
	s, err := New(Config{})
	if err != nil {
		b.Fatal(err)
	}
	for i := range 5000 {
		if err := s.AddNode(cluster.Node{Name: fmt.Sprintf("n%05d", i), Allocatable: cluster.NewResources(32000, 128<<30, 110)}); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 55000 {
		if err := s.AddPod(cluster.Pod{Name: fmt.Sprintf("p%05d", i), Requests: cluster.NewResources(3000, 1<<30, 0)}, time.Hour); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.RunUntil(time.Minute); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Fork(); err != nil {
			b.Fatal(err)
		}
	}
}

// benchGPUCluster is a scheduler with nodes of 64 cpus and eight shared
// GPUs each (devices of 1000 milligpu, as the trace importer makes them),
// the GPU class, and templates for one GPU, two GPUs and half a GPU.
func benchGPUCluster(b *testing.B, nodes int) (*Scheduler, map[string]cluster.ResourceClaimSpec) {
	b.Helper()
	s, err := New(Config{})
	if err != nil {
		b.Fatal(err)
	}
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	must(s.AddDeviceClass(cluster.DeviceClass{Name: "gpu", Selectors: []cluster.DeviceSelector{{CEL: `device.driver == "gpu.nvidia.com"`}}}))
	for i := range nodes {
		name := fmt.Sprintf("node-%05d", i)
		must(s.AddNode(gangsimtest.MakeNode(name).CPU("64").Memory("512Gi").Obj()))
		must(s.AddResourceSlice(gangsimtest.GPUSlice(name, 8, "", true)))
	}
	return s, map[string]cluster.ResourceClaimSpec{"default/one": gangsimtest.GPUSpec(1, "", 0), "default/two": gangsimtest.GPUSpec(2, "", 0), "default/half": gangsimtest.GPUSpec(1, "", 500)}
}

// BenchmarkClaimPods admits and places pods with claims on 5,000 nodes of
// eight GPUs (one GPU, two, or half of one, 6:2:2) with the default
// profile, until the GPUs are three quarters allocated, and reports
// pods/s, admission and the claims made from templates (the resourceclaim
// controller's part, as controllers.ResourceClaims makes them) included.
func BenchmarkClaimPods(b *testing.B) {
	const nodes, pods = 5000, 20000
	names := []string{"one", "one", "one", "one", "one", "one", "two", "two", "half", "half"}
	b.ReportAllocs()
	var placed int
	for b.Loop() {
		b.StopTimer()
		s, templates := benchGPUCluster(b, nodes)
		rng := rand.New(rand.NewPCG(1, 2))
		ps := make([]cluster.Pod, pods)
		for i := range ps {
			ps[i] = gangsimtest.MakePod(fmt.Sprintf("pod-%05d", i)).CPU("2").Memory("8Gi").
				ResourceClaims(cluster.PodResourceClaim{Name: "gpu", ResourceClaimTemplateName: names[rng.IntN(len(names))]}).Obj()
		}
		b.StartTimer()
		for _, p := range ps {
			if err := makeClaims(s, templates, &p); err != nil { // the resourceclaim controller's part
				b.Fatal(err)
			}
			if err := s.AddPod(p, 0); err != nil {
				b.Fatal(err)
			}
		}
		if err := s.Run(); err != nil {
			b.Fatal(err)
		}
		placed += s.Stats().Scheduled
	}
	b.ReportMetric(float64(placed)/b.Elapsed().Seconds(), "pods/s")
}
