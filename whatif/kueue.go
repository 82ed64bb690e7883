package whatif

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/kueue"
	"github.com/gangsim/gangsim/metrics"
	"github.com/gangsim/gangsim/scenario"
)

// What-if questions on Kueue: variants of a ClusterQueue's or a Cohort's
// quota (KueueQuota) and of a ClusterQueue's queueing strategy and
// preemption policies (KueueQueueSetting), and a search for the smallest
// nominal quota of a ClusterQueue that keeps a quantile of its
// workloads' time to admission under a bound (SmallestNominalQuota).
//
// A change copies the scenario's Kueue objects (copyKueue) and changes the
// copy; the changed objects are then checked as Kueue's webhooks check
// them (kueue.Objects.Validate), so that a variant Kueue would refuse is
// refused here too.

// The quota fields KueueQuota sets, as Kueue's API names them.
const (
	FieldNominalQuota   = "nominalQuota"
	FieldBorrowingLimit = "borrowingLimit"
	FieldLendingLimit   = "lendingLimit"
)

var quotaFields = []string{FieldNominalQuota, FieldBorrowingLimit, FieldLendingLimit}

// noLimit is the value that removes a borrowing or lending limit.
const noLimit = "none"

// KueueQuota sets one quota field (nominalQuota, borrowingLimit or
// lendingLimit) of one flavor's resource in a ClusterQueue, or in a
// Cohort when Cohort is set. Value is a quantity in the resource's
// units ("8", "500m", "64Gi"); "+Q" and "-Q" add to or take from the
// current value (a limit not set counts as 0 there); "none" removes a
// limit. Spelled quota:CLUSTERQUEUE:FLAVOR:RESOURCE:FIELD=VALUE, and
// cohort-quota:COHORT:FLAVOR:RESOURCE:FIELD=VALUE.
type KueueQuota struct {
	Cohort       bool
	Name, Flavor string
	Resource     cluster.ResourceName
	Field, Value string
}

// Apply implements Change.
func (c KueueQuota) Apply(sc *scenario.Scenario) error {
	objs, err := kueueOf(sc)
	if err != nil {
		return err
	}
	kind, groups := "ClusterQueue", (*[]kueue.ResourceGroup)(nil)
	if c.Cohort {
		kind = "Cohort"
		if i := slices.IndexFunc(objs.Cohorts, func(co kueue.Cohort) bool { return co.Name == c.Name }); i >= 0 {
			groups = &objs.Cohorts[i].ResourceGroups
		}
	} else if i := slices.IndexFunc(objs.ClusterQueues, func(q kueue.ClusterQueue) bool { return q.Name == c.Name }); i >= 0 {
		groups = &objs.ClusterQueues[i].ResourceGroups
	}
	if groups == nil {
		return changeError("%s %q is not one of the scenario's", kind, c.Name)
	}
	at := fmt.Sprintf("%s %s, flavor %s, resource %s", kind, c.Name, c.Flavor, c.Resource)
	rq, err := findQuota(*groups, kind, c.Name, c.Flavor, c.Resource)
	if err != nil {
		return err
	}
	if err := setQuota(rq, c.Field, c.Value); err != nil {
		return changeError("%s: %v", at, err)
	}
	if err := validateKueue(objs, at+": "+c.Field); err != nil {
		return err
	}
	sc.Kueue = objs
	return nil
}

// String implements Change.
func (c KueueQuota) String() string {
	kind := "quota"
	if c.Cohort {
		kind = "cohort-quota"
	}
	return fmt.Sprintf("%s:%s:%s:%s:%s=%s", kind, c.Name, c.Flavor, c.Resource, c.Field, c.Value)
}

// findQuota returns the quota of flavor's resource in groups, or an error
// naming what the object has.
func findQuota(groups []kueue.ResourceGroup, kind, name, flavor string, r cluster.ResourceName) (*kueue.ResourceQuota, error) {
	var flavors []string
	for gi := range groups {
		for fi := range groups[gi].Flavors {
			fq := &groups[gi].Flavors[fi]
			flavors = append(flavors, fq.Name)
			if fq.Name != flavor {
				continue
			}
			for ri := range fq.Resources {
				if fq.Resources[ri].Name == r {
					return &fq.Resources[ri], nil
				}
			}
			return nil, changeError("%s %s: flavor %s has no quota of %s (it covers %s)", kind, name, flavor, r, resourceList(groups[gi].CoveredResources))
		}
	}
	if len(flavors) == 0 {
		return nil, changeError("%s %s has no resource groups", kind, name)
	}
	return nil, changeError("%s %s has no flavor %q (its flavors: %s)", kind, name, flavor, strings.Join(flavors, ", "))
}

