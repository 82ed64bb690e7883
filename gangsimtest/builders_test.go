package gangsimtest_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/podgroup"
)

const gi = int64(1) << 30

func TestMakeNode(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  *gangsimtest.NodeWrapper
		want cluster.Node
	}{
		{"room for 110 pods and nothing else", gangsimtest.MakeNode("n"),
			cluster.Node{Name: "n", Allocatable: cluster.NewResources(0, 0, 110)}},
		{"cpu and memory quantities", gangsimtest.MakeNode("n").CPU("7500m").Memory("32Gi"),
			cluster.Node{Name: "n", Allocatable: cluster.NewResources(7500, 32*gi, 110)}},
		{"millicores and pods", gangsimtest.MakeNode("n").MilliCPU(250).Pods(10),
			cluster.Node{Name: "n", Allocatable: cluster.NewResources(250, 0, 10)}},
		{"gpus and another resource", gangsimtest.MakeNode("n").GPU(2).Resource("example.com/fpga", "3"),
			cluster.Node{Name: "n", Allocatable: cluster.NewResources(0, 0, 110, cluster.Scalar{Name: "nvidia.com/gpu", Value: 2}, cluster.Scalar{Name: "example.com/fpga", Value: 3})}},
		{"rack, zone and a label", gangsimtest.MakeNode("n").Rack("r1").Zone("z1").Label("disk", "ssd"),
			cluster.Node{Name: "n", Allocatable: cluster.NewResources(0, 0, 110),
				Labels: map[string]string{"rack": "r1", "topology.kubernetes.io/zone": "z1", "disk": "ssd"}}},
		{"taints in order, cordoned", gangsimtest.MakeNode("n").Taint("gpu", "true", cluster.TaintNoSchedule).Taint("spot", "", cluster.TaintPreferNoSchedule).Unschedulable(),
			cluster.Node{Name: "n", Allocatable: cluster.NewResources(0, 0, 110), Unschedulable: true,
				Taints: []cluster.Taint{{Key: "gpu", Value: "true", Effect: cluster.TaintNoSchedule}, {Key: "spot", Effect: cluster.TaintPreferNoSchedule}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.got.Obj()
			require.Equal(t, tc.want, got)
			require.True(t, tc.want.Allocatable.Equal(got.Allocatable), "%v", got.Allocatable)
		})
	}
}

func TestMakePod(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  *gangsimtest.PodWrapper
		want cluster.Pod
	}{
		{"requests nothing, default namespace", gangsimtest.MakePod("p"), cluster.Pod{Name: "p"}},
		{"namespace and requests", gangsimtest.MakePod("p").Namespace("ml").CPU("500m").Memory("1Gi").GPU(1),
			cluster.Pod{Namespace: "ml", Name: "p", Requests: cluster.NewResources(500, gi, 0, cluster.Scalar{Name: "nvidia.com/gpu", Value: 1})}},
		{"millicores and another resource", gangsimtest.MakePod("p").MilliCPU(1500).Resource("example.com/fpga", "2"),
			cluster.Pod{Name: "p", Requests: cluster.NewResources(1500, 0, 0, cluster.Scalar{Name: "example.com/fpga", Value: 2})}},
		{"priority, class and policy", gangsimtest.MakePod("p").Priority(10).PriorityClass("high").PreemptionPolicy(cluster.PreemptNever),
			cluster.Pod{Name: "p", Priority: new(int32(10)), PriorityClassName: "high", PreemptionPolicy: cluster.PreemptNever}},
		{"labels, group, node selector", gangsimtest.MakePod("p").Label("app", "web").Label("tier", "1").Group("g").NodeSelector("disk", "ssd"),
			cluster.Pod{Name: "p", Labels: map[string]string{"app": "web", "tier": "1"}, PodGroup: "g", NodeSelector: map[string]string{"disk": "ssd"}}},
		{"toleration, node, scheduler", gangsimtest.MakePod("p").Toleration("gpu", "true", cluster.TaintNoSchedule).NodeName("n1").SchedulerName("packer"),
			cluster.Pod{Name: "p", NodeName: "n1", SchedulerName: "packer",
				Tolerations: []cluster.Toleration{{Key: "gpu", Operator: cluster.TolerationEqual, Value: "true", Effect: cluster.TaintNoSchedule}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.got.Obj()
			require.Equal(t, tc.want, got)
			require.True(t, tc.want.Requests.Equal(got.Requests), "%v", got.Requests)
			require.NoError(t, got.Validate())
		})
	}
}

// The toleration a pod builder adds is of the taint a node builder adds
// with the same arguments.
func TestTolerationMatchesTaint(t *testing.T) {
	taint := gangsimtest.MakeNode("n").Taint("gpu", "true", cluster.TaintNoSchedule).Obj().Taints[0]
	tol := gangsimtest.MakePod("p").Toleration("gpu", "true", cluster.TaintNoSchedule).Obj().Tolerations[0]
	require.True(t, tol.Tolerates(&taint))
}

