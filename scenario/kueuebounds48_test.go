package scenario

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Kueue's pod-group total count is a whole number of 1 or more, parsed as
// Kueue parses it (an int); a count no load can have pods for is refused,
// naming the annotation. 4294967298 was cut to int32, a gang of 2 that
// bound (issue 48).
func TestKueueTotalCountBounds(t *testing.T) {
	group := "{kueue.x-k8s.io/pod-group-name: pair}"
	for _, count := range []string{"4294967298", "2147483648", "10000001", "99999999999999999999999"} {
		_, err := Parse("pods.yaml", []byte(kubePods(2, group, `{kueue.x-k8s.io/pod-group-total-count: "`+count+`"}`)))
		require.Error(t, err, count)
		require.ErrorContains(t, err, "pods.yaml")
		require.ErrorContains(t, err, "Pod default/p0: metadata.annotations[kueue.x-k8s.io/pod-group-total-count]", count)
	}
	_, err := Parse("pods.yaml", []byte(kubePods(2, group, `{kueue.x-k8s.io/pod-group-total-count: "4294967298"}`)))
	require.ErrorContains(t, err, "more than the 10,000,000 pods")
	_, err = Parse("pods.yaml", []byte(kubePods(2, group, `{kueue.x-k8s.io/pod-group-total-count: "2"}`)))
	require.NoError(t, err)
}
