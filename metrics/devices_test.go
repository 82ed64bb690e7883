package metrics_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/metrics"
	"github.com/gangsim/gangsim/scenario"
)

// gpuScheduler makes a scheduler with opt (a Recorder's wiring), with the gpu class and one
// node of 16 cpus and two shared A100s (1000 milligpu each), its slice
// published after the node as a driver would; templates "share600" and
// "whole" ask for 0.6 of a GPU and a whole one.
func gpuScheduler(t *testing.T, opt gangsim.Option) *claimsScheduler {
	t.Helper()
	claims := controllers.NewResourceClaims()
	s, err := gangsim.New(gangsim.Config{CheckInvariants: true}, opt, claims.Attach())
	require.NoError(t, err)
	require.NoError(t, s.AddDeviceClass(cluster.DeviceClass{Name: "gpu", Selectors: []cluster.DeviceSelector{{CEL: `device.driver == "gpu.nvidia.com"`}}}))
	require.NoError(t, s.AddNode(gangsimtest.MakeNode("n1").CPU("16").Memory("64Gi").Obj()))
	model := "A100"
	devs := make([]cluster.Device, 2)
	for i := range devs {
		devs[i] = cluster.Device{Name: fmt.Sprintf("gpu-%d", i), AllowMultipleAllocations: true,
			Attributes: map[cluster.QualifiedName]cluster.DeviceAttribute{"model": {StringValue: &model}},
			Capacity:   map[cluster.QualifiedName]cluster.DeviceCapacity{"milligpu": {Value: 1000 * 1000}}}
	}
	require.NoError(t, s.AddResourceSlice(cluster.ResourceSlice{Name: "n1-gpus", Driver: "gpu.nvidia.com",
		Pool: cluster.ResourcePool{Name: "n1", SliceCount: 1}, NodeName: "n1", Devices: devs}))
	spec := func(milli int64) cluster.ResourceClaimSpec {
		r := &cluster.ExactDeviceRequest{DeviceClassName: "gpu"}
		if milli > 0 {
			r.Capacity = map[cluster.QualifiedName]cluster.Quantity{"milligpu": cluster.Quantity(milli * 1000)}
		}
		return cluster.ResourceClaimSpec{Requests: []cluster.DeviceRequest{{Name: "gpu", Exactly: r}}}
	}
	require.NoError(t, claims.Start(s))
	require.NoError(t, claims.AddTemplate(cluster.ResourceClaimTemplate{Name: "share600", Spec: spec(600)}))
	require.NoError(t, claims.AddTemplate(cluster.ResourceClaimTemplate{Name: "whole", Spec: spec(0)}))
	return &claimsScheduler{s, claims}
}

// claimsScheduler is a Scheduler beside the resourceclaim controller,
// which makes each pod's claims from its template as the pod is added.
type claimsScheduler struct {
	*gangsim.Scheduler
	claims *controllers.ResourceClaims
}

func (cs *claimsScheduler) AddPod(p cluster.Pod, d time.Duration) error {
	if err := cs.claims.Prepare(&p); err != nil {
		return err
	}
	return cs.Scheduler.AddPod(p, d)
}

func gpuPod(name, template string) cluster.Pod {
	return gangsimtest.MakePod(name).CPU("1").ResourceClaims(cluster.PodResourceClaim{Name: "gpu", ResourceClaimTemplateName: template}).Obj()
}

func device(t *testing.T, rep *metrics.Report, by, name string) metrics.DeviceSummary {
	t.Helper()
	for _, d := range rep.Devices {
		if d.By == by && d.Name == name {
			return d
		}
	}
	t.Fatalf("no device group %s=%s", by, name)
	return metrics.DeviceSummary{}
}

func values(pts []metrics.Point) []float64 {
	out := make([]float64, len(pts))
	for i, p := range pts {
		out[i] = p.Value
	}
	return out
}

