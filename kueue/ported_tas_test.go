package kueue

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gangsim/gangsim/cluster"
)

// Cases of Kueue's TestFindTopologyAssignments
// (pkg/cache/scheduler/tas_cache_test.go), ported by name: its
// defaultNodes (six nodes in two blocks) and its outcomes. The levels are
// block and rack ("two levels"), or block, rack and hostname.

const (
	tBlock = "cloud.com/topology-block"
	tRack  = "cloud.com/topology-rack"
	tHost  = "kubernetes.io/hostname"
)

// tnode is a node of block b, rack r and hostname h, with cpu cores and
// pods, and 1Gi of memory per core.
func tnode(b, r, h string, cpu, pods int64) TASNode {
	return TASNode{Name: b + "-" + r + "-" + h, Labels: map[string]string{tBlock: b, tRack: r, tHost: h, "pool": "tas"},
		Allocatable: cluster.ResourceList{cluster.ResourceCPU: cpu * 1000, cluster.ResourceMemory: cpu << 30, cluster.ResourcePods: pods}}
}

// kueueDefaultNodes is Kueue's defaultNodes: b1 holds 1 cpu in r1 and 3
// in r2 (x5, x1, x6), b2 holds 1 in r1 (x2) and 2 in r2 (x4).
func kueueDefaultNodes() []TASNode {
	return []TASNode{
		tnode("b1", "r1", "x3", 1, 10), tnode("b1", "r2", "x5", 1, 10), tnode("b1", "r2", "x1", 1, 10),
		tnode("b1", "r2", "x6", 1, 10), tnode("b2", "r1", "x2", 1, 10), tnode("b2", "r2", "x4", 2, 40),
	}
}

func dom(count int32, values ...string) TopologyDomain {
	return TopologyDomain{Values: values, Count: count}
}

