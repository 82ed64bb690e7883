package kube

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/kueue"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// Kueue's Workload (kueue.x-k8s.io/v1beta2, and v1beta1 with its older
// priority fields) is the unit Kueue admits: up to 8 pod sets, each a
// count of pods from one template, with a topology request. Kueue makes a
// Workload for each job it manages, and the job makes the pods once the
// Workload is admitted. So a Workload whose owner is an object of the
// inputs belongs to that owner, which makes the pods: the Workload adds
// nothing. A Workload whose owner is not in the inputs (a dump of
// Workloads, or one of a kind the importer skips) stands for its job: each
// pod set makes count pods named <workload>-<podset>-<index>, and its
// topology request is read as Kueue's pod-set topology annotations on a
// job's template are (kueue.go): a required level makes the pod set a gang
// in one domain of that node label. Without Kueue in the inputs, the pods
// are made as if Kueue had admitted every pod set whole. With it, a
// Workload naming a queue is Kueue's (kueue.Objects.Dumped): one with a
// quota reservation (status.admission, QuotaReserved true) holds it from
// the start, one without queues at time 0, its pods gated until admitted
// (the scenario's Kueue run). A finished or inactive Workload makes none.

// kueueGroup is Kueue's API group.
const kueueGroup = "kueue.x-k8s.io"

// kueueWorkload is a Workload of either version; the fields a version
// lacks are refused by kueueWorkload's checks.
type kueueWorkload struct {
	kubeHead `yaml:",inline"`
	Spec     struct {
		PodSets           []kueuePodSet `yaml:"podSets"`
		QueueName         string        `yaml:"queueName"`
		Priority          *int32        `yaml:"priority"`
		PriorityClassName string        `yaml:"priorityClassName"`   // v1beta1
		PriorityClassSrc  string        `yaml:"priorityClassSource"` // v1beta1
		PriorityClassRef  *struct {     // v1beta2
			Group string `yaml:"group"`
			Kind  string `yaml:"kind"`
			Name  string `yaml:"name"`
		} `yaml:"priorityClassRef"`
		Active                      *bool      `yaml:"active"`
		MaximumExecutionTimeSeconds unmodelled `yaml:"maximumExecutionTimeSeconds"`
	} `yaml:"spec"`
	Status struct {
		openFields
		Admission *struct {
			openFields
			ClusterQueue      string `yaml:"clusterQueue"`
			PodSetAssignments []struct {
				openFields
				Name    string            `yaml:"name"`
				Flavors map[string]string `yaml:"flavors"`
				Count   *int32            `yaml:"count"`
			} `yaml:"podSetAssignments"`
		} `yaml:"admission"`
		Conditions []struct {
			openFields
			Type   string `yaml:"type"`
			Status string `yaml:"status"`
		} `yaml:"conditions"`
	} `yaml:"status"`

	// sets are, for each pod the Workload made, its pod set (members.go)
	sets []int `yaml:"-"`
}

type kueuePodSet struct {
	Name            string          `yaml:"name"`
	Count           *int32          `yaml:"count"`
	MinCount        *int32          `yaml:"minCount"`
	Template        kubePodTemplate `yaml:"template"`
	TopologyRequest *struct {
		Required                    *string    `yaml:"required"`
		Preferred                   *string    `yaml:"preferred"`
		Unconstrained               *bool      `yaml:"unconstrained"`
		PodIndexLabel               *string    `yaml:"podIndexLabel"`
		SubGroupIndexLabel          skipped    `yaml:"subGroupIndexLabel"`
		SubGroupCount               skipped    `yaml:"subGroupCount"`
		PodSetGroupName             unmodelled `yaml:"podSetGroupName"`
		PodSetSliceRequiredTopology unmodelled `yaml:"podSetSliceRequiredTopology"`
		PodSetSliceSize             unmodelled `yaml:"podSetSliceSize"`
	} `yaml:"topologyRequest"`
}

// kueueMaxPodSets is the most pod sets a Workload has.
const kueueMaxPodSets = 8

