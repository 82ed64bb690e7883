package interpodaffinity_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/plugins/interpodaffinity"
)

// The cases are kube-scheduler's filtering cases for the plugin, on one
// node (machine1, region r1, zone z11) unless a case says otherwise: which
// pod is accepted or rejected with which reason. The reasons are
// kube-scheduler's specific ones; it also adds a generic first reason
// ("node(s) didn't match pod affinity/anti-affinity rules") in older
// versions, which the model leaves out.
func TestFilter(t *testing.T) {
	affinityFails := fw.NewStatus(fw.UnschedulableAndUnresolvable, "node(s) didn't match pod affinity rules").WithPlugin(interpodaffinity.Name)
	antiFails := fw.NewStatus(fw.Unschedulable, "node(s) didn't match pod anti-affinity rules").WithPlugin(interpodaffinity.Name)
	existingAntiFails := fw.NewStatus(fw.Unschedulable, "node(s) didn't satisfy existing pods anti-affinity rules").WithPlugin(interpodaffinity.Name)

	machine1 := []*gangsimtest.NodeWrapper{node("machine1", "r1", "z11")}
	// the incoming pods: labelled service=securityscan or security=S1
	scan := func() cluster.Pod { return gangsimtest.MakePod("p").Label("service", "securityscan").Obj() }
	s1 := func() cluster.Pod { return gangsimtest.MakePod("p").Label("security", "S1").Obj() }
	// existing pods on a node
	existing := func(name, node string, labels ...string) cluster.Pod {
		w := gangsimtest.MakePod(name).NodeName(node)
		for i := 0; i+1 < len(labels); i += 2 {
			w = w.Label(labels[i], labels[i+1])
		}
		return w.Obj()
	}
	scanOn1 := []cluster.Pod{existing("e", "machine1", "service", "securityscan")}
	threeNodes := []*gangsimtest.NodeWrapper{node("node-a", "r1", "z1"), node("node-b", "r1", "z2"), node("node-c", "r2", "z3")}
	teams := []cluster.Namespace{{Name: "team-a", Labels: map[string]string{"team": "a"}}, {Name: "team-b", Labels: map[string]string{"team": "b"}}}
	tests := []struct {
		name  string
		world world
		pod   cluster.Pod
		want  map[string]*fw.Status // the rejected nodes
	}{
		{name: "a pod without terms on an empty node",
			world: world{nodes: machine1}, pod: gangsimtest.MakePod("p").Obj()},
		{name: "affinity In matching the existing pod in the region",
			world: world{nodes: machine1, pods: scanOn1},
			pod:   requireAffinity(s1(), term(regionKey, in("service", "securityscan", "value2"))),
		},
		{name: "affinity NotIn matching the existing pod",
			world: world{nodes: machine1, pods: scanOn1},
			pod:   requireAffinity(s1(), term(regionKey, notIn("service", "securityscan3", "value3"))),
		},
		{name: "affinity in another namespace than the existing pod's",
			world: world{nodes: machine1, pods: []cluster.Pod{gangsimtest.MakePod("e").Namespace("ns").NodeName("machine1").Label("service", "securityscan").Obj()}},
			pod:   requireAffinity(s1(), inNamespaces(term(regionKey, in("service", "securityscan", "value2")), "DiffNameSpace")),
			want:  map[string]*fw.Status{"machine1": affinityFails}},
		{name: "affinity whose selector matches no pod, nor the pod itself",
			world: world{nodes: machine1, pods: scanOn1},
			pod:   requireAffinity(scan(), term(regionKey, in("service", "antivirusscan", "value2"))),
			want:  map[string]*fw.Status{"machine1": affinityFails}},
		{name: "two affinity terms with several requirements each, all matching",
			world: world{nodes: machine1, pods: scanOn1},
			pod: requireAffinity(s1(),
				term(regionKey, and(exists("service"), &cluster.LabelSelector{MatchExpressions: []cluster.LabelRequirement{{Key: "wrongkey", Operator: cluster.LabelDoesNotExist}}})),
				term(regionKey, and(in("service", "securityscan"), notIn("service", "WrongValue")))),
		},
		{name: "requirements are ANDed: one fails, the node is rejected",
			world: world{nodes: machine1, pods: scanOn1},
			pod: requireAffinity(s1(),
				term(regionKey, exists("service")),
				term(regionKey, and(in("service", "securityscan2"), notIn("service", "WrongValue")))),
			want: map[string]*fw.Status{"machine1": affinityFails}},
		{name: "affinity, and anti-affinity on a key the node lacks",
			world: world{nodes: machine1, pods: scanOn1},
			pod: requireAnti(requireAffinity(s1(), term(regionKey, in("service", "securityscan", "value2"))),
				term("node", in("service", "antivirusscan", "value2"))),
		},
		{name: "affinity, anti-affinity and the existing pod's anti-affinity, on keys the node lacks or not selecting",
			world: world{nodes: machine1, pods: []cluster.Pod{requireAnti(existing("e", "machine1", "service", "securityscan"), term("node", in("service", "antivirusscan", "value2")))}},
			pod: requireAnti(requireAffinity(s1(), term(regionKey, in("service", "securityscan", "value2"))),
				term("node", in("service", "antivirusscan", "value2"))),
		},
		{name: "affinity holds, anti-affinity on the zone selects the existing pod",
			world: world{nodes: machine1, pods: scanOn1},
			pod: requireAnti(requireAffinity(s1(), term(regionKey, in("service", "securityscan", "value2"))),
				term(zoneKey, in("service", "securityscan", "value2"))),
			want: map[string]*fw.Status{"machine1": antiFails}},
		{name: "affinity and anti-affinity hold, the existing pod's anti-affinity on the zone selects the pod",
			world: world{nodes: machine1, pods: []cluster.Pod{requireAnti(existing("e", "machine1", "service", "securityscan"), term(zoneKey, in("service", "securityscan", "value2")))}},
			pod: requireAnti(requireAffinity(scan(), term(regionKey, in("service", "securityscan", "value2"))),
				term("node", in("service", "antivirusscan", "value2"))),
			want: map[string]*fw.Status{"machine1": existingAntiFails}},
		{name: "the pod's NotIn term does not match itself nor the existing pod",
			world: world{nodes: machine1, pods: scanOn1},
			pod:   requireAffinity(scan(), term(regionKey, notIn("service", "securityscan", "value2"))),
			want:  map[string]*fw.Status{"machine1": affinityFails}},
		{name: "a pod without terms, selected by the existing pod's anti-affinity",
			world: world{nodes: machine1, pods: []cluster.Pod{requireAnti(existing("e", "machine1", "service", "securityscan"), term(zoneKey, in("service", "securityscan", "value2")))}},
			pod:   scan(),
			want:  map[string]*fw.Status{"machine1": existingAntiFails}},
		{name: "a pod without terms, not selected by the existing pod's anti-affinity",
			world: world{nodes: machine1, pods: []cluster.Pod{requireAnti(existing("e", "machine1", "service", "securityscan"), term(zoneKey, notIn("service", "securityscan", "value2")))}},
			pod:   scan(),
		},
		{name: "both sides' anti-affinity select each other: the pod's own is reported",
			world: world{nodes: machine1, pods: []cluster.Pod{requireAnti(existing("e", "machine1", "security", "S1"), term(zoneKey, exists("security")))}},
			pod:   requireAnti(scan(), term(regionKey, exists("service")), term(regionKey, exists("security"))),
			want:  map[string]*fw.Status{"machine1": antiFails}},
		{name: "the existing pod's anti-affinity selects the pod, the pod's does not select it",
			world: world{nodes: machine1, pods: []cluster.Pod{requireAnti(existing("e", "machine1", "security", "S1"), term(zoneKey, exists("service")))}},
			pod:   requireAnti(scan(), term(zoneKey, exists("nothing"))),
			want:  map[string]*fw.Status{"machine1": existingAntiFails}},
		{name: "the existing pod's anti-affinity applies to pods of its namespace only",
			world: world{nodes: machine1, pods: []cluster.Pod{requireAnti(gangsimtest.MakePod("e").Namespace("other").NodeName("machine1").Obj(), term(zoneKey, exists("service")))}},
			pod:   scan(),
		},
		{name: "a terminating pod still counts for anti-affinity",
			world: world{nodes: machine1, pods: scanOn1, terminating: []string{"e"}},
			pod:   requireAnti(s1(), term(zoneKey, exists("service"))),
			want:  map[string]*fw.Status{"machine1": antiFails}},

		// the first pod of a group
		{name: "no pod matches anywhere, the pod matches its own terms: any node carrying the keys",
			world: world{nodes: append(machine1, gangsimtest.MakeNode("bare"))},
			pod:   requireAffinity(scan(), term(regionKey, exists("service"))),
			want:  map[string]*fw.Status{"bare": affinityFails}},
		{name: "a matching pod elsewhere: the pod's own match does not help",
			world: world{nodes: threeNodes, pods: []cluster.Pod{existing("e", "node-c", "service", "securityscan")}},
			pod:   requireAffinity(scan(), term(regionKey, exists("service"))),
			want:  map[string]*fw.Status{"node-a": affinityFails, "node-b": affinityFails}},
		{name: "no pod matches, the pod does not match its own terms",
			world: world{nodes: machine1},
			pod:   requireAffinity(s1(), term(regionKey, exists("service"))),
			want:  map[string]*fw.Status{"machine1": affinityFails}},

		// several nodes
		{name: "affinity to the region of the matching pod: node-a and node-b",
			world: world{nodes: threeNodes, pods: []cluster.Pod{existing("e", "node-b", "service", "securityscan")}},
			pod:   requireAffinity(s1(), term(regionKey, exists("service"))),
			want:  map[string]*fw.Status{"node-c": affinityFails}},
		{name: "two affinity terms need one pod matching both: two pods matching one each do not do",
			world: world{nodes: threeNodes, pods: []cluster.Pod{existing("e1", "node-a", "service", "securityscan"), existing("e2", "node-a", "security", "S1")}},
			pod:   requireAffinity(gangsimtest.MakePod("p").Obj(), term(regionKey, exists("service")), term(regionKey, exists("security"))),
			want:  map[string]*fw.Status{"node-a": affinityFails, "node-b": affinityFails, "node-c": affinityFails}},
		{name: "two affinity terms, one pod matching both",
			world: world{nodes: threeNodes, pods: []cluster.Pod{existing("e", "node-a", "service", "securityscan", "security", "S1")}},
			pod:   requireAffinity(gangsimtest.MakePod("p").Obj(), term(regionKey, exists("service")), term(zoneKey, exists("security"))),
			want:  map[string]*fw.Status{"node-b": affinityFails, "node-c": affinityFails}},
		{name: "anti-affinity on hostname: the node holding the selected pod",
			world: world{nodes: threeNodes, pods: []cluster.Pod{existing("e", "node-a", "service", "securityscan")}},
			pod:   requireAnti(s1(), term(hostKey, exists("service"))),
			want:  map[string]*fw.Status{"node-a": antiFails}},
		{name: "anti-affinity on region: both nodes of the region",
			world: world{nodes: threeNodes, pods: []cluster.Pod{existing("e", "node-a", "service", "securityscan")}},
			pod:   requireAnti(s1(), term(regionKey, exists("service"))),
			want:  map[string]*fw.Status{"node-a": antiFails, "node-b": antiFails}},
		{name: "the existing pod's anti-affinity on region: both nodes of its region",
			world: world{nodes: threeNodes, pods: []cluster.Pod{requireAnti(existing("e", "node-b", "security", "S1"), term(regionKey, exists("service")))}},
			pod:   scan(),
			want:  map[string]*fw.Status{"node-a": existingAntiFails, "node-b": existingAntiFails}},
		{name: "the existing pod's anti-affinity on a key its node lacks does not apply",
			world: world{nodes: []*gangsimtest.NodeWrapper{node("node-a", "", "z1"), node("node-b", "r1", "z1")},
				pods: []cluster.Pod{requireAnti(existing("e", "node-a", "security", "S1"), term(regionKey, exists("service")))}},
			pod: scan()},

		// namespaces
		{name: "namespace selector: the matching pod is in a selected namespace",
			world: world{nodes: threeNodes, namespaces: teams, pods: []cluster.Pod{gangsimtest.MakePod("e").Namespace("team-a").NodeName("node-c").Label("service", "x").Obj()}},
			pod:   requireAffinity(s1(), nsSelector(term(regionKey, exists("service")), in("team", "a"))),
			want:  map[string]*fw.Status{"node-a": affinityFails, "node-b": affinityFails}},
		{name: "namespace selector: the matching pod is in another namespace",
			world: world{nodes: threeNodes, namespaces: teams, pods: []cluster.Pod{gangsimtest.MakePod("e").Namespace("team-b").NodeName("node-c").Label("service", "x").Obj()}},
			pod:   requireAffinity(s1(), nsSelector(term(regionKey, exists("service")), in("team", "a"))),
			want:  map[string]*fw.Status{"node-a": affinityFails, "node-b": affinityFails, "node-c": affinityFails}},
		{name: "namespaces listed and selected: the union",
			world: world{nodes: threeNodes, namespaces: teams, pods: []cluster.Pod{
				gangsimtest.MakePod("e1").Namespace("team-b").NodeName("node-a").Label("service", "x").Obj(),
				gangsimtest.MakePod("e2").Namespace("listed").NodeName("node-c").Label("service", "x").Obj()}},
			pod:  requireAnti(s1(), nsSelector(inNamespaces(term(hostKey, exists("service")), "listed"), in("team", "b"))),
			want: map[string]*fw.Status{"node-a": antiFails, "node-c": antiFails}},
		{name: "an empty namespace selector selects every namespace",
			world: world{nodes: threeNodes, namespaces: teams, pods: []cluster.Pod{
				gangsimtest.MakePod("e1").Namespace("team-b").NodeName("node-a").Label("service", "x").Obj(),
				gangsimtest.MakePod("e2").Namespace("unlabelled").NodeName("node-c").Label("service", "x").Obj()}},
			pod:  requireAnti(s1(), nsSelector(term(hostKey, exists("service")), &cluster.LabelSelector{})),
			want: map[string]*fw.Status{"node-a": antiFails, "node-c": antiFails}},
		{name: "the existing pod's anti-affinity selects the pod's namespace by its labels",
			world: world{nodes: threeNodes, namespaces: teams, pods: []cluster.Pod{
				requireAnti(gangsimtest.MakePod("e").Namespace("team-b").NodeName("node-a").Obj(), nsSelector(term(hostKey, exists("service")), in("team", "a")))}},
			pod:  gangsimtest.MakePod("p").Namespace("team-a").Label("service", "x").Obj(),
			want: map[string]*fw.Status{"node-a": existingAntiFails}},
		{name: "the existing pod's anti-affinity does not select the pod's namespace",
			world: world{nodes: threeNodes, namespaces: teams, pods: []cluster.Pod{
				requireAnti(gangsimtest.MakePod("e").Namespace("team-b").NodeName("node-a").Obj(), nsSelector(term(hostKey, exists("service")), in("team", "a")))}},
			pod: gangsimtest.MakePod("p").Namespace("team-b").Label("service", "x").Obj()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := tt.world.snapshot(t)
			want := tt.want
			if want == nil {
				want = map[string]*fw.Status{}
			}
			require.Equal(t, want, gangsimtest.FilterAll(t, newPlugin(t, nil, snap), tt.pod, snap))
		})
	}
}
