package autoscaler

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	gt "github.com/gangsim/gangsim/gangsimtest"
)

// addMembers adds n pods of cpu cores to the PodGroup group.
func (w *world) addMembers(n int, group, cpu string) {
	w.t.Helper()
	for i := range n {
		require.NoError(w.t, w.s.AddPod(owned(gt.MakePod(fmt.Sprintf("%s-%d", group, i)).CPU(cpu).Memory("1Gi").Group(group), group), 0))
	}
}

// A CompositePodGroup needing both of its gangs, each of two pods of 3
// cpu, on nodes of 4 cpu: the scheduler places the hierarchy as one unit,
// so the autoscaler asks for its four nodes in one request, and every pod
// is bound once they are ready. (Gang by gang, the second gang's nodes
// came a scan later.)
func TestCompositeScaledUpAsOneRequest(t *testing.T) {
	w := newWorld(t, Config{}, group("cpu", "4", 8))
	require.NoError(t, w.s.AddCompositePodGroup(gt.MakeComposite("job", 2).Obj()))
	require.NoError(t, w.s.AddPodGroup(gt.MakeGang("a", 2).Parent("job").Obj()))
	require.NoError(t, w.s.AddPodGroup(gt.MakeGang("b", 2).Parent("job").Obj()))
	w.addMembers(2, "a", "3")
	w.addMembers(2, "b", "3")
	w.run()
	require.Equal(t, "10s ScaleUp cpu [cpu-1 cpu-2 cpu-3 cpu-4] 4 pods\n2m10s NodeReady cpu [cpu-1 cpu-2 cpu-3 cpu-4]\n", w.log())
	for p := range w.s.Pods() {
		require.Equal(t, gangsim.PhaseBound, p.Phase, p.Key)
	}
}

// oneChildTooBig is a CompositePodGroup of minGroupCount over a gang of
// two pods of 3 cpu and a basic group whose pod asks for 8, on nodes of 4
// cpu, run for a day.
func oneChildTooBig(t *testing.T, minGroupCount int32) *world {
	w := newWorld(t, Config{}, group("cpu", "4", 8))
	require.NoError(t, w.s.AddCompositePodGroup(gt.MakeComposite("job", minGroupCount).Obj()))
	require.NoError(t, w.s.AddPodGroup(gt.MakeGang("a", 2).Parent("job").Obj()))
	require.NoError(t, w.s.AddPodGroup(gt.MakeBasicGroup("b").Parent("job").Obj()))
	w.addMembers(2, "a", "3")
	w.addMembers(1, "b", "8")
	require.NoError(t, w.a.Advance(w.s, 24*time.Hour))
	return w
}

// The CompositePodGroup needs both children; one of them has a pod no
// template node can hold (8 cpu, nodes of 4). No node lets the scheduler
// place the hierarchy, so nothing is requested, and the autoscaler says
// why, naming the composite. (A node for the other child alone stood
// idle, was removed, and was added again, for ever.)
func TestCompositeNotScaledUpWhenItCannotBePlaced(t *testing.T) {
	w := oneChildTooBig(t, 2)
	require.Equal(t, "10s NoScaleUp  [] 3 pods\n", w.log())
	require.Contains(t, w.a.Events()[0].Reason, "composite pod group default/job cannot be placed")
}

// With minGroupCount 1 the composite needs either child: the one that
// fits gets its nodes, the other stays pending and is told so at each
// scan that looks again (after the request, and after the nodes came).
func TestCompositeScaledUpForTheChildrenItNeeds(t *testing.T) {
	w := oneChildTooBig(t, 1)
	require.Equal(t, "10s ScaleUp cpu [cpu-1 cpu-2] 2 pods\n10s NoScaleUp  [] 1 pods\n20s NoScaleUp  [] 1 pods\n"+
		"2m10s NodeReady cpu [cpu-1 cpu-2]\n2m20s NoScaleUp  [] 1 pods\n", w.log())
	require.Contains(t, w.a.Events()[2].Reason, "pod b-0 does not fit the template")
	for p := range w.s.Pods() {
		require.Equal(t, p.Key.Display() != "b-0", p.Phase == gangsim.PhaseBound, p.Key)
	}
}

