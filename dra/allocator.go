package dra

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/gangsim/gangsim/cluster"
)

// MaxDevicesPerClaim is the most devices one claim's allocation holds
// (resource.k8s.io's AllocationResultsMaxSize).
const MaxDevicesPerClaim = 32

// SelectorEvaluator evaluates a CEL device selector on a device of a
// driver. An error is fatal for the allocation, as a CEL runtime error is
// in kube; an error wrapping ErrSelectorCompile is reported as a compile
// error.
type SelectorEvaluator interface {
	Match(expr string, driver string, d *cluster.Device) (bool, error)
}

// ErrSelectorCompile marks a SelectorEvaluator error as a compile error.
var ErrSelectorCompile = errors.New("CEL compile error")

// ErrInvalidPools is returned, and is node-local (not fatal: other nodes
// may still fit), when nothing could be allocated and some pool the node
// reaches is invalid. Its text is kube's.
var ErrInvalidPools = errors.New("invalid resource pools were encountered")

// ErrTimeout is returned, and is node-local (the node is rejected, other
// nodes may still fit), when the search spends its step budget
// (Input.MaxSteps) before it finds an allocation or proves there is
// none. Its text is kube's status when its filter timeout expires.
var ErrTimeout = errors.New("timed out trying to allocate devices")

// The search's bound. Kube stops an allocation when the DynamicResources
// filter's timeout (10 s by default) expires, on the clock; a simulation
// must decide the same way on every machine and every run, so the bound
// here is counted work: each candidate device the search looks at is a
// step, and a timeout allows StepsPerSecond steps a second. A step takes
// some tens of nanoseconds here, so the default budget (10 s, 10,000,000
// steps) ends a hopeless search on one node in well under a second of
// real time, where kube would spend the full 10 s.
const (
	// DefaultFilterTimeout is kube-scheduler's default filterTimeout of
	// the DynamicResources plugin.
	DefaultFilterTimeout = 10 * time.Second
	// StepsPerSecond is how many steps a second of filter timeout allows.
	StepsPerSecond = 1_000_000
)

// StepsFor returns the step budget of a filter timeout: StepsPerSecond a
// second (at least 1), or -1 (no bound) for a timeout of 0 or less, as a
// zero filterTimeout disables kube's timeout.
func StepsFor(timeout time.Duration) int64 {
	if timeout <= 0 {
		return -1
	}
	// at most some 9.2e15 steps: a Duration holds 292 years
	return max(int64(timeout.Seconds()*StepsPerSecond), 1)
}

// Features are the DRA feature gates the allocator obeys.
// Their yaml names are the plugin arguments' (docs/devices.md).
type Features struct {
	AdminAccess          bool `yaml:"adminAccess"`          // DRAAdminAccess
	PrioritizedList      bool `yaml:"prioritizedList"`      // DRAPrioritizedList (firstAvailable)
	PartitionableDevices bool `yaml:"partitionableDevices"` // DRAPartitionableDevices (counters)
	DeviceTaints         bool `yaml:"deviceTaints"`         // DRADeviceTaints
	ConsumableCapacity   bool `yaml:"consumableCapacity"`   // DRAConsumableCapacity (shared devices)
}

// DefaultFeatures are Kubernetes v1.37's defaults: all on.
func DefaultFeatures() Features {
	return Features{AdminAccess: true, PrioritizedList: true, PartitionableDevices: true, DeviceTaints: true, ConsumableCapacity: true}
}

// AllocatedState is what the claims allocated so far (bound or reserved)
// hold: the devices they have exclusively, and what they take of shared
// devices (AllowMultipleAllocations). A shared device with an entry, even
// an empty one, counts as allocated for its pool's counters. Results with
// admin access hold nothing.
type AllocatedState struct {
	Exclusive map[cluster.DeviceID]bool
	Shared    map[cluster.DeviceID]map[cluster.QualifiedName]cluster.Quantity
}

// Add records one allocated device; shared says the allocation was a
// share of a device that allows multiple allocations (kube's shareID).
// The capacity sum it changes is copied: it may be shared with others.
func (s *AllocatedState) Add(a *cluster.DeviceRequestAllocation, shared bool) {
	if a.AdminAccess {
		return
	}
	id := a.DeviceID()
	if !shared {
		if s.Exclusive == nil {
			s.Exclusive = map[cluster.DeviceID]bool{}
		}
		s.Exclusive[id] = true
		return
	}
	if s.Shared == nil {
		s.Shared = map[cluster.DeviceID]map[cluster.QualifiedName]cluster.Quantity{}
	}
	sum := maps.Clone(s.Shared[id])
	if sum == nil {
		sum = map[cluster.QualifiedName]cluster.Quantity{}
	}
	for name, q := range a.ConsumedCapacity {
		sum[name] = sum[name].SaturatingAdd(q) // a sum past the most fits no capacity
	}
	s.Shared[id] = sum
}

