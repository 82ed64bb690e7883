package helper_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/plugins/helper"
)

// The kinds of count appCounter makes, one slot each but kindBy.
const (
	kindZone = iota // app=a pods per zone; every node with a zone adds (0 too)
	kindHost        // app=a pods per node (a perNode slot), from nodes holding one
	kindRack        // app=b pods per rack; nodes without one in the missing domain
	kindBy          // pods labelled by=<key>, per domain of key: DynamicSlots
	kindDisk        // nodes per disk, a slot made between two syncs
	numKinds
)

const (
	keyZone = gangsimtest.LabelZone
	keyRack = gangsimtest.LabelRack
	keyHost = "kubernetes.io/hostname"
	keyDisk = "disk"
)

type slotID struct {
	kind int
	key  string
}

// appCounter counts the running pods of a node by their labels (see the
// kinds). It records the slot of each (kind, key) per TopologyCounts, so
// that counts whose slots were made in another order compare slot by slot.
type appCounter struct {
	slots map[*helper.TopologyCounts]map[slotID]int
}

func (c *appCounter) Count(tc *helper.TopologyCounts, ni *cluster.NodeInfo) {
	slots := c.slots[tc]
	var a, b int64
	for _, pi := range ni.PodList() {
		if pi.State() == cluster.PodTerminating {
			continue
		}
		labels := pi.Pod().Labels
		switch labels["app"] {
		case "a":
			a++
		case "b":
			b++
		}
		if by, ok := labels["by"]; ok {
			key := byKeys[by]
			s := tc.DynamicSlot(kindBy, key)
			slots[slotID{kindBy, key}] = s
			tc.Add(s, 1)
		}
	}
	tc.Add(slots[slotID{kindZone, keyZone}], a)
	if a > 0 {
		tc.Add(slots[slotID{kindHost, keyHost}], a)
	}
	tc.Add(slots[slotID{kindRack, keyRack}], b)
	if s, ok := slots[slotID{kindDisk, keyDisk}]; ok {
		tc.Add(s, 1)
	}
}

// newCounts makes counts with the zone, host and rack slots, and the disk
// slot too when disk is set.
func (c *appCounter) newCounts(disk bool) *helper.TopologyCounts {
	tc := helper.NewTopologyCounts(c)
	c.slots[tc] = map[slotID]int{
		{kindZone, keyZone}: tc.SlotFor(kindZone, keyZone, false, false),
		{kindHost, keyHost}: tc.SlotFor(kindHost, keyHost, false, true),
		{kindRack, keyRack}: tc.SlotFor(kindRack, keyRack, true, false),
	}
	if disk {
		c.addDisk(tc)
	}
	tc.EnsureKind(numKinds - 1) // kindBy's slots come while counting
	return tc
}

func (c *appCounter) addDisk(tc *helper.TopologyCounts) {
	c.slots[tc][slotID{kindDisk, keyDisk}] = tc.SlotFor(kindDisk, keyDisk, false, false)
}

// requireSameCounts fails unless got (kept up to date) says what want
// (counted from scratch) says, slot by slot: a DynamicSlot no pod needs
// any more is in got alone, and empty.
func requireSameCounts(t *testing.T, c *appCounter, snap *cluster.Snapshot, got, want *helper.TopologyCounts, msg string) {
	t.Helper()
	for id, ws := range c.slots[want] {
		gs, ok := c.slots[got][id]
		require.True(t, ok, "%s: slot %v only counted from scratch", msg, id)
		g, w := got.Slot(gs), want.Slot(ws)
		require.Equal(t, w.Kind(), g.Kind(), "%s: slot %v", msg, id)
		require.Equal(t, w.NumDomains(), g.NumDomains(), "%s: slot %v domains", msg, id)
		for d := range w.NumDomains() {
			require.Equal(t, w.Count(d), g.Count(d), "%s: slot %v domain %d count", msg, id, d)
			require.Equal(t, w.Present(d), g.Present(d), "%s: slot %v domain %d present", msg, id, d)
		}
		require.Equal(t, w.NumPresent(), g.NumPresent(), "%s: slot %v present domains", msg, id)
		wMin, wN := w.Minimum()
		gMin, gN := g.Minimum()
		require.Equal(t, [2]int64{wMin, int64(wN)}, [2]int64{gMin, int64(gN)}, "%s: slot %v minimum", msg, id)
		for _, ni := range snap.Nodes() {
			require.Equal(t, w.DomainOf(ni), g.DomainOf(ni), "%s: slot %v domain of %s", msg, id, ni.Name())
		}
	}
	for id, gs := range c.slots[got] {
		if _, ok := c.slots[want][id]; !ok {
			g := got.Slot(gs)
			require.Zero(t, g.NumPresent(), "%s: stale slot %v", msg, id)
			for d := range g.NumDomains() {
				require.Zero(t, g.Count(d), "%s: stale slot %v domain %d", msg, id, d)
			}
		}
	}
	for kind := range numKinds {
		require.Equal(t, want.KindTotal(kind), got.KindTotal(kind), "%s: kind %d total", msg, kind)
		require.Equal(t, want.KindEntries(kind), got.KindEntries(kind), "%s: kind %d entries", msg, kind)
	}
}

