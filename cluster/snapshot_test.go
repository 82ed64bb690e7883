package cluster

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// threeNodes is a cache with nodes a, b and c, two pods on b.
func threeNodes(t *testing.T) *Cache {
	t.Helper()
	c := NewCache()
	for _, name := range []string{"c", "a", "b"} {
		require.NoError(t, c.AddNode(node(name).cpu(4).mem(8*gi).gpus(4).label("name", name).obj()))
	}
	require.NoError(t, c.AddPod(pod("b1").milli(100).gpus(1).label("app", "web").on("b").obj()))
	require.NoError(t, c.AssumePod(pod("b2").milli(200).label("app", "web").info(), "b"))
	require.NoError(t, c.AddBudget(pdb("web").match("app", "web").min(count(0)).obj()))
	return c
}

func nodeNames(s *Snapshot) []string {
	var names []string
	for _, ni := range s.Nodes() {
		names = append(names, ni.Name())
	}
	return names
}

func pointers(s *Snapshot) []*NodeInfo {
	var out []*NodeInfo
	for _, ni := range s.Nodes() {
		out = append(out, ni)
	}
	return out
}

func TestSnapshotIsolation(t *testing.T) {
	c := threeNodes(t)
	s := c.Snapshot()
	checkSnapshot(t, c, s)
	before := snapshotNodes(s)
	budgets := collectBudgets(s.Budgets())
	budgetCopy := *budgets[0].Budget
	gen, nsv := s.Generation(), s.NodeSetVersion()
	requested := s.Node(1).Requested()

	mutations := []func() error{
		func() error { return c.AssumePod(pod("a1").milli(500).gpus(1).info(), "a") },
		func() error { return c.AddPod(pod("b3").gpus(2).label("app", "web").on("b").obj()) },
		func() error { return c.FinishBinding("default/b2", time.Second) },
		func() error { return c.EvictPod("default/b1", time.Second) },
		func() error { _, err := c.RemovePod("default/b1"); return err },
		func() error { return c.UpdateNode(node("c").cpu(1).label("name", "changed").obj()) },
		func() error { return c.AddNode(node("d").obj()) },
		func() error { _, err := c.RemoveNode("a"); return err },
		func() error { return c.AddBudget(pdb("other").match("x", "y").min(count(1)).obj()) },
		func() error { return c.RemoveBudget("default/web") },
	}
	for i, m := range mutations {
		require.NoError(t, m(), "mutation %d", i)
		assert.Equal(t, before, snapshotNodes(s), "mutation %d changed the snapshot", i)
	}
	assert.Equal(t, []string{"a", "b", "c"}, nodeNames(s))
	assert.Equal(t, gen, s.Generation())
	assert.Equal(t, nsv, s.NodeSetVersion())
	assert.Equal(t, budgets, collectBudgets(s.Budgets()))
	assert.Equal(t, budgetCopy, *budgets[0].Budget)
	assert.Equal(t, NewResources(300, 0, 2, gpu(1)), requested)

	require.NoError(t, c.UpdateSnapshot(s))
	checkSnapshot(t, c, s)
	assert.Equal(t, []string{"b", "c", "d"}, nodeNames(s))
}

func TestSnapshotBudgetsAreCopies(t *testing.T) {
	c := threeNodes(t)
	s := c.Snapshot()
	for b := range s.Budgets() {
		b.Budget.Name = "renamed"
	}
	for b := range c.Budgets() {
		assert.Equal(t, "web", b.Budget.Name, "changing a snapshot's budget changed the cache")
	}
	s = c.Snapshot()
	require.NoError(t, c.FinishBinding("default/b2", time.Second))
	assert.Equal(t, 1, collectBudgets(s.Budgets())[0].Allowed)
	require.NoError(t, c.UpdateSnapshot(s))
	assert.Equal(t, 2, collectBudgets(s.Budgets())[0].Allowed)
	checkSnapshot(t, c, s)
}

