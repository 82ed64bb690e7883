package cluster

import (
	"fmt"
	"iter"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/google/btree"
)

// The device objects the cluster holds besides the nodes' slices: device
// classes and resource claims. Both are read-only once added (a claim's
// spec is immutable in Kubernetes too; its allocation lives in the node
// accounts, nodedevices.go). The cache keeps them in copy-on-write trees,
// so a snapshot takes them in O(1) however many claims there are (one per
// pod made from a template), and a cycle reads them as they were when its
// snapshot was taken.

// deviceObjects are the classes by name and the claims by key.
type deviceObjects struct {
	classes *btree.BTreeG[*DeviceClass]
	claims  *btree.BTreeG[*ResourceClaim]
	// version changes whenever a class or a claim is added or removed,
	// classVersion whenever a class is.
	version, classVersion int64
}

func newDeviceObjects() deviceObjects {
	return deviceObjects{
		classes: btree.NewG(16, func(a, b *DeviceClass) bool { return a.Name < b.Name }),
		claims:  btree.NewG(16, claimLess),
	}
}

// claimLess orders claims by namespace, then name, without making their
// keys (a lookup compares a dozen claims). Namespaces are set (defaulted
// on admission).
func claimLess(a, b *ResourceClaim) bool {
	if a.Namespace != b.Namespace {
		return a.Namespace < b.Namespace
	}
	return a.Name < b.Name
}

// clone shares the trees copy-on-write.
func (d *deviceObjects) clone() deviceObjects {
	return deviceObjects{classes: d.classes.Clone(), claims: d.claims.Clone(), version: d.version, classVersion: d.classVersion}
}

func (d *deviceObjects) class(name string) (*DeviceClass, bool) {
	if d.classes == nil {
		return nil, false
	}
	return d.classes.Get(&DeviceClass{Name: name})
}

func (d *deviceObjects) claim(key string) (*ResourceClaim, bool) {
	if d.claims == nil {
		return nil, false
	}
	ns, name := splitKey(key)
	return d.claims.Get(&ResourceClaim{Namespace: ns, Name: name})
}

// splitKey splits "namespace/name".
func splitKey(key string) (string, string) {
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			return key[:i], key[i+1:]
		}
	}
	return "", key
}

// ErrDeviceObject is wrapped by the errors of adding and removing device
// classes and claims.
var ErrDeviceObject = fmt.Errorf("cluster: device object")

// AddDeviceClass adds a device class. Its selectors are checked as CEL by
// the caller (the cluster package does not compile CEL).
func (c *Cache) AddDeviceClass(dc DeviceClass) error {
	if err := dc.Validate(); err != nil {
		return err
	}
	if _, ok := c.devices.class(dc.Name); ok {
		return fmt.Errorf("%w: device class %q already exists", ErrDeviceObject, dc.Name)
	}
	cp := dc.clone()
	c.devices.classes.ReplaceOrInsert(&cp)
	c.devices.version++
	c.devices.classVersion++
	return nil
}

// AddResourceClaim adds a claim. Pods naming it share its devices.
func (c *Cache) AddResourceClaim(rc ResourceClaim) error {
	if rc.Namespace == "" {
		rc.Namespace = DefaultNamespace
	}
	if err := rc.Validate(); err != nil {
		return err
	}
	if _, ok := c.devices.claim(rc.Key()); ok {
		return fmt.Errorf("%w: resource claim %s already exists", ErrDeviceObject, rc.Key())
	}
	cp := rc.clone()
	cp.specKey = string(appendShape(nil, reflect.ValueOf(cp.Spec), new(true)))
	c.devices.claims.ReplaceOrInsert(&cp)
	c.devices.version++
	return nil
}

// RemoveResourceClaim deletes a claim. Its allocation, if any, stays with
// the pods that reserve it until they end, as a claim being deleted keeps
// its devices in Kubernetes until no pod uses it.
func (c *Cache) RemoveResourceClaim(key string) error {
	rc, ok := c.devices.claim(key)
	if !ok {
		return fmt.Errorf("%w: resource claim %s does not exist", ErrDeviceObject, key)
	}
	c.devices.claims.Delete(rc)
	c.devices.version++
	return nil
}

// DeviceClass returns a class by name. Read-only.
func (c *Cache) DeviceClass(name string) (*DeviceClass, bool) { return c.devices.class(name) }

// ResourceClaim returns a claim by key ("namespace/name"). Read-only.
func (c *Cache) ResourceClaim(key string) (*ResourceClaim, bool) { return c.devices.claim(key) }

