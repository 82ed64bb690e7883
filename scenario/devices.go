package scenario

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/cluster/deviceselector"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// Devices are the device objects of Dynamic Resource Allocation
// (resource.k8s.io/v1) the inputs define, each checked as the API server
// checks it, in input order.
type Devices struct {
	Classes   []cluster.DeviceClass
	Slices    []cluster.ResourceSlice
	Claims    []cluster.ResourceClaim
	Templates []cluster.ResourceClaimTemplate
}

// ContainerClaim is a claim a container of a pod names in its
// resources.claims: the pod's claim by its name in the pod, and one of its
// requests ("" for all of them).
type ContainerClaim struct {
	Container string
	Name      string
	Request   string
}

// devices converts and checks the file's device objects.
func (b *builder) devices(f *schema.File) error {
	if b.deviceKeys == nil {
		b.deviceKeys = map[[2]string]string{}
	}
	for i := range f.DeviceClasses {
		s := &f.DeviceClasses[i]
		where := b.entry(s.Origin, "deviceClasses", i, s.Name)
		c := cluster.DeviceClass{Name: s.Name, Selectors: selectors(s.Selectors)}
		if err := b.compileSelectors(c.Selectors, s.Line, where); err != nil {
			return err
		}
		if s.ExtendedResourceName != nil {
			c.ExtendedResourceName = cluster.ResourceName(*s.ExtendedResourceName)
		}
		if err := b.checkDevice(s.Line, where, "device class", c.Name, "", c.Validate()); err != nil {
			return err
		}
		b.sc.Devices.Classes = append(b.sc.Devices.Classes, c)
	}
	for i := range f.ResourceSlices {
		s := &f.ResourceSlices[i]
		where := b.entry(s.Origin, "resourceSlices", i, s.Name)
		if p := s.PerDeviceNodeSelection; p != nil && *p {
			b.warnEntry(s.Origin, where, "perDeviceNodeSelection", "not modelled: the slice is left out")
			for _, d := range s.Devices {
				b.leaveOut(cluster.DeviceID{Driver: s.Driver, Pool: s.Pool.Name, Device: d.Name}, s.Name)
			}
			continue
		}
		sl, err := b.slice(s, where)
		if err != nil {
			return err
		}
		if err := b.checkDevice(s.Line, where, "resource slice", sl.Name, "", sl.Validate()); err != nil {
			return err
		}
		b.sc.Devices.Slices = append(b.sc.Devices.Slices, sl)
	}
	for i := range f.ResourceClaims {
		s := &f.ResourceClaims[i]
		where := b.entry(s.Origin, "resourceClaims", i, s.Name)
		spec, err := b.claimSpec(&s.ResourceClaimSpec, s.Line, where)
		if err != nil {
			return err
		}
		c := cluster.ResourceClaim{Namespace: s.Namespace, Name: s.Name, Spec: spec, Owner: s.Owner}
		if err := b.checkDevice(s.Line, where, "resource claim", c.Name, s.Namespace, c.Validate()); err != nil {
			return err
		}
		b.sc.Devices.Claims = append(b.sc.Devices.Claims, c)
	}
	for i := range f.ResourceClaimTemplates {
		s := &f.ResourceClaimTemplates[i]
		where := b.entry(s.Origin, "resourceClaimTemplates", i, s.Name)
		spec, err := b.claimSpec(&s.ResourceClaimSpec, s.Line, where)
		if err != nil {
			return err
		}
		t := cluster.ResourceClaimTemplate{Namespace: s.Namespace, Name: s.Name, Spec: spec}
		if err := b.checkDevice(s.Line, where, "resource claim template", t.Name, s.Namespace, t.Validate()); err != nil {
			return err
		}
		b.sc.Devices.Templates = append(b.sc.Devices.Templates, t)
	}
	return nil
}

