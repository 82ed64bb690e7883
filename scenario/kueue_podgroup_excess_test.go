package scenario

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Pods of a Kueue pod group beyond its total count are the ones created
// last, whatever their order in the inputs: Kueue deletes the newest
// excess pods. Here p0 comes first in the file but was created last.
func TestKueuePodGroupExcessIsTheNewest(t *testing.T) {
	var b strings.Builder
	for i, created := range []string{"2026-01-01T00:00:02Z", "2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z"} {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p%d, creationTimestamp: %q, labels: %s, annotations: %s}\n"+
			"spec: {containers: [{name: c, resources: {requests: {cpu: \"1\"}}}]}\n", i, created, kueueGroup, `{kueue.x-k8s.io/pod-group-total-count: "2"}`)
	}
	sc, nodes := runKube(t, b.String()+kubeNodes(2, 2))
	var names []string
	for _, p := range sc.Pods {
		names = append(names, p.Pod.Name)
	}
	require.ElementsMatch(t, []string{"p1", "p2"}, names)
	require.NotContains(t, nodes, "p0")
	require.Equal(t, 2, bound(nodes))
}
