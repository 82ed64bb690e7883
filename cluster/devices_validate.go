package cluster

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// ErrInvalidDevices is wrapped by every error of the Validate methods of
// the device objects (DeviceClass, ResourceSlice, ResourceClaim,
// ResourceClaimTemplate).
var ErrInvalidDevices = errors.New("cluster: invalid device object")

// The limits the API server puts on device objects (resource.k8s.io/v1).
const (
	MaxSlicedDevices          = 128 // devices in a slice
	MaxSlicedDevicesWithTaint = 64  // ... when a device has taints or consumes counters
	MaxDeviceNameParts        = 32  // attributes and capacities of a device
	MaxSelectors              = 32
	MaxDeviceRequests         = 32 // requests of a claim, and devices allocated to it
	MaxSubRequests            = 8  // FirstAvailable alternatives
	MaxConstraints            = 32
	MaxCounterSets            = 8 // per slice
	MaxCounters               = 32
	MaxConsumesCounters       = 2 // counter sets a device consumes from
	MaxDeviceTaints           = 16
	MaxDeviceTolerations      = 16
	MaxCELLength              = 10 * 1024
)

// Validate reports the first problem with the class, naming it and the
// field. A selector's CEL is checked for its length here; whether it
// compiles is checked where the selectors are compiled.
func (c *DeviceClass) Validate() error {
	bad := devicesError("deviceclass", "", c.Name)
	if err := NameProblem(c.Name, false); err != "" {
		return bad("metadata.name", "%s", err)
	}
	if err := selectorsProblem(c.Selectors); err != nil {
		return bad("spec"+err.field, "%s", err.detail)
	}
	if c.ExtendedResourceName != "" && !strings.Contains(string(c.ExtendedResourceName), "/") {
		return bad("spec.extendedResourceName", "%q is not a domain-prefixed extended resource name", c.ExtendedResourceName)
	}
	return nil
}

// Validate reports the first problem with the slice.
func (s *ResourceSlice) Validate() error {
	bad := devicesError("resourceslice", "", s.Name)
	switch {
	case NameProblem(s.Name, false) != "":
		return bad("metadata.name", "%s", NameProblem(s.Name, false))
	case NameProblem(s.Driver, false) != "" || len(s.Driver) > 63:
		return bad("spec.driver", "%q is not a DNS subdomain of at most 63 characters", s.Driver)
	case s.Pool.Name == "":
		return bad("spec.pool.name", "must not be empty")
	case s.Pool.SliceCount <= 0:
		return bad("spec.pool.resourceSliceCount", "%d must be positive", s.Pool.SliceCount)
	case s.Pool.Generation < 0:
		return bad("spec.pool.generation", "%d must not be negative", s.Pool.Generation)
	}
	reach := 0
	for _, set := range []bool{s.NodeName != "", s.NodeSelector != nil, s.AllNodes} {
		if set {
			reach++
		}
	}
	if reach != 1 {
		return bad("spec", "exactly one of nodeName, nodeSelector and allNodes must be set")
	}
	if s.NodeSelector != nil && len(s.NodeSelector) != 1 {
		return bad("spec.nodeSelector.nodeSelectorTerms", "must have exactly one term")
	}
	if len(s.Devices) > 0 && len(s.SharedCounters) > 0 {
		return bad("spec", "devices and sharedCounters must not both be set")
	}
	if err := countersProblem(s.SharedCounters); err != nil {
		return bad("spec.sharedCounters"+err.field, "%s", err.detail)
	}
	limit := MaxSlicedDevices
	for i := range s.Devices {
		if d := &s.Devices[i]; len(d.Taints) > 0 || len(d.ConsumesCounters) > 0 {
			limit = MaxSlicedDevicesWithTaint
		}
	}
	if len(s.Devices) > limit {
		return bad("spec.devices", "%d devices, at most %d", len(s.Devices), limit)
	}
	names := map[string]bool{}
	for i := range s.Devices {
		d := &s.Devices[i]
		if names[d.Name] {
			return bad(fmt.Sprintf("spec.devices[%d].name", i), "%q is listed twice", d.Name)
		}
		names[d.Name] = true
		if err := d.problem(); err != nil {
			return bad(fmt.Sprintf("spec.devices[%d]%s", i, err.field), "%s", err.detail)
		}
	}
	return nil
}

