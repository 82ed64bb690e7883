package deviceselector

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
)

const driver = "gpu.example.com"

type selectorCase struct {
	expr       string
	want       bool
	compileErr string // a part of the CompileError's Detail
	runtimeErr string // a part of the RuntimeError's message
}

// selectorCases run against gpuDevice("gpu-0", "A100", "80Gi") of driver
// gpu.example.com: model "A100", driverVersion 1.2.3, index 0, healthy,
// topology.example.com/numa 1; capacity memory 80Gi, cores 108.
var selectorCases = []selectorCase{
	{expr: `true`, want: true},
	{expr: `false`, want: false},
	{expr: `?!`, compileErr: "Syntax error"},
	{expr: `1`, compileErr: "must evaluate to bool or the unknown type, not int"},
	{expr: `"gpu"`, compileErr: "must evaluate to bool or the unknown type, not string"},
	{expr: `quantity("1")`, compileErr: "must evaluate to bool or the unknown type, not kubernetes.Quantity"},
	{expr: `nosuch == 1`, compileErr: "undeclared reference to 'nosuch'"},
	{expr: `device.nosuch == 1`, compileErr: "undefined field 'nosuch'"},
	{expr: `device.driver == 1`, compileErr: "found no matching overload for '_==_'"},
	{expr: `quantity("1").sign() == 1`, compileErr: "found no matching overload for 'sign'"},

	// The device variable.
	{expr: `device.driver == "gpu.example.com"`, want: true},
	{expr: `device.driver == ""`, want: false},
	{expr: `device.allowMultipleAllocations`, want: false},
	{expr: `device.attributes["gpu.example.com"].model == "A100"`, want: true},
	{expr: `device.attributes["gpu.example.com"]["model"] == "A100"`, want: true},
	{expr: `device.attributes["gpu.example.com"].index == 0`, want: true},
	{expr: `device.attributes["gpu.example.com"].healthy`, want: true},
	{expr: `device.attributes["topology.example.com"].numa == 1`, want: true},
	{expr: `device.attributes["topology.example.com"].model == "A100"`, runtimeErr: "no such key: model"},
	{expr: `device.attributes["gpu.example.com"].numa == 1`, runtimeErr: "no such key: numa"},
	{expr: `device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0"))`,
		runtimeErr: "no such key: noSuchAttr. Consider using CEL optional chaining (?), has() macro, or orValue() for optional fields"},
	{expr: `device.attributes["no-such-domain"].size() == 0`, want: true},
	{expr: `"no-such-domain" in device.attributes`, want: false},
	{expr: `"gpu.example.com" in device.attributes`, want: true},
	{expr: `"topology.example.com" in device.attributes`, want: true},
	{expr: `"model" in device.attributes["gpu.example.com"]`, want: true},
	{expr: `"numa" in device.attributes["gpu.example.com"]`, want: false},
	{expr: `device.attributes.size() == 2 && device.attributes["gpu.example.com"].size() == 4`, want: true},
	{expr: `has(device.attributes["gpu.example.com"].model)`, want: true},
	{expr: `has(device.attributes["gpu.example.com"].missing)`, want: false},
	{expr: `device.attributes["gpu.example.com"].?missing.orValue("none") == "none"`, want: true},
	{expr: `device.attributes["gpu.example.com"].?model.orValue("none") == "A100"`, want: true},
	{expr: `device.attributes["gpu.example.com"].model`, runtimeErr: "CEL result of type string could not be converted to bool"},
	{expr: `device.attributes["gpu.example.com"].model > 1`, runtimeErr: "no such overload"},
	// Iteration goes in name order, whatever the map's order.
	{expr: `device.attributes.map(d, d) == ["gpu.example.com", "topology.example.com"]`, want: true},
	{expr: `device.attributes["gpu.example.com"].map(k, k) == ["driverVersion", "healthy", "index", "model"]`, want: true},
	{expr: `device.attributes.all(d, d.endsWith(".example.com"))`, want: true},
	{expr: `device.attributes["gpu.example.com"].exists(k, k == "model")`, want: true},
	{expr: `device.capacity["gpu.example.com"].all(k, v, v.isGreaterThan(quantity("0")))`, want: true},

	// Capacity.
	{expr: `device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0`, want: true},
	{expr: `device.capacity["gpu.example.com"].memory.isLessThan(quantity("40Gi"))`, want: false},
	{expr: `device.capacity["gpu.example.com"].memory == quantity("80Gi")`, want: true},
	{expr: `device.capacity["gpu.example.com"].memory == quantity("85899345920")`, want: true},
	{expr: `device.capacity["gpu.example.com"].cores == quantity("108")`, want: true},
	{expr: `device.capacity["gpu.example.com"].cores.asInteger() == 108`, want: true},
	{expr: `device.capacity["gpu.example.com"].memory.sub(quantity("80Gi")).isInteger()`, want: true},
	{expr: `device.capacity["gpu.example.com"].nope.isGreaterThan(quantity("0"))`, runtimeErr: "no such key: nope"},
	{expr: `device.capacity["other.example.com"].size() == 0`, want: true},

	// The quantity library (Kubernetes' own test cases among them).
	{expr: `quantity("200M") == quantity("0.2G")`, want: true},
	{expr: `quantity("200M") == quantity("0.3G")`, want: false},
	{expr: `quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M")`, want: true},
	{expr: `quantity("50M").isLessThan(quantity("50Mi"))`, want: true},
	{expr: `quantity("50Mi").isGreaterThan(quantity("50M"))`, want: true},
	{expr: `quantity("50M").compareTo(quantity("50Mi")) == -1`, want: true},
	{expr: `quantity("200M").compareTo(quantity("0.2G")) == 0`, want: true},
	{expr: `quantity("50k").add(quantity("20")) == quantity("50.02k")`, want: true},
	{expr: `quantity("50k").add(20).isLessThan(quantity("50020"))`, want: false},
	{expr: `quantity("50k").sub(quantity("20")) == quantity("49.98k")`, want: true},
	{expr: `quantity("50k").sub(20) == quantity("49980")`, want: true},
	{expr: `quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger() == 20`, want: true},
	{expr: `quantity("50k").asInteger() == 50000`, want: true},
	{expr: `quantity("9999999999999999999999999999999999999G").asInteger() == 0`, runtimeErr: "cannot convert value to integer"},
	{expr: `quantity("9999999999999999999999999999999999999G").isInteger()`, want: false},
	{expr: `quantity("1.5").isInteger()`, want: false},
	{expr: `quantity("50.703k").asApproximateFloat() == 50703.0`, want: true},
	{expr: `isQuantity("20Mi") && isQuantity("1.3G") && isQuantity("10000k")`, want: true},
	{expr: `isQuantity("20Mo") || isQuantity("10Mm") || isQuantity("1,3G") || isQuantity("Three") || isQuantity("200K")`, want: false},
	{expr: `quantity("10Mo") == quantity("0")`, runtimeErr: "quantities must match the regular expression"},
	{expr: `quantity("10Mm") == quantity("0")`, runtimeErr: "unable to parse quantity's suffix"},
	{expr: `sign(quantity("-5")) == -1 && sign(quantity("0")) == 0 && sign(quantity("1n")) == 1`, want: true},
	{expr: `quantity("1n").isGreaterThan(quantity("0"))`, want: true},
	{expr: `quantity("0.1n") == quantity("1n")`, want: true},  // rounded up to a billionth
	{expr: `quantity("16Ei") == quantity("8Ei")`, want: true}, // capped at 2^63-1
	{expr: `quantity("1e3") == quantity("1k") && quantity("1E-3") == quantity("1m")`, want: true},
	{expr: `quantity("1.5Gi") == quantity("1536Mi")`, want: true},
	{expr: `quantity("-1.5") == quantity("-1500m")`, want: true},
	{expr: `quantity(".5") == quantity("500m") && quantity("5.") == quantity("5")`, want: true},
	{expr: `isQuantity("isQuantity")`, want: false},
	{expr: `isQuantity([1, 2, 3])`, compileErr: "found no matching overload for 'isQuantity'"},

	// The semver library.
	{expr: `device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.2.0"))`, want: true},
	{expr: `device.attributes["gpu.example.com"].driverVersion.isLessThan(semver("1.10.0"))`, want: true},
	{expr: `device.attributes["gpu.example.com"].driverVersion == semver("1.2.3+build.7")`, want: true},
	{expr: `device.attributes["gpu.example.com"].driverVersion.major() == 1 && device.attributes["gpu.example.com"].driverVersion.minor() == 2 && device.attributes["gpu.example.com"].driverVersion.patch() == 3`, want: true},
	{expr: `semver("1.2.3").compareTo(semver("2.0.0")) == -1 && semver("1.2.3").compareTo(semver("0.1.2")) == 1`, want: true},
	{expr: `semver("1.0.0-alpha").isLessThan(semver("1.0.0-alpha.1")) && semver("1.0.0-alpha.1").isLessThan(semver("1.0.0-alpha.beta")) && semver("1.0.0-beta.2").isLessThan(semver("1.0.0-beta.11")) && semver("1.0.0-rc.1").isLessThan(semver("1.0.0"))`, want: true},
	{expr: `semver("v1.2", true) == semver("1.2.0") && semver("01.01.01", true) == semver("1.1.1")`, want: true},
	{expr: `isSemver("1.0.0") && !isSemver("hello") && !isSemver("v1.0") && isSemver("v1.0", true)`, want: true},
	{expr: `semver("01.0.0") == semver("1.0.0")`, runtimeErr: `Major number must not contain leading zeroes "01"`},
	{expr: `semver("1.0") == semver("1.0.0")`, runtimeErr: "No Major.Minor.Patch elements found"},
	{expr: `semver("1.0.0-") == semver("1.0.0")`, runtimeErr: "Prerelease is empty"},

	// The extensions Kubernetes enables.
	{expr: `cel.bind(gpu, device.attributes["gpu.example.com"], gpu.healthy && gpu.model == "A100")`, want: true},
	{expr: `device.attributes["gpu.example.com"].model.startsWith("A1") && device.attributes["gpu.example.com"].model.lowerAscii() == "a100"`, want: true},
	{expr: `"a,b,c".split(",").size() == 3 && "abc".indexOf("c") == 2 && " x ".trim() == "x"`, want: true},
	{expr: `sets.contains([1, 2, 3], [2]) && sets.intersects([1], [1, 2])`, want: true},
	{expr: `[3, 1, 2].sort() == [1, 2, 3] && [[1], [2]].flatten() == [1, 2]`, want: true},
	{expr: `{"a": 1}.all(k, v, k == "a" && v == 1)`, want: true},
	{expr: `device.attributes["gpu.example.com"].model.includes("A100")`, want: true},
	{expr: `[1, 2].includes(2)`, want: true},
	{expr: `1 < 1.5 && 2u > 1`, want: true}, // cross-type numeric comparisons
	{expr: `[1, "a"].size() == 2`, compileErr: "expected type 'int' but found 'string'"},
	{expr: `lists.range(1000).all(i, lists.range(1000).all(j, true))`, compileErr: "too complex, exceeds cost limit"},
	{expr: `lists.range(1000).all(i, lists.range(100).all(j, j >= 0))`, want: true},

	// Examples from the Kubernetes documentation.
	{expr: `device.driver == "gpu.example.com"`, want: true},
	{expr: `device.attributes["gpu.example.com"].model == "A100" && device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0`, want: true},
	{expr: `device.capacity["gpu.example.com"].memory.compareTo(quantity("8Gi")) >= 0`, want: true},
	{expr: `device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.0.0"))`, want: true},
	{expr: `device.attributes["gpu.example.com"].type == "gpu"`, runtimeErr: "no such key: type"},
}

