package gangsim

import (
	"fmt"
	"iter"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/cluster/deviceselector"
	"github.com/gangsim/gangsim/dra"
	fw "github.com/gangsim/gangsim/framework"
)

// Devices (Dynamic Resource Allocation): the classes, slices and claims
// the cluster holds, the claims made for pods from templates, and the
// claims' life with their pods. The DynamicResources plugin allocates
// claims in the cycle; this file admits the objects and keeps claims in
// step with the pods that use them.

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
	for i, sel := range dc.Selectors {
		if err := compileSelector("deviceclass "+dc.Name, fmt.Sprintf("spec.selectors[%d].cel.expression", i), sel.CEL); err != nil {
			return err
		}
	}
	if err := s.cache.AddDeviceClass(dc); err != nil {
		return err
	}
	s.clusterChanged(fw.DevicesChanged)
	return nil
}

// AddResourceSlice publishes a slice of devices for its node (which need
// not exist yet).
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

// AddResourceClaim adds a claim that pods name (spec.resourceClaims with
// resourceClaimName); the pods that name it share its devices.
func (s *Scheduler) AddResourceClaim(rc cluster.ResourceClaim) error {
	if err := s.usable(); err != nil {
		return err
	}
	if err := checkClaimSelectors("resourceclaim "+string(cluster.MakePodKey(rc.Namespace, rc.Name)), "spec.devices", &rc.Spec); err != nil {
		return err
	}
	if err := s.cache.AddResourceClaim(rc); err != nil {
		return err
	}
	s.clusterChanged(fw.DevicesChanged)
	return nil
}

// AddResourceClaimTemplate adds a template: each pod naming it
// (resourceClaimTemplateName) gets a claim of its own, named
// "<pod>-<entry>", made when the pod is admitted (or, for pods admitted
// before the template, now) and deleted with the pod.
func (s *Scheduler) AddResourceClaimTemplate(t cluster.ResourceClaimTemplate) error {
	if err := s.usable(); err != nil {
		return err
	}
	if t.Namespace == "" {
		t.Namespace = cluster.DefaultNamespace
	}
	if err := t.Validate(); err != nil {
		return err
	}
	key := string(cluster.MakePodKey(t.Namespace, t.Name))
	if err := checkClaimSelectors("resourceclaimtemplate "+key, "spec.spec.devices", &t.Spec); err != nil {
		return err
	}
	if _, ok := s.templates[key]; ok {
		return fmt.Errorf("%w: resource claim template %s already exists", cluster.ErrDeviceObject, key)
	}
	if s.templates == nil {
		s.templates = claimTemplates{}
	}
	t.Spec = t.Spec.Clone()
	s.templates[key] = &t
	made := false
	for r := range s.tracker.records.all() {
		if r.phase == PhasePending || r.phase == PhaseBound || r.phase == PhaseTerminating {
			n, err := s.templates.makeClaims(s.cache, r.info.Pod())
			if err != nil {
				return err
			}
			made = made || n > 0
		}
	}
	if made {
		s.clusterChanged(fw.DevicesChanged)
	}
	return nil
}

// DeviceClasses yields the device classes by name. Read-only.
func (s *Scheduler) DeviceClasses() iter.Seq[*cluster.DeviceClass] {
	if s.usable() != nil {
		return func(func(*cluster.DeviceClass) bool) {}
	}
	return s.cache.DeviceClasses()
}

// ResourceClaim returns a claim by key ("namespace/name"): one added, or
// one made for a pod from a template (until the pod ends). Read-only.
func (s *Scheduler) ResourceClaim(key string) (*cluster.ResourceClaim, bool) {
	if s.usable() != nil {
		return nil, false
	}
	return s.cache.ResourceClaim(key)
}

// compileSelector compiles one CEL selector, for the error.
func compileSelector(object, field, expr string) error {
	if _, err := deviceselector.Compile(expr); err != nil {
		return &cluster.FieldError{Sentinel: cluster.ErrInvalidDevices, Object: object, Field: field, Detail: err.Error()}
	}
	return nil
}

