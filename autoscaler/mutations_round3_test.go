package autoscaler

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A group of rackSize 2 fills each rack with 2 new nodes before it opens
// the next: 3 nodes are 2 in gpu-rack-1 and 1 in gpu-rack-2.
func TestRacksHoldRackSizeNodes(t *testing.T) {
	g := group("gpu", "4", 16)
	g.RackSize = 2
	w := newWorld(t, Config{}, g)
	w.addPods(3, "web", "3", 0)
	w.run()
	racks := map[string]string{}
	for i := 1; i <= 3; i++ {
		ni, ok := w.s.Node(fmt.Sprintf("gpu-%d", i))
		require.True(t, ok)
		racks[ni.Node().Name] = ni.Node().Labels["rack"]
	}
	require.Equal(t, map[string]string{"gpu-1": "gpu-rack-1", "gpu-2": "gpu-rack-1", "gpu-3": "gpu-rack-2"}, racks)
}

// A pod's wait for nodes counts each moment once: a scale-up that counted
// it while another, begun earlier and ending later, was on its way adds
// nothing, and spans that touch or overlap are joined.
func TestWaitForNodesCountsOverlapsOnce(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		name string
		reqs []*request
		want time.Duration
	}{
		{"one inside another", []*request{{0, 10 * s}, {2 * s, 5 * s}}, 10 * s},
		{"overlapping", []*request{{0, 4 * s}, {2 * s, 6 * s}}, 6 * s},
		{"apart", []*request{{0, 2 * s}, {5 * s, 6 * s}}, 3 * s},
		{"cut by the window", []*request{{-5 * s, 3 * s}, {1 * s, 2 * s}, {8 * s, 20 * s}}, 5 * s},
	} {
		require.Equal(t, tc.want, covered(tc.reqs, 0, 10*s), tc.name)
	}
}
