package deviceselector

import (
	"errors"
	"testing"

	"github.com/gangsim/gangsim/cluster"
)

// FuzzCompileSelector: no input makes Compile panic or return anything
// but a *CompileError, and a compiled selector evaluates on a device made
// of the other inputs without panicking, to a bool or a *RuntimeError.
func FuzzCompileSelector(f *testing.F) {
	for _, tc := range selectorCases {
		f.Add(tc.expr, "gpu.example.com", "A100", "1.2.3", int64(85899345920000), true)
	}
	f.Add(`device.attributes["d"].v.isLessThan(semver("1.0.0-rc.1"))`, "d", "x", "1.0.0-rc.1+b", int64(-1), false)
	f.Fuzz(func(t *testing.T, expr, drv, str, version string, n int64, flag bool) {
		sel, err := Compile(expr)
		if err != nil {
			var ce *CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("Compile(%q) = %T %v, want a *CompileError", expr, err, err)
			}
			return
		}
		d := &cluster.Device{
			Name: "fuzz",
			Attributes: map[cluster.QualifiedName]cluster.DeviceAttribute{
				"model":                                 {StringValue: &str},
				"driverVersion":                         {VersionValue: &version},
				"index":                                 {IntValue: &n},
				cluster.QualifiedName(drv + "/healthy"): {BoolValue: &flag},
				cluster.QualifiedName(str):              {IntValue: &n},
			},
			Capacity: map[cluster.QualifiedName]cluster.DeviceCapacity{
				"memory":                               {Value: cluster.Quantity(n)},
				cluster.QualifiedName(drv + "/" + str): {Value: cluster.Quantity(-n)},
			},
			AllowMultipleAllocations: flag,
		}
		if _, err := sel.Matches(drv, d); err != nil {
			var re *RuntimeError
			if !errors.As(err, &re) {
				t.Fatalf("Matches(%q) = %T %v, want a *RuntimeError", expr, err, err)
			}
		}
	})
}