func TestUpdateSnapshotCopiesOnlyChangedNodes(t *testing.T) {
	c := threeNodes(t)
	s := c.Snapshot()
	old := pointers(s)
	oldB := old[1].clone()

	budgets := collectBudgets(s.Budgets())
	require.NoError(t, c.UpdateSnapshot(s))
	assert.Equal(t, old, pointers(s), "no change, no copy")
	assert.Same(t, budgets[0].Budget, collectBudgets(s.Budgets())[0].Budget, "budgets unchanged, not copied")

	require.NoError(t, c.AssumePod(pod("x").milli(1).info(), "b"))
	require.NoError(t, c.ForgetPod("default/x"))
	require.NoError(t, c.AddPod(pod("y").on("b").obj()))
	require.NoError(t, c.UpdateSnapshot(s))
	now := pointers(s)
	assert.Same(t, old[0], now[0], "unchanged node a copied")
	assert.Same(t, old[2], now[2], "unchanged node c copied")
	assert.Same(t, old[1], now[1], "changed node b: the snapshot's own copy is brought up to date in place")
	assert.NotEqual(t, oldB, now[1], "changed node b not copied")
	assert.Equal(t, []PodKey{"default/b1", "default/b2", "default/y"}, podKeys(now[1]))
	cached, _ := c.Node("b")
	assert.NotSame(t, cached, now[1], "the snapshot shares its copy with the cache")
	require.NoError(t, c.AddPod(pod("z").on("b").obj()))
	assert.Equal(t, []PodKey{"default/b1", "default/b2", "default/y"}, podKeys(now[1]), "a cache change reached the snapshot before UpdateSnapshot")
	require.NoError(t, c.UpdateSnapshot(s))
	assert.Equal(t, []PodKey{"default/b1", "default/b2", "default/y", "default/z"}, podKeys(now[1]))
	checkSnapshot(t, c, s)

	// Budget-only changes copy no node.
	require.NoError(t, c.AddBudget(pdb("more").match("app", "web").min(count(1)).obj()))
	require.NoError(t, c.UpdateSnapshot(s))
	assert.Equal(t, now, pointers(s))
	checkSnapshot(t, c, s)
}

func TestUpdateSnapshotNodeSetChanges(t *testing.T) {
	c := threeNodes(t)
	s := c.Snapshot()
	old := pointers(s)
	nsv := s.NodeSetVersion()

	require.NoError(t, c.AddNode(node("ab").obj()))
	require.NoError(t, c.UpdateSnapshot(s))
	assert.Equal(t, []string{"a", "ab", "b", "c"}, nodeNames(s))
	assert.NotEqual(t, nsv, s.NodeSetVersion())
	now := pointers(s)
	assert.Same(t, old[0], now[0])
	assert.Same(t, old[1], now[2], "unchanged nodes keep their copies across a rebuild")
	assert.Same(t, old[2], now[3])
	i, ok := s.Index("b")
	require.True(t, ok)
	assert.Equal(t, 2, i)
	checkSnapshot(t, c, s)

	nsv = s.NodeSetVersion()
	_, err := c.RemoveNode("a")
	require.NoError(t, err)
	require.NoError(t, c.AddPod(pod("c1").on("c").obj()))
	require.NoError(t, c.UpdateSnapshot(s))
	assert.Equal(t, []string{"ab", "b", "c"}, nodeNames(s))
	assert.NotEqual(t, nsv, s.NodeSetVersion())
	_, ok = s.Index("a")
	assert.False(t, ok)
	_, ok = s.NodeInfo("a")
	assert.False(t, ok)
	assert.Same(t, now[2], s.Node(1))
	assert.NotSame(t, now[3], s.Node(2), "node c changed with the node set")
	checkSnapshot(t, c, s)

	// A node removed and added again under its name is a new node.
	_, err = c.RemoveNode("b")
	require.NoError(t, err)
	require.NoError(t, c.AddNode(node("b").cpu(1).obj()))
	require.NoError(t, c.UpdateSnapshot(s))
	b, ok := s.NodeInfo("b")
	require.True(t, ok)
	assert.Zero(t, b.PodCount())
	assert.Equal(t, int64(1000), b.Allocatable().MilliCPU)
	checkSnapshot(t, c, s)

	// A fresh snapshot and the incrementally updated one agree.
	assert.Equal(t, snapshotNodes(c.Snapshot()), snapshotNodes(s))
}

