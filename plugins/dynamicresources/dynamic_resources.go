package dynamicresources

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/dra"
	fw "github.com/gangsim/gangsim/framework"
	"github.com/gangsim/gangsim/plugins/helper"
)

// Name is the plugin's name in profiles.
const Name = "DynamicResources"

// MaxPodsPerClaim is the most pods one claim can be reserved for
// (resource.k8s.io's ResourceClaimReservedForMaxSize).
const MaxPodsPerClaim = 256

// firstAvailableMaxSize is the most alternatives a request lists
// (FirstAvailableDeviceRequestMaxSize); the first scores this much.
const firstAvailableMaxSize = 8

// Args are the plugin's arguments: the DRA feature gates of v1.37, each
// with its default, and kube's filterTimeout. Their yaml names are those
// of a profile's pluginConfig (docs/devices.md).
type Args struct {
	// Features are the allocator's gates (dra.DefaultFeatures: all on,
	// as in v1.37).
	Features dra.Features `yaml:"features"`
	// FilterTimeout is kube's filterTimeout (dra.DefaultFilterTimeout, 10
	// s): how long Filter may search one node's devices before the node
	// is rejected ("timed out trying to allocate devices"); 0 disables
	// it. The search is bounded in counted steps, not on the clock
	// (dra.StepsFor), so that every run decides alike.
	FilterTimeout time.Duration `yaml:"filterTimeout"`
	// Preemption is the DRAPreemption gate, alpha and off in v1.37: a
	// node whose devices cannot serve the pod is then resolvable by
	// preemption, and a victim's claims are freed in the preemption's
	// simulation when it is the claims' last pod. Off, a pod failing for
	// its claims is never helped by evicting others, as in Kubernetes.
	Preemption bool `yaml:"preemption"`
	// DeviceRank, when set, ranks a node's devices for the claims to
	// allocate there: the allocator tries lower ranks first (equal ranks
	// in its search order). It is not in Kubernetes, whose allocator takes
	// the first devices that fit in search order: it lets a policy choose
	// which devices a pod gets (best fit among shared GPUs, say). It must
	// depend only on the node and the claims, as the filter memo keeps a
	// node's verdict per claim spec. Go only; nil keeps kube's order.
	DeviceRank func(node *cluster.NodeInfo, claims []*cluster.ResourceClaim) func(cluster.DeviceID) int64 `json:"-" yaml:"-"`
	// NoAllocationMemo allocates afresh on every Filter, instead of
	// remembering allocations by node content and claim specs and each
	// node's devices by its slices: for the test that the memo changes no
	// decision. Go only.
	NoAllocationMemo bool `json:"-" yaml:"-"`
}

// NewArgs returns the defaults.
func NewArgs() any {
	return &Args{Features: dra.DefaultFeatures(), FilterTimeout: dra.DefaultFilterTimeout}
}

// DynamicResources is kube-scheduler's DynamicResources plugin: it
// allocates a pod's ResourceClaims on the node it is tried on (Filter,
// with dra.Allocate), ranks nodes by the alternatives of firstAvailable
// requests they allow (Score), and reserves the claims with the pod
// (Reserve: tentative claim reservations on the cycle's snapshot, so that
// a group's members allocate together and roll back together).
type DynamicResources struct {
	h          fw.Handle
	features   dra.Features
	preemption bool
	maxSteps   int64 // the search's budget, from FilterTimeout
	rank       func(*cluster.NodeInfo, []*cluster.ResourceClaim) func(cluster.DeviceID) int64
	selectors  *dra.CELSelectors
	// sigs caches the signature part of each claim spec, by spec key;
	// specIDs numbers the lists of them PreFilter makes.
	sigs    map[string]string
	specIDs map[string]int32
	// allocs remembers allocations by node content (the snapshot's stamp)
	// and claim specs: an allocation is a function of the two, and pods
	// whose other requests differ (a trace's) ask the same of a node
	allocs *allocMemo
	// devices are the devices each node reaches, by node name, found
	// again when its slices or its node object change
	devices map[string]*nodeDevicesEntry
	// alloc is the allocator, its memory kept from call to call, and
	// input its input
	alloc dra.Allocator
	input dra.Input
}

