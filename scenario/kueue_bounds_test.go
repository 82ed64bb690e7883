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

// A cpu quota below a millicore counts as Kueue counts it: Kueue turns
// every cpu quantity into millicores with resource.Quantity.MilliValue,
// which rounds up, so a nominalQuota of "0.0001" is 1m. A Job of one 1m
// pod is admitted (Kueue admits it); one of two such pods waits for ever
// (2m > 1m). Pod requests round up alike ("0.0001" is 1m).
func TestKueueSubMillicoreQuotaRoundsUpAsKueue(t *testing.T) {
	res := runKueue(t, kueueQueues("0.0001", "")+kubeNodes(1, 2)+kueueJob("one", 1, "1m", "5m", "")+kueueJob("two", 2, "0.0001", "5m", ""))
	one, two := kueueWorkload(t, res, "Job one"), kueueWorkload(t, res, "Job two")
	require.Equal(t, "Finished", one.Status)
	require.NotEqual(t, "Finished", two.Status)
	require.Contains(t, two.Message, "current podset request (2m) > maximum capacity (1m)")
}
