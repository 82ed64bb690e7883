package deviceselector

import (
	"testing"

	"github.com/gangsim/gangsim/cluster"
)

// gpuSelector is a typical selector of a GPU class or claim.
const gpuSelector = `device.attributes["gpu.example.com"].model == "A100" && device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0`

func BenchmarkMatches(b *testing.B) {
	sel := MustCompile(gpuSelector)
	d := gpuDevice("gpu-0", "A100", "80Gi")
	b.ReportAllocs()
	for b.Loop() {
		ok, err := sel.Matches("gpu.example.com", d)
		if !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

func BenchmarkCompile(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(gpuSelector); err != nil {
			b.Fatal(err)
		}
	}
}

func gpuDevice(name, model, memory string) *cluster.Device {
	mem, err := cluster.ParseDeviceQuantity(memory)
	if err != nil {
		panic(err)
	}
	return &cluster.Device{
		Name: name,
		Attributes: map[cluster.QualifiedName]cluster.DeviceAttribute{
			"model":                     {StringValue: &model},
			"driverVersion":             {VersionValue: ptr("1.2.3")},
			"gpu.example.com/index":     {IntValue: ptr(int64(0))},
			"gpu.example.com/healthy":   {BoolValue: ptr(true)},
			"topology.example.com/numa": {IntValue: ptr(int64(1))},
		},
		Capacity: map[cluster.QualifiedName]cluster.DeviceCapacity{
			"memory":                {Value: mem},
			"gpu.example.com/cores": {Value: 108000},
		},
	}
}

func ptr[T any](v T) *T { return &v }
