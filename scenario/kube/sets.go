package kube

import (
	"fmt"
	"maps"
	"time"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// The kinds whose controllers keep a fixed list of pods (a LeaderWorkerSet,
// a RayCluster, a Volcano Job) share these steps: each pod template of the
// object becomes a template entry, with the labels and owner its
// controller gives the pods made from it; the pods the controller makes at
// once arrive at time 0; a schema.Controller with a controllers.PodSet
// keeps them going while the run goes on. lws.go, ray.go and volcano.go
// say what each controller makes.

// setTemplate makes the template entry of the pod template t, which lies
// at path of the object (path.spec is its pod spec): its requests,
// placement and claims, its run time, the template's labels with extra
// ones, and the owner of the pods made from it.
func (k *kubeImport) setTemplate(o *Object, created time.Time, t *kubePodTemplate, path string, extra map[string]string, owner *cluster.Owner) (schema.Pod, error) {
	src := &schema.Origin{Object: o.ref(), Where: o.ref(), Fields: kubePodFields, Spec: path + ".spec", Created: created, Lines: o.lines()}
	entry, err := k.podEntry(o, src, o.name, nil, &t.Spec)
	if err != nil {
		return entry, err
	}
	if entry.Duration, err = runTimeOf(o, t.Metadata.Annotations, path+".metadata"); err != nil {
		return entry, err
	}
	entry.Labels = withLabels(t.Metadata.Labels, extra)
	entry.Controller = owner
	k.addTemplate(o, path, &entry, &t.Metadata)
	// a scheduler-plugins PodGroup of the inputs that the template's label
	// names: the pods made later join it too (those made at once join
	// it by the label, members.go)
	for _, key := range []string{pluginsLabel, legacyLabel} {
		if name, ok := t.Metadata.Labels[key]; ok && entry.PodGroup == "" && k.hasPluginsGroup(key, o.namespace, name) {
			entry.PodGroup = name
		}
	}
	return entry, nil
}

// withLabels returns base with extra over it, a new map (nil when both
// are empty).
func withLabels(base, extra map[string]string) map[string]string {
	if len(base)+len(extra) == 0 {
		return nil
	}
	out := maps.Clone(base)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, extra)
	return out
}

// addSetPod adds the pod named name made from the template entry t, with
// its own labels over the template's, unless a pod of the inputs has the
// name already (the controller made it before the dump).
func (k *kubeImport) addSetPod(f *schema.File, o *Object, t *schema.Pod, name string, own map[string]string) {
	key := cluster.MakePodKey(o.namespace, name)
	if k.podNames[key] {
		return
	}
	k.podNames[key] = true
	s := *t
	s.Name = name
	s.Labels = withLabels(t.Labels, own)
	src := *s.Origin
	src.Object = fmt.Sprintf("%s (pod %s)", o.ref(), name)
	src.Where = src.Object
	s.Origin = &src
	f.Pods = append(f.Pods, labelGang(s))
}

// volcanoScheduler is the name of Volcano's scheduler.
const volcanoScheduler = "volcano"

// byVolcano makes the simulator schedule a template whose pods name
// Volcano's scheduler, as its gang stands for Volcano's: it reports
// whether the template named it, after clearing the name.
func byVolcano(t *schema.Pod) bool {
	if t.SchedulerName != volcanoScheduler {
		return false
	}
	t.SchedulerName = ""
	return true
}

// setGang adds the PodGroup of a set's gang: minMember pods of those that
// join it.
//
// The gang takes the priority of first, the template of its first pod, as
// the PodGroups of Coscheduling's label take their first pod's: a gang of
// kube-scheduler v1.37 has one priority, its members', and a group of
// priority 0 whose pods have a class would never be scheduled. A child of
// a CompositePodGroup (first nil) inherits its parent's.
func setGang(f *schema.File, o *Object, name string, minMember int32, fields map[string]string, first *schema.Pod) {
	n := minMember
	g := schema.PodGroup{GroupCommon: schema.GroupCommon{Line: o.line, Name: name, Namespace: o.namespace,
		Origin: newOrigin(o, fields)}, MinCount: &n}
	if first != nil {
		g.PriorityClassName, g.Priority = first.PriorityClassName, first.Priority
	}
	f.PodGroups = append(f.PodGroups, g)
}

// setController is the controller of a set, the first template being the
// entry every message about the controller names.
func setController(o *Object, kind, name string, templates []schema.Pod) schema.Controller {
	return schema.Controller{Kind: kind, Namespace: o.namespace, Name: name, Object: o.ref(), File: o.file, Line: o.line,
		Template: templates[0], SetTemplates: templates}
}
