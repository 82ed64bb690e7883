package kube

import (
	"fmt"
	"hash/fnv"
	"maps"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// A workload makes the pods its controller would create, each arriving at
// time 0 (docs/kubernetes-inputs.md): the replicas it lacks, counting the
// pods of the inputs it controls already. Names are deterministic: where a
// controller adds a random suffix, the importer adds an index.

// workload converts a Deployment, ReplicaSet, StatefulSet, DaemonSet or Job.
func (k *kubeImport) workload(o *Object, v any, f *schema.File) error {
	if err := checkName(o, false); err != nil {
		return err
	}
	switch w := v.(type) {
	case *kubeDeployment:
		return k.deployment(o, w, f)
	case *kubeReplicaSet:
		return k.replicaSet(o, w, f)
	case *kubeStatefulSet:
		return k.statefulSet(o, w, f)
	case *kubeDaemonSet:
		return k.daemonSet(o, w, f)
	case *kubeJob:
		return k.job(o, w, f)
	}
	return nil
}

// kubeTemplate is a workload's template made into a pod entry once; each
// pod copies it and gets its name, labels and source.
type kubeTemplate struct {
	o      *Object
	entry  schema.Pod
	labels map[string]string
	owner  *cluster.Owner
	hash   string
}

// template checks a workload's selector against its template's labels
// (as the API server does; selector nil: the controller makes its own) and
// makes the pod entry every replica copies.
func (k *kubeImport) template(o *Object, meta *kubeMeta, t *kubePodTemplate, sel *schema.LabelSelector, required bool) (*kubeTemplate, error) {
	if sel == nil && required {
		return nil, o.failf(nil, "spec.selector", "required")
	}
	if sel != nil {
		if len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
			return nil, o.failf(nil, "spec.selector", "empty: it would select every pod of the namespace")
		}
		if !sel.Convert().Matches(t.Metadata.Labels) {
			return nil, o.failf(nil, "spec.selector", "%s does not select the pods of spec.template (labels %s)",
				sel.Convert(), (&cluster.LabelSelector{MatchLabels: t.Metadata.Labels}).String())
		}
	}
	created, err := creationTime(o, meta)
	if err != nil {
		return nil, err
	}
	src := &schema.Origin{Object: o.ref(), Where: o.ref(), Fields: kubePodFields, Spec: "spec.template.spec", Created: created, Node: o.node}
	entry, err := k.podEntry(o, src, o.name, nil, &t.Spec)
	if err != nil {
		return nil, err
	}
	owner := &cluster.Owner{Kind: o.kind, Name: o.name, Selector: sel.Convert()}
	return &kubeTemplate{o: o, entry: entry, labels: t.Metadata.Labels, owner: owner, hash: templateHash(o)}, nil
}

// pod makes the pod named name with the template's labels and extra ones.
func (t *kubeTemplate) pod(name string, extra map[string]string) schema.Pod {
	s := t.entry
	s.Name = name
	s.Labels = maps.Clone(t.labels)
	if s.Labels == nil && len(extra) > 0 {
		s.Labels = map[string]string{}
	}
	maps.Copy(s.Labels, extra)
	src := *s.Origin
	src.Object = fmt.Sprintf("%s (pod %s)", t.o.ref(), name)
	src.Where = src.Object
	s.Origin, s.Controller = &src, t.owner
	return s
}

// templateHash is a short, stable name for a template, in the alphabet
// Kubernetes uses for its pod-template-hash labels.
func templateHash(o *Object) string {
	h := fnv.New32a()
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		fmt.Fprintf(h, "%d:%s:%q[", n.Kind, n.Tag, n.Value)
		for _, c := range n.Content {
			walk(c)
		}
		h.Write([]byte("]"))
	}
	if t := schema.MapValue(schema.MapValue(o.node, "spec"), "template"); t != nil {
		walk(t)
	}
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	out := []byte(strconv.FormatUint(uint64(h.Sum32()), 10))
	for i, c := range out {
		out[i] = alphabet[int(c)%len(alphabet)]
	}
	return string(out)
}