// DeviceClasses yields the classes by name. Read-only.
func (c *Cache) DeviceClasses() iter.Seq[*DeviceClass] {
	return func(yield func(*DeviceClass) bool) {
		if c.devices.classes == nil {
			return
		}
		c.devices.classes.Ascend(func(dc *DeviceClass) bool { return yield(dc) })
	}
}

// DeviceClass returns a class by name, as the snapshot was taken.
// Read-only.
func (s *Snapshot) DeviceClass(name string) (*DeviceClass, bool) { return s.devices.class(name) }

// DeviceClasses yields the classes by name. Read-only.
func (s *Snapshot) DeviceClasses() iter.Seq[*DeviceClass] {
	return func(yield func(*DeviceClass) bool) {
		if s.devices.classes == nil {
			return
		}
		s.devices.classes.Ascend(func(dc *DeviceClass) bool { return yield(dc) })
	}
}

// ResourceClaim returns a claim by key ("namespace/name"), as the snapshot
// was taken. Read-only.
func (s *Snapshot) ResourceClaim(key string) (*ResourceClaim, bool) { return s.devices.claim(key) }

// DeviceObjectsVersion changes whenever a device class or a claim is added
// or removed: data derived from them is valid while it holds.
func (s *Snapshot) DeviceObjectsVersion() int64 { return s.devices.version }

// DeviceClassVersion changes whenever a device class is added or
// removed.
func (s *Snapshot) DeviceClassVersion() int64 { return s.devices.classVersion }

// SpecKey is an encoding of the claim's spec: two claims of equal keys ask
// for the same. Set on the claims a cache holds; "" on others.
func (c *ResourceClaim) SpecKey() string { return c.specKey }

// HasDeviceClasses reports whether any device class exists: without one,
// no claim can be allocated and no extended resource is served by
// devices.
func (s *Snapshot) HasDeviceClasses() bool {
	return s.devices.classes != nil && s.devices.classes.Len() > 0
}

// ClaimKey returns the key of the claim a pod's entry i of ResourceClaims
// names: the claim it names, or the one the resourceclaim controller made
// for it from its template, as the pod's ResourceClaimStatuses record it;
// "" while none is recorded (the claim is not made yet).
func (p *Pod) ClaimKey(i int) string {
	e := &p.ResourceClaims[i]
	if e.ResourceClaimName != "" {
		return string(MakePodKey(p.Namespace, e.ResourceClaimName))
	}
	for j := range p.ResourceClaimStatuses {
		if st := &p.ResourceClaimStatuses[j]; st.Name == e.Name {
			return string(MakePodKey(p.Namespace, st.ResourceClaimName))
		}
	}
	return ""
}

// TemplateClaimName is the name the resourceclaim controller gives the
// claim it makes for a pod's entry from its template when no claim has
// it: "<pod>-<entry>" (Kubernetes adds a random suffix; this name is
// deterministic).
func TemplateClaimName(pod, entry string) string { return pod + "-" + entry }

// ValidateClaimStatuses checks a pod's status.resourceClaimStatuses
// against its entries: each names an entry that names a template, at
// most once, and a claim whose name is a DNS subdomain.
func ValidateClaimStatuses(claims []PodResourceClaim, statuses []PodResourceClaimStatus) (field, detail string) {
	for i, st := range statuses {
		at := fmt.Sprintf("resourceClaimStatuses[%d]", i)
		j := slices.IndexFunc(claims, func(c PodResourceClaim) bool { return c.Name == st.Name })
		switch {
		case j < 0:
			return at + ".name", fmt.Sprintf("%q is no entry of spec.resourceClaims", st.Name)
		case claims[j].ResourceClaimTemplateName == "":
			return at + ".name", fmt.Sprintf("entry %q names a claim, not a template", st.Name)
		case slices.ContainsFunc(statuses[:i], func(o PodResourceClaimStatus) bool { return o.Name == st.Name }):
			return at + ".name", fmt.Sprintf("%q is listed twice", st.Name)
		case !isDNSSubdomain(st.ResourceClaimName):
			return at + ".resourceClaimName", fmt.Sprintf("%q is not a DNS subdomain", st.ResourceClaimName)
		}
	}
	return "", ""
}

// clone returns a deep copy of the class.
func (dc DeviceClass) clone() DeviceClass {
	dc.Selectors = slices.Clone(dc.Selectors)
	return dc
}

// clone returns a deep copy of the claim.
func (rc ResourceClaim) clone() ResourceClaim {
	rc.Spec = rc.Spec.Clone()
	if rc.Owner != nil {
		rc.Owner = new(*rc.Owner)
	}
	return rc
}

