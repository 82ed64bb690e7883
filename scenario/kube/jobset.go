package kube

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/controllers"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// A JobSet (jobset.x-k8s.io/v1alpha2) runs a set of Jobs: each replicated
// job makes replicas Jobs named <jobset>-<replicatedJob>-<index>, Indexed
// unless its template says otherwise, whose pods carry the JobSet's
// labels. The importer checks the spec as JobSet's webhook does and
// records a parent controller (controllers.Parent) and a Job controller
// per Job; the controllers make every pod while running, from time 0.
// A TrainJob makes its JobSet from its runtime's template
// (trainjob.go), through the same code.

// The keys JobSet gives its Jobs and their pods, and reads.
const (
	jsLabel         = "jobset.sigs.k8s.io/"
	jsExclusive     = "alpha.jobset.sigs.k8s.io/exclusive-topology"
	jsNodeSelector  = "alpha.jobset.sigs.k8s.io/node-selector"
	jsNamespacedJob = "alpha.jobset.sigs.k8s.io/namespaced-job"
	jsNoSchedule    = "alpha.jobset.sigs.k8s.io/no-schedule"
	jsController    = "jobset.sigs.k8s.io/jobset-controller"
)

type kubeJobSet struct {
	kubeHead `yaml:",inline"`
	Spec     kubeJobSetSpec `yaml:"spec"`
	Status   skipped        `yaml:"status"`
}

type kubeJobSetSpec struct {
	ReplicatedJobs []kubeReplicatedJob `yaml:"replicatedJobs"`
	Network        *struct {
		EnableDNSHostnames       *bool   `yaml:"enableDNSHostnames"`
		Subdomain                string  `yaml:"subdomain"`
		PublishNotReadyAddresses skipped `yaml:"publishNotReadyAddresses"`
	} `yaml:"network"`
	SuccessPolicy *struct {
		Operator             string   `yaml:"operator"`
		TargetReplicatedJobs []string `yaml:"targetReplicatedJobs"`
	} `yaml:"successPolicy"`
	FailurePolicy *struct {
		MaxRestarts     *int32 `yaml:"maxRestarts"`
		RestartStrategy string `yaml:"restartStrategy"`
		Rules           []struct {
			Name                        string     `yaml:"name"`
			Action                      string     `yaml:"action"`
			OnJobFailureReasons         []string   `yaml:"onJobFailureReasons"`
			OnJobFailureMessagePatterns unmodelled `yaml:"onJobFailureMessagePatterns"`
			TargetReplicatedJobs        []string   `yaml:"targetReplicatedJobs"`
		} `yaml:"rules"`
	} `yaml:"failurePolicy"`
	StartupPolicy *struct {
		StartupPolicyOrder string `yaml:"startupPolicyOrder"`
	} `yaml:"startupPolicy"`
	Suspend     *bool `yaml:"suspend"`
	Coordinator *struct {
		ReplicatedJob string `yaml:"replicatedJob"`
		JobIndex      int    `yaml:"jobIndex"`
		PodIndex      int    `yaml:"podIndex"`
	} `yaml:"coordinator"`
	ManagedBy               string     `yaml:"managedBy"`
	TTLSecondsAfterFinished skipped    `yaml:"ttlSecondsAfterFinished"` // a finished JobSet's pods hold nothing
	VolumeClaimPolicies     unmodelled `yaml:"volumeClaimPolicies"`
}

type kubeReplicatedJob struct {
	Name      string `yaml:"name"`
	GroupName string `yaml:"groupName"`
	Replicas  *int32 `yaml:"replicas"`
	DependsOn []struct {
		Name   string `yaml:"name"`
		Status string `yaml:"status"`
	} `yaml:"dependsOn"`
	Template struct {
		Metadata kubeMeta    `yaml:"metadata"`
		Spec     kubeJobSpec `yaml:"spec"`
	} `yaml:"template"`
}

// jobSetSource is where a JobSet's spec comes from: a JobSet, or a
// TrainJob and its runtime.
type jobSetSource struct {
	o               *Object // the object holding the spec's fields
	at              string  // the spec's path in o: "spec", "spec.template.spec"
	ref             string  // the object the JobSet stands for, as messages name it
	refFile         string  // its file, when not o's
	name, namespace string  // the JobSet's
	annotations     map[string]string
	uid             string
	created         time.Time
	podLabels       map[string]string // added to every pod (a TrainJob's)
	podGroup        string            // the gang every pod joins; "" for none
	kind            string            // the kind the JobSet is reported as: "TrainJob"; "" for a JobSet
	// count, when set, overrides a replicated job's parallelism and
	// completions (a TrainJob's numNodes), by its index
	count func(i int) *int32
	// resources, when set, overrides the requests and limits of a
	// replicated job's container (a TrainJob's resourcesPerNode): its
	// pod's requests, or false
	resources func(i int, spec *kubePodSpec) (*kubePodSpec, bool)
}