// problem is the first problem with a device, its field relative to the
// device.
func (d *Device) problem() *fieldProblem {
	if !isDNSLabel(d.Name) {
		return &fieldProblem{".name", fmt.Sprintf("%q is not a DNS label", d.Name)}
	}
	if n := len(d.Attributes) + len(d.Capacity); n > MaxDeviceNameParts {
		return &fieldProblem{"", fmt.Sprintf("%d attributes and capacities, at most %d", n, MaxDeviceNameParts)}
	}
	for _, name := range sortedKeys(d.Attributes) {
		if err := qualifiedNameProblem(name); err != "" {
			return &fieldProblem{fmt.Sprintf(".attributes[%s]", name), err}
		}
		if d.Attributes[name].Kind() == "" || !oneAttributeValue(d.Attributes[name]) {
			return &fieldProblem{fmt.Sprintf(".attributes[%s]", name), "exactly one of int, bool, string and version must be set"}
		}
		if err := attributeValueProblem(d.Attributes[name]); err != nil {
			return &fieldProblem{fmt.Sprintf(".attributes[%s]%s", name, err.field), err.detail}
		}
	}
	for _, name := range sortedKeys(d.Capacity) {
		field := fmt.Sprintf(".capacity[%s]", name)
		if err := qualifiedNameProblem(name); err != "" {
			return &fieldProblem{field, err}
		}
		c := d.Capacity[name]
		if c.Value < 0 {
			return &fieldProblem{field + ".value", "must not be negative"}
		}
		if c.RequestPolicy != nil {
			if !d.AllowMultipleAllocations {
				return &fieldProblem{field + ".requestPolicy", "is allowed only when allowMultipleAllocations is true"}
			}
			if err := c.RequestPolicy.problem(c.Value); err != nil {
				return &fieldProblem{field + ".requestPolicy" + err.field, err.detail}
			}
		}
	}
	if len(d.ConsumesCounters) > MaxConsumesCounters {
		return &fieldProblem{".consumesCounters", fmt.Sprintf("%d counter sets, at most %d", len(d.ConsumesCounters), MaxConsumesCounters)}
	}
	for i, cc := range d.ConsumesCounters {
		if cc.CounterSet == "" {
			return &fieldProblem{fmt.Sprintf(".consumesCounters[%d].counterSet", i), "must not be empty"}
		}
		for _, name := range sortedKeys(cc.Counters) {
			if cc.Counters[name] < 0 {
				return &fieldProblem{fmt.Sprintf(".consumesCounters[%d].counters[%s]", i, name), "must not be negative"}
			}
		}
	}
	if len(d.Taints) > MaxDeviceTaints {
		return &fieldProblem{".taints", fmt.Sprintf("%d taints, at most %d", len(d.Taints), MaxDeviceTaints)}
	}
	for i, t := range d.Taints {
		switch {
		case t.Key == "":
			return &fieldProblem{fmt.Sprintf(".taints[%d].key", i), "must not be empty"}
		case t.Effect != DeviceTaintNone && t.Effect != DeviceTaintNoSchedule && t.Effect != DeviceTaintNoExecute:
			return &fieldProblem{fmt.Sprintf(".taints[%d].effect", i), fmt.Sprintf("%q is not None, NoSchedule or NoExecute", t.Effect)}
		}
	}
	return nil
}

// MaxAttributeValueLength is the longest string or version value of a
// device attribute (resource.k8s.io's DeviceAttributeMaxValueLength).
const MaxAttributeValueLength = 64

