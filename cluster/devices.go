package cluster

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
)

// Dynamic Resource Allocation (resource.k8s.io/v1): drivers publish the
// devices of a node in ResourceSlices, DeviceClasses name kinds of device
// by CEL selectors, and pods ask for devices through ResourceClaims (their
// own, or one made for each pod from a ResourceClaimTemplate). The
// scheduler allocates a claim's devices on the node it picks; the
// allocation stays with the claim until its last pod ends.

// Quantity is a device capacity or a capacity request, in thousandths of
// its unit (Kubernetes' MilliValue): "80Gi" is 85899345920000, "1000" is
// 1000000, "0.5" is 500.
type Quantity int64

// MaxQuantity is the largest Quantity, some 8 Pi units (9.2e15).
const MaxQuantity = Quantity(math.MaxInt64)

// AddQuantities returns a+b, and false when the sum does not fit a
// Quantity (it would wrap around). Capacity checks use it: a sum that
// does not fit exceeds every capacity.
func AddQuantities(a, b Quantity) (Quantity, bool) {
	s := a + b
	if (b > 0 && s < a) || (b < 0 && s > a) {
		return 0, false
	}
	return s, true
}

// SaturatingAdd returns q+o, or the largest or smallest Quantity when the
// sum does not fit: sums of what allocations take never wrap around.
func (q Quantity) SaturatingAdd(o Quantity) Quantity {
	if s, ok := AddQuantities(q, o); ok {
		return s
	}
	if o > 0 {
		return MaxQuantity
	}
	return math.MinInt64
}

// SaturatingSub returns q-o, saturated as SaturatingAdd.
func (q Quantity) SaturatingSub(o Quantity) Quantity {
	if o == math.MinInt64 {
		return q.SaturatingAdd(MaxQuantity).SaturatingAdd(1)
	}
	return q.SaturatingAdd(-o)
}

// ParseDeviceQuantity parses a Kubernetes quantity into a Quantity.
// Kubernetes takes any quantity it can parse; one from about 8 Pi up
// (9.2e15 units, and an exponent up to 999) is taken here as MaxQuantity,
// so that such capacities load and compare as the largest there is.
func ParseDeviceQuantity(text string) (Quantity, error) {
	v, err := parseQuantity(text, 1000, true)
	return Quantity(v), err
}

// Value is the quantity in whole units, rounded up as Kubernetes'
// Quantity.Value rounds.
func (q Quantity) Value() int64 {
	v := int64(q) / 1000
	if int64(q)%1000 > 0 {
		v++
	}
	return v
}

// MilliValue is the quantity in thousandths.
func (q Quantity) MilliValue() int64 { return int64(q) }

// Compare returns -1, 0 or 1 as q is less than, equal to or more than o.
func (q Quantity) Compare(o Quantity) int { return cmp.Compare(q, o) }

// String renders the quantity as Kubernetes does without a suffix: whole
// units ("1000"), or thousandths ("500m").
func (q Quantity) String() string {
	if q%1000 == 0 {
		return strconv.FormatInt(int64(q)/1000, 10)
	}
	return strconv.FormatInt(int64(q), 10) + "m"
}

// QualifiedName names an attribute or a capacity of a device: "domain/id",
// or "id" in the domain of the device's driver.
type QualifiedName string

// DeviceAttribute is one typed attribute value: exactly one field is set.
type DeviceAttribute struct {
	IntValue     *int64
	BoolValue    *bool
	StringValue  *string
	VersionValue *string // a semantic version, "1.2.3"
}

// Kind names the field that is set ("int", "bool", "string", "version"),
// or "" for none.
func (a DeviceAttribute) Kind() string {
	switch {
	case a.IntValue != nil:
		return "int"
	case a.BoolValue != nil:
		return "bool"
	case a.StringValue != nil:
		return "string"
	case a.VersionValue != nil:
		return "version"
	}
	return ""
}

// Equal reports whether a and b are of one kind and value.
func (a DeviceAttribute) Equal(b DeviceAttribute) bool {
	switch {
	case a.IntValue != nil && b.IntValue != nil:
		return *a.IntValue == *b.IntValue
	case a.BoolValue != nil && b.BoolValue != nil:
		return *a.BoolValue == *b.BoolValue
	case a.StringValue != nil && b.StringValue != nil:
		return *a.StringValue == *b.StringValue
	case a.VersionValue != nil && b.VersionValue != nil:
		return *a.VersionValue == *b.VersionValue
	}
	return false
}

// String renders the value.
func (a DeviceAttribute) String() string {
	switch {
	case a.IntValue != nil:
		return strconv.FormatInt(*a.IntValue, 10)
	case a.BoolValue != nil:
		return strconv.FormatBool(*a.BoolValue)
	case a.StringValue != nil:
		return strconv.Quote(*a.StringValue)
	case a.VersionValue != nil:
		return *a.VersionValue
	}
	return "<none>"
}

// DeviceCapacity is one capacity of a device, and, on a device that
// several claims may share (AllowMultipleAllocations), how a claim's
// request for it is rounded and bounded (KEP-5075, consumable capacity).
type DeviceCapacity struct {
	Value         Quantity
	RequestPolicy *CapacityRequestPolicy
}