// Input is one allocation: a pod's claims, on one node.
type Input struct {
	// Claims to allocate, in order (the pod's, the extended-resource
	// claim last); each gets a result or none does.
	Claims []*cluster.ResourceClaim
	// Classes by name.
	Classes map[string]*cluster.DeviceClass
	// Slices are all slices of the cluster: the allocator picks those the
	// node reaches, and counts a pool's slices everywhere to judge it
	// complete.
	Slices    []*cluster.ResourceSlice
	Node      *cluster.Node
	Allocated *AllocatedState // nil: nothing allocated
	Selectors SelectorEvaluator
	Features  Features
	// Devices, when set, are the devices the node reaches, found before
	// with NewNodeDevices from the same Slices, Node and Features; nil:
	// Allocate finds them.
	Devices *NodeDevices
	// Rank, when set, orders the candidate devices before the search:
	// lower ranks are tried first, equal ranks in the search order. Not
	// in Kubernetes, whose allocator takes devices in search order; nil
	// keeps that order.
	Rank func(cluster.DeviceID) int64
	// MaxSteps bounds the search (see StepsFor): past that many steps
	// Allocate gives up with ErrTimeout. 0 is the budget of
	// DefaultFilterTimeout; a negative value is no bound.
	MaxSteps int64
}

// Allocate allocates the devices of in.Claims on in.Node, as kube's
// incubating structured allocator does. It returns one result per claim
// and true; or false when the claims cannot all be allocated on the node;
// or an error: fatal for the pod's attempt (kube's texts), except
// ErrInvalidPools, which is node-local.
func Allocate(in *Input) ([]cluster.AllocationResult, bool, error) {
	return new(Allocator).Allocate(in)
}

// Allocator is Allocate with its working memory kept from one call to the
// next (the candidates, the requests, the search's bookkeeping), for a
// caller that allocates many times in a row, as the DynamicResources
// plugin does on each node it tries: a call answers exactly as Allocate
// does, and its results share no memory with the Allocator. The zero
// value is ready. It belongs to one goroutine.
type Allocator struct{ a allocator }

// Allocate is the package's Allocate, reusing al's memory.
func (al *Allocator) Allocate(in *Input) ([]cluster.AllocationResult, bool, error) {
	a := &al.a
	defer a.release()
	if ok, err := a.search(in); !ok || err != nil {
		return nil, false, err
	}
	return a.results(), true, nil
}

// Fits answers as Allocate does, without making the results (most of
// what a successful call allocates): for a caller that asks of many
// nodes and takes the devices of one.
func (al *Allocator) Fits(in *Input) (bool, error) {
	defer al.a.release()
	return al.a.search(in)
}

// search is Allocate up to its results: whether all claims were
// allocated (the picks hold the devices), or the error.
func (a *allocator) search(in *Input) (bool, error) {
	a.reset(in)
	if err := a.prepare(); err != nil {
		return false, err
	}
	if a.hopeless() {
		return false, a.invalidPools()
	}
	// As in kube, errMaxSize reaching here (from the first claim; later
	// claims swallow it) is returned; the check of each claim's minimum
	// in prepare makes that unreachable in practice.
	done, err := a.allocateOne(0, 0, 0, 0, false, 0)
	if err != nil {
		return false, err
	}
	if !done {
		return false, a.invalidPools()
	}
	return true, nil
}

// invalidPools is the error of an allocation that failed: ErrInvalidPools
// when a pool the node reaches is invalid, else none.
func (a *allocator) invalidPools() error {
	for _, p := range a.pools {
		if p.invalid {
			return ErrInvalidPools
		}
	}
	return nil
}

func (a *allocator) results() []cluster.AllocationResult {
	out := make([]cluster.AllocationResult, len(a.claims))
	for ci := range a.claims {
		c := &a.claims[ci]
		r := &out[ci]
		r.Devices = make([]cluster.DeviceRequestAllocation, len(c.picks))
		for i, pk := range c.picks {
			d := &a.devs[pk.dev]
			r.Devices[i] = cluster.DeviceRequestAllocation{
				Request:     a.reqs[pk.req].resultName,
				Driver:      d.id.Driver,
				Pool:        d.id.Pool,
				Device:      d.id.Device,
				AdminAccess: a.reqs[pk.req].admin,
			}
			if pk.shared {
				r.Devices[i].ConsumedCapacity = consumedCapacity(d.caps, a.reqs[pk.req].exact.Capacity)
			}
			if d.slice.NodeName != "" {
				r.Node = d.slice.NodeName
			}
		}
		if r.Node == "" {
			r.NodeSelector = a.nodeSelector(c)
		}
	}
	return out
}