// semverPattern is a semantic version as semver.org 2.0.0 defines it:
// three numbers without leading zeros, an optional pre-release of
// dot-separated identifiers (numeric ones without leading zeros) and
// optional build metadata.
var semverPattern = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)` +
	`(-(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*))*)?` +
	`(\+[0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*)?$`)

// attributeValueProblem checks a string or version value as the API
// server does: at most MaxAttributeValueLength characters, and a version
// a semantic version.
func attributeValueProblem(a DeviceAttribute) *fieldProblem {
	switch {
	case a.StringValue != nil && len(*a.StringValue) > MaxAttributeValueLength:
		return &fieldProblem{".string", fmt.Sprintf("%d characters, at most %d", len(*a.StringValue), MaxAttributeValueLength)}
	case a.VersionValue == nil:
		return nil
	case len(*a.VersionValue) > MaxAttributeValueLength:
		return &fieldProblem{".version", fmt.Sprintf("%d characters, at most %d", len(*a.VersionValue), MaxAttributeValueLength)}
	case !semverPattern.MatchString(*a.VersionValue):
		return &fieldProblem{".version", fmt.Sprintf("%q is not a semantic version (semver.org 2.0.0, such as 1.2.3)", *a.VersionValue)}
	}
	return nil
}

// oneAttributeValue reports whether exactly one value of a is set.
func oneAttributeValue(a DeviceAttribute) bool {
	n := 0
	for _, set := range []bool{a.IntValue != nil, a.BoolValue != nil, a.StringValue != nil, a.VersionValue != nil} {
		if set {
			n++
		}
	}
	return n == 1
}

// problem checks a capacity's request policy against the capacity.
func (p *CapacityRequestPolicy) problem(capacity Quantity) *fieldProblem {
	if p.ValidRange != nil && len(p.ValidValues) > 0 {
		return &fieldProblem{"", "validRange and validValues must not both be set"}
	}
	if len(p.ValidValues) > 10 {
		return &fieldProblem{".validValues", fmt.Sprintf("%d values, at most 10", len(p.ValidValues))}
	}
	for i := 1; i < len(p.ValidValues); i++ {
		if p.ValidValues[i] <= p.ValidValues[i-1] {
			return &fieldProblem{fmt.Sprintf(".validValues[%d]", i), "values must be unique and ascending"}
		}
	}
	for i, v := range p.ValidValues {
		if v > capacity {
			return &fieldProblem{fmt.Sprintf(".validValues[%d]", i), fmt.Sprintf("%v exceeds the capacity %v", v, capacity)}
		}
	}
	if r := p.ValidRange; r != nil {
		switch {
		case r.Min < 0 || r.Min > capacity:
			return &fieldProblem{".validRange.min", fmt.Sprintf("%v is not within 0 and the capacity %v", r.Min, capacity)}
		case r.Max != nil && (*r.Max < r.Min || *r.Max > capacity):
			return &fieldProblem{".validRange.max", fmt.Sprintf("%v is not within min %v and the capacity %v", *r.Max, r.Min, capacity)}
		case r.Step != nil && *r.Step <= 0:
			return &fieldProblem{".validRange.step", "must be positive"}
		}
	}
	if p.Default != nil {
		d := *p.Default
		switch {
		case d < 0 || d > capacity:
			return &fieldProblem{".default", fmt.Sprintf("%v is not within 0 and the capacity %v", d, capacity)}
		case len(p.ValidValues) > 0 && !slices.Contains(p.ValidValues, d):
			return &fieldProblem{".default", fmt.Sprintf("%v is not one of validValues", d)}
		case p.ValidRange != nil && (d < p.ValidRange.Min || p.ValidRange.Max != nil && d > *p.ValidRange.Max):
			return &fieldProblem{".default", fmt.Sprintf("%v is outside validRange", d)}
		}
	}
	return nil
}

// countersProblem checks a slice's counter sets.
func countersProblem(sets []CounterSet) *fieldProblem {
	if len(sets) > MaxCounterSets {
		return &fieldProblem{"", fmt.Sprintf("%d counter sets, at most %d", len(sets), MaxCounterSets)}
	}
	seen := map[string]bool{}
	for i, set := range sets {
		switch {
		case !isDNSLabel(set.Name):
			return &fieldProblem{fmt.Sprintf("[%d].name", i), fmt.Sprintf("%q is not a DNS label", set.Name)}
		case seen[set.Name]:
			return &fieldProblem{fmt.Sprintf("[%d].name", i), fmt.Sprintf("%q is listed twice", set.Name)}
		case len(set.Counters) == 0:
			return &fieldProblem{fmt.Sprintf("[%d].counters", i), "must not be empty"}
		case len(set.Counters) > MaxCounters:
			return &fieldProblem{fmt.Sprintf("[%d].counters", i), fmt.Sprintf("%d counters, at most %d", len(set.Counters), MaxCounters)}
		}
		seen[set.Name] = true
		for _, name := range sortedKeys(set.Counters) {
			if set.Counters[name] < 0 {
				return &fieldProblem{fmt.Sprintf("[%d].counters[%s].value", i, name), "must not be negative"}
			}
		}
	}
	return nil
}

// Validate reports the first problem with the claim.
func (c *ResourceClaim) Validate() error {
	bad := devicesError("resourceclaim", c.Namespace, c.Name)
	if err := NameProblem(c.Name, false); err != "" {
		return bad("metadata.name", "%s", err)
	}
	if err := c.Spec.problem(); err != nil {
		return bad("spec.devices"+err.field, "%s", err.detail)
	}
	if o := c.Owner; o != nil && (o.Kind != OwnerPod && o.Kind != OwnerPodGroup || NameProblem(o.Name, false) != "") {
		return bad("metadata.ownerReferences", "owner %s %q is not a pod's or a PodGroup's name", o.Kind, o.Name)
	}
	return nil
}

// Validate reports the first problem with the template.
func (t *ResourceClaimTemplate) Validate() error {
	bad := devicesError("resourceclaimtemplate", t.Namespace, t.Name)
	if err := NameProblem(t.Name, false); err != "" {
		return bad("metadata.name", "%s", err)
	}
	if err := t.Spec.problem(); err != nil {
		return bad("spec.spec.devices"+err.field, "%s", err.detail)
	}
	return nil
}

// problem checks a claim's requests and constraints.
func (s *ResourceClaimSpec) problem() *fieldProblem {
	if len(s.Requests) > MaxDeviceRequests {
		return &fieldProblem{".requests", fmt.Sprintf("%d requests, at most %d", len(s.Requests), MaxDeviceRequests)}
	}
	names := map[string][]string{} // request -> its alternatives
	for i := range s.Requests {
		r := &s.Requests[i]
		field := fmt.Sprintf(".requests[%d]", i)
		if !isDNSLabel(r.Name) {
			return &fieldProblem{field + ".name", fmt.Sprintf("%q is not a DNS label", r.Name)}
		}
		if _, dup := names[r.Name]; dup {
			return &fieldProblem{field + ".name", fmt.Sprintf("%q is listed twice", r.Name)}
		}
		names[r.Name] = nil
		switch {
		case (r.Exactly == nil) == (len(r.FirstAvailable) == 0):
			return &fieldProblem{field, "exactly one of exactly and firstAvailable must be set"}
		case r.Exactly != nil:
			if err := r.Exactly.problem(true); err != nil {
				return &fieldProblem{field + ".exactly" + err.field, err.detail}
			}
		case len(r.FirstAvailable) > MaxSubRequests:
			return &fieldProblem{field + ".firstAvailable", fmt.Sprintf("%d alternatives, at most %d", len(r.FirstAvailable), MaxSubRequests)}
		}
		for j := range r.FirstAvailable {
			sub := &r.FirstAvailable[j]
			sf := fmt.Sprintf("%s.firstAvailable[%d]", field, j)
			if !isDNSLabel(sub.Name) {
				return &fieldProblem{sf + ".name", fmt.Sprintf("%q is not a DNS label", sub.Name)}
			}
			if slices.Contains(names[r.Name], sub.Name) {
				return &fieldProblem{sf + ".name", fmt.Sprintf("%q is listed twice", sub.Name)}
			}
			names[r.Name] = append(names[r.Name], sub.Name)
			if err := sub.ExactDeviceRequest.problem(false); err != nil {
				return &fieldProblem{sf + err.field, err.detail}
			}
		}
	}
	if len(s.Constraints) > MaxConstraints {
		return &fieldProblem{".constraints", fmt.Sprintf("%d constraints, at most %d", len(s.Constraints), MaxConstraints)}
	}
	for i, c := range s.Constraints {
		field := fmt.Sprintf(".constraints[%d]", i)
		if (c.MatchAttribute == "") == (c.DistinctAttribute == "") {
			return &fieldProblem{field, "exactly one of matchAttribute and distinctAttribute must be set"}
		}
		for _, name := range []QualifiedName{c.MatchAttribute, c.DistinctAttribute} {
			if name != "" && (!strings.Contains(string(name), "/") || qualifiedNameProblem(name) != "") {
				return &fieldProblem{field, fmt.Sprintf("%q is not a fully qualified attribute name (domain/name)", name)}
			}
		}
		for j, req := range c.Requests {
			parent, sub, hasSub := strings.Cut(req, "/")
			alts, known := names[parent]
			if !known || hasSub && !slices.Contains(alts, sub) {
				return &fieldProblem{fmt.Sprintf("%s.requests[%d]", field, j), fmt.Sprintf("%q names no request of the claim", req)}
			}
		}
	}
	return nil
}

// problem checks one request (exact: not an alternative of FirstAvailable,
// which may not ask for admin access).
func (r *ExactDeviceRequest) problem(exact bool) *fieldProblem {
	switch {
	case r.DeviceClassName == "":
		return &fieldProblem{".deviceClassName", "must not be empty"}
	case NameProblem(r.DeviceClassName, false) != "":
		return &fieldProblem{".deviceClassName", NameProblem(r.DeviceClassName, false)}
	case !exact && r.AdminAccess:
		return &fieldProblem{".adminAccess", "is not allowed in a firstAvailable alternative"}
	}
	if err := selectorsProblem(r.Selectors); err != nil {
		return err
	}
	switch r.AllocationMode {
	case "", DeviceAllocationExactCount:
		if r.Count < 0 {
			return &fieldProblem{".count", fmt.Sprintf("%d must be positive", r.Count)}
		}
	case DeviceAllocationAll:
		if r.Count != 0 {
			return &fieldProblem{".count", "must not be set with allocationMode All"}
		}
	default:
		return &fieldProblem{".allocationMode", fmt.Sprintf("%q is not ExactCount or All", r.AllocationMode)}
	}
	if len(r.Tolerations) > MaxDeviceTolerations {
		return &fieldProblem{".tolerations", fmt.Sprintf("%d tolerations, at most %d", len(r.Tolerations), MaxDeviceTolerations)}
	}
	for i, t := range r.Tolerations {
		switch t.Operator {
		case "", TolerationEqual:
		case TolerationExists:
			if t.Value != "" {
				return &fieldProblem{fmt.Sprintf(".tolerations[%d].value", i), "must be empty with operator Exists"}
			}
		default:
			return &fieldProblem{fmt.Sprintf(".tolerations[%d].operator", i), fmt.Sprintf("%q is not Exists or Equal", t.Operator)}
		}
		if t.Key == "" && t.Operator != TolerationExists {
			return &fieldProblem{fmt.Sprintf(".tolerations[%d].operator", i), "must be Exists when the key is empty"}
		}
	}
	for _, name := range sortedKeys(r.Capacity) {
		if err := qualifiedNameProblem(name); err != "" {
			return &fieldProblem{fmt.Sprintf(".capacity.requests[%s]", name), err}
		}
		if r.Capacity[name] < 0 {
			return &fieldProblem{fmt.Sprintf(".capacity.requests[%s]", name), "must not be negative"}
		}
	}
	return nil
}

// selectorsProblem checks a list of selectors.
func selectorsProblem(sels []DeviceSelector) *fieldProblem {
	if len(sels) > MaxSelectors {
		return &fieldProblem{".selectors", fmt.Sprintf("%d selectors, at most %d", len(sels), MaxSelectors)}
	}
	for i, s := range sels {
		switch {
		case strings.TrimSpace(s.CEL) == "":
			return &fieldProblem{fmt.Sprintf(".selectors[%d].cel.expression", i), "must not be empty"}
		case len(s.CEL) > MaxCELLength:
			return &fieldProblem{fmt.Sprintf(".selectors[%d].cel.expression", i), fmt.Sprintf("%d bytes, at most %d", len(s.CEL), MaxCELLength)}
		}
	}
	return nil
}

// fieldProblem is a problem at a field path relative to where it is
// found.
type fieldProblem struct {
	field, detail string
}

// devicesError returns the error maker of one device object.
func devicesError(kind, namespace, name string) func(field, format string, args ...any) error {
	obj := kind + " " + name
	if namespace != "" || kind == "resourceclaim" || kind == "resourceclaimtemplate" {
		obj = kind + " " + string(MakePodKey(namespace, name))
	}
	return func(field, format string, args ...any) error {
		return fieldError(ErrInvalidDevices, obj, field, format, args...)
	}
}

// qualifiedNameProblem is why name is no device attribute or capacity
// name ("id" or "domain/id": a DNS subdomain of at most 63 characters and
// a C identifier of at most 32), or "".
func qualifiedNameProblem(name QualifiedName) string {
	domain, id, hasDomain := strings.Cut(string(name), "/")
	if !hasDomain {
		id, domain = domain, ""
	}
	if hasDomain && (len(domain) > 63 || !isDNSSubdomain(domain)) {
		return fmt.Sprintf("%q: the domain is not a DNS subdomain of at most 63 characters", name)
	}
	if len(id) > 32 || !isCIdentifier(id) {
		return fmt.Sprintf("%q: the name is not a C identifier of at most 32 characters", name)
	}
	return ""
}

// isDNSLabel reports whether s is an RFC 1123 label: at most 63 lower-case
// alphanumerics or '-', starting and ending alphanumeric.
func isDNSLabel(s string) bool {
	return len(s) <= 63 && isDNSLabelChars(s)
}

// isDNSLabelChars is isDNSLabel without the length bound: the API
// server's subdomain pattern bounds only the whole (253), not each label.
func isDNSLabelChars(s string) bool {
	if len(s) == 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if !alnum && (c != '-' || i == 0 || i == len(s)-1) {
			return false
		}
	}
	return true
}

// isDNSSubdomain reports whether s is an RFC 1123 subdomain: labels
// joined by '.', at most 253 characters.
func isDNSSubdomain(s string) bool {
	if len(s) == 0 || len(s) > 253 {
		return false
	}
	for start := 0; ; {
		end := strings.IndexByte(s[start:], '.')
		if end < 0 {
			return isDNSLabelChars(s[start:])
		}
		if !isDNSLabelChars(s[start : start+end]) {
			return false
		}
		start += end + 1
	}
}

// isCIdentifier reports whether s is a C identifier.
func isCIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// sortedKeys returns a map's keys in order.
func sortedKeys[K ~string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
