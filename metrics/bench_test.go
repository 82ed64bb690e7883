package metrics_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
	"github.com/gangsim/gangsim/gangsimtest"
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

// gpuPods is a busy GPU day for BenchmarkRecorderGPUs: 20,000 pods of 2
// cpus asking for one GPU, two or 0.5 of one (6:2:2), one every 1.8s for
// ten hours, each running 1h to 4h: about 5,400 run at once on 1,000
// nodes of 8 GPUs, which keeps the GPUs around 85% allocated.
const gpuNodes, gpuPods = 1000, 20000

type timedPod struct {
	at, duration time.Duration
	pod          cluster.Pod
}

func gpuDay() []timedPod {
	templates := []string{"one", "one", "one", "one", "one", "one", "two", "two", "half", "half"}
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]timedPod, gpuPods)
	for i := range out {
		out[i] = timedPod{at: time.Duration(i) * 1800 * time.Millisecond, duration: time.Hour + time.Duration(rng.Int64N(int64(3*time.Hour))),
			pod: gangsimtest.MakePod(fmt.Sprintf("pod-%05d", i)).CPU("2").Memory("8Gi").
				ResourceClaims(cluster.PodResourceClaim{Name: "gpu", ResourceClaimTemplateName: templates[rng.IntN(len(templates))]}).Obj()}
	}
	return out
}

// gpuCluster makes 1,000 nodes of 64 cpus with 8 shared GPUs each (1000
// milligpu) and the templates one, two and half.
func gpuCluster(b *testing.B, opts ...gangsim.Option) *claimsScheduler {
	b.Helper()
	claims := controllers.NewResourceClaims()
	s, err := gangsim.New(gangsim.Config{}, append(opts, claims.Attach())...)
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	must(err)
	must(s.AddDeviceClass(cluster.DeviceClass{Name: "gpu", Selectors: []cluster.DeviceSelector{{CEL: `device.driver == "gpu.nvidia.com"`}}}))
	model := "A100"
	for i := range gpuNodes {
		name := fmt.Sprintf("node-%05d", i)
		must(s.AddNode(gangsimtest.MakeNode(name).CPU("64").Memory("512Gi").Obj()))
		must(s.AddResourceSlice(gangsimtest.GPUSlice(name, 8, model, true)))
	}
	must(claims.Start(s))
	must(claims.AddTemplate(cluster.ResourceClaimTemplate{Name: "one", Spec: gangsimtest.GPUSpec(1, "", 0)}))
	must(claims.AddTemplate(cluster.ResourceClaimTemplate{Name: "two", Spec: gangsimtest.GPUSpec(2, "", 0)}))
	must(claims.AddTemplate(cluster.ResourceClaimTemplate{Name: "half", Spec: gangsimtest.GPUSpec(1, "", 500)}))
	return &claimsScheduler{s, claims}
}

// runDay adds the pods at their times and runs to the end.
func runDay(b *testing.B, s *claimsScheduler, pods []timedPod) {
	b.Helper()
	for _, p := range pods {
		if err := s.RunUntil(p.at); err != nil {
			b.Fatal(err)
		}
		if err := s.AddPod(p.pod, p.duration); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Run(); err != nil {
		b.Fatal(err)
	}
}

// replaySource is a DeviceSource for a replayed stream: the scheduler's
// slices and classes, and the claims as they were when their pods
// arrived (template claims are deleted with their pods).
type replaySource struct {
	*gangsim.Scheduler
	claims map[string]*cluster.ResourceClaim
}

func (rs replaySource) ResourceClaim(key string) (*cluster.ResourceClaim, bool) {
	c, ok := rs.claims[key]
	return c, ok
}

// BenchmarkRecorderGPUs replays the stream of a busy GPU day (1,000 nodes
// of 8 shared GPUs, 20,000 pods over ten hours: about 120k events) into
// a Recorder, without devices and following them, and builds its
// report; ns/event is the Recorder's cost per event, sched-ns/event the
// scheduler's (with an observer that only keeps the events) for scale.
func BenchmarkRecorderGPUs(b *testing.B) {
	var s *claimsScheduler
	var events []gangsim.Event
	claims := map[string]*cluster.ResourceClaim{}
	s = gpuCluster(b, gangsim.WithObserver(func(e gangsim.Event) {
		events = append(events, e)
		if e.Kind == gangsim.EventPodArrived {
			for i := range e.Pod.Pod().ResourceClaims {
				key := e.Pod.Pod().ClaimKey(i)
				if c, ok := s.ResourceClaim(key); ok {
					claims[key] = c
				}
			}
		}
	}))
	start := time.Now()
	runDay(b, s, gpuDay())
	sched := time.Since(start)
	src := replaySource{Scheduler: s.Scheduler, claims: claims}
	for _, withDevices := range []bool{false, true} {
		b.Run(fmt.Sprintf("devices=%v", withDevices), func(b *testing.B) {
			opts := metrics.Options{}
			if withDevices {
				opts.Devices = src
			}
			b.ReportAllocs()
			var rep *metrics.Report
			for b.Loop() {
				rec := metrics.NewRecorder(opts)
				for _, e := range events {
					rec.Observe(e)
				}
				rep = rec.Report()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(events)), "ns/event")
			b.ReportMetric(float64(sched.Nanoseconds())/float64(len(events)), "sched-ns/event")
			b.ReportMetric(float64(len(events)), "events")
			if withDevices && (len(rep.Devices) == 0 || len(rep.DeviceFragmentation) == 0) {
				b.Fatal("no device sections")
			}
		})
	}
}

// BenchmarkGPUDay runs the busy GPU day with and without a Recorder
// attached: the difference is what the metrics cost in a run.
func BenchmarkGPUDay(b *testing.B) {
	for _, withRecorder := range []bool{false, true} {
		b.Run(fmt.Sprintf("recorder=%v", withRecorder), func(b *testing.B) {
			pods := gpuDay()
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				var opts []gangsim.Option
				var rec *metrics.Recorder
				if withRecorder {
					rec = metrics.NewRecorder(metrics.Options{})
					opts = append(opts, rec.Attach())
				}
				s := gpuCluster(b, opts...)
				b.StartTimer()
				runDay(b, s, pods)
				if rec != nil {
					_ = rec.Report()
				}
			}
			b.ReportMetric(float64(gpuPods*b.N)/b.Elapsed().Seconds(), "pods/s")
		})
	}
}
