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

// scattered is Kueue's scatteredNodes: b1/r1 holds x3 (4 cpu), x5 and x1
// (1 each); b2/r1 holds x6 (2) and x2 (1).
func scattered() []TASNode {
	return []TASNode{tnode("b1", "r1", "x3", 4, 10), tnode("b1", "r1", "x5", 1, 10), tnode("b1", "r1", "x1", 1, 10),
		tnode("b2", "r1", "x6", 2, 10), tnode("b2", "r1", "x2", 1, 10)}
}

func dom(count int32, values ...string) TopologyDomain {
	return TopologyDomain{Values: values, Count: count}
}

func TestPortedFindTopologyAssignments(t *testing.T) {
	two := []string{tBlock, tRack}
	three := []string{tBlock, tRack, tHost}
	one := []string{tHost}
	host := func(name, zone string, cpu int64) TASNode {
		n := TASNode{Name: name, Labels: map[string]string{tHost: name}, Allocatable: cluster.ResourceList{cluster.ResourceCPU: cpu, cluster.ResourcePods: 10}}
		if zone != "" {
			n.Labels["zone"] = zone
		}
		return n
	}
	taint := func(n TASNode, key, value string) TASNode {
		n.Taints = []cluster.Taint{{Key: key, Value: value, Effect: cluster.TaintNoSchedule}}
		return n
	}
	inRack := func(h string, cpu int64) TASNode { return tnode("b1", "r1", h, cpu, 10) }
	label := func(n TASNode, key, value string) TASNode {
		n.Labels[key] = value
		return n
	}
	cases := []struct {
		name       string
		nodes      []TASNode
		levels     []string
		flavor     map[string]string // the flavor's nodeLabels
		req        TopologyRequest
		cpu        int64 // millicores a pod
		mem        int64 // bytes a pod
		gpu        int64
		implied    bool // no request: a TAS-only queue's
		selector   map[string]string
		tols       []cluster.Toleration
		count      int32
		used       map[string]cluster.ResourceList // TAS usage of admitted workloads, by leaf
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
		// the one node is in zone-a; the flavor takes zone-b: no node, no domain
		{name: "only nodes with matching labels are considered; no matching node; BestFit", nodes: []TASNode{host("x3", "zone-a", 1000)}, levels: one,
			flavor: map[string]string{"zone": "zone-b"}, req: TopologyRequest{Required: tHost}, cpu: 1000, count: 1,
			wantReason: "no topology domains at level: kubernetes.io/hostname"},
		{name: "only nodes with matching labels are considered; matching node is found; BestFit", nodes: []TASNode{host("x3", "zone-a", 1000)}, levels: one,
			flavor: map[string]string{"zone": "zone-a"}, req: TopologyRequest{Required: tHost}, cpu: 1000, count: 1,
			wantLevels: one, want: []TopologyDomain{dom(1, "x3")}},
		// a node without a value for every level is not in the tree
		{name: "only nodes with matching levels are considered; no host label on node; BestFit", levels: three,
			nodes: []TASNode{{Name: "b1-r1-x3", Labels: map[string]string{tBlock: "b1", tRack: "r1"}, Allocatable: cluster.ResourceList{cluster.ResourceCPU: 1000, cluster.ResourcePods: 10}}},
			req:   TopologyRequest{Required: tRack}, cpu: 1000, count: 1,
			wantReason: "no topology domains at level: cloud.com/topology-rack"},
		{name: "no assignment as node is unschedulable; BestFit", levels: one, flavor: map[string]string{"zone": "zone-a"},
			nodes: []TASNode{func() TASNode { n := host("x3", "zone-a", 1000); n.Unschedulable = true; return n }()},
			req:   TopologyRequest{Required: tHost}, cpu: 1000, count: 1,
			wantReason: "no topology domains at level: kubernetes.io/hostname"},
		{name: "skip node which has untolerated taint; BestFit", levels: one, flavor: map[string]string{"zone": "zone-a"},
			nodes: []TASNode{taint(host("x3", "zone-a", 1000), "example.com/gpu", "present")},
			req:   TopologyRequest{Required: tHost}, cpu: 1000, count: 1,
			wantReason: `topology "default" doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: taint "example.com/gpu=present:NoSchedule": 1`},
		{name: "allow to schedule on node with tolerated taint; BestFit", levels: one, flavor: map[string]string{"zone": "zone-a"},
			nodes: []TASNode{taint(host("x3", "zone-a", 1000), "example.com/gpu", "present")},
			tols:  []cluster.Toleration{{Key: "example.com/gpu", Operator: cluster.TolerationEqual, Value: "present"}},
			req:   TopologyRequest{Required: tHost}, cpu: 1000, count: 1,
			wantLevels: one, want: []TopologyDomain{dom(1, "x3")}},
		// x1 tainted; x2 and x3 in zone-b against the selector zone-a; x4
		// (zone-a) has 100m for a pod of 1 cpu
		{name: "detailed failure message with exclusion stats", levels: one,
			nodes:    []TASNode{taint(host("x1", "", 1000), "key", "value"), host("x2", "zone-b", 1000), host("x3", "zone-b", 2000), host("x4", "zone-a", 100)},
			selector: map[string]string{"zone": "zone-a"}, req: TopologyRequest{Required: tHost}, cpu: 1000, count: 1,
			wantReason: `topology "default" doesn't allow to fit any of 1 pod(s). Total nodes: 4; excluded: nodeSelector: 2, resource "cpu": 1, taint "key=value:NoSchedule": 1`},
		// cpu (500m of 1) and the gpu (0 of 1) both fit no pod: the first
		// by name is reported
		{name: "resource exclusion picks most restrictive resource", levels: one,
			nodes: []TASNode{{Name: "dual-shortage", Labels: map[string]string{tHost: "dual-shortage"},
				Allocatable: cluster.ResourceList{cluster.ResourceCPU: 500, cluster.ResourcePods: 10, "example.com/gpu": 0}}},
			req: TopologyRequest{Required: tHost}, cpu: 1000, gpu: 1, count: 1,
			wantReason: `topology "default" doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "cpu": 1`},
		// a running non-TAS pod of 300m takes the node's one pod slot
		{name: "no assignment as node does not have enough allocatable pods (.status.allocatable['pods']); BestFit", levels: one, flavor: map[string]string{"zone": "zone-a"},
			nodes: []TASNode{{Name: "b1-r1-x3", Labels: map[string]string{"zone": "zone-a", tHost: "x3"},
				Allocatable: cluster.ResourceList{cluster.ResourceCPU: 1000, cluster.ResourcePods: 1},
				NonTAS:      cluster.ResourceList{cluster.ResourceCPU: 300, cluster.ResourcePods: 1}}},
			req: TopologyRequest{Required: tHost}, cpu: 300, count: 1,
			wantReason: `topology "default" doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "pods": 1`},
		// racks hold r1 2 (x3), r2 2 (x5), r3 4 (x1, x6, x2, x4 of 1 cpu):
		// best fit for 4 is r3, one pod a host
		{name: "minimize the number of used racks before optimizing the number of nodes; BestFit", levels: three,
			nodes: []TASNode{tnode("b1", "r1", "x3", 2, 10), tnode("b1", "r2", "x5", 2, 20), tnode("b1", "r3", "x1", 1, 10),
				tnode("b1", "r3", "x6", 1, 10), tnode("b1", "r3", "x2", 1, 10), tnode("b1", "r3", "x4", 1, 10)},
			req: TopologyRequest{Required: tBlock}, cpu: 1000, count: 4,
			wantLevels: one, want: []TopologyDomain{dom(1, "x1"), dom(1, "x2"), dom(1, "x4"), dom(1, "x6")}},
		{name: "choose the node that can accommodate all Pods", levels: three,
			nodes: []TASNode{inRack("x3", 2), inRack("x5", 1), inRack("x1", 1)},
			req:   TopologyRequest{Required: tBlock}, cpu: 1000, count: 2,
			wantLevels: one, want: []TopologyDomain{dom(2, "x3")}},
		// unconstrained takes the hosts with the least room first (x1, x5,
		// x2 of 1 pod, then x6 of 2), the last pod on x3
		{name: "no annotation; implied default to unconstrained; 6 pods fit into hosts scattered across the whole datacenter even they could fit into single rack; BestFit",
			levels: three, nodes: scattered(), implied: true, cpu: 1000, count: 6,
			wantLevels: one, want: []TopologyDomain{dom(1, "x1"), dom(1, "x3"), dom(1, "x5"), dom(1, "x2"), dom(2, "x6")}},
		{name: "unconstrained; 6 pods fit into hosts scattered across the whole datacenter even they could fit into single rack; BestFit",
			levels: three, nodes: scattered(), req: TopologyRequest{Unconstrained: true}, cpu: 1000, count: 6,
			wantLevels: one, want: []TopologyDomain{dom(1, "x1"), dom(1, "x3"), dom(1, "x5"), dom(1, "x2"), dom(2, "x6")}},
		// the first of the hosts of 1 pod by values: x3
		{name: "unconstrained; a single pod fits into each host; BestFit", levels: three, req: TopologyRequest{Unconstrained: true}, cpu: 1000, count: 1,
			wantLevels: one, want: []TopologyDomain{dom(1, "x3")}},
		{name: "unconstrained; a single pod fits into each host; LeastFreeCapacity; TASProfileMixed", levels: three, req: TopologyRequest{Unconstrained: true}, cpu: 1000, count: 1,
			wantLevels: one, want: []TopologyDomain{dom(1, "x3")}},
		// three hosts of 3 cpu, one slice of 2 each: 3 slices for 6 pods
		{name: "block required for podset; host required for slices; BestFit", levels: three,
			nodes: []TASNode{inRack("x3", 3), inRack("x5", 3), inRack("x1", 3)},
			req:   TopologyRequest{Required: tBlock, SliceRequired: tHost, SliceSize: 2}, cpu: 1000, count: 6,
			wantLevels: one, want: []TopologyDomain{dom(2, "x1"), dom(2, "x3"), dom(2, "x5")}},
		// slices of 2: x3 holds 3, x1 2 (4 pods), x5 2 (5 pods), x6 1; 6
		// slices: x3 3, x1 2 (fewer pods than x5 first), then the best fit
		// for the last one, x6
		{name: "block required for podset; host required for slices; prioritize more free slice capacity first and then tight fit; BestFit", levels: three,
			nodes: []TASNode{inRack("x3", 6), inRack("x5", 5), inRack("x1", 4), inRack("x6", 2)},
			req:   TopologyRequest{Required: tBlock, SliceRequired: tHost, SliceSize: 2}, cpu: 1000, count: 12,
			wantLevels: one, want: []TopologyDomain{dom(4, "x1"), dom(6, "x3"), dom(2, "x6")}},
		// each host holds one slice of 2 (x3 has room for 3 pods, x5 and
		// x1 for 2): equal slices, so fewest pods first: x1, then x5
		{name: "block required for podset; host required for slices; select domains with tight fit; BestFit", levels: three,
			nodes: []TASNode{inRack("x3", 3), inRack("x5", 2), inRack("x1", 2)},
			req:   TopologyRequest{Required: tBlock, SliceRequired: tHost, SliceSize: 2}, cpu: 1000, count: 4,
			wantLevels: one, want: []TopologyDomain{dom(2, "x1"), dom(2, "x5")}},
		// binaryTreesNodes: two blocks of two racks of two hosts of 1 cpu.
		// Both blocks hold 4: the first, b1; each of its racks gives 2, a
		// pod a host
		{name: "block required; 4 pods fit into one host each; BestFit", levels: three,
			nodes: []TASNode{tnode("b1", "r1", "x3", 1, 10), tnode("b1", "r1", "x5", 1, 10), tnode("b1", "r2", "x1", 1, 10), tnode("b1", "r2", "x6", 1, 10),
				tnode("b2", "r1", "x2", 1, 10), tnode("b2", "r1", "x4", 1, 10), tnode("b2", "r2", "x7", 1, 10), tnode("b2", "r2", "x8", 1, 10)},
			req: TopologyRequest{Required: tBlock}, cpu: 1000, count: 4,
			wantLevels: one, want: []TopologyDomain{dom(1, "x3"), dom(1, "x5"), dom(1, "x1"), dom(1, "x6")}},
		// TASProfileMixed changes nothing for a required request
		{name: "host required; single Pod fits in the host; BestFit; TASProfileMixed", levels: three, req: TopologyRequest{Required: tHost}, cpu: 1000, count: 1,
			wantLevels: one, want: []TopologyDomain{dom(1, "x3")}},
		// (Kueue's case asks for the host as required despite its name)
		{name: "host preferred; single Pod fits in the host; BestFit; TASProfileMixed", levels: three, req: TopologyRequest{Required: tHost}, cpu: 1000, count: 1,
			wantLevels: one, want: []TopologyDomain{dom(1, "x3")}},
		// 1Ki of memory a pod: the pods allocatable limit (racks hold 10,
		// 30, 10 and 40 pods); best fit for 4 is the first rack of 10, b1/r1.
		// (Kueue's x4 has 4Gi, this one 2Gi: no matter at 1Ki a pod.)
		{name: "rack required; single Pod requiring memory; BestFit", levels: two, req: TopologyRequest{Required: tRack}, mem: 1024, count: 4,
			wantLevels: two, want: []TopologyDomain{dom(4, "b1", "r1")}},
		// The non-TAS pods' usage (the scheduler's bound pods) as the
		// nodes' NonTAS: a pending pod bound to x3 counts as a running one.
		{name: "include usage from pending scheduled non-TAS pods, blocked assignment; BestFit", levels: one,
			nodes: []TASNode{func() TASNode {
				n := host("x3", "", 1000)
				n.NonTAS = cluster.ResourceList{cluster.ResourceCPU: 600, cluster.ResourcePods: 1}
				return n
			}()},
			req: TopologyRequest{Required: tHost}, cpu: 600, count: 1,
			wantReason: `topology "default" doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "cpu": 1`},
		{name: "include usage from running non-TAS pods, blocked assignment; BestFit", levels: one,
			nodes: []TASNode{func() TASNode {
				n := host("x3", "", 1000)
				n.NonTAS = cluster.ResourceList{cluster.ResourceCPU: 600, cluster.ResourcePods: 1}
				return n
			}()},
			req: TopologyRequest{Required: tHost}, cpu: 600, count: 1,
			wantReason: `topology "default" doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "cpu": 1`},
		// the running pod takes all of cpu and the one pod slot: cpu and pods
		// both fit none, cpu first by name
		{name: "node allocatable capacity completely used by non-TAS pod; empty remainingCapacity", levels: one,
			nodes: []TASNode{{Name: "x3", Labels: map[string]string{tHost: "x3"},
				Allocatable: cluster.ResourceList{cluster.ResourceCPU: 1000, cluster.ResourcePods: 1},
				NonTAS:      cluster.ResourceList{cluster.ResourceCPU: 1000, cluster.ResourcePods: 1}}},
			req: TopologyRequest{Required: tHost}, cpu: 100, count: 1,
			wantReason: `topology "default" doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "cpu": 1`},
		// two running pods of no requests take 2 of x3's 10 pod slots
		{name: "include usage from non-TAS pods; pod usage", levels: one,
			nodes: []TASNode{{Name: "x3", Labels: map[string]string{tHost: "x3"},
				Allocatable: cluster.ResourceList{cluster.ResourcePods: 10},
				NonTAS:      cluster.ResourceList{cluster.ResourcePods: 2}}},
			req: TopologyRequest{Required: tHost}, cpu: 0, count: 9,
			wantReason: `topology "default" allows to fit only 8 out of 9 pod(s)`},
		// x3 has 400m left of 1 cpu: the pod of 600m goes to x5
		{name: "include usage from running non-TAS pods, found free capacity on another node; BestFit", levels: one,
			nodes: []TASNode{func() TASNode {
				n := host("x3", "", 1000)
				n.NonTAS = cluster.ResourceList{cluster.ResourceCPU: 600, cluster.ResourcePods: 1}
				return n
			}(), host("x5", "", 1000)},
			req: TopologyRequest{Required: tHost}, cpu: 600, count: 1,
			wantLevels: one, want: []TopologyDomain{dom(1, "x5")}},
		{name: "skip node which doesn't match node selector, missing label; BestFit", levels: one, flavor: map[string]string{"zone": "zone-a"},
			nodes:    []TASNode{host("x3", "zone-a", 1000)},
			selector: map[string]string{"custom-label-1": "custom-value-1"},
			req:      TopologyRequest{Required: tHost}, cpu: 300, count: 1,
			wantReason: `topology "default" doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: nodeSelector: 1`},
		{name: "skip node which doesn't match node selector, label exists, value doesn't match; BestFit", levels: one, flavor: map[string]string{"zone": "zone-a"},
			nodes:    []TASNode{label(host("x3", "zone-a", 1000), "custom-label-1", "value-1")},
			selector: map[string]string{"custom-label-1": "value-2"},
			req:      TopologyRequest{Required: tHost}, cpu: 300, count: 1,
			wantReason: `topology "default" doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: nodeSelector: 1`},
		{name: "allow to schedule on node which matches node; BestFit", levels: one, flavor: map[string]string{"zone": "zone-a"},
			nodes:    []TASNode{label(host("x3", "zone-a", 1000), "custom-label-1", "value-1"), label(host("x5", "zone-a", 1000), "custom-label-1", "value-2")},
			selector: map[string]string{"custom-label-1": "value-2"},
			req:      TopologyRequest{Required: tHost}, cpu: 1000, count: 1,
			wantLevels: one, want: []TopologyDomain{dom(1, "x5")}},
		// b1 holds 2 slices of 2 (r1: x3, x5; r2: x1, x6, x2 of 1 cpu: 1
		// slice of 3 pods), b2 1 (r1: x4, x7): b1, r1's slice then r2's,
		// best fit in r2 by hosts of 1 pod in order of values
		{name: "block required for podset; rack required for slices; BestFit", levels: three,
			nodes: []TASNode{tnode("b1", "r1", "x3", 1, 10), tnode("b1", "r1", "x5", 1, 10), tnode("b1", "r2", "x1", 1, 10), tnode("b1", "r2", "x6", 1, 10),
				tnode("b1", "r2", "x2", 1, 10), tnode("b2", "r1", "x4", 1, 10), tnode("b2", "r1", "x7", 1, 10)},
			req: TopologyRequest{Required: tBlock, SliceRequired: tRack, SliceSize: 2}, cpu: 1000, count: 4,
			wantLevels: one, want: []TopologyDomain{dom(1, "x3"), dom(1, "x5"), dom(1, "x1"), dom(1, "x2")}},
		// slices of 2 by rack: b1 holds r2's 1 (of 3 pods; r1 holds 1 pod),
		// b2 r2's 1 (x4): no block holds 2; at the top b1's slice from r2
		// (x1, x5 by fewest pods), then b2's from x4
		{name: "block preferred for podset; rack required for slices; BestFit", levels: three, req: TopologyRequest{Preferred: tBlock, SliceRequired: tRack, SliceSize: 2}, cpu: 1000, count: 4,
			wantLevels: one, want: []TopologyDomain{dom(1, "x1"), dom(1, "x5"), dom(2, "x4")}},
		// host slices of 2: x3 holds 2, x5 1, x1 1; 3 slices: x3's 2, then
		// the best fit for the last, x1 (fewer pods than x5)
		{name: "block required for podset; host required for slices; optimize last domain; BestFit", levels: three,
			nodes: []TASNode{inRack("x3", 4), inRack("x5", 3), inRack("x1", 2)},
			req:   TopologyRequest{Required: tBlock, SliceRequired: tHost, SliceSize: 2}, cpu: 1000, count: 6,
			wantLevels: one, want: []TopologyDomain{dom(2, "x1"), dom(4, "x3")}},
		// slices of 3: b1 holds 3 (one a host), b2 2 (x6): 4 slices fit no
		// block; both blocks are taken, and down to the hosts their
		// children are pooled: x6 (2 slices) first, then x1 and x3 by values
		{name: "block preferred for podset; host required for slices; 2 blocks with unbalanced subdomains; BestFit", levels: three,
			nodes: []TASNode{tnode("b1", "r1", "x3", 3, 10), tnode("b1", "r1", "x5", 3, 10), tnode("b1", "r1", "x1", 3, 10), tnode("b2", "r1", "x6", 6, 10)},
			req:   TopologyRequest{Preferred: tBlock, SliceRequired: tHost, SliceSize: 3}, cpu: 1000, count: 12,
			wantLevels: one, want: []TopologyDomain{dom(3, "x1"), dom(3, "x3"), dom(6, "x6")}},
		// racks of 2 cpu: no rack holds a slice of 3
		{name: "block required for podset; rack required for slices; podset fits in a block, but slices do not fit in racks", levels: three,
			nodes: []TASNode{tnode("b1", "r1", "x3", 2, 10), tnode("b1", "r2", "x5", 2, 10), tnode("b1", "r3", "x1", 2, 10)},
			req:   TopologyRequest{Required: tBlock, SliceRequired: tRack, SliceSize: 3}, cpu: 1000, count: 6,
			wantReason: `topology "default" doesn't allow to fit any of 2 slice(s)`},
		{name: "block required for podset; rack required for slices; only 1 out of 2 slices fit the topology", levels: three,
			nodes: []TASNode{tnode("b1", "r1", "x3", 3, 10), tnode("b1", "r2", "x5", 1, 10), tnode("b1", "r3", "x1", 1, 10), tnode("b1", "r4", "x6", 1, 10)},
			req:   TopologyRequest{Required: tBlock, SliceRequired: tRack, SliceSize: 3}, cpu: 1000, count: 6,
			wantReason: `topology "default" allows to fit only 1 out of 2 slice(s)`},
		// b1's racks of 2 hold no slice of 3; b2's of 3 one each
		{name: "block required for podset; rack required for slices; podset fits in both blocks, but slices fit in only one block", levels: three,
			nodes: []TASNode{tnode("b1", "r1", "x3", 2, 10), tnode("b1", "r2", "x5", 2, 10), tnode("b1", "r3", "x1", 2, 10),
				tnode("b2", "r4", "x6", 3, 10), tnode("b2", "r5", "x2", 3, 10)},
			req: TopologyRequest{Required: tBlock, SliceRequired: tRack, SliceSize: 3}, cpu: 1000, count: 6,
			wantLevels: one, want: []TopologyDomain{dom(3, "x6"), dom(3, "x2")}},
		{name: "slice required topology level cannot be above the main required topology level", levels: three,
			req: TopologyRequest{Required: tHost, SliceRequired: tBlock, SliceSize: 1}, cpu: 1000, count: 1,
			wantReason: "podset slice topology cloud.com/topology-block is above the podset topology kubernetes.io/hostname"},
		{name: "slice size is required when slice topology is requested", levels: three,
			req: TopologyRequest{Required: tBlock, SliceRequired: tHost}, cpu: 1000, count: 1,
			wantReason: "slice topology requested, but slice size not provided"},
		{name: "cannot request not existing slice topology", levels: three,
			req: TopologyRequest{Required: tBlock, SliceRequired: "not-existing-topology-level", SliceSize: 1}, cpu: 1000, count: 1,
			wantReason: "no requested topology level for slices: not-existing-topology-level"},
		// slices alone: unconstrained over hosts of one slice each
		{name: "no topology for podset; host required for slices; BestFit", levels: three,
			nodes: []TASNode{inRack("x3", 3), inRack("x5", 3), inRack("x1", 3)},
			req:   TopologyRequest{SliceRequired: tHost, SliceSize: 2}, cpu: 1000, count: 6,
			wantLevels: one, want: []TopologyDomain{dom(2, "x1"), dom(2, "x3"), dom(2, "x5")}},
		// scattered: host slices x3 2, x6 1 (x5, x1, x2 none); 3 slices
		{name: "no topology for podset; host required for slices; multiple blocks; BestFit", levels: three, nodes: scattered(),
			req: TopologyRequest{SliceRequired: tHost, SliceSize: 2}, cpu: 1000, count: 6,
			wantLevels: one, want: []TopologyDomain{dom(4, "x3"), dom(2, "x6")}},
		// rack slices of 2: b1/r2 1 (3 pods), b2/r2 1 (x4)
		{name: "no topology for podset; rack required for slices; multiple blocks; BestFit", levels: three,
			req: TopologyRequest{SliceRequired: tRack, SliceSize: 2}, cpu: 1000, count: 4,
			wantLevels: one, want: []TopologyDomain{dom(1, "x1"), dom(1, "x5"), dom(2, "x4")}},
		// racks are the leaves: the first rack of 1 pod, b1/r1
		{name: "non-hostname-leaf topology: nil aggregatedDomainUsages preserves per-flavor behavior", levels: two,
			req: TopologyRequest{Required: tRack}, cpu: 1000, count: 1,
			wantLevels: two, want: []TopologyDomain{dom(1, "b1", "r1")}},
		// four racks of one node of 1 cpu; admitted TAS workloads use all of
		// b1/r1 and b1/r2: b2/r1 is the first left
		{name: "non-hostname-leaf topology: prior c.usage must be applied even when aggregatedDomainUsages is non-nil empty", levels: two,
			nodes: []TASNode{tnode("b1", "r1", "n1", 1, 10), tnode("b1", "r2", "n2", 1, 10), tnode("b2", "r1", "n3", 1, 10), tnode("b2", "r2", "n4", 1, 10)},
			used: map[string]cluster.ResourceList{"b1,r1": {cluster.ResourceCPU: 1000, cluster.ResourcePods: 1},
				"b1,r2": {cluster.ResourceCPU: 1000, cluster.ResourcePods: 1}},
			req: TopologyRequest{Required: tRack}, cpu: 1000, count: 1,
			wantLevels: two, want: []TopologyDomain{dom(1, "b2", "r1")}},
		// identical hosts: the order of the nodes given does not matter, the
		// first by values wins
		{name: "stable tie break on identical nodes: TASBalancedPlacement disabled", levels: three,
			nodes: []TASNode{inRack("x2", 1), inRack("x1", 1)},
			req:   TopologyRequest{Required: tHost}, cpu: 1000, count: 1,
			wantLevels: one, want: []TopologyDomain{dom(1, "x1")}},
		{name: "stable tie break on identical nodes: reversed order, TASBalancedPlacement disabled", levels: three,
			nodes: []TASNode{inRack("x1", 1), inRack("x2", 1)},
			req:   TopologyRequest{Required: tHost}, cpu: 1000, count: 1,
			wantLevels: one, want: []TopologyDomain{dom(1, "x1")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nodes := c.nodes
			if nodes == nil {
				nodes = kueueDefaultNodes()
			}
			s := newSnapshot(&ResourceFlavor{Name: "tas", TopologyName: "default", NodeLabels: c.flavor}, c.levels, nodes, c.used)
			req := &c.req
			if c.implied {
				req = nil
			}
			ps := &PodSet{Name: "main", Count: c.count, Requests: cluster.ResourceList{cluster.ResourceCPU: c.cpu}, Topology: req,
				NodeSelector: c.selector, Tolerations: c.tols}
			if c.gpu > 0 {
				ps.Requests["example.com/gpu"] = c.gpu
			}
			if c.mem > 0 {
				ps.Requests = cluster.ResourceList{cluster.ResourceMemory: c.mem}
			}
			ta, reason := s.find(ps, c.count, c.implied, nil, false)
			assert.Equal(t, c.wantReason, reason)
			if c.wantReason == "" {
				assert.Equal(t, &TopologyAssignment{Levels: c.wantLevels, Domains: c.want}, ta)
			}
		})
	}
}

