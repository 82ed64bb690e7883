package kueue

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gangsim/gangsim/cluster"
)

// Kueue v0.19.2's TestScheduleForTAS (pkg/scheduler/scheduler_tas_test.go),
// the cases that fit the model, each under Kueue's name. As TestSchedule's
// ports do, each runs one admission cycle and compares the admissions
// (with each pod set's TopologyAssignment), the workloads left in the
// queue (active and inadmissible) and the pending workloads' messages.
// Kueue's events carry the messages; the "Flavors considered" summary of
// an admitted workload's QuotaReserved event is not modelled.

// The suite's shared objects: Topologies of one level (hostname), two
// (rack, hostname) and three (block, rack, hostname); the TAS flavor
// "tas-default" selects the nodes labelled tas-node=true; the ClusterQueue
// "tas-main" has 50 cpu and 50Gi of it, and the LocalQueue
// default/tas-main points to it.
const sRack = "cloud.provider.com/rack"

var (
	tasSingle = Topology{Name: "tas-single-level", Levels: []string{tHost}}
	tasTwo    = Topology{Name: "tas-two-level", Levels: []string{sRack, tHost}}
	tasThree  = Topology{Name: "tas-three-level", Levels: []string{tBlock, sRack, tHost}}
)

func tasFlavor(topology string) ResourceFlavor {
	return ResourceFlavor{Name: "tas-default", NodeLabels: map[string]string{"tas-node": "true"}, TopologyName: topology}
}

func tasMainCQ() ClusterQueue {
	return mkCQ("tas-main").groups(rg(fq("tas-default", res(cpu, "50"), res(cluster.ResourceMemory, "50Gi")))).obj()
}

// snode is a node labelled tas-node=true with the labels given as key,
// value pairs, and allocatable cpu (cores), memory and pods.
func snode(name string, cpuCores, memGi, pods int64, labels ...string) TASNode {
	n := TASNode{Name: name, Labels: map[string]string{"tas-node": "true", tHost: name},
		Allocatable: cluster.ResourceList{cluster.ResourceCPU: cpuCores * 1000, cluster.ResourcePods: pods}}
	if memGi > 0 {
		n.Allocatable[cluster.ResourceMemory] = memGi << 30
	}
	for i := 0; i+1 < len(labels); i += 2 {
		n.Labels[labels[i]] = labels[i+1]
	}
	return n
}

// defaultSingleNode: x1 of 1 cpu, 1Gi and 10 pods.
func sSingleNode() []TASNode { return []TASNode{snode("x1", 1, 1, 10)} }

// topo sets a pod set's topology request.
func (p PodSet) topo(t TopologyRequest) PodSet { p.Topology = &t; return p }

// tasAdm is an admission of tas-main of one pod set "one" whose pods
// are all in the flavor tas-default, placed as the domains say (host,
// count pairs).
func tasAdm(podSet string, count int32, reqs []cluster.ResourceName, domains ...any) Admission {
	p := PodSetAssignment{Name: podSet, Count: count, Flavors: map[cluster.ResourceName]string{},
		TopologyAssignment: &TopologyAssignment{Levels: []string{tHost}}}
	for _, r := range reqs {
		p.Flavors[r] = "tas-default"
	}
	for i := 0; i+1 < len(domains); i += 2 {
		p.TopologyAssignment.Domains = append(p.TopologyAssignment.Domains, dom(int32(domains[i+1].(int)), domains[i].(string)))
	}
	return Admission{ClusterQueue: "tas-main", PodSets: []PodSetAssignment{p}}
}

type tasCycleCase struct {
	nodes      []TASNode
	topologies []Topology       // tasSingle when nil
	flavors    []ResourceFlavor // tasFlavor("tas-single-level") when nil
	cq         *ClusterQueue    // tasMainCQ when nil
	cqs        []ClusterQueue   // instead of cq, with the LocalQueues lqs
	lqs        []LocalQueue
	admitted   []admittedWorkload
	pending    []*pwl

	// wantAssignments are every workload holding quota after the cycle
	// (a preempted one holds it until its pods are gone).
	wantAssignments map[string]string
	// wantTopology is, for each workload admitted in the cycle, its pod
	// sets' TopologyAssignments (TopologyAssignment.String; "" for none).
	wantTopology               map[string][]string
	wantLeft, wantInadmissible map[string][]string
	wantMessages               map[string]string
	wantPreempted              []string
	wantEvictMessages          map[string]string
}

