package kube

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// The controller's tolerations are added to a template's own, once each.
func TestDaemonTolerations(t *testing.T) {
	own := []schema.Toleration{{Key: "node.kubernetes.io/unschedulable", Operator: "Exists", Effect: "NoSchedule"}}
	got := withDaemonTolerations(own, false)
	var keys []string
	for _, tol := range got {
		keys = append(keys, strings.TrimPrefix(tol.Key, "node.kubernetes.io/")+":"+tol.Effect)
	}
	require.Equal(t, []string{"unschedulable:NoSchedule", "not-ready:NoExecute", "unreachable:NoExecute",
		"disk-pressure:NoSchedule", "memory-pressure:NoSchedule", "pid-pressure:NoSchedule"}, keys, "one of the six is there already")
	require.Equal(t, "node.kubernetes.io/network-unavailable", withDaemonTolerations(nil, true)[6].Key)
	require.Len(t, daemonTolerations, 6, "the controller's list is not changed")
}