var (
	_ fw.PreEnqueuePlugin     = (*DynamicResources)(nil)
	_ fw.PreFilterPlugin      = (*DynamicResources)(nil)
	_ fw.PreFilterExtensions  = (*DynamicResources)(nil)
	_ fw.FilterPlugin         = (*DynamicResources)(nil)
	_ fw.PreScorePlugin       = (*DynamicResources)(nil)
	_ fw.ScorePlugin          = (*DynamicResources)(nil)
	_ fw.ScoreNormalizer      = (*DynamicResources)(nil)
	_ fw.ReservePlugin        = (*DynamicResources)(nil)
	_ fw.Signer               = (*DynamicResources)(nil)
	_ fw.Stateless            = (*DynamicResources)(nil)
	_ fw.EnqueueExtensions    = (*DynamicResources)(nil)
	_ fw.PointwiseNormalizer  = (*DynamicResources)(nil)
	_ fw.PreScoreIgnoresNodes = (*DynamicResources)(nil)
	_ fw.PreScoreSkipper      = (*DynamicResources)(nil)
)

// New returns the plugin.
func New(args any, h fw.Handle) (fw.Plugin, error) {
	a, err := fw.ArgsAs[Args](args)
	if err != nil {
		return nil, err
	}
	if args == nil {
		a = NewArgs().(*Args)
	}
	if a.FilterTimeout < 0 {
		return nil, fmt.Errorf("filterTimeout %v must not be negative", a.FilterTimeout)
	}
	pl := &DynamicResources{h: h, features: a.Features, preemption: a.Preemption, rank: a.DeviceRank, selectors: dra.NewCELSelectors(), sigs: map[string]string{}, specIDs: map[string]int32{}, devices: map[string]*nodeDevicesEntry{},
		maxSteps: dra.StepsFor(a.FilterTimeout)}
	if !a.NoAllocationMemo {
		pl.allocs = &allocMemo{}
	}
	return pl, nil
}

// Name returns Name.
func (*DynamicResources) Name() string { return Name }

// Stateless: the answers depend on the pod and the snapshot only.
func (*DynamicResources) Stateless() {}

// EventsToRegister: devices are freed when pods leave their nodes, come
// with nodes, and change with slices, classes and claims.
func (*DynamicResources) EventsToRegister() fw.ClusterEvent {
	return fw.AssignedPodDeleted | fw.NodeAdded | fw.DevicesChanged
}

const stateKey fw.StateKey = Name

// PreEnqueue holds a pod until the resourceclaim controller has made the
// claim of each of its entries that names a template, as its status
// (ResourceClaimStatuses) records it, with kube-scheduler's message
// (NotCreatedMessage). The pod is let through when the controller records
// its claims (the Scheduler's SetResourceClaimStatuses).
func (pl *DynamicResources) PreEnqueue(pod *cluster.PodInfo) *fw.Status {
	p := pod.Pod()
	for i := range p.ResourceClaims {
		if e := &p.ResourceClaims[i]; e.ResourceClaimTemplateName != "" && !recorded(p.ResourceClaimStatuses, e.Name) {
			return unresolvable(NotCreatedMessage(p))
		}
	}
	return nil
}

// recorded reports whether the statuses name the claim of entry.
func recorded(statuses []cluster.PodResourceClaimStatus, entry string) bool {
	for i := range statuses {
		if statuses[i].Name == entry {
			return true
		}
	}
	return false
}

// NotCreatedMessage is the reason of a pod whose claim from a template is
// not made yet, in kube-scheduler's words (`pod "ns/name": ResourceClaim
// not created yet`).
func NotCreatedMessage(p *cluster.Pod) string {
	return fmt.Sprintf("pod %q: ResourceClaim not created yet", string(p.Key()))
}

// stateData is one pod's attempt: its claims, in the order of its
// spec.resourceClaims, and what Filter found per node.
type stateData struct {
	claims []podClaim
	// toAllocate are the claims not allocated yet, for dra.Allocate.
	toAllocate []*cluster.ResourceClaim
	classes    map[string]*cluster.DeviceClass
	// scored says a claim to allocate has a firstAvailable request.
	scored bool
	// allocations are Filter's results by node index: one per claim to
	// allocate, in order (kept only where allocate does not remember them).
	allocations map[int][]cluster.AllocationResult
	// freed counts, per claim, the pods the preemption's simulation took
	// off the claim's node (with Args.Preemption).
	freed map[string]int
	// extended are the pod's extended resources a device class serves
	// (KEP-5004), and extendedKey the claim they are allocated in on a
	// node that does not offer them; extClaims are those claims by the
	// set of resources a node lacks (a bit each).
	extended    []extendedRequest
	extendedKey string
	extClaims   map[uint64]*cluster.ResourceClaim
	// specs numbers the claims to allocate and the extended resources
	// (one number per distinct list, DynamicResources.specIDs), for
	// remembered allocations
	specs int32
}