// checkDevice reports an object's validation error in the entry's terms,
// checks its namespace, and records its name: one defined twice in a
// file is an error naming both places (checkDefinedOnce finds those of
// different files).
func (b *builder) checkDevice(line int, where, kind, name, namespace string, invalid error) error {
	if invalid != nil {
		return b.fail(line, where, deviceField(invalid))
	}
	if err := b.checkNames(line, where, name, namespace); err != nil {
		return err
	}
	key := name
	if namespace != "" || strings.HasPrefix(kind, "resource claim") {
		key = cluster.MakePodKey(namespace, name).Display()
	}
	if first, dup := b.deviceKeys[[2]string{kind, key}]; dup {
		return b.failf(line, where+".name", "%s %s is defined twice: first in %s", kind, key, first)
	}
	b.deviceKeys[[2]string{kind, key}] = fmt.Sprintf("%s, line %d (%s)", b.file, line, where)
	return nil
}

// deviceField rewrites the field of a device object's validation error
// (metadata.name, spec..., a template's spec.spec...) into the entry's
// (name, ...): an entry holds its spec's fields beside its name, and an
// entry made from an object translates them back.
func deviceField(err error) error {
	var fe *cluster.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	c := *fe
	switch f := fe.Field; {
	case strings.HasPrefix(f, "metadata."):
		c.Field = strings.TrimPrefix(f, "metadata.")
	case f == "spec" || f == "spec.spec":
		c.Field = ""
	case strings.HasPrefix(f, "spec.spec."):
		c.Field = strings.TrimPrefix(f, "spec.spec.")
	default:
		c.Field = strings.TrimPrefix(f, "spec.")
	}
	return &c
}

// warnEntry warns about a field of an entry: a scenario file's, or the
// Kubernetes object's it was made from.
func (b *builder) warnEntry(src *schema.Origin, where, field, detail string) {
	if b.ws == nil {
		return
	}
	if src == nil {
		b.ws.Add("", schema.FieldOf(where+"."+field), detail, b.file+": "+where)
		return
	}
	_, path := src.Translate(0, where+"."+field)
	kind, _, _ := strings.Cut(src.Object, " ")
	_, kubeField, _ := strings.Cut(path, ": ")
	b.ws.Add(kind, schema.FieldOf(kubeField), detail, b.file+": "+src.Object)
}

func selectors(in []schema.DeviceSelector) []cluster.DeviceSelector {
	var out []cluster.DeviceSelector
	for _, s := range in {
		var sel cluster.DeviceSelector
		if s.CEL != nil {
			sel.CEL = s.CEL.Expression
		}
		out = append(out, sel)
	}
	return out
}

// quantity parses a device quantity at path ("" is missing).
func (b *builder) quantity(text string, line int, path string) (cluster.Quantity, error) {
	if text == "" {
		return 0, b.failf(line, path, "required")
	}
	q, err := cluster.ParseDeviceQuantity(text)
	if err != nil {
		return 0, b.fail(line, path, err)
	}
	return q, nil
}

// optQuantity parses an optional quantity.
func (b *builder) optQuantity(text *string, line int, path string) (*cluster.Quantity, error) {
	if text == nil {
		return nil, nil
	}
	q, err := b.quantity(*text, line, path)
	return &q, err
}

// counters parses a map of counters, {name: {value}}.
func (b *builder) counters(in map[string]schema.Counter, line int, path string) (map[string]cluster.Quantity, error) {
	if in == nil {
		return nil, nil
	}
	out := make(map[string]cluster.Quantity, len(in))
	for name, c := range in {
		q, err := b.quantity(c.Value, line, path+"."+name+".value")
		if err != nil {
			return nil, err
		}
		out[name] = q
	}
	return out, nil
}

