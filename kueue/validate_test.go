package kueue

import (
	"math"
	"strings"
	"testing"

	"github.com/gangsim/gangsim/cluster"
)

func q(n int64) *int64 { return &n }

// cq is a ClusterQueue of one group of cpu in flavor "default", as
// Kueue's webhook tests build them, changed by edit.
func cq(edit func(*ClusterQueue)) *ClusterQueue {
	c := &ClusterQueue{Name: "cluster-queue", ResourceGroups: []ResourceGroup{{
		CoveredResources: []cluster.ResourceName{"cpu"},
		Flavors:          []FlavorQuotas{{Name: "default", Resources: []ResourceQuota{{Name: "cpu", NominalQuota: 1000}}}},
	}}}
	if edit != nil {
		edit(c)
	}
	return c
}

func firstQuota(c *ClusterQueue) *ResourceQuota { return &c.ResourceGroups[0].Flavors[0].Resources[0] }

// TestClusterQueueValidate ports the cases of Kueue's
// TestValidateClusterQueue (pkg/webhooks/clusterqueue_webhook_test.go)
// that fit the model; want is the field at fault ("" when valid).
func TestClusterQueueValidate(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		edit       func(*ClusterQueue)
	}{
		{"built-in resources with qualified names", "", nil},
		{"invalid resource name", "spec.resourceGroups[0].coveredResources[0]", func(c *ClusterQueue) {
			c.ResourceGroups[0].CoveredResources[0] = "@cpu"
			firstQuota(c).Name = "@cpu"
		}},
		{"in cohort", "", func(c *ClusterQueue) { c.CohortName = "prod" }},
		{"invalid cohort", "spec.cohortName", func(c *ClusterQueue) { c.CohortName = "@prod" }},
		{"extended resources with qualified names", "", func(c *ClusterQueue) {
			c.ResourceGroups[0].CoveredResources[0] = "example.com/gpu"
			firstQuota(c).Name = "example.com/gpu"
		}},
		{"flavor with qualified names", "", func(c *ClusterQueue) { c.ResourceGroups[0].Flavors[0].Name = "x86.example.com" }},
		{"flavor quota with negative value", "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota", func(c *ClusterQueue) { firstQuota(c).NominalQuota = -1000 }},
		{"flavor quota with zero value", "", func(c *ClusterQueue) { firstQuota(c).NominalQuota = 0 }},
		{"flavor quota with borrowingLimit 0", "", func(c *ClusterQueue) { c.CohortName = "cohort"; firstQuota(c).BorrowingLimit = q(0) }},
		{"flavor quota with negative borrowingLimit", "spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit", func(c *ClusterQueue) {
			c.CohortName = "cohort"
			firstQuota(c).BorrowingLimit = q(-1000)
		}},
		{"borrowingLimit without a cohort", "spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit", func(c *ClusterQueue) { firstQuota(c).BorrowingLimit = q(0) }},
		{"flavor quota with lendingLimit 0", "", func(c *ClusterQueue) { c.CohortName = "cohort"; firstQuota(c).LendingLimit = q(0) }},
		{"flavor quota with negative lendingLimit", "spec.resourceGroups[0].flavors[0].resources[0].lendingLimit", func(c *ClusterQueue) {
			c.CohortName = "cohort"
			firstQuota(c).LendingLimit = q(-1000)
		}},
		{"flavor quota with lendingLimit and empty cohort", "spec.resourceGroups[0].flavors[0].resources[0].lendingLimit", func(c *ClusterQueue) { firstQuota(c).LendingLimit = q(1000) }},
		{"flavor quota with lendingLimit greater than nominalQuota", "spec.resourceGroups[0].flavors[0].resources[0].lendingLimit", func(c *ClusterQueue) {
			c.CohortName = "cohort"
			firstQuota(c).LendingLimit = q(2000)
		}},
		{"empty queueing strategy is supported", "", func(c *ClusterQueue) { c.QueueingStrategy = "" }},
		{"unknown queueing strategy", "spec.queueingStrategy", func(c *ClusterQueue) { c.QueueingStrategy = "FIFO" }},
		{"namespaceSelector with invalid labels", "spec.namespaceSelector.matchLabels", func(c *ClusterQueue) {
			c.NamespaceSelector = &cluster.LabelSelector{MatchLabels: map[string]string{"nospecialchars^=@": "bar"}}
		}},
		{"namespaceSelector with invalid expressions", "spec.namespaceSelector.matchExpressions[0].values", func(c *ClusterQueue) {
			c.NamespaceSelector = &cluster.LabelSelector{MatchExpressions: []cluster.LabelRequirement{{Key: "key", Operator: cluster.LabelIn}}}
		}},
		{"multiple resource groups", "", func(c *ClusterQueue) {
			c.ResourceGroups = append(c.ResourceGroups, ResourceGroup{CoveredResources: []cluster.ResourceName{"memory"},
				Flavors: []FlavorQuotas{{Name: "alpha", Resources: []ResourceQuota{{Name: "memory", NominalQuota: 1 << 30}}}}})
		}},
		{"resources in a flavor in different order", "spec.resourceGroups[0].flavors[0].resources[0].name", func(c *ClusterQueue) {
			c.ResourceGroups[0].CoveredResources = []cluster.ResourceName{"cpu", "memory"}
			c.ResourceGroups[0].Flavors[0].Resources = []ResourceQuota{{Name: "memory"}, {Name: "cpu"}}
		}},
		{"resource in more than one resource group", "spec.resourceGroups[1].coveredResources[0]", func(c *ClusterQueue) {
			c.ResourceGroups = append(c.ResourceGroups, ResourceGroup{CoveredResources: []cluster.ResourceName{"cpu"},
				Flavors: []FlavorQuotas{{Name: "alpha", Resources: []ResourceQuota{{Name: "cpu"}}}}})
		}},
		{"flavor in more than one resource group", "spec.resourceGroups[1].flavors[0].name", func(c *ClusterQueue) {
			c.ResourceGroups = append(c.ResourceGroups, ResourceGroup{CoveredResources: []cluster.ResourceName{"memory"},
				Flavors: []FlavorQuotas{{Name: "default", Resources: []ResourceQuota{{Name: "memory"}}}}})
		}},
		{"flavor missing a covered resource (CRD rule)", "spec.resourceGroups[0]", func(c *ClusterQueue) {
			c.ResourceGroups[0].CoveredResources = []cluster.ResourceName{"cpu", "memory"}
		}},
		{"valid preemption with borrowWithinCohort", "", func(c *ClusterQueue) {
			c.Preemption = Preemption{ReclaimWithinCohort: PreemptLowerPriority, BorrowWithinCohort: PreemptLowerPriority, MaxPriorityThreshold: new(int32)}
		}},
		{"reclaimWithinCohort=Never with borrowWithinCohort (CRD rule)", "spec.preemption", func(c *ClusterQueue) {
			c.Preemption = Preemption{ReclaimWithinCohort: PreemptNever, BorrowWithinCohort: PreemptLowerPriority}
		}},
		{"existing cluster queue created with older Kueue version that has a nil borrowWithinCohort field", "", func(c *ClusterQueue) {
			c.Preemption = Preemption{ReclaimWithinCohort: PreemptLowerPriority}
		}},
		{"withinClusterQueue Any is not allowed", "spec.preemption.withinClusterQueue", func(c *ClusterQueue) { c.Preemption.WithinClusterQueue = PreemptAny }},
		{"flavorFungibility preference set but whenCanPreempt != TryNextFlavor", "spec.flavorFungibility.preference", func(c *ClusterQueue) {
			c.FlavorFungibility = FlavorFungibility{WhenCanBorrow: TryNextFlavor, WhenCanPreempt: MayStopSearch, Preference: "BorrowingOverPreemption"}
		}},
		{"flavorFungibility preference set but whenCanBorrow != TryNextFlavor", "spec.flavorFungibility.preference", func(c *ClusterQueue) {
			c.FlavorFungibility = FlavorFungibility{WhenCanBorrow: MayStopSearch, WhenCanPreempt: TryNextFlavor, Preference: "BorrowingOverPreemption"}
		}},
		{"flavorFungibility preference BorrowingOverPreemption with both TryNextFlavor is valid", "", func(c *ClusterQueue) {
			c.FlavorFungibility = FlavorFungibility{WhenCanBorrow: TryNextFlavor, WhenCanPreempt: TryNextFlavor, Preference: "BorrowingOverPreemption"}
		}},
		{"flavorFungibility preference PreemptionOverBorrowing with both TryNextFlavor is valid", "", func(c *ClusterQueue) {
			c.FlavorFungibility = FlavorFungibility{WhenCanBorrow: TryNextFlavor, WhenCanPreempt: TryNextFlavor, Preference: "PreemptionOverBorrowing"}
		}},
		{"flavorFungibility preference PreemptionOverBorrowing but whenCanBorrow != TryNextFlavor", "spec.flavorFungibility.preference", func(c *ClusterQueue) {
			c.FlavorFungibility = FlavorFungibility{WhenCanBorrow: MayStopSearch, WhenCanPreempt: TryNextFlavor, Preference: "PreemptionOverBorrowing"}
		}},
		{"admissionCheckStrategy defined with a valid flavor", "", func(c *ClusterQueue) {
			c.AdmissionChecks = []AdmissionCheckRule{{Name: "ac1", OnFlavors: []string{"default"}}}
		}},
		{"admissionCheckStrategy refers to a flavor that is not in quota", "spec.admissionChecksStrategy.admissionChecks[0].onFlavors[0]", func(c *ClusterQueue) {
			c.AdmissionChecks = []AdmissionCheckRule{{Name: "ac1", OnFlavors: []string{"other"}}}
		}},
		{"17 resource groups (CRD maxItems)", "spec.resourceGroups", func(c *ClusterQueue) {
			c.ResourceGroups = make([]ResourceGroup, 17)
		}},
		{"65 flavors in a group (CRD maxItems)", "spec.resourceGroups[0].flavors", func(c *ClusterQueue) {
			c.ResourceGroups[0].Flavors = make([]FlavorQuotas, 65)
		}},
		{"stopPolicy unknown", "spec.stopPolicy", func(c *ClusterQueue) { c.StopPolicy = "Drain" }},
		{"fair sharing weight of 1n", "spec.fairSharing", func(c *ClusterQueue) { c.FairSharing = &FairSharing{Weight: q(1)} }},
		{"fair sharing weight 0", "", func(c *ClusterQueue) { c.FairSharing = &FairSharing{Weight: q(0)} }},
	} {
		t.Run(tc.name, func(t *testing.T) { check(t, cq(tc.edit).Validate(), tc.want) })
	}
}