// topologyWorld is a small random cluster and the snapshot the counts
// follow, with the changes a scheduler makes to them.
type topologyWorld struct {
	r     *rand.Rand
	cache *cluster.Cache
	snap  *cluster.Snapshot
	cps   []cluster.Checkpoint // tentative changes not rolled back start here
	seq   int                  // names of nodes and pods made so far
}

func pick[T any](r *rand.Rand, from ...T) T { return from[r.IntN(len(from))] }

// node is a node named n<seq> with random labels, some missing.
func (w *topologyWorld) node() cluster.Node {
	w.seq++
	name := fmt.Sprintf("n%02d", w.seq)
	b := gangsimtest.MakeNode(name).CPU("64").Memory("256Gi").Label(keyHost, name)
	if z := pick(w.r, "z0", "z1", "z2", ""); z != "" {
		b.Zone(z)
	}
	if rk := pick(w.r, "r0", "r1", ""); rk != "" {
		b.Rack(rk)
	}
	if d := pick(w.r, "ssd", "hdd", ""); d != "" {
		b.Label(keyDisk, d)
	}
	return b.Obj()
}

// pod is a pod named p<seq> with random app and by labels, some missing.
func (w *topologyWorld) pod() cluster.Pod {
	w.seq++
	b := gangsimtest.MakePod(fmt.Sprintf("p%d", w.seq)).Namespace(pick(w.r, "", "team"))
	if app := pick(w.r, "a", "a", "b", "c", ""); app != "" {
		b.Label("app", app)
	}
	if by := pick(w.r, "zone", "rack", "host", "", ""); by != "" {
		b.Label("by", by)
	}
	return b.Obj()
}

// byKeys are the topology keys the "by" label names (a label value
// cannot hold the '/' of a key).
var byKeys = map[string]string{"zone": keyZone, "rack": keyRack, "host": keyHost}

// randomPod returns a pod on the node at index i, if it holds one.
func (w *topologyWorld) randomPod(i int) (*cluster.PodInfo, bool) {
	pods := w.snap.Node(i).PodList()
	if len(pods) == 0 {
		return nil, false
	}
	return pods[w.r.IntN(len(pods))], true
}

// tentative reserves or removes one pod on the snapshot.
func (w *topologyWorld) tentative() {
	i := w.r.IntN(w.snap.Len())
	if p, ok := w.randomPod(i); ok && w.r.IntN(3) == 0 {
		if err := w.snap.Remove(p.Key(), i); err != nil {
			panic(err)
		}
		return
	}
	w.snap.Reserve(cluster.NewPodInfo(w.pod()), i)
}

