package scenario

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// fairQueues is a cohort of three ClusterQueues a (weight 2, reclaiming
// from the cohort), b and c of 2 cpu each, their LocalQueues la, lb, lc,
// and, when fair, a Configuration turning fair sharing on.
func fairQueues(fair bool) string {
	var s string
	if fair {
		s = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing: {}\n---\n"
	}
	s += "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}\n"
	for _, q := range []struct{ name, extra string }{
		{"a", "  fairSharing: {weight: \"2\"}\n  preemption: {reclaimWithinCohort: Any}\n"}, {"b", ""}, {"c", ""}} {
		s += "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: " + q.name + "}\nspec:\n  cohortName: all\n  namespaceSelector: {}\n" + q.extra +
			"  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: default\n      resources: [{name: cpu, nominalQuota: \"2\"}]\n" +
			"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: l" + q.name + ", namespace: default}\nspec: {clusterQueue: " + q.name + "}\n"
	}
	return s
}

// b's five pods take 5 of the cohort's 6 cpu at once; a's a1 (10s) takes
// the last one and a2 (20s) reclaims a's nominal quota from b. a3 (30s)
// would make a borrow: with fair sharing, a's share with it (1 borrowed
// of 6 lendable, halved by its weight 2) is no more than b's without one
// of its pods (1 of 6): it preempts a second pod of b
// (InCohortFairSharing); without, a borrowing queue preempts nothing and
// a3 waits.
func TestKueueFairSharingPreemptsByShare(t *testing.T) {
	run := func(fair bool) (map[string]int, string) {
		dir := t.TempDir()
		pods := "pods:\n"
		for _, p := range []struct{ name, at, q string }{{"b1", "0s", "lb"}, {"b2", "0s", "lb"}, {"b3", "0s", "lb"}, {"b4", "0s", "lb"}, {"b5", "0s", "lb"},
			{"a1", "10s", "la"}, {"a2", "20s", "la"}, {"a3", "30s", "la"}} {
			pods += "- {name: " + p.name + ", at: " + p.at + ", duration: 1h, requests: {cpu: \"1\"}, labels: {kueue.x-k8s.io/queue-name: " + p.q + "}}\n"
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, "objects.yaml"), []byte(fairQueues(fair)+kubeNodes(4, 4)), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "pods.yaml"), []byte(pods), 0o644))
		sc, err := LoadFiles([]string{filepath.Join(dir, "objects.yaml"), filepath.Join(dir, "pods.yaml")})
		require.NoError(t, err)
		res, err := sc.Run()
		require.NoError(t, err)
		reasons := map[string]int{}
		a3 := kueueWorkload(t, res, "Pod a3")
		for _, e := range res.KueueEvents {
			if e.Kind == "Evicted" {
				reasons[e.Preemption]++
			}
		}
		return reasons, a3.WaitForQuota
	}
	reasons, wait := run(true)
	require.Equal(t, map[string]int{"InCohortReclamation": 1, "InCohortFairSharing": 1}, reasons)
	require.Equal(t, "2ms", wait, "a3 is admitted once its victim is gone")
	reasons, wait = run(false)
	require.Equal(t, map[string]int{"InCohortReclamation": 1}, reasons)
	require.Equal(t, "59m31s", wait, "a3 waits for b's pods to end (1h)")
}