func check(t *testing.T, err error, want string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	fe, ok := err.(*FieldError)
	if !ok {
		t.Fatalf("got %v, want an error at %s", err, want)
	}
	if fe.Field != want {
		t.Fatalf("error at %s (%v), want %s", fe.Field, err, want)
	}
}

// TestCohortValidate ports Kueue's TestValidateCohort case and the
// quota rules a Cohort shares with a ClusterQueue, with its difference:
// a Cohort's lendingLimit may exceed its nominal quota.
func TestCohortValidate(t *testing.T) {
	rg := func(r ResourceQuota) []ResourceGroup {
		return []ResourceGroup{{CoveredResources: []cluster.ResourceName{"cpu"}, Flavors: []FlavorQuotas{{Name: "default", Resources: []ResourceQuota{r}}}}}
	}
	for _, tc := range []struct {
		name, want string
		c          Cohort
	}{
		{"flavor quota with lendingLimit and empty parent", "spec.resourceGroups[0].flavors[0].resources[0].lendingLimit",
			Cohort{Name: "c", ResourceGroups: rg(ResourceQuota{Name: "cpu", NominalQuota: 1000, LendingLimit: q(1000)})}},
		{"lendingLimit above nominal with a parent", "",
			Cohort{Name: "c", ParentName: "p", ResourceGroups: rg(ResourceQuota{Name: "cpu", NominalQuota: 1000, LendingLimit: q(2000)})}},
		{"borrowingLimit without a parent", "spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit",
			Cohort{Name: "c", ResourceGroups: rg(ResourceQuota{Name: "cpu", BorrowingLimit: q(0)})}},
		{"own parent", "spec.parentName", Cohort{Name: "c", ParentName: "c"}},
		{"bad parent name", "spec.parentName", Cohort{Name: "c", ParentName: "C"}},
		{"negative weight", "spec.fairSharing", Cohort{Name: "c", FairSharing: &FairSharing{Weight: q(-1)}}},
	} {
		t.Run(tc.name, func(t *testing.T) { check(t, tc.c.Validate(), tc.want) })
	}
}