// nodeSelector is the node selector of a claim's allocation without a
// node-local device, as kube's createNodeSelector makes it: one term
// holding the requirements of every picked device's slice selector (each
// once); nil, every node, when every device is of an AllNodes slice.
func (a *allocator) nodeSelector(c *claimData) []cluster.SelectorTerm {
	var term cluster.SelectorTerm
	add := func(to *[]cluster.SelectorRequirement, reqs []cluster.SelectorRequirement) {
		for _, r := range reqs {
			if !slices.ContainsFunc(*to, func(o cluster.SelectorRequirement) bool {
				return o.Key == r.Key && o.Operator == r.Operator && slices.Equal(o.Values, r.Values)
			}) {
				*to = append(*to, r)
			}
		}
	}
	for _, pk := range c.picks {
		if sel := a.devs[pk.dev].slice.NodeSelector; len(sel) == 1 {
			add(&term.MatchFields, sel[0].MatchFields)
			add(&term.MatchExpressions, sel[0].MatchExpressions)
		}
	}
	if len(term.MatchFields) == 0 && len(term.MatchExpressions) == 0 {
		return nil
	}
	return []cluster.SelectorTerm{term}
}

// claimName renders a claim as kube's klog.KObj does.
func claimName(c *cluster.ResourceClaim) string {
	if c.Namespace == "" {
		return c.Name
	}
	return c.Namespace + "/" + c.Name
}

// prepare checks each claim and its requests in order, as kube's Allocate
// and validateDeviceRequest do, and sets up the search.
func (a *allocator) prepare() error {
	f := a.in.Features
	for ci, claim := range a.in.Claims {
		c := &a.claims[ci]
		minDevices := 0
		for _, request := range claim.Spec.Requests {
			group := c.addRequest()
			if len(request.FirstAvailable) > 0 {
				if !f.PrioritizedList {
					return fmt.Errorf("claim %s, request %s: has subrequests, but the DRAPrioritizedList feature is disabled", claimName(claim), request.Name)
				}
				if !f.ConsumableCapacity {
					for _, sub := range request.FirstAvailable {
						if len(sub.Capacity) > 0 {
							return fmt.Errorf("claim %s, subrequest %s: has capacity requests, but the DRAConsumableCapacity feature is disabled", claimName(claim), sub.Name)
						}
					}
				}
				least := -1
				for si := range request.FirstAvailable {
					sub := &request.FirstAvailable[si]
					r := a.newReq()
					*r = reqData{claim: ci, name: sub.Name, parent: request.Name, resultName: request.Name + "/" + sub.Name, exact: &sub.ExactDeviceRequest, all: r.all[:0]}
					if err := a.validate(r); err != nil {
						return err
					}
					if least < 0 || r.numDevices < least {
						least = r.numDevices
					}
					group.alts = append(group.alts, r.index)
				}
				group.sub = true
				minDevices += least
			} else {
				if request.Exactly == nil {
					return fmt.Errorf("claim %s, request %s: missing device class name (unsupported request type?)", claimName(claim), request.Name)
				}
				if !f.ConsumableCapacity && len(request.Exactly.Capacity) > 0 {
					return fmt.Errorf("claim %s, request %s: has capacity requests, but the DRAConsumableCapacity feature is disabled", claimName(claim), request.Name)
				}
				r := a.newReq()
				*r = reqData{claim: ci, name: request.Name, resultName: request.Name, exact: request.Exactly, admin: request.Exactly.AdminAccess, all: r.all[:0]}
				if err := a.validate(r); err != nil {
					return err
				}
				group.alts = append(group.alts, r.index)
				minDevices += r.numDevices
			}
		}
		if minDevices > MaxDevicesPerClaim {
			return fmt.Errorf("claim %s: number of requested devices %d exceeds the claim limit of %d", claimName(claim), minDevices, MaxDevicesPerClaim)
		}
		if cap(c.picks) < minDevices {
			c.picks = make([]pick, 0, minDevices)
		}
		for i, k := range claim.Spec.Constraints {
			switch {
			case k.MatchAttribute != "":
				c.constraints = append(c.constraints, &matchAttribute{requests: k.Requests, name: k.MatchAttribute})
			case k.DistinctAttribute != "":
				c.constraints = append(c.constraints, &distinctAttribute{requests: k.Requests, name: k.DistinctAttribute})
			default:
				return fmt.Errorf("claim %s, constraint #%d: empty constraint (unsupported constraint type?)", claimName(claim), i)
			}
		}
	}
	return nil
}