// By hand: a takes 0.6 of a GPU from 0 to 10m, b a whole GPU from 5m to
// 15m. Allocated devices: 1, 2, 1 over three 5-minute steps, capacity
// 0.6, 1.6, 1.0 (mean 3.2/3, utilisation 3.2/6). Fragmentation: at 0
// only a's type is known, 0.4 of the 1.4 free is too small for it
// (28.57%); from 5m the types weigh half each and 0.4 is free, usable by
// neither (100%); from 10m gpu-0 is free and gpu-1 held whole, nothing is
// fragmented (0%); at 15m everything is free.
func TestDeviceSeriesThroughTheScheduler(t *testing.T) {
	rec := metrics.NewRecorder(metrics.Options{})
	s := gpuScheduler(t, rec.Attach())
	require.NoError(t, s.AddPod(gpuPod("a", "share600"), 10*time.Minute))
	require.NoError(t, s.RunUntil(5*time.Minute))
	require.NoError(t, s.AddPod(gpuPod("b", "whole"), 10*time.Minute))
	require.NoError(t, s.Run())
	rep := rec.Report()
	require.Equal(t, 15*time.Minute, rep.End)

	gpu := device(t, rep, "class", "gpu")
	assert.Equal(t, 2.0, gpu.Devices)
	assert.InDelta(t, 4.0/3, gpu.Allocated, 1e-9)
	assert.Equal(t, 2.0, gpu.AllocatedPeak)
	assert.InDelta(t, 3.2/3, gpu.Capacity, 1e-9)
	assert.Equal(t, 1.6, gpu.CapacityPeak)
	assert.InDelta(t, 3.2/6, gpu.Utilization, 1e-9)
	assert.Equal(t, gpu.Capacity, device(t, rep, "model", "A100").Capacity)

	assert.Equal(t, []float64{1, 2, 1, 0}, values(seriesNamed(t, rep, "class=gpu allocated devices")))
	assert.Equal(t, []float64{0.6, 1.6, 1, 0}, values(seriesNamed(t, rep, "class=gpu allocated device capacity")))
	assert.Equal(t, []float64{2}, values(seriesNamed(t, rep, "model=A100 devices")))

	require.Len(t, rep.DeviceFragmentation, 1)
	f := rep.DeviceFragmentation[0]
	assert.Equal(t, "gpu", f.Class)
	assert.Equal(t, 2, f.TaskTypes)
	assert.Equal(t, []float64{28.5714, 100, 0}, values(seriesNamed(t, rep, "class=gpu device fragmentation")))
	assert.Equal(t, []float64{0.4, 0}, values(seriesNamed(t, rep, "class=gpu fragmented devices")))
	assert.InDelta(t, (28.5714+100)/3, f.Percent, 1e-9)
	assert.Equal(t, 100.0, f.PercentPeak)
	assert.InDelta(t, 0.8/3, f.Fragmented, 1e-9)
	assert.Equal(t, 0.4, f.FragmentedPeak)
}

// Without a DeviceSource, or without devices, the report has no device
// section and its JSON no device fields.
func TestNoDevicesNoSection(t *testing.T) {
	rec := metrics.NewRecorder(metrics.Options{})
	s, err := gangsim.New(gangsim.Config{}, rec.Attach())
	require.NoError(t, err)
	require.NoError(t, s.AddNode(gangsimtest.MakeNode("n1").CPU("4").Obj()))
	require.NoError(t, s.AddPod(gangsimtest.MakePod("p").CPU("1").Obj(), time.Minute))
	require.NoError(t, s.Run())
	rep := rec.Report()
	assert.Empty(t, rep.Devices)
	assert.Empty(t, rep.DeviceFragmentation)
	out, err := rep.JSON(true)
	require.NoError(t, err)
	assert.NotContains(t, string(out), "device")

	plain := metrics.NewRecorder(metrics.Options{}) // an observer only: it cannot see the devices
	gs := gpuScheduler(t, gangsim.WithObserver(plain.Observe))
	require.NoError(t, gs.AddPod(gpuPod("a", "whole"), time.Minute))
	require.NoError(t, gs.Run())
	assert.Empty(t, plain.Report().Devices)
	assert.Empty(t, plain.Report().DeviceFragmentation)
}