// replicas reads a replica count (nil: 1).
func replicas(o *Object, n *int32) (int, error) {
	if n == nil {
		return 1, nil
	}
	if *n < 0 {
		return 0, o.failf(nil, "spec.replicas", "%d is negative", *n)
	}
	return int(*n), nil
}

// addIndexed adds count pods named prefix-0, prefix-1, ..., skipping names
// that pods of the inputs have already.
func (k *kubeImport) addIndexed(f *schema.File, t *kubeTemplate, prefix string, count int, field string, labels func(i int) map[string]string) error {
	if err := k.room(t.o, field, count); err != nil {
		return err
	}
	for i := 0; count > 0; i++ {
		name := prefix + "-" + strconv.Itoa(i)
		if k.podNames[cluster.MakePodKey(t.o.namespace, name)] {
			continue
		}
		k.podNames[cluster.MakePodKey(t.o.namespace, name)] = true
		f.Pods = append(f.Pods, t.pod(name, labels(i)))
		count--
	}
	return nil
}

// deployment makes the pods of its ReplicaSet, named <deployment>-<hash>,
// unless the inputs hold a ReplicaSet it controls: that one makes them.
func (k *kubeImport) deployment(o *Object, v *kubeDeployment, f *schema.File) error {
	n, err := replicas(o, v.Spec.Replicas)
	if err != nil {
		return err
	}
	t, err := k.template(o, &v.Metadata, &v.Spec.Template, v.Spec.Selector, true)
	if err != nil || k.owned[kubeOwnerKey{o.namespace, o.kind, o.name}].childCount() > 0 {
		return err
	}
	rs := o.name + "-" + t.hash
	hash := map[string]string{"pod-template-hash": t.hash}
	sel := *v.Spec.Selector
	sel.MatchLabels = maps.Clone(sel.MatchLabels)
	if sel.MatchLabels == nil {
		sel.MatchLabels = map[string]string{}
	}
	sel.MatchLabels["pod-template-hash"] = t.hash
	t.owner = &cluster.Owner{Kind: "ReplicaSet", Name: rs, Selector: sel.Convert()}
	return k.addIndexed(f, t, rs, n, "spec.replicas", func(int) map[string]string { return hash })
}

func (k *kubeImport) replicaSet(o *Object, v *kubeReplicaSet, f *schema.File) error {
	n, err := replicas(o, v.Spec.Replicas)
	if err != nil {
		return err
	}
	t, err := k.template(o, &v.Metadata, &v.Spec.Template, v.Spec.Selector, true)
	if err != nil {
		return err
	}
	return k.addIndexed(f, t, o.name, n-k.owned[kubeOwnerKey{o.namespace, o.kind, o.name}].activeCount(), "spec.replicas", func(int) map[string]string { return nil })
}

// statefulSet makes the pods name-<ordinal> its set lacks, with the
// labels the controller gives them.
func (k *kubeImport) statefulSet(o *Object, v *kubeStatefulSet, f *schema.File) error {
	n, err := replicas(o, v.Spec.Replicas)
	if err != nil {
		return err
	}
	switch v.Spec.PodManagementPolicy {
	case "", "OrderedReady":
		k.ws.Add(o.kind, "spec.podManagementPolicy", "OrderedReady is not modelled: the pods arrive together, as with Parallel", o.file+": "+o.ref())
	case "Parallel":
	default:
		return o.failf(nil, "spec.podManagementPolicy", "%q is not OrderedReady or Parallel", v.Spec.PodManagementPolicy)
	}
	t, err := k.template(o, &v.Metadata, &v.Spec.Template, v.Spec.Selector, true)
	if err != nil {
		return err
	}
	start := 0
	if v.Spec.Ordinals != nil {
		start = int(v.Spec.Ordinals.Start)
	}
	if err := k.room(o, "spec.replicas", n); err != nil {
		return err
	}
	for i := start; i < start+n; i++ {
		name := o.name + "-" + strconv.Itoa(i)
		if k.podNames[cluster.MakePodKey(o.namespace, name)] {
			continue
		}
		k.podNames[cluster.MakePodKey(o.namespace, name)] = true
		f.Pods = append(f.Pods, t.pod(name, map[string]string{"statefulset.kubernetes.io/pod-name": name,
			"apps.kubernetes.io/pod-index": strconv.Itoa(i), "controller-revision-hash": o.name + "-" + t.hash}))
	}
	return nil
}