func resourceList(rs []cluster.ResourceName) string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r)
	}
	return strings.Join(out, ", ")
}

// setQuota sets a quota field from its text.
func setQuota(rq *kueue.ResourceQuota, field, text string) error {
	var cur *int64
	switch field {
	case FieldNominalQuota:
		cur = &rq.NominalQuota
	case FieldBorrowingLimit, FieldLendingLimit:
		limit := &rq.BorrowingLimit
		if field == FieldLendingLimit {
			limit = &rq.LendingLimit
		}
		if text == noLimit {
			*limit = nil
			return nil
		}
		v := int64(0)
		if *limit != nil {
			v = **limit
		}
		*limit, cur = &v, &v
	default:
		return fmt.Errorf("field %q is not one of %s", field, strings.Join(quotaFields, ", "))
	}
	if text == noLimit {
		return fmt.Errorf("%s cannot be %q: only a limit can be removed", field, noLimit)
	}
	sign, q := int64(0), text
	switch {
	case strings.HasPrefix(text, "+"):
		sign, q = 1, text[1:]
	case strings.HasPrefix(text, "-"):
		sign, q = -1, text[1:]
	}
	v, err := cluster.ParseResourceQuantity(rq.Name, q)
	if err != nil {
		return fmt.Errorf("%s %q is not a quantity of %s (8, 500m, 64Gi; +Q or -Q to change it by Q)", field, text, rq.Name)
	}
	if sign != 0 {
		v = *cur + sign*v
	}
	if v < 0 {
		return fmt.Errorf("%s %s makes it negative (%s)", field, text, cluster.FormatQuantity(rq.Name, v))
	}
	*cur = v
	return nil
}

// Preemption and queueing fields of a ClusterQueue that
// KueueQueueSetting sets, as Kueue's API names them.
var queueFields = []string{"queueingStrategy", "withinClusterQueue", "reclaimWithinCohort", "borrowWithinCohort"}

// KueueQueueSetting sets a ClusterQueue's queueingStrategy (StrictFIFO,
// BestEffortFIFO) or one of its preemption policies: withinClusterQueue
// (Never, LowerPriority, LowerOrNewerEqualPriority), reclaimWithinCohort
// (Never, LowerPriority, Any), borrowWithinCohort (its policy: Never,
// LowerPriority). Spelled clusterqueue:NAME:FIELD=VALUE; NAME "*" sets
// every ClusterQueue.
type KueueQueueSetting struct {
	Name, Field, Value string
}

// Apply implements Change.
func (c KueueQueueSetting) Apply(sc *scenario.Scenario) error {
	objs, err := kueueOf(sc)
	if err != nil {
		return err
	}
	found := false
	for i := range objs.ClusterQueues {
		if q := &objs.ClusterQueues[i]; c.Name == allQueues || q.Name == c.Name {
			if err := c.set(q); err != nil {
				return err
			}
			found = true
		}
	}
	if !found {
		return changeError("ClusterQueue %q is not one of the scenario's", c.Name)
	}
	if err := validateKueue(objs, fmt.Sprintf("ClusterQueue %s: %s", c.Name, c.Field)); err != nil {
		return err
	}
	sc.Kueue = objs
	return nil
}

// set writes the setting into one ClusterQueue.
func (c KueueQueueSetting) set(q *kueue.ClusterQueue) error {
	switch c.Field {
	case "queueingStrategy":
		q.QueueingStrategy = kueue.QueueingStrategy(c.Value)
	case "withinClusterQueue":
		q.Preemption.WithinClusterQueue = kueue.PreemptionPolicy(c.Value)
	case "reclaimWithinCohort":
		q.Preemption.ReclaimWithinCohort = kueue.PreemptionPolicy(c.Value)
	case "borrowWithinCohort":
		q.Preemption.BorrowWithinCohort = kueue.PreemptionPolicy(c.Value)
	default:
		return changeError("ClusterQueue %s: field %q is not one of %s", c.Name, c.Field, strings.Join(queueFields, ", "))
	}
	return nil
}