// Clone returns a deep copy of the spec.
func (s ResourceClaimSpec) Clone() ResourceClaimSpec {
	s.Requests = slices.Clone(s.Requests)
	for i := range s.Requests {
		r := &s.Requests[i]
		if r.Exactly != nil {
			e := r.Exactly.clone()
			r.Exactly = &e
		}
		r.FirstAvailable = slices.Clone(r.FirstAvailable)
		for j := range r.FirstAvailable {
			r.FirstAvailable[j].ExactDeviceRequest = r.FirstAvailable[j].ExactDeviceRequest.clone()
		}
	}
	s.Constraints = slices.Clone(s.Constraints)
	for i := range s.Constraints {
		s.Constraints[i].Requests = slices.Clone(s.Constraints[i].Requests)
	}
	return s
}

// clone returns a deep copy of the request.
func (r ExactDeviceRequest) clone() ExactDeviceRequest {
	r.Selectors = slices.Clone(r.Selectors)
	r.Tolerations = slices.Clone(r.Tolerations)
	r.Capacity = maps.Clone(r.Capacity)
	return r
}

// ValidatePodClaims checks a pod's claims (or a PodGroup's, which have
// the same shape) as the API server does: each entry a unique DNS label
// naming exactly one of a claim and a template, each a DNS subdomain. It
// returns the field at fault, under "resourceClaims", and the problem.
func ValidatePodClaims(claims []PodResourceClaim) (string, string) {
	seen := make(map[string]bool, len(claims))
	for i, c := range claims {
		at := fmt.Sprintf("resourceClaims[%d]", i)
		switch {
		case !isDNSLabel(c.Name):
			return at + ".name", fmt.Sprintf("%q is not a DNS label", c.Name)
		case seen[c.Name]:
			return at + ".name", fmt.Sprintf("%q is listed twice", c.Name)
		case (c.ResourceClaimName == "") == (c.ResourceClaimTemplateName == ""):
			return at, "exactly one of resourceClaimName and resourceClaimTemplateName must be set"
		case c.ResourceClaimName != "" && !isDNSSubdomain(c.ResourceClaimName):
			return at + ".resourceClaimName", fmt.Sprintf("%q is not a DNS subdomain", c.ResourceClaimName)
		case c.ResourceClaimTemplateName != "" && !isDNSSubdomain(c.ResourceClaimTemplateName):
			return at + ".resourceClaimTemplateName", fmt.Sprintf("%q is not a DNS subdomain", c.ResourceClaimTemplateName)
		}
		seen[c.Name] = true
	}
	return "", ""
}

// ImplicitExtendedResourcePrefix names, with a class's name after it, the
// extended resource every device class serves (KEP-5004).
const ImplicitExtendedResourcePrefix = "deviceclass.resource.kubernetes.io/"

// DeviceClassFor returns the device class that serves an extended
// resource on nodes that do not offer it (KEP-5004): the class naming it
// as its extendedResourceName (the first by name when several do), or the
// class the implicit name deviceclass.resource.kubernetes.io/<class>
// names.
func (s *Snapshot) DeviceClassFor(r ResourceName) (*DeviceClass, bool) {
	if s.devices.classes == nil || s.devices.classes.Len() == 0 {
		return nil, false
	}
	if s.extendedIdx.version != s.devices.classVersion || s.extendedIdx.byName == nil {
		idx := map[ResourceName]*DeviceClass{}
		s.devices.classes.Ascend(func(dc *DeviceClass) bool {
			if dc.ExtendedResourceName != "" {
				if _, ok := idx[dc.ExtendedResourceName]; !ok {
					idx[dc.ExtendedResourceName] = dc
				}
			}
			return true
		})
		s.extendedIdx.byName, s.extendedIdx.version = idx, s.devices.classVersion
	}
	if dc, ok := s.extendedIdx.byName[r]; ok {
		return dc, true
	}
	if name, ok := strings.CutPrefix(string(r), ImplicitExtendedResourcePrefix); ok {
		return s.devices.class(name)
	}
	return nil, false
}

// extendedIndex maps extended resources to the classes that serve them,
// at a class version.
type extendedIndex struct {
	version int64
	byName  map[ResourceName]*DeviceClass
}

// ExtendedClaimKey is the key of the claim a pod's extended resources
// served by devices are allocated in, on a node that does not offer them
// ("<pod>-extended-resources"; Kubernetes adds a random suffix).
func (p *Pod) ExtendedClaimKey() string {
	return string(MakePodKey(p.Namespace, p.Name+"-extended-resources"))
}
