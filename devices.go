package gangsim

import (
	"fmt"
	"iter"
	"slices"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/cluster/deviceselector"
	"github.com/gangsim/gangsim/dra"
	fw "github.com/gangsim/gangsim/framework"
)

// Devices (Dynamic Resource Allocation): the classes, slices and claims
// the cluster holds, and the claims' life with their pods. The
// DynamicResources plugin allocates claims in the cycle; this file admits
// the objects and keeps claims in step with the pods that use them. The
// claims made for pods from ResourceClaimTemplates are the resourceclaim
// controller's (controllers.ResourceClaims), which adds and deletes them
// through this API, as Kubernetes' controller does through the API
// server: the scheduler never reads a template.

// AddDeviceClass adds a device class. Its CEL selectors are compiled now:
// one that does not compile is an error naming the class and the field,
// as the API server reports it.
func (s *Scheduler) AddDeviceClass(dc cluster.DeviceClass) error {
	if err := s.usable(); err != nil {
		return err
	}
	if err := dc.Validate(); err != nil {
		return err
	}
	if err := deviceselector.CheckSelectors("deviceclass "+dc.Name, "spec", dc.Selectors); err != nil {
		return err
	}
	if err := s.cache.AddDeviceClass(dc); err != nil {
		return err
	}
	s.clusterChanged(fw.DevicesChanged)
	return nil
}

// AddResourceSlice publishes a slice of devices for its node (which need
// not exist yet), or for the nodes it selects (AllNodes, NodeSelector):
// network devices, whose use every node sees (docs/devices.md).
func (s *Scheduler) AddResourceSlice(rs cluster.ResourceSlice) error {
	if err := s.usable(); err != nil {
		return err
	}
	if err := s.cache.AddResourceSlice(rs); err != nil {
		return err
	}
	s.clusterChanged(fw.DevicesChanged)
	return nil
}

// RemoveResourceSlice withdraws a slice; claims allocated from its devices
// keep them until their pods end.
func (s *Scheduler) RemoveResourceSlice(name string) error {
	if err := s.usable(); err != nil {
		return err
	}
	return s.cache.RemoveResourceSlice(name)
}

// AddResourceClaim adds a claim: one that pods name
// (spec.resourceClaims with resourceClaimName) and share, or one the
// resourceclaim controller made for a pod from a template (Owner set).
// Pending pods that may use it are retried, as kube-scheduler's queueing
// hint for a claim's creation retries the pods that use it: every pod
// for a claim without owner; none for a pod's own claim, whose pod is
// let through when its status records the claim
// (SetResourceClaimStatuses).
func (s *Scheduler) AddResourceClaim(rc cluster.ResourceClaim) error {
	if err := s.usable(); err != nil {
		return err
	}
	if err := deviceselector.CheckClaimSpec("spec.devices", &rc.Spec); err != nil {
		err.Object = "resourceclaim " + string(cluster.MakePodKey(rc.Namespace, rc.Name))
		return err
	}
	if err := s.cache.AddResourceClaim(rc); err != nil {
		return err
	}
	if rc.Owner == nil {
		s.clusterChanged(fw.DevicesChanged)
	}
	return nil
}

// DeleteResourceClaim deletes a claim by key ("namespace/name"), as the
// resourceclaim controller deletes the claims of a pod that ended. An
// allocated claim keeps its devices until the last pod reserving it
// leaves its node; no pending pod is helped by a deletion.
func (s *Scheduler) DeleteResourceClaim(key string) error {
	if err := s.usable(); err != nil {
		return err
	}
	return s.cache.RemoveResourceClaim(key)
}

// DeviceClasses yields the device classes by name. Read-only.
func (s *Scheduler) DeviceClasses() iter.Seq[*cluster.DeviceClass] {
	if s.usable() != nil {
		return func(func(*cluster.DeviceClass) bool) {}
	}
	return s.cache.DeviceClasses()
}

