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
// controller adds a random suffix, the importer adds an index. Each
// workload also records its controller (schema.Controller), which the
// scenario's runner follows to keep the pods going: replacing those that
// end, and for a Job counting completions and failures.

// workload converts a Deployment, ReplicaSet, StatefulSet, DaemonSet or
// Job; a JobSet, a TrainJob (with its runtime), an MPIJob or a PyTorchJob.
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
	case *kubeJobSet:
		return k.jobSet(o, w, f)
	case *kubeTrainJob:
		return k.trainJob(o, w, f)
	case *kubeTrainingRuntime:
		return nil // read by the TrainJobs that name it
	case *kubeMPIJob:
		return k.mpiJob(o, w, f)
	case *kubePyTorchJob:
		return k.pyTorchJob(o, w, f)
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
	src := &schema.Origin{Object: o.ref(), Where: o.ref(), Fields: kubePodFields, Spec: "spec.template.spec", Created: created, Lines: o.lines()}
	entry, err := k.podEntry(o, src, o.name, nil, &t.Spec)
	if err != nil {
		return nil, err
	}
	if entry.Duration, err = runTimeOf(o, t.Metadata.Annotations, "spec.template.metadata"); err != nil {
		return nil, err
	}
	owner := &cluster.Owner{Kind: o.kind, Name: o.name, Selector: sel.Convert()}
	return &kubeTemplate{o: o, entry: entry, labels: t.Metadata.Labels, owner: owner, hash: templateHash(o)}, nil
}

// controller is the controller whose pods t makes, as their owner names
// it, with extra labels on every pod besides the template's.
func (t *kubeTemplate) controller(extra map[string]string) schema.Controller {
	tmpl := t.entry
	tmpl.Name, tmpl.Labels, tmpl.Controller = "", maps.Clone(t.labels), t.owner
	if tmpl.Labels == nil && len(extra) > 0 {
		tmpl.Labels = map[string]string{}
	}
	maps.Copy(tmpl.Labels, extra)
	return schema.Controller{Kind: t.owner.Kind, Namespace: t.o.namespace, Name: t.owner.Name, Object: t.o.ref(),
		File: t.o.file, Line: t.o.line, Template: tmpl}
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
	if o.early {
		return o.hash
	}
	h := fnv.New32a()
	var buf []byte
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		buf = strconv.AppendInt(buf[:0], int64(n.Kind), 10) // what "%d:%s:%q[" prints, the hash's text
		buf = append(append(append(buf, ':'), n.Tag...), ':')
		buf = append(strconv.AppendQuote(buf, n.Value), '[')
		h.Write(buf)
		for _, c := range n.Content {
			walk(c)
		}
		h.Write([]byte("]"))
	}
	if t := schema.MapValue(schema.MapValue(o.node, "spec"), templateField(o.kind)); t != nil {
		walk(t)
	}
	return hashName(h.Sum32())
}

// hashName spells a hash in the alphabet of pod-template-hash labels.
func hashName(sum uint32) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	out := []byte(strconv.FormatUint(uint64(sum), 10))
	for i, c := range out {
		out[i] = alphabet[int(c)%len(alphabet)]
	}
	return string(out)
}

// templateField is the field of a kind's spec that holds its pod
// templates, whose hash names a revision.
func templateField(kind string) string {
	if kind == "LeaderWorkerSet" {
		return "leaderWorkerTemplate"
	}
	return "template"
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
	c := t.controller(hash)
	c.Replicas = n
	f.Controllers = append(f.Controllers, c)
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
	c := t.controller(nil)
	c.Replicas = n
	f.Controllers = append(f.Controllers, c)
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
	c := t.controller(map[string]string{"controller-revision-hash": o.name + "-" + t.hash})
	c.Replicas, c.OrdinalStart = n, start
	f.Controllers = append(f.Controllers, c)
	for i := start; i < start+n; i++ {
		name := o.name + "-" + strconv.Itoa(i)
		if k.podNames[cluster.MakePodKey(o.namespace, name)] {
			continue
		}
		k.podNames[cluster.MakePodKey(o.namespace, name)] = true
		p := t.pod(name, nil)
		p.Labels = c.PodLabels(name, i)
		f.Pods = append(f.Pods, p)
	}
	return nil
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
