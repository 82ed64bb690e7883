package kueue

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/gangsim/gangsim/cluster"
)

// The limits of Kueue's CRD schemas and webhooks.
const (
	MaxResourceGroups     = 16  // resourceGroups of a ClusterQueue or Cohort
	MaxFlavorsPerGroup    = 64  // flavors of a resource group
	MaxCoveredResources   = 64  // coveredResources of a resource group
	MaxResourcesPerFlavor = 64  // resources of a flavor's quotas
	MaxTotalFlavors       = 256 // flavors across a ClusterQueue's groups
	MaxTotalResources     = 256 // covered resources across its groups
	MaxFlavorResources    = 512 // flavor-resource pairs of one group
	MaxNodeLabels         = 8   // nodeLabels of a ResourceFlavor
	MaxNodeTaints         = 8
	MaxTolerations        = 8
	MaxTopologyLevels     = 16
	MaxAdmissionChecks    = 64
	MaxDescription        = 2048 // a WorkloadPriorityClass's description
)

// FieldError is what is wrong with an object: the field at fault, as
// Kubernetes writes its path ("spec.resourceGroups[0].flavors[1].name"),
// and why.
type FieldError struct {
	Field, Detail string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Detail }

func fail(field, format string, args ...any) error {
	return &FieldError{Field: field, Detail: fmt.Sprintf(format, args...)}
}

var dnsSubdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// checkRef checks a reference to a cluster-scoped object (a flavor, a
// cohort, a ClusterQueue, a topology) as the CRD's pattern does.
func checkRef(field, name string, required bool) error {
	switch {
	case name == "" && required:
		return fail(field, "Required value")
	case name == "":
		return nil
	case len(name) > 253:
		return fail(field, "Invalid value: %q: may not be more than 253 characters", name)
	case !dnsSubdomain.MatchString(name):
		return fail(field, "Invalid value: %q: should match '%s'", name, dnsSubdomain.String())
	}
	return nil
}

func enum[T ~string](field string, v T, allowed ...T) error {
	if v == "" || slices.Contains(allowed, v) {
		return nil
	}
	names := make([]string, len(allowed))
	for i, a := range allowed {
		names[i] = fmt.Sprintf("%q", string(a))
	}
	return fail(field, "Unsupported value: %q: supported values: %s", string(v), strings.Join(names, ", "))
}

func maxItems(field string, n, most int) error {
	if n > most {
		return fail(field, "Too many: %d: must have at most %d items", n, most)
	}
	return nil
}

// Validate checks a ResourceFlavor as Kueue's webhook and CRD do.
func (f *ResourceFlavor) Validate() error {
	if err := checkRef("metadata.name", f.Name, true); err != nil {
		return err
	}
	if len(f.NodeLabels) > MaxNodeLabels {
		return fail("spec.nodeLabels", "Too many: %d: must have at most %d items", len(f.NodeLabels), MaxNodeLabels)
	}
	for _, k := range slices.Sorted(maps.Keys(f.NodeLabels)) {
		if p := cluster.LabelKeyProblem(k); p != "" {
			return fail("spec.nodeLabels", "Invalid value: %q: %s", k, p)
		}
		if p := cluster.LabelValueProblem(f.NodeLabels[k]); p != "" {
			return fail("spec.nodeLabels", "Invalid value: %q: %s", f.NodeLabels[k], p)
		}
	}
	if err := maxItems("spec.nodeTaints", len(f.NodeTaints), MaxNodeTaints); err != nil {
		return err
	}
	seen := map[string]bool{}
	for i, t := range f.NodeTaints {
		field := fmt.Sprintf("spec.nodeTaints[%d]", i)
		if p := cluster.LabelKeyProblem(t.Key); p != "" {
			return fail(field+".key", "Invalid value: %q: %s", t.Key, p)
		}
		if p := cluster.LabelValueProblem(t.Value); p != "" {
			return fail(field+".value", "Invalid value: %q: %s", t.Value, p)
		}
		if err := enum(field+".effect", t.Effect, cluster.TaintNoSchedule, cluster.TaintPreferNoSchedule, cluster.TaintNoExecute); err != nil {
			return err
		}
		if t.Effect == "" {
			return fail(field+".effect", "Required value")
		}
		id := string(t.Effect) + "\x00" + t.Key
		if seen[id] {
			return fail(field, "Duplicate value: taints must be unique by key and effect pair")
		}
		seen[id] = true
	}
	if err := maxItems("spec.tolerations", len(f.Tolerations), MaxTolerations); err != nil {
		return err
	}
	for i := range f.Tolerations {
		if err := f.Tolerations[i].validate(fmt.Sprintf("spec.tolerations[%d]", i)); err != nil {
			return err
		}
	}
	if f.TopologyName != "" {
		if err := checkRef("spec.topologyName", f.TopologyName, false); err != nil {
			return err
		}
		if len(f.NodeLabels) == 0 {
			return fail("spec", "Invalid value: at least one nodeLabel is required when topology is set")
		}
	}
	return nil
}