// first names the source for a warning.
func (s *jobSetSource) first() string {
	if s.refFile != "" {
		return s.refFile + ": " + s.ref
	}
	return s.o.file + ": " + s.ref
}

// jobSet converts a JobSet.
func (k *kubeImport) jobSet(o *Object, v *kubeJobSet, f *schema.File) error {
	if err := checkName(o, true); err != nil || k.madeByParent(o, &v.Metadata) {
		return err
	}
	created, err := creationTime(o, &v.Metadata)
	if err != nil {
		return err
	}
	return k.jobSetOf(&jobSetSource{o: o, at: "spec", ref: o.ref(), name: o.name, namespace: o.namespace,
		annotations: v.Metadata.Annotations, uid: v.Metadata.UID, created: created}, &v.Spec, f)
}

// The failure reasons of a Job that a JobSet's failure rule may name.
var jobFailureReasons = []string{"BackoffLimitExceeded", "DeadlineExceeded", "PodFailurePolicy", "MaxFailedIndexesExceeded"}

// jobSetOf checks a JobSet's spec as JobSet's webhook does and records its
// controllers: the JobSet's, then a Job's for each Job, in order.
func (k *kubeImport) jobSetOf(src *jobSetSource, spec *kubeJobSetSpec, f *schema.File) error {
	o, at := src.o, src.at
	if spec.ManagedBy != "" && spec.ManagedBy != jsController {
		k.ws.Add(o.kind, at+".managedBy", "another controller makes the Jobs: no pod is made", src.first())
		return nil
	}
	if len(spec.ReplicatedJobs) == 0 {
		return o.failf(nil, at+".replicatedJobs", "required: a JobSet has at least one replicated job")
	}
	p := &controllers.Parent{Clean: controllers.CleanAll, AttemptLabel: jsLabel + "restart-attempt",
		Suspended: spec.Suspend != nil && *spec.Suspend, ReportedAs: src.kind}
	index := map[string]int{}
	replicas := make([]int, len(spec.ReplicatedJobs))
	total := 0
	for i := range spec.ReplicatedJobs {
		rj := &spec.ReplicatedJobs[i]
		where := fmt.Sprintf("%s.replicatedJobs[%d]", at, i)
		if rj.Name == "" {
			return o.failf(nil, where+".name", "required")
		}
		if _, dup := index[rj.Name]; dup {
			return o.failf(nil, where+".name", "%q is the name of replicated job %d too", rj.Name, index[rj.Name])
		}
		index[rj.Name] = i
		replicas[i] = 1
		if r := rj.Replicas; r != nil {
			if *r < 0 {
				return o.failf(nil, where+".replicas", "%d is negative", *r)
			}
			replicas[i] = int(*r)
		}
		// the Jobs' names, and the pods' hostnames after them, are DNS labels
		last := src.name + "-" + rj.Name + "-" + strconv.Itoa(max(replicas[i]-1, 0))
		if err := schema.NameError(last, true); err != nil {
			return o.failf(nil, where+".name", "makes the Job name %s: %v", last, err)
		}
		total += replicas[i]
		role := controllers.Role{Name: rj.Name}
		for j, d := range rj.DependsOn {
			dw := fmt.Sprintf("%s.dependsOn[%d]", where, j)
			if before, ok := index[d.Name]; !ok || before >= i {
				return o.failf(nil, dw+".name", "%q is not a replicated job before this one", d.Name)
			}
			switch d.Status {
			case "Ready", "Complete":
			default:
				return o.failf(nil, dw+".status", "%q is not Ready or Complete", d.Status)
			}
			role.DependsOn = append(role.DependsOn, controllers.Dependency{Role: d.Name, Complete: d.Status == "Complete"})
		}
		if rj.GroupName != "" {
			k.ws.Add(o.kind, where+".groupName", "not modelled: the group's labels are not given to the pods", src.first())
		}
		p.Roles = append(p.Roles, role)
	}
	known := func(field string, names []string) error {
		for j, n := range names {
			if _, ok := index[n]; !ok {
				return o.failf(nil, fmt.Sprintf("%s[%d]", field, j), "%q is not a replicated job of the JobSet", n)
			}
		}
		return nil
	}
	if sp := spec.StartupPolicy; sp != nil {
		switch sp.StartupPolicyOrder {
		case "", "AnyOrder":
		case "InOrder":
			p.InOrder = true
			for i := range spec.ReplicatedJobs {
				if len(spec.ReplicatedJobs[i].DependsOn) > 0 {
					return o.failf(nil, at+".startupPolicy.startupPolicyOrder", "InOrder and dependsOn (replicatedJobs[%d]) cannot be used together", i)
				}
			}
		default:
			return o.failf(nil, at+".startupPolicy.startupPolicyOrder", "%q is not AnyOrder or InOrder", sp.StartupPolicyOrder)
		}
	}
	if sp := spec.SuccessPolicy; sp != nil {
		switch sp.Operator {
		case "", "All":
		case "Any":
			p.SuccessAny = true
		default:
			return o.failf(nil, at+".successPolicy.operator", "%q is not All or Any", sp.Operator)
		}
		if err := known(at+".successPolicy.targetReplicatedJobs", sp.TargetReplicatedJobs); err != nil {
			return err
		}
		p.SuccessTargets = sp.TargetReplicatedJobs
	}
	if fp := spec.FailurePolicy; fp != nil {
		if err := k.failurePolicy(src, spec, p, known); err != nil {
			return err
		}
	}
	coordinator := ""
	if c := spec.Coordinator; c != nil {
		i, ok := index[c.ReplicatedJob]
		switch {
		case !ok:
			return o.failf(nil, at+".coordinator.replicatedJob", "%q is not a replicated job of the JobSet", c.ReplicatedJob)
		case c.JobIndex < 0 || c.JobIndex >= replicas[i]:
			return o.failf(nil, at+".coordinator.jobIndex", "%d is not below the replicated job's %d replicas", c.JobIndex, replicas[i])
		case c.PodIndex < 0:
			return o.failf(nil, at+".coordinator.podIndex", "%d is negative", c.PodIndex)
		}
		subdomain := src.name
		if n := spec.Network; n != nil && n.Subdomain != "" {
			subdomain = n.Subdomain
		}
		coordinator = fmt.Sprintf("%s-%s-%d-%d.%s", src.name, c.ReplicatedJob, c.JobIndex, c.PodIndex, subdomain)
	}

	f.Controllers = append(f.Controllers, schema.Controller{Kind: controllers.KindJobSet, Namespace: src.namespace, Name: src.name,
		Object: src.ref, File: o.file, Line: o.line, Parent: p})
	global := 0
	for i := range spec.ReplicatedJobs {
		// the Jobs made at once: not suspended, depending on none, and
		// under InOrder the first replicated job's alone
		atZero := !p.Suspended && len(p.Roles[i].DependsOn) == 0 && (!p.InOrder || i == 0)
		if err := k.replicatedJob(src, spec, i, replicas, total, &global, coordinator, p, atZero, f); err != nil {
			return err
		}
	}
	return nil
}

