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

// nested is n calls of call on start.
func nested(start, call string, n int) string {
	return start + strings.Repeat(call, n)
}

// The worst-case cost follows the sizes the estimate gives what a call
// reads and builds, on both sides of CostLimit: a device's driver is at
// most 63 characters, so four nested replace() calls that grow it
// 17-fold each stay under the limit and a fifth goes over; a replacement
// longer than the shortest string it may replace ("a" + device.driver
// is 1 to 64 characters) can grow the string at every match, one no
// longer cannot; and a split with a limit makes at most that many parts,
// so a comprehension over it is priced by the limit (a negative limit is
// no limit).
func TestCostFollowsSizes(t *testing.T) {
	const grow = `.replace("", "aaaaaaaaaaaaaaaa")`
	const model = `device.attributes["gpu.example.com"].model`
	pairs := func(limit string) string {
		return `cel.bind(t, device.driver` + grow + `, t.split(""` + limit + `).all(x, t.split(""` + limit + `).all(y, x.size() == y.size())))`
	}
	tests := []struct {
		name, expr string
		tooCostly  bool
	}{
		{name: "driver grown four times", expr: nested(`device.driver`, grow, 4) + `.size() > 0`},
		{name: "driver grown five times", expr: nested(`device.driver`, grow, 5) + `.size() > 0`, tooCostly: true},
		{name: "replacement longer than the shortest match", expr: nested(model, `.replace("a" + device.driver, "bbbbbbbbbbbbbbbb")`, 6) + `.size() > 0`, tooCostly: true},
		{name: "replacement as short as the shortest match", expr: nested(model, `.replace("a" + device.driver, "b")`, 8) + `.size() > 0`},
		{name: "replacement shorter than any match", expr: nested(model, `.replace("ab" + device.driver, "c")`, 8) + `.size() > 0`},
		{name: "split with a limit", expr: pairs(", 10")},
		{name: "split without a limit", expr: pairs(""), tooCostly: true},
		{name: "split with a negative limit", expr: pairs(", -1"), tooCostly: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(tt.expr)
			if !tt.tooCostly {
				require.NoError(t, err, tt.expr)
				return
			}
			var ce *CompileError
			require.True(t, errors.As(err, &ce), "%s: %v", tt.expr, err)
			require.True(t, ce.TooCostly, "%s: %v", tt.expr, err)
		})
	}
}
