package kueue

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gangsim/gangsim/cluster"
)

// tasRun is a run with one TAS flavor "tas" (nodes labelled pool=tas) of
// the Topology "default" (block, rack, hostname unless levels are given)
// on the nodes, and one ClusterQueue "cq" of 100 cpu in it.
func tasRun(t *testing.T, nodes []TASNode, levels ...string) *run {
	if levels == nil {
		levels = []string{tBlock, tRack, tHost}
	}
	o := objects([]ClusterQueue{newCQ("cq", "", group(quotas("tas", rq{name: cpu, nominal: "100"})))})
	o.Topologies = []Topology{{Name: "default", Levels: levels}}
	o.ResourceFlavors[0].TopologyName = "default"
	o.ResourceFlavors[0].NodeLabels = map[string]string{"pool": "tas"}
	r := newRun(t, o)
	r.a.SetNodes(func() []TASNode { return nodes })
	return r
}

func tasWl(name string, created int, count int32, cpu string, req TopologyRequest) *Workload {
	w := wl(name, "lq-cq", 0, created, count, cpu)
	w.PodSets[0].Topology = &req
	return w
}

func (r *run) topology(name string) string {
	for i := len(r.log) - 1; i >= 0; i-- {
		if e := r.log[i]; e.Kind == QuotaReserved && e.Workload == "default/"+name {
			return e.Admission.PodSets[0].TopologyAssignment.String()
		}
	}
	return ""
}

// Racks hold b1/r1 1 pod of 1 cpu, b1/r2 3, b2/r1 1, b2/r2 2 (x4).
// w1 (3 pods, rack required) takes b1/r2 (x1, x5, x6, one each); w2 (2,
// rack required) then fits only b2/r2 (x4's 2 cpu); w3 (2, rack
// required) fits no rack left (each holds 1): it waits with Kueue's
// message, its quota (100 cpu) being no obstacle. When w1 finishes, w3
// takes b1/r2 (best fit: 3 >= 2; b1/r1 and b2/r1 hold 1).
func TestTASRequiredRackAcrossCycles(t *testing.T) {
	r := tasRun(t, kueueDefaultNodes())
	r.add(tasWl("w1", 0, 3, "1", TopologyRequest{Required: tRack}), tasWl("w2", 1, 2, "1", TopologyRequest{Required: tRack}),
		tasWl("w3", 2, 2, "1", TopologyRequest{Required: tRack}))
	r.settle()
	assert.Equal(t, "cq: w1 w2", r.admitted())
	assert.Equal(t, "kubernetes.io/hostname=x1:1 kubernetes.io/hostname=x5:1 kubernetes.io/hostname=x6:1", r.topology("w1"))
	assert.Equal(t, "kubernetes.io/hostname=x4:2", r.topology("w2"))
	// x1, x5, x6 and x4 are full: four leaves hold no pod
	assert.Equal(t, `couldn't assign flavors to pod set main: topology "default" allows to fit only 1 out of 2 pod(s). Total nodes: 6; excluded: resource "cpu": 4`, r.message("w3"))
	r.finish("w1")
	r.settle()
	assert.Equal(t, "cq: w2 w3", r.admitted())
	assert.Equal(t, "kubernetes.io/hostname=x1:1 kubernetes.io/hostname=x5:1", r.topology("w3"))
}

// Two heads of one cycle (two queues) nominated on one snapshot: both
// choose b1/r2 (3 pods); the first admitted takes it, and the second no
// longer fits there.
func TestTASNoLongerFitsInTheCycle(t *testing.T) {
	o := objects([]ClusterQueue{newCQ("cq", "", group(quotas("tas", rq{name: cpu, nominal: "100"}))),
		newCQ("cq2", "", group(quotas("tas", rq{name: cpu, nominal: "100"})))})
	o.Topologies = []Topology{{Name: "default", Levels: []string{tBlock, tRack, tHost}}}
	o.ResourceFlavors[0].TopologyName = "default"
	o.ResourceFlavors[0].NodeLabels = map[string]string{"pool": "tas"}
	r := newRun(t, o)
	r.a.SetNodes(func() []TASNode { return kueueDefaultNodes() })
	a := tasWl("a", 0, 3, "1", TopologyRequest{Required: tRack})
	b := tasWl("b", 1, 3, "1", TopologyRequest{Required: tRack})
	b.Queue = "lq-cq2"
	r.add(a, b)
	r.a.AdvanceTo(0)
	r.log = append(r.log, r.a.Step()...)
	assert.Equal(t, "cq: a; cq2: ", r.admitted())
	assert.Equal(t, "Workload no longer fits after processing another workload", r.message("b"))
}