// failurePolicy reads a JobSet's failure policy into p.
func (k *kubeImport) failurePolicy(src *jobSetSource, spec *kubeJobSetSpec, p *controllers.Parent, known func(string, []string) error) error {
	o, at, fp := src.o, src.at+".failurePolicy", spec.FailurePolicy
	p.Failure = &controllers.FailurePolicy{}
	if m := fp.MaxRestarts; m != nil {
		if *m < 0 {
			return o.failf(nil, at+".maxRestarts", "%d is negative", *m)
		}
		p.Failure.MaxRestarts = int(*m)
	}
	switch fp.RestartStrategy {
	case "", "Recreate", "BlockingRecreate":
	case "InPlaceRestart":
		k.ws.Add(o.kind, at+".restartStrategy", "InPlaceRestart is not modelled: a restart deletes and makes the pods anew, as Recreate", src.first())
	default:
		return o.failf(nil, at+".restartStrategy", "%q is not Recreate, BlockingRecreate or InPlaceRestart", fp.RestartStrategy)
	}
	names := map[string]bool{}
	for j, r := range fp.Rules {
		rw := fmt.Sprintf("%s.rules[%d]", at, j)
		if r.Name != "" {
			if names[r.Name] {
				return o.failf(nil, rw+".name", "%q names another rule too", r.Name)
			}
			names[r.Name] = true
		}
		action := controllers.FailureAction(r.Action)
		switch action {
		case controllers.FailParent, controllers.RestartAll, controllers.RestartAllUncounted, controllers.RestartChild, controllers.RestartChildFree:
		default:
			return o.failf(nil, rw+".action", "%q is not FailJobSet, RestartJobSet, RestartJobSetAndIgnoreMaxRestarts, RestartJob or RestartJobAndIgnoreMaxRestarts", r.Action)
		}
		for n, reason := range r.OnJobFailureReasons {
			if !slices.Contains(jobFailureReasons, reason) {
				return o.failf(nil, fmt.Sprintf("%s.onJobFailureReasons[%d]", rw, n), "%q is not one of %v", reason, jobFailureReasons)
			}
		}
		if err := known(rw+".targetReplicatedJobs", r.TargetReplicatedJobs); err != nil {
			return err
		}
		p.Failure.Rules = append(p.Failure.Rules, controllers.FailureRule{Action: action, Reasons: r.OnJobFailureReasons, Roles: r.TargetReplicatedJobs})
	}
	return nil
}

