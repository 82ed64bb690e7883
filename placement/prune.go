package placement

import (
	"slices"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// quorumBound is a necessary condition for a placement to hold a group's
// quorum: the free cpu, memory, pod slots and extended resources summed
// over its nodes must cover the k smallest requests of the pending pods,
// resource by resource, where k is how many pods the quorum still needs. A
// placement failing it cannot pass the sequential algorithm, so it is
// skipped without simulating each pod; one passing it is simulated as
// usual.
type quorumBound struct {
	need    int
	cpu     int64
	mem     int64
	scalars []cluster.Scalar // the extended resources the pods request
	valid   bool
}

func newQuorumBound(req *GroupRequest, need int) quorumBound {
	pods := req.Group.Pods
	if need <= 0 || need > len(pods) {
		return quorumBound{}
	}
	smallest := func(get func(cluster.Resources) int64) int64 {
		vals := make([]int64, len(pods))
		for i, p := range pods {
			vals[i] = get(p.Pod().Requests)
		}
		slices.Sort(vals)
		var sum int64
		for _, v := range vals[:need] {
			sum += v
		}
		return sum
	}
	b := quorumBound{need: need, valid: true}
	b.cpu = smallest(func(r cluster.Resources) int64 { return r.MilliCPU })
	b.mem = smallest(func(r cluster.Resources) int64 { return r.Memory })
	var names []cluster.ResourceName
	for _, p := range pods {
		for sc := range p.Pod().Requests.Scalars() {
			if !slices.Contains(names, sc.Name) {
				names = append(names, sc.Name)
			}
		}
	}
	slices.Sort(names)
	for _, name := range names {
		if v := smallest(func(r cluster.Resources) int64 { return r.Get(name) }); v > 0 {
			b.scalars = append(b.scalars, cluster.Scalar{Name: name, Value: v})
		}
	}
	return b
}

// mayFit reports whether the placement's free room could hold the quorum.
// A placement that is a whole topology domain reads the snapshot's
// domain totals; any other sums its nodes.
func (b quorumBound) mayFit(snap *cluster.Snapshot, p *fw.Placement) bool {
	if !b.valid {
		return true
	}
	free := b.freeRoom(snap, p)
	if free.MilliCPU < b.cpu || free.Memory < b.mem || free.Pods < int64(b.need) {
		return false
	}
	for _, sc := range b.scalars {
		if _, served := snap.DeviceClassFor(sc.Name); served {
			// devices may serve it where allocatable does not list it
			// (servedFits): allocatable is no bound
			continue
		}
		if free.Get(sc.Name) < sc.Value {
			return false
		}
	}
	return true
}

// freeRoom is allocatable minus requested, summed over the placement's
// nodes (each node's requests never exceed its allocatable: everything
// placed fits).
func (b quorumBound) freeRoom(snap *cluster.Snapshot, p *fw.Placement) cluster.Resources {
	if p.Key != "" {
		t, d := snap.DomainTotals(p.Key), p.Domain
		free := func(name cluster.ResourceName) int64 { return t.Allocatable(d, name) - t.Requested(d, name) }
		room := cluster.NewResources(free(cluster.ResourceCPU), free(cluster.ResourceMemory), free(cluster.ResourcePods))
		for _, sc := range b.scalars {
			room = room.With(sc.Name, free(sc.Name))
		}
		return room
	}
	var cpu, mem, slots int64
	extra := make([]int64, len(b.scalars))
	snap.VisitNodes(p.Nodes, func(ni *cluster.NodeInfo) {
		alloc, used := &ni.Node().Allocatable, ni.RequestedRef()
		cpu += max(0, alloc.MilliCPU-used.MilliCPU)
		mem += max(0, alloc.Memory-used.Memory)
		slots += max(0, alloc.Pods-used.Pods)
		for i, sc := range b.scalars {
			extra[i] += max(0, alloc.Get(sc.Name)-used.Get(sc.Name))
		}
	})
	free := cluster.NewResources(cpu, mem, slots)
	for i, sc := range b.scalars {
		free = free.With(sc.Name, extra[i])
	}
	return free
}

// Bound is the quorum bound of a group's search (quorumBound), for a
// caller that asks whether the search would simulate a placement.
type Bound struct{ b quorumBound }

// Bound returns the quorum bound of req's search.
func (gs *GroupScheduler) Bound(req *GroupRequest) Bound {
	return Bound{newQuorumBound(req, gs.quorum(req))}
}

// Prunes reports whether the search passes over placement p without
// simulating it: p cannot hold the quorum.
func (b Bound) Prunes(snap *cluster.Snapshot, p *fw.Placement) bool { return !b.b.mayFit(snap, p) }