func TestSnapshotNameOrder(t *testing.T) {
	c := NewCache()
	names := []string{"n07", "n03", "n10", "n01", "n05", "n02", "n09", "n04", "n08", "n06"}
	for _, n := range names {
		require.NoError(t, c.AddNode(node(n).obj()))
	}
	s := c.Snapshot()
	assert.Equal(t, []string{"n01", "n02", "n03", "n04", "n05", "n06", "n07", "n08", "n09", "n10"}, nodeNames(s))
	for i, ni := range s.Nodes() {
		j, ok := s.Index(ni.Name())
		require.True(t, ok)
		assert.Equal(t, i, j)
		byName, _ := s.NodeInfo(ni.Name())
		assert.Same(t, ni, byName)
	}
	assert.Equal(t, 10, s.Len())
	for range s.Nodes() {
		break
	}
}

func TestUpdateSnapshotRefusesWhileTentative(t *testing.T) {
	c := threeNodes(t)
	s := c.Snapshot()
	s.Reserve(pod("r").info(), 0)
	require.NoError(t, c.AddPod(pod("new").on("c").obj()))
	before := snapshotNodes(s)
	gen := s.Generation()

	err := c.UpdateSnapshot(s)
	require.ErrorIs(t, err, ErrTentative)
	assert.Contains(t, err.Error(), "1 not rolled back")
	assert.Equal(t, before, snapshotNodes(s), "a refused update changed the snapshot")
	assert.Equal(t, gen, s.Generation())

	s.Rollback(0)
	require.NoError(t, c.UpdateSnapshot(s))
	checkSnapshot(t, c, s)
}

func TestSnapshotReserveRemoveRollback(t *testing.T) {
	c := threeNodes(t)
	require.NoError(t, c.AddPod(pod("b3").milli(300).on("b").obj()))
	s := c.Snapshot()
	start := snapshotNodes(s)
	gen := s.Node(1).Generation()
	a, b := 0, 1

	cp0 := s.Checkpoint()
	s.Reserve(pod("r1").milli(1000).gpus(2).info(), a)
	require.NoError(t, s.Remove("default/b2", b)) // from the middle
	assert.Equal(t, []PodKey{"default/b1", "default/b3"}, podKeys(s.Node(b)))
	assert.Equal(t, NewResources(1000, 0, 1, gpu(2)), s.Node(a).Requested())
	assert.Equal(t, NewResources(400, 0, 2, gpu(1)), s.Node(b).Requested())
	assert.Equal(t, gen, s.Node(b).Generation(), "tentative changes keep the generation")
	assert.Equal(t, 2, s.Tentative())
	checkAccounting(t, s)
	mid := snapshotNodes(s)

	cp1 := s.Checkpoint()
	s.Reserve(pod("r2").gpus(1).info(), b)
	require.NoError(t, s.Remove("default/b1", b))
	require.NoError(t, s.Remove("default/r1", a))
	s.Reserve(pod("r3").info(), a)
	checkAccounting(t, s)

	cp2 := s.Checkpoint()
	require.NoError(t, s.Remove("default/r3", a))
	s.Rollback(cp2)
	assert.Equal(t, []PodKey{"default/r3"}, podKeys(s.Node(a)))

	s.Rollback(cp1)
	assert.Equal(t, mid, snapshotNodes(s), "rollback to the inner checkpoint")
	assert.Equal(t, 2, s.Tentative())
	s.Rollback(cp1) // idempotent
	assert.Equal(t, mid, snapshotNodes(s))

	s.Rollback(cp0)
	assert.Equal(t, start, snapshotNodes(s), "rollback to the outer checkpoint")
	assert.Zero(t, s.Tentative())
	checkSnapshot(t, c, s)
}

func TestSnapshotRemoveUnknownPod(t *testing.T) {
	c := threeNodes(t)
	s := c.Snapshot()
	before := snapshotNodes(s)
	err := s.Remove("default/b1", 0) // b1 is on b, not a
	require.ErrorIs(t, err, ErrPodNotFound)
	assert.Contains(t, err.Error(), "default/b1")
	assert.Contains(t, err.Error(), `"a"`)
	assert.Zero(t, s.Tentative(), "a failed Remove is not logged")
	assert.Equal(t, before, snapshotNodes(s))
}