func TestSelectors(t *testing.T) {
	dev := gpuDevice("gpu-0", "A100", "80Gi")
	for _, tc := range selectorCases {
		t.Run(tc.expr, func(t *testing.T) {
			sel, err := Compile(tc.expr)
			if tc.compileErr != "" {
				var ce *CompileError
				require.ErrorAs(t, err, &ce)
				require.Contains(t, ce.Detail, tc.compileErr)
				require.Equal(t, tc.expr, ce.Expression)
				return
			}
			require.NoError(t, err)
			got, err := sel.Matches(driver, dev)
			if tc.runtimeErr != "" {
				var re *RuntimeError
				require.ErrorAs(t, err, &re)
				require.Contains(t, re.Error(), tc.runtimeErr)
				require.False(t, got)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestCompileErrorWording(t *testing.T) {
	_, err := Compile(`1`)
	require.EqualError(t, err, `Invalid value: "1": must evaluate to bool or the unknown type, not int`)

	_, err = Compile(`device.driver == `)
	var ce *CompileError
	require.ErrorAs(t, err, &ce)
	require.True(t, strings.HasPrefix(ce.Detail, "compilation failed: ERROR: <input>:1:18: Syntax error:"), ce.Detail)
	require.Contains(t, ce.Detail, "\n | device.driver == \n | .................^")

	long := "true" + strings.Repeat(" ", MaxExpressionLength)
	_, err = Compile(long)
	require.ErrorAs(t, err, &ce)
	require.True(t, ce.TooLong)
	require.EqualError(t, err, "Too long: may not be more than 10240 bytes")
	_, err = Compile(long[:MaxExpressionLength])
	require.NoError(t, err)
}

func TestNonBoolIsCompileError(t *testing.T) {
	for _, expr := range []string{`1`, `"a"`, `1.5`, `[true]`, `{"a": true}`, `device`, `device.attributes`, `device.driver`, `semver("1.0.0")`, `null`} {
		_, err := Compile(expr)
		var ce *CompileError
		require.ErrorAs(t, err, &ce, expr)
		require.Contains(t, ce.Detail, "must evaluate to bool or the unknown type, not ", expr)
	}
	// An attribute's type is known at run time only: it may be a bool.
	_, err := Compile(`device.attributes["d"].flag`)
	require.NoError(t, err)
}

func TestDriverDomain(t *testing.T) {
	model, qualified := "A100", "H100"
	d := &cluster.Device{Name: "d", Attributes: map[cluster.QualifiedName]cluster.DeviceAttribute{
		"model": {StringValue: &model},
	}}
	sel := MustCompile(`device.attributes["gpu.example.com"].model == "A100"`)
	ok, err := sel.Matches("gpu.example.com", d)
	require.NoError(t, err)
	require.True(t, ok)
	// Another driver's device has the name in its own domain.
	_, err = sel.Matches("other.example.com", d)
	require.ErrorContains(t, err, "no such key: model")
	// A name written with its domain is found under it, whatever the driver.
	d.Attributes["gpu.example.com/model"] = cluster.DeviceAttribute{StringValue: &qualified}
	delete(d.Attributes, "model")
	ok, err = MustCompile(`device.attributes["gpu.example.com"].model == "H100"`).Matches("other.example.com", d)
	require.NoError(t, err)
	require.True(t, ok)
	// The id is everything after the first '/'.
	d.Attributes["a/b/c"] = cluster.DeviceAttribute{IntValue: ptr(int64(7))}
	ok, err = MustCompile(`device.attributes["a"]["b/c"] == 7 && !("c" in device.attributes["a/b"])`).Matches("x", d)
	require.NoError(t, err)
	require.True(t, ok)
}

func TestBadAttributes(t *testing.T) {
	d := gpuDevice("gpu-0", "A100", "80Gi")
	d.Attributes["zz/ver"] = cluster.DeviceAttribute{VersionValue: ptr("1.0")}
	d.Attributes["aa/none"] = cluster.DeviceAttribute{}
	_, err := MustCompile(`true`).Matches(driver, d)
	var re *RuntimeError
	require.ErrorAs(t, err, &re)
	require.EqualError(t, err, "attribute aa/none: unsupported attribute value")
	delete(d.Attributes, "aa/none")
	_, err = MustCompile(`true`).Matches(driver, d)
	require.EqualError(t, err, "attribute zz/ver: parse semantic version: No Major.Minor.Patch elements found")
}

func TestSharedDevice(t *testing.T) {
	d := gpuDevice("gpu-0", "A100", "80Gi")
	d.AllowMultipleAllocations = true
	ok, err := MustCompile(`device.allowMultipleAllocations`).Matches(driver, d)
	require.NoError(t, err)
	require.True(t, ok)
}

func TestRuntimeErrorUnwraps(t *testing.T) {
	_, err := MustCompile(`device.attributes["x"].y`).Matches(driver, gpuDevice("g", "A100", "1Gi"))
	var re *RuntimeError
	require.ErrorAs(t, err, &re)
	require.NotNil(t, errors.Unwrap(err))
	require.Equal(t, "no such key: y", re.Err.Error())
}

func TestCache(t *testing.T) {
	c := NewCache(2)
	require.Equal(t, 2, c.Size())
	require.Equal(t, DefaultCacheSize, NewCache(0).Size())
	a, err := c.Get(`true`)
	require.NoError(t, err)
	a2, _ := c.Get(`true`)
	require.Same(t, a, a2)
	_, err = c.Get(`1`)
	require.Error(t, err)
	require.Equal(t, 1, c.Len(), "failed compilations are not cached")
	b, _ := c.Get(`false`)
	_, _ = c.Get(`true`) // true is now the most recent
	_, _ = c.Get(`!false`)
	require.Equal(t, 2, c.Len())
	a3, _ := c.Get(`true`)
	require.Same(t, a, a3, "the most recently used stays")
	b2, _ := c.Get(`false`)
	require.NotSame(t, b, b2, "the least recently used went")
}

func TestMatchesDoesNotAllocateMuch(t *testing.T) {
	sel := MustCompile(gpuSelector)
	d := gpuDevice("gpu-0", "A100", "80Gi")
	allocs := testing.AllocsPerRun(100, func() {
		if ok, err := sel.Matches(driver, d); !ok || err != nil {
			t.Fatal(ok, err)
		}
	})
	require.LessOrEqual(t, allocs, 10.0)
}
