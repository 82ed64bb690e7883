package kube

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// After every object is converted, the importer reads the gang formats of
// the field from the pods' labels and annotations (docs/kubernetes-inputs.md):
// a pod joins a scheduler-plugins PodGroup by its label, Kueue's pod
// groups become PodGroups of their own, and Kueue's topology annotations a
// group's topology key. It works on the pods' entries, which carry their
// labels; the annotations are their objects'.

// madePods are the pods one object made: its input's File.Pods[from:to].
type madePods struct {
	d        kubeDecoded
	from, to int
}

// member is one pod entry as the formats see it.
type member struct {
	in    *Input
	index int // in in.File.Pods
	o     *Object
	meta  string            // where the pod's metadata lies in o: "metadata", "spec.template.metadata"
	ann   map[string]string // the pod's annotations
	// set names the pod's set within its controller, when the controller
	// has several that are each a topology group (a Kueue Workload's pod
	// sets): "<controller>-<set>"
	set string
	// fields are where keys of the pod's annotations come from when the
	// object gives them by another field (a Kueue Workload's topology
	// request): by key, the field's path
	fields map[string]string
	// operator is the kind whose operator made the pod from a template
	// of its own (a JobSet, a RayCluster; "" for a Pod and the built-in
	// workloads), own that template's labels, without the operator's
	operator string
	own      map[string]string
}

// noted are the labels the notes read: a template's own, not those its
// operator adds (a Volcano Job's volcano.sh/ labels are Volcano's).
func (m *member) noted() map[string]string {
	if m.operator != "" {
		return m.own
	}
	return m.pod().Labels
}

func (m *member) pod() *schema.Pod { return &m.in.File.Pods[m.index] }

// ref names the pod as the builder's errors do: "Pod ml/w-0", "Job ml/j
// (pod j-0)".
func (m *member) ref() string { return m.pod().Origin.Object }

// field is the path of one key of the pod's labels or annotations.
func (m *member) field(sub, key string) string {
	if f, ok := m.fields[key]; ok && sub == "annotations" {
		return f
	}
	return m.meta + "." + sub + "[" + key + "]"
}

// failf returns an error about a key of the pod's labels or annotations.
func (m *member) failf(sub, key, format string, args ...any) error {
	return &Error{File: m.o.file, Line: keyLine(m.o, m.meta+"."+sub, key), Path: m.ref() + ": " + m.field(sub, key), Err: fmt.Errorf(format, args...)}
}

// first names the pod's object as a warning's first object: warnings
// count objects, a workload once for all its pods.
func (m *member) first() string { return m.o.file + ": " + m.o.ref() }

// join makes the pod a member of the group name, which it names by the
// key of its labels (or annotations): the builder's errors about the pod's
// group then point there.
func (m *member) join(name, sub, key string) {
	s := m.pod()
	s.PodGroup = name
	src := *s.Origin
	src.Fields = maps.Clone(src.Fields)
	src.Fields["podGroup"] = "{meta}." + sub + "[" + key + "]"
	s.Origin = &src
}

// keyLine is the line of key in the mapping at path of o (the mapping's,
// or the nearest parent's, when the key is not there).
func keyLine(o *Object, path, key string) int { return o.lines().KeyLine(path, key) }

// templateOf returns a workload's own metadata and its pod template.
func templateOf(v any) (*kubeMeta, *kubePodTemplate) {
	switch w := v.(type) {
	case *kubeDeployment:
		return &w.Metadata, &w.Spec.Template
	case *kubeReplicaSet:
		return &w.Metadata, &w.Spec.Template
	case *kubeStatefulSet:
		return &w.Metadata, &w.Spec.Template
	case *kubeDaemonSet:
		return &w.Metadata, &w.Spec.Template
	case *kubeJob:
		return &w.Metadata, &w.Spec.Template
	}
	return nil, nil
}

// templateKey is where the pod entries made from a template point: the
// lines of the template's object and the path of its spec.
type templateKey struct {
	lines schema.Lines
	spec  string
}

// templateMeta is a pod template of a kind whose operator makes the pods:
// its object, its path there, and its metadata's labels and annotations.
type templateMeta struct {
	o           *Object
	path        string
	labels, ann map[string]string
}

// addTemplate notes the template at path of o, of which entry is the pod
// entry, for the gang formats and the notes.
func (k *kubeImport) addTemplate(o *Object, path string, entry *schema.Pod, meta *kubeMeta) {
	if entry.Origin != nil {
		k.templates[templateKey{entry.Origin.Lines, entry.Origin.Spec}] = templateMeta{o: o, path: path, labels: meta.Labels, ann: meta.Annotations}
	}
}