func TestMakeGroups(t *testing.T) {
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"gang", gangsimtest.MakeGang("g", 4).Obj(), podgroup.PodGroup{Name: "g", Policy: podgroup.Gang, MinCount: 4}},
		{"basic group", gangsimtest.MakeBasicGroup("g").Obj(), podgroup.PodGroup{Name: "g", Policy: podgroup.Basic}},
		{"gang in a rack", gangsimtest.MakeGang("g", 2).Namespace("ml").Rack().Priority(10).PriorityClass("high").
			PreemptionPolicy(cluster.PreemptNever).DisruptAll().Parent("c").Obj(),
			podgroup.PodGroup{Namespace: "ml", Name: "g", Policy: podgroup.Gang, MinCount: 2, TopologyKey: "rack", Priority: new(int32(10)),
				PriorityClassName: "high", PreemptionPolicy: cluster.PreemptNever, DisruptionMode: podgroup.DisruptAll, Parent: "c"}},
		{"group in a zone", gangsimtest.MakeBasicGroup("g").Zone().Obj(),
			podgroup.PodGroup{Name: "g", Policy: podgroup.Basic, TopologyKey: "topology.kubernetes.io/zone"}},
		{"any topology key", gangsimtest.MakeBasicGroup("g").TopologyKey("block").Obj(),
			podgroup.PodGroup{Name: "g", Policy: podgroup.Basic, TopologyKey: "block"}},
		{"gang composite", gangsimtest.MakeComposite("c", 3).Obj(),
			podgroup.CompositePodGroup{Name: "c", Policy: podgroup.Gang, MinGroupCount: 3}},
		{"basic composite", gangsimtest.MakeBasicComposite("c").Obj(),
			podgroup.CompositePodGroup{Name: "c", Policy: podgroup.Basic}},
		{"composite in a zone", gangsimtest.MakeComposite("c", 2).Namespace("ml").Zone().Priority(5).DisruptAll().Parent("top").Obj(),
			podgroup.CompositePodGroup{Namespace: "ml", Name: "c", Policy: podgroup.Gang, MinGroupCount: 2, TopologyKey: "topology.kubernetes.io/zone",
				Priority: new(int32(5)), DisruptionMode: podgroup.DisruptAll, Parent: "top"}},
		{"composite in a rack", gangsimtest.MakeBasicComposite("c").Rack().Obj(),
			podgroup.CompositePodGroup{Name: "c", Policy: podgroup.Basic, TopologyKey: "rack"}},
		{"composite by any key", gangsimtest.MakeBasicComposite("c").TopologyKey("block").Obj(),
			podgroup.CompositePodGroup{Name: "c", Policy: podgroup.Basic, TopologyKey: "block"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, tc.got)
			switch g := tc.got.(type) {
			case podgroup.PodGroup:
				require.NoError(t, g.Validate())
			case podgroup.CompositePodGroup:
				require.NoError(t, g.Validate())
			}
		})
	}
}

// A malformed quantity panics when it is given, naming the object, the
// resource and the text.
func TestBadQuantityPanics(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func()
		want  string
	}{
		{"node cpu", func() { gangsimtest.MakeNode("n1").CPU("4x") },
			`gangsimtest: node "n1": cpu: cluster: invalid quantity: "4x" is not a valid quantity: unknown suffix "x"`},
		{"node memory", func() { gangsimtest.MakeNode("n1").Memory("-1Gi") },
			`gangsimtest: node "n1": memory: cluster: invalid quantity: "-1Gi" is not a valid quantity: negative quantities are not allowed`},
		{"pod cpu", func() { gangsimtest.MakePod("p").CPU("") },
			`gangsimtest: pod "p": cpu: cluster: invalid quantity: "" is not a valid quantity: empty`},
		{"pod resource", func() { gangsimtest.MakePod("p").Resource("example.com/fpga", "two") },
			`gangsimtest: pod "p": example.com/fpga: cluster: invalid quantity: "two" is not a valid quantity: no number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.PanicsWithValue(t, tc.want, tc.build)
		})
	}
}

// Obj returns a copy: changing the wrapper, or what Obj returned, changes
// nothing built before.
func TestObjIsACopy(t *testing.T) {
	nw := gangsimtest.MakeNode("n").Label("a", "1").Taint("k", "v", cluster.TaintNoSchedule)
	node := nw.Obj()
	nw.Label("a", "2").Taint("k2", "v", cluster.TaintNoSchedule)
	require.Equal(t, map[string]string{"a": "1"}, node.Labels)
	require.Len(t, node.Taints, 1)

	pw := gangsimtest.MakePod("p").Label("a", "1").NodeSelector("s", "1").Toleration("k", "v", cluster.TaintNoSchedule).Priority(1)
	pod := pw.Obj()
	*pod.Priority = 7
	pw.Label("a", "2").NodeSelector("s", "2").Toleration("k2", "v", cluster.TaintNoSchedule)
	again := pw.Obj()
	require.Equal(t, int32(1), *again.Priority)
	require.Equal(t, "1", pod.Labels["a"])
	require.Equal(t, "1", pod.NodeSelector["s"])
	require.Len(t, pod.Tolerations, 1)

	gw := gangsimtest.MakeGang("g", 1).Priority(3)
	g := gw.Obj()
	*g.Priority = 9
	require.Equal(t, int32(3), *gw.Obj().Priority)
	cw := gangsimtest.MakeComposite("c", 1).Priority(3)
	c := cw.Obj()
	*c.Priority = 9
	require.Equal(t, int32(3), *cw.Obj().Priority)
}