// Kueue's "multiple PodSets account assumed pod usage against allocatable
// pods; BestFit": one node x1 of 2 cpu but 1 pod; pod sets one and two of
// 1 pod each. One takes x1; two, counting one's pod, fits nowhere. Run
// through the Admitter (the pod sets of one flavor in order): the
// workload waits with two's reason.
func TestPortedMultiplePodSetsAssumedPods(t *testing.T) {
	x1 := TASNode{Name: "x1", Labels: map[string]string{tHost: "x1", "pool": "tas"}, Allocatable: cluster.ResourceList{cluster.ResourceCPU: 2000, cluster.ResourcePods: 1}}
	r := tasRun(t, []TASNode{x1}, tHost)
	w := tasWl("w", 0, 1, "1", TopologyRequest{Required: tHost})
	two := w.PodSets[0]
	w.PodSets[0].Name, two.Name = "one", "two"
	w.PodSets = append(w.PodSets, two)
	r.add(w)
	r.settle()
	assert.Equal(t, "cq: ", r.admitted())
	assert.Equal(t, `couldn't assign flavors to pod set two: topology "default" doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "pods": 1`, r.message("w"))
}

// Kueue's cases of TestFindTopologyAssignments with several pod sets of
// one workload, run through the Admitter: the pod sets of one TAS flavor
// are placed in order, each counting what those before it took. A case
// where a later pod set does not fit shows as the workload waiting with
// that pod set's reason (Kueue's scheduler does the same with the
// result).
func TestPortedFindTopologyAssignmentsPodSets(t *testing.T) {
	type ps struct {
		name     string
		req      TopologyRequest
		requests cluster.ResourceList
		selector map[string]string
		count    int32
		want     string // the assignment, as TopologyAssignment.String
	}
	// multipodNodeset: Kueue's defaultNodes shape with 10 cpu a host
	// (x4: 20), 1Gi each (x4: 4Gi)
	multipod := func() []TASNode {
		ns := kueueDefaultNodes()
		for i := range ns {
			ns[i].Allocatable[cluster.ResourceCPU] *= 10
			ns[i].Allocatable[cluster.ResourcePods] = 10
		}
		ns[5].Allocatable[cluster.ResourceMemory] = 4 << 30
		ns[5].Allocatable[cluster.ResourcePods] = 40
		return ns
	}
	cpu1 := cluster.ResourceList{cluster.ResourceCPU: 1000}
	block := func(b string, cpu int64) TASNode {
		return TASNode{Name: b, Labels: map[string]string{tBlock: b, "pool": "tas"},
			Allocatable: cluster.ResourceList{cluster.ResourceCPU: cpu * 1000, cluster.ResourcePods: 10}}
	}
	hostN := func(h string) TASNode {
		return TASNode{Name: h, Labels: map[string]string{tHost: h, "pool": "tas"},
			Allocatable: cluster.ResourceList{cluster.ResourceCPU: 4000, cluster.ResourceMemory: 4 << 30, cluster.ResourcePods: 10}}
	}
	cases := []struct {
		name        string
		nodes       []TASNode
		levels      []string
		podSets     []ps
		wantMessage string // the workload waits
	}{
		// blocks of 2 cpu: podset1 (3, block preferred) fits no block: b1's
		// 2, then b2 the best fit for 1; podset2 (3): b3's 2 (the most
		// left), then b2's last one
		{name: "find topology assignment for two podsets with overlapping domain", levels: []string{tBlock},
			nodes: []TASNode{block("b1", 2), block("b2", 2), block("b3", 2)},
			podSets: []ps{{name: "podset1", req: TopologyRequest{Preferred: tBlock}, requests: cpu1, count: 3, want: "cloud.com/topology-block=b1:2 cloud.com/topology-block=b2:1"},
				{name: "podset2", req: TopologyRequest{Preferred: tBlock}, requests: cpu1, count: 3, want: "cloud.com/topology-block=b2:1 cloud.com/topology-block=b3:2"}}},
		// racks hold 10, 30, 10 and 20 pods of 1 cpu: podset1 (2) takes
		// b1/r1; podset2 (1Ki of memory) then fits 8 there (pods), the
		// tightest of 8, 30, 10, 40
		{name: "multiple podsets: rack required for both, different resource requests; BestFit", levels: []string{tBlock, tRack}, nodes: multipod(),
			podSets: []ps{{name: "podset1", req: TopologyRequest{Required: tRack}, requests: cpu1, count: 2, want: "cloud.com/topology-block=b1,cloud.com/topology-rack=r1:2"},
				{name: "podset2", req: TopologyRequest{Required: tRack}, requests: cluster.ResourceList{cluster.ResourceMemory: 1024}, count: 1, want: "cloud.com/topology-block=b1,cloud.com/topology-rack=r1:1"}}},
		// podset1 (8, block required): b2 (30) over b1 (40), its rack r1
		// (x2, 10) over r2 (20); podset2 (2, unconstrained) takes the host
		// with the least room left: x2's 2
		{name: "multiple podsets: block required for one, unconstrained for another; TASProfileMixed", levels: []string{tBlock, tRack, tHost}, nodes: multipod(),
			podSets: []ps{{name: "podset1", req: TopologyRequest{Required: tBlock}, requests: cpu1, count: 8, want: "kubernetes.io/hostname=x2:8"},
				{name: "podset2", req: TopologyRequest{Unconstrained: true}, requests: cpu1, count: 2, want: "kubernetes.io/hostname=x2:2"}}},
		// ps2's selector matches no node: it fits nowhere, whatever ps1's
		// search left in the domains. (Both pod sets ask for TAS implicitly:
		// the queue's one flavor is a TAS flavor.)
		{name: "temporary state cleanup prevents leakage across PodSets", levels: []string{tHost},
			nodes: []TASNode{hostN("x1"), hostN("x2")},
			podSets: []ps{{name: "ps1", requests: cluster.ResourceList{cluster.ResourceCPU: 1000, cluster.ResourceMemory: 1000}, count: 1},
				{name: "ps2", requests: cluster.ResourceList{cluster.ResourceCPU: 1000, cluster.ResourceMemory: 1000}, count: 1, selector: map[string]string{"never": "match"}}},
			wantMessage: `couldn't assign flavors to pod set ps2: topology "default" doesn't allow to fit any of 1 pod(s). Total nodes: 2; excluded: nodeSelector: 2`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := objects([]ClusterQueue{newCQ("cq", "", group(quotas("tas", rq{name: cpu, nominal: "100"}, rq{name: cluster.ResourceMemory, nominal: "100Gi"})))})
			o.Topologies = []Topology{{Name: "default", Levels: c.levels}}
			o.ResourceFlavors[0].TopologyName = "default"
			o.ResourceFlavors[0].NodeLabels = map[string]string{"pool": "tas"}
			r := newRun(t, o)
			r.a.SetNodes(func() []TASNode { return c.nodes })
			w := wl("w", "lq-cq", 0, 0, 1, "1")
			w.PodSets = nil
			for _, p := range c.podSets {
				var req *TopologyRequest
				if p.req.explicit() {
					req = &p.req
				}
				w.PodSets = append(w.PodSets, PodSet{Name: p.name, Count: p.count, Requests: p.requests, Topology: req, NodeSelector: p.selector})
			}
			r.add(w)
			r.settle()
			if c.wantMessage != "" {
				assert.Equal(t, "cq: ", r.admitted())
				assert.Equal(t, c.wantMessage, r.message("w"))
				return
			}
			assert.Equal(t, "cq: w", r.admitted())
			var got []string
			for i := len(r.log) - 1; i >= 0; i-- {
				if e := r.log[i]; e.Kind == QuotaReserved && e.Workload == "default/w" {
					for _, p := range e.Admission.PodSets {
						got = append(got, p.TopologyAssignment.String())
					}
					break
				}
			}
			var want []string
			for _, p := range c.podSets {
				want = append(want, p.want)
			}
			assert.Equal(t, want, got)
		})
	}
}
