package dra

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/gangsim/gangsim/cluster"
)

// errMaxSize is kube's errAllocationResultMaxSizeExceeded: the devices
// picked for a claim plus those its current request still needs exceed
// MaxDevicesPerClaim. It lets a firstAvailable list try a smaller
// alternative, and is swallowed at claim boundaries.
var errMaxSize = errors.New("allocation max size exceeded")

const (
	matchUnknown int8 = iota
	matchYes
	matchNo
)

// device is one candidate: a device of a complete, valid pool in a slice
// that targets the node, in search order (pool, slice, device).
type device struct {
	pool  *pool
	slice *cluster.ResourceSlice
	dev   *cluster.Device
	id    cluster.DeviceID
	// caps are the device's capacities (capacitiesOf)
	caps []deviceCapacity
	// shared: the device allows multiple allocations and consumable
	// capacity is on.
	shared bool
	// committedExclusive / committedShared: the allocated state's entries.
	committedExclusive bool
	committedShared    map[cluster.QualifiedName]cluster.Quantity
	hasCommittedShared bool
}

// reqData is one request, or one alternative of a firstAvailable list.
type reqData struct {
	index      int
	claim      int
	name       string // the request's (or subrequest's) own name
	parent     string // the request's name for a subrequest, else ""
	resultName string // "req" or "req/sub"
	exact      *cluster.ExactDeviceRequest
	admin      bool
	class      *cluster.DeviceClass
	numDevices int
	all        []int // mode All: the devices to take, in order
}

// baseName is the name constraints see as the request.
func (r *reqData) baseName() (request, sub string) {
	if r.parent != "" {
		return r.parent, r.name
	}
	return r.name, ""
}

type requestGroup struct {
	alts []int // indices into allocator.reqs: one, or the alternatives
	sub  bool
}

type pick struct {
	req, dev int
	// shared: a share of a shared device, whose result records the
	// capacity it consumes (consumedCapacity)
	shared bool
}

type claimData struct {
	requests    []requestGroup
	constraints []constraint
	picks       []pick
}

type allocator struct {
	in     *Input
	pools  []*pool
	devs   []device
	reqs   []*reqData
	claims []claimData
	match  []int8 // selectable cache, per (request, device)
	// allocating holds, per device, which claims of this call took it
	// exclusively (a bitset of claim indices, words per device).
	allocating []uint64
	words      int
	tentative  []sharedUse // per device: this call's shares
	counters   counters
	// steps counts the candidates the search looked at; maxSteps bounds
	// them (negative: no bound).
	steps, maxSteps int64
	// memory kept for the next call (Allocator): the requests behind
	// reqs, the ranks, the shares behind tentative
	reqBuf  []reqData
	ranks   []ranked
	tentBuf []sharedUse
}

// ranked is a candidate's rank and its place in the search order.
type ranked struct {
	rank int64
	i    int
}

// NodeDevices are the devices a node reaches through some slices, in
// search order: the pools (as gatherPools finds them) and their devices.
// They depend on the slices, the node and the features only, so a caller
// that asks many allocations of an unchanged node finds them once.
// Read-only.
type NodeDevices struct {
	pools []*pool
	devs  []device // without the allocated state
}

// NewNodeDevices finds the devices node reaches through slices with the
// features f.
func NewNodeDevices(slices []*cluster.ResourceSlice, node *cluster.Node, f Features) *NodeDevices {
	nd := &NodeDevices{pools: gatherPools(slices, node, f)}
	n := 0
	for _, p := range nd.pools {
		for _, s := range p.slices {
			n += len(s.Devices)
		}
	}
	nd.devs = make([]device, 0, n)
	for _, p := range nd.pools {
		for _, s := range p.slices {
			for i := range s.Devices {
				d := device{pool: p, slice: s, dev: &s.Devices[i], id: cluster.DeviceID{Driver: p.driver, Pool: p.name, Device: s.Devices[i].Name}, caps: capacitiesOf(&s.Devices[i])}
				d.shared = f.ConsumableCapacity && d.dev.AllowMultipleAllocations
				nd.devs = append(nd.devs, d)
			}
		}
	}
	return nd
}