// members lists the pods an object made, with their annotations.
func (mp madePods) members(k *kubeImport) []*member {
	meta, ann := "metadata", map[string]string(nil)
	switch v := mp.d.v.(type) {
	case *kubePod:
		ann = v.Metadata.Annotations
	case *kueueWorkload:
		return v.members(mp)
	case *kubeJobSet, *kubeTrainJob, *kubeMPIJob, *kubePyTorchJob, *kubeLeaderWorkerSet, *kubeRayCluster, *kubeRayJob, *volcanoJob:
		return mp.operatorMembers(k)
	default:
		_, t := templateOf(v)
		if t == nil {
			return nil
		}
		meta, ann = "spec.template.metadata", t.Metadata.Annotations
	}
	out := make([]*member, 0, mp.to-mp.from)
	for i := mp.from; i < mp.to; i++ {
		out = append(out, &member{in: mp.d.in, index: i, o: mp.d.o, meta: meta, ann: ann})
	}
	return out
}

// operatorMembers lists the pods of a kind whose operator makes them from
// templates of its own, one per Job, replica type, group or task: each
// pod's metadata is its template's, wherever it lies (a TrainJob's in its
// runtime). A pod of a template the operator writes itself (a RayJob's
// default submitter) has none to read.
func (mp madePods) operatorMembers(k *kubeImport) []*member {
	out := make([]*member, 0, mp.to-mp.from)
	for i := mp.from; i < mp.to; i++ {
		m := &member{in: mp.d.in, index: i, o: mp.d.o, meta: "spec", operator: mp.d.o.kind}
		if s := m.pod(); s.Origin != nil {
			if t, ok := k.templates[templateKey{s.Origin.Lines, s.Origin.Spec}]; ok {
				m.o, m.meta, m.ann, m.own = t.o, t.path+".metadata", t.ann, t.labels
			}
		}
		out = append(out, m)
	}
	return out
}

// operatorRefs keeps the gangs an operator's pod joins as a Deployment's
// would: a scheduler-plugins label joins its PodGroup, unless the pod is
// in its operator's gang already, where the label that names that gang
// is the operator's own and any other is warned and left; Kueue's pod
// groups are of plain Pods, and Kueue's keys on such a template are
// warned.
func (k *kubeImport) operatorRefs(m *member, refs []gangRef) []gangRef {
	var kept []gangRef
	pg := m.pod().PodGroup
	for _, r := range refs {
		switch {
		case r.sub == "spec":
			kept = append(kept, r)
		case r.key == kueueGroupName:
			k.ws.Add(m.o.kind, m.field(r.sub, r.key), "Kueue's pod groups are of plain Pods: not read on a pod template of a "+m.operator+
				", which Kueue would admit as a workload of its own (not modelled)", m.first())
		case pg == "":
			kept = append(kept, r)
		case r.name != pg:
			k.ws.Add(m.o.kind, m.field(r.sub, r.key), "not read: the pod is in the gang "+pg+" its "+m.operator+
				" makes, and a pod is in one gang", m.first())
		}
	}
	for _, key := range []string{kueueTotalCount, kueueRequired, kueuePreferred, kueueUnconstrained} {
		if _, ok := m.ann[key]; ok {
			k.ws.Add(m.o.kind, m.field("annotations", key), "Kueue's pod group or topology request on a pod template of a "+m.operator+
				" is not modelled: the pods are placed without it", m.first())
		}
	}
	return kept
}

// gangRef is one way a pod names a gang: the key of its labels or
// annotations (or its spec.schedulingGroup), and the group's name.
type gangRef struct {
	sub, key string // "labels", pluginsLabel; "spec", "schedulingGroup"
	name     string
}

// gangRefs are the gangs a pod names, in every format.
func (m *member) gangRefs() []gangRef {
	s := m.pod()
	var out []gangRef
	if s.PodGroup != "" {
		out = append(out, gangRef{"spec", "schedulingGroup", s.PodGroup})
	}
	for _, key := range []string{pluginsLabel, legacyLabel, kueueGroupName} {
		if name, ok := s.Labels[key]; ok {
			out = append(out, gangRef{"labels", key, name})
		}
	}
	if name, ok := m.ann[kueueGroupName]; ok && s.Labels[kueueGroupName] == "" {
		out = append(out, gangRef{"annotations", kueueGroupName, name})
	}
	return out
}

// describe names where a pod names its gang, for an error.
func (r gangRef) describe() string {
	if r.sub == "spec" {
		return "spec.schedulingGroup.podGroupName"
	}
	return r.sub + "[" + r.key + "]"
}

