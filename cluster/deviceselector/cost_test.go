package deviceselector

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
)

// nestedReplace is n replace() calls, each inserting 16 characters between
// every two of the string before it: the string grows 17-fold a call, so
// that eight calls would build gigabytes.
func nestedReplace(start string, n int) string {
	e := start
	for range n {
		e += `.replace("", "aaaaaaaaaaaaaaaa")`
	}
	return e
}

// The API server estimates a selector's worst-case cost, with sizes of
// strings bounded by the limits of device attributes, and refuses one over
// CostLimit as "too complex"; so does Compile, before anything is
// evaluated. Issue 48.
func TestCompileRefusesTooCostlySelectors(t *testing.T) {
	for _, expr := range []string{
		nestedReplace(`"a"`, 8) + ` == ""`,
		nestedReplace(`device.attributes["gpu.example.com"].model`, 8) + ` == ""`,
		nestedReplace(`device.driver`, 6) + `.size() > 0`,
	} {
		_, err := Compile(expr)
		require.Error(t, err, expr)
		var ce *CompileError
		require.True(t, errors.As(err, &ce))
		require.True(t, ce.TooCostly)
		require.Contains(t, err.Error(), "Forbidden: too complex, exceeds cost limit")

		// and through the check of an object, the field is named
		fe := CheckSelectors("deviceclass c", "spec", []cluster.DeviceSelector{{CEL: `true`}, {CEL: expr}})
		require.NotNil(t, fe)
		require.Equal(t, "spec.selectors[1].cel.expression", fe.Field)
		require.Contains(t, fe.Error(), "too complex, exceeds cost limit")
	}
	// cheap ones still compile, string functions on attributes included
	for _, expr := range []string{
		nestedReplace(`"a"`, 2) + ` == ""`,
		`device.attributes["gpu.example.com"].model.replace("A", "B").lowerAscii() == "b100"`,
		`device.attributes["gpu.example.com"].model.split("").size() < 10`,
		`device.attributes["gpu.example.com"].exists(k, k.startsWith("m"))`,
		`device.capacity["gpu.example.com"].memory.compareTo(quantity("80Gi")) >= 0`,
		`cel.bind(m, device.attributes["gpu.example.com"].model, m == "A100" || m.matches("^H"))`,
	} {
		s, err := Compile(expr)
		require.NoError(t, err, expr)
		_, err = s.Matches(driver, gpuDevice("gpu-0", "A100", "80Gi"))
		require.NoError(t, err, expr)
	}
}

// Evaluation is charged by the size of the strings a call works on, so
// the runtime limit stops a selector that builds big strings. Issue 48.
func TestRuntimeCostChargesStringSizes(t *testing.T) {
	env, err := environment()
	require.NoError(t, err)
	// compiled without the estimate, as a stored selector of an older
	// server would be
	ast, iss := env.Compile(`cel.bind(s, "` + strings.Repeat("a", 8000) + `", [1,2,3,4,5,6,7,8,9,10].all(i, [1,2,3,4,5,6,7,8,9,10].all(j, [1,2,3,4,5,6,7,8,9,10].all(k, s.replace("a", "b") != ""))))`)
	require.NoError(t, iss.Err())
	prog, err := env.Program(ast, programOptions...)
	require.NoError(t, err)
	_, _, err = prog.Eval(newDeviceVal(driver, gpuDevice("gpu-0", "A100", "80Gi")))
	require.ErrorContains(t, err, "actual cost limit exceeded")
}