// validate checks a toleration as Kubernetes and Kueue's CRD do.
func (t *Toleration) validate(field string) error {
	if t.Key != "" {
		if p := cluster.LabelKeyProblem(t.Key); p != "" {
			return fail(field+".key", "Invalid value: %q: %s", t.Key, p)
		}
	}
	if err := enum(field+".operator", t.Operator, cluster.TolerationEqual, cluster.TolerationExists); err != nil {
		return err
	}
	switch {
	case t.Key == "" && t.Operator != cluster.TolerationExists:
		return fail(field+".operator", "Invalid value: %q: operator must be Exists when `key` is empty, which means \"match all values and all keys\"", string(t.Operator))
	case t.Operator == cluster.TolerationExists && t.Value != "":
		return fail(field+".operator", "Invalid value: %q: value must be empty when `operator` is 'Exists'", t.Value)
	case t.Operator != cluster.TolerationExists:
		if p := cluster.LabelValueProblem(t.Value); p != "" {
			return fail(field+".value", "Invalid value: %q: %s", t.Value, p)
		}
	}
	if err := enum(field+".effect", t.Effect, cluster.TaintNoSchedule, cluster.TaintPreferNoSchedule, cluster.TaintNoExecute); err != nil {
		return err
	}
	if t.TolerationSeconds != nil && t.Effect != cluster.TaintNoExecute {
		return fail(field+".effect", "Invalid value: %q: effect must be 'NoExecute' when `tolerationSeconds` is set", string(t.Effect))
	}
	return nil
}