// ResourceClaim returns a claim by key ("namespace/name"): one added by a
// user or made for a pod by the resourceclaim controller. Read-only.
func (s *Scheduler) ResourceClaim(key string) (*cluster.ResourceClaim, bool) {
	if s.usable() != nil {
		return nil, false
	}
	return s.cache.ResourceClaim(key)
}

// claimAllocation is a claim allocated on a node, for its event.
type claimAllocation struct {
	key, node string
	alloc     *cluster.AllocationResult
}

// reservePreBound reserves the claims of a pod that arrives running on
// node, as the scheduler would have: allocated claims must be on that
// node, the others are allocated there now (returned, for their events).
// It fails, changing nothing, when they cannot be.
func reservePreBound(cache *cluster.Cache, selectors *dra.CELSelectors, pi *cluster.PodInfo, node string) ([]claimAllocation, error) {
	p := pi.Pod()
	if len(p.ResourceClaims) == 0 {
		return nil, nil
	}
	ni, _ := cache.Node(node) // checked by checkPreBound
	bad := func(i int, format string, args ...any) error {
		return &cluster.FieldError{Sentinel: cluster.ErrInvalidPod, Object: "pod " + string(p.Key()),
			Field: fmt.Sprintf("resourceClaims[%d]", i), Detail: fmt.Sprintf(format, args...)}
	}
	in := dra.Input{Classes: map[string]*cluster.DeviceClass{}, Slices: ni.ReachableSlices(), Node: ni.Node(),
		Allocated: dra.NodeState(ni), Selectors: selectors, Features: dra.DefaultFeatures()}
	var toAllocate, recorded []int
	for i := range p.ResourceClaims {
		key := p.ClaimKey(i)
		if key == "" {
			return nil, bad(i, "the claim of entry %q from template %s is not made (its status records none), and the pod is already running on node %q",
				p.ResourceClaims[i].Name, p.ResourceClaims[i].ResourceClaimTemplateName, node)
		}
		rc, ok := cache.ResourceClaim(key)
		if !ok {
			return nil, bad(i, "claim %s does not exist, and the pod is already running on node %q", key, node)
		}
		if _, _, here := ni.Claim(key); here {
			continue
		}
		if alloc, _, ok := cache.NetworkClaim(key); ok {
			// allocated devices no node owns, for a pod of another node
			if !alloc.UsableOn(ni.Node()) {
				return nil, bad(i, "claim %s is allocated devices node %q does not reach (status.allocation.nodeSelector)", key, node)
			}
			continue
		}
		if claimAllocatedElsewhere(cache, key, node) {
			return nil, bad(i, "claim %s is allocated on another node than the pod's, %q", key, node)
		}
		if rc.Allocation != nil {
			// allocated before it arrived: those devices, on this node
			if err := recordedAllocationFits(ni, rc.Allocation, node); err != nil {
				return nil, bad(i, "claim %s: status.allocation: %v", key, err)
			}
			recorded = append(recorded, i)
			continue
		}
		for _, cl := range claimClasses(rc) {
			if dc, ok := cache.DeviceClass(cl); ok {
				in.Classes[cl] = dc
			}
		}
		in.Claims = append(in.Claims, rc)
		toAllocate = append(toAllocate, i)
	}
	var results []cluster.AllocationResult
	if len(in.Claims) > 0 {
		res, ok, err := dra.Allocate(&in)
		if err != nil {
			return nil, bad(toAllocate[0], "cannot allocate its claims on node %q, where it runs: %v", node, err)
		}
		if !ok {
			return nil, bad(toAllocate[0], "cannot allocate its claims on node %q, where it runs", node)
		}
		results = res
	}
	var made []claimAllocation
	next := 0
	for i := range p.ResourceClaims {
		key := p.ClaimKey(i)
		var alloc *cluster.AllocationResult
		if next < len(toAllocate) && toAllocate[next] == i {
			alloc = &results[next]
			next++
		}
		if slices.Contains(recorded, i) {
			rc, _ := cache.ResourceClaim(key)
			alloc = rc.Allocation
			if _, _, ok := cache.NetworkClaim(key); ok {
				alloc = nil // reserved by an earlier entry of the pod naming it too
			}
		}
		if err := cache.ReserveClaim(node, key, alloc); err != nil {
			return nil, err // the claims exist and fit: cannot fail
		}
		if alloc != nil {
			made = append(made, claimAllocation{key, node, alloc})
		}
	}
	return made, nil
}