// Flavor checks: a pod set asking for TAS skips a flavor without a
// topology; one asking for none skips a TAS flavor; a level the Topology
// does not have skips it too.
func TestTASFlavorChecks(t *testing.T) {
	r := tasRun(t, kueueDefaultNodes())
	q := r.a.cqs["cq"]
	r.a.flavors["plain"] = &ResourceFlavor{Name: "plain"}
	ps := &PodSet{Name: "main", Topology: &TopologyRequest{Required: tRack}}
	assert.Equal(t, `Flavor "plain" does not support TopologyAwareScheduling`, r.a.checkTASFlavor(q, ps, "plain"))
	assert.Equal(t, "", r.a.checkTASFlavor(q, ps, "tas"))
	ps.Topology = &TopologyRequest{Required: "zone"}
	assert.Equal(t, `Flavor "tas" does not contain the requested level`, r.a.checkTASFlavor(q, ps, "tas"))
	// the queue is TAS-only: a pod set without a request asks implicitly
	assert.Equal(t, "", r.a.checkTASFlavor(q, &PodSet{Name: "main"}, "tas"))
	q.rgs[0].flavors = append(q.rgs[0].flavors, "plain")
	assert.Equal(t, `Flavor "tas" supports only TopologyAwareScheduling`, r.a.checkTASFlavor(q, &PodSet{Name: "main"}, "tas"))
}

// Capacity: non-TAS pods' requests count against a node, cordoned nodes
// and nodes without the flavor's labels are left out, and a pod set whose
// quota needs preemption and that would not fit an empty topology is
// NoFit. Slices: 4 pods in slices of 2 per rack, unconstrained otherwise.
func TestTASCapacityAndSlices(t *testing.T) {
	nodes := kueueDefaultNodes()
	nodes[5].NonTAS = cluster.ResourceList{cluster.ResourceCPU: 1000} // x4: 1 cpu left
	nodes[1].Unschedulable = true                                     // x5 out: b1/r2 holds 2
	r := tasRun(t, nodes)
	// racks now hold b1/r1 1, b1/r2 2, b2/r1 1, b2/r2 1
	r.add(tasWl("big", 0, 3, "1", TopologyRequest{Required: tRack}))
	r.settle()
	assert.Equal(t, `couldn't assign flavors to pod set main: topology "default" allows to fit only 2 out of 3 pod(s)`, r.message("big"))
	// slices of 2 in a rack: only b1/r2 holds one (x1, x6); 2 slices wanted
	r.add(tasWl("sl", 1, 4, "1", TopologyRequest{SliceRequired: tRack, SliceSize: 2}))
	r.settle()
	assert.Equal(t, `couldn't assign flavors to pod set main: topology "default" allows to fit only 1 out of 2 slice(s)`, r.message("sl"))
	r.add(tasWl("sl2", 2, 2, "1", TopologyRequest{SliceRequired: tRack, SliceSize: 2}))
	r.settle()
	assert.Equal(t, "cq: sl2", r.admitted())
	assert.Equal(t, "kubernetes.io/hostname=x1:1 kubernetes.io/hostname=x6:1", r.topology("sl2"))
}

// The snapshot kept across cycles, updated as workloads are admitted and
// finish, equals one built afresh from the nodes and the TAS usage.
func TestTASSnapshotKeptEqualsRebuilt(t *testing.T) {
	r := tasRun(t, kueueDefaultNodes())
	r.add(tasWl("w1", 0, 3, "1", TopologyRequest{Required: tRack}), tasWl("w2", 1, 2, "1", TopologyRequest{Required: tRack}),
		tasWl("w3", 2, 2, "1", TopologyRequest{Required: tRack}), tasWl("w4", 3, 1, "1", TopologyRequest{Unconstrained: true}))
	r.settle()
	r.finish("w1")
	r.settle()
	kept := r.a.tasSnap["tas"]
	fresh := newSnapshot(r.a.flavors["tas"], r.a.tasLevels("tas"), r.a.tasNodes, r.a.tasUsed["tas"])
	nonZero := func(l cluster.ResourceList) cluster.ResourceList {
		out := cluster.ResourceList{}
		for k, v := range l {
			if v != 0 {
				out[k] = v
			}
		}
		return out
	}
	for id, leaf := range fresh.leaves {
		assert.Equal(t, nonZero(leaf.used), nonZero(kept.leaves[id].used), id)
	}
	assert.Equal(t, "cq: w2 w3 w4", r.admitted())
}