// kueueWorkload converts a Kueue Workload: nothing when its owner is in
// the inputs, else the pods of its pod sets.
func (k *kubeImport) kueueWorkload(o *Object, v *kueueWorkload, f *schema.File) error {
	if err := checkName(o, false); err != nil {
		return err
	}
	if err := checkKueueWorkload(o, v); err != nil {
		return err
	}
	first := o.file + ": " + o.ref()
	if owner := k.ownerObject(o, &v.Metadata); owner != nil {
		return k.ownedWorkload(o, v, owner, f)
	}
	if kueueFinished(v) {
		k.ws.Add(o.kind, "status.conditions[Finished]", "the Workload has finished: it makes no pods", first)
		return nil
	}
	if v.Spec.Active != nil && !*v.Spec.Active {
		k.ws.Add(o.kind, "spec.active", "false: Kueue never admits an inactive Workload, so it makes no pods", first)
		return nil
	}
	created, err := creationTime(o, &v.Metadata)
	if err != nil {
		return err
	}
	owner := &cluster.Owner{Kind: o.kind, Name: o.name}
	made := 0
	run := k.kueueRuns && v.Spec.QueueName != ""
	var dumped *kueue.DumpedWorkload
	if run {
		dumped = &kueue.DumpedWorkload{Namespace: o.namespace, Name: o.name, Queue: v.Spec.QueueName, Priority: v.Spec.Priority,
			Source: first}
		if dumped.Namespace == "" {
			dumped.Namespace = cluster.DefaultNamespace
		}
		if r := v.Spec.PriorityClassRef; r != nil && r.Kind == "WorkloadPriorityClass" {
			dumped.PriorityClass = r.Name
		}
		if v.Spec.PriorityClassSrc == "kueue.x-k8s.io/workloadpriorityclass" {
			dumped.PriorityClass = v.Spec.PriorityClassName
		}
		ad, err := kueueAdmission(o, v)
		if err != nil {
			return err
		}
		dumped.Admission = ad
	}
	for i := range v.Spec.PodSets {
		ps := &v.Spec.PodSets[i]
		field := fmt.Sprintf("spec.podSets[%d]", i)
		name := kueuePodSetName(ps)
		count := kueuePodSetCount(ps)
		entry, err := k.setTemplate(o, created, &ps.Template, field+".template", nil, owner)
		if err != nil {
			return err
		}
		if entry.PriorityClassName == "" {
			entry.PriorityClassName = kueuePodPriorityClass(v)
		}
		if r := ps.TopologyRequest; r != nil && r.PodIndexLabel != nil && *r.PodIndexLabel != "" {
			if err := schema.LabelKeyError(*r.PodIndexLabel); err != nil {
				return o.fail(nil, field+".topologyRequest.podIndexLabel", err)
			}
		}
		if ps.MinCount != nil && *ps.MinCount < int32(count) {
			k.ws.Add(o.kind, "spec.podSets[].minCount", "partial admission is not modelled: the pod set makes its count pods, as Kueue admits it whole", first)
		}
		if err := k.room(o, field+".count", count); err != nil {
			return err
		}
		if dumped != nil {
			dumped.PodSets = append(dumped.PodSets, kueue.DumpedPodSet{Name: name, Count: int32(count)})
		}
		for j := range count {
			var own map[string]string
			if r := ps.TopologyRequest; r != nil && r.PodIndexLabel != nil && *r.PodIndexLabel != "" {
				own = map[string]string{*r.PodIndexLabel: strconv.Itoa(j)}
			}
			before := len(f.Pods)
			k.addSetPod(f, o, &entry, fmt.Sprintf("%s-%s-%d", o.name, name, j), own)
			if len(f.Pods) > before {
				v.sets = append(v.sets, i)
				made++
				if dumped != nil {
					ps := &dumped.PodSets[len(dumped.PodSets)-1]
					ps.Pods = append(ps.Pods, cluster.MakePodKey(o.namespace, f.Pods[before].Name))
				}
			}
		}
	}
	if dumped != nil {
		ko := kueueObjects(f)
		ko.Dumped = append(ko.Dumped, *dumped)
		if dumped.Admission != nil {
			k.ws.Add(o.kind, "status.admission", "Kueue runs: the Workload holds the quota of its admission from the start, its pods made as admitted "+
				"(with their flavors' node labels and tolerations)", first)
		} else {
			k.ws.Add(o.kind, "spec.queueName", "Kueue runs: the Workload queues from time 0 and its pods are made behind Kueue's gate, "+
				"lifted when it is admitted; evicted, its pods are deleted and nothing makes them again", first)
		}
		return nil
	}
	if made > 0 {
		k.ws.Add(o.kind, "spec.podSets", "the pods are the Workload's pod sets, <workload>-<podset>-<index>, as Kueue would admit them: "+
			"Kueue's admission (queues, quotas, flavors) is not modelled", first)
	}
	if v.Spec.QueueName != "" {
		k.ws.Add(o.kind, "spec.queueName", "Kueue's queues are not modelled: the Workload is taken as admitted at once", first)
	}
	if v.Status.Admission != nil {
		k.ws.Add(o.kind, "status.admission", "not modelled yet (ClusterQueue, flavors, admitted counts): the pod sets make their count pods", first)
	}
	if v.Spec.PriorityClassRef != nil && v.Spec.PriorityClassRef.Kind == "WorkloadPriorityClass" ||
		v.Spec.PriorityClassSrc == "kueue.x-k8s.io/workloadpriorityclass" {
		k.ws.Add(o.kind, "spec.priority", "a WorkloadPriorityClass orders Kueue's admission only, which is not modelled: the pods keep their own priority", first)
	}
	return nil
}