// validate is kube's validateDeviceRequest: it registers the request (or
// subrequest) and finds how many devices it needs; in mode All that is
// every device selectable for it whose capacity fits beside the committed
// allocations, and an incomplete or invalid pool is an error.
func (a *allocator) validate(r *reqData) error {
	claim := a.in.Claims[r.claim]
	for i, s := range r.exact.Selectors {
		if s.CEL == "" {
			return fmt.Errorf("claim %s, request %s, selector #%d: CEL expression empty (unsupported selector type?)", claimName(claim), r.name, i)
		}
	}
	if r.admin && !a.in.Features.AdminAccess {
		return fmt.Errorf("claim %s, request %s: admin access is requested, but the feature is disabled", claimName(claim), r.name)
	}
	className := r.exact.DeviceClassName
	if className == "" {
		return fmt.Errorf("claim %s, request %s: missing device class name (unsupported request type?)", claimName(claim), r.name)
	}
	class := a.in.Classes[className]
	if class == nil {
		return fmt.Errorf("claim %s, request %s: could not retrieve device class %s: deviceclass.resource.k8s.io %q not found", claimName(claim), r.name, className, className)
	}
	r.class = class
	r.index = len(a.reqs)
	a.reqs = append(a.reqs, r)
	switch r.exact.EffectiveMode() {
	case cluster.DeviceAllocationExactCount:
		r.numDevices = int(r.exact.EffectiveCount())
	case cluster.DeviceAllocationAll:
		for _, p := range a.pools {
			if p.incomplete {
				return fmt.Errorf("claim %s, request %s: asks for all devices, but resource pool %s is currently being updated", claimName(claim), r.name, p.id())
			}
			if p.invalid {
				return fmt.Errorf("claim %s, request %s: asks for all devices, but resource pool %s is currently invalid", claimName(claim), r.name, p.id())
			}
		}
		for d := range a.devs {
			ok, err := a.selectable(r, d)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			if a.in.Features.ConsumableCapacity {
				// by the device's capacity alone, as kube counts it: a
				// device whose capacity is taken stays in the list, and
				// mode All then fails on it
				if fits, err := capacityFits(a.devs[d].caps, r.exact.Capacity, nil, nil); err != nil || !fits {
					continue
				}
			}
			r.all = append(r.all, d)
		}
		r.numDevices = len(r.all)
	default:
		return fmt.Errorf("claim %s, request %s: unsupported count mode %s", claimName(claim), r.name, r.exact.AllocationMode)
	}
	return nil
}

// selectable reports whether the class's selectors, then the request's,
// all select device d; the answer is cached per (request, device).
func (a *allocator) selectable(r *reqData, d int) (bool, error) {
	key := r.index*len(a.devs) + d
	if key < len(a.match) {
		switch a.match[key] {
		case matchYes:
			return true, nil
		case matchNo:
			return false, nil
		}
	} else {
		a.growMatch()
	}
	dev := &a.devs[d]
	ok, err := a.selectorsMatch(r, r.class.Selectors, dev, true)
	if err == nil && ok {
		ok, err = a.selectorsMatch(r, r.exact.Selectors, dev, false)
	}
	if err != nil {
		return false, err
	}
	a.match[key] = matchNo
	if ok {
		a.match[key] = matchYes
	}
	return ok, nil
}

func (a *allocator) growMatch() {
	need := len(a.reqs) * len(a.devs)
	if cap(a.match) < need {
		grown := make([]int8, len(a.match), 2*need)
		copy(grown, a.match)
		a.match = grown
	}
	n := len(a.match)
	a.match = a.match[:need]
	clear(a.match[n:]) // unknown (memory of an earlier call)
}

func (a *allocator) selectorsMatch(r *reqData, sels []cluster.DeviceSelector, dev *device, ofClass bool) (bool, error) {
	for i, s := range sels {
		ok, err := a.in.Selectors.Match(s.CEL, dev.id.Driver, dev.dev)
		if err != nil {
			kind := "CEL runtime error"
			if errors.Is(err, ErrSelectorCompile) {
				kind = "CEL compile error"
			}
			if ofClass {
				return false, fmt.Errorf("class %s: selector #%d: %s: %w", r.class.Name, i, kind, err)
			}
			return false, fmt.Errorf("claim %s: selector #%d: %s: %w", claimName(a.in.Claims[r.claim]), i, kind, err)
		}
		if !ok {
			return false, nil
		}
	}
	return true, nil
}
