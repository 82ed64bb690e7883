package framework_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	fw "github.com/gangsim/gangsim/framework"
)

type counter struct{ n int }

func (c *counter) Clone() fw.StateData { return &counter{c.n} }

func TestCycleStateCloneIsDeep(t *testing.T) {
	s := fw.NewCycleState()
	s.Write("a", &counter{1})
	s.SetSkipped(1, 3, true)
	cp := s.Clone()
	d, _ := cp.Read("a")
	d.(*counter).n = 5
	orig, _ := s.Read("a")
	require.Equal(t, 1, orig.(*counter).n, "changing the clone leaves the original")
	require.True(t, cp.Skipped(1))
	require.False(t, cp.Skipped(0))
	s.Write("a", &counter{2})
	again, _ := s.Read("a")
	require.Equal(t, 2, again.(*counter).n, "Write replaces")
	s.Reset()
	_, ok := s.Read("a")
	require.False(t, ok)
	require.False(t, s.Skipped(1))
}

func TestFitErrorDiagnosis(t *testing.T) {
	cpu := fw.NewStatus(fw.Unschedulable, "Insufficient cpu").WithPlugin("NodeResourcesFit")
	both := fw.NewStatus(fw.Unschedulable, "Insufficient cpu", "Insufficient memory").WithPlugin("NodeResourcesFit")
	taint := fw.NewStatus(fw.UnschedulableAndUnresolvable, "node(s) had untolerated taint(s)").WithPlugin("TaintToleration")
	e := &fw.FitError{NumAllNodes: 4, Statuses: []fw.NodeStatus{{0, cpu}, {1, taint}, {2, both}, {3, cpu}}}
	require.Equal(t, []fw.PluginRejections{
		{Plugin: "NodeResourcesFit", Nodes: 3, Reasons: []fw.ReasonCount{{"Insufficient cpu", 3}, {"Insufficient memory", 1}}},
		{Plugin: "TaintToleration", Nodes: 1, Reasons: []fw.ReasonCount{{"node(s) had untolerated taint(s)", 1}}},
	}, e.Diagnosis())
	require.Equal(t, []int{0, 2, 3}, e.Resolvable())
	require.Equal(t, taint, e.StatusOf(1))
	require.Nil(t, e.StatusOf(7))
	require.Equal(t, "0/4 nodes are available: 1 Insufficient memory, 1 node(s) had untolerated taint(s), 3 Insufficient cpu.", e.Error())
}

func TestStatus(t *testing.T) {
	var ok *fw.Status
	require.True(t, ok.IsSuccess())
	require.Equal(t, "Success", ok.String())
	require.Nil(t, ok.AsError())
	st := fw.NewStatus(fw.Unschedulable, "a", "b")
	named := st.WithPlugin("P")
	require.Equal(t, "", st.Plugin(), "WithPlugin copies")
	require.Equal(t, "P", named.Plugin())
	require.Equal(t, "a, b", named.AsError().Error())
	require.True(t, fw.NewStatus(fw.Skip).IsSkip())
	require.True(t, st.IsRejected())
}

// A FitError made for another pod by For says what the original says, and
// shares its statuses; Plugins lists each rejecting plugin once, in order.
func TestFitErrorFor(t *testing.T) {
	fit := &fw.FitError{Pod: "ns/a", NumAllNodes: 3, Statuses: []fw.NodeStatus{
		{Node: 0, Status: fw.NewStatus(fw.Unschedulable, "Insufficient cpu").WithPlugin("NodeResourcesFit")},
		{Node: 1, Status: fw.NewStatus(fw.UnschedulableAndUnresolvable, "node(s) didn't match Pod's node affinity/selector").WithPlugin("NodeAffinity")},
		{Node: 2, Status: fw.NewStatus(fw.Unschedulable, "Insufficient cpu").WithPlugin("NodeResourcesFit")},
	}}
	msg, resolvable, plugins := fit.Error(), fit.Resolvable(), fit.Plugins()
	require.Equal(t, []int{0, 2}, resolvable)
	require.Equal(t, []string{"NodeAffinity", "NodeResourcesFit"}, plugins)
	other := fit.For("ns/b")
	require.EqualValues(t, "ns/b", other.Pod)
	require.Equal(t, msg, other.Error())
	require.Equal(t, resolvable, other.Resolvable())
	require.Equal(t, plugins, other.Plugins())
	require.Same(t, &fit.Statuses[0], &other.Statuses[0])
	require.Equal(t, msg, fit.Error(), "the original is unchanged")
}