// job makes the pods that run at once: parallelism of them, no more than
// the completions left, less those running.
func (k *kubeImport) job(o *Object, v *kubeJob, f *schema.File) error {
	spec := &v.Spec
	if spec.Suspend != nil && *spec.Suspend {
		return nil
	}
	if spec.ManagedBy != "" && spec.ManagedBy != "kubernetes.io/job-controller" {
		k.ws.Add(o.kind, "spec.managedBy", "another controller makes the pods: none are made", o.file+": "+o.ref())
		return nil
	}
	sel := spec.Selector
	if spec.ManualSelector == nil || !*spec.ManualSelector {
		sel = nil // the controller selects by its own labels
	}
	t, err := k.template(o, &v.Metadata, &spec.Template, sel, false)
	if err != nil {
		return err
	}
	want, err := jobActive(o, v, k.owned[kubeOwnerKey{o.namespace, o.kind, o.name}])
	if err != nil {
		return err
	}
	labels := map[string]string{"batch.kubernetes.io/job-name": o.name, "job-name": o.name}
	if uid := v.Metadata.UID; uid != "" {
		labels["batch.kubernetes.io/controller-uid"], labels["controller-uid"] = uid, uid
	}
	if t.owner.Selector == nil {
		t.owner.Selector = &cluster.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/job-name": o.name}}
	}
	indexed := spec.CompletionMode == "Indexed"
	return k.addIndexed(f, t, o.name, want, "spec.parallelism", func(i int) map[string]string {
		if !indexed {
			return labels
		}
		l := maps.Clone(labels)
		l["batch.kubernetes.io/job-completion-index"] = strconv.Itoa(i)
		return l
	})
}

// jobActive is how many more pods a Job runs now.
func jobActive(o *Object, v *kubeJob, have *kubeOwnedCount) (int, error) {
	spec := &v.Spec
	par := 1
	if spec.Parallelism != nil {
		if *spec.Parallelism < 0 {
			return 0, o.failf(nil, "spec.parallelism", "%d is negative", *spec.Parallelism)
		}
		par = int(*spec.Parallelism)
	}
	switch spec.CompletionMode {
	case "", "NonIndexed":
	case "Indexed":
		if spec.Completions == nil {
			return 0, o.failf(nil, "spec.completions", "required when completionMode is Indexed")
		}
	default:
		return 0, o.failf(nil, "spec.completionMode", "%q is not NonIndexed or Indexed", spec.CompletionMode)
	}
	left := par
	switch {
	case spec.Completions != nil && *spec.Completions < 0:
		return 0, o.failf(nil, "spec.completions", "%d is negative", *spec.Completions)
	case spec.Completions != nil:
		left = int(*spec.Completions) - have.succeededCount()
	case have.succeededCount() > 0:
		left = 0 // without completions, the first success completes the Job
	}
	return max(0, min(par, left)-have.activeCount()), nil
}

func (c *kubeOwnedCount) activeCount() int {
	if c == nil {
		return 0
	}
	return c.active
}

func (c *kubeOwnedCount) succeededCount() int {
	if c == nil {
		return 0
	}
	return c.succeeded
}

func (c *kubeOwnedCount) childCount() int {
	if c == nil {
		return 0
	}
	return c.children
}