// kueueAdmission is a Workload's quota reservation, when its QuotaReserved
// condition is true: its ClusterQueue, and by pod set its count and
// flavors; nil otherwise.
func kueueAdmission(o *Object, v *kueueWorkload) (*kueue.Admission, error) {
	a := v.Status.Admission
	reserved := false
	for _, c := range v.Status.Conditions {
		if c.Type == "QuotaReserved" && c.Status == "True" {
			reserved = true
		}
	}
	if a == nil || !reserved {
		return nil, nil
	}
	if a.ClusterQueue == "" {
		return nil, o.failf(nil, "status.admission.clusterQueue", "Required value")
	}
	ad := &kueue.Admission{ClusterQueue: a.ClusterQueue}
	for i, ps := range a.PodSetAssignments {
		field := fmt.Sprintf("status.admission.podSetAssignments[%d]", i)
		name := cmpOr(ps.Name, "main")
		if !slices.ContainsFunc(v.Spec.PodSets, func(s kueuePodSet) bool { return kueuePodSetName(&s) == name }) {
			return nil, o.failf(nil, field+".name", "%q names no pod set of spec.podSets", name)
		}
		p := kueue.PodSetAssignment{Name: name, Flavors: map[cluster.ResourceName]string{}}
		if ps.Count != nil {
			if *ps.Count < 0 {
				return nil, o.failf(nil, field+".count", "Invalid value: %d: should be greater than or equal to 0", *ps.Count)
			}
			p.Count = *ps.Count
		}
		for r, f := range ps.Flavors {
			p.Flavors[cluster.ResourceName(r)] = f
		}
		ad.PodSets = append(ad.PodSets, p)
	}
	return ad, nil
}

// ownedWorkload reads a Workload whose owner is an object of the inputs,
// which makes the pods: the Workload adds none. When Kueue runs and the
// Workload names a queue, the owner's workload takes the Workload's name
// and, with a quota reservation, holds it from the start (its running
// pods keep running); a Workload of a pod group, which the scenario
// does not tie to its pods, is left out with a warning.
func (k *kubeImport) ownedWorkload(o *Object, v *kueueWorkload, owner *Object, f *schema.File) error {
	first := o.file + ": " + o.ref()
	if !k.kueueRuns || v.Spec.QueueName == "" || owner.kind == "Pod" || kueueFinished(v) {
		detail := "the Workload of " + owner.ref() + ", which is in the inputs and makes the pods: the Workload adds none"
		if v.Status.Admission != nil {
			detail += "; its status.admission (ClusterQueue, flavors, counts) is not read: the owner's pods are taken as admitted"
		}
		k.ws.Add(o.kind, "metadata.ownerReferences", detail, first)
		return nil
	}
	ad, err := kueueAdmission(o, v)
	if err != nil {
		return err
	}
	ns := o.namespace
	if ns == "" {
		ns = cluster.DefaultNamespace
	}
	ko := kueueObjects(f)
	ko.Owned = append(ko.Owned, kueue.OwnedWorkload{Namespace: ns, Name: o.name, OwnerKind: owner.kind, OwnerName: owner.name,
		Admission: ad, Source: first})
	if ad != nil {
		k.ws.Add(o.kind, "status.admission", "the Workload of a job in the inputs: Kueue runs, and the job holds this admission (ClusterQueue, flavors, counts) "+
			"from the start, its running pods kept, under the Workload's name", first)
	} else {
		k.ws.Add(o.kind, "spec.queueName", "the Workload of a job in the inputs: Kueue runs, and the job queues from time 0 under the Workload's name", first)
	}
	return nil
}

