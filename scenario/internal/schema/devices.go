package schema

import "github.com/gangsim/gangsim/cluster"

// The device objects of Dynamic Resource Allocation (resource.k8s.io/v1),
// as a scenario file lists them and as the Kubernetes objects hold them:
// a scenario entry is the object's name (and namespace) with its spec's
// fields beside it, so that one set of types serves both. Quantities are
// kept as written, for the builder to parse (cluster.ParseDeviceQuantity);
// config and the fields of alpha features the simulator does not model
// are Unmodelled.

// DeviceClass is an entry of deviceClasses.
type DeviceClass struct {
	Line            int    `yaml:"-"`
	Name            string `yaml:"name"`
	DeviceClassSpec `yaml:",inline"`
	Origin          *Origin `yaml:"-"`
}

// DeviceClassSpec is a DeviceClass's spec.
type DeviceClassSpec struct {
	Selectors            []DeviceSelector `yaml:"selectors"`
	Config               Unmodelled       `yaml:"config"`
	ExtendedResourceName *string          `yaml:"extendedResourceName"`
}

// DeviceSelector is one selector: a CEL expression.
type DeviceSelector struct {
	CEL *struct {
		Expression string `yaml:"expression"`
	} `yaml:"cel"`
}

// ResourceSlice is an entry of resourceSlices.
type ResourceSlice struct {
	Line              int    `yaml:"-"`
	Name              string `yaml:"name"`
	ResourceSliceSpec `yaml:",inline"`
	Origin            *Origin `yaml:"-"`
}

// ResourceSliceSpec is a ResourceSlice's spec.
type ResourceSliceSpec struct {
	Driver       string        `yaml:"driver"`
	Pool         ResourcePool  `yaml:"pool"`
	NodeName     string        `yaml:"nodeName"`
	NodeSelector *NodeSelector `yaml:"nodeSelector"`
	AllNodes     bool          `yaml:"allNodes"`
	// PerDeviceNodeSelection (each device says which nodes reach it) is
	// not modelled: the builder leaves such a slice out, with a warning.
	PerDeviceNodeSelection *bool        `yaml:"perDeviceNodeSelection"`
	Devices                []Device     `yaml:"devices"`
	SharedCounters         []CounterSet `yaml:"sharedCounters"`
	PartitionTypeAttribute Unmodelled   `yaml:"partitionTypeAttribute"`
	SkipNodeOperations     Unmodelled   `yaml:"skipNodeOperations"`
}

// ResourcePool is a slice's pool.
type ResourcePool struct {
	Name               string `yaml:"name"`
	Generation         int64  `yaml:"generation"`
	ResourceSliceCount int64  `yaml:"resourceSliceCount"`
}

// Device is one device of a slice.
type Device struct {
	Name                     string                     `yaml:"name"`
	Attributes               map[string]DeviceAttribute `yaml:"attributes"`
	Capacity                 map[string]DeviceCapacity  `yaml:"capacity"`
	ConsumesCounters         []CounterConsumption       `yaml:"consumesCounters"`
	AllowMultipleAllocations *bool                      `yaml:"allowMultipleAllocations"`
	Taints                   []DeviceTaint              `yaml:"taints"`
	// Per-device node selection, binding conditions and node allocatable
	// resources are alpha features the simulator does not model.
	NodeName                 Unmodelled `yaml:"nodeName"`
	NodeSelector             Unmodelled `yaml:"nodeSelector"`
	AllNodes                 Unmodelled `yaml:"allNodes"`
	BindsToNode              Unmodelled `yaml:"bindsToNode"`
	BindingConditions        Unmodelled `yaml:"bindingConditions"`
	BindingFailureConditions Unmodelled `yaml:"bindingFailureConditions"`
	NodeAllocatableResources Unmodelled `yaml:"nodeAllocatableResources"`
}

// DeviceAttribute is one typed value: exactly one of int, bool, string
// and version. The list forms are an alpha feature, not modelled.
type DeviceAttribute struct {
	Int      *int64     `yaml:"int"`
	Bool     *bool      `yaml:"bool"`
	String   *string    `yaml:"string"`
	Version  *string    `yaml:"version"`
	Ints     Unmodelled `yaml:"ints"`
	Bools    Unmodelled `yaml:"bools"`
	Strings  Unmodelled `yaml:"strings"`
	Versions Unmodelled `yaml:"versions"`
}

// DeviceCapacity is one capacity of a device.
type DeviceCapacity struct {
	Value         string                 `yaml:"value"`
	RequestPolicy *CapacityRequestPolicy `yaml:"requestPolicy"`
}

// CapacityRequestPolicy is how a shared device's capacity is requested.
type CapacityRequestPolicy struct {
	Default     *string  `yaml:"default"`
	ValidValues []string `yaml:"validValues"`
	ValidRange  *struct {
		Min  *string `yaml:"min"`
		Max  *string `yaml:"max"`
		Step *string `yaml:"step"`
	} `yaml:"validRange"`
}

// Counter is one counter's value.
type Counter struct {
	Value string `yaml:"value"`
}

// CounterConsumption is what a device takes of a counter set.
type CounterConsumption struct {
	CounterSet string             `yaml:"counterSet"`
	Counters   map[string]Counter `yaml:"counters"`
}

// CounterSet is a set of counters a slice shares among its pool's devices.
type CounterSet struct {
	Name     string             `yaml:"name"`
	Counters map[string]Counter `yaml:"counters"`
}