// Validate checks a ClusterQueue as Kueue's webhook and CRD do.
func (q *ClusterQueue) Validate() error {
	if err := checkRef("metadata.name", q.Name, true); err != nil {
		return err
	}
	if err := checkRef("spec.cohortName", q.CohortName, false); err != nil {
		return err
	}
	if err := validateResourceGroups(q.ResourceGroups, q.CohortName != "", false); err != nil {
		return err
	}
	if err := enum("spec.queueingStrategy", q.QueueingStrategy, StrictFIFO, BestEffortFIFO); err != nil {
		return err
	}
	if err := validateSelector("spec.namespaceSelector", q.NamespaceSelector); err != nil {
		return err
	}
	ff := q.FlavorFungibility
	if err := enum("spec.flavorFungibility.whenCanBorrow", ff.WhenCanBorrow, MayStopSearch, TryNextFlavor); err != nil {
		return err
	}
	if err := enum("spec.flavorFungibility.whenCanPreempt", ff.WhenCanPreempt, MayStopSearch, TryNextFlavor); err != nil {
		return err
	}
	if err := enum("spec.flavorFungibility.preference", ff.Preference, "BorrowingOverPreemption", "PreemptionOverBorrowing"); err != nil {
		return err
	}
	if ff.Preference != "" && (ff.WhenCanBorrow != TryNextFlavor || ff.WhenCanPreempt != TryNextFlavor) {
		return fail("spec.flavorFungibility.preference", "Invalid value: %q: preference %q requires both whenCanBorrow and whenCanPreempt to be TryNextFlavor", ff.Preference, ff.Preference)
	}
	p := q.Preemption
	if err := enum("spec.preemption.reclaimWithinCohort", p.ReclaimWithinCohort, PreemptNever, PreemptLowerPriority, PreemptAny); err != nil {
		return err
	}
	if err := enum("spec.preemption.withinClusterQueue", p.WithinClusterQueue, PreemptNever, PreemptLowerPriority, PreemptLowerOrNewerEqualPriority); err != nil {
		return err
	}
	if err := enum("spec.preemption.borrowWithinCohort.policy", p.BorrowWithinCohort, PreemptNever, PreemptLowerPriority); err != nil {
		return err
	}
	if (p.ReclaimWithinCohort == PreemptNever || p.ReclaimWithinCohort == "") && p.BorrowWithinCohort != "" && p.BorrowWithinCohort != PreemptNever {
		return fail("spec.preemption", "Invalid value: reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never")
	}
	if err := enum("spec.stopPolicy", q.StopPolicy, StopNone, StopHold, StopHoldAndDrain); err != nil {
		return err
	}
	if err := enum("spec.admissionScope.admissionMode", q.AdmissionMode, UsageBasedAdmissionFairSharing, NoAdmissionFairSharing); err != nil {
		return err
	}
	if err := q.FairSharing.validate("spec.fairSharing"); err != nil {
		return err
	}
	if err := maxItems("spec.admissionChecksStrategy.admissionChecks", len(q.AdmissionChecks), MaxAdmissionChecks); err != nil {
		return err
	}
	var flavors []string
	for _, g := range q.ResourceGroups {
		for _, f := range g.Flavors {
			flavors = append(flavors, f.Name)
		}
	}
	for i, c := range q.AdmissionChecks {
		field := fmt.Sprintf("spec.admissionChecksStrategy.admissionChecks[%d]", i)
		if err := checkRef(field+".name", c.Name, true); err != nil {
			return err
		}
		for j, f := range c.OnFlavors {
			if !slices.Contains(flavors, f) {
				return fail(fmt.Sprintf("%s.onFlavors[%d]", field, j), "Unsupported value: %q: supported values: %q", f, flavors)
			}
		}
	}
	return nil
}

