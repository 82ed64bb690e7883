package gangsimtest_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/gangsimtest"
)

func TestNodeInfo(t *testing.T) {
	t.Run("a node with its pods, as Filter sees it", func(t *testing.T) {
		ni := gangsimtest.NodeInfo(t, gangsimtest.MakeNode("n1").CPU("4"),
			gangsimtest.MakePod("a").CPU("1"), gangsimtest.MakePod("b").CPU("500m"))
		require.Equal(t, "n1", ni.Node().Name)
		require.Equal(t, 2, ni.PodCount())
		require.Equal(t, int64(1500), ni.Requested().MilliCPU)
	})
	t.Run("pods are bound to the node, wrappers unchanged", func(t *testing.T) {
		elsewhere := gangsimtest.MakePod("p").NodeName("other")
		ni := gangsimtest.NodeInfo(t, gangsimtest.MakeNode("n"), elsewhere)
		require.Equal(t, 1, ni.PodCount())
		require.Equal(t, "n", ni.PodList()[0].NodeName())
		require.Equal(t, "other", elsewhere.Obj().NodeName)
	})
	t.Run("a refused pod fails the test", func(t *testing.T) {
		r := &recorder{}
		dup := gangsimtest.MakePod("p")
		require.Nil(t, gangsimtest.NodeInfo(r, gangsimtest.MakeNode("n"), dup, dup))
		require.True(t, r.failed)
		require.Contains(t, r.msg, `pod "p"`)
	})
	t.Run("a refused node fails the test", func(t *testing.T) {
		r := &recorder{}
		require.Nil(t, gangsimtest.NodeInfo(r, gangsimtest.MakeNode("")))
		require.True(t, r.failed)
	})
}

func TestSnapshot(t *testing.T) {
	snap := gangsimtest.Snapshot(t, []*gangsimtest.NodeWrapper{gangsimtest.MakeNode("b").CPU("4"), gangsimtest.MakeNode("a").CPU("2")},
		gangsimtest.MakePod("p").CPU("1").NodeName("b"), gangsimtest.MakePod("q").CPU("1").NodeName("b"))
	require.Equal(t, 2, snap.Len())
	require.Equal(t, "a", snap.Node(0).Node().Name, "nodes in name order")
	require.Zero(t, snap.Node(0).PodCount())
	require.Equal(t, 2, snap.Node(1).PodCount(), "each pod on the node it names")

	var rec recorder
	require.Nil(t, gangsimtest.Snapshot(&rec, []*gangsimtest.NodeWrapper{gangsimtest.MakeNode("n")}, gangsimtest.MakePod("p").NodeName("missing")))
	require.True(t, rec.failed, "a pod on no node fails the test")
}
