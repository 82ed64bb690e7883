package cluster

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// nodeState is what a node holds, for comparison: its pods in order, what
// they request, its device accounts.
type nodeState struct {
	pods      []PodKey
	requested Resources
	devices   deviceState
}

func stateOf(snap *Snapshot) []nodeState {
	out := make([]nodeState, snap.Len())
	for i := range out {
		ni := snap.Node(i)
		for p := range ni.Pods() {
			out[i].pods = append(out[i].pods, p.Key())
		}
		out[i].requested, out[i].devices = ni.Requested(), devicesOf(ni)
	}
	return out
}

// The changes made after a checkpoint, listed oldest first, are
// TentativeChanges reversed; rolled back and replayed, they give the
// snapshot back exactly what it held, pods in order and claims with their
// devices, and list the same changes again.
func TestReplayGivesBackTheChanges(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 9))
		c := NewCache()
		for i := range 3 {
			require.NoError(t, c.AddNode(Node{Name: fmt.Sprintf("n%d", i), Allocatable: NewResources(8000, 8<<30, 110)}))
		}
		require.NoError(t, c.ReserveClaim("n0", "default/bound", gpuAlloc("n0", []int{0}, false)))
		snap := c.Snapshot()
		snap.Reserve(NewPodInfo(Pod{Name: "before", Requests: NewResources(100, 0, 0)}), 1) // made before the checkpoint
		cp := snap.Checkpoint()
		var placed []struct {
			key  PodKey
			node int
		}
		for step := range 1 + r.IntN(20) {
			node := r.IntN(3)
			switch op := r.IntN(4); {
			case op == 0:
				reserveRandomClaim(t, r, snap, node, 4)
			case op == 1:
				unreserveRandomClaim(t, r, snap, node)
			case op == 2 && len(placed) > 0:
				k := r.IntN(len(placed))
				require.NoError(t, snap.Remove(placed[k].key, placed[k].node))
				placed = slices.Delete(placed, k, k+1)
			default:
				pi := NewPodInfo(Pod{Name: fmt.Sprintf("p%d", step), Requests: NewResources(int64(100+step), 0, 0)})
				snap.Reserve(pi, node)
				placed = append(placed, struct {
					key  PodKey
					node int
				}{pi.Key(), node})
			}
		}
		want := stateOf(snap)
		changes := snap.AppendChanges(nil, cp)
		newest := slices.Collect(snap.TentativeChanges(cp))
		slices.Reverse(newest)
		require.Equal(t, newest, changes, "seed %d: oldest first, TentativeChanges reversed", seed)
		snap.Rollback(cp)
		require.NoError(t, snap.Replay(changes), "seed %d", seed)
		require.Equal(t, want, stateOf(snap), "seed %d: replayed", seed)
		require.Equal(t, changes, snap.AppendChanges(nil, cp), "seed %d: the same changes again", seed)
		checkClaimIndex(t, snap, seed)
		snap.Rollback(0)
		require.Zero(t, snap.Tentative())
	}
}

// A change that cannot be made stops the replay with an error.
func TestReplayRefusesAnImpossibleChange(t *testing.T) {
	c := NewCache()
	require.NoError(t, c.AddNode(Node{Name: "n0", Allocatable: NewResources(8000, 8<<30, 110)}))
	snap := c.Snapshot()
	require.ErrorIs(t, snap.Replay([]Change{{Claim: "default/c", Node: 0, Added: true}}), ErrClaim, "a first reservation needs its allocation")
	require.ErrorIs(t, snap.Replay([]Change{{Pod: NewPodInfo(Pod{Name: "p"}), Node: 0}}), ErrPodNotFound)
}