// A hierarchy's scale-up asks only for the new nodes the scheduler's
// placement needs: a gang of two pods of 3 cpu, on a cluster with one
// empty node of 4 cpu, takes that node and one new one (packed alone, it
// would take two new nodes).
func TestCompositeScaledUpByWhatItsPlacementNeeds(t *testing.T) {
	w := newWorld(t, Config{}, group("cpu", "4", 8))
	require.NoError(t, w.s.AddNode(gt.MakeNode("n").CPU("4").Memory("16Gi").Pods(110).Obj()))
	require.NoError(t, w.s.AddCompositePodGroup(gt.MakeComposite("job", 1).Obj()))
	require.NoError(t, w.s.AddPodGroup(gt.MakeGang("a", 2).Parent("job").Obj()))
	w.addMembers(2, "a", "3")
	w.run()
	require.Equal(t, "10s ScaleUp cpu [cpu-1] 2 pods\n2m10s NodeReady cpu [cpu-1]\n"+
		"2m20s NodeUnneeded cpu [cpu-1]\n2m30s NodeNeeded cpu [cpu-1]\n", w.log()) // the gang waits out its backoff
	nodes := map[string]bool{}
	for p := range w.s.Pods() {
		require.Equal(t, gangsim.PhaseBound, p.Phase, p.Key)
		nodes[p.Node] = true
	}
	require.Equal(t, map[string]bool{"n": true, "cpu-1": true}, nodes)
}

// A child that comes while the nodes of another are on the way: its pod
// gets a node of its own (at the scan after the hierarchy's next attempt,
// the root being in backoff), and the pods already provided for are
// counted once, on the nodes on the way, not again beside it.
func TestCompositeChildAddedWhileNodesAreOnTheWay(t *testing.T) {
	w := newWorld(t, Config{}, group("cpu", "4", 8))
	require.NoError(t, w.s.AddCompositePodGroup(gt.MakeComposite("job", 1).Obj()))
	require.NoError(t, w.s.AddPodGroup(gt.MakeGang("a", 2).Parent("job").Obj()))
	require.NoError(t, w.s.AddPodGroup(gt.MakeBasicGroup("b").Parent("job").Obj()))
	w.addMembers(2, "a", "3")
	require.NoError(t, w.a.Advance(w.s, time.Minute))
	w.addMembers(1, "b", "3")
	w.run()
	require.Equal(t, "10s ScaleUp cpu [cpu-1 cpu-2] 2 pods\n1m20s ScaleUp cpu [cpu-3] 1 pods\n"+
		"2m10s NodeReady cpu [cpu-1 cpu-2]\n3m20s NodeReady cpu [cpu-3]\n", w.log())
	for p := range w.s.Pods() {
		require.Equal(t, gangsim.PhaseBound, p.Phase, p.Key)
	}
}

// A hierarchy's new nodes start a rack, as a gang's do: after one
// hierarchy took one node of a rack of two, another whose gang needs two
// nodes in one rack gets a new rack (packed into the rest of the first,
// its nodes would straddle two racks, which its placement refuses).
func TestCompositeScaledUpInANewRack(t *testing.T) {
	g := group("cpu", "4", 8)
	g.RackSize = 2
	w := newWorld(t, Config{}, g)
	for _, job := range []struct {
		name string
		pods int
	}{{"one", 1}, {"two", 2}} {
		require.NoError(t, w.s.AddCompositePodGroup(gt.MakeComposite(job.name, 1).Obj()))
		require.NoError(t, w.s.AddPodGroup(gt.MakeGang(job.name+"-g", int32(job.pods)).Rack().Parent(job.name).Obj()))
		w.addMembers(job.pods, job.name+"-g", "3")
		require.NoError(t, w.a.Advance(w.s, w.s.Now()+time.Minute))
	}
	w.run()
	require.Equal(t, "10s ScaleUp cpu [cpu-1] 1 pods\n1m10s ScaleUp cpu [cpu-2 cpu-3] 2 pods\n", strings.Join(strings.SplitAfter(w.log(), "\n")[:2], ""))
	for p := range w.s.Pods() {
		require.Equal(t, gangsim.PhaseBound, p.Phase, p.Key)
	}
	for node, rack := range map[string]string{"cpu-1": "cpu-rack-1", "cpu-2": "cpu-rack-2", "cpu-3": "cpu-rack-2"} {
		ni, ok := w.s.Node(node)
		require.True(t, ok)
		require.Equal(t, rack, ni.Node().Labels["rack"], node)
	}
}