// validateResourceGroups checks the quota of a ClusterQueue (cohort: has
// a cohort) or a Cohort (isCohort; cohort: has a parent), as Kueue's
// validateResourceGroups does with the schema's bounds.
func validateResourceGroups(groups []ResourceGroup, hasParent, isCohort bool) error {
	if err := maxItems("spec.resourceGroups", len(groups), MaxResourceGroups); err != nil {
		return err
	}
	seenResources := map[cluster.ResourceName]bool{}
	seenFlavors := map[string]bool{}
	totalFlavors, totalResources := 0, 0
	parent := "cohort"
	if isCohort {
		parent = "parent"
	}
	for i, g := range groups {
		gf := fmt.Sprintf("spec.resourceGroups[%d]", i)
		if len(g.CoveredResources) == 0 {
			return fail(gf+".coveredResources", "Required value: must have at least 1 item")
		}
		if err := maxItems(gf+".coveredResources", len(g.CoveredResources), MaxCoveredResources); err != nil {
			return err
		}
		if len(g.Flavors) == 0 {
			return fail(gf+".flavors", "Required value: must have at least 1 item")
		}
		if err := maxItems(gf+".flavors", len(g.Flavors), MaxFlavorsPerGroup); err != nil {
			return err
		}
		totalFlavors += len(g.Flavors)
		totalResources += len(g.CoveredResources)
		for j, r := range g.CoveredResources {
			field := fmt.Sprintf("%s.coveredResources[%d]", gf, j)
			if p := cluster.LabelKeyProblem(string(r)); p != "" {
				return fail(field, "Invalid value: %q: %s", r, p)
			}
			if seenResources[r] {
				return fail(field, "Duplicate value: %q", r)
			}
			seenResources[r] = true
		}
		pairs := 0
		for j, fq := range g.Flavors {
			ff := fmt.Sprintf("%s.flavors[%d]", gf, j)
			if err := checkRef(ff+".name", fq.Name, true); err != nil {
				return err
			}
			if seenFlavors[fq.Name] {
				return fail(ff+".name", "Duplicate value: %q", fq.Name)
			}
			seenFlavors[fq.Name] = true
			if err := maxItems(ff+".resources", len(fq.Resources), MaxResourcesPerFlavor); err != nil {
				return err
			}
			if len(fq.Resources) != len(g.CoveredResources) {
				return fail(gf, "Invalid value: flavors must have the same number of resources as the coveredResources")
			}
			pairs += len(fq.Resources)
			for k, rq := range fq.Resources {
				rf := fmt.Sprintf("%s.resources[%d]", ff, k)
				if rq.Name != g.CoveredResources[k] {
					return fail(rf+".name", "Invalid value: %q: must match the name in coveredResources", rq.Name)
				}
				if rq.NominalQuota < 0 {
					return fail(rf+".nominalQuota", "Invalid value: %q: must be greater than or equal to 0", cluster.FormatQuantity(rq.Name, rq.NominalQuota))
				}
				if l := rq.BorrowingLimit; l != nil {
					if !hasParent {
						return fail(rf+".borrowingLimit", "Invalid value: %q: must be nil when %s is empty", cluster.FormatQuantity(rq.Name, *l), parent)
					}
					if *l < 0 {
						return fail(rf+".borrowingLimit", "Invalid value: %q: must be greater than or equal to 0", cluster.FormatQuantity(rq.Name, *l))
					}
				}
				if l := rq.LendingLimit; l != nil {
					if *l < 0 {
						return fail(rf+".lendingLimit", "Invalid value: %q: must be greater than or equal to 0", cluster.FormatQuantity(rq.Name, *l))
					}
					if !hasParent {
						return fail(rf+".lendingLimit", "Invalid value: %q: must be nil when %s is empty", cluster.FormatQuantity(rq.Name, *l), parent)
					}
					if !isCohort && *l > rq.NominalQuota {
						return fail(rf+".lendingLimit", "Invalid value: %q: must be less than or equal to the nominalQuota", cluster.FormatQuantity(rq.Name, *l))
					}
				}
			}
		}
		if pairs > MaxFlavorResources {
			return fail(gf, "Invalid value: %d: number of flavor-resource combinations in a resourceGroup must be ≤ 512, got %d", pairs, pairs)
		}
	}
	if totalFlavors > MaxTotalFlavors {
		return fail("spec.resourceGroups", "Invalid value: %d: total number of flavors across all resourceGroups must be ≤ 256, got %d", totalFlavors, totalFlavors)
	}
	if totalResources > MaxTotalResources {
		return fail("spec.resourceGroups", "Invalid value: %d: total number of covered resources across all resourceGroups must be ≤ 256, got %d", totalResources, totalResources)
	}
	return nil
}

// validate checks a fair-sharing weight as Kueue's validateFairSharing.
func (f *FairSharing) validate(field string) error {
	if f == nil || f.Weight == nil {
		return nil
	}
	switch w := *f.Weight; {
	case w < 0:
		return fail(field, "Invalid value: must be greater than or equal to 0")
	case w == 1: // 1n: Kueue refuses 0 < weight <= 1e-9
		return fail(field, "Invalid value: When not 0, weight must be > 10e-9")
	}
	return nil
}