// recordedAllocationFits checks the allocation a claim arrived with
// against the node its first running pod runs on: the allocation's node,
// devices the node has, and none held by another claim alone.
func recordedAllocationFits(ni *cluster.NodeInfo, alloc *cluster.AllocationResult, node string) error {
	if alloc.Node != "" && alloc.Node != node {
		return fmt.Errorf("its devices are on node %q, the pod runs on %q", alloc.Node, node)
	}
	if !alloc.UsableOn(ni.Node()) {
		return fmt.Errorf("its node selector does not select node %q, where the pod runs", node)
	}
	for j := range alloc.Devices {
		a := &alloc.Devices[j]
		id := a.DeviceID()
		if !nodeHasDevice(ni, id) {
			return fmt.Errorf("node %q has no device %s", node, id)
		}
		if u, ok := ni.DeviceUse(id); ok && u.Exclusive > 0 && !a.AdminAccess {
			return fmt.Errorf("device %s is held by another claim", id)
		}
	}
	return nil
}

// nodeHasDevice reports whether a slice the node reaches has the device.
func nodeHasDevice(ni *cluster.NodeInfo, id cluster.DeviceID) bool {
	for _, sl := range ni.ReachableSlices() {
		if sl.Driver != id.Driver || sl.Pool.Name != id.Pool || !sl.TargetsNode(ni.Node()) {
			continue
		}
		for k := range sl.Devices {
			if sl.Devices[k].Name == id.Device {
				return true
			}
		}
	}
	return false
}

// claimAllocatedElsewhere reports whether a claim is allocated on a node
// other than node.
func claimAllocatedElsewhere(cache *cluster.Cache, key, node string) bool {
	for ni := range cache.Nodes() {
		if alloc, _, ok := ni.Claim(key); ok && ni.Node().Name != node && !alloc.NodeIndependent() {
			return true
		}
	}
	return false
}

// claimClasses lists the classes a claim's requests name.
func claimClasses(rc *cluster.ResourceClaim) []string {
	var out []string
	for _, r := range rc.Spec.Requests {
		if r.Exactly != nil {
			out = append(out, r.Exactly.DeviceClassName)
		}
		for _, sub := range r.FirstAvailable {
			out = append(out, sub.DeviceClassName)
		}
	}
	return out
}

// removeFromNode takes a pod off its node in the cache; the claims whose
// last pod it was are released (their devices freed), each an event.
func (s *Scheduler) removeFromNode(key cluster.PodKey) error {
	pi, ok := s.cache.Pod(key)
	if !ok {
		_, err := s.cache.RemovePod(key) // for the error
		return err
	}
	p, node := pi.Pod(), pi.NodeName()
	var released []string
	if ni, ok := s.cache.Node(node); ok && ni.ClaimCount() > 0 {
		for i := range p.ResourceClaims {
			k := p.ClaimKey(i)
			if _, pods, ok := ni.Claim(k); ok && pods == 1 {
				released = append(released, k)
			}
		}
		if k := p.ExtendedClaimKey(); p.Requests.HasScalars() {
			if _, _, ok := ni.Claim(k); ok {
				released = append(released, k)
			}
		}
	}
	if _, err := s.cache.RemovePod(key); err != nil {
		return err
	}
	for _, k := range released {
		s.emit(claimEvent(EventClaimReleased, k, node, nil))
	}
	return nil
}
