package cluster

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A tentative node joins at the end, takes pods, and a rollback gives
// back the snapshot as it was: same nodes, versions, domains on use.
func TestSnapshotAddNodeRollback(t *testing.T) {
	c := NewCache()
	for _, name := range []string{"a", "b"} {
		require.NoError(t, c.AddNode(Node{Name: name, Labels: map[string]string{"zone": name}, Allocatable: NewResources(4000, 1<<30, 10)}))
	}
	s := c.Snapshot()
	setV, nodeV := s.NodeSetVersion(), s.NodeVersion()
	before := len(s.Domains("zone").Values)
	cp := s.Checkpoint()

	i, err := s.AddNode(Node{Name: "new", Labels: map[string]string{"zone": "z"}, Allocatable: NewResources(8000, 1<<30, 10)}, nil)
	require.NoError(t, err)
	require.Equal(t, 2, i)
	require.Equal(t, 3, s.Len())
	require.NotEqual(t, setV, s.NodeSetVersion())
	require.NotEqual(t, nodeV, s.NodeVersion())
	require.Len(t, s.Domains("zone").Values, before+1)
	_, err = s.AddNode(Node{Name: "a"}, nil)
	require.ErrorIs(t, err, ErrNodeExists)
	pi := NewPodInfo(Pod{Name: "p", Requests: NewResources(1000, 0, 0)})
	s.Reserve(pi, i)
	require.Equal(t, 1, s.Node(i).PodCount())

	s.Rollback(cp)
	require.Equal(t, 2, s.Len())
	_, ok := s.Index("new")
	require.False(t, ok)
	require.Equal(t, setV, s.NodeSetVersion())
	require.Equal(t, nodeV, s.NodeVersion())
	require.Len(t, s.Domains("zone").Values, before)
	require.NoError(t, c.UpdateSnapshot(s), "rolled back, the snapshot follows the cache again")

	// a second tentative node gets versions of its own
	_, err = s.AddNode(Node{Name: "new"}, nil)
	require.NoError(t, err)
	second := s.NodeSetVersion()
	s.Rollback(cp)
	_, err = s.AddNode(Node{Name: "new"}, nil)
	require.NoError(t, err)
	require.NotEqual(t, second, s.NodeSetVersion())
}
