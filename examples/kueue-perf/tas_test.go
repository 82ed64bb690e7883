package main

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/scenario"
)

// TestTASFolder writes Kueue's tas configuration: its 640 nodes
// (block-0, 10 racks, 64 nodes each, 96 cpu) labelled as Kueue's
// generator labels them (with each node's own hostname), the Topology and
// the TAS flavor, and 45,000 pods: 10,500 small workloads of 2 pods,
// 3,000 medium of 4 and 1,500 large of 8, each a Kueue pod group with
// its constraint.
func TestTASFolder(t *testing.T) {
	sc, err := scenario.LoadFiles([]string{generate(t, "-config", "tas")})
	require.NoError(t, err)
	require.Len(t, sc.Nodes, 640)
	n := sc.Nodes[64+5] // rack 1, node 5
	require.Equal(t, "node-b0-r1-n5", n.Name)
	require.Equal(t, map[string]string{"cloud.provider.com/topology-block": "block-0", "cloud.provider.com/topology-rack": "rack-1",
		"kubernetes.io/hostname": "node-b0-r1-n5", "tas-node-group": "tas"}, n.Labels)
	require.Equal(t, int64(96_000), n.Allocatable.MilliCPU)
	require.Len(t, sc.Pods, 45_000)
	require.Len(t, sc.Kueue.Topologies, 1)
	require.Equal(t, "default-topology", sc.Kueue.ResourceFlavors[0].TopologyName)
	kinds := map[string]int{}
	for _, p := range sc.Pods {
		tr := p.Topology
		require.NotNil(t, tr, p.Pod.Name)
		switch {
		case tr.Required != "":
			kinds["required"]++
		case tr.Preferred != "":
			kinds["preferred"]++
		case tr.SliceRequired != "":
			kinds["balanced"]++
			require.Equal(t, int32(map[string]int{"small": 1, "medium": 2, "large": 4}[strings.Split(p.Pod.Labels[classLabel], "-")[0]]), tr.SliceSize)
		}
	}
	// per queue: small 120 + 120 + 110 of 2 pods, medium 34 + 33 + 33 of 4, large 17 + 17 + 16 of 8
	require.Equal(t, map[string]int{"required": 30 * (240 + 136 + 136), "preferred": 30 * (240 + 132 + 136), "balanced": 30 * (220 + 132 + 128)}, kinds)
	_, err = scenario.LoadFiles([]string{generate(t, "-config", "tas", "-as", "pods")})
	require.NoError(t, err)
}

// TestTinyTASRuns runs testdata/tiny-tas.yaml: every workload of the
// class req (3 pods, rack required) has its pods in one rack, and every
// workload is admitted and runs.
func TestTinyTASRuns(t *testing.T) {
	sc, err := scenario.LoadFiles([]string{generate(t, "-config", "testdata/tiny-tas.yaml")})
	require.NoError(t, err)
	res, err := sc.Run()
	require.NoError(t, err)
	rack := map[string]string{}
	for _, n := range sc.Nodes {
		rack[n.Name] = n.Labels["example.com/rack"]
	}
	racks := map[string]map[string]bool{} // workload -> racks of its pods
	for _, p := range res.Pods {
		require.Equal(t, "Succeeded", string(p.Phase), p.Name)
		wl := p.Name[:strings.LastIndexByte(p.Name, '-')]
		if racks[wl] == nil {
			racks[wl] = map[string]bool{}
		}
		racks[wl][rack[p.Node]] = true
	}
	checked := 0
	for wl, rs := range racks {
		if strings.HasPrefix(wl, "cq-0-0-co-0/req-") {
			require.Len(t, rs, 1, "%s in racks %v", wl, slices.Sorted(maps.Keys(rs)))
			checked++
		}
	}
	require.Equal(t, 4, checked)
	admitted := 0
	for _, w := range res.Workloads {
		if w.Kind == "Workload" {
			admitted++
			require.NotEmpty(t, w.PodSets[0].Topology, w.Name)
		}
	}
	require.Equal(t, 12, admitted)
}
