package autoscaler

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	gt "github.com/gangsim/gangsim/gangsimtest"
)

// world is a scheduler with an autoscaler attached, for tests.
type world struct {
	t *testing.T
	s *gangsim.Scheduler
	a *Autoscaler
}

func newWorld(t *testing.T, cfg Config, groups ...NodeGroup) *world {
	t.Helper()
	a, err := New(cfg, groups, rand.New(rand.NewPCG(7, 7)))
	require.NoError(t, err)
	s, err := gangsim.New(gangsim.Config{CheckInvariants: true}, a.Attach())
	require.NoError(t, err)
	return &world{t: t, s: s, a: a}
}

// group is a node group of nodes with cpu cores and 16Gi, delay 2m.
func group(name string, cpu string, maxNodes int) NodeGroup {
	return NodeGroup{Name: name, Template: gt.MakeNode("t").CPU(cpu).Memory("16Gi").Pods(110).Obj(), Max: maxNodes,
		ProvisioningDelay: Delay{Fixed: 2 * time.Minute, Text: "2m"}, PricePerHour: 0.5}
}

// owned is a pod of a ReplicaSet.
func owned(w *gt.PodWrapper, rs string) cluster.Pod {
	p := w.Obj()
	p.Owner = &cluster.Owner{Kind: "ReplicaSet", Name: rs}
	return p
}

func (w *world) addPods(n int, prefix, cpu string, run time.Duration) {
	w.t.Helper()
	for i := range n {
		require.NoError(w.t, w.s.AddPod(owned(gt.MakePod(fmt.Sprintf("%s-%d", prefix, i)).CPU(cpu).Memory("1Gi"), prefix), run))
	}
}

func (w *world) run() time.Duration {
	w.t.Helper()
	end, err := Run(w.s, w.a)
	require.NoError(w.t, err)
	require.NoError(w.t, w.s.CheckInvariants())
	return end
}

// log renders the events one a line: "10s ScaleUp cpu [cpu-1 cpu-2] 4 pods".
func (w *world) log() string {
	var b strings.Builder
	for _, e := range w.a.Events() {
		fmt.Fprintf(&b, "%v %s %s %v", e.At, e.Kind, e.Group, e.Nodes)
		if len(e.Pods) > 0 {
			fmt.Fprintf(&b, " %d pods", len(e.Pods))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// stepToEnd runs a and s as Run does, one autoscaler wake-up at a time,
// and calls check after each with the index of the first event that step
// recorded, for tests that check the state between steps (at most 100,000).
func stepToEnd(t *testing.T, a *Autoscaler, s *gangsim.Scheduler, check func(firstEvent int)) {
	t.Helper()
	for steps := 0; ; steps++ {
		require.Less(t, steps, 100_000)
		next, ok := a.NextTime()
		if !ok {
			return
		}
		next = max(next, s.Now())
		require.NoError(t, s.RunUntil(next))
		before := len(a.events)
		require.NoError(t, a.Step(s, next))
		require.NoError(t, s.Settle())
		check(before)
	}
}