// readGangs reads the gang formats of every pod the objects made, and
// their topology annotations; then it warns about the keys of the field's
// other schedulers, queues and GPU sharers that the simulator does not
// read.
func (k *kubeImport) readGangs(made []madePods) error {
	pg := k.pluginsGroups()
	kueue := newKueueGangs(k.tally.PodLimit())
	lone := newTopologyGangs()
	for _, mp := range made {
		for _, m := range mp.members(k) {
			refs := m.gangRefs()
			if m.operator != "" {
				refs = k.operatorRefs(m, refs)
			}
			if len(refs) > 1 {
				return m.failf(refs[1].sub, refs[1].key, "the pod is in a gang by %s already (%q): a pod is in one gang; keep one of the two", refs[0].describe(), refs[0].name)
			}
			if m.operator == "" {
				if err := k.checkKueueCount(m, refs); err != nil {
					return err
				}
			}
			grouped := len(refs) == 1
			switch {
			case grouped && refs[0].key == kueueGroupName:
				if err := kueue.add(m, refs[0]); err != nil {
					return err
				}
			case grouped && refs[0].sub == "labels":
				k.joinPlugins(m, refs[0], pg)
			}
			if m.operator == "" {
				if err := k.podTopology(m, refs, lone); err != nil {
					return err
				}
			}
			k.foreignKeys(m.o, m.meta, m.noted(), m.ann)
			k.gpuShares(m)
			k.dropKueueGates(m)
		}
		if own, _ := templateOf(mp.d.v); own != nil {
			k.foreignKeys(mp.d.o, "metadata", own.Labels, own.Annotations)
			k.suspendedByKueue(mp.d)
		}
	}
	if err := kueue.build(k); err != nil {
		return err
	}
	if err := lone.build(k); err != nil {
		return err
	}
	removePods(kueue.excess)
	k.nodeShares()
	return nil
}

// pluginsEntry is a scheduler-plugins PodGroup's entry, and whether a pod
// has joined it yet.
type pluginsEntry struct {
	entry  *schema.PodGroup
	joined bool
}

// pluginsGroups are the entries of the scheduler-plugins PodGroups of the
// inputs, by "label namespace/name": the label that joins one, and the
// group.
func (k *kubeImport) pluginsGroups() map[string]*pluginsEntry {
	out := map[string]*pluginsEntry{}
	for _, d := range k.objs {
		if _, ok := d.v.(*pluginsPodGroup); ok {
			groups := d.in.File.PodGroups
			if i := slices.IndexFunc(groups, func(g schema.PodGroup) bool { return g.Origin != nil && g.Origin.Lines == d.o.lines() }); i >= 0 {
				out[pluginsLabelOf(d.o)+" "+d.o.namespace+"/"+d.o.name] = &pluginsEntry{entry: &groups[i]}
			}
		}
	}
	for key, g := range k.madeGroups { // the gangs the operators make (trainjob.go, kubeflow.go)
		out[key] = &pluginsEntry{entry: &g.f.PodGroups[g.i]}
	}
	return out
}

// joinPlugins joins a pod to the scheduler-plugins PodGroup its label
// names; the group takes the priority of its first pod (Coscheduling
// orders gangs by their pods' priority). Coscheduling schedules a pod
// whose group does not exist on its own, and so does the simulator, with a
// warning.
func (k *kubeImport) joinPlugins(m *member, r gangRef, groups map[string]*pluginsEntry) {
	if g := groups[r.key+" "+m.pod().Namespace+"/"+r.name]; g != nil {
		if !g.joined {
			g.joined = true
			g.entry.PriorityClassName, g.entry.Priority = m.pod().PriorityClassName, m.pod().Priority
		}
		m.join(r.name, r.sub, r.key)
		return
	}
	k.ws.Add(m.o.kind, m.field(r.sub, r.key), "names a PodGroup of "+strings.TrimPrefix(strings.TrimSuffix(r.key, "/pod-group"), "pod-group.")+
		" that no input defines: the pod is scheduled on its own, as Coscheduling schedules it", m.first())
}

// removePods leaves out the pods marked, from every input.
func removePods(marked []*member) {
	byInput := map[*Input]map[int]bool{}
	var order []*Input
	for _, m := range marked {
		if byInput[m.in] == nil {
			byInput[m.in] = map[int]bool{}
			order = append(order, m.in)
		}
		byInput[m.in][m.index] = true
	}
	for _, in := range order {
		kept := in.File.Pods[:0]
		for i, p := range in.File.Pods {
			if !byInput[in][i] {
				kept = append(kept, p)
			}
		}
		in.File.Pods = kept
	}
}