// extendedRequest is an extended resource of the pod served by a class.
type extendedRequest struct {
	name  cluster.ResourceName
	count int64
	class *cluster.DeviceClass
}

// podClaim is one claim of the pod.
type podClaim struct {
	key   string
	claim *cluster.ResourceClaim
	// node is the index of the node the claim is allocated on, or -1;
	// pods how many pods reserve it (over all nodes for a node-independent
	// claim); alloc its allocation (nil: not allocated). A claim
	// allocated devices no node owns has node -1 and is usable on the
	// nodes its allocation selects.
	node  int
	pods  int
	alloc *cluster.AllocationResult
}

// Clone copies what Filter and the extensions change.
func (s *stateData) Clone() fw.StateData {
	c := *s
	c.allocations = make(map[int][]cluster.AllocationResult, len(s.allocations))
	for k, v := range s.allocations {
		c.allocations[k] = v // results are read-only
	}
	if s.freed != nil {
		c.freed = make(map[string]int, len(s.freed))
		for k, v := range s.freed {
			c.freed[k] = v
		}
	}
	return &c
}

func readState(state *fw.CycleState) *stateData {
	d, ok := state.Read(stateKey)
	if !ok {
		return nil
	}
	return d.(*stateData)
}

// unresolvable is kube's statusUnschedulable: no other pod's eviction
// helps.
func unresolvable(reason string) *fw.Status {
	return fw.NewStatus(fw.UnschedulableAndUnresolvable, reason).WithPlugin(Name)
}

// PreFilter finds the pod's claims: each must exist, and one allocated
// must have room for one more pod; a claim to allocate must name classes
// that exist. A pod without claims is skipped.
func (pl *DynamicResources) PreFilter(state *fw.CycleState, pod *cluster.PodInfo, snap *cluster.Snapshot) *fw.Status {
	p := pod.Pod()
	extended := extendedRequests(p, snap)
	if len(p.ResourceClaims) == 0 && extended == nil {
		return statusSkip
	}
	s := &stateData{claims: make([]podClaim, 0, len(p.ResourceClaims)), extended: extended}
	if extended != nil {
		s.extendedKey = p.ExtendedClaimKey()
		for _, e := range extended {
			if s.classes == nil {
				s.classes = map[string]*cluster.DeviceClass{}
			}
			s.classes[e.class.Name] = e.class
		}
	}
	for i := range p.ResourceClaims {
		key := p.ClaimKey(i)
		if key == "" { // a profile without this PreEnqueue let it through
			return unresolvable(NotCreatedMessage(p))
		}
		rc, ok := snap.ResourceClaim(key)
		if !ok {
			_, name, _ := strings.Cut(key, "/")
			return unresolvable(fmt.Sprintf("resourceclaim.resource.k8s.io %q not found", name))
		}
		if st := checkOwner(p, i, rc); st != nil {
			return st
		}
		pc := podClaim{key: key, claim: rc, node: -1}
		if node, alloc, ok := snap.ClaimNode(key); ok {
			pods := snap.ClaimPods(key)
			if pods >= MaxPodsPerClaim && !forGroup(p, rc) {
				return unresolvable("resourceclaim in use")
			}
			pc.node, pc.pods, pc.alloc = node, pods, alloc
		} else {
			if st := pl.checkClasses(snap, rc, s); st != nil {
				return st
			}
			s.toAllocate = append(s.toAllocate, rc)
		}
		s.claims = append(s.claims, pc)
	}
	s.allocations = map[int][]cluster.AllocationResult{}
	var b []byte
	for _, rc := range s.toAllocate {
		b = append(b, pl.specSig(rc)...)
	}
	for _, e := range s.extended {
		b = append(append(append(b, 'x'), e.name...), ':')
		b = strconv.AppendInt(append(strconv.AppendInt(b, e.count, 10), '@'), int64(len(e.class.Name)), 10)
		b = append(b, e.class.Name...)
	}
	s.specs = pl.specsID(b)
	state.Write(stateKey, s)
	return nil
}