// ownerObject is the object of the inputs that owns a Workload, or nil.
// The controller reference is looked up first; Kueue's pod groups list
// their pods as owners without one.
func (k *kubeImport) ownerObject(o *Object, m *kubeMeta) *Object {
	refs := m.OwnerReferences
	if c := controllerOf(m); c != nil {
		refs = []kubeOwnerRef{*c}
	}
	if k.byKindName == nil {
		k.byKindName = map[kubeOwnerKey]*Object{}
		for _, d := range k.objs {
			key := kubeOwnerKey{d.o.namespace, d.o.kind, d.o.name}
			if k.byKindName[key] == nil {
				k.byKindName[key] = d.o
			}
		}
	}
	for _, r := range refs {
		if d := k.byKindName[kubeOwnerKey{o.namespace, r.Kind, r.Name}]; d != nil && d != o {
			return d
		}
	}
	return nil
}

// kueueFinished reports whether a Workload's Finished condition is True.
func kueueFinished(v *kueueWorkload) bool {
	for _, c := range v.Status.Conditions {
		if c.Type == "Finished" && c.Status == "True" {
			return true
		}
	}
	return false
}

// kueuePodSetName is a pod set's name, main by default.
func kueuePodSetName(ps *kueuePodSet) string { return cmpOr(ps.Name, "main") }

// kueuePodSetCount is a pod set's count, 1 by default.
func kueuePodSetCount(ps *kueuePodSet) int {
	if ps.Count == nil {
		return 1
	}
	return int(*ps.Count)
}

// checkKueueWorkload checks a Workload as Kueue's API validation and
// webhook do, and the fields of the other version.
func checkKueueWorkload(o *Object, v *kueueWorkload) error {
	spec := &v.Spec
	v1beta1 := o.apiVersion == kueueGroup+"/v1beta1"
	switch {
	case v1beta1 && spec.PriorityClassRef != nil:
		return o.failf(nil, "spec.priorityClassRef", "a field of v1beta2: v1beta1 names the class by spec.priorityClassName and spec.priorityClassSource")
	case !v1beta1 && spec.PriorityClassName != "":
		return o.failf(nil, "spec.priorityClassName", "a field of v1beta1: v1beta2 names the class by spec.priorityClassRef (group, kind, name)")
	case !v1beta1 && spec.PriorityClassSrc != "":
		return o.failf(nil, "spec.priorityClassSource", "a field of v1beta1: v1beta2 names the class by spec.priorityClassRef (group, kind, name)")
	}
	switch spec.PriorityClassSrc {
	case "", "kueue.x-k8s.io/workloadpriorityclass", "scheduling.k8s.io/priorityclass":
	default:
		return o.failf(nil, "spec.priorityClassSource", "Unsupported value: %q: supported values: \"kueue.x-k8s.io/workloadpriorityclass\", \"scheduling.k8s.io/priorityclass\", \"\"", spec.PriorityClassSrc)
	}
	if spec.PriorityClassName != "" && spec.Priority == nil {
		return o.failf(nil, "spec.priority", "Required value: priority should not be nil when priorityClassName is set")
	}
	if r := spec.PriorityClassRef; r != nil {
		switch {
		case r.Group == "scheduling.k8s.io" && r.Kind != "PriorityClass":
			return o.failf(nil, "spec.priorityClassRef.kind", "Invalid value: %q: only the PriorityClass kind is allowed for the scheduling.k8s.io group", r.Kind)
		case r.Group == kueueGroup && r.Kind != "WorkloadPriorityClass":
			return o.failf(nil, "spec.priorityClassRef.kind", "Invalid value: %q: only the WorkloadPriorityClass kind is allowed for the kueue.x-k8s.io group", r.Kind)
		case r.Group != "scheduling.k8s.io" && r.Group != kueueGroup:
			return o.failf(nil, "spec.priorityClassRef.group", "Unsupported value: %q: supported values: \"kueue.x-k8s.io\", \"scheduling.k8s.io\"", r.Group)
		case r.Name == "":
			return o.failf(nil, "spec.priorityClassRef.name", "Required value")
		case spec.Priority == nil:
			return o.failf(nil, "spec.priority", "Required value: priority should not be nil when priorityClassRef is set")
		}
	}
	if len(spec.PodSets) == 0 {
		return o.failf(nil, "spec.podSets", "Required value: a Workload has at least one pod set")
	}
	if len(spec.PodSets) > kueueMaxPodSets {
		return o.failf(nil, "spec.podSets", "Too many: %d: must have at most %d items", len(spec.PodSets), kueueMaxPodSets)
	}
	names := map[string]bool{}
	for i := range spec.PodSets {
		ps := &spec.PodSets[i]
		field := fmt.Sprintf("spec.podSets[%d]", i)
		name := kueuePodSetName(ps)
		if err := schema.NameError(name, true); err != nil {
			return o.fail(nil, field+".name", err)
		}
		if names[name] {
			return o.failf(nil, field+".name", "Duplicate value: %q: pod set names are unique", name)
		}
		names[name] = true
		if ps.Count != nil && *ps.Count < 0 {
			return o.failf(nil, field+".count", "Invalid value: %d: should be greater than or equal to 0", *ps.Count)
		}
		if ps.MinCount != nil && (*ps.MinCount < 0 || int(*ps.MinCount) > kueuePodSetCount(ps)) {
			return o.failf(nil, field+".minCount", "Invalid value: %d: minCount should be positive and less or equal to count (%d)", *ps.MinCount, kueuePodSetCount(ps))
		}
		if err := checkTopologyRequest(o, ps, field+".topologyRequest"); err != nil {
			return err
		}
	}
	return nil
}

