package cluster

import (
	"errors"
	"math"
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

// Device quantities from about 8 Pi up, which Kubernetes takes, are
// taken as the largest Quantity; other quantities keep their errors.
// Issue 48.
func TestDeviceQuantitiesSaturate(t *testing.T) {
	for _, text := range []string{"9Pi", "16Ei", "10P", "100E", "9223372036854775807", "99999999999999999999999", "1e40", "1.5e30", "1e500", "1e999", "8Pi"} {
		q, err := ParseDeviceQuantity(text)
		require.NoError(t, err, text)
		if text == "8Pi" {
			require.Equal(t, Quantity(8<<50*1000), q)
			continue
		}
		require.Equal(t, MaxQuantity, q, text)
	}
	for text, want := range map[string]Quantity{"0e40": 0, "1e-40": 1, "7Pi": 7 << 50 * 1000} {
		q, err := ParseDeviceQuantity(text)
		require.NoError(t, err, text)
		require.Equal(t, want, q, text)
	}
	for _, text := range []string{"-9Pi", "1Pb", "", "1e", "1e1000"} {
		_, err := ParseDeviceQuantity(text)
		require.ErrorIs(t, err, ErrQuantity, text)
	}
	// resource quantities keep refusing what does not fit
	_, err := ParseResourceQuantity("memory", "16Ei")
	require.ErrorIs(t, err, ErrQuantity)

	// saturating and checked sums
	require.Equal(t, MaxQuantity, MaxQuantity.SaturatingAdd(1))
	require.Equal(t, Quantity(math.MinInt64), Quantity(-5).SaturatingSub(MaxQuantity))
	require.Equal(t, MaxQuantity, Quantity(0).SaturatingSub(math.MinInt64), "minus the least int64 is past the largest")
	require.Equal(t, MaxQuantity, Quantity(5).SaturatingSub(math.MinInt64))
	require.Equal(t, Quantity(-1), Quantity(-1).SaturatingSub(0))
	_, ok := AddQuantities(MaxQuantity, 1)
	require.False(t, ok)
	s, ok := AddQuantities(MaxQuantity, -1)
	require.True(t, ok)
	require.Equal(t, MaxQuantity-1, s)
}