// checkClaimSelectors compiles a claim spec's selectors.
func checkClaimSelectors(object, at string, spec *cluster.ResourceClaimSpec) error {
	check := func(field string, sels []cluster.DeviceSelector) error {
		for i, sel := range sels {
			if err := compileSelector(object, fmt.Sprintf("%s.selectors[%d].cel.expression", field, i), sel.CEL); err != nil {
				return err
			}
		}
		return nil
	}
	for i := range spec.Requests {
		r := &spec.Requests[i]
		field := fmt.Sprintf("%s.requests[%d]", at, i)
		if r.Exactly != nil {
			if err := check(field+".exactly", r.Exactly.Selectors); err != nil {
				return err
			}
		}
		for j := range r.FirstAvailable {
			if err := check(fmt.Sprintf("%s.firstAvailable[%d]", field, j), r.FirstAvailable[j].Selectors); err != nil {
				return err
			}
		}
	}
	return nil
}

// claimTemplates are the ResourceClaimTemplates by key, and the part of
// Kubernetes' resourceclaim controller that makes claims from them: a
// pod's claims are made when it is added (or when its template comes),
// and deleted with the pod, their owner, when it ends for good.
type claimTemplates map[string]*cluster.ResourceClaimTemplate

// makeClaims makes the claims a pod's template entries call for,
// those whose template exists and that are not made yet, and returns how
// many it made. A pod whose template does not exist waits for it
// ("waiting for dynamic resource controller to create the resourceclaim").
func (ct claimTemplates) makeClaims(cache *cluster.Cache, p *cluster.Pod) (int, error) {
	made := 0
	for i := range p.ResourceClaims {
		e := &p.ResourceClaims[i]
		if e.ResourceClaimTemplateName == "" {
			continue
		}
		t, ok := ct[string(cluster.MakePodKey(p.Namespace, e.ResourceClaimTemplateName))]
		if !ok {
			continue
		}
		key := p.ClaimKey(i)
		if _, ok := cache.ResourceClaim(key); ok {
			continue
		}
		rc := cluster.ResourceClaim{Namespace: p.Namespace, Name: cluster.TemplateClaimName(p.Name, e.Name), Spec: t.Spec}
		if err := cache.AddResourceClaim(rc); err != nil {
			return made, fmt.Errorf("pod %s: %s: making its claim from template %s: %w", p.Key(), fmt.Sprintf("spec.resourceClaims[%d]", i), e.ResourceClaimTemplateName, err)
		}
		made++
	}
	return made, nil
}

// deleteTemplateClaims deletes the claims made for a pod that ended for
// good (Kubernetes deletes them with their pod, their owner).
func deleteTemplateClaims(cache *cluster.Cache, p *cluster.Pod) {
	for i := range p.ResourceClaims {
		if p.ResourceClaims[i].ResourceClaimTemplateName == "" {
			continue
		}
		if key := p.ClaimKey(i); hasClaim(cache, key) {
			_ = cache.RemoveResourceClaim(key) // present: cannot fail
		}
	}
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
	in := dra.Input{Classes: map[string]*cluster.DeviceClass{}, Slices: ni.Slices(), Node: ni.Node(),
		Allocated: dra.NodeState(ni), Selectors: selectors, Features: dra.DefaultFeatures()}
	var toAllocate []int
	for i := range p.ResourceClaims {
		key := p.ClaimKey(i)
		rc, ok := cache.ResourceClaim(key)
		if !ok {
			return nil, bad(i, "claim %s does not exist, and the pod is already running on node %q", key, node)
		}
		if _, _, here := ni.Claim(key); here {
			continue
		}
		if claimAllocatedElsewhere(cache, key, node) {
			return nil, bad(i, "claim %s is allocated on another node than the pod's, %q", key, node)
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
		if err := cache.ReserveClaim(node, key, alloc); err != nil {
			return nil, err // the claims exist and fit: cannot fail
		}
		if alloc != nil {
			made = append(made, claimAllocation{key, node, alloc})
		}
	}
	return made, nil
}

// claimAllocatedElsewhere reports whether a claim is allocated on a node
// other than node.
func claimAllocatedElsewhere(cache *cluster.Cache, key, node string) bool {
	for ni := range cache.Nodes() {
		if _, _, ok := ni.Claim(key); ok && ni.Node().Name != node {
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
	p, node := pi.Pod(), pi.Pod().NodeName
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

func hasClaim(c *cluster.Cache, key string) bool { _, ok := c.ResourceClaim(key); return ok }
