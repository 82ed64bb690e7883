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
		require.Equal(t, "n", ni.PodList()[0].Pod().NodeName)
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