// checkOwner refuses a pod's claim from a template that was not made for
// the pod or for its PodGroup (its owner is another object), as kube's
// resourceclaim.IsForPod.
func checkOwner(p *cluster.Pod, i int, rc *cluster.ResourceClaim) *fw.Status {
	if p.ResourceClaims[i].ResourceClaimTemplateName == "" || forGroup(p, rc) {
		return nil
	}
	if o := rc.Owner; o == nil || o.Kind != cluster.OwnerPod || o.Name != p.Name {
		return unresolvable(fmt.Sprintf("ResourceClaim %s was not created for pod %s (pod is not owner)", rc.Key(), p.Key()))
	}
	return nil
}

// forGroup reports whether a claim was made for the pod's PodGroup: it is
// reserved for the group as one consumer (DRAWorkloadResourceClaims), so
// the group's pods do not count against MaxPodsPerClaim.
func forGroup(p *cluster.Pod, rc *cluster.ResourceClaim) bool {
	o := rc.Owner
	return o != nil && o.Kind == cluster.OwnerPodGroup && p.PodGroup != "" && o.Name == p.PodGroup
}

// extendedRequests lists the pod's extended resources that a device class
// serves, in the order of its requests (nil for none).
func extendedRequests(p *cluster.Pod, snap *cluster.Snapshot) []extendedRequest {
	if !p.Requests.HasScalars() || !snap.HasDeviceClasses() {
		return nil
	}
	var out []extendedRequest
	for sc := range p.Requests.Scalars() {
		if dc, ok := snap.DeviceClassFor(sc.Name); ok && sc.Value > 0 {
			out = append(out, extendedRequest{name: sc.Name, count: sc.Value, class: dc})
		}
	}
	return out
}

// claimsOn returns the claims to allocate on the node: the pod's, and the
// claim of its extended resources the node does not offer, if any.
func (s *stateData) claimsOn(ni *cluster.NodeInfo) []*cluster.ResourceClaim {
	if len(s.extended) == 0 {
		return s.toAllocate
	}
	var mask uint64
	alloc := ni.Allocatable()
	for i, e := range s.extended {
		if i < 64 && alloc.Get(e.name) == 0 {
			mask |= 1 << i
		}
	}
	if mask == 0 {
		return s.toAllocate
	}
	rc := s.extClaims[mask]
	if rc == nil {
		ns, name, _ := strings.Cut(s.extendedKey, "/")
		rc = &cluster.ResourceClaim{Namespace: ns, Name: name}
		for i, e := range s.extended {
			if mask&(1<<i) != 0 {
				rc.Spec.Requests = append(rc.Spec.Requests, cluster.DeviceRequest{Name: fmt.Sprintf("container-0-request-%d", i),
					Exactly: &cluster.ExactDeviceRequest{DeviceClassName: e.class.Name, Count: e.count}})
			}
		}
		if s.extClaims == nil {
			s.extClaims = map[uint64]*cluster.ResourceClaim{}
		}
		s.extClaims[mask] = rc
	}
	return append(s.toAllocate[:len(s.toAllocate):len(s.toAllocate)], rc)
}

// checkClasses checks that every class a claim to allocate names exists
// (kube's validateDeviceClass), gathers the classes and notes whether a
// request has alternatives.
func (pl *DynamicResources) checkClasses(snap *cluster.Snapshot, rc *cluster.ResourceClaim, s *stateData) *fw.Status {
	check := func(class, request string) *fw.Status {
		dc, ok := snap.DeviceClass(class)
		if !ok {
			return unresolvable(fmt.Sprintf("request %s: device class %s does not exist", request, class))
		}
		if s.classes == nil {
			s.classes = map[string]*cluster.DeviceClass{}
		}
		s.classes[class] = dc
		return nil
	}
	for i := range rc.Spec.Requests {
		r := &rc.Spec.Requests[i]
		switch {
		case r.Exactly != nil:
			if st := check(r.Exactly.DeviceClassName, r.Name); st != nil {
				return st
			}
		case len(r.FirstAvailable) > 0:
			if !pl.features.PrioritizedList {
				return unresolvable(fmt.Sprintf("resource claim %s, request %s: has subrequests, but the DRAPrioritizedList feature is disabled", rc.Key(), r.Name))
			}
			s.scored = true
			for j := range r.FirstAvailable {
				if st := check(r.FirstAvailable[j].DeviceClassName, r.Name+"/"+r.FirstAvailable[j].Name); st != nil {
					return st
				}
			}
		}
	}
	return nil
}