// reset readies the allocator for in, reusing the memory of earlier
// calls; what it holds is as a new allocator's.
func (a *allocator) reset(in *Input) {
	nd := in.Devices
	if nd == nil {
		nd = NewNodeDevices(in.Slices, in.Node, in.Features)
	}
	a.in, a.pools, a.steps, a.maxSteps = in, nd.pools, 0, in.MaxSteps
	if a.maxSteps == 0 {
		a.maxSteps = StepsFor(DefaultFilterTimeout)
	}
	a.rankDevices(nd.devs, in.Rank)
	if st := in.Allocated; st != nil && (len(st.Exclusive) > 0 || len(st.Shared) > 0) {
		for i := range a.devs {
			d := &a.devs[i]
			d.committedExclusive = st.Exclusive[d.id]
			d.committedShared, d.hasCommittedShared = st.Shared[d.id]
		}
	}
	if cap(a.claims) < len(in.Claims) {
		a.claims = make([]claimData, len(in.Claims))
	}
	a.claims = a.claims[:len(in.Claims)]
	requests := 0
	for ci, claim := range in.Claims {
		c := &a.claims[ci]
		c.requests, c.picks = c.requests[:0], c.picks[:0]
		clear(c.constraints)
		c.constraints = c.constraints[:0]
		for i := range claim.Spec.Requests {
			requests += max(len(claim.Spec.Requests[i].FirstAvailable), 1)
		}
	}
	if cap(a.reqBuf) < requests {
		a.reqBuf = make([]reqData, requests)
	}
	a.reqs, a.match = a.reqs[:0], a.match[:0]
	a.words = (len(in.Claims) + 63) / 64
	n := a.words * len(a.devs)
	if cap(a.allocating) < n {
		a.allocating = make([]uint64, n)
	}
	a.allocating = a.allocating[:n]
	clear(a.allocating)
	a.tentative = nil
	a.counters = counters{}
}

// release lets go of the input once a call is done (the memory stays).
func (a *allocator) release() {
	a.in, a.pools = nil, nil
}

// newReq returns the request registered next (validate appends it to
// reqs), with its memory of an earlier call.
func (a *allocator) newReq() *reqData {
	return &a.reqBuf[len(a.reqs)]
}

// addRequest appends an empty request group to the claim's.
func (c *claimData) addRequest() *requestGroup {
	n := len(c.requests)
	if n < cap(c.requests) {
		c.requests = c.requests[:n+1]
	} else {
		c.requests = append(c.requests, requestGroup{})
	}
	g := &c.requests[n]
	g.alts, g.sub = g.alts[:0], false
	return g
}

// rankDevices sets devs, in the order of rank (lower first, equal ranks
// in devs' order), as the candidates; rank nil keeps devs' order.
func (a *allocator) rankDevices(devs []device, rank func(cluster.DeviceID) int64) {
	a.devs = slices.Grow(a.devs[:0], len(devs))[:len(devs)]
	if rank == nil {
		copy(a.devs, devs)
		return
	}
	rs := a.ranks[:0]
	for i := range devs {
		rs = append(rs, ranked{rank(devs[i].id), i})
	}
	slices.SortStableFunc(rs, func(x, y ranked) int { return cmp.Compare(x.rank, y.rank) })
	for k, r := range rs {
		a.devs[k] = devs[r.i]
	}
	a.ranks = rs
}

// shares returns the tentative shares of the candidates, all empty.
func (a *allocator) shares() []sharedUse {
	n := len(a.devs)
	if cap(a.tentBuf) < n {
		a.tentBuf = make([]sharedUse, n)
	}
	t := a.tentBuf[:n]
	for i := range t {
		t[i].present = false
		clear(t[i].consumed)
	}
	return t
}

// committed reports whether the allocated state holds a device, as kube's
// IsDeviceAllocated does (for counters).
func (a *allocator) committed(id cluster.DeviceID) bool {
	st := a.in.Allocated
	if st == nil {
		return false
	}
	if st.Exclusive[id] {
		return true
	}
	_, ok := st.Shared[id]
	return ok
}

func (a *allocator) allocatingFor(d, claim int) bool {
	return a.allocating[d*a.words+claim/64]&(1<<(claim%64)) != 0
}