// replicatedJob records the Job controllers of replicated job i.
func (k *kubeImport) replicatedJob(src *jobSetSource, spec *kubeJobSetSpec, i int, replicas []int, total int, global *int,
	coordinator string, p *controllers.Parent, atZero bool, f *schema.File) error {
	o := src.o
	rj := &spec.ReplicatedJobs[i]
	where := fmt.Sprintf("%s.replicatedJobs[%d].template", src.at, i)
	js := rj.Template.Spec // the webhook's defaults: Indexed, one pod
	if js.CompletionMode == "" {
		js.CompletionMode = "Indexed"
	}
	if js.Completions == nil && js.Parallelism == nil {
		one := int32(1)
		js.Completions, js.Parallelism = &one, &one
	}
	if src.count != nil {
		if n := src.count(i); n != nil {
			js.Completions, js.Parallelism = n, n
		}
	}
	rules, err := jobRulesAt(o, &js, where+".spec", nil)
	if err != nil {
		return err
	}
	// each Job makes its completions over the run (one at least, the
	// webhook's default), as a Job alone does (jobs.go): replicas times
	// completions are refused now against the limit of pods, before the
	// Jobs and the indexes are listed
	need, field := replicas[i], fmt.Sprintf("%s.replicatedJobs[%d].replicas", src.at, i)
	if c := rules.Completions; c != nil && *c > 1 {
		need, field = replicas[i]*int(*c), where+".spec.completions"
	}
	if err := k.tally.Room(need); err != nil {
		return o.fail(nil, field, err)
	}
	podSpec := &js.Template.Spec
	if src.resources != nil {
		if s, ok := src.resources(i, podSpec); ok {
			podSpec = s
		}
	}
	entry, err := k.childTemplate(src, &js.Template.Metadata, podSpec, where+".spec.template")
	if err != nil {
		return err
	}
	exclusive, nodeSelector := src.annotations[jsExclusive], hasKey(src.annotations, jsNodeSelector)
	if v, ok := rj.Template.Metadata.Annotations[jsExclusive]; ok {
		exclusive, nodeSelector = v, hasKey(rj.Template.Metadata.Annotations, jsNodeSelector)
	}
	if exclusive != "" {
		if err := checkLabelKey(exclusive); err != nil {
			return o.failf(nil, "metadata.annotations["+jsExclusive+"]", "%q is not a label key: %v", exclusive, err)
		}
		if !rules.Indexed && !nodeSelector {
			// the webhook knows a leader by its completion index
			k.ws.Add(o.kind, where+".spec.completionMode", "NonIndexed under exclusive placement: JobSet's webhook would refuse these pods "+
				"(it finds a leader by its completion index); placed here without exclusivity", src.first())
			exclusive = ""
		}
	}
	for j := range replicas[i] {
		name := src.name + "-" + rj.Name + "-" + strconv.Itoa(j)
		labels := maps.Clone(js.Template.Metadata.Labels)
		if labels == nil {
			labels = map[string]string{}
		}
		maps.Copy(labels, src.podLabels)
		for key, v := range map[string]string{
			"jobset-name": src.name, "replicatedjob-name": rj.Name, "restart-attempt": "0",
			"replicatedjob-replicas": strconv.Itoa(replicas[i]), "job-index": strconv.Itoa(j),
			"job-key": jobKey(src.namespace, name), "job-global-index": strconv.Itoa(*global), "global-replicas": strconv.Itoa(total),
		} {
			labels[jsLabel+key] = v
		}
		if src.uid != "" {
			labels[jsLabel+"jobset-uid"] = src.uid
		}
		if coordinator != "" {
			labels[jsLabel+"coordinator"] = coordinator
		}
		labels["batch.kubernetes.io/job-name"], labels["job-name"] = name, name
		*global++
		e := entry
		e.Labels = labels
		e.Controller = &cluster.Owner{Kind: controllers.KindJob, Name: name,
			Selector: &cluster.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/job-name": name}}}
		excl := exclusive
		if excl != "" && nodeSelector {
			// the nodeSelector strategy: the user labels and taints a
			// node pool per Job; the webhook adds nothing
			e.NodeSelector = maps.Clone(e.NodeSelector)
			if e.NodeSelector == nil {
				e.NodeSelector = map[string]string{}
			}
			e.NodeSelector[jsNamespacedJob] = src.namespace + "_" + name
			e.Tolerations = append(slices.Clip(e.Tolerations), schema.Toleration{Key: jsNoSchedule, Operator: "Exists", Effect: "NoSchedule"})
			excl = ""
		}
		c := schema.Controller{Kind: controllers.KindJob, Namespace: src.namespace, Name: name,
			Object: src.ref, File: o.file, Line: o.line, Template: e, Job: rules, Of: p, Role: rj.Name, Exclusive: excl}
		f.Controllers = append(f.Controllers, c)
		if atZero {
			if err := k.firstJobPods(src, &c, where+".spec.parallelism", f); err != nil {
				return err
			}
		}
	}
	return nil
}

// firstJobPods adds the pods a parent's Job makes at once, as the Job
// importer does (the pods of the inputs it has counted): under exclusive
// placement the leader alone, with the affinities JobSet's webhook gives
// it.
func (k *kubeImport) firstJobPods(src *jobSetSource, c *schema.Controller, field string, f *schema.File) error {
	if c.Job.FailsAtStart() {
		return nil // activeDeadlineSeconds 0: it fails as it starts, making no pod
	}
	have := k.owned[kubeOwnerKey{c.Namespace, c.Kind, c.Name}]
	want := max(0, c.Job.WantActive(0, have.activeCount())-have.activeCount())
	t := &kubeTemplate{o: src.o, entry: c.Template, labels: c.Template.Labels, owner: c.Template.Controller}
	if c.Exclusive != "" {
		done := func(i int) bool { return have != nil && have.succeededIndexes[i] }
		taken := func(i int) bool { return have != nil && have.activeIndexes[i] }
		if first := c.Job.PendingIndexes(1, done, taken); len(first) == 0 || first[0] != 0 {
			return nil // the leader runs, or is done: the followers wait for the controller
		}
		want = 1
		t.entry.Affinity = exclusiveAffinity(t.entry.Affinity, jsLabel+"job-key", c.Template.Labels[jsLabel+"job-key"], c.Exclusive, true)
	}
	from := len(f.Pods)
	if !c.Job.Indexed {
		if err := k.addIndexed(f, t, c.Name, want, field, func(int) map[string]string { return nil }); err != nil {
			return err
		}
	} else if err := k.addIndexedJobPods(f, t, c, want, field, have); err != nil {
		return err
	}
	for i := from; i < len(f.Pods); i++ {
		f.Pods[i].Origin.Object = src.ref + " (pod " + f.Pods[i].Name + ")"
		f.Pods[i].Origin.Where = f.Pods[i].Origin.Object
		f.Pods[i] = labelGang(f.Pods[i])
	}
	return nil
}

// exclusiveAffinity returns a copy of a with the terms of an exclusive
// placement on the label key's value, as JobSet's and LeaderWorkerSet's
// webhooks give a leader: a required affinity to the pods of that value
// and anti-affinity to those of any other, in the domains of topology;
// in every namespace when allNamespaces (JobSet's), else the pod's own.
func exclusiveAffinity(a *schema.Affinity, key, value, topology string, allNamespaces bool) *schema.Affinity {
	var out schema.Affinity
	if a != nil {
		out = *a
	}
	var aff, anti schema.PodAffinity
	if out.PodAffinity != nil {
		aff = *out.PodAffinity
	}
	if out.PodAntiAffinity != nil {
		anti = *out.PodAntiAffinity
	}
	var namespaces *schema.LabelSelector
	if allNamespaces {
		namespaces = &schema.LabelSelector{}
	}
	aff.Required = append(slices.Clip(aff.Required), schema.PodAffinityTerm{TopologyKey: topology, NamespaceSelector: namespaces,
		LabelSelector: &schema.LabelSelector{MatchExpressions: []schema.Requirement{{Key: key, Operator: "In", Values: []string{value}}}}})
	anti.Required = append(slices.Clip(anti.Required), schema.PodAffinityTerm{TopologyKey: topology, NamespaceSelector: namespaces,
		LabelSelector: &schema.LabelSelector{MatchExpressions: []schema.Requirement{
			{Key: key, Operator: "Exists"}, {Key: key, Operator: "NotIn", Values: []string{value}}}}})
	out.PodAffinity, out.PodAntiAffinity = &aff, &anti
	return &out
}

// childTemplate makes the pod entry of a template at the path at of the
// source's object, for its pods in the source's namespace; the pods join
// the source's gang, or a scheduler-plugins PodGroup their labels name.
func (k *kubeImport) childTemplate(src *jobSetSource, meta *kubeMeta, spec *kubePodSpec, at string) (schema.Pod, error) {
	o := src.o
	ref := src.ref
	if ref != o.ref() {
		ref += " (" + o.ref() + ")"
	}
	origin := &schema.Origin{Object: ref, Where: ref, Fields: kubePodFields, Spec: at + ".spec", Created: src.created, Lines: o.lines()}
	entry, err := k.podEntry(o, origin, src.name, nil, spec)
	if err != nil {
		return entry, err
	}
	entry.Namespace = src.namespace
	if entry.Duration, err = runTimeOf(o, meta.Annotations, at+".metadata"); err != nil {
		return entry, err
	}
	k.addTemplate(o, at, &entry, meta)
	if src.podGroup != "" {
		entry.PodGroup = src.podGroup
		return entry, nil
	}
	for _, key := range []string{pluginsLabel, legacyLabel} {
		if name, ok := meta.Labels[key]; ok && entry.PodGroup == "" {
			if k.hasPluginsGroup(key, src.namespace, name) {
				entry.PodGroup = name
			} else {
				k.ws.Add(o.kind, at+".metadata.labels["+key+"]", "names a PodGroup no input defines: the pods are scheduled on their own, as Coscheduling schedules them", src.first())
			}
		}
	}
	return entry, nil
}

// hasPluginsGroup reports whether the inputs define the scheduler-plugins
// PodGroup that the label key names in the namespace.
func (k *kubeImport) hasPluginsGroup(key, namespace, name string) bool {
	for _, d := range k.objs {
		if _, ok := d.v.(*pluginsPodGroup); ok && pluginsLabelOf(d.o) == key && d.o.namespace == namespace && d.o.name == name {
			return true
		}
	}
	return false
}

// jobKey is JobSet's job-key label: the SHA-1 of "<namespace>/<job>".
func jobKey(namespace, job string) string {
	h := sha1.Sum([]byte(namespace + "/" + job))
	return hex.EncodeToString(h[:])
}

func hasKey(m map[string]string, key string) bool {
	_, ok := m[key]
	return ok
}

// checkLabelKey checks a topology key as a label key.
func checkLabelKey(key string) error {
	if p := cluster.LabelKeyProblem(key); p != "" {
		return fmt.Errorf("%s", p)
	}
	return nil
}

// madeByParent reports whether the object (a dump's Job or JobSet) was
// made by a JobSet, an MPIJob or a TrainJob of the inputs: that parent's
// controllers run it, and the object is read there, once.
func (k *kubeImport) madeByParent(o *Object, m *kubeMeta) bool {
	ref := controllerOf(m)
	if ref == nil {
		return false
	}
	switch ref.Kind {
	case controllers.KindJobSet, controllers.KindMPIJob, "TrainJob":
	default:
		return false
	}
	for _, d := range k.objs {
		if d.o.kind == ref.Kind && d.o.name == ref.Name && d.o.namespace == o.namespace {
			k.ws.Add(o.kind, "metadata.ownerReferences", fmt.Sprintf("made by the %s of the inputs that controls it: read from it, once", ref.Kind), o.file+": "+o.ref())
			return true
		}
	}
	return false
}