var (
	errNotAvailable = unresolvable("resourceclaim not available on the node")
	errCannotAlloc  = unresolvable("cannot allocate all claims")
	// statusSkip skips a pod without claims: one status for all, most
	// pods have none (read-only, as every status is)
	statusSkip = fw.NewStatus(fw.Skip)
	// with Args.Preemption, evicting pods may free the devices
	errCannotAllocResolvable = fw.NewStatus(fw.Unschedulable, "cannot allocate all claims").WithPlugin(Name)
	// the search spent its budget (kube: the filter timeout expired)
	errTimedOut = unresolvable(dra.ErrTimeout.Error())
)

// Filter checks that the pod's allocated claims are on the node (or, for
// a claim of devices no node owns, that its allocation's node selector
// selects the node) and that the others can be allocated there; it keeps the allocation for Reserve
// and Score.
func (pl *DynamicResources) Filter(state *fw.CycleState, pod *cluster.PodInfo, ni *cluster.NodeInfo) *fw.Status {
	s := readState(state)
	if s == nil {
		return nil
	}
	node := ni.Index()
	for i := range s.claims {
		c := &s.claims[i]
		if c.node >= 0 && c.node != node {
			return errNotAvailable // no eviction here moves it
		}
		if c.node < 0 && c.alloc != nil && !c.alloc.UsableOn(ni.Node()) {
			return errNotAvailable // the allocation's node selector does not match
		}
	}
	if len(s.toAllocate) == 0 && len(s.extended) == 0 {
		return nil
	}
	results, ok, err := pl.allocate(s, ni, !pl.remembers(s)) // remembered, Score and Reserve make the results
	switch {
	case errors.Is(err, dra.ErrInvalidPools):
		return unresolvable(err.Error())
	case errors.Is(err, dra.ErrTimeout):
		return errTimedOut
	case err != nil:
		return fw.NewStatus(fw.Error, err.Error()).WithPlugin(Name)
	case !ok:
		if pl.preemption {
			return errCannotAllocResolvable
		}
		return errCannotAlloc
	}
	if !pl.remembers(s) {
		s.allocations[node] = results // else allocationOn finds it again, at once
	}
	return nil
}

// PodLocalFor reports that the plugin does nothing for the pod: it has
// no claims and requests no extended resource a device could serve, so
// its Filter passes every node and its Reserve allocates nothing
// (framework.PodLocal).
func (pl *DynamicResources) PodLocalFor(pod *cluster.PodInfo, _ *cluster.Snapshot) bool {
	p := pod.Pod()
	return len(p.ResourceClaims) == 0 && !p.Requests.HasScalars()
}

var _ fw.PodLocal = (*DynamicResources)(nil)

// Sign appends what the pod's verdicts depend on besides the node: the
// classes' version and, per claim, its spec and where it is allocated.
func (pl *DynamicResources) Sign(pod *cluster.PodInfo, sig []byte) ([]byte, bool) {
	p := pod.Pod()
	if len(p.ResourceClaims) == 0 && !p.Requests.HasScalars() {
		return sig, true
	}
	snap := pl.h.Snapshot()
	sig = strconv.AppendInt(sig, snap.DeviceClassVersion(), 10)
	if v := snap.NetworkVersion(); v != 0 {
		// the devices no node owns, whose use every node sees
		sig = strconv.AppendUint(append(sig, 'n'), v, 10)
	}
	sig = helper.AppendRequests(sig, &p.Requests) // the extended resources devices may serve
	for i := range p.ResourceClaims {
		key := p.ClaimKey(i)
		rc, ok := snap.ResourceClaim(key)
		if !ok {
			return sig, false // PreFilter rejects it
		}
		if node, _, ok := snap.ClaimNode(key); ok {
			// the verdict depends on the claim's node and its pods there
			sig = append(sig, 'a')
			sig = strconv.AppendInt(sig, int64(node), 10)
			sig = append(sig, ':')
			sig = append(sig, key...)
			sig = append(sig, ';')
			continue
		}
		sig = append(sig, 'u')
		sig = append(sig, pl.specSig(rc)...)
	}
	return sig, true
}

