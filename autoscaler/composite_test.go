package autoscaler

import (
	"fmt"
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