func runTASCycle(t *testing.T, tc tasCycleCase) {
	t.Helper()
	o := &Objects{ResourceFlavors: tc.flavors, Topologies: tc.topologies, LocalQueues: []LocalQueue{lq("default", "tas-main", "tas-main")}}
	if o.ResourceFlavors == nil {
		o.ResourceFlavors = []ResourceFlavor{tasFlavor("tas-single-level")}
	}
	if o.Topologies == nil {
		o.Topologies = []Topology{tasSingle}
	}
	switch {
	case tc.cqs != nil:
		o.ClusterQueues, o.LocalQueues = tc.cqs, tc.lqs
	case tc.cq != nil:
		o.ClusterQueues = []ClusterQueue{*tc.cq}
	default:
		o.ClusterQueues = []ClusterQueue{tasMainCQ()}
	}
	a, err := New(o, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	a.SetNamespace("default", nil)
	a.SetNodes(func() []TASNode { return tc.nodes })
	evs := stepWith(t, a, tc.admitted, tc.pending)
	checkCycle(t, a, evs, cycleCase{wantAssignments: tc.wantAssignments, wantLeft: tc.wantLeft,
		wantInadmissible: tc.wantInadmissible, wantMessages: tc.wantMessages, wantPreempted: tc.wantPreempted,
		wantEvictMessages: tc.wantEvictMessages})
	got := map[string][]string{}
	for _, e := range evs {
		if e.Kind != QuotaReserved {
			continue
		}
		for _, p := range e.Admission.PodSets {
			s := ""
			if p.TopologyAssignment != nil {
				s = p.TopologyAssignment.String()
			}
			got[e.Workload] = append(got[e.Workload], s)
		}
	}
	want := tc.wantTopology
	if want == nil {
		want = map[string][]string{}
	}
	assert.Equal(t, want, got, "topology assignments")
}

func hostIs(h string, n int) string { return tHost + "=" + h + ":" + strconv.Itoa(n) }

func mixedCQ() *ClusterQueue {
	q := mkCQ("tas-main").groups(rg(fq("tas-default", res(cpu, "50")), fq("default", res(cpu, "50")))).obj()
	return &q
}

func cpu16() *ClusterQueue {
	q := mkCQ("tas-main").groups(rg(fq("tas-default", res(cpu, "16")))).obj()
	return &q
}

// zeroCapacityNodes is Kueue's nodesWithZeroCapacityInstance: rack r1 of
// x1 (0 cpu), x2 and x3 (1 cpu each), 10 pods each.
func zeroCapacityNodes() []TASNode {
	return []TASNode{snode("x1", 0, 0, 10, sRack, "r1"), snode("x2", 1, 0, 10, sRack, "r1"), snode("x3", 1, 0, 10, sRack, "r1")}
}

func TestPortedScheduleForTAS(t *testing.T) {
	one := func(count int32, reqs ...string) PodSet { return ps("one", count, reqs...) }
	reqHost := TopologyRequest{Required: tHost}
	prefHost := TopologyRequest{Preferred: tHost}
	cpuOnly := func() *ClusterQueue {
		q := mkCQ("tas-main").groups(rg(fq("tas-default", res(cpu, "50")))).obj()
		return &q
	}
	cases := map[string]tasCycleCase{
		// The queue's only flavor is a TAS flavor: the pod set asks for TAS
		// implicitly (unconstrained) and goes to x1. (Kueue lists the flavor
		// "default" too, which no queue uses.)
		"workload which does not specify TAS annotation uses the only TAS flavor": {
			nodes: sSingleNode(), flavors: []ResourceFlavor{tasFlavor("tas-single-level"), {Name: "default"}}, cq: cpuOnly(),
			pending:         []*pwl{mkWl("foo", "default").queue("tas-main").podSets(one(1, "cpu", "1"))},
			wantAssignments: map[string]string{"default/foo": "tas-main one:1:cpu=tas-default"},
			wantTopology:    map[string][]string{"default/foo": {hostIs("x1", 1)}},
		},
		"workload required TAS gets scheduled": {
			nodes:           sSingleNode(),
			pending:         []*pwl{mkWl("foo", "default").queue("tas-main").podSets(one(1, "cpu", "1").topo(reqHost))},
			wantAssignments: map[string]string{"default/foo": "tas-main one:1:cpu=tas-default"},
			wantTopology:    map[string][]string{"default/foo": {hostIs("x1", 1)}},
		},
		"workload requests topology level which is not present in topology": {
			nodes:            sSingleNode(),
			pending:          []*pwl{mkWl("foo", "default").queue("tas-main").podSets(one(1, "cpu", "1").topo(TopologyRequest{Required: "cloud.com/non-existing"}))},
			wantInadmissible: map[string][]string{"tas-main": {"default/foo"}},
			wantMessages:     map[string]string{"default/foo": `couldn't assign flavors to pod set one: Flavor "tas-default" does not contain the requested level`},
		},
		// 2 pods of 1 cpu on a node of 1
		"workload does not get scheduled as it does not fit within the node capacity": {
			nodes:            sSingleNode(),
			pending:          []*pwl{mkWl("foo", "default").queue("tas-main").podSets(one(2, "cpu", "1").topo(reqHost))},
			wantInadmissible: map[string][]string{"tas-main": {"default/foo"}},
			wantMessages:     map[string]string{"default/foo": `couldn't assign flavors to pod set one: topology "tas-single-level" allows to fit only 1 out of 2 pod(s)`},
		},
		// bar-admitted's pod holds x1's 1 cpu
		"workload does not get scheduled as the node capacity is already used by another TAS workload": {
			nodes: sSingleNode(),
			admitted: []admittedWorkload{{mkWl("bar-admitted", "default").queue("tas-main").podSets(one(1, "cpu", "1").topo(reqHost)),
				tasAdm("one", 1, []cluster.ResourceName{cpu}, "x1", 1)}},
			pending:          []*pwl{mkWl("foo", "default").queue("tas-main").podSets(one(1, "cpu", "1").topo(reqHost))},
			wantAssignments:  map[string]string{"default/bar-admitted": "tas-main one:1:cpu=tas-default"},
			wantInadmissible: map[string][]string{"tas-main": {"default/foo"}},
			wantMessages:     map[string]string{"default/foo": `couldn't assign flavors to pod set one: topology "tas-single-level" doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "cpu": 1`},
		},
		// a pending pod bound to x1 asks for 600m: 400m left
		"workload does not get scheduled as the node capacity is already used by a non-TAS pod": {
			nodes: func() []TASNode {
				ns := sSingleNode()
				ns[0].NonTAS = cluster.ResourceList{cluster.ResourceCPU: 600, cluster.ResourcePods: 1}
				return ns
			}(),
			pending:          []*pwl{mkWl("foo", "default").queue("tas-main").podSets(one(1, "cpu", "1").topo(reqHost))},
			wantInadmissible: map[string][]string{"tas-main": {"default/foo"}},
			wantMessages:     map[string]string{"default/foo": `couldn't assign flavors to pod set one: topology "tas-single-level" doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "cpu": 1`},
		},
		// x1 (1 cpu, 1Gi, 1 pod) is all taken by a running pod: cpu, memory
		// and pods fit none, cpu first by name
		"workload does not get scheduled as node capacity is completely used by non-TAS pod": {
			nodes: func() []TASNode {
				n := snode("x1", 1, 1, 1)
				n.NonTAS = cluster.ResourceList{cluster.ResourceCPU: 1000, cluster.ResourceMemory: 1 << 30, cluster.ResourcePods: 1}
				return []TASNode{n}
			}(),
			pending:          []*pwl{mkWl("foo", "default").queue("tas-main").podSets(one(1, "cpu", "1").topo(reqHost))},
			wantInadmissible: map[string][]string{"tas-main": {"default/foo"}},
			wantMessages:     map[string]string{"default/foo": `couldn't assign flavors to pod set one: topology "tas-single-level" doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "cpu": 1`},
		},
		// bar-admitted holds 500m and 500Mi of x1's 1 cpu and 1Gi: the
		// same again fits
		"workload gets admitted next to already admitted workload, multiple resources used": {
			nodes: sSingleNode(),
			admitted: []admittedWorkload{{mkWl("bar-admitted", "default").queue("tas-main").podSets(one(1, "cpu", "500m", "memory", "500Mi").topo(reqHost)),
				tasAdm("one", 1, []cluster.ResourceName{cpu, cluster.ResourceMemory}, "x1", 1)}},
			pending: []*pwl{mkWl("foo", "default").queue("tas-main").podSets(one(1, "cpu", "500m", "memory", "500Mi").topo(reqHost))},
			wantAssignments: map[string]string{"default/bar-admitted": "tas-main one:1:cpu=tas-default,memory=tas-default",
				"default/foo": "tas-main one:1:cpu=tas-default,memory=tas-default"},
			wantTopology: map[string][]string{"default/foo": {hostIs("x1", 1)}},
		},
		// the queue's first flavor "default" has no topology
		"workload requiring TAS skips the non-TAS flavor": {
			nodes: sSingleNode(), flavors: []ResourceFlavor{tasFlavor("tas-single-level"), {Name: "default"}},
			cq: func() *ClusterQueue {
				q := mkCQ("tas-main").groups(rg(fq("default", res(cpu, "50")), fq("tas-default", res(cpu, "50")))).obj()
				return &q
			}(),
			pending:         []*pwl{mkWl("foo", "default").queue("tas-main").podSets(one(1, "cpu", "1").topo(reqHost))},
			wantAssignments: map[string]string{"default/foo": "tas-main one:1:cpu=tas-default"},
			wantTopology:    map[string][]string{"default/foo": {hostIs("x1", 1)}},
		},
		// not every flavor of the queue is a TAS flavor: no implied request,
		// and the TAS flavor takes only TAS pod sets
		"workload which does not need TAS skips the TAS flavor": {
			nodes: sSingleNode(), flavors: []ResourceFlavor{tasFlavor("tas-single-level"), {Name: "default"}},
			cq:              mixedCQ(),
			pending:         []*pwl{mkWl("foo", "default").queue("tas-main").podSets(one(1, "cpu", "1"))},
			wantAssignments: map[string]string{"default/foo": "tas-main one:1:cpu=default"},
			wantTopology:    map[string][]string{"default/foo": {""}},
		},
		"workload with mixed PodSets (requiring TAS and not)": {
			nodes: sSingleNode(), flavors: []ResourceFlavor{tasFlavor("tas-single-level"), {Name: "default"}},
			cq: mixedCQ(),
			pending: []*pwl{mkWl("foo", "default").queue("tas-main").podSets(ps("launcher", 1, "cpu", "500m"),
				ps("worker", 1, "cpu", "500m").topo(reqHost))},
			wantAssignments: map[string]string{"default/foo": "tas-main launcher:1:cpu=default worker:1:cpu=tas-default"},
			wantTopology:    map[string][]string{"default/foo": {"", hostIs("x1", 1)}},
		},
		// x1 has no hostname label, only cloud.com/custom-level: only the
		// second flavor's topology has the level
		"workload requests topology level which is only present in second flavor": {
			nodes: []TASNode{{Name: "x1", Labels: map[string]string{"tas-node": "true", "cloud.com/custom-level": "x1"},
				Allocatable: cluster.ResourceList{cluster.ResourceCPU: 1000, cluster.ResourcePods: 10}}},
			topologies: []Topology{tasSingle, {Name: "tas-custom-topology", Levels: []string{"cloud.com/custom-level"}}},
			flavors: []ResourceFlavor{tasFlavor("tas-single-level"),
				{Name: "tas-custom-flavor", NodeLabels: map[string]string{"tas-node": "true"}, TopologyName: "tas-custom-topology"}},
			cq: func() *ClusterQueue {
				q := mkCQ("tas-main").groups(rg(fq("tas-default", res(cpu, "50")), fq("tas-custom-flavor", res(cpu, "50")))).obj()
				return &q
			}(),
			pending:         []*pwl{mkWl("foo", "default").queue("tas-main").podSets(one(1, "cpu", "1").topo(TopologyRequest{Required: "cloud.com/custom-level"}))},
			wantAssignments: map[string]string{"default/foo": "tas-main one:1:cpu=tas-custom-flavor"},
			wantTopology:    map[string][]string{"default/foo": {"cloud.com/custom-level=x1:1"}},
		},
		// x1 and y1 of 3 cpu: the launcher (1 cpu) takes x1, the worker (7
		// cpu) fits no host
		"workload with multiple PodSets requesting the same TAS flavor; multiple levels": {
			nodes: []TASNode{snode("x1", 3, 0, 10, sRack, "r1"), snode("y1", 3, 0, 10, sRack, "r1")}, topologies: []Topology{tasTwo},
			flavors: []ResourceFlavor{tasFlavor("tas-two-level")}, cq: cpuOnly(),
			pending: []*pwl{mkWl("foo", "default").queue("tas-main").podSets(ps("launcher", 1, "cpu", "1").topo(prefHost),
				ps("worker", 1, "cpu", "7").topo(prefHost))},
			wantInadmissible: map[string][]string{"tas-main": {"default/foo"}},
			wantMessages: map[string]string{"default/foo": `couldn't assign flavors to pod set worker: topology "tas-two-level" doesn't allow to fit any of 1 pod(s). ` +
				`Total nodes: 2; excluded: resource "cpu": 2`},
		},
		// x1 and y1 of 8 cpu: the launcher takes x1 (first of two equal
		// hosts); the 15 workers, counting it, fit no host: the rack gives
		// y1 8 first (most room), x1 the last 7
		"scheduling workload with multiple PodSets requesting TAS flavor and will succeed": {
			nodes: []TASNode{snode("x1", 8, 0, 10, sRack, "r1"), snode("y1", 8, 0, 10, sRack, "r1")}, topologies: []Topology{tasTwo},
			flavors: []ResourceFlavor{tasFlavor("tas-two-level")}, cq: cpu16(),
			pending: []*pwl{mkWl("foo", "default").queue("tas-main").podSets(ps("launcher", 1, "cpu", "1").topo(reqHost),
				ps("worker", 15, "cpu", "1").topo(prefHost))},
			wantAssignments: map[string]string{"default/foo": "tas-main launcher:1:cpu=tas-default worker:15:cpu=tas-default"},
			wantTopology:    map[string][]string{"default/foo": {hostIs("x1", 1), hostIs("x1", 7) + " " + hostIs("y1", 8)}},
		},
		"scheduling workload with multiple PodSets requesting higher level topology": {
			nodes: []TASNode{snode("x1", 8, 0, 10, sRack, "r1"), snode("y1", 8, 0, 10, sRack, "r1")}, topologies: []Topology{tasTwo},
			flavors: []ResourceFlavor{tasFlavor("tas-two-level")}, cq: cpu16(),
			pending: []*pwl{mkWl("foo", "default").queue("tas-main").podSets(ps("launcher", 1, "cpu", "1").topo(TopologyRequest{Required: sRack}),
				ps("worker", 15, "cpu", "1").topo(TopologyRequest{Required: sRack}))},
			wantAssignments: map[string]string{"default/foo": "tas-main launcher:1:cpu=tas-default worker:15:cpu=tas-default"},
			wantTopology:    map[string][]string{"default/foo": {hostIs("x1", 1), hostIs("x1", 7) + " " + hostIs("y1", 8)}},
		},
		// bar-admitted's x1 is gone; y1 is free
		"scheduling workload when the node for another admitted workload is deleted": {
			nodes: []TASNode{snode("y1", 1, 0, 10)}, cq: cpuOnly(),
			admitted: []admittedWorkload{{mkWl("bar-admitted", "default").queue("tas-main").podSets(one(1, "cpu", "1").topo(reqHost)),
				tasAdm("one", 1, []cluster.ResourceName{cpu}, "x1", 1)}},
			pending:         []*pwl{mkWl("foo", "default").queue("tas-main").podSets(one(1, "cpu", "1").topo(prefHost))},
			wantAssignments: map[string]string{"default/bar-admitted": "tas-main one:1:cpu=tas-default", "default/foo": "tas-main one:1:cpu=tas-default"},
			wantTopology:    map[string][]string{"default/foo": {hostIs("y1", 1)}},
		},
		"scheduling workload on a tainted node when the toleration is on ResourceFlavor": {
			nodes: func() []TASNode {
				n := snode("x1", 1, 0, 10)
				n.Taints = []cluster.Taint{{Key: "example.com/gpu", Value: "present", Effect: cluster.TaintNoSchedule}}
				return []TASNode{n}
			}(),
			flavors: func() []ResourceFlavor {
				f := tasFlavor("tas-single-level")
				f.Tolerations = []Toleration{{Toleration: cluster.Toleration{Key: "example.com/gpu", Operator: cluster.TolerationExists}}}
				return []ResourceFlavor{f}
			}(),
			cq:              cpuOnly(),
			pending:         []*pwl{mkWl("foo", "default").queue("tas-main").podSets(one(1, "cpu", "1").topo(prefHost))},
			wantAssignments: map[string]string{"default/foo": "tas-main one:1:cpu=tas-default"},
			wantTopology:    map[string][]string{"default/foo": {hostIs("x1", 1)}},
		},
		// 5 pods, at least 1: x1 holds 1
		"TAS workload gets scheduled as trimmed by partial admission": {
			nodes:           sSingleNode(),
			pending:         []*pwl{mkWl("foo", "default").queue("tas-main").podSets(one(5, "cpu", "1").min(1).topo(reqHost))},
			wantAssignments: map[string]string{"default/foo": "tas-main one:1:cpu=tas-default"},
			wantTopology:    map[string][]string{"default/foo": {hostIs("x1", 1)}},
		},
		// x1 holds 3 pods: a running pod and bar-admitted's 2 take them all
		"workload does not get scheduled as the node capacity (.status.allocatable['pods']) is already used by non-TAS and TAS workloads": {
			nodes: func() []TASNode {
				n := snode("x1", 1, 0, 3)
				n.NonTAS = cluster.ResourceList{cluster.ResourceCPU: 300, cluster.ResourcePods: 1}
				return []TASNode{n}
			}(),
			admitted: []admittedWorkload{{mkWl("bar-admitted", "default").queue("tas-main").podSets(one(2, "cpu", "150m").topo(reqHost)),
				tasAdm("one", 2, []cluster.ResourceName{cpu}, "x1", 2)}},
			pending:          []*pwl{mkWl("foo", "default").queue("tas-main").podSets(one(1, "cpu", "300m").topo(reqHost))},
			wantAssignments:  map[string]string{"default/bar-admitted": "tas-main one:2:cpu=tas-default"},
			wantInadmissible: map[string][]string{"tas-main": {"default/foo"}},
			wantMessages:     map[string]string{"default/foo": `couldn't assign flavors to pod set one: topology "tas-single-level" doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "pods": 1`},
		},
		"workload with zero value request gets scheduled": {
			nodes:           sSingleNode(),
			pending:         []*pwl{mkWl("foo", "default").queue("tas-main").podSets(one(1, "cpu", "0", "memory", "10Mi"))},
			wantAssignments: map[string]string{"default/foo": "tas-main one:1:cpu=tas-default,memory=tas-default"},
			wantTopology:    map[string][]string{"default/foo": {hostIs("x1", 1)}},
		},
		// x1 lacks unused-key. (Kueue's case does not pin the message.)
		"does not admit workload when node does not match required affinity": {
			nodes:            sSingleNode(),
			pending:          []*pwl{mkWl("foo", "default").queue("tas-main").podSets(one(1, "cpu", "1").topo(prefHost).aff([]string{"unused-key=value"}))},
			wantInadmissible: map[string][]string{"tas-main": {"default/foo"}},
		},
		"admits workload when node matches required affinity": {
			nodes:           []TASNode{snode("x1", 1, 1, 10, "expected-label", "expected-value")},
			pending:         []*pwl{mkWl("foo", "default").queue("tas-main").podSets(one(1, "cpu", "1").topo(prefHost).aff([]string{"expected-label=expected-value"}))},
			wantAssignments: map[string]string{"default/foo": "tas-main one:1:cpu=tas-default"},
			wantTopology:    map[string][]string{"default/foo": {hostIs("x1", 1)}},
		},
		// nodesWithZeroCapacityInstance: rack r1 of x1 (0 cpu), x2 and x3
		// (1 each); 2 pods of 1 cpu go to x2 and x3 whatever the request
		"admits workload when nodes are partially empty; unconstrained": {
			nodes: zeroCapacityNodes(), topologies: []Topology{tasTwo}, flavors: []ResourceFlavor{tasFlavor("tas-two-level")},
			pending:         []*pwl{mkWl("foo", "default").queue("tas-main").podSets(one(2, "cpu", "1").topo(TopologyRequest{Unconstrained: true}))},
			wantAssignments: map[string]string{"default/foo": "tas-main one:2:cpu=tas-default"},
			wantTopology:    map[string][]string{"default/foo": {hostIs("x2", 1) + " " + hostIs("x3", 1)}},
		},
		"admits workload when nodes are partially empty; preferred": {
			nodes: zeroCapacityNodes(), topologies: []Topology{tasTwo}, flavors: []ResourceFlavor{tasFlavor("tas-two-level")},
			pending:         []*pwl{mkWl("foo", "default").queue("tas-main").podSets(one(2, "cpu", "1").topo(TopologyRequest{Preferred: sRack}))},
			wantAssignments: map[string]string{"default/foo": "tas-main one:2:cpu=tas-default"},
			wantTopology:    map[string][]string{"default/foo": {hostIs("x2", 1) + " " + hostIs("x3", 1)}},
		},
		"admits workload when nodes are partially empty; required": {
			nodes: zeroCapacityNodes(), topologies: []Topology{tasTwo}, flavors: []ResourceFlavor{tasFlavor("tas-two-level")},
			pending:         []*pwl{mkWl("foo", "default").queue("tas-main").podSets(one(2, "cpu", "1").topo(TopologyRequest{Required: sRack}))},
			wantAssignments: map[string]string{"default/foo": "tas-main one:2:cpu=tas-default"},
			wantTopology:    map[string][]string{"default/foo": {hostIs("x2", 1) + " " + hostIs("x3", 1)}},
		},
		// the queue does not cover example.com/gpu, asked for 0
		"admits workload with zero-quantity request for resource not in ClusterQueue with TAS": {
			nodes:           sSingleNode(),
			pending:         []*pwl{mkWl("foo", "default").queue("tas-main").podSets(one(1, "cpu", "1", "example.com/gpu", "0").topo(prefHost))},
			wantAssignments: map[string]string{"default/foo": "tas-main one:1:cpu=tas-default"},
			wantTopology:    map[string][]string{"default/foo": {hostIs("x1", 1)}},
		},
		// 1 byte of memory on a node of 2Gi and no cpu. (Kueue's case runs
		// with VectorizedResourceRequests off; the model has one way.)
		"initial scheduling; one-byte memory request fits on a 2Gi node with vectorized requests disabled": {
			nodes:           []TASNode{snode("x1", 0, 2, 10)},
			pending:         []*pwl{mkWl("tiny-memory", "default").queue("tas-main").podSets(one(1, "memory", "1").topo(reqHost))},
			wantAssignments: map[string]string{"default/tiny-memory": "tas-main one:1:memory=tas-default"},
			wantTopology:    map[string][]string{"default/tiny-memory": {hostIs("x1", 1)}},
		},
		// 1536Mi a pod on hosts of 2Gi: one a host
		"initial scheduling; TAS uses podspec memory for placement": {
			nodes:           []TASNode{snode("x1", 4, 2, 10), snode("x2", 4, 2, 10)},
			pending:         []*pwl{mkWl("foo", "default").queue("tas-main").podSets(one(2, "cpu", "1", "memory", "1536Mi").topo(prefHost))},
			wantAssignments: map[string]string{"default/foo": "tas-main one:2:cpu=tas-default,memory=tas-default"},
			wantTopology:    map[string][]string{"default/foo": {hostIs("x1", 1) + " " + hostIs("x2", 1)}},
		},
		// the worker pod set of 0 pods gets its flavor and no topology
		"workload with a PodSet of size zero": {
			nodes: []TASNode{snode("x1", 3, 0, 10, sRack, "r1")}, topologies: []Topology{tasTwo}, flavors: []ResourceFlavor{tasFlavor("tas-two-level")},
			pending: []*pwl{mkWl("foo", "default").queue("tas-main").podSets(ps("launcher", 1, "cpu", "1").topo(prefHost),
				ps("worker", 0, "cpu", "1").topo(prefHost))},
			wantAssignments: map[string]string{"default/foo": "tas-main launcher:1:cpu=tas-default worker:0:cpu=tas-default"},
			wantTopology:    map[string][]string{"default/foo": {hostIs("x1", 1), ""}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) { runTASCycle(t, tc) })
	}
}

// TestScheduleForTASPreemption's suite: x1 (and y1) of 5 cpu, 5Gi and 10
// pods; tas-main preempts lower priority workloads within it.
func sPreemptNode(name string) TASNode { return snode(name, 5, 5, 10) }

func tasPreemptCQ() *ClusterQueue {
	q := mkCQ("tas-main").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority}).
		groups(rg(fq("tas-default", res(cpu, "50"), res(cluster.ResourceMemory, "50Gi")))).obj()
	return &q
}

