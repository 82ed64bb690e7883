package kueue

import "github.com/gangsim/gangsim/cluster"

// Objects are the Kueue objects of a scenario, each list in input order.
type Objects struct {
	ResourceFlavors         []ResourceFlavor
	ClusterQueues           []ClusterQueue
	LocalQueues             []LocalQueue
	Cohorts                 []Cohort
	WorkloadPriorityClasses []WorkloadPriorityClass
	Topologies              []Topology
	// Configuration is Kueue's Configuration; nil when none is given
	// (Kueue's defaults).
	Configuration *Configuration
	// Dumped are the Workloads of a dump that stand for their jobs (the
	// importer makes their pods), in input order. They do not make Kueue
	// run: Empty does not count them.
	Dumped []DumpedWorkload
	// Owned are the Workloads of a dump whose job is in the inputs (its
	// controller owner reference names it), in input order: the job's
	// workload takes the dump's name, and with an admission it holds that
	// quota from the start and its running pods keep running.
	Owned []OwnedWorkload
}

// OwnedWorkload is a Workload of a dump whose job is in the inputs: the
// job (its kind, as the inputs name it, and name, in the Workload's
// namespace), the Workload's name, and its quota reservation when it has
// one (status.admission with the QuotaReserved condition true).
type OwnedWorkload struct {
	Namespace, Name      string
	OwnerKind, OwnerName string
	// Admission is its reservation; nil while pending.
	Admission *Admission
	// Source names it for errors: "file: Workload ns/name".
	Source string
}

// DumpedWorkload is a Workload of a dump whose job is not in the inputs:
// its queue and priority, its pod sets with the pods made of each, and
// its quota reservation when it has one (status.admission with the
// QuotaReserved condition true): it holds that quota from the start.
type DumpedWorkload struct {
	Namespace, Name string
	Queue           string
	// Priority is spec.priority; nil for none (its pods' then).
	Priority *int32
	// PriorityClass names its WorkloadPriorityClass, "" for none.
	PriorityClass string
	PodSets       []DumpedPodSet
	// Admission is its reservation: the ClusterQueue and, by pod set,
	// its count (0: all) and flavors; nil while pending.
	Admission *Admission
	// Source names it for errors: "file: Workload ns/name".
	Source string
}

// DumpedPodSet is a pod set of a dumped Workload and the pods made of it.
type DumpedPodSet struct {
	Name  string
	Count int32
	Pods  []cluster.PodKey
}

// Empty reports whether there are no Kueue objects: Kueue is in the
// simulation exactly when there are.
func (o *Objects) Empty() bool {
	return o == nil || len(o.ResourceFlavors)+len(o.ClusterQueues)+len(o.LocalQueues)+len(o.Cohorts)+
		len(o.WorkloadPriorityClasses)+len(o.Topologies) == 0 && o.Configuration == nil
}

// ResourceFlavor is a kind of node a ClusterQueue's quota is given in:
// admitted pods get its node labels as a node selector and its
// tolerations.
type ResourceFlavor struct {
	Name         string
	NodeLabels   map[string]string
	NodeTaints   []cluster.Taint
	Tolerations  []Toleration
	TopologyName string // "" when none
}

// Toleration is a ResourceFlavor's toleration: a node toleration with
// Kubernetes' optional tolerationSeconds.
type Toleration struct {
	cluster.Toleration
	TolerationSeconds *int64
}

// QueueingStrategy orders a ClusterQueue's pending workloads.
type QueueingStrategy string

// Kueue's queueing strategies.
const (
	StrictFIFO     QueueingStrategy = "StrictFIFO"
	BestEffortFIFO QueueingStrategy = "BestEffortFIFO" // the default
)

// StopPolicy holds a queue: Hold admits nothing new, HoldAndDrain also
// evicts what is admitted.
type StopPolicy string

// Kueue's stop policies.
const (
	StopNone         StopPolicy = "None" // the default
	StopHold         StopPolicy = "Hold"
	StopHoldAndDrain StopPolicy = "HoldAndDrain"
)

// ClusterQueue is a pool of quota that workloads are admitted against.
type ClusterQueue struct {
	Name             string
	ResourceGroups   []ResourceGroup
	CohortName       string // "" when in no cohort
	QueueingStrategy QueueingStrategy
	// NamespaceSelector picks the namespaces whose LocalQueues may point
	// here: nil matches nothing, an empty selector every namespace.
	NamespaceSelector *cluster.LabelSelector
	FlavorFungibility FlavorFungibility
	Preemption        Preemption
	StopPolicy        StopPolicy
	FairSharing       *FairSharing
	// AdmissionMode is spec.admissionScope.admissionMode: with
	// UsageBasedAdmissionFairSharing (and the Configuration's
	// admissionFairSharing on) the queue orders its workloads by their
	// LocalQueues' recent usage first (afs.go); "" when not given.
	AdmissionMode AdmissionMode
	// AdmissionChecks are the admission checks named (not modelled), with
	// the flavors each applies to.
	AdmissionChecks []AdmissionCheckRule
}

// AdmissionCheckRule names an admission check and the flavors it applies
// to (all when none).
type AdmissionCheckRule struct {
	Name      string
	OnFlavors []string
}

// ResourceGroup is a set of resources whose quota is given together, in
// each of its flavors in order.
type ResourceGroup struct {
	CoveredResources []cluster.ResourceName
	Flavors          []FlavorQuotas
}

// FlavorQuotas is a flavor's quota of each covered resource, in the
// order of CoveredResources.
type FlavorQuotas struct {
	Name      string
	Resources []ResourceQuota
}

