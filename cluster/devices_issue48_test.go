package cluster

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A version attribute must be a semantic version (semver.org 2.0.0), as
// the API server requires of a DeviceAttribute's version; the error names
// the slice and the attribute's field. Issue 48.
func TestDeviceVersionAttributeMustBeSemver(t *testing.T) {
	for _, v := range []string{"1.2.3", "0.0.0", "1.2.3-rc.1", "1.2.3+build.5", "10.20.30-alpha.beta-2+exp.sha.5114f85"} {
		s := gpuSlice()
		s.Devices[0].Attributes["driverVersion"] = DeviceAttribute{VersionValue: new(v)}
		require.NoError(t, s.Validate(), v)
	}
	for _, v := range []string{"1.2", "v1.2.3", "01.2.3", "1.2.3-", "1.2.3-01", "1.2.3+", "latest", "", "1.2.3 ", "1.2.3-" + strings.Repeat("a", 64)} {
		s := gpuSlice()
		s.Devices[0].Attributes["driverVersion"] = DeviceAttribute{VersionValue: new(v)}
		err := s.Validate()
		require.Error(t, err, v)
		require.True(t, errors.Is(err, ErrInvalidDevices))
		var fe *FieldError
		require.True(t, errors.As(err, &fe))
		require.Equal(t, "resourceslice n1-gpu", fe.Object)
		require.Equal(t, "spec.devices[0].attributes[driverVersion].version", fe.Field, v)
	}
	// a string attribute is at most 64 characters too
	s := gpuSlice()
	s.Devices[0].Attributes["model"] = DeviceAttribute{StringValue: new(strings.Repeat("a", 65))}
	var fe *FieldError
	require.True(t, errors.As(s.Validate(), &fe))
	require.Equal(t, "spec.devices[0].attributes[model].string", fe.Field)
}