// String implements Change.
func (c KueueQueueSetting) String() string {
	return fmt.Sprintf("clusterqueue:%s:%s=%s", c.Name, c.Field, c.Value)
}

// kueueOf returns a copy of the scenario's Kueue objects to change.
func kueueOf(sc *scenario.Scenario) (*kueue.Objects, error) {
	if sc.Kueue.Empty() {
		return nil, changeError("the scenario has no Kueue objects")
	}
	return copyKueue(sc.Kueue), nil
}

// copyKueue copies Kueue's objects deeply where a change may write: the
// ClusterQueues and Cohorts, their resource groups, flavors' quotas and
// limits, and preemption thresholds. The other objects' lists are new
// arrays of the same values (their maps and selectors are only read).
func copyKueue(o *kueue.Objects) *kueue.Objects {
	c := *o
	c.ResourceFlavors = slices.Clone(o.ResourceFlavors)
	c.LocalQueues = slices.Clone(o.LocalQueues)
	c.WorkloadPriorityClasses = slices.Clone(o.WorkloadPriorityClasses)
	c.Topologies = slices.Clone(o.Topologies)
	c.ClusterQueues = slices.Clone(o.ClusterQueues)
	for i := range c.ClusterQueues {
		q := &c.ClusterQueues[i]
		q.ResourceGroups = copyGroups(q.ResourceGroups)
		q.Preemption.MaxPriorityThreshold = clonePtr(q.Preemption.MaxPriorityThreshold)
	}
	c.Cohorts = slices.Clone(o.Cohorts)
	for i := range c.Cohorts {
		c.Cohorts[i].ResourceGroups = copyGroups(c.Cohorts[i].ResourceGroups)
	}
	return &c
}