// specsID numbers a list of specs (PreFilter's), one number per
// distinct list.
func (pl *DynamicResources) specsID(b []byte) int32 {
	if id, ok := pl.specIDs[string(b)]; ok {
		return id
	}
	id := int32(len(pl.specIDs))
	pl.specIDs[string(b)] = id
	return id
}

// specSig is a short name of a claim's spec, one per distinct spec.
func (pl *DynamicResources) specSig(rc *cluster.ResourceClaim) string {
	k := rc.SpecKey()
	if s, ok := pl.sigs[k]; ok {
		return s
	}
	s := strconv.Itoa(len(pl.sigs)) + ";"
	pl.sigs[k] = s
	return s
}

// PreFilterExtensions is the plugin itself: with Args.Preemption, the
// preemption's simulation frees a claim when it takes off its last pod.
func (pl *DynamicResources) PreFilterExtensions() fw.PreFilterExtensions { return pl }

// AddPod undoes RemovePod.
func (pl *DynamicResources) AddPod(state *fw.CycleState, _, added *cluster.PodInfo, _ *cluster.NodeInfo) *fw.Status {
	s := readState(state)
	if s == nil || !pl.preemption {
		return nil
	}
	p := added.Pod()
	for i := range p.ResourceClaims {
		// a count, not a set: a nominated pod counted on its node comes
		// in before the RemovePod that undoes it
		key := p.ClaimKey(i)
		if s.freed == nil {
			s.freed = map[string]int{}
		}
		if s.freed[key]--; s.freed[key] == 0 {
			delete(s.freed, key)
		}
	}
	clear(s.allocations)
	return nil
}

// RemovePod counts a victim's claims as released by it.
func (pl *DynamicResources) RemovePod(state *fw.CycleState, _, removed *cluster.PodInfo, _ *cluster.NodeInfo) *fw.Status {
	s := readState(state)
	if s == nil || !pl.preemption {
		return nil
	}
	p := removed.Pod()
	for i := range p.ResourceClaims {
		key := p.ClaimKey(i)
		if s.freed == nil {
			s.freed = map[string]int{}
		}
		if s.freed[key]++; s.freed[key] == 0 {
			delete(s.freed, key)
		}
	}
	clear(s.allocations)
	return nil
}

// Reserve reserves the pod's claims on the node in the cycle's snapshot:
// an allocated claim counts one more pod, the others are allocated there
// with what Filter found. The snapshot's rollback undoes it all, so
// Unreserve has nothing of its own to undo.
func (pl *DynamicResources) Reserve(state *fw.CycleState, pod *cluster.PodInfo, node int) *fw.Status {
	s := readState(state)
	if s == nil {
		return nil
	}
	snap := pl.h.Snapshot()
	var results []cluster.AllocationResult
	if len(s.toAllocate) > 0 || len(s.extended) > 0 {
		var err error
		if results, err = pl.allocationOn(s, snap.Node(node)); err != nil {
			return fw.NewStatus(fw.Error, err.Error()).WithPlugin(Name)
		}
	}
	next := 0
	for i := range s.claims {
		c := &s.claims[i]
		var alloc *cluster.AllocationResult
		if c.alloc == nil {
			alloc = &results[next]
			next++
		}
		if err := snap.ReserveClaim(node, c.key, alloc); err != nil {
			return fw.NewStatus(fw.Error, err.Error()).WithPlugin(Name)
		}
	}
	if next < len(results) { // the claim of the extended resources the node lacks
		if err := snap.ReserveClaim(node, s.extendedKey, &results[next]); err != nil {
			return fw.NewStatus(fw.Error, err.Error()).WithPlugin(Name)
		}
	}
	return nil
}

// Unreserve does nothing: Reserve's changes are the snapshot's, undone by
// its rollback.
func (*DynamicResources) Unreserve(*fw.CycleState, *cluster.PodInfo, int) {}