// TestResourceFlavorValidate ports Kueue's TestValidateResourceFlavor
// cases and the CRD's rules on taints, tolerations and topologyName.
func TestResourceFlavorValidate(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		f          ResourceFlavor
	}{
		{"empty", "", ResourceFlavor{Name: "rf"}},
		{"valid", "", ResourceFlavor{Name: "rf", NodeLabels: map[string]string{"foo": "bar", "x/y": "z"},
			NodeTaints: []cluster.Taint{{Key: "spot", Value: "true", Effect: cluster.TaintNoSchedule}}}},
		{"invalid label name", "spec.nodeLabels", ResourceFlavor{Name: "rf", NodeLabels: map[string]string{"@abc": "foo"}}},
		{"invalid label value", "spec.nodeLabels", ResourceFlavor{Name: "rf", NodeLabels: map[string]string{"foo": "@abc"}}},
		{"bad taint effect", "spec.nodeTaints[0].effect", ResourceFlavor{Name: "rf", NodeTaints: []cluster.Taint{{Key: "a", Effect: "Never"}}}},
		{"duplicate taint", "spec.nodeTaints[1]", ResourceFlavor{Name: "rf", NodeTaints: []cluster.Taint{{Key: "a", Effect: "NoSchedule"}, {Key: "a", Value: "b", Effect: "NoSchedule"}}}},
		{"nine labels", "spec.nodeLabels", ResourceFlavor{Name: "rf", NodeLabels: map[string]string{"a": "", "b": "", "c": "", "d": "", "e": "", "f": "", "g": "", "h": "", "i": ""}}},
		{"toleration without key must be Exists", "spec.tolerations[0].operator", ResourceFlavor{Name: "rf", Tolerations: []Toleration{{}}}},
		{"tolerationSeconds needs NoExecute", "spec.tolerations[0].effect", ResourceFlavor{Name: "rf",
			Tolerations: []Toleration{{Toleration: cluster.Toleration{Key: "a", Effect: "NoSchedule"}, TolerationSeconds: q(5)}}}},
		{"Exists with a value", "spec.tolerations[0].operator", ResourceFlavor{Name: "rf",
			Tolerations: []Toleration{{Toleration: cluster.Toleration{Key: "a", Operator: "Exists", Value: "v"}}}}},
		{"topology without node labels", "spec", ResourceFlavor{Name: "rf", TopologyName: "default"}},
		{"topology with node labels", "", ResourceFlavor{Name: "rf", TopologyName: "default", NodeLabels: map[string]string{"pool": "a"}}},
	} {
		t.Run(tc.name, func(t *testing.T) { check(t, tc.f.Validate(), tc.want) })
	}
}