// A device report is the same from run to run.
func TestDeviceReportIsDeterministic(t *testing.T) {
	run := func() []byte {
		rec := metrics.NewRecorder(metrics.Options{})
		s := gpuScheduler(t, rec.Attach())
		for i := range 6 {
			tmpl := []string{"share600", "whole"}[i%2]
			require.NoError(t, s.AddPod(gpuPod(fmt.Sprintf("p%d", i), tmpl), time.Duration(i+1)*time.Minute))
		}
		require.NoError(t, s.Run())
		out, err := rec.Report().JSON(true)
		require.NoError(t, err)
		return out
	}
	first := run()
	assert.Equal(t, string(first), string(run()))
	assert.Contains(t, string(first), `"deviceFragmentation"`)
}

// The scenario runner publishes slices before their nodes: they count
// too. The devices scenario's one node has two A100s, both allocated.
func TestDevicesOfAScenario(t *testing.T) {
	sc, err := scenario.Load("../scenario/testdata/scenarios/devices.yaml")
	require.NoError(t, err)
	rec := metrics.NewRecorder(metrics.Options{})
	_, err = sc.Run(rec.Attach())
	require.NoError(t, err)
	rep := rec.Report()
	d := device(t, rep, "class", "gpu.example.com")
	assert.Equal(t, 2.0, d.Devices)
	assert.Equal(t, 2.0, d.Allocated)
	assert.Equal(t, 2.0, device(t, rep, "model", "a100").Devices)
}

// Cordoning a node takes its free devices out of the fragmentation (its
// devices still count), and removing it takes its devices and claims
// away.
func TestDevicesOfCordonedAndRemovedNodes(t *testing.T) {
	rec := metrics.NewRecorder(metrics.Options{})
	s := gpuScheduler(t, rec.Attach())
	require.NoError(t, s.AddPod(gpuPod("a", "share600"), 0))
	require.NoError(t, s.RunUntil(time.Minute))
	require.NoError(t, s.CordonNode("n1"))
	require.NoError(t, s.RunUntil(2*time.Minute))
	require.NoError(t, s.RemoveNode("n1"))
	require.NoError(t, s.RunUntil(3*time.Minute))
	rep := rec.ReportUntil(3 * time.Minute)
	assert.Equal(t, []float64{2, 0}, values(seriesNamed(t, rep, "class=gpu devices")))
	assert.Equal(t, []float64{1, 0}, values(seriesNamed(t, rep, "class=gpu allocated devices")))
	assert.Equal(t, []float64{0.6, 0}, values(seriesNamed(t, rep, "class=gpu allocated device capacity")))
	// 0.4 of 1.4 free at first; cordoned, nothing free counts
	assert.Equal(t, []float64{28.5714, 0}, values(seriesNamed(t, rep, "class=gpu device fragmentation")))
}

// Attach wires a Recorder into a Scheduler: it observes the stream and
// reads the nodes' devices, so that the report has device sections.
func ExampleRecorder_Attach() {
	rec := metrics.NewRecorder(metrics.Options{})
	claims := controllers.NewResourceClaims() // makes each pod's claim from its template
	s, _ := gangsim.New(gangsim.Config{}, rec.Attach(), claims.Attach())
	_ = claims.Start(s)
	_ = s.AddDeviceClass(cluster.DeviceClass{Name: "gpu", Selectors: []cluster.DeviceSelector{{CEL: `device.driver == "gpu.nvidia.com"`}}})
	_ = s.AddNode(gangsimtest.MakeNode("n1").CPU("16").Memory("64Gi").Obj())
	_ = s.AddResourceSlice(cluster.ResourceSlice{Name: "n1-gpus", Driver: "gpu.nvidia.com", Pool: cluster.ResourcePool{Name: "n1", SliceCount: 1},
		NodeName: "n1", Devices: []cluster.Device{{Name: "gpu-0"}, {Name: "gpu-1"}}})
	_ = claims.AddTemplate(cluster.ResourceClaimTemplate{Name: "one", Spec: cluster.ResourceClaimSpec{
		Requests: []cluster.DeviceRequest{{Name: "gpu", Exactly: &cluster.ExactDeviceRequest{DeviceClassName: "gpu"}}}}})
	train := gpuPod("train", "one")
	_ = claims.Prepare(&train)
	_ = s.AddPod(train, time.Hour)
	_ = s.Run()
	for _, d := range rec.ReportUntil(2 * time.Hour).Devices {
		fmt.Printf("%s=%q: %.0f devices, %.1f allocated on average, %.0f at the peak\n", d.By, d.Name, d.Devices, d.Allocated, d.AllocatedPeak)
	}
	// Output:
	// class="gpu": 2 devices, 0.5 allocated on average, 1 at the peak
}