// TestSnapshotReserveDoesNotLeakIntoValues checks that Requested values
// read before a tentative change keep their amounts after it and after
// the rollback.
func TestSnapshotReserveDoesNotLeakIntoValues(t *testing.T) {
	c := threeNodes(t)
	s := c.Snapshot()
	b := s.Node(1)
	before := b.Requested()
	free := b.Allocatable().Sub(before)
	want, wantFree := deepCopy(before), deepCopy(free)
	cp := s.Checkpoint()
	s.Reserve(pod("r").gpus(1).info(), 1)
	assert.Equal(t, want, before)
	assert.Equal(t, wantFree, free)
	during := b.Requested()
	s.Rollback(cp)
	assert.Equal(t, int64(2), during.Get(gpuName))
	assert.Equal(t, want, b.Requested())
}

// checkAccounting verifies each snapshot node's totals against its pods.
func checkAccounting(t *testing.T, s *Snapshot) {
	t.Helper()
	for _, ni := range s.Nodes() {
		var sum Resources
		var prios []priorityCount
		for pi := range ni.Pods() {
			sum = sum.Add(pi.Request())
			addPriority(&prios, pi.Priority(), 1)
		}
		require.Equal(t, sum, ni.Requested(), "node %s", ni.Name())
		require.Equal(t, prios, ni.priorities, "node %s", ni.Name())
	}
}

func TestSnapshotEmptyCache(t *testing.T) {
	c := NewCache()
	s := c.Snapshot()
	assert.Zero(t, s.Len())
	assert.Empty(t, collectBudgets(s.Budgets()))
	require.NoError(t, c.AddNode(node("n").obj()))
	require.NoError(t, c.UpdateSnapshot(s))
	assert.Equal(t, 1, s.Len())
	checkSnapshot(t, c, s)
	assert.Equal(t, fmt.Sprint([]string{"n"}), fmt.Sprint(nodeNames(s)))
}

// TestUpdateSnapshotAllocsIndependentOfSize guards the O(changed nodes)
// refresh: one changed node costs the same allocations at any size.
func TestUpdateSnapshotAllocsIndependentOfSize(t *testing.T) {
	allocs := func(n int) float64 {
		c := NewCache()
		for i := range n {
			require.NoError(t, c.AddNode(node(fmt.Sprintf("n%04d", i)).obj()))
		}
		s := c.Snapshot()
		pi := pod("x").milli(1).info()
		i := 0
		return testing.AllocsPerRun(50, func() {
			if i%2 == 0 {
				require.NoError(t, c.AssumePod(pi, "n0003"))
			} else {
				require.NoError(t, c.ForgetPod(pi.Key()))
			}
			i++
			require.NoError(t, c.UpdateSnapshot(s))
		})
	}
	small, large := allocs(10), allocs(5000)
	assert.Equal(t, small, large)
	assert.LessOrEqual(t, large, 4.0)
}