// validateSelector checks a label selector as Kubernetes'
// ValidateLabelSelector does.
func validateSelector(field string, s *cluster.LabelSelector) error {
	if s == nil {
		return nil
	}
	for _, k := range slices.Sorted(maps.Keys(s.MatchLabels)) {
		if p := cluster.LabelKeyProblem(k); p != "" {
			return fail(field+".matchLabels", "Invalid value: %q: %s", k, p)
		}
		if p := cluster.LabelValueProblem(s.MatchLabels[k]); p != "" {
			return fail(field+".matchLabels", "Invalid value: %q: %s", s.MatchLabels[k], p)
		}
	}
	for i, r := range s.MatchExpressions {
		ef := fmt.Sprintf("%s.matchExpressions[%d]", field, i)
		if p := cluster.LabelKeyProblem(r.Key); p != "" {
			return fail(ef+".key", "Invalid value: %q: %s", r.Key, p)
		}
		switch r.Operator {
		case cluster.LabelIn, cluster.LabelNotIn:
			if len(r.Values) == 0 {
				return fail(ef+".values", "Required value: must be specified when `operator` is 'In' or 'NotIn'")
			}
		case cluster.LabelExists, cluster.LabelDoesNotExist:
			if len(r.Values) != 0 {
				return fail(ef+".values", "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
			}
		default:
			return fail(ef+".operator", "Invalid value: %q: not a valid selector operator", string(r.Operator))
		}
		for j, v := range r.Values {
			if p := cluster.LabelValueProblem(v); p != "" {
				return fail(fmt.Sprintf("%s.values[%d]", ef, j), "Invalid value: %q: %s", v, p)
			}
		}
	}
	return nil
}

// Validate checks a LocalQueue as Kueue's CRD does.
func (q *LocalQueue) Validate() error {
	if err := checkRef("spec.clusterQueue", q.ClusterQueue, false); err != nil {
		return err
	}
	if err := enum("spec.stopPolicy", q.StopPolicy, StopNone, StopHold, StopHoldAndDrain); err != nil {
		return err
	}
	return q.FairSharing.validate("spec.fairSharing")
}

// Validate checks a Cohort as Kueue's webhook and CRD do.
func (c *Cohort) Validate() error {
	if err := checkRef("metadata.name", c.Name, true); err != nil {
		return err
	}
	if err := checkRef("spec.parentName", c.ParentName, false); err != nil {
		return err
	}
	if c.ParentName == c.Name {
		return fail("spec.parentName", "Invalid value: %q: a cohort cannot be its own parent", c.ParentName)
	}
	if err := c.FairSharing.validate("spec.fairSharing"); err != nil {
		return err
	}
	return validateResourceGroups(c.ResourceGroups, c.ParentName != "", true)
}

// Validate checks a WorkloadPriorityClass as Kueue's CRD does.
func (c *WorkloadPriorityClass) Validate() error {
	if err := checkRef("metadata.name", c.Name, true); err != nil {
		return err
	}
	if len(c.Description) > MaxDescription {
		return fail("description", "Too long: may not be more than %d bytes", MaxDescription)
	}
	return nil
}

// hostnameLabel is the node label of the lowest level, when a topology
// names it.
const hostnameLabel = "kubernetes.io/hostname"

// Validate checks a Topology as Kueue's CRD does.
func (t *Topology) Validate() error {
	if err := checkRef("metadata.name", t.Name, true); err != nil {
		return err
	}
	if len(t.Levels) == 0 {
		return fail("spec.levels", "Required value: must have at least 1 item")
	}
	if err := maxItems("spec.levels", len(t.Levels), MaxTopologyLevels); err != nil {
		return err
	}
	for i, l := range t.Levels {
		field := fmt.Sprintf("spec.levels[%d].nodeLabel", i)
		if p := cluster.LabelKeyProblem(l); p != "" {
			return fail(field, "Invalid value: %q: %s", l, p)
		}
		if slices.Index(t.Levels, l) != i {
			return fail("spec.levels", "Invalid value: must be unique")
		}
		if l == hostnameLabel && i != len(t.Levels)-1 {
			return fail("spec.levels", "Invalid value: the kubernetes.io/hostname label can only be used at the lowest level of topology")
		}
	}
	return nil
}

// Validate checks a Configuration as Kueue's configuration validation
// does for the fields the model reads.
func (c *Configuration) Validate() error {
	if w := c.WaitForPodsReady; w != nil {
		if w.Timeout < 0 {
			return fail("waitForPodsReady.timeout", "Invalid value: must be greater than or equal to 0")
		}
		if w.RecoveryTimeout != nil && *w.RecoveryTimeout < 0 {
			return fail("waitForPodsReady.recoveryTimeout", "Invalid value: must be greater than or equal to 0")
		}
		if err := enum("waitForPodsReady.requeuingStrategy.timestamp", w.Timestamp, "Eviction", "Creation"); err != nil {
			return err
		}
		if n := w.BackoffLimitCount; n != nil && *n < 0 {
			return fail("waitForPodsReady.requeuingStrategy.backoffLimitCount", "Invalid value: %d: must be greater than or equal to 0", *n)
		}
		if n := w.BackoffBaseSeconds; n != nil && *n < 0 {
			return fail("waitForPodsReady.requeuingStrategy.backoffBaseSeconds", "Invalid value: %d: must be greater than or equal to 0", *n)
		}
		if n := w.BackoffMaxSeconds; n != nil && *n < 0 {
			return fail("waitForPodsReady.requeuingStrategy.backoffMaxSeconds", "Invalid value: %d: must be greater than or equal to 0", *n)
		}
	}
	if f := c.FairSharing; f != nil {
		for i, s := range f.PreemptionStrategies {
			if err := enum(fmt.Sprintf("fairSharing.preemptionStrategies[%d]", i), s, "LessThanOrEqualToFinalShare", "LessThanInitialShare"); err != nil {
				return err
			}
		}
	}
	if a := c.AdmissionFairSharing; a != nil {
		if a.UsageHalfLifeTime < 0 {
			return fail("admissionFairSharing.usageHalfLifeTime", "Invalid value: must be greater than or equal to 0")
		}
		if a.UsageSamplingInterval <= 0 {
			return fail("admissionFairSharing.usageSamplingInterval", "Invalid value: must be greater than 0")
		}
		for _, r := range slices.Sorted(maps.Keys(a.ResourceWeights)) {
			// a weight is a JSON number in Kueue's configuration, which
			// cannot be NaN or infinite
			if w := a.ResourceWeights[r]; math.IsNaN(w) || math.IsInf(w, 0) {
				return fail("admissionFairSharing.resourceWeights["+string(r)+"]", "Invalid value: %v: must be a finite number", w)
			}
			if a.ResourceWeights[r] < 0 {
				return fail("admissionFairSharing.resourceWeights["+string(r)+"]", "Invalid value: must be greater than or equal to 0")
			}
		}
	}
	return nil
}

// Validate checks every object, then that no two of a kind share a name
// (the API server keeps one object of a name).
func (o *Objects) Validate() (kind, name string, err error) {
	type named struct {
		kind, name string
		v          interface{ Validate() error }
	}
	var all []named
	for i := range o.ResourceFlavors {
		all = append(all, named{"ResourceFlavor", o.ResourceFlavors[i].Name, &o.ResourceFlavors[i]})
	}
	for i := range o.ClusterQueues {
		all = append(all, named{"ClusterQueue", o.ClusterQueues[i].Name, &o.ClusterQueues[i]})
	}
	for i := range o.LocalQueues {
		q := &o.LocalQueues[i]
		all = append(all, named{"LocalQueue", q.Namespace + "/" + q.Name, q})
	}
	for i := range o.Cohorts {
		all = append(all, named{"Cohort", o.Cohorts[i].Name, &o.Cohorts[i]})
	}
	for i := range o.WorkloadPriorityClasses {
		all = append(all, named{"WorkloadPriorityClass", o.WorkloadPriorityClasses[i].Name, &o.WorkloadPriorityClasses[i]})
	}
	for i := range o.Topologies {
		all = append(all, named{"Topology", o.Topologies[i].Name, &o.Topologies[i]})
	}
	seen := map[string]bool{}
	for _, n := range all {
		if err := n.v.Validate(); err != nil {
			return n.kind, n.name, err
		}
		if seen[n.kind+" "+n.name] {
			return n.kind, n.name, fail("metadata.name", "Duplicate value: %q: another %s has this name", n.name, n.kind)
		}
		seen[n.kind+" "+n.name] = true
	}
	if o.Configuration != nil {
		if err := o.Configuration.Validate(); err != nil {
			return "Configuration", "", err
		}
	}
	return "", "", nil
}
