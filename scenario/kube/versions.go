package kube

import (
	"fmt"
	"maps"
	"strings"

	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// The scheduling.k8s.io objects of workload-aware scheduling changed shape
// from one Kubernetes release to the next, and a cluster serves the
// versions of its release. The importer reads every version a cluster of
// v1.35 to v1.37 serves into v1.37's model (docs/kubernetes-inputs.md,
// "Workload and PodGroup versions"):
//
//   - v1alpha1 (v1.35): a Workload lists its pod groups inline
//     (spec.podGroups[]: name and policy), and a pod names its group by
//     spec.workloadRef {name, podGroup, podGroupReplicaKey}. Each group
//     the pods name becomes a PodGroup <workload>-<podGroup>, one per
//     replica key (<workload>-<podGroup>-<key>), which they join.
//   - v1alpha2 (v1.36): PodGroups stand alone, made by controllers from a
//     Workload's podGroupTemplates; disruptionMode is a string (Pod or
//     PodGroup, v1.37's single and all) and podGroupTemplateRef is v1.37's
//     workloadRef.
//   - v1alpha3 and v1beta1 (v1.37): the model's own shape.
//
// A Workload of v1alpha2 and later holds templates only: kube-scheduler
// schedules the PodGroups controllers make from them, so a Workload is
// read and checked and makes nothing, with a warning.

// The API group and versions of workload-aware scheduling.
const (
	schedulingGroup = "scheduling.k8s.io"
	v1alpha1        = schedulingGroup + "/v1alpha1"
	v1alpha2        = schedulingGroup + "/v1alpha2"
	v1alpha3        = schedulingGroup + "/v1alpha3"
	v1beta1         = schedulingGroup + "/v1beta1"
)

// maxTemplates is the API server's limit on a Workload's pod groups (or
// templates), and on each list of a composite template; maxTreeDepth that
// on the nesting of v1.37's templates.
const (
	maxTemplates = 8
	maxTreeDepth = 4
)

func init() {
	kubeVersionedKinds[v1alpha2+" PodGroup"] = kubeKind{[]string{v1alpha2}, true, func() any { return new(kubePodGroupV1alpha2) }}
	kubeVersionedKinds[v1alpha1+" Workload"] = kubeKind{[]string{v1alpha1}, true, func() any { return new(kubeWorkloadV1alpha1) }}
	kubeVersionedKinds[v1alpha2+" Workload"] = kubeKind{[]string{v1alpha2}, true, func() any { return new(kubeWorkloadV1alpha2) }}
}

// kubeGangPolicy is the scheduling policy union of every version (v1alpha1
// calls the field policy, later versions schedulingPolicy).
type kubeGangPolicy struct {
	Basic *struct{} `yaml:"basic"`
	Gang  *struct {
		MinCount *int32 `yaml:"minCount"`
	} `yaml:"gang"`
}

// kubeTopology is a group's schedulingConstraints.
type kubeTopology struct {
	Topology []struct {
		Key string `yaml:"key"`
	} `yaml:"topology"`
}

// kubePodGroupV1alpha2 is a v1.36 PodGroup.
type kubePodGroupV1alpha2 struct {
	kubeHead `yaml:",inline"`
	Spec     struct {
		PodGroupTemplateRef *struct {
			Workload *struct {
				WorkloadName         string `yaml:"workloadName"`
				PodGroupTemplateName string `yaml:"podGroupTemplateName"`
			} `yaml:"workload"`
		} `yaml:"podGroupTemplateRef"`
		SchedulingPolicy      *kubeGangPolicy           `yaml:"schedulingPolicy"`
		SchedulingConstraints *kubeTopology             `yaml:"schedulingConstraints"`
		ResourceClaims        []schema.PodResourceClaim `yaml:"resourceClaims"`
		DisruptionMode        *string                   `yaml:"disruptionMode"`
		PriorityClassName     string                    `yaml:"priorityClassName"`
		Priority              *int32                    `yaml:"priority"`
	} `yaml:"spec"`
	Status skipped `yaml:"status"`
}

// kubeWorkloadV1alpha1 is a v1.35 Workload: its pod groups inline.
type kubeWorkloadV1alpha1 struct {
	kubeHead `yaml:",inline"`
	Spec     struct {
		ControllerRef skipped `yaml:"controllerRef"`
		PodGroups     []struct {
			Name   string          `yaml:"name"`
			Policy *kubeGangPolicy `yaml:"policy"`
		} `yaml:"podGroups"`
	} `yaml:"spec"`
}

// kubePodGroupTemplateV1alpha2 is a v1.36 Workload's template.
type kubePodGroupTemplateV1alpha2 struct {
	Name                  string          `yaml:"name"`
	SchedulingPolicy      *kubeGangPolicy `yaml:"schedulingPolicy"`
	SchedulingConstraints *kubeTopology   `yaml:"schedulingConstraints"`
	ResourceClaims        unmodelled      `yaml:"resourceClaims"`
	DisruptionMode        *string         `yaml:"disruptionMode"`
	PriorityClassName     string          `yaml:"priorityClassName"`
	Priority              *int32          `yaml:"priority"`
}

// kubeWorkloadV1alpha2 is a v1.36 Workload: templates of PodGroups.
type kubeWorkloadV1alpha2 struct {
	kubeHead `yaml:",inline"`
	Spec     struct {
		ControllerRef     skipped                        `yaml:"controllerRef"`
		PodGroupTemplates []kubePodGroupTemplateV1alpha2 `yaml:"podGroupTemplates"`
	} `yaml:"spec"`
}

// kubeUnion is a v1.37 disruption mode.
type kubeUnion struct {
	Single *struct{} `yaml:"single"`
	All    *struct{} `yaml:"all"`
}

// kubeTemplateCommon holds what v1.37's templates of both kinds share.
type kubeTemplateCommon struct {
	Name                  string        `yaml:"name"`
	SchedulingConstraints *kubeTopology `yaml:"schedulingConstraints"`
	DisruptionMode        *kubeUnion    `yaml:"disruptionMode"`
	PriorityClassName     string        `yaml:"priorityClassName"`
	Priority              *int32        `yaml:"priority"`
	PreemptionPolicy      string        `yaml:"preemptionPolicy"`
}

// kubePodGroupTemplate is a v1.37 PodGroup template.
type kubePodGroupTemplate struct {
	kubeTemplateCommon `yaml:",inline"`
	SchedulingPolicy   *kubeGangPolicy `yaml:"schedulingPolicy"`
	ResourceClaims     unmodelled      `yaml:"resourceClaims"`
}

// kubeCompositeTemplate is a v1.37 CompositePodGroup template, with its
// children.
type kubeCompositeTemplate struct {
	kubeTemplateCommon `yaml:",inline"`
	SchedulingPolicy   *struct {
		Basic *struct{} `yaml:"basic"`
		Gang  *struct {
			MinGroupCount *int32 `yaml:"minGroupCount"`
		} `yaml:"gang"`
	} `yaml:"schedulingPolicy"`
	PodGroupTemplates          []kubePodGroupTemplate  `yaml:"podGroupTemplates"`
	CompositePodGroupTemplates []kubeCompositeTemplate `yaml:"compositePodGroupTemplates"`
}

// kubeWorkload is a v1.37 Workload (v1beta1 and v1alpha3).
type kubeWorkload struct {
	kubeHead `yaml:",inline"`
	Spec     struct {
		ControllerRef              skipped                 `yaml:"controllerRef"`
		PodGroupTemplates          []kubePodGroupTemplate  `yaml:"podGroupTemplates"`
		CompositePodGroupTemplates []kubeCompositeTemplate `yaml:"compositePodGroupTemplates"`
	} `yaml:"spec"`
}

// kubeWorkloadRef is a v1.35 pod's spec.workloadRef.
type kubeWorkloadRef struct {
	Name               string `yaml:"name"`
	PodGroup           string `yaml:"podGroup"`
	PodGroupReplicaKey string `yaml:"podGroupReplicaKey"`
}

// versionNote says, once per kind and version, how an older version is
// read into v1.37's model.
func (k *kubeImport) versionNote(o *Object, detail string) {
	k.ws.Add(o.kind, "apiVersion "+o.apiVersion, detail, o.file+": "+o.ref())
}

// policyOf checks a policy union (field is its path) and returns the
// gang's minCount, nil for basic.
func policyOf(o *Object, p *kubeGangPolicy, field string) (*int32, error) {
	if p == nil {
		return nil, o.failf(nil, field, "required")
	}
	switch {
	case (p.Basic != nil) == (p.Gang != nil):
		return nil, o.failf(nil, field, "exactly one of basic and gang")
	case p.Gang != nil && p.Gang.MinCount == nil:
		return nil, o.failf(nil, field+".gang.minCount", "required")
	case p.Gang != nil && *p.Gang.MinCount < 1:
		return nil, o.failf(nil, field+".gang.minCount", "%d is below 1", *p.Gang.MinCount)
	case p.Gang != nil:
		return p.Gang.MinCount, nil
	}
	return nil, nil
}

// topologyOf checks schedulingConstraints (field is its path) and returns
// the topology key.
func topologyOf(o *Object, t *kubeTopology, field string) (string, error) {
	if t == nil {
		return "", nil
	}
	switch len(t.Topology) {
	case 0:
		return "", nil
	case 1:
		if t.Topology[0].Key == "" {
			return "", o.failf(nil, field+".topology[0].key", "required")
		}
		return t.Topology[0].Key, nil
	}
	return "", o.failf(nil, field+".topology", "at most one topology constraint (has %d)", len(t.Topology))
}

// disruptionV1alpha2 maps v1.36's disruption mode onto v1.37's union: Pod
// is single, PodGroup all.
func disruptionV1alpha2(o *Object, mode *string, field string) (string, error) {
	if mode == nil {
		return "", nil
	}
	switch *mode {
	case "Pod":
		return "Single", nil
	case "PodGroup":
		return "All", nil
	}
	hint := ""
	if m := strings.ToLower(*mode); m == "single" || m == "all" {
		hint = fmt.Sprintf(" (v1.37's {%s: {}} is a field of v1alpha3 and v1beta1)", m)
	}
	return "", o.failf(nil, field, "%q is not Pod or PodGroup%s", *mode, hint)
}

// podGroupV1alpha2 converts a v1.36 PodGroup.
func (k *kubeImport) podGroupV1alpha2(o *Object, v *kubePodGroupV1alpha2, f *schema.File) error {
	spec := &v.Spec
	s := schema.PodGroup{GroupCommon: schema.GroupCommon{Line: o.line, Name: o.name, Namespace: o.namespace,
		Priority: spec.Priority, PriorityClassName: spec.PriorityClassName, Origin: newOrigin(o, kubeGroupFieldsV1alpha2)},
		ResourceClaims: spec.ResourceClaims}
	if err := checkName(o, false); err != nil {
		return err
	}
	if ref := spec.PodGroupTemplateRef; ref != nil {
		if ref.Workload == nil {
			return o.failf(nil, "spec.podGroupTemplateRef", "exactly one reference: workload is required")
		}
		if err := checkRefNames(o, "spec.podGroupTemplateRef.workload", ref.Workload.WorkloadName, "workloadName", ref.Workload.PodGroupTemplateName, "podGroupTemplateName"); err != nil {
			return err
		}
	}
	var err error
	if s.MinCount, err = policyOf(o, spec.SchedulingPolicy, "spec.schedulingPolicy"); err != nil {
		return err
	}
	if s.TopologyKey, err = topologyOf(o, spec.SchedulingConstraints, "spec.schedulingConstraints"); err != nil {
		return err
	}
	if s.DisruptionMode, err = disruptionV1alpha2(o, spec.DisruptionMode, "spec.disruptionMode"); err != nil {
		return err
	}
	k.versionNote(o, "Kubernetes v1.36's PodGroup, read as v1.37's: disruptionMode Pod is {single: {}} and PodGroup is {all: {}}; "+
		"podGroupTemplateRef is v1.37's workloadRef, a reference only")
	f.PodGroups = append(f.PodGroups, s)
	return nil
}

// kubeGroupFieldsV1alpha2 translate a v1.36 PodGroup's entry fields.
var kubeGroupFieldsV1alpha2 = map[string]string{"name": "metadata.name", "namespace": "metadata.namespace",
	"topologyKey": "spec.schedulingConstraints.topology[0].key", "minCount": "spec.schedulingPolicy.gang.minCount",
	"resourceClaims": "spec.resourceClaims", "": "spec"}

// checkRefNames checks the two names of a reference to a Workload's
// template: the Workload's a DNS subdomain, the template's a DNS label.
func checkRefNames(o *Object, at, workload, workloadField, template, templateField string) error {
	if workload == "" {
		return o.failf(nil, at+"."+workloadField, "required")
	}
	if err := schema.NameError(workload, false); err != nil {
		return o.fail(nil, at+"."+workloadField, err)
	}
	if template == "" {
		return o.failf(nil, at+"."+templateField, "required")
	}
	if err := schema.NameError(template, true); err != nil {
		return o.fail(nil, at+"."+templateField, err)
	}
	return nil
}

// templateNames checks a template's name (a DNS label, once in the
// Workload); seen holds the names met so far.
func templateNames(o *Object, name, field string, seen map[string]bool) error {
	if name == "" {
		return o.failf(nil, field+".name", "required")
	}
	if err := schema.NameError(name, true); err != nil {
		return o.fail(nil, field+".name", err)
	}
	if seen[name] {
		return o.failf(nil, field+".name", "%q is given twice in the Workload", name)
	}
	seen[name] = true
	return nil
}

// entryPath is the path of a list's entry, with its name as the decoder's
// errors give it: "spec.podGroupTemplates[1] (workers)".
func entryPath(list string, i int, name string) string {
	if name == "" {
		return fmt.Sprintf("%s[%d]", list, i)
	}
	return fmt.Sprintf("%s[%d] (%s)", list, i, name)
}

// listSize checks the length of a list of groups or templates.
func listSize(o *Object, n int, field string, required bool) error {
	switch {
	case n == 0 && required:
		return o.failf(nil, field, "required: at least one")
	case n > maxTemplates:
		return o.failf(nil, field, "%d entries, more than %d", n, maxTemplates)
	}
	return nil
}

// v1alpha1Workload is a v1.35 Workload the pods may name.
type v1alpha1Workload struct {
	o      *Object
	f      *schema.File
	groups map[string]*int32 // minCount by pod group name; nil: basic
	order  []string
}

// workloadOnce checks a Workload's name, and that no other Workload of
// any version has it in its namespace (the builder never sees them).
func (k *kubeImport) workloadOnce(o *Object) error {
	if err := checkName(o, false); err != nil {
		return err
	}
	key := [2]string{o.namespace, o.name}
	if first, dup := k.workloads[key]; dup {
		return o.failf(nil, "metadata.name", "Workload %s/%s is defined twice: first in %s, line %d (%s)", o.namespace, o.name, first.file, first.line, first.ref())
	}
	if k.workloads == nil {
		k.workloads = map[[2]string]*Object{}
	}
	k.workloads[key] = o
	return nil
}

// workloadV1alpha1 checks a v1.35 Workload and keeps its groups for the
// pods that name them (workloadRefs).
func (k *kubeImport) workloadV1alpha1(o *Object, v *kubeWorkloadV1alpha1, f *schema.File) error {
	if err := k.workloadOnce(o); err != nil {
		return err
	}
	if err := listSize(o, len(v.Spec.PodGroups), "spec.podGroups", true); err != nil {
		return err
	}
	w := &v1alpha1Workload{o: o, f: f, groups: map[string]*int32{}}
	seen := map[string]bool{}
	for i, g := range v.Spec.PodGroups {
		field := entryPath("spec.podGroups", i, g.Name)
		if err := templateNames(o, g.Name, field, seen); err != nil {
			return err
		}
		n, err := policyOf(o, g.Policy, field+".policy")
		if err != nil {
			return err
		}
		w.groups[g.Name] = n
		w.order = append(w.order, g.Name)
	}
	if k.v1alpha1 == nil {
		k.v1alpha1 = map[[2]string]*v1alpha1Workload{}
	}
	k.v1alpha1[[2]string{o.namespace, o.name}] = w
	k.versionNote(o, "Kubernetes v1.35's Workload, read into v1.37's PodGroups: each of spec.podGroups that pods name by spec.workloadRef "+
		"is a PodGroup <workload>-<podGroup> (<workload>-<podGroup>-<podGroupReplicaKey> for each replica key the pods give), with its policy")
	return nil
}

// workloadV1alpha2 checks a v1.36 Workload; it makes nothing.
func (k *kubeImport) workloadV1alpha2(o *Object, v *kubeWorkloadV1alpha2) error {
	if err := k.workloadOnce(o); err != nil {
		return err
	}
	if err := listSize(o, len(v.Spec.PodGroupTemplates), "spec.podGroupTemplates", true); err != nil {
		return err
	}
	seen := map[string]bool{}
	var prio *priorityOf
	for i, t := range v.Spec.PodGroupTemplates {
		field := entryPath("spec.podGroupTemplates", i, t.Name)
		if err := templateNames(o, t.Name, field, seen); err != nil {
			return err
		}
		if _, err := policyOf(o, t.SchedulingPolicy, field+".schedulingPolicy"); err != nil {
			return err
		}
		if _, err := topologyOf(o, t.SchedulingConstraints, field+".schedulingConstraints"); err != nil {
			return err
		}
		if _, err := disruptionV1alpha2(o, t.DisruptionMode, field+".disruptionMode"); err != nil {
			return err
		}
		if err := prio.same(o, field, t.PriorityClassName, t.Priority, &prio); err != nil {
			return err
		}
	}
	k.workloadNote(o)
	return nil
}

// workloadV1 checks a v1.37 Workload (v1beta1, v1alpha3); it makes
// nothing.
func (k *kubeImport) workloadV1(o *Object, v *kubeWorkload) error {
	if err := k.workloadOnce(o); err != nil {
		return err
	}
	pgs, cpgs := len(v.Spec.PodGroupTemplates), len(v.Spec.CompositePodGroupTemplates)
	if (pgs > 0) == (cpgs > 0) {
		return o.failf(nil, "spec", "exactly one of podGroupTemplates and compositePodGroupTemplates")
	}
	c := &templateCheck{o: o, seen: map[string]bool{}}
	if err := c.podGroups(v.Spec.PodGroupTemplates, "spec.podGroupTemplates"); err != nil {
		return err
	}
	if err := c.composites(v.Spec.CompositePodGroupTemplates, "spec.compositePodGroupTemplates", 1); err != nil {
		return err
	}
	k.workloadNote(o)
	return nil
}

// workloadNote warns, once for all Workloads of v1.36 and later, that a
// Workload makes no group.
func (k *kubeImport) workloadNote(o *Object) {
	k.ws.Add(o.kind, "", "templates only, read and checked: kube-scheduler schedules the PodGroups controllers make from a Workload's templates, "+
		"and a Workload alone makes none", o.file+": "+o.ref())
}

// priorityOf is the priority of a Workload's first template, which every
// other template must repeat.
type priorityOf struct {
	class string
	value *int32
	field string
}

// same checks that a template's priority is the first's; the first sets
// it (*first).
func (p *priorityOf) same(o *Object, field, class string, value *int32, first **priorityOf) error {
	if p == nil {
		*first = &priorityOf{class, value, field}
		return nil
	}
	differs := p.class != class || (p.value == nil) != (value == nil) || (p.value != nil && *p.value != *value)
	if differs {
		return o.failf(nil, field, "priority and priorityClassName differ from %s's: all priority and priorityClassName values must be identical", p.field)
	}
	return nil
}

// templateCheck walks a v1.37 Workload's tree of templates.
type templateCheck struct {
	o    *Object
	seen map[string]bool
	prio *priorityOf
}

func (c *templateCheck) common(t *kubeTemplateCommon, field string) error {
	o := c.o
	if err := templateNames(o, t.Name, field, c.seen); err != nil {
		return err
	}
	if _, err := topologyOf(o, t.SchedulingConstraints, field+".schedulingConstraints"); err != nil {
		return err
	}
	if dm := t.DisruptionMode; dm != nil && (dm.Single != nil) == (dm.All != nil) {
		return o.failf(nil, field+".disruptionMode", "exactly one of single and all")
	}
	switch t.PreemptionPolicy {
	case "", "PreemptLowerPriority", "Never":
	default:
		return o.failf(nil, field+".preemptionPolicy", "%q is not PreemptLowerPriority or Never", t.PreemptionPolicy)
	}
	return c.prio.same(o, field, t.PriorityClassName, t.Priority, &c.prio)
}

func (c *templateCheck) podGroups(ts []kubePodGroupTemplate, field string) error {
	if err := listSize(c.o, len(ts), field, false); err != nil {
		return err
	}
	for i := range ts {
		at := entryPath(field, i, ts[i].Name)
		if err := c.common(&ts[i].kubeTemplateCommon, at); err != nil {
			return err
		}
		if _, err := policyOf(c.o, ts[i].SchedulingPolicy, at+".schedulingPolicy"); err != nil {
			return err
		}
	}
	return nil
}

func (c *templateCheck) composites(ts []kubeCompositeTemplate, field string, depth int) error {
	o := c.o
	if err := listSize(o, len(ts), field, false); err != nil {
		return err
	}
	for i := range ts {
		t := &ts[i]
		at := entryPath(field, i, t.Name)
		if depth >= maxTreeDepth {
			return o.failf(nil, at, "templates nested deeper than %d levels", maxTreeDepth)
		}
		if err := c.common(&t.kubeTemplateCommon, at); err != nil {
			return err
		}
		p := t.SchedulingPolicy
		switch {
		case p == nil:
			return o.failf(nil, at+".schedulingPolicy", "required")
		case (p.Basic != nil) == (p.Gang != nil):
			return o.failf(nil, at+".schedulingPolicy", "exactly one of basic and gang")
		case p.Gang != nil && p.Gang.MinGroupCount == nil:
			return o.failf(nil, at+".schedulingPolicy.gang.minGroupCount", "required")
		case p.Gang != nil && *p.Gang.MinGroupCount < 1:
			return o.failf(nil, at+".schedulingPolicy.gang.minGroupCount", "%d is below 1", *p.Gang.MinGroupCount)
		}
		if len(t.PodGroupTemplates)+len(t.CompositePodGroupTemplates) == 0 {
			return o.failf(nil, at, "a composite template has at least one child template")
		}
		if err := c.podGroups(t.PodGroupTemplates, at+".podGroupTemplates"); err != nil {
			return err
		}
		if err := c.composites(t.CompositePodGroupTemplates, at+".compositePodGroupTemplates", depth+1); err != nil {
			return err
		}
	}
	return nil
}

// workloadRefUse is a pod that names a v1.35 Workload's group.
type workloadRefUse struct {
	o     *Object
	ref   kubeWorkloadRef
	field string // where the pod gives it: "spec.workloadRef", "spec.template.spec.workloadRef"
	group string // the PodGroup's name
	// the pod's priority, which its group takes (v1.35's groups have none)
	priorityClass string
	priority      *int32
}

// workloadRefGroup is the name of the PodGroup a v1.35 pod's workloadRef
// stands for, after its checks.
func workloadRefGroup(o *Object, r *kubeWorkloadRef, field string) (string, error) {
	if r.Name == "" {
		return "", o.failf(nil, field+".name", "required")
	}
	if err := schema.NameError(r.Name, false); err != nil {
		return "", o.fail(nil, field+".name", err)
	}
	if r.PodGroup == "" {
		return "", o.failf(nil, field+".podGroup", "required")
	}
	if err := schema.NameError(r.PodGroup, true); err != nil {
		return "", o.fail(nil, field+".podGroup", err)
	}
	name := r.Name + "-" + r.PodGroup
	if r.PodGroupReplicaKey != "" {
		if err := schema.NameError(r.PodGroupReplicaKey, true); err != nil {
			return "", o.fail(nil, field+".podGroupReplicaKey", err)
		}
		name += "-" + r.PodGroupReplicaKey
	}
	if err := schema.NameError(name, false); err != nil {
		return "", o.fail(nil, field, fmt.Errorf("the PodGroup it stands for, %s, is not a valid name: %w", name, err))
	}
	return name, nil
}

// workloadRefs makes the PodGroups that v1.35 pods name by
// spec.workloadRef, from their Workloads, in the order the pods first name
// them; a group no Workload of the inputs defines is left undefined, and
// its pods wait for it, as kube-scheduler v1.35 leaves them unschedulable.
func (k *kubeImport) workloadRefs() {
	made := map[[2]string]bool{}
	for _, u := range k.refUses {
		key := [2]string{u.o.namespace, u.group}
		if made[key] {
			continue
		}
		made[key] = true
		first := u.o.file + ": " + u.o.ref()
		w := k.v1alpha1[[2]string{u.o.namespace, u.ref.Name}]
		if w == nil {
			k.ws.Add(u.o.kind, u.field, "names a Workload no input defines: the pod waits for it, as kube-scheduler v1.35 leaves it unschedulable", first)
			continue
		}
		n, ok := w.groups[u.ref.PodGroup]
		if !ok {
			k.ws.Add(u.o.kind, u.field+".podGroup", fmt.Sprintf("names a pod group its Workload does not have (it has %s): the pod waits, as kube-scheduler v1.35 leaves it unschedulable",
				strings.Join(w.order, ", ")), first)
			continue
		}
		w.f.PodGroups = append(w.f.PodGroups, schema.PodGroup{GroupCommon: schema.GroupCommon{Line: w.o.line, Name: u.group,
			Namespace: w.o.namespace, PriorityClassName: u.priorityClass, Priority: u.priority, Origin: newOrigin(w.o, kubeMetaFields)}, MinCount: n})
	}
}

// workloadRef reads a v1.35 pod's spec.workloadRef as v1.37's
// spec.schedulingGroup: the pod joins the PodGroup its Workload's group
// becomes (workloadRefs makes it once every object is read).
func (k *kubeImport) workloadRef(o *Object, src *schema.Origin, r *kubeWorkloadRef, s *schema.Pod) error {
	field := src.Spec + ".workloadRef"
	if s.PodGroup != "" {
		return o.failf(nil, field, "a pod names its group once: spec.workloadRef (Kubernetes v1.35) and spec.schedulingGroup (v1.36 and later) are both given")
	}
	name, err := workloadRefGroup(o, r, field)
	if err != nil {
		return err
	}
	s.PodGroup = name
	fields := maps.Clone(src.Fields)
	fields["podGroup"] = "{spec}.workloadRef"
	origin := *src
	origin.Fields = fields
	s.Origin = &origin
	k.refUses = append(k.refUses, workloadRefUse{o: o, ref: *r, field: field, group: name,
		priorityClass: s.PriorityClassName, priority: s.Priority})
	k.ws.Add(o.kind, field, "Kubernetes v1.35's reference to a Workload's pod group, read as v1.37's spec.schedulingGroup: "+
		"the pod joins the PodGroup <workload>-<podGroup>[-<podGroupReplicaKey>] made from its Workload", o.file+": "+o.ref())
	return nil
}
