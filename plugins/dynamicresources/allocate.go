package dynamicresources

import (
	"errors"
	"slices"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/dra"
)

// Filter's allocation: the allocator's call on a node, and the memos that
// spare it (a node's devices by its slices, a node's answers by its
// content and the claim specs).

// nodeDevicesEntry is a node's devices and what they were found from.
type nodeDevicesEntry struct {
	slices []*cluster.ResourceSlice
	node   *cluster.Node
	devs   *dra.NodeDevices
}

// allocMemo remembers the allocations found on the nodes of one snapshot,
// per node index for the node's current stamp: a node that changes
// forgets its answers at once, so what is kept is what can still be asked.
type allocMemo struct {
	snap  *cluster.Snapshot
	nodes []nodeAllocs
}

// nodeAllocs are one node's answers for one content (stamp), by claim
// specs (their numbers, stateData.specs), and what its allocated claims
// hold.
type nodeAllocs struct {
	stamp uint64
	net   uint64 // the snapshot's NetworkVersion
	// keys are the answers' specs and verdicts, in order: what find and
	// Filter read; answers the rest of each
	keys    []answerKey
	answers []allocAnswer
	// state is the node's allocated state for this content, once found
	state *dra.AllocatedState
}

// answerKey is the specs of an answer and its verdict: the claims fit,
// or an error was remembered (the answer's err).
type answerKey struct {
	specs   int32
	ok, err bool
}

// allocAnswer is dra.Allocate's answer for some specs (errors are not
// remembered, but for dra.ErrTimeout: the step budget makes it as
// deterministic as an answer, and finding it again costs the budget).
type allocAnswer struct {
	results []cluster.AllocationResult // read-only
	err     error                      // nil or dra.ErrTimeout
	// made: the results are made (Filter only asks whether the claims
	// fit; Score and Reserve ask for the devices, of a few nodes)
	made bool
}

// maxAnswers bounds the answers kept per node content; past it they are
// forgotten at once.
const maxAnswers = 64

// on returns the answers of node i as it is now in snap, forgetting those
// of another snapshot or another content.
func (m *allocMemo) on(snap *cluster.Snapshot, i int) *nodeAllocs {
	if m.snap != snap {
		m.snap, m.nodes = snap, m.nodes[:0]
	}
	if i >= len(m.nodes) {
		m.nodes = append(m.nodes, make([]nodeAllocs, snap.Len()-len(m.nodes))...)
	}
	na := &m.nodes[i]
	// a node's answer depends on its content and on the devices no node
	// owns, which every node reaches
	if stamp, net := snap.Stamp(i), snap.NetworkVersion(); na.stamp != stamp || na.net != net {
		na.stamp, na.net, na.keys, na.answers, na.state = stamp, net, na.keys[:0], na.answers[:0], nil
	}
	if len(na.answers) >= maxAnswers {
		na.keys, na.answers = na.keys[:0], na.answers[:0]
	}
	return na
}

// find returns the index of the answer for specs, or -1.
func (na *nodeAllocs) find(specs int32) int {
	for i := range na.keys {
		if na.keys[i].specs == specs {
			return i
		}
	}
	return -1
}

// remembers reports whether allocate remembers its answers for s.
func (pl *DynamicResources) remembers(s *stateData) bool {
	return len(s.freed) == 0 && pl.h != nil && pl.allocs != nil
}