// GPUs served through DRA are GPUs in the resource table, before pods:
// capacity from the devices, allocated from the claims. By hand: one of
// two GPUs held for the first of two hours: 0.5 on average, 1 GPU-hour,
// 25%. A class of other devices has no row. Devices are grouped by
// their model, or NVIDIA's productName; one with neither is in its
// classes only, never under an empty model.
func TestDRAGPUsInTheResourceTable(t *testing.T) {
	rec := metrics.NewRecorder(metrics.Options{})
	claims := controllers.NewResourceClaims() // makes the pod's claim from its template
	s, err := gangsim.New(gangsim.Config{}, rec.Attach(), claims.Attach())
	require.NoError(t, err)
	require.NoError(t, claims.Start(s))
	require.NoError(t, s.AddDeviceClass(cluster.DeviceClass{Name: "gpu.nvidia.com", Selectors: []cluster.DeviceSelector{{CEL: `device.driver == "gpu.nvidia.com"`}}}))
	require.NoError(t, s.AddDeviceClass(cluster.DeviceClass{Name: "fpga.example.com", Selectors: []cluster.DeviceSelector{{CEL: `device.driver == "fpga.example.com"`}}}))
	require.NoError(t, s.AddNode(gangsimtest.MakeNode("n1").CPU("16").Memory("64Gi").Obj()))
	product := "NVIDIA H100 80GB HBM3"
	require.NoError(t, s.AddResourceSlice(cluster.ResourceSlice{Name: "n1-gpus", Driver: "gpu.nvidia.com", Pool: cluster.ResourcePool{Name: "n1", SliceCount: 1},
		NodeName: "n1", Devices: []cluster.Device{
			{Name: "gpu-0", Attributes: map[cluster.QualifiedName]cluster.DeviceAttribute{"productName": {StringValue: &product}}},
			{Name: "gpu-1", Attributes: map[cluster.QualifiedName]cluster.DeviceAttribute{"productName": {StringValue: &product}}}}}))
	require.NoError(t, s.AddResourceSlice(cluster.ResourceSlice{Name: "n1-fpgas", Driver: "fpga.example.com", Pool: cluster.ResourcePool{Name: "n1-f", SliceCount: 1},
		NodeName: "n1", Devices: []cluster.Device{{Name: "fpga-0"}}}))
	require.NoError(t, claims.AddTemplate(cluster.ResourceClaimTemplate{Name: "one", Spec: cluster.ResourceClaimSpec{
		Requests: []cluster.DeviceRequest{{Name: "gpu", Exactly: &cluster.ExactDeviceRequest{DeviceClassName: "gpu.nvidia.com"}}}}}))
	train := gpuPod("train", "one")
	require.NoError(t, claims.Prepare(&train))
	require.NoError(t, s.AddPod(train, time.Hour))
	require.NoError(t, s.Run())
	rep := rec.ReportUntil(2 * time.Hour)
	var names []string
	for _, r := range rep.Resources {
		names = append(names, string(r.Resource)+" ("+r.Unit+")")
	}
	assert.Equal(t, []string{"cpu (cores)", "memory (GiB)", "class=gpu.nvidia.com (GPUs)", "pods (pods)"}, names)
	gpu := rep.Resources[2]
	assert.Equal(t, 2.0, gpu.Capacity)
	assert.Equal(t, 0.5, gpu.Allocated)
	assert.Equal(t, 1.0, gpu.AllocatedPeak)
	assert.Equal(t, 1.0, gpu.AllocatedHours)
	assert.Equal(t, 0.25, gpu.Utilization)
	var groups []string
	for _, d := range rep.Devices {
		groups = append(groups, d.By+"="+d.Name)
	}
	assert.Equal(t, []string{"class=fpga.example.com", "class=gpu.nvidia.com", "model=NVIDIA H100 80GB HBM3"}, groups)
	var table strings.Builder
	require.NoError(t, rep.WriteTable(&table))
	assert.Contains(t, table.String(), "class= rows are GPUs served through DRA")
}