// slice converts a slice entry.
func (b *builder) slice(s *schema.ResourceSlice, where string) (cluster.ResourceSlice, error) {
	sl := cluster.ResourceSlice{Name: s.Name, Driver: s.Driver, NodeName: s.NodeName, AllNodes: s.AllNodes,
		Pool: cluster.ResourcePool{Name: s.Pool.Name, Generation: s.Pool.Generation, SliceCount: s.Pool.ResourceSliceCount}}
	if ns := s.NodeSelector; ns != nil {
		sl.NodeSelector = []cluster.SelectorTerm{}
		for _, t := range ns.Terms {
			sl.NodeSelector = append(sl.NodeSelector, t.Convert())
		}
	}
	for i, set := range s.SharedCounters {
		counters, err := b.counters(set.Counters, s.Line, fmt.Sprintf("%s.sharedCounters[%d].counters", where, i))
		if err != nil {
			return sl, err
		}
		sl.SharedCounters = append(sl.SharedCounters, cluster.CounterSet{Name: set.Name, Counters: counters})
	}
	for i := range s.Devices {
		d, err := b.device(&s.Devices[i], s.Line, fmt.Sprintf("%s.devices[%d]", where, i))
		if err != nil {
			return sl, err
		}
		sl.Devices = append(sl.Devices, d)
	}
	return sl, nil
}

// device converts one device of a slice.
func (b *builder) device(s *schema.Device, line int, where string) (cluster.Device, error) {
	d := cluster.Device{Name: s.Name, AllowMultipleAllocations: s.AllowMultipleAllocations != nil && *s.AllowMultipleAllocations}
	if s.Attributes != nil {
		d.Attributes = make(map[cluster.QualifiedName]cluster.DeviceAttribute, len(s.Attributes))
		for name, a := range s.Attributes {
			d.Attributes[cluster.QualifiedName(name)] = cluster.DeviceAttribute{IntValue: a.Int, BoolValue: a.Bool, StringValue: a.String, VersionValue: a.Version}
		}
	}
	if s.Capacity != nil {
		d.Capacity = make(map[cluster.QualifiedName]cluster.DeviceCapacity, len(s.Capacity))
		for name, c := range s.Capacity {
			at := where + ".capacity." + name
			v, err := b.quantity(c.Value, line, at+".value")
			if err != nil {
				return d, err
			}
			dc := cluster.DeviceCapacity{Value: v}
			if p := c.RequestPolicy; p != nil {
				if dc.RequestPolicy, err = b.requestPolicy(p, line, at+".requestPolicy"); err != nil {
					return d, err
				}
			}
			d.Capacity[cluster.QualifiedName(name)] = dc
		}
	}
	for i, cc := range s.ConsumesCounters {
		counters, err := b.counters(cc.Counters, line, fmt.Sprintf("%s.consumesCounters[%d].counters", where, i))
		if err != nil {
			return d, err
		}
		d.ConsumesCounters = append(d.ConsumesCounters, cluster.DeviceCounterConsumption{CounterSet: cc.CounterSet, Counters: counters})
	}
	for _, t := range s.Taints {
		d.Taints = append(d.Taints, cluster.DeviceTaint{Key: t.Key, Value: t.Value, Effect: cluster.DeviceTaintEffect(t.Effect)})
	}
	return d, nil
}

