package dra

import (
	"errors"
	"strings"

	"github.com/gangsim/gangsim/cluster"
)

// eqSelector is a stand-in for CEL: "true"; "attr=value" (string
// attribute equality, in the driver's domain); "boom" is a runtime error.
type eqSelector struct{ calls int }

func (e *eqSelector) Match(expr, _ string, d *cluster.Device) (bool, error) {
	e.calls++
	if expr == "true" {
		return true, nil
	}
	if expr == "boom" {
		return false, errors.New("no such key: missing")
	}
	k, v, _ := strings.Cut(expr, "=")
	a, ok := d.Attributes[cluster.QualifiedName(k)]
	return ok && a.StringValue != nil && *a.StringValue == v, nil
}

const drv = "gpu.example.com"

func str(s string) cluster.DeviceAttribute { return cluster.DeviceAttribute{StringValue: &s} }

func q(v int64) cluster.Quantity   { return cluster.Quantity(v * 1000) }
func qp(v int64) *cluster.Quantity { x := q(v); return &x }

// gpu is a device with a model and a PCIe root.
func gpu(name, model, root string) cluster.Device {
	return cluster.Device{Name: name, Attributes: map[cluster.QualifiedName]cluster.DeviceAttribute{
		"model": str(model), "pcieRoot": str(root),
	}}
}

func nodeSlice(name, node string, devs ...cluster.Device) *cluster.ResourceSlice {
	return &cluster.ResourceSlice{Name: name, Driver: drv, Pool: cluster.ResourcePool{Name: node, Generation: 1, SliceCount: 1}, NodeName: node, Devices: devs}
}

var gpuClass = map[string]*cluster.DeviceClass{
	"gpu": {Name: "gpu", Selectors: []cluster.DeviceSelector{{CEL: "true"}}},
}

func exact(name string, count int64, sels ...string) cluster.DeviceRequest {
	r := &cluster.ExactDeviceRequest{DeviceClassName: "gpu", Count: count}
	for _, s := range sels {
		r.Selectors = append(r.Selectors, cluster.DeviceSelector{CEL: s})
	}
	return cluster.DeviceRequest{Name: name, Exactly: r}
}

func claim(name string, reqs ...cluster.DeviceRequest) *cluster.ResourceClaim {
	return &cluster.ResourceClaim{Namespace: "default", Name: name, Spec: cluster.ResourceClaimSpec{Requests: reqs}}
}

func node(name string) *cluster.Node {
	return &cluster.Node{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}}
}

func exclusive(ids ...string) *AllocatedState {
	st := &AllocatedState{}
	for _, id := range ids {
		parts := strings.Split(id, "/")
		st.Add(&cluster.DeviceRequestAllocation{Driver: drv, Pool: parts[0], Device: parts[1]}, false)
	}
	return st
}

// picked renders a result as "claim: req=pool/dev ...; ..." lines.
func picked(res []cluster.AllocationResult) string {
	var b strings.Builder
	for i, r := range res {
		if i > 0 {
			b.WriteString("; ")
		}
		for j, d := range r.Devices {
			if j > 0 {
				b.WriteString(" ")
			}
			b.WriteString(d.Request + "=" + d.Device)
		}
	}
	return b.String()
}