// allocate runs the allocator for the claims to allocate on the node, with
// the node's devices in use less the claims the preemption's simulation
// freed. Without want, the results may be left out (nil): a remembered
// answer makes them when they are first wanted.
func (pl *DynamicResources) allocate(s *stateData, ni *cluster.NodeInfo, want bool) ([]cluster.AllocationResult, bool, error) {
	if !pl.remembers(s) {
		return pl.allocateNow(s, ni, nil, true)
	}
	snap := pl.h.Snapshot()
	i := ni.Index()
	if i >= snap.Len() || snap.Node(i) != ni {
		return pl.allocateNow(s, ni, nil, true) // not the snapshot's node: no stamp names it
	}
	na := pl.allocs.on(snap, i)
	if k := na.find(s.specs); k >= 0 {
		key := na.keys[k]
		switch {
		case key.err:
			return nil, false, na.answers[k].err
		case !key.ok || !want:
			return nil, key.ok, nil
		}
		a := &na.answers[k]
		if !a.made {
			// the same search on the same node content: the same answer,
			// with its devices
			a.results, _, _ = pl.allocateNow(s, ni, na, true)
			a.made = true
		}
		return a.results, true, nil
	}
	results, ok, err := pl.allocateNow(s, ni, na, want)
	if err == nil || errors.Is(err, dra.ErrTimeout) {
		na.keys = append(na.keys, answerKey{s.specs, ok, err != nil})
		na.answers = append(na.answers, allocAnswer{results, err, want})
	}
	return results, ok, err
}

// allocateNow is allocate without remembering the answer; na, when set,
// is the node's memo entry, which keeps the node's allocated state (s
// frees nothing then). Without want it only asks whether the claims fit
// (the results are nil).
func (pl *DynamicResources) allocateNow(s *stateData, ni *cluster.NodeInfo, na *nodeAllocs, want bool) ([]cluster.AllocationResult, bool, error) {
	claims := s.claimsOn(ni)
	if len(claims) == 0 {
		return nil, true, nil
	}
	var allocated *dra.AllocatedState
	if na != nil {
		if na.state == nil {
			na.state = dra.NodeState(ni)
		}
		allocated = na.state
	} else {
		var freed []*cluster.AllocationResult
		for key, n := range s.freed { // a sum: the order does not matter
			if alloc, pods, ok := ni.Claim(key); ok && n >= pods {
				freed = append(freed, alloc)
			}
		}
		allocated = dra.NodeStateWithout(ni, freed)
	}
	var rank func(cluster.DeviceID) int64
	if pl.rank != nil {
		rank = pl.rank(ni, claims)
	}
	// the plugin's Allocator and input, reused call after call (the
	// plugin belongs to one goroutine)
	pl.input = dra.Input{
		Rank:      rank,
		Claims:    claims,
		Classes:   s.classes,
		Slices:    ni.ReachableSlices(),
		Node:      ni.Node(),
		Devices:   pl.nodeDevices(ni),
		Allocated: allocated,
		Selectors: pl.selectors,
		Features:  pl.features,
		MaxSteps:  pl.maxSteps,
	}
	var results []cluster.AllocationResult
	var ok bool
	var err error
	if want {
		results, ok, err = pl.alloc.Allocate(&pl.input)
	} else {
		ok, err = pl.alloc.Fits(&pl.input)
	}
	pl.input = dra.Input{}
	return results, ok, err
}

// nodeDevices returns the devices the node reaches, found once per node
// object and slice list (both are replaced, never changed in place).
func (pl *DynamicResources) nodeDevices(ni *cluster.NodeInfo) *dra.NodeDevices {
	if pl.allocs == nil {
		return nil // Args.NoAllocationMemo: found on every call
	}
	node, list := ni.Node(), ni.ReachableSlices()
	e := pl.devices[node.Name]
	if e == nil || e.node != node || !slices.Equal(e.slices, list) {
		e = &nodeDevicesEntry{slices: list, node: node, devs: dra.NewNodeDevices(list, node, pl.features)}
		pl.devices[node.Name] = e
	}
	return e.devs
}

// allocationOn returns the allocation Filter found on the node, or finds
// it again (the node's answer was remembered and Filter did not run).
func (pl *DynamicResources) allocationOn(s *stateData, ni *cluster.NodeInfo) ([]cluster.AllocationResult, error) {
	if r, ok := s.allocations[ni.Index()]; ok {
		return r, nil
	}
	r, ok, err := pl.allocate(s, ni, true)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errors.New("claim allocation not found for node")
	}
	s.allocations[ni.Index()] = r
	return r, nil
}