// The change feed's contract, through reservations, removals, rollbacks
// (which may cut the feed back) and cache updates: a consumer that took a
// feed position and the stamps then finds, while NodesChangedSince says
// ok, every node whose stamp differs since in the nodes it returns.
func TestChangeFeedTellsEveryChange(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 46 {
		// the last trials run long enough for the feed to drop its older
		// half several times (maxFeed of a few nodes is about 1,030)
		steps := 200
		if trial >= 40 {
			steps = 4000
		}
		c := NewCache()
		nodes := 2 + rng.IntN(6)
		for i := range nodes {
			require.NoError(t, c.AddNode(node(fmt.Sprintf("n%d", i)).cpu(8).mem(8*gi).obj()))
		}
		s := c.Snapshot()
		type consumer struct {
			pos    FeedPos
			stamps []uint64
		}
		var consumers []consumer
		take := func() {
			cs := consumer{pos: s.FeedPos(), stamps: make([]uint64, s.Len())}
			for i := range cs.stamps {
				cs.stamps[i] = s.Stamp(i)
			}
			consumers = append(consumers, cs)
			if len(consumers) > 64 {
				// the second oldest goes, so that long trials stay quick and
				// the first, from before every drop, is still asked
				consumers = slices.Delete(consumers, 1, 2)
			}
		}
		check := func(step int) {
			for _, cs := range consumers {
				changed, ok := s.NodesChangedSince(cs.pos)
				if cs.pos.restarts == s.feedRestarts && s.feedEnd().pos-cs.pos.pos < maxFeed(s.Len())/2 {
					require.True(t, ok, "trial %d step %d: a position within the newer half of the feed is kept", trial, step)
				}
				if !ok {
					continue
				}
				for i, was := range cs.stamps {
					if s.Stamp(i) != was {
						require.Contains(t, changed, int32(i), "trial %d step %d: node %d changed unseen", trial, step, i)
					}
				}
			}
		}
		var reserved []PodKey
		var where []int
		for step := range steps {
			switch rng.IntN(6) {
			case 0:
				take()
			case 1, 2:
				p := NewPodInfo(pod(fmt.Sprintf("p%d-%d", trial, step)).milli(100).p)
				n := rng.IntN(s.Len())
				s.Reserve(p, n)
				reserved, where = append(reserved, p.Key()), append(where, n)
			case 3:
				if len(reserved) > 0 {
					j := rng.IntN(len(reserved))
					if s.Remove(reserved[j], where[j]) == nil {
						reserved, where = slices.Delete(reserved, j, j+1), slices.Delete(where, j, j+1)
					}
				}
			case 4:
				s.Rollback(Checkpoint(rng.IntN(s.Tentative() + 1)))
				reserved, where = reserved[:0], where[:0]
				for ch := range s.TentativeChanges(0) {
					if ch.Added {
						reserved, where = append(reserved, ch.Pod.Key()), append(where, ch.Node)
					}
				}
			case 5:
				s.Rollback(0)
				reserved, where = nil, nil
				require.NoError(t, c.AddPod(pod(fmt.Sprintf("b%d-%d", trial, step)).milli(100).on(fmt.Sprintf("n%d", rng.IntN(nodes))).p))
				require.NoError(t, c.UpdateSnapshot(s))
			}
			check(step)
		}
	}
}

// A long feed drops its older half, not all of it: a consumer that
// followed it recently goes on from its position (a memo tree per pod
// shape on a busy cluster would otherwise be rebuilt at every restart),
// one behind the half dropped recomputes, and a rollback still cuts the
// feed back past the drop.
func TestChangeFeedDropsItsOlderHalf(t *testing.T) {
	c := NewCache()
	for i := range 3 {
		require.NoError(t, c.AddNode(node(fmt.Sprintf("n%d", i)).cpu(64).mem(64*gi).obj()))
	}
	s := c.Snapshot()
	limit := maxFeed(s.Len())
	old := s.FeedPos()
	reserve := func(n int) {
		for range n {
			p := NewPodInfo(pod(fmt.Sprintf("p%d", s.Tentative())).p)
			s.Reserve(p, s.Tentative()%s.Len())
		}
	}
	reserve(limit - 10)
	recent := s.FeedPos()
	stamp := s.Stamp(2)
	reserve(20) // past the limit: the older half goes
	_, ok := s.NodesChangedSince(old)
	assert.False(t, ok, "a position in the dropped half means nothing now")
	changed, ok := s.NodesChangedSince(recent)
	require.True(t, ok, "a recent position survives the drop")
	assert.Len(t, changed, 20)
	assert.Contains(t, changed, int32(2))
	assert.NotEqual(t, stamp, s.Stamp(2))

	// a rollback to a checkpoint after the drop cuts the feed back to it
	cp := s.Checkpoint()
	mark := s.FeedPos()
	reserve(5)
	s.Rollback(cp)
	changed, ok = s.NodesChangedSince(mark)
	require.True(t, ok)
	assert.Empty(t, changed, "the changes rolled back leave nothing in the feed")
	changed, ok = s.NodesChangedSince(recent)
	require.True(t, ok)
	assert.Len(t, changed, 20)
}