func TestPortedFindTopologyAssignments(t *testing.T) {
	two := []string{tBlock, tRack}
	three := []string{tBlock, tRack, tHost}
	cases := []struct {
		name       string
		nodes      []TASNode
		levels     []string
		req        TopologyRequest
		cpu        int64 // millicores a pod
		count      int32
		wantLevels []string
		want       []TopologyDomain
		wantReason string
	}{
		// x4 holds 2 pods, the others 1: best fit takes the first domain of
		// 1, x3 (sorted by values).
		{name: "host required; single Pod fits in the host; BestFit", levels: three, req: TopologyRequest{Required: tHost}, cpu: 1000, count: 1,
			wantLevels: []string{tHost}, want: []TopologyDomain{dom(1, "x3")}},
		// racks hold b1/r1 1, b1/r2 3, b2/r1 1, b2/r2 2: the first of 1
		{name: "rack required; single Pod fits in a rack; BestFit", levels: two, req: TopologyRequest{Required: tRack}, cpu: 1000, count: 1,
			wantLevels: two, want: []TopologyDomain{dom(1, "b1", "r1")}},
		{name: "rack required; multiple Pods fit in a rack; BestFit", levels: two, req: TopologyRequest{Required: tRack}, cpu: 1000, count: 3,
			wantLevels: two, want: []TopologyDomain{dom(3, "b1", "r2")}},
		// 2 pods: b2/r2 (2) is a tighter fit than b1/r2 (3)
		{name: "rack required; multiple Pods fit in some racks; BestFit", levels: two, req: TopologyRequest{Required: tRack}, cpu: 1000, count: 2,
			wantLevels: two, want: []TopologyDomain{dom(2, "b2", "r2")}},
		{name: "rack required; too many pods to fit in any rack; BestFit", levels: two, req: TopologyRequest{Required: tRack}, cpu: 1000, count: 4,
			wantReason: `topology "default" allows to fit only 3 out of 4 pod(s)`},
		// blocks hold b1 4, b2 3: b2 is the tighter fit; in it r1 (1)
		{name: "block required; single Pod fits in a block and a single rack; BestFit", levels: two, req: TopologyRequest{Required: tBlock}, cpu: 1000, count: 1,
			wantLevels: two, want: []TopologyDomain{dom(1, "b2", "r1")}},
		// 4 pods: only b1; r2 takes 3, then r1 the last
		{name: "block required; single Pod fits in a block spread across two racks; BestFit", levels: two, req: TopologyRequest{Required: tBlock}, cpu: 1000, count: 4,
			wantLevels: two, want: []TopologyDomain{dom(1, "b1", "r1"), dom(3, "b1", "r2")}},
		{name: "block required; Pods fit in a block spread across two racks; BestFit", levels: two, req: TopologyRequest{Required: tBlock}, cpu: 1000, count: 4,
			wantLevels: two, want: []TopologyDomain{dom(1, "b1", "r1"), dom(3, "b1", "r2")}},
		// 4 cpu a pod fits no rack (at most 3 cpu): every leaf is excluded
		{name: "block required; single Pod which cannot be split; BestFit", levels: two, req: TopologyRequest{Required: tBlock}, cpu: 4000, count: 1,
			wantReason: `topology "default" doesn't allow to fit any of 1 pod(s). Total nodes: 4; excluded: resource "cpu": 4`},
		{name: "block required; too many Pods to fit requested; BestFit", levels: two, req: TopologyRequest{Required: tBlock}, cpu: 1000, count: 5,
			wantReason: `topology "default" allows to fit only 4 out of 5 pod(s)`},
		// no rack holds 4: climb to the blocks, b1 holds 4
		{name: "rack preferred; but only block can accommodate the workload; BestFit", levels: two, req: TopologyRequest{Preferred: tRack}, cpu: 1000, count: 4,
			wantLevels: two, want: []TopologyDomain{dom(1, "b1", "r1"), dom(3, "b1", "r2")}},
		// no block holds 6: b1 gives 4, then b2 the last 2 (from r2, best fit)
		{name: "rack preferred; but only multiple blocks can accommodate the workload; BestFit", levels: two, req: TopologyRequest{Preferred: tRack}, cpu: 1000, count: 6,
			wantLevels: two, want: []TopologyDomain{dom(1, "b1", "r1"), dom(3, "b1", "r2"), dom(2, "b2", "r2")}},
		{name: "block preferred; but only multiple blocks can accommodate the workload; BestFit", levels: two, req: TopologyRequest{Preferred: tBlock}, cpu: 1000, count: 6,
			wantLevels: two, want: []TopologyDomain{dom(1, "b1", "r1"), dom(3, "b1", "r2"), dom(2, "b2", "r2")}},
		{name: "block preferred; but the workload cannot be accommodate in entire topology; BestFit", levels: two, req: TopologyRequest{Preferred: tBlock}, cpu: 1000, count: 10,
			wantReason: `topology "default" allows to fit only 7 out of 10 pod(s)`},
		// blocks of 2, 1 and 4 cpu, 5 pods: b3 gives 4, then best fit for 1 is b2
		{name: "block preferred; Pods fit in 2 blocks; BestFit", levels: []string{tBlock}, req: TopologyRequest{Preferred: tBlock}, cpu: 1000, count: 5,
			nodes: []TASNode{
				{Name: "b1", Labels: map[string]string{tBlock: "b1"}, Allocatable: cluster.ResourceList{cluster.ResourceCPU: 2000, cluster.ResourcePods: 20}},
				{Name: "b2", Labels: map[string]string{tBlock: "b2"}, Allocatable: cluster.ResourceList{cluster.ResourceCPU: 1000, cluster.ResourcePods: 10}},
				{Name: "b3", Labels: map[string]string{tBlock: "b3"}, Allocatable: cluster.ResourceList{cluster.ResourceCPU: 4000, cluster.ResourcePods: 40}},
			},
			wantLevels: []string{tBlock}, want: []TopologyDomain{dom(1, "b2"), dom(4, "b3")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nodes := c.nodes
			if nodes == nil {
				nodes = kueueDefaultNodes()
			}
			s := newSnapshot(&ResourceFlavor{Name: "tas", TopologyName: "default"}, c.levels, nodes, nil)
			req := c.req
			ps := &PodSet{Name: "main", Count: c.count, Requests: cluster.ResourceList{cluster.ResourceCPU: c.cpu}, Topology: &req}
			ta, reason := s.find(ps, c.count, false, nil, false)
			assert.Equal(t, c.wantReason, reason)
			if c.wantReason == "" {
				assert.Equal(t, &TopologyAssignment{Levels: c.wantLevels, Domains: c.want}, ta)
			}
		})
	}
}