// CapacityRequestPolicy is how much of a shared capacity a claim takes:
// Default when it asks for none; a request is rounded up into ValidRange
// (to Min, then to a multiple of Step above it) or up to the first of
// ValidValues it does not exceed; a request outside them is refused.
type CapacityRequestPolicy struct {
	Default     *Quantity
	ValidValues []Quantity // ascending
	ValidRange  *CapacityRange
}

// CapacityRange bounds a capacity request: Min, at most Max (nil: the
// capacity), in steps of Step above Min (nil: any amount).
type CapacityRange struct {
	Min  Quantity
	Max  *Quantity
	Step *Quantity
}

// Device is one device a driver publishes.
type Device struct {
	Name       string
	Attributes map[QualifiedName]DeviceAttribute
	Capacity   map[QualifiedName]DeviceCapacity
	// ConsumesCounters are the shares of the slice's counter sets the
	// device takes while allocated: a partition of a bigger device
	// (KEP-4815, partitionable devices).
	ConsumesCounters []DeviceCounterConsumption
	// AllowMultipleAllocations lets several claims share the device, each
	// taking part of its capacity (KEP-5075).
	AllowMultipleAllocations bool
	Taints                   []DeviceTaint
}

// DeviceCounterConsumption is what a device takes of one counter set.
type DeviceCounterConsumption struct {
	CounterSet string
	Counters   map[string]Quantity
}

// CounterSet is a set of counters devices of the slice's pool share: the
// memory and compute slices of one physical GPU, say.
type CounterSet struct {
	Name     string
	Counters map[string]Quantity
}

// DeviceTaintEffect is what a device taint does to pods that do not
// tolerate it.
type DeviceTaintEffect string

// The device taint effects.
const (
	DeviceTaintNone       DeviceTaintEffect = "None"
	DeviceTaintNoSchedule DeviceTaintEffect = "NoSchedule"
	DeviceTaintNoExecute  DeviceTaintEffect = "NoExecute"
)

// DeviceTaint marks a device; a request that does not tolerate a
// NoSchedule or NoExecute taint is not given the device (KEP-5055).
type DeviceTaint struct {
	Key    string
	Value  string
	Effect DeviceTaintEffect
}

// DeviceToleration tolerates device taints as a pod toleration tolerates
// node taints: empty Key and Exists tolerate everything.
type DeviceToleration struct {
	Key      string
	Operator TolerationOperator // "" means Equal
	Value    string
	Effect   DeviceTaintEffect // "" tolerates every effect
}

// Tolerates reports whether t tolerates taint, by the rule of node
// tolerations.
func (t *DeviceToleration) Tolerates(taint *DeviceTaint) bool {
	return tolerates(t.Key, t.Operator, t.Value, t.Effect == "" || t.Effect == taint.Effect, taint.Key, taint.Value)
}

// ResourcePool is the pool a slice belongs to: a driver's devices of one
// node (or of a set of nodes), published in SliceCount slices of one
// Generation.
type ResourcePool struct {
	Name       string
	Generation int64
	SliceCount int64
}

// ResourceSlice is part of a pool of devices, as a driver publishes it.
// Exactly one of NodeName, NodeSelector (one term) and AllNodes says which
// nodes can reach the devices. A slice holds either Devices or SharedCounters.
type ResourceSlice struct {
	Name           string
	Driver         string
	Pool           ResourcePool
	NodeName       string
	NodeSelector   []SelectorTerm // nodes matching some term
	AllNodes       bool
	Devices        []Device
	SharedCounters []CounterSet
}

// DeviceSelector is a CEL expression over a device: true selects it.
type DeviceSelector struct {
	CEL string
}

// DeviceClass is a kind of device: the devices every selector selects.
type DeviceClass struct {
	Name      string
	Selectors []DeviceSelector
	// ExtendedResourceName is the extended resource (example.com/gpu)
	// whose requests in pods this class serves on nodes that do not
	// offer the resource themselves (KEP-5004); "" for none.
	ExtendedResourceName ResourceName
}

// DeviceAllocationMode says how many devices a request takes.
type DeviceAllocationMode string

// The allocation modes.
const (
	DeviceAllocationExactCount DeviceAllocationMode = "ExactCount"
	DeviceAllocationAll        DeviceAllocationMode = "All"
)

// ExactDeviceRequest asks for Count devices of a class (or all of them, in
// mode All) that every selector selects.
type ExactDeviceRequest struct {
	DeviceClassName string
	Selectors       []DeviceSelector
	AllocationMode  DeviceAllocationMode // "" means ExactCount
	Count           int64                // 0 means 1, in mode ExactCount
	AdminAccess     bool
	Tolerations     []DeviceToleration
	// Capacity is what the request takes of each capacity of a shared
	// device (KEP-5075).
	Capacity map[QualifiedName]Quantity
}

// EffectiveCount is the number of devices asked for in mode ExactCount.
func (r *ExactDeviceRequest) EffectiveCount() int64 {
	if r.Count == 0 {
		return 1
	}
	return r.Count
}