func TestPortedScheduleForTASPreemption(t *testing.T) {
	one := func(count int32, reqs ...string) PodSet { return ps("one", count, reqs...) }
	reqHost := TopologyRequest{Required: tHost}
	prefHost := TopologyRequest{Preferred: tHost}
	cases := map[string]tasCycleCase{
		// quota 10 cpu: foo (10 pods) needs the low priority workload's 5,
		// placed on z1, a node gone: it is still the target, its quota
		// being what foo needs (x1 and y1 hold 10)
		"workload preempted due to quota is using deleted Node": {
			nodes: []TASNode{sPreemptNode("x1"), sPreemptNode("y1")},
			cq: func() *ClusterQueue {
				q := mkCQ("tas-main").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority}).
					groups(rg(fq("tas-default", res(cpu, "10"), res(cluster.ResourceMemory, "10Gi")))).obj()
				return &q
			}(),
			admitted: []admittedWorkload{{mkWl("low-priority-admitted", "default").queue("tas-main").prio(1).podSets(one(1, "cpu", "5").topo(reqHost)),
				tasAdm("one", 1, []cluster.ResourceName{cpu}, "z1", 1)}},
			pending:         []*pwl{mkWl("foo", "default").queue("tas-main").prio(3).podSets(one(10, "cpu", "1").topo(prefHost))},
			wantAssignments: map[string]string{"default/low-priority-admitted": "tas-main one:1:cpu=tas-default"},
			wantLeft:        map[string][]string{"tas-main": {"default/foo"}},
			wantPreempted:   []string{"default/low-priority-admitted:InClusterQueue"},
			wantMessages: map[string]string{"default/foo": "couldn't assign flavors to pod set one: insufficient unused quota for cpu in flavor tas-default, 5 more needed. " +
				"Pending the preemption of 1 workload(s)"},
		},
		// x1 has 5Gi; the low priority workload holds 2Gi of it; foo asks
		// for 4Gi: memory, not quota, makes it preempt
		"preemption; TAS uses podspec memory for fit": {
			nodes: []TASNode{sPreemptNode("x1")}, cq: tasPreemptCQ(),
			admitted: []admittedWorkload{{mkWl("low-priority-admitted", "default").queue("tas-main").prio(1).podSets(one(1, "cpu", "1", "memory", "2Gi").topo(reqHost)),
				tasAdm("one", 1, []cluster.ResourceName{cpu, cluster.ResourceMemory}, "x1", 1)}},
			pending:         []*pwl{mkWl("foo", "default").queue("tas-main").prio(3).podSets(one(1, "cpu", "1", "memory", "4Gi").topo(prefHost))},
			wantAssignments: map[string]string{"default/low-priority-admitted": "tas-main one:1:cpu=tas-default,memory=tas-default"},
			wantLeft:        map[string][]string{"tas-main": {"default/foo"}},
			wantPreempted:   []string{"default/low-priority-admitted:InClusterQueue"},
			wantMessages: map[string]string{"default/foo": `couldn't assign flavors to pod set one: topology "tas-single-level" doesn't allow to fit any of 1 pod(s). ` +
				`Total nodes: 1; excluded: resource "memory": 1. Pending the preemption of 1 workload(s)`},
		},
		// quota fits foo (2 of 50 cpu) but x1's 5 cpu are all the low
		// priority workload's: it is preempted, foo waits for it
		"only low priority workload is preempted": {
			nodes: []TASNode{sPreemptNode("x1")}, cq: tasPreemptCQ(),
			admitted: []admittedWorkload{{mkWl("low-priority-admitted", "default").queue("tas-main").prio(1).podSets(one(1, "cpu", "5").topo(reqHost)),
				tasAdm("one", 1, []cluster.ResourceName{cpu}, "x1", 1)}},
			pending:         []*pwl{mkWl("foo", "default").queue("tas-main").prio(3).podSets(one(1, "cpu", "2").topo(prefHost))},
			wantAssignments: map[string]string{"default/low-priority-admitted": "tas-main one:1:cpu=tas-default"},
			wantLeft:        map[string][]string{"tas-main": {"default/foo"}},
			wantPreempted:   []string{"default/low-priority-admitted:InClusterQueue"},
			wantMessages: map[string]string{"default/foo": `couldn't assign flavors to pod set one: topology "tas-single-level" doesn't allow to fit any of 1 pod(s). ` +
				`Total nodes: 1; excluded: resource "cpu": 1. Pending the preemption of 1 workload(s)`},
		},
		// x1 holds 1 pod only, the low priority workload's
		"With pods count usage pressure on nodes: only low priority workload is preempted": {
			nodes: []TASNode{snode("x1", 5, 5, 1)}, cq: tasPreemptCQ(),
			admitted: []admittedWorkload{{mkWl("low-priority-admitted", "default").queue("tas-main").prio(1).podSets(one(1, "cpu", "5").topo(reqHost)),
				tasAdm("one", 1, []cluster.ResourceName{cpu}, "x1", 1)}},
			pending:         []*pwl{mkWl("high-priority-waiting", "default").queue("tas-main").prio(3).podSets(one(1, "cpu", "2").topo(prefHost))},
			wantAssignments: map[string]string{"default/low-priority-admitted": "tas-main one:1:cpu=tas-default"},
			wantLeft:        map[string][]string{"tas-main": {"default/high-priority-waiting"}},
			wantPreempted:   []string{"default/low-priority-admitted:InClusterQueue"},
			wantMessages: map[string]string{"default/high-priority-waiting": `couldn't assign flavors to pod set one: topology "tas-single-level" doesn't allow to fit any of 1 pod(s). ` +
				`Total nodes: 1; excluded: resource "cpu": 1. Pending the preemption of 1 workload(s)`},
		},
		// x1 has 1 cpu left of 5 (2 + 2 taken); foo needs 2: the lowest
		// priority is enough
		"low priority workload is preempted, mid-priority workload survives": {
			nodes: []TASNode{sPreemptNode("x1")}, cq: tasPreemptCQ(),
			admitted: []admittedWorkload{
				{mkWl("mid-priority-admitted", "default").queue("tas-main").prio(2).podSets(one(1, "cpu", "2").topo(reqHost)), tasAdm("one", 1, []cluster.ResourceName{cpu}, "x1", 1)},
				{mkWl("low-priority-admitted", "default").queue("tas-main").prio(1).podSets(one(1, "cpu", "2").topo(reqHost)), tasAdm("one", 1, []cluster.ResourceName{cpu}, "x1", 1)}},
			pending: []*pwl{mkWl("foo", "default").queue("tas-main").prio(3).podSets(one(1, "cpu", "2").topo(prefHost))},
			wantAssignments: map[string]string{"default/mid-priority-admitted": "tas-main one:1:cpu=tas-default",
				"default/low-priority-admitted": "tas-main one:1:cpu=tas-default"},
			wantLeft:      map[string][]string{"tas-main": {"default/foo"}},
			wantPreempted: []string{"default/low-priority-admitted:InClusterQueue"},
			wantMessages: map[string]string{"default/foo": `couldn't assign flavors to pod set one: topology "tas-single-level" doesn't allow to fit any of 1 pod(s). ` +
				`Total nodes: 1; excluded: resource "cpu": 1. Pending the preemption of 1 workload(s)`},
		},
		// x1 and y1 each have 1 cpu left: 2 pods on one host need one of
		// them freed; the lower priority (y1) goes
		"low priority workload is preempted even though there is enough capacity, but fragmented": {
			nodes: []TASNode{sPreemptNode("x1"), sPreemptNode("y1")}, cq: tasPreemptCQ(),
			admitted: []admittedWorkload{
				{mkWl("mid-priority-admitted", "default").queue("tas-main").prio(2).podSets(one(1, "cpu", "4").topo(reqHost)), tasAdm("one", 1, []cluster.ResourceName{cpu}, "x1", 1)},
				{mkWl("low-priority-admitted", "default").queue("tas-main").prio(1).podSets(one(1, "cpu", "4").topo(reqHost)), tasAdm("one", 1, []cluster.ResourceName{cpu}, "y1", 1)}},
			pending: []*pwl{mkWl("foo", "default").queue("tas-main").prio(3).podSets(one(2, "cpu", "1").topo(reqHost))},
			wantAssignments: map[string]string{"default/mid-priority-admitted": "tas-main one:1:cpu=tas-default",
				"default/low-priority-admitted": "tas-main one:1:cpu=tas-default"},
			wantLeft:      map[string][]string{"tas-main": {"default/foo"}},
			wantPreempted: []string{"default/low-priority-admitted:InClusterQueue"},
			wantMessages:  map[string]string{"default/foo": `couldn't assign flavors to pod set one: topology "tas-single-level" allows to fit only 1 out of 2 pod(s). Pending the preemption of 1 workload(s)`},
		},
		// the head (priority 2) finds no lower priority to preempt and
		// waits; the low priority one, which would fit, is not tried in the
		// cycle
		"workload with equal priority awaits for other workloads to complete": {
			nodes: []TASNode{sPreemptNode("x1")}, cq: tasPreemptCQ(),
			admitted: []admittedWorkload{
				{mkWl("mid-priority-admitted", "default").queue("tas-main").prio(2).podSets(one(1, "cpu", "4").topo(reqHost)), tasAdm("one", 1, []cluster.ResourceName{cpu}, "x1", 1)}},
			pending: []*pwl{mkWl("low-priority-which-would-fit", "default").queue("tas-main").prio(1).podSets(one(1, "cpu", "1").topo(reqHost)),
				mkWl("mid-priority-waiting", "default").queue("tas-main").prio(2).podSets(one(2, "cpu", "1").topo(reqHost))},
			wantAssignments:  map[string]string{"default/mid-priority-admitted": "tas-main one:1:cpu=tas-default"},
			wantLeft:         map[string][]string{"tas-main": {"default/low-priority-which-would-fit"}},
			wantInadmissible: map[string][]string{"tas-main": {"default/mid-priority-waiting"}},
			wantMessages:     map[string]string{"default/mid-priority-waiting": `couldn't assign flavors to pod set one: topology "tas-single-level" allows to fit only 1 out of 2 pod(s)`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) { runTASCycle(t, tc) })
	}
}