// step makes one change, and says which.
func (w *topologyWorld) step(t *testing.T) string {
	t.Helper()
	switch w.r.IntN(10) {
	case 0, 1, 2:
		w.cps = append(w.cps, w.snap.Checkpoint())
		w.tentative()
		return "reserve or remove"
	case 3:
		if len(w.cps) == 0 {
			return "nothing to roll back"
		}
		k := w.r.IntN(len(w.cps))
		w.snap.Rollback(w.cps[k])
		w.cps = w.cps[:k]
		return "rollback"
	case 4:
		// a dry run: changes on several nodes, all undone before the
		// counts are read (the feed may be cut back)
		cp := w.snap.Checkpoint()
		for range 1 + w.r.IntN(4) {
			w.tentative()
		}
		w.snap.Rollback(cp)
		return "dry run"
	}
	// the cache changes: the snapshot rolls back and is updated
	w.snap.Rollback(0)
	w.cps = w.cps[:0]
	nodes := w.cache.NodeCount()
	what := ""
	switch k := w.r.IntN(10); {
	case k < 4:
		p := w.pod()
		p.NodeName = w.snap.Node(w.r.IntN(w.snap.Len())).Name()
		require.NoError(t, w.cache.AddPod(p))
		what = "pod bound"
	case k < 6:
		if p, ok := w.randomPod(w.r.IntN(w.snap.Len())); ok {
			if p.State() == cluster.PodBound && w.r.IntN(2) == 0 {
				require.NoError(t, w.cache.EvictPod(p.Key(), 0))
				what = "pod evicted"
			} else {
				_, err := w.cache.RemovePod(p.Key())
				require.NoError(t, err)
				what = "pod removed"
			}
		}
	case k < 7:
		n := w.node()
		n.Name = w.snap.Node(w.r.IntN(w.snap.Len())).Name()
		n.Labels[keyHost] = n.Name
		require.NoError(t, w.cache.UpdateNode(n))
		what = "node relabelled"
	case k < 8 || nodes < 3:
		require.NoError(t, w.cache.AddNode(w.node()))
		what = "node added"
	case k < 9:
		_, err := w.cache.RemoveNode(w.snap.Node(w.r.IntN(w.snap.Len())).Name())
		require.NoError(t, err)
		what = "node removed"
	default:
		require.NoError(t, w.cache.SetNamespace(cluster.Namespace{Name: "team", Labels: map[string]string{"v": fmt.Sprint(w.seq)}}))
		w.seq++
		what = "namespace labelled"
	}
	require.NoError(t, w.cache.UpdateSnapshot(w.snap))
	return what
}

// Counts kept up to date with Sync after every change of the snapshot
// (reservations, removals, rollbacks, dry runs, cache updates, a slot made
// between syncs) say what counts made from scratch on the snapshot as it
// is say, on random small clusters.
func TestTopologyCountsSyncMatchesFromScratch(t *testing.T) {
	kinds := map[string]int{}
	for seed := range 150 {
		r := rand.New(rand.NewPCG(uint64(seed), 5))
		w := &topologyWorld{r: r, cache: cluster.NewCache()}
		for range 2 + r.IntN(5) {
			require.NoError(t, w.cache.AddNode(w.node()))
		}
		for range r.IntN(8) {
			p := w.pod()
			p.NodeName = fmt.Sprintf("n%02d", 1+r.IntN(w.cache.NodeCount()))
			require.NoError(t, w.cache.AddPod(p))
		}
		w.snap = w.cache.Snapshot()
		c := &appCounter{slots: map[*helper.TopologyCounts]map[slotID]int{}}
		kept, disk := c.newCounts(false), false
		kept.Sync(w.snap)
		diskAt := r.IntN(60)
		for step := range 60 {
			what := "disk slot made"
			if step == diskAt {
				c.addDisk(kept)
				disk = true
			} else {
				what = w.step(t)
			}
			kinds[what]++
			kept.Sync(w.snap)
			fresh := c.newCounts(disk)
			fresh.Sync(w.snap)
			requireSameCounts(t, c, w.snap, kept, fresh, fmt.Sprintf("seed %d step %d (%s)", seed, step, what))
			delete(c.slots, fresh)
		}
	}
	for _, what := range []string{"reserve or remove", "rollback", "dry run", "pod bound", "pod evicted", "pod removed",
		"node relabelled", "node added", "node removed", "namespace labelled", "disk slot made"} {
		require.Greater(t, kinds[what], 20, "%q is tried", what)
	}
}