// ResourceQuota is the quota of one resource in one flavor.
type ResourceQuota struct {
	Name           cluster.ResourceName
	NominalQuota   int64
	BorrowingLimit *int64 // nil: no limit
	LendingLimit   *int64 // nil: all unused quota can be lent
}

// AdmissionMode is a ClusterQueue's admission fair sharing mode.
type AdmissionMode string

// Kueue's admission modes.
const (
	UsageBasedAdmissionFairSharing AdmissionMode = "UsageBasedAdmissionFairSharing"
	NoAdmissionFairSharing         AdmissionMode = "NoAdmissionFairSharing"
)

// FlavorFungibilityPolicy says whether the flavor search stops at a
// flavor that needs borrowing or preemption.
type FlavorFungibilityPolicy string

// Kueue's flavor fungibility policies (v1beta1's Borrow and Preempt are
// read as MayStopSearch, as Kueue converts them).
const (
	MayStopSearch FlavorFungibilityPolicy = "MayStopSearch"
	TryNextFlavor FlavorFungibilityPolicy = "TryNextFlavor"
)

// FlavorFungibility is a ClusterQueue's flavor search policy.
type FlavorFungibility struct {
	WhenCanBorrow  FlavorFungibilityPolicy // MayStopSearch by default
	WhenCanPreempt FlavorFungibilityPolicy // TryNextFlavor by default
	// Preference is BorrowingOverPreemption or PreemptionOverBorrowing,
	// "" when not set.
	Preference string
}

// PreemptionPolicy is whom a ClusterQueue's workloads may preempt.
type PreemptionPolicy string

// Kueue's preemption policies.
const (
	PreemptNever                     PreemptionPolicy = "Never"
	PreemptLowerPriority             PreemptionPolicy = "LowerPriority"
	PreemptLowerOrNewerEqualPriority PreemptionPolicy = "LowerOrNewerEqualPriority"
	PreemptAny                       PreemptionPolicy = "Any"
)

// Preemption is a ClusterQueue's preemption policies.
type Preemption struct {
	ReclaimWithinCohort PreemptionPolicy // Never by default
	WithinClusterQueue  PreemptionPolicy // Never by default
	// BorrowWithinCohort is Never or LowerPriority, with its threshold.
	BorrowWithinCohort   PreemptionPolicy
	MaxPriorityThreshold *int32
}

// FairSharing is a queue's or cohort's fair-sharing weight, in
// billionths (1 is 1e9); nil for the default, 1.
type FairSharing struct {
	Weight *int64
}

// LocalQueue is a namespace's queue, pointing to a ClusterQueue.
type LocalQueue struct {
	Namespace, Name string
	ClusterQueue    string
	StopPolicy      StopPolicy
	FairSharing     *FairSharing
	// ConsumedResources is a dump's
	// status.fairSharing.admissionFairSharingStatus.consumedResources: the
	// decayed usage admission fair sharing starts from (none: nothing
	// used yet, a LocalQueue new to Kueue).
	ConsumedResources cluster.ResourceList
}

// Cohort groups ClusterQueues (and cohorts: ParentName) that lend each
// other unused quota; its own resource groups add quota to the cohort.
type Cohort struct {
	Name           string
	ParentName     string
	ResourceGroups []ResourceGroup
	FairSharing    *FairSharing
}

// WorkloadPriorityClass is a priority for Kueue's workloads, apart from
// the pods' PriorityClass.
type WorkloadPriorityClass struct {
	Name        string
	Value       int32
	Description string
}

// Topology is the node labels of a data centre's levels, from the
// highest (block) to the lowest (often kubernetes.io/hostname).
type Topology struct {
	Name   string
	Levels []string
}

// Configuration is what Kueue's Configuration sets that the model reads.
type Configuration struct {
	ManageJobsWithoutQueueName bool
	// WaitForPodsReady is nil when off.
	WaitForPodsReady *WaitForPodsReady
	// FairSharing is nil when off; else its preemption strategies.
	FairSharing *FairSharingConfig
	// AdmissionFairSharing is nil when off.
	AdmissionFairSharing *AdmissionFairSharing
	// FeatureGates are Kueue's feature gates the file sets, by name.
	FeatureGates map[string]bool
	// ClientQPS and ClientBurst are clientConnection's rate limit of
	// Kueue's API client; nil for Kueue's defaults (300, 500).
	ClientQPS   *float32
	ClientBurst *int32
}

// WaitForPodsReady evicts an admitted workload whose pods are not all
// ready within Timeout; durations in nanoseconds (time.Duration's unit).
type WaitForPodsReady struct {
	Timeout         int64
	BlockAdmission  bool
	RecoveryTimeout *int64
	// RequeuingStrategy, Kueue's defaults when not given.
	Timestamp          string // Eviction or Creation
	BackoffLimitCount  *int32
	BackoffBaseSeconds *int32
	BackoffMaxSeconds  *int32
}

// FairSharingConfig is fair sharing among the ClusterQueues of cohorts.
type FairSharingConfig struct {
	PreemptionStrategies []string
}

// AdmissionFairSharing orders a queue's workloads by their LocalQueues'
// recent usage; durations in nanoseconds. UsageSamplingInterval is 5
// minutes when the file does not give it (Kueue's default); a half-life
// of 0 keeps no history.
type AdmissionFairSharing struct {
	UsageHalfLifeTime     int64
	UsageSamplingInterval int64
	ResourceWeights       map[cluster.ResourceName]float64
}