// requestPolicy converts a capacity's request policy.
func (b *builder) requestPolicy(p *schema.CapacityRequestPolicy, line int, where string) (*cluster.CapacityRequestPolicy, error) {
	out := &cluster.CapacityRequestPolicy{}
	var err error
	if out.Default, err = b.optQuantity(p.Default, line, where+".default"); err != nil {
		return nil, err
	}
	for i, text := range p.ValidValues {
		q, err := b.quantity(text, line, fmt.Sprintf("%s.validValues[%d]", where, i))
		if err != nil {
			return nil, err
		}
		out.ValidValues = append(out.ValidValues, q)
	}
	if r := p.ValidRange; r != nil {
		if r.Min == nil {
			return nil, b.failf(line, where+".validRange.min", "required")
		}
		out.ValidRange = &cluster.CapacityRange{}
		if out.ValidRange.Min, err = b.quantity(*r.Min, line, where+".validRange.min"); err != nil {
			return nil, err
		}
		if out.ValidRange.Max, err = b.optQuantity(r.Max, line, where+".validRange.max"); err != nil {
			return nil, err
		}
		if out.ValidRange.Step, err = b.optQuantity(r.Step, line, where+".validRange.step"); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// claimSpec converts the spec of a claim or a template.
func (b *builder) claimSpec(s *schema.ResourceClaimSpec, line int, where string) (cluster.ResourceClaimSpec, error) {
	var spec cluster.ResourceClaimSpec
	for i := range s.Devices.Requests {
		r := &s.Devices.Requests[i]
		at := fmt.Sprintf("%s.devices.requests[%d]", where, i)
		req := cluster.DeviceRequest{Name: r.Name}
		if e := r.Exactly; e != nil {
			exact, err := b.exactRequest(&e.DeviceRequestCommon, line, at+".exactly")
			if err != nil {
				return spec, err
			}
			exact.AdminAccess = e.AdminAccess != nil && *e.AdminAccess
			req.Exactly = &exact
		}
		for j := range r.FirstAvailable {
			sub := &r.FirstAvailable[j]
			exact, err := b.exactRequest(&sub.DeviceRequestCommon, line, fmt.Sprintf("%s.firstAvailable[%d]", at, j))
			if err != nil {
				return spec, err
			}
			req.FirstAvailable = append(req.FirstAvailable, cluster.DeviceSubRequest{Name: sub.Name, ExactDeviceRequest: exact})
		}
		spec.Requests = append(spec.Requests, req)
	}
	for _, c := range s.Devices.Constraints {
		dc := cluster.DeviceConstraint{Requests: c.Requests}
		if c.MatchAttribute != nil {
			dc.MatchAttribute = cluster.QualifiedName(*c.MatchAttribute)
		}
		if c.DistinctAttribute != nil {
			dc.DistinctAttribute = cluster.QualifiedName(*c.DistinctAttribute)
		}
		spec.Constraints = append(spec.Constraints, dc)
	}
	return spec, nil
}

// exactRequest converts what a request and an alternative share.
func (b *builder) exactRequest(s *schema.DeviceRequestCommon, line int, where string) (cluster.ExactDeviceRequest, error) {
	r := cluster.ExactDeviceRequest{DeviceClassName: s.DeviceClassName, Selectors: selectors(s.Selectors),
		AllocationMode: cluster.DeviceAllocationMode(s.AllocationMode), Count: s.Count}
	if err := b.compileSelectors(r.Selectors, line, where); err != nil {
		return r, err
	}
	for _, t := range s.Tolerations {
		r.Tolerations = append(r.Tolerations, cluster.DeviceToleration{Key: t.Key, Operator: cluster.TolerationOperator(t.Operator),
			Value: t.Value, Effect: cluster.DeviceTaintEffect(t.Effect)})
	}
	if c := s.Capacity; c != nil && c.Requests != nil {
		r.Capacity = make(map[cluster.QualifiedName]cluster.Quantity, len(c.Requests))
		for name, text := range c.Requests {
			q, err := b.quantity(text, line, where+".capacity.requests."+name)
			if err != nil {
				return r, err
			}
			r.Capacity[cluster.QualifiedName(name)] = q
		}
	}
	return r, nil
}

// podClaims converts and checks a pod entry's claims as the API server
// checks a pod's: each a unique DNS label naming exactly one of a claim
// and a template. Whether they exist is not checked: a pod may be created
// before its claim, and waits for it.
func (b *builder) podClaims(s *schema.Pod, where string) ([]cluster.PodResourceClaim, []ContainerClaim, error) {
	out, err := b.claimEntries(s.ResourceClaims, s.Line, where)
	if err != nil {
		return nil, nil, err
	}
	var containers []ContainerClaim
	for _, c := range s.ContainerClaims {
		containers = append(containers, ContainerClaim(c))
	}
	return out, containers, nil
}

// claimEntries converts and checks the entries of a pod's or a PodGroup's
// resourceClaims, at where (the entry's path) on line.
func (b *builder) claimEntries(claims []schema.PodResourceClaim, line int, where string) ([]cluster.PodResourceClaim, error) {
	if len(claims) == 0 {
		return nil, nil
	}
	out := make([]cluster.PodResourceClaim, 0, len(claims))
	seen := map[string]bool{}
	for i, c := range claims {
		at := fmt.Sprintf("%s.resourceClaims[%d]", where, i)
		switch {
		case c.Name == "":
			return nil, b.failf(line, at+".name", "required")
		case schema.NameError(c.Name, true) != nil:
			return nil, b.fail(line, at+".name", schema.NameError(c.Name, true))
		case seen[c.Name]:
			return nil, b.failf(line, at+".name", "%q is listed twice", c.Name)
		case (c.ResourceClaimName == nil) == (c.ResourceClaimTemplateName == nil):
			return nil, b.failf(line, at, "exactly one of resourceClaimName and resourceClaimTemplateName must be set")
		}
		seen[c.Name] = true
		pc := cluster.PodResourceClaim{Name: c.Name}
		field, name := "resourceClaimName", c.ResourceClaimName
		if name != nil {
			pc.ResourceClaimName = *name
		} else {
			field, name = "resourceClaimTemplateName", c.ResourceClaimTemplateName
			pc.ResourceClaimTemplateName = *name
		}
		if *name == "" {
			return nil, b.failf(line, at+"."+field, "must not be empty")
		}
		if err := schema.NameError(*name, false); err != nil {
			return nil, b.fail(line, at+"."+field, err)
		}
		out = append(out, pc)
	}
	return out, nil
}

// compileSelectors compiles CEL selectors as the API server does when it
// admits the object: an expression that does not compile is an error of
// its field (selectors[i].cel.expression).
func (b *builder) compileSelectors(sels []cluster.DeviceSelector, line int, where string) error {
	for i, sel := range sels {
		if sel.CEL == "" {
			continue // the object's validation says it is required
		}
		if _, err := deviceselector.Compile(sel.CEL); err != nil {
			return b.fail(line, fmt.Sprintf("%s.selectors[%d].cel.expression", where, i), err)
		}
	}
	return nil
}

// leaveOut records a device of a slice left out.
func (b *builder) leaveOut(id cluster.DeviceID, slice string) {
	if b.leftOut == nil {
		b.leftOut = map[cluster.DeviceID]string{}
	}
	b.leftOut[id] = slice
}

// allocations converts the status.allocation of the file's claims read
// from Kubernetes objects, once every file's slices are known: each
// device must be in a slice, its request one of the claim's, and the
// node-local ones all on one node; an allocation of devices no node owns
// keeps its nodeSelector, the nodes its pods may run on.
// The claim keeps the allocation (cluster.ResourceClaim.Allocation).
func (b *builder) allocations(f *schema.File) error {
	for i := range f.ResourceClaims {
		s := &f.ResourceClaims[i]
		if s.Allocation == nil {
			continue
		}
		where := b.entry(s.Origin, "resourceClaims", i, s.Name) + ".status.allocation"
		c := b.claimOf(s.Namespace, s.Name)
		if c == nil {
			continue // not kept: its own error was reported
		}
		alloc, err := b.allocation(s.Allocation, &c.Spec, s.Line, where)
		if err != nil {
			return err
		}
		if alloc != nil {
			c.Allocation = alloc
			continue
		}
		b.warnEntry(s.Origin, b.entry(s.Origin, "resourceClaims", i, s.Name), "status.allocation",
			"names a device of a slice left out: the claim is taken as not allocated")
	}
	return nil
}

// claimOf returns the scenario's claim of a namespace and name.
func (b *builder) claimOf(namespace, name string) *cluster.ResourceClaim {
	key := cluster.MakePodKey(namespace, name)
	for i := range b.sc.Devices.Claims {
		c := &b.sc.Devices.Claims[i]
		if cluster.MakePodKey(c.Namespace, c.Name) == key {
			return c
		}
	}
	return nil
}

// allocation converts and checks one claim's allocation; nil (and no
// error) when it names a device of a slice left out.
func (b *builder) allocation(s *schema.ClaimAllocation, spec *cluster.ResourceClaimSpec, line int, where string) (*cluster.AllocationResult, error) {
	if b.devicesByID == nil {
		b.devicesByID = map[cluster.DeviceID]deviceAt{}
		for i := range b.sc.Devices.Slices {
			sl := &b.sc.Devices.Slices[i]
			for j := range sl.Devices {
				b.devicesByID[cluster.DeviceID{Driver: sl.Driver, Pool: sl.Pool.Name, Device: sl.Devices[j].Name}] = deviceAt{&sl.Devices[j], sl.NodeName}
			}
		}
	}
	out := &cluster.AllocationResult{}
	if len(s.Devices.Results) > cluster.MaxDeviceRequests {
		return nil, b.failf(line, where+".devices.results", "%d devices, at most %d", len(s.Devices.Results), cluster.MaxDeviceRequests)
	}
	seen := map[cluster.DeviceID]bool{}
	for i, r := range s.Devices.Results {
		at := fmt.Sprintf("%s.devices.results[%d]", where, i)
		id := cluster.DeviceID{Driver: r.Driver, Pool: r.Pool, Device: r.Device}
		if !requestNamed(spec, r.Request) {
			return nil, b.failf(line, at+".request", "%q names no request of the claim", r.Request)
		}
		d, ok := b.devicesByID[id]
		if !ok {
			if _, left := b.leftOut[id]; left {
				return nil, nil // the caller warns
			}
			return nil, b.failf(line, at+".device", "device %s is in no ResourceSlice", id)
		}
		if out.Node != "" && d.node != "" && d.node != out.Node {
			return nil, b.failf(line, at+".device", "device %s is on node %s, another device of the claim on node %s", id, d.node, out.Node)
		}
		if d.node != "" {
			out.Node = d.node
		}
		a := cluster.DeviceRequestAllocation{Request: r.Request, Driver: r.Driver, Pool: r.Pool, Device: r.Device,
			AdminAccess: r.AdminAccess != nil && *r.AdminAccess}
		if seen[id] && !a.AdminAccess && !d.dev.AllowMultipleAllocations {
			return nil, b.failf(line, at+".device", "device %s is allocated twice", id)
		}
		seen[id] = true
		if d.dev.AllowMultipleAllocations {
			a.ConsumedCapacity = map[cluster.QualifiedName]cluster.Quantity{} // a share, even of nothing
			for name, text := range r.ConsumedCapacity {
				if _, ok := d.dev.Capacity[cluster.QualifiedName(name)]; !ok {
					return nil, b.failf(line, at+".consumedCapacity."+name, "device %s has no capacity %s", id, name)
				}
				q, err := b.quantity(text, line, at+".consumedCapacity."+name)
				if err != nil {
					return nil, err
				}
				a.ConsumedCapacity[cluster.QualifiedName(name)] = q
			}
		} else if len(r.ConsumedCapacity) > 0 {
			return nil, b.failf(line, at+".consumedCapacity", "device %s does not allow multiple allocations", id)
		}
		out.Devices = append(out.Devices, a)
	}
	if ns := s.NodeSelector; ns != nil && out.Node == "" && len(out.Devices) > 0 {
		// devices no node owns: the nodes that reach them, as allocated
		out.NodeSelector = []cluster.SelectorTerm{}
		for _, t := range ns.Terms {
			out.NodeSelector = append(out.NodeSelector, t.Convert())
		}
	}
	return out, nil
}

// deviceAt is a device of the scenario's slices, and its node.
type deviceAt struct {
	dev  *cluster.Device
	node string
}

// requestNamed reports whether name is a request of the spec ("req"), or
// one of a request's alternatives ("req/sub").
func requestNamed(spec *cluster.ResourceClaimSpec, name string) bool {
	req, sub, hasSub := strings.Cut(name, "/")
	for _, r := range spec.Requests {
		if r.Name != req {
			continue
		}
		if !hasSub {
			return r.Exactly != nil
		}
		for _, alt := range r.FirstAvailable {
			if alt.Name == sub {
				return true
			}
		}
	}
	return false
}
