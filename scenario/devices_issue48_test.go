package scenario

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A version attribute that is not a semantic version is refused, naming
// the file, the slice and the attribute's field. Issue 48.
func TestDeviceVersionAttributeNotSemver(t *testing.T) {
	_, err := Parse("in.yaml", []byte(deviceObject("ResourceSlice", "s", strings.Replace(goodSlice, "{string: x}", "{version: latest}", 1))))
	require.ErrorIs(t, err, ErrScenario)
	require.ErrorContains(t, err, `in.yaml: line 4: ResourceSlice s: spec.devices[0].attributes[model].version: "latest" is not a semantic version`)

	_, err = Parse("s.yaml", []byte("resourceSlices: [{name: s, driver: d, nodeName: n, pool: {name: p, resourceSliceCount: 1}, devices: [{name: d0, attributes: {v: {version: '1.2'}}}]}]\n"))
	require.ErrorContains(t, err, `s.yaml: line 1: resourceSlices[0] (s).devices[0].attributes[v].version: "1.2" is not a semantic version`)
}

// A DeviceClass selector whose worst-case cost is over the limit (eight
// nested replace calls would build gigabytes) is refused when loaded,
// naming the file, the class and the field, as the API server refuses
// it. Issue 48.
func TestDeviceSelectorTooCostly(t *testing.T) {
	expr := `device.driver`
	for range 8 {
		expr += `.replace("", "aaaaaaaaaaaaaaaa")`
	}
	_, err := Parse("in.yaml", []byte(deviceObject("DeviceClass", "c", "{selectors: [{cel: {expression: '"+expr+` == ""'}}]}`)))
	require.ErrorIs(t, err, ErrScenario)
	require.ErrorContains(t, err, "in.yaml: line 4: DeviceClass c: spec.selectors[0].cel.expression: Forbidden: too complex, exceeds cost limit")
}
