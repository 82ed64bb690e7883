package deviceselector_test

import (
	"fmt"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/cluster/deviceselector"
)

func Example() {
	model := "A100"
	memory, _ := cluster.ParseDeviceQuantity("80Gi")
	gpu := &cluster.Device{
		Name:       "gpu-0",
		Attributes: map[cluster.QualifiedName]cluster.DeviceAttribute{"model": {StringValue: &model}},
		Capacity:   map[cluster.QualifiedName]cluster.DeviceCapacity{"memory": {Value: memory}},
	}

	cache := deviceselector.NewCache(0)
	sel, err := cache.Get(`device.attributes["gpu.example.com"].model == "A100" &&
		device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0`)
	if err != nil {
		panic(err)
	}
	fmt.Println(sel.Matches("gpu.example.com", gpu))

	_, err = sel.Matches("other.example.com", gpu)
	fmt.Println(err)

	_, err = deviceselector.Compile(`device.capacity["gpu.example.com"].memory`)
	fmt.Println(err)
	// Output:
	// true <nil>
	// no such key: model. Consider using CEL optional chaining (?), has() macro, or orValue() for optional fields
	// Invalid value: "device.capacity[\"gpu.example.com\"].memory": must evaluate to bool or the unknown type, not kubernetes.Quantity
}