func copyGroups(groups []kueue.ResourceGroup) []kueue.ResourceGroup {
	out := slices.Clone(groups)
	for i := range out {
		out[i].CoveredResources = slices.Clone(out[i].CoveredResources)
		out[i].Flavors = slices.Clone(out[i].Flavors)
		for j := range out[i].Flavors {
			rs := slices.Clone(out[i].Flavors[j].Resources)
			for k := range rs {
				rs[k].BorrowingLimit, rs[k].LendingLimit = clonePtr(rs[k].BorrowingLimit), clonePtr(rs[k].LendingLimit)
			}
			out[i].Flavors[j].Resources = rs
		}
	}
	return out
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// validateKueue checks changed objects as Kueue's webhooks would; the
// error names the change (at) and the object's field at fault.
func validateKueue(objs *kueue.Objects, at string) error {
	kind, name, err := objs.Validate()
	if err == nil {
		return nil
	}
	var fe *kueue.FieldError
	if errors.As(err, &fe) {
		return changeError("%s: Kueue would refuse the %s %s: %s: %s", at, kind, name, fe.Field, fe.Detail)
	}
	return changeError("%s: Kueue would refuse the %s %s: %v", at, kind, name, err)
}

// parseKueueChange reads quota:..., cohort-quota:..., clusterqueue:...,
// cohort:... and fairsharing:...
func parseKueueChange(kind string, args []string) (Change, error) {
	switch kind {
	case "fairsharing":
		return parseFairSharing(args)
	case "cohort":
		return parseCohortChange(args)
	case "clusterqueue":
		want := fmt.Errorf("want clusterqueue:NAME:FIELD=VALUE (fields: %s, %s; NAME * for every ClusterQueue)", strings.Join(queueFields, ", "), FieldFairSharingWeight)
		if len(args) != 2 || args[0] == "" {
			return nil, want
		}
		field, value, ok := strings.Cut(args[1], "=")
		switch {
		case ok && value != "" && field == FieldFairSharingWeight:
			return KueueWeight{Name: args[0], Value: value}, nil
		case !ok || value == "" || !slices.Contains(queueFields, field):
			return nil, want
		}
		return KueueQueueSetting{Name: args[0], Field: field, Value: value}, nil
	}
	owner := "CLUSTERQUEUE"
	if kind == "cohort-quota" {
		owner = "COHORT"
	}
	want := fmt.Errorf("want %s:%s:FLAVOR:RESOURCE:FIELD=VALUE (fields: %s)", kind, owner, strings.Join(quotaFields, ", "))
	if len(args) != 4 || args[0] == "" || args[1] == "" || args[2] == "" {
		return nil, want
	}
	field, value, ok := strings.Cut(args[3], "=")
	if !ok || value == "" {
		return nil, want
	}
	if !slices.Contains(quotaFields, field) {
		return nil, fmt.Errorf("quota field %q is not one of %s", field, strings.Join(quotaFields, ", "))
	}
	return KueueQuota{Cohort: kind == "cohort-quota", Name: args[0], Flavor: args[1], Resource: cluster.ResourceName(args[2]), Field: field, Value: value}, nil
}

// KueueSummary is the part of a run's Kueue section a comparison shows:
// each ClusterQueue's, in the order of the objects.
type KueueSummary struct {
	ClusterQueues []KueueQueueSummary `json:"clusterQueues"`
	// Preemptions counts the victims between each pair of ClusterQueues
	// (preemptor's, victim's), as metrics.KueueSummary has them.
	Preemptions []KueuePreemptions `json:"preemptions"`
}

// KueuePreemptions is how many workloads of ClusterQueue Victim were
// preempted for workloads of ClusterQueue Preemptor ("" when unknown).
type KueuePreemptions struct {
	Preemptor string `json:"preemptor"`
	Victim    string `json:"victim"`
	Count     int    `json:"count"`
}

// KueueQueueSummary is one ClusterQueue over a run (times in seconds):
// its workloads' time to admission (over those admitted), their waits
// for quota (over all, those never admitted counted to the end) and for
// nodes (from admission until the pods were all bound), its evictions,
// its workloads preempted (as victims) and the workloads they preempted
// (as preemptors), and its quota against its use.
type KueueQueueSummary struct {
	Name            string              `json:"name"`
	Cohort          string              `json:"cohort,omitempty"`
	Workloads       int                 `json:"workloads"`
	Admitted        int                 `json:"admitted"`
	PendingAtEnd    int                 `json:"pendingAtEnd"`
	TimeToAdmission MeanSeconds         `json:"timeToAdmissionSeconds"`
	WaitForQuota    MeanSeconds         `json:"waitForQuotaSeconds"`
	WaitForNodes    MeanSeconds         `json:"waitForNodesSeconds"`
	Evictions       int                 `json:"evictions"`
	Preempted       int                 `json:"preempted"`
	Preempting      int                 `json:"preempting"`
	Quota           []KueueQuotaSummary `json:"quota"`
}

// MeanSeconds are a sample's mean and quantiles in seconds.
type MeanSeconds struct {
	Mean float64 `json:"mean"`
	Seconds
}

// KueueQuotaSummary is one flavor's resource of a ClusterQueue, in the
// resource's unit: the nominal quota, the mean and peak use, the peak
// borrowed, and the use over the nominal quota.
type KueueQuotaSummary struct {
	Flavor       string  `json:"flavor"`
	Resource     string  `json:"resource"`
	Unit         string  `json:"unit"`
	Nominal      float64 `json:"nominal"`
	Used         float64 `json:"used"`
	UsedPeak     float64 `json:"usedPeak"`
	BorrowedPeak float64 `json:"borrowedPeak"`
	Utilization  float64 `json:"utilization"`
}

func meanSeconds(d metrics.Durations) MeanSeconds {
	return MeanSeconds{Mean: d.Mean.Seconds(), Seconds: seconds(d)}
}

// summarizeKueue takes a report's Kueue numbers; nil without Kueue.
func summarizeKueue(rep *metrics.Report) *KueueSummary {
	k := rep.Kueue
	if k == nil {
		return nil
	}
	s := &KueueSummary{ClusterQueues: []KueueQueueSummary{}, Preemptions: []KueuePreemptions{}}
	for _, p := range k.Preemptions {
		s.Preemptions = append(s.Preemptions, KueuePreemptions(p))
	}
	for _, q := range k.ClusterQueues {
		qs := KueueQueueSummary{Name: q.Name, Cohort: q.Cohort, Workloads: q.Workloads, Admitted: q.Admitted, PendingAtEnd: q.PendingAtEnd,
			Preempted: q.Preempted, Preempting: q.Preempting,
			TimeToAdmission: meanSeconds(q.TimeToAdmission), WaitForQuota: meanSeconds(q.WaitForQuota), WaitForNodes: meanSeconds(q.WaitForNodes),
			Quota: []KueueQuotaSummary{}}
		for _, e := range q.Evictions {
			qs.Evictions += e.Count
		}
		for _, u := range q.Quota {
			qs.Quota = append(qs.Quota, KueueQuotaSummary{Flavor: u.Flavor, Resource: string(u.Resource), Unit: u.Unit, Nominal: u.Nominal,
				Used: u.Used, UsedPeak: u.UsedPeak, BorrowedPeak: u.BorrowedPeak, Utilization: u.Utilization})
		}
		s.ClusterQueues = append(s.ClusterQueues, qs)
	}
	return s
}

// kueueRows adds the comparison's Kueue rows, per ClusterQueue, when a
// variant has Kueue.
func kueueRows(c *Comparison, row func(string, func(Summary) string)) {
	names, _ := c.clusterQueues()
	for _, name := range names {
		cell := func(f func(*KueueQueueSummary) string) func(Summary) string {
			return func(s Summary) string {
				if s.Kueue == nil {
					return "-"
				}
				for i := range s.Kueue.ClusterQueues {
					if q := &s.Kueue.ClusterQueues[i]; q.Name == name {
						return f(q)
					}
				}
				return "-"
			}
		}
		p := "ClusterQueue " + name + " "
		row(p+"admitted", cell(func(q *KueueQueueSummary) string { return fmt.Sprintf("%d of %d", q.Admitted, q.Workloads) }))
		row(p+"time to admission mean / p50 / p90 / p99", cell(func(q *KueueQueueSummary) string {
			t := q.TimeToAdmission
			return durs(t.Mean, t.P50, t.P90, t.P99)
		}))
		row(p+"wait for quota / for nodes p90", cell(func(q *KueueQueueSummary) string { return durs(q.WaitForQuota.P90, q.WaitForNodes.P90) }))
		row(p+"evictions", cell(func(q *KueueQueueSummary) string { return fmt.Sprint(q.Evictions) }))
		row(p+"workloads preempted / preempted for it", cell(func(q *KueueQueueSummary) string { return fmt.Sprintf("%d / %d", q.Preempted, q.Preempting) }))
		for _, fr := range quotaNames(c, name) {
			row(p+fr[0]+" "+fr[1]+" used mean / peak of nominal", cell(func(q *KueueQueueSummary) string {
				for _, u := range q.Quota {
					if u.Flavor == fr[0] && u.Resource == fr[1] {
						return fmt.Sprintf("%s / %s of %s %s", num(u.Used), num(u.UsedPeak), num(u.Nominal), u.Unit)
					}
				}
				return "-"
			}))
		}
	}
}

// preemptionRows adds a row per pair of ClusterQueues with preemptions
// between them in any variant, in the order first met.
func preemptionRows(c *Comparison, row func(string, func(Summary) string)) {
	var pairs [][2]string
	for _, v := range c.Variants {
		if v.Summary.Kueue == nil {
			continue
		}
		for _, p := range v.Summary.Kueue.Preemptions {
			if k := [2]string{p.Preemptor, p.Victim}; !slices.Contains(pairs, k) {
				pairs = append(pairs, k)
			}
		}
	}
	for _, k := range pairs {
		from := k[0]
		if from == "" {
			from = "a workload in no ClusterQueue"
		}
		row("workloads of "+k[1]+" preempted for "+from, func(s Summary) string {
			if s.Kueue == nil {
				return "-"
			}
			for _, p := range s.Kueue.Preemptions {
				if p.Preemptor == k[0] && p.Victim == k[1] {
					return fmt.Sprint(p.Count)
				}
			}
			return "0"
		})
	}
}

// quotaNames are the flavors and resources of a ClusterQueue's quota in
// any variant, in order.
func quotaNames(c *Comparison, name string) [][2]string {
	var out [][2]string
	for _, v := range c.Variants {
		if v.Summary.Kueue == nil {
			continue
		}
		for _, q := range v.Summary.Kueue.ClusterQueues {
			if q.Name != name {
				continue
			}
			for _, u := range q.Quota {
				if k := [2]string{u.Flavor, u.Resource}; !slices.Contains(out, k) {
					out = append(out, k)
				}
			}
		}
	}
	return out
}

// num prints a quantity with one decimal, none when it is whole.
func num(v float64) string {
	if v == float64(int64(v)) {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}