func TestOtherKindsValidate(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		v          interface{ Validate() error }
	}{
		{"local queue", "", &LocalQueue{Namespace: "ns", Name: "lq", ClusterQueue: "cq"}},
		{"local queue bad ref", "spec.clusterQueue", &LocalQueue{Namespace: "ns", Name: "lq", ClusterQueue: "CQ"}},
		{"local queue stop policy", "spec.stopPolicy", &LocalQueue{Name: "lq", StopPolicy: "Stop"}},
		{"priority class", "", &WorkloadPriorityClass{Name: "high", Value: 1000}},
		{"priority class description", "description", &WorkloadPriorityClass{Name: "high", Description: strings.Repeat("x", 2049)}},
		{"topology", "", &Topology{Name: "default", Levels: []string{"cloud.google.com/gce-topology-block", "kubernetes.io/hostname"}}},
		{"topology no levels", "spec.levels", &Topology{Name: "default"}},
		{"topology duplicate", "spec.levels", &Topology{Name: "default", Levels: []string{"a", "a"}}},
		{"topology hostname not lowest", "spec.levels", &Topology{Name: "default", Levels: []string{"kubernetes.io/hostname", "rack"}}},
		{"config", "", &Configuration{WaitForPodsReady: &WaitForPodsReady{Timeout: 5e9, Timestamp: "Eviction"}}},
		{"config timestamp", "waitForPodsReady.requeuingStrategy.timestamp", &Configuration{WaitForPodsReady: &WaitForPodsReady{Timestamp: "Now"}}},
		{"config strategies", "fairSharing.preemptionStrategies[0]", &Configuration{FairSharing: &FairSharingConfig{PreemptionStrategies: []string{"Any"}}}},
		{"config weight", "", &Configuration{AdmissionFairSharing: &AdmissionFairSharing{UsageSamplingInterval: 1, ResourceWeights: map[cluster.ResourceName]float64{"cpu": 0, "memory": 2.5}}}},
		{"config weight negative", "admissionFairSharing.resourceWeights[cpu]", &Configuration{AdmissionFairSharing: &AdmissionFairSharing{UsageSamplingInterval: 1, ResourceWeights: map[cluster.ResourceName]float64{"cpu": -1}}}},
		{"config weight NaN", "admissionFairSharing.resourceWeights[cpu]", &Configuration{AdmissionFairSharing: &AdmissionFairSharing{UsageSamplingInterval: 1, ResourceWeights: map[cluster.ResourceName]float64{"cpu": math.NaN()}}}},
		{"config weight infinite", "admissionFairSharing.resourceWeights[gpu]", &Configuration{AdmissionFairSharing: &AdmissionFairSharing{UsageSamplingInterval: 1, ResourceWeights: map[cluster.ResourceName]float64{"cpu": 1, "gpu": math.Inf(1)}}}},
	} {
		t.Run(tc.name, func(t *testing.T) { check(t, tc.v.Validate(), tc.want) })
	}
}

func TestObjectsDuplicateName(t *testing.T) {
	o := &Objects{ResourceFlavors: []ResourceFlavor{{Name: "a"}, {Name: "a"}}}
	kind, name, err := o.Validate()
	if kind != "ResourceFlavor" || name != "a" || err == nil {
		t.Fatalf("got %s %s %v", kind, name, err)
	}
	if !(&Objects{}).Empty() || o.Empty() {
		t.Fatal("Empty")
	}
}