// TestScheduleForTASCohorts' suite: x1 (3 cpu, 5Gi) and y1 (5 cpu, 3Gi),
// 10 pods each; tas-cq-a, -b and -c in the cohort tas-cohort-main, 4 cpu
// and 4Gi of tas-default each, reclaiming within the cohort (Any); a
// preempts lower priority workloads within itself too. LocalQueues
// default/tas-lq-a, -b, -c.
func cohortNodes() []TASNode { return []TASNode{snode("x1", 3, 5, 10), snode("y1", 5, 3, 10)} }

func cohortCQs(names ...string) []ClusterQueue {
	var out []ClusterQueue
	for _, n := range names {
		p := Preemption{ReclaimWithinCohort: PreemptAny}
		if n == "a" {
			p.WithinClusterQueue = PreemptLowerPriority
		}
		out = append(out, mkCQ("tas-cq-"+n).cohort("tas-cohort-main").preempt(p).
			groups(rg(fq("tas-default", res(cpu, "4"), res(cluster.ResourceMemory, "4Gi")))).obj())
	}
	return out
}

func cohortLQs() []LocalQueue {
	return []LocalQueue{lq("default", "tas-lq-a", "tas-cq-a"), lq("default", "tas-lq-b", "tas-cq-b"), lq("default", "tas-lq-c", "tas-cq-c")}
}