// EffectiveMode is the allocation mode with its default.
func (r *ExactDeviceRequest) EffectiveMode() DeviceAllocationMode {
	if r.AllocationMode == "" {
		return DeviceAllocationExactCount
	}
	return r.AllocationMode
}

// DeviceSubRequest is one alternative of a request's FirstAvailable list.
type DeviceSubRequest struct {
	Name string
	ExactDeviceRequest
}

// DeviceRequest is one request of a claim: Exactly, or the first of
// FirstAvailable's alternatives that can be met.
type DeviceRequest struct {
	Name           string
	Exactly        *ExactDeviceRequest
	FirstAvailable []DeviceSubRequest
}

// DeviceConstraint constrains the devices of the requests it names (all,
// when Requests is empty; "req" covers all of req's alternatives,
// "req/sub" one): they share the value of MatchAttribute, or have distinct
// values of DistinctAttribute.
type DeviceConstraint struct {
	Requests          []string
	MatchAttribute    QualifiedName
	DistinctAttribute QualifiedName
}

// ResourceClaimSpec is what a claim asks for.
type ResourceClaimSpec struct {
	Requests    []DeviceRequest
	Constraints []DeviceConstraint
}

// ResourceClaim asks for devices. Pods that name it share its devices.
type ResourceClaim struct {
	Namespace string
	Name      string
	Spec      ResourceClaimSpec
	// Owner is the object the claim was made for (its controller owner
	// reference): the pod a claim made from a template belongs to. nil
	// for a claim a user added, which no controller deletes.
	Owner *ClaimOwner `json:",omitempty"`
	// Allocation is the allocation the claim arrives with (a dump's
	// status.allocation): the first pod that arrives running with the
	// claim takes exactly these devices on its node rather than an
	// allocation made anew, and they stay the claim's while pods running
	// with it hold it. nil for a claim that arrives unallocated (and for
	// every claim the scheduler allocates: it keeps allocations with the
	// node, not here). Read-only.
	Allocation *AllocationResult `json:",omitempty"`
	specKey    string            // see SpecKey
}

// ClaimOwner is a claim's controller owner reference: the kind and name
// of the object, in the claim's namespace, it was made for.
type ClaimOwner struct {
	Kind string // OwnerPod or OwnerPodGroup
	Name string
}

// The kinds of a claim's owner: a pod, for a claim made from a template
// of the pod's; a PodGroup, for one made from a template of the group's
// (spec.resourceClaims of a PodGroup, DRAWorkloadResourceClaims), which
// the group's pods share.
const (
	OwnerPod      = "Pod"
	OwnerPodGroup = "PodGroup"
)

// Key returns the claim's "namespace/name".
func (c *ResourceClaim) Key() string { return string(MakePodKey(c.Namespace, c.Name)) }

// ResourceClaimTemplate makes one claim for each pod that names it.
type ResourceClaimTemplate struct {
	Namespace string
	Name      string
	Spec      ResourceClaimSpec
}

// PodResourceClaim is one entry of a pod's spec.resourceClaims: the claim
// it uses under Name, either ResourceClaimName (shared) or one made for
// the pod from ResourceClaimTemplateName.
type PodResourceClaim struct {
	Name                      string
	ResourceClaimName         string
	ResourceClaimTemplateName string
}

// PodResourceClaimStatus is one entry of a pod's
// status.resourceClaimStatuses: the name of the claim the resourceclaim
// controller made for the pod's entry Name from its template.
type PodResourceClaimStatus struct {
	Name              string
	ResourceClaimName string
}

// DeviceRequestAllocation is one device allocated to a request ("req", or
// "req/sub" for the alternative taken).
type DeviceRequestAllocation struct {
	Request string
	Driver  string
	Pool    string
	Device  string
	// ConsumedCapacity is what the claim takes of a shared device's
	// capacities; nil for a device the claim has alone.
	ConsumedCapacity map[QualifiedName]Quantity
	AdminAccess      bool
}

// DeviceID is "driver/pool/device".
func (a *DeviceRequestAllocation) DeviceID() DeviceID {
	return DeviceID{Driver: a.Driver, Pool: a.Pool, Device: a.Device}
}

// DeviceID names a device in the cluster.
type DeviceID struct {
	Driver, Pool, Device string
}

// String renders "driver/pool/device".
func (id DeviceID) String() string { return fmt.Sprintf("%s/%s/%s", id.Driver, id.Pool, id.Device) }

// Compare orders device IDs by driver, pool and device name.
func (id DeviceID) Compare(o DeviceID) int {
	if c := cmp.Compare(id.Driver, o.Driver); c != 0 {
		return c
	}
	if c := cmp.Compare(id.Pool, o.Pool); c != 0 {
		return c
	}
	return cmp.Compare(id.Device, o.Device)
}

// AllocationResult is a claim's allocation: its devices, and the node
// they were allocated on, or, for devices no node owns ("" Node), the
// nodes that reach them: those NodeSelector selects (some term matches;
// nil for every node), as kube's allocation.nodeSelector says.
type AllocationResult struct {
	Devices      []DeviceRequestAllocation
	Node         string
	NodeSelector []SelectorTerm `json:",omitempty"`
}