func (a *allocator) inUse(d int) bool {
	if a.devs[d].committedExclusive {
		return true
	}
	for _, w := range a.allocating[d*a.words : (d+1)*a.words] {
		if w != 0 {
			return true
		}
	}
	return false
}

func (a *allocator) capacityInUse(d int) bool {
	return a.devs[d].hasCommittedShared || (a.tentative != nil && a.tentative[d].present)
}

func (a *allocator) capacityFits(r *reqData, d int) (bool, error) {
	var tent map[cluster.QualifiedName]cluster.Quantity
	if a.tentative != nil {
		tent = a.tentative[d].consumed
	}
	return capacityFits(a.devs[d].caps, r.exact.Capacity, a.devs[d].committedShared, tent)
}

// allocateOne is kube's allocateOne: it finds a device for device number
// di of alternative si of request ri of claim ci, then recurses; true when
// everything after it could be allocated too. start is where, within one
// request, the search resumes (after the previous pick: combinations, not
// permutations).
func (a *allocator) allocateOne(ci, ri, si, di int, inSub bool, start int) (bool, error) {
	if ci >= len(a.claims) {
		return true, nil
	}
	c := &a.claims[ci]
	if ri >= len(c.requests) {
		done, err := a.allocateOne(ci+1, 0, 0, 0, false, 0)
		if errors.Is(err, errMaxSize) {
			return false, nil
		}
		return done, err
	}
	group := c.requests[ri]
	if group.sub && !inSub {
		allExceeded := true
		for alt := range group.alts {
			done, err := a.allocateOne(ci, ri, alt, 0, true, 0)
			if errors.Is(err, errMaxSize) {
				continue
			}
			allExceeded = false
			if err != nil {
				return false, err
			}
			if done {
				return true, nil
			}
		}
		if allExceeded {
			return false, errMaxSize
		}
		return false, nil
	}
	r := a.reqs[group.alts[si]]
	all := r.exact.EffectiveMode() == cluster.DeviceAllocationAll
	if all && len(r.all) == 0 {
		return false, nil
	}
	if di >= r.numDevices {
		return a.allocateOne(ci, ri+1, 0, 0, false, 0)
	}
	if len(c.picks)+r.numDevices-di > MaxDevicesPerClaim {
		return false, errMaxSize
	}
	if all {
		if err := a.step(); err != nil {
			return false, err
		}
		ok, err := a.allocateDevice(ci, r, r.all[di], true)
		if err != nil || !ok {
			return false, err
		}
		done, err := a.allocateOne(ci, ri, si, di+1, inSub, 0)
		if err != nil || !done {
			a.undo(ci)
			return false, err
		}
		return true, nil
	}
	for d := start; d < len(a.devs); d++ {
		if err := a.step(); err != nil {
			return false, err
		}
		if r.admin {
			if a.allocatingFor(d, ci) {
				continue
			}
		} else if a.inUse(d) {
			continue
		}
		ok, err := a.selectable(r, d)
		if err != nil {
			return false, err
		}
		if !ok {
			continue
		}
		if a.in.Features.ConsumableCapacity {
			if fits, err := a.capacityFits(r, d); err != nil || !fits {
				continue
			}
		}
		ok, err = a.allocateDevice(ci, r, d, false)
		if err != nil {
			return false, err
		}
		if !ok {
			continue
		}
		done, err := a.allocateOne(ci, ri, si, di+1, inSub, d+1)
		if err == nil && done {
			return true, nil
		}
		a.undo(ci)
		if err != nil {
			return false, err
		}
	}
	return false, nil
}

// step counts one step of the search, and fails with ErrTimeout past
// the budget.
func (a *allocator) step() error {
	a.steps++
	if a.maxSteps >= 0 && a.steps > a.maxSteps {
		return ErrTimeout
	}
	return nil
}