func TestPortedScheduleForTASCohorts(t *testing.T) {
	one := func(count int32, reqs ...string) PodSet { return ps("one", count, reqs...) }
	reqHost := TopologyRequest{Required: tHost}
	prefHost := TopologyRequest{Preferred: tHost}
	cases := map[string]tasCycleCase{
		// x1 holds 1 pod: the two pod sets of 1 pod do not both fit.
		// (Kueue's case does not pin the message.)
		"workload with two PodSets exceeds node pods capacity": {
			nodes: []TASNode{snode("x1", 2, 0, 1)}, cqs: cohortCQs("a"), lqs: cohortLQs(),
			pending: []*pwl{mkWl("foo", "default").queue("tas-lq-a").podSets(ps("one", 1, "cpu", "1").topo(reqHost),
				ps("two", 1, "cpu", "1").topo(reqHost))},
			wantInadmissible: map[string][]string{"tas-cq-a": {"default/foo"}},
		},
		// 6 cpu of a's 4 borrows 2 from b; no host holds 6: y1 5, x1 the last
		"workload which requires borrowing gets scheduled": {
			nodes: cohortNodes(), cqs: cohortCQs("a", "b"), lqs: cohortLQs(),
			pending:         []*pwl{mkWl("a1", "default").queue("tas-lq-a").podSets(one(6, "cpu", "1").topo(prefHost))},
			wantAssignments: map[string]string{"default/a1": "tas-cq-a one:6:cpu=tas-default"},
			wantTopology:    map[string][]string{"default/a1": {hostIs("x1", 1) + " " + hostIs("y1", 5)}},
		},
		// a1 uses 5 cpu (borrowing 1 of b's 4); b1 needs its 4 back: a1 is
		// preempted
		"reclaim within cohort; single borrowing workload gets preempted": {
			nodes: cohortNodes(), cqs: cohortCQs("a", "b"), lqs: cohortLQs(),
			admitted: []admittedWorkload{{mkWl("a1-admitted", "default").queue("tas-lq-a").podSets(one(5, "cpu", "1").topo(reqHost)),
				func() Admission {
					a := tasAdm("one", 5, []cluster.ResourceName{cpu}, "x1", 5)
					a.ClusterQueue = "tas-cq-a"
					return a
				}()}},
			pending:         []*pwl{mkWl("b1", "default").queue("tas-lq-b").podSets(one(4, "cpu", "1").topo(prefHost))},
			wantAssignments: map[string]string{"default/a1-admitted": "tas-cq-a one:5:cpu=tas-default"},
			wantLeft:        map[string][]string{"tas-cq-b": {"default/b1"}},
			wantPreempted:   []string{"default/a1-admitted:InCohortReclamation"},
		},
		// a1 (5 cpu, borrowing 1) fits only y1; b1 (5 bytes of memory)
		// takes x1, the host with the least memory room... both admitted
		"two small workloads considered; both get scheduled on different nodes": {
			nodes: cohortNodes(), cqs: cohortCQs("a", "b"), lqs: cohortLQs(),
			pending: []*pwl{mkWl("a1", "default").queue("tas-lq-a").prio(2).podSets(one(1, "cpu", "5").topo(prefHost)),
				mkWl("b1", "default").queue("tas-lq-b").prio(1).podSets(one(1, "memory", "5").topo(prefHost))},
			wantAssignments: map[string]string{"default/a1": "tas-cq-a one:1:cpu=tas-default", "default/b1": "tas-cq-b one:1:memory=tas-default"},
			wantTopology:    map[string][]string{"default/a1": {hostIs("y1", 1)}, "default/b1": {hostIs("x1", 1)}},
		},
		// 1 and 2 pods of 1 cpu: x1 (3 cpu) is the tighter fit for both
		"two small workloads considered; both get scheduled on the same node": {
			nodes: cohortNodes(), cqs: cohortCQs("a", "b"), lqs: cohortLQs(),
			pending: []*pwl{mkWl("a1", "default").queue("tas-lq-a").prio(2).podSets(one(1, "cpu", "1").topo(prefHost)),
				mkWl("b1", "default").queue("tas-lq-b").prio(1).podSets(one(2, "cpu", "1").topo(prefHost))},
			wantAssignments: map[string]string{"default/a1": "tas-cq-a one:1:cpu=tas-default", "default/b1": "tas-cq-b one:2:cpu=tas-default"},
			wantTopology:    map[string][]string{"default/a1": {hostIs("x1", 1)}, "default/b1": {hostIs("x1", 2)}},
		},
		// a1 (5 pods, borrowing 1) takes y1; b1 (5) was nominated on y1 too
		// and no longer fits: 3 cpu are left (x1)
		"two workloads considered; there is enough space only for the first": {
			nodes: cohortNodes(), cqs: cohortCQs("a", "b"), lqs: cohortLQs(),
			pending: []*pwl{mkWl("a1", "default").queue("tas-lq-a").prio(2).podSets(one(5, "cpu", "1").topo(prefHost)),
				mkWl("b1", "default").queue("tas-lq-b").prio(1).podSets(one(5, "cpu", "1").topo(prefHost))},
			wantAssignments: map[string]string{"default/a1": "tas-cq-a one:5:cpu=tas-default"},
			wantTopology:    map[string][]string{"default/a1": {hostIs("y1", 5)}},
			wantLeft:        map[string][]string{"tas-cq-b": {"default/b1"}},
			wantMessages:    map[string]string{"default/b1": "Workload no longer fits after processing another workload"},
		},
		// node-1 and node-2 of 8 cpu; two queues of 8 cpu without
		// preemption. Both nominate node-1 (the first of equal hosts); a1
		// (older, higher priority) takes it, b1's domains are recomputed in
		// the cycle: node-2
		"two workloads in cohort nominated to the same node; enough capacity to admit both; TASRecomputeAssignmentWithinSchedulingCycle enabled": {
			nodes: []TASNode{snode("node-1", 8, 0, 10), snode("node-2", 8, 0, 10)}, lqs: cohortLQs(),
			cqs: []ClusterQueue{mkCQ("tas-cq-a").cohort("tas-cohort-main").groups(rg(fq("tas-default", res(cpu, "8")))).obj(),
				mkCQ("tas-cq-b").cohort("tas-cohort-main").groups(rg(fq("tas-default", res(cpu, "8")))).obj()},
			pending: []*pwl{mkWl("a1", "default").queue("tas-lq-a").created(0).prio(10).podSets(one(1, "cpu", "8").topo(reqHost)),
				mkWl("b1", "default").queue("tas-lq-b").created(60).prio(5).podSets(one(1, "cpu", "8").topo(reqHost))},
			wantAssignments: map[string]string{"default/a1": "tas-cq-a one:1:cpu=tas-default", "default/b1": "tas-cq-b one:1:cpu=tas-default"},
			wantTopology:    map[string][]string{"default/a1": {hostIs("node-1", 1)}, "default/b1": {hostIs("node-2", 1)}},
		},
		// 2 cpu each: both nominate x1 (3 cpu, the tighter fit); b1 is
		// recomputed onto y1
		"two workloads considered; both overlapping in the initial flavor assignment; TASRecomputeAssignmentWithinSchedulingCycle enabled": {
			nodes: cohortNodes(), cqs: cohortCQs("a", "b"), lqs: cohortLQs(),
			pending: []*pwl{mkWl("a1", "default").queue("tas-lq-a").prio(2).podSets(one(1, "cpu", "2").topo(prefHost)),
				mkWl("b1", "default").queue("tas-lq-b").prio(1).podSets(one(1, "cpu", "2").topo(prefHost))},
			wantAssignments: map[string]string{"default/a1": "tas-cq-a one:1:cpu=tas-default", "default/b1": "tas-cq-b one:1:cpu=tas-default"},
			wantTopology:    map[string][]string{"default/a1": {hostIs("x1", 1)}, "default/b1": {hostIs("y1", 1)}},
		},
		// a1 (1 cpu) and b1 (3 pods of 1) both nominate x1 (3 cpu); after
		// a1, b1 is recomputed onto y1
		"two small workloads considered; there is only space for one of them on the initial node; TASRecomputeAssignmentWithinSchedulingCycle enabled": {
			nodes: cohortNodes(), cqs: cohortCQs("a", "b"), lqs: cohortLQs(),
			pending: []*pwl{mkWl("a1", "default").queue("tas-lq-a").prio(2).podSets(one(1, "cpu", "1").topo(prefHost)),
				mkWl("b1", "default").queue("tas-lq-b").prio(1).podSets(one(3, "cpu", "1").topo(prefHost))},
			wantAssignments: map[string]string{"default/a1": "tas-cq-a one:1:cpu=tas-default", "default/b1": "tas-cq-b one:3:cpu=tas-default"},
			wantTopology:    map[string][]string{"default/a1": {hostIs("x1", 1)}, "default/b1": {hostIs("y1", 3)}},
		},
		// a uses 8 cpu of its 4 (a1 5 on x1, a2 2 and a3 1 on y1),
		// borrowing 4 of b's; b1 (3 pods, priority 3) needs 3 back: a1, the
		// lowest priority, is enough (and frees x1)
		"reclaim within cohort; single workload is preempted out three candidates": {
			nodes: cohortNodes(), cqs: cohortCQs("a", "b"), lqs: cohortLQs(),
			admitted: []admittedWorkload{
				{mkWl("a1-admitted", "default").queue("tas-lq-a").prio(1).podSets(one(5, "cpu", "1").topo(reqHost)), cohortAdm("tas-cq-a", 5, "x1")},
				{mkWl("a2-admitted", "default").queue("tas-lq-a").prio(2).podSets(one(2, "cpu", "1").topo(reqHost)), cohortAdm("tas-cq-a", 2, "y1")},
				{mkWl("a3-admitted", "default").queue("tas-lq-a").prio(2).podSets(one(1, "cpu", "1").topo(reqHost)), cohortAdm("tas-cq-a", 1, "y1")}},
			pending: []*pwl{mkWl("b1", "default").queue("tas-lq-b").prio(3).podSets(one(3, "cpu", "1").topo(prefHost))},
			wantAssignments: map[string]string{"default/a1-admitted": "tas-cq-a one:5:cpu=tas-default",
				"default/a2-admitted": "tas-cq-a one:2:cpu=tas-default", "default/a3-admitted": "tas-cq-a one:1:cpu=tas-default"},
			wantLeft:      map[string][]string{"tas-cq-b": {"default/b1"}},
			wantPreempted: []string{"default/a1-admitted:InCohortReclamation"},
		},
		// y1 alone (5 cpu), a1-admitted holds 2. a2 (4 pods) fits its quota
		// but not y1, and has no target at its own priority; a reclaims
		// within the cohort (Any), so it reserves nothing: b1 takes y1's 3
		"preempting workload without targets doesn't reserve capacity when it can always reclaim": {
			nodes: []TASNode{snode("y1", 5, 3, 10)}, lqs: cohortLQs(),
			cqs: append([]ClusterQueue{mkCQ("tas-cq-a").cohort("tas-cohort-main").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority, ReclaimWithinCohort: PreemptAny}).
				groups(rg(fq("tas-default", res(cpu, "8", "0"), res(cluster.ResourceMemory, "4Gi", "0")))).obj()}, cohortCQs("b")...),
			admitted: []admittedWorkload{{mkWl("a1-admitted", "default").queue("tas-lq-a").prio(2).podSets(one(2, "cpu", "1").topo(reqHost)), cohortAdm("tas-cq-a", 2, "y1")}},
			pending: []*pwl{mkWl("a2", "default").queue("tas-lq-a").prio(2).podSets(one(4, "cpu", "1").topo(prefHost)),
				mkWl("b1", "default").queue("tas-lq-b").prio(1).podSets(one(3, "cpu", "1").topo(prefHost))},
			wantAssignments:  map[string]string{"default/a1-admitted": "tas-cq-a one:2:cpu=tas-default", "default/b1": "tas-cq-b one:3:cpu=tas-default"},
			wantTopology:     map[string][]string{"default/b1": {hostIs("y1", 3)}},
			wantInadmissible: map[string][]string{"tas-cq-a": {"default/a2"}},
			wantMessages:     map[string]string{"default/a2": `couldn't assign flavors to pod set one: topology "tas-single-level" allows to fit only 3 out of 4 pod(s)`},
		},
		// node-1 (flavor 1) and node-2 (flavor 2) of 8 cpu. a1 takes node-1
		// in tas-flavor-1. b1's quota fits tas-flavor-1 first, and the
		// topology is searched in the flavor the quota chose: once a1 holds
		// node-1, b1 no longer fits there, and is not moved to tas-flavor-2
		// (Kueue keeps a recomputed head to its nomination's flavors)
		"two flavors in cohort; re-evaluation is sticky and does not switch to second flavor; TASRecomputeAssignmentWithinSchedulingCycle enabled": {
			nodes: []TASNode{snode("node-1", 8, 0, 10, "tas-flavor", "f1"), snode("node-2", 8, 0, 10, "tas-flavor", "f2")}, lqs: cohortLQs(),
			flavors: []ResourceFlavor{{Name: "tas-flavor-1", NodeLabels: map[string]string{"tas-flavor": "f1"}, TopologyName: "tas-single-level"},
				{Name: "tas-flavor-2", NodeLabels: map[string]string{"tas-flavor": "f2"}, TopologyName: "tas-single-level"}},
			cqs: []ClusterQueue{mkCQ("tas-cq-a").cohort("tas-cohort-main").groups(rg(fq("tas-flavor-1", res(cpu, "8")))).obj(),
				mkCQ("tas-cq-b").cohort("tas-cohort-main").groups(rg(fq("tas-flavor-1", res(cpu, "8")), fq("tas-flavor-2", res(cpu, "8")))).obj()},
			pending: []*pwl{mkWl("a1", "default").queue("tas-lq-a").created(0).prio(10).podSets(one(1, "cpu", "8").topo(reqHost)),
				mkWl("b1", "default").queue("tas-lq-b").created(60).prio(5).podSets(one(1, "cpu", "8").topo(reqHost))},
			wantAssignments: map[string]string{"default/a1": "tas-cq-a one:1:cpu=tas-flavor-1"},
			wantTopology:    map[string][]string{"default/a1": {hostIs("node-1", 1)}},
			wantLeft:        map[string][]string{"tas-cq-b": {"default/b1"}},
		},
		// node-1 (1 cpu), node-2 and node-3 (2 cpu). a (2 cpu) and b (2
		// cpu, no borrowing, preempting lower priorities within itself).
		// b-low-admitted holds node-1 and 1 of b's quota. a1 and b1 (2 cpu
		// each); a1 (older) takes node-2; b1 must preempt b-low-admitted
		// for its quota, and does, waiting. (Kueue recomputes b1's stale
		// domains, node-2, to node-3 in the cycle; the model places a head
		// that must preempt on an empty topology only to check it could
		// fit, and gives it domains when it is admitted: the same outcome.)
		"workload with preemption target recomputes stale TAS assignment in cohort; TASRecomputeAssignmentWithinSchedulingCycle enabled": {
			nodes: []TASNode{snode("node-1", 1, 0, 10), snode("node-2", 2, 0, 10), snode("node-3", 2, 0, 10)}, lqs: cohortLQs(),
			cqs: []ClusterQueue{mkCQ("tas-cq-a").cohort("tas-cohort-main").groups(rg(fq("tas-default", res(cpu, "2")))).obj(),
				mkCQ("tas-cq-b").cohort("tas-cohort-main").preempt(Preemption{WithinClusterQueue: PreemptLowerPriority}).
					groups(rg(fq("tas-default", res(cpu, "2", "0")))).obj()},
			admitted: []admittedWorkload{{mkWl("b-low-admitted", "default").queue("tas-lq-b").prio(1).podSets(one(1, "cpu", "1").topo(reqHost)), cohortAdm("tas-cq-b", 1, "node-1")}},
			pending: []*pwl{mkWl("a1", "default").queue("tas-lq-a").created(0).prio(2).podSets(one(1, "cpu", "2").topo(prefHost)),
				mkWl("b1", "default").queue("tas-lq-b").created(60).prio(2).podSets(one(1, "cpu", "2").topo(prefHost))},
			wantAssignments: map[string]string{"default/a1": "tas-cq-a one:1:cpu=tas-default", "default/b-low-admitted": "tas-cq-b one:1:cpu=tas-default"},
			wantTopology:    map[string][]string{"default/a1": {hostIs("node-2", 1)}},
			wantLeft:        map[string][]string{"tas-cq-b": {"default/b1"}},
			wantPreempted:   []string{"default/b-low-admitted:InClusterQueue"},
			wantMessages: map[string]string{"default/b1": "couldn't assign flavors to pod set one: insufficient unused quota for cpu in flavor tas-default, 1 more needed. " +
				"Pending the preemption of 1 workload(s)"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) { runTASCycle(t, tc) })
	}
}

// cohortAdm is an admission in cq of one pod set "one" of count pods of 1
// cpu, all on host.
func cohortAdm(cq string, count int, host string) Admission {
	a := tasAdm("one", int32(count), []cluster.ResourceName{cpu}, host, count)
	a.ClusterQueue = cq
	return a
}