// checkTopologyRequest checks a pod set's topology request as Kueue's
// webhook checks the annotations it stands for, and moves it onto the pod
// set's template as those annotations, which the importer reads as it
// reads a job's (podTopology).
func checkTopologyRequest(o *Object, ps *kueuePodSet, field string) error {
	r := ps.TopologyRequest
	if r == nil {
		return nil
	}
	if boolCount(r.Required != nil, r.Preferred != nil, r.Unconstrained != nil) > 1 {
		return o.failf(nil, field, "Invalid value: must not contain more than one of required, preferred and unconstrained")
	}
	for _, l := range []struct {
		name  string
		value *string
	}{{"required", r.Required}, {"preferred", r.Preferred}} {
		if l.value == nil {
			continue
		}
		if len(*l.value) > 63 {
			return o.failf(nil, field+"."+l.name, "Too long: may not be more than 63 bytes")
		}
		if err := schema.LabelKeyError(*l.value); err != nil {
			return o.fail(nil, field+"."+l.name, err)
		}
	}
	ann := map[string]string{}
	for key, value := range ps.Template.Metadata.Annotations {
		if key != kueueRequired && key != kueuePreferred && key != kueueUnconstrained {
			ann[key] = value
		}
	}
	switch {
	case r.Required != nil:
		ann[kueueRequired] = *r.Required
	case r.Preferred != nil:
		ann[kueuePreferred] = *r.Preferred
	case r.Unconstrained != nil:
		ann[kueueUnconstrained] = strconv.FormatBool(*r.Unconstrained)
	}
	ps.Template.Metadata.Annotations = ann
	return nil
}

// members lists the pods a Workload made, each with its pod set's
// template annotations and its set: each pod set is a topology group.
func (v *kueueWorkload) members(mp madePods) []*member {
	out := make([]*member, 0, mp.to-mp.from)
	for i := mp.from; i < mp.to; i++ {
		set := v.sets[i-mp.from]
		ps := &v.Spec.PodSets[set]
		out = append(out, &member{in: mp.d.in, index: i, o: mp.d.o, meta: fmt.Sprintf("spec.podSets[%d].template.metadata", set),
			ann: ps.Template.Metadata.Annotations, set: mp.d.o.name + "-" + kueuePodSetName(ps), fields: kueueRequestFields(ps, set)})
	}
	return out
}

// kueueRequestFields are the fields of a pod set's topology request that
// stand for the topology annotations (checkTopologyRequest), by
// annotation.
func kueueRequestFields(ps *kueuePodSet, set int) map[string]string {
	r := ps.TopologyRequest
	if r == nil {
		return nil
	}
	field := fmt.Sprintf("spec.podSets[%d].topologyRequest.", set)
	switch {
	case r.Required != nil:
		return map[string]string{kueueRequired: field + "required"}
	case r.Preferred != nil:
		return map[string]string{kueuePreferred: field + "preferred"}
	case r.Unconstrained != nil:
		return map[string]string{kueueUnconstrained: field + "unconstrained"}
	}
	return nil
}

// kueuePodPriorityClass is the pod priority class a Workload names (a
// scheduling.k8s.io PriorityClass, which Kueue takes from the job's pods),
// or "".
func kueuePodPriorityClass(v *kueueWorkload) string {
	if r := v.Spec.PriorityClassRef; r != nil && r.Group == "scheduling.k8s.io" {
		return r.Name
	}
	if v.Spec.PriorityClassSrc == "scheduling.k8s.io/priorityclass" {
		return v.Spec.PriorityClassName
	}
	return ""
}