// Kueue's TASRecomputeAssignmentWithinSchedulingCycle: two heads of one
// cycle of 2 pods each (rack required) both choose b2/r2 (x4, 2 cpu: the
// best fit); the first takes it, and the second, whose quota still fits,
// is given its domains again: b1/r2 (3 left; b1/r1 and b2/r1 hold 1).
func TestTASRecomputeWithinTheCycle(t *testing.T) {
	o := objects([]ClusterQueue{newCQ("cq", "", group(quotas("tas", rq{name: cpu, nominal: "100"}))),
		newCQ("cq2", "", group(quotas("tas", rq{name: cpu, nominal: "100"})))})
	o.Topologies = []Topology{{Name: "default", Levels: []string{tBlock, tRack, tHost}}}
	o.ResourceFlavors[0].TopologyName = "default"
	o.ResourceFlavors[0].NodeLabels = map[string]string{"pool": "tas"}
	r := newRun(t, o)
	r.a.SetNodes(func() []TASNode { return kueueDefaultNodes() })
	a := tasWl("a", 0, 2, "1", TopologyRequest{Required: tRack})
	b := tasWl("b", 1, 2, "1", TopologyRequest{Required: tRack})
	b.Queue = "lq-cq2"
	r.add(a, b)
	r.a.AdvanceTo(0)
	r.log = append(r.log, r.a.Step()...)
	assert.Equal(t, "cq: a; cq2: b", r.admitted())
	assert.Equal(t, "kubernetes.io/hostname=x4:2", r.topology("a"))
	assert.Equal(t, "kubernetes.io/hostname=x1:1 kubernetes.io/hostname=x5:1", r.topology("b"))
}

// An admitted workload's Status carries its admission, topology included.
func TestTASStatus(t *testing.T) {
	r := tasRun(t, kueueDefaultNodes())
	r.add(tasWl("w1", 0, 3, "1", TopologyRequest{Required: tRack}))
	r.settle()
	st := r.a.Status("default/w1")
	assert.Equal(t, "kubernetes.io/hostname=x1:1 kubernetes.io/hostname=x5:1 kubernetes.io/hostname=x6:1", st.Admission.PodSets[0].TopologyAssignment.String())
	r.finish("w1")
	assert.Nil(t, r.a.Status("default/w1").Admission)
}

// An admitted workload given with its topology assignment (a dump's)
// counts its TAS usage from the start. x1 and x2 have 1 cpu each; "old"
// holds x1 with 1 pod of 1 cpu. "new" (2 pods of 1 cpu, host preferred)
// fits only 1 pod (x2): it waits with Kueue's message. Once "old"
// finishes, x1 is free again and "new" takes both hosts.
func TestTASAddAdmittedCountsItsAssignment(t *testing.T) {
	host := func(h string) TASNode {
		return TASNode{Name: h, Labels: map[string]string{tHost: h, "pool": "tas"}, Allocatable: cluster.ResourceList{cluster.ResourceCPU: 1000, cluster.ResourcePods: 10}}
	}
	r := tasRun(t, []TASNode{host("x1"), host("x2")}, tHost)
	old := tasWl("old", 0, 1, "1", TopologyRequest{Required: tHost})
	ad := Admission{ClusterQueue: "cq", PodSets: []PodSetAssignment{{Name: "main", Count: 1, Flavors: map[cluster.ResourceName]string{cpu: "tas"},
		TopologyAssignment: &TopologyAssignment{Levels: []string{tHost}, Domains: []TopologyDomain{dom(1, "x1")}}}}}
	if err := r.a.AddAdmitted(old, ad); err != nil {
		t.Fatal(err)
	}
	r.add(tasWl("new", 1, 2, "1", TopologyRequest{Preferred: tHost}))
	r.settle()
	assert.Equal(t, "cq: old", r.admitted())
	assert.Equal(t, `couldn't assign flavors to pod set main: topology "default" allows to fit only 1 out of 2 pod(s). Total nodes: 2; excluded: resource "cpu": 1`, r.message("new"))
	r.finish("old")
	r.settle()
	assert.Equal(t, "cq: new", r.admitted())
	assert.Equal(t, "kubernetes.io/hostname=x1:1 kubernetes.io/hostname=x2:1", r.topology("new"))
}
