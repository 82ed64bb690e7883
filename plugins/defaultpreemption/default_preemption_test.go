package defaultpreemption_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/plugins/defaultpreemption"
	"github.com/gangsim/gangsim/preemption"
)

// plainHandle is a framework.Handle that offers nothing of
// preemption.Handle.
type plainHandle struct{ fw.Handle }

// fakeHandle answers what PostFilter asks before it searches for victims;
// any other call panics on the nil preemption.Handle it embeds.
type fakeHandle struct {
	preemption.Handle
	snap      *cluster.Snapshot
	nominated map[cluster.PodKey]int // snapshot indexes
}

func (h fakeHandle) Snapshot() *cluster.Snapshot { return h.snap }

func (h fakeHandle) NominatedNode(pod cluster.PodKey) int {
	if i, ok := h.nominated[pod]; ok {
		return i
	}
	return -1
}

func (fakeHandle) PreFilter(*cluster.PodInfo) (*fw.CycleState, *fw.Status) {
	return fw.NewCycleState(), nil
}

func (fakeHandle) Units(int) []*preemption.Unit { return nil }

func TestNew(t *testing.T) {
	tests := []struct {
		name   string
		handle fw.Handle
		err    error
	}{
		{"no handle, as when a configuration is checked", nil, nil},
		{"a handle offering preemption.Handle", fakeHandle{}, nil},
		{"a handle lacking preemption.Handle", plainHandle{}, defaultpreemption.ErrHandle},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := defaultpreemption.New(nil, tt.handle)
			require.ErrorIs(t, err, tt.err)
			if tt.err != nil {
				require.Nil(t, p)
				return
			}
			require.IsType(t, &defaultpreemption.DefaultPreemption{}, p)
			require.Equal(t, defaultpreemption.Name, p.Name())
		})
	}
}

// PostFilter's eligibility rules, and its answer when no node can help. Node
// n1 holds "gone", of priority 1, terminating after an earlier preemption,
// and "peer", of priority 10; the preemptor "p" has priority 10 unless the
// case says otherwise.
func TestPostFilterNotEligible(t *testing.T) {
	c := cluster.NewCache()
	require.NoError(t, c.AddNode(gangsimtest.MakeNode("n1").CPU("4").Obj()))
	require.NoError(t, c.AddNode(gangsimtest.MakeNode("n2").CPU("4").Obj()))
	require.NoError(t, c.AddPod(gangsimtest.MakePod("gone").NodeName("n1").Priority(1).Obj()))
	require.NoError(t, c.AddPod(gangsimtest.MakePod("peer").NodeName("n1").Priority(10).Obj()))
	require.NoError(t, c.EvictPod(cluster.MakePodKey("", "gone"), 0))
	snap := c.Snapshot()

	reason := func(msg string) *fw.Status {
		return fw.NewStatus(fw.Unschedulable, msg).WithPlugin(defaultpreemption.Name)
	}
	never := reason("not eligible due to preemptionPolicy=Never.")
	waiting := reason("not eligible: victims of an earlier preemption are still terminating on the nominated node")
	noRoom := reason("preemption: no node where evicting lower-priority pods would help")
	rejected := func(code fw.Code) *fw.FitError {
		st := func(n int) fw.NodeStatus {
			return fw.NodeStatus{Node: n, Status: fw.NewStatus(code, "no").WithPlugin("X")}
		}
		return &fw.FitError{Pod: "default/p", NumAllNodes: 2, Statuses: []fw.NodeStatus{st(0), st(1)}}
	}
	p := func() *gangsimtest.PodWrapper { return gangsimtest.MakePod("p").Priority(10) }
	tests := []struct {
		name   string
		handle fw.Handle // nil: the plugin must not need one
		pod    *gangsimtest.PodWrapper
		fit    *fw.FitError
		want   *fw.PostFilterResult
		status *fw.Status
	}{
		{"policy Never: no preemption, the nomination stays", nil, p().PreemptionPolicy(cluster.PreemptNever), rejected(fw.Unschedulable), nil, never},
		{"nominated to n1 where a lower-priority victim still terminates: it waits, the nomination stays",
			fakeHandle{snap: snap, nominated: map[cluster.PodKey]int{"default/p": 0}}, p(), rejected(fw.Unschedulable), nil, waiting},
		{"policy Never before the wait", fakeHandle{snap: snap, nominated: map[cluster.PodKey]int{"default/p": 0}},
			p().PreemptionPolicy(cluster.PreemptNever), rejected(fw.Unschedulable), nil, never},
		{"the terminating pod is not below it: no wait; no pod below it anywhere: the nomination is cleared",
			fakeHandle{snap: snap, nominated: map[cluster.PodKey]int{"default/p": 0}}, p().Priority(1), rejected(fw.Unschedulable), &fw.PostFilterResult{}, noRoom},
		{"n1 no longer suits it at all: no wait; no node where eviction helps: the nomination is cleared",
			fakeHandle{snap: snap, nominated: map[cluster.PodKey]int{"default/p": 0}}, p(), rejected(fw.UnschedulableAndUnresolvable), &fw.PostFilterResult{}, noRoom},
		{"not nominated: no wait", fakeHandle{snap: snap}, p(), rejected(fw.UnschedulableAndUnresolvable), &fw.PostFilterResult{}, noRoom},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := defaultpreemption.NewDefaultPreemption(tt.handle)
			require.NoError(t, err)
			res, st := d.PostFilter(fw.NewCycleState(), cluster.NewPodInfo(tt.pod.Obj()), tt.fit)
			require.Equal(t, tt.status, st)
			require.Equal(t, tt.want, res)
		})
	}
}

// A group with policy Never, or with a pending member of policy Never, does
// not preempt; it is told so before the plugin needs its handle.
func TestPodGroupPostFilterNever(t *testing.T) {
	never := fw.NewStatus(fw.Unschedulable, "not eligible due to preemptionPolicy=Never.").WithPlugin(defaultpreemption.Name)
	member := func(w *gangsimtest.PodWrapper) *cluster.PodInfo {
		return cluster.NewPodInfo(w.Group("g").Priority(10).Obj())
	}
	tests := []struct {
		name    string
		group   *gangsimtest.PodGroupWrapper
		pending []*cluster.PodInfo
	}{
		{"the group's policy", gangsimtest.MakeGang("g", 2).Priority(10).PreemptionPolicy(cluster.PreemptNever),
			[]*cluster.PodInfo{member(gangsimtest.MakePod("a")), member(gangsimtest.MakePod("b"))}},
		{"a pending member's policy", gangsimtest.MakeGang("g", 2).Priority(10),
			[]*cluster.PodInfo{member(gangsimtest.MakePod("a")), member(gangsimtest.MakePod("b").PreemptionPolicy(cluster.PreemptNever))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := defaultpreemption.NewDefaultPreemption(nil)
			require.NoError(t, err)
			pg := tt.group.Obj()
			res, st := d.PodGroupPostFilter(&fw.Group{PodGroup: &pg, Pods: tt.pending}, tt.pending, nil)
			require.Equal(t, never, st)
			require.Nil(t, res)
		})
	}
}