// allocateDevice is kube's allocateDevice: the checks a candidate passes
// after its selectors (in use, counters, taints, constraints, capacity),
// in kube's order, and the bookkeeping of the pick (taken back by undo).
// must (mode All) makes a constraint violation an error.
func (a *allocator) allocateDevice(ci int, r *reqData, d int, must bool) (bool, error) {
	dv := &a.devs[d]
	f := a.in.Features
	if !dv.shared && r.admin && a.allocatingFor(d, ci) {
		return false, nil
	}
	if !r.admin && a.inUse(d) {
		return false, nil
	}
	took := false // counters taken, given back if the device is not picked
	if len(dv.dev.ConsumesCounters) > 0 {
		if !f.PartitionableDevices {
			return false, nil
		}
		// Kube skips the counters of a shared device some capacity of
		// which is already in use, committed or in this call.
		if !(dv.shared && a.capacityInUse(d)) {
			if !a.counters.take(dv.pool, dv.dev, a.committed) {
				return false, nil
			}
			took = true
		}
	}
	// Kube consumes a device's counters only once every check passed; they
	// are taken above to check them, so a device refused below gives them
	// back.
	refuse := func() (bool, error) {
		if took {
			a.counters.give(dv.pool, dv.dev)
		}
		return false, nil
	}
	if f.DeviceTaints && taintPrevents(dv.dev, r.exact.Tolerations) {
		return refuse()
	}
	c := &a.claims[ci]
	request, sub := r.baseName()
	for i, k := range c.constraints {
		if k.add(request, sub, dv.dev, dv.id) {
			continue
		}
		if must {
			return false, fmt.Errorf("claim %s, request %s: cannot add device %s because a claim constraint would not be satisfied", claimName(a.in.Claims[ci]), r.name, dv.id)
		}
		for _, earlier := range c.constraints[:i] {
			earlier.remove(request, sub, dv.dev, dv.id)
		}
		return refuse()
	}
	if !dv.shared {
		a.allocating[d*a.words+ci/64] |= 1 << (ci % 64)
	}
	shared := false
	if f.ConsumableCapacity {
		// Kube checks capacity again here, after the constraints took the
		// device and without undoing them when it fails; it fails only in
		// mode All, on a shared device this call already shares out.
		if fits, err := a.capacityFits(r, d); err != nil || !fits {
			return refuse()
		}
		if dv.shared {
			shared = true
			if a.tentative == nil {
				a.tentative = a.shares()
			}
			// kept even when empty (a device without capacities): a
			// non-nil ConsumedCapacity is what marks the result a share
			// (kube's shareID), so that the device stays shareable once
			// the claim is committed
			a.tentative[d].insert(dv.caps, r.exact.Capacity)
		}
	}
	c.picks = append(c.picks, pick{req: r.index, dev: d, shared: shared})
	return true, nil
}

// undo takes back the last pick of claim ci (kube's deallocate).
func (a *allocator) undo(ci int) {
	c := &a.claims[ci]
	pk := c.picks[len(c.picks)-1]
	r, d := a.reqs[pk.req], pk.dev
	dv := &a.devs[d]
	request, sub := r.baseName()
	for _, k := range c.constraints {
		k.remove(request, sub, dv.dev, dv.id)
	}
	if dv.shared {
		// Kube's quirk, reproduced because it changes outcomes: the
		// counters a shared device took are not given back.
		// (an empty share, of a device without capacities, is never
		// removed: kube's entry for it stays)
		if len(dv.caps) > 0 {
			a.tentative[d].remove(dv.caps, r.exact.Capacity)
		}
	} else {
		a.allocating[d*a.words+ci/64] &^= 1 << (ci % 64)
		if a.in.Features.PartitionableDevices && len(dv.dev.ConsumesCounters) > 0 {
			a.counters.give(dv.pool, dv.dev)
		}
	}
	c.picks = c.picks[:len(c.picks)-1]
}

// taintPrevents reports whether a NoSchedule or NoExecute taint of the
// device is not tolerated; other effects (None) are ignored.
func taintPrevents(d *cluster.Device, tolerations []cluster.DeviceToleration) bool {
	for i := range d.Taints {
		t := &d.Taints[i]
		if t.Effect != cluster.DeviceTaintNoSchedule && t.Effect != cluster.DeviceTaintNoExecute {
			continue
		}
		tolerated := false
		for j := range tolerations {
			if tolerations[j].Tolerates(t) {
				tolerated = true
				break
			}
		}
		if !tolerated {
			return true
		}
	}
	return false
}