// DeviceTaint is a device's taint.
type DeviceTaint struct {
	Key       string  `yaml:"key"`
	Value     string  `yaml:"value"`
	Effect    string  `yaml:"effect"`
	TimeAdded Skipped `yaml:"timeAdded"`
}

// ResourceClaim is an entry of resourceClaims.
type ResourceClaim struct {
	Line              int    `yaml:"-"`
	Name              string `yaml:"name"`
	Namespace         string `yaml:"namespace"`
	ResourceClaimSpec `yaml:",inline"`
	Origin            *Origin `yaml:"-"`
	// Allocation is the status.allocation of a claim read from a
	// Kubernetes object (the importer sets it).
	Allocation *ClaimAllocation `yaml:"-"`
	// Owner is the claim's controller owner reference, a pod's or a
	// PodGroup's (the importer sets it).
	Owner *cluster.ClaimOwner `yaml:"-"`
}

// ClaimAllocation is a claim's status.allocation, as the scheduler wrote
// it: the devices allocated to its requests, and the nodes that reach
// them. The rest of it (the time it was made, driver configuration) is
// the server's, and ignored.
type ClaimAllocation struct {
	OpenFields `yaml:",inline"`
	Devices    struct {
		Results []DeviceAllocationResult `yaml:"results"`
		Config  Unmodelled               `yaml:"config"`
	} `yaml:"devices"`
	NodeSelector *NodeSelector `yaml:"nodeSelector"`
}

// DeviceAllocationResult is one device of an allocation.
type DeviceAllocationResult struct {
	OpenFields       `yaml:",inline"`
	Request          string            `yaml:"request"`
	Driver           string            `yaml:"driver"`
	Pool             string            `yaml:"pool"`
	Device           string            `yaml:"device"`
	AdminAccess      *bool             `yaml:"adminAccess"`
	ConsumedCapacity map[string]string `yaml:"consumedCapacity"`
}

// ResourceClaimTemplate is an entry of resourceClaimTemplates: the spec of
// the claims it makes.
type ResourceClaimTemplate struct {
	Line              int    `yaml:"-"`
	Name              string `yaml:"name"`
	Namespace         string `yaml:"namespace"`
	ResourceClaimSpec `yaml:",inline"`
	Origin            *Origin `yaml:"-"`
}

// ResourceClaimSpec is a claim's spec.
type ResourceClaimSpec struct {
	Devices DeviceClaim `yaml:"devices"`
}

// DeviceClaim is what a claim asks of devices.
type DeviceClaim struct {
	Requests    []DeviceRequest    `yaml:"requests"`
	Constraints []DeviceConstraint `yaml:"constraints"`
	Config      Unmodelled         `yaml:"config"`
}

// DeviceRequest is one request: exactly, or firstAvailable.
type DeviceRequest struct {
	Name           string              `yaml:"name"`
	Exactly        *ExactDeviceRequest `yaml:"exactly"`
	FirstAvailable []DeviceSubRequest  `yaml:"firstAvailable"`
}

// DeviceRequestCommon holds the fields a request and an alternative of
// firstAvailable share.
type DeviceRequestCommon struct {
	DeviceClassName string             `yaml:"deviceClassName"`
	Selectors       []DeviceSelector   `yaml:"selectors"`
	AllocationMode  string             `yaml:"allocationMode"`
	Count           int64              `yaml:"count"`
	Tolerations     []DeviceToleration `yaml:"tolerations"`
	Capacity        *struct {
		Requests map[string]string `yaml:"requests"`
	} `yaml:"capacity"`
}

// ExactDeviceRequest is a request's exactly.
type ExactDeviceRequest struct {
	DeviceRequestCommon `yaml:",inline"`
	AdminAccess         *bool `yaml:"adminAccess"`
}

// DeviceSubRequest is one alternative of firstAvailable (no adminAccess).
type DeviceSubRequest struct {
	Name                string `yaml:"name"`
	DeviceRequestCommon `yaml:",inline"`
}

// DeviceToleration is a request's toleration of device taints.
type DeviceToleration struct {
	Key      string `yaml:"key"`
	Operator string `yaml:"operator"`
	Value    string `yaml:"value"`
	Effect   string `yaml:"effect"`
	// TolerationSeconds bounds how long a pod stays on a device with a
	// NoExecute taint: there is no eviction by taints to bound.
	TolerationSeconds Unmodelled `yaml:"tolerationSeconds"`
}

// DeviceConstraint constrains the devices of some requests.
type DeviceConstraint struct {
	Requests          []string `yaml:"requests"`
	MatchAttribute    *string  `yaml:"matchAttribute"`
	DistinctAttribute *string  `yaml:"distinctAttribute"`
}

// PodResourceClaim is an entry of a pod's resourceClaims: exactly one of
// resourceClaimName and resourceClaimTemplateName.
type PodResourceClaim struct {
	Name                      string  `yaml:"name"`
	ResourceClaimName         *string `yaml:"resourceClaimName"`
	ResourceClaimTemplateName *string `yaml:"resourceClaimTemplateName"`
}

// PodResourceClaimStatus is an entry of a pod's
// status.resourceClaimStatuses: the claim made for the pod's entry Name.
type PodResourceClaimStatus struct {
	Name              string `yaml:"name"`
	ResourceClaimName string `yaml:"resourceClaimName"`
}

// ContainerClaim is an entry of a container's resources.claims: a claim of
// the pod by its name in the pod, and optionally one request of it.
type ContainerClaim struct {
	Container string // the container's name
	Name      string
	Request   string
}
