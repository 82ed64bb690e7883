package kube

import (
	"fmt"

	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// scheduler-plugins' Coscheduling defines a gang with its own PodGroup
// (scheduling.x-k8s.io/v1alpha1; scheduling.sigs.k8s.io/v1alpha1 before
// the group was renamed, still used by Koordinator), and pods join it by a
// label naming it. The importer reads the PodGroup as the simulator's own:
// minMember is the gang's minCount; a pod with the label joins it
// (podgroups.go), as a pod with spec.schedulingGroup joins a
// scheduling.k8s.io PodGroup. What Coscheduling does beyond the gang (its
// timeout, its check of the cluster's free resources) is warned.

// The API groups of scheduler-plugins' PodGroups, and the labels pods
// join them by.
const (
	pluginsGroup = "scheduling.x-k8s.io"
	legacyGroup  = "scheduling.sigs.k8s.io"
	pluginsLabel = pluginsGroup + "/pod-group"
	legacyLabel  = "pod-group." + legacyGroup
)

// pluginsPodGroup is scheduler-plugins' PodGroup.
type pluginsPodGroup struct {
	kubeHead `yaml:",inline"`
	Spec     struct {
		MinMember              *int32            `yaml:"minMember"`
		MinResources           map[string]string `yaml:"minResources"`
		ScheduleTimeoutSeconds *int32            `yaml:"scheduleTimeoutSeconds"`
	} `yaml:"spec"`
	Status skipped `yaml:"status"`
}

// pluginsFields translate a scheduler-plugins PodGroup's entry fields.
var pluginsFields = map[string]string{"name": "metadata.name", "namespace": "metadata.namespace", "minCount": "spec.minMember", "": "spec"}

// pluginsLabelOf is the label by which pods join a PodGroup of the
// object's API group.
func pluginsLabelOf(o *Object) string {
	if apiGroup(o.apiVersion) == legacyGroup {
		return legacyLabel
	}
	return pluginsLabel
}

// pluginsPodGroup converts a scheduler-plugins PodGroup: a gang of
// minMember pods; without minMember (0), Coscheduling lets every pod go
// alone, and so does a group without a gang policy.
func (k *kubeImport) pluginsPodGroup(o *Object, v *pluginsPodGroup, f *schema.File) error {
	if err := checkName(o, false); err != nil {
		return err
	}
	s := schema.PodGroup{GroupCommon: schema.GroupCommon{Line: o.line, Name: o.name, Namespace: o.namespace,
		Origin: newOrigin(o, pluginsFields)}}
	first := o.file + ": " + o.ref()
	label := pluginsLabelOf(o)
	switch n := v.Spec.MinMember; {
	case n != nil && *n < 0:
		return o.failf(nil, "spec.minMember", "%d is below 0", *n)
	case n == nil || *n == 0:
		k.ws.Add(o.kind, "spec.minMember", fmt.Sprintf("not given: no gang, the pods labelled %s are scheduled one by one, as Coscheduling lets them", label), first)
	default:
		s.MinCount = n
		k.ws.Add(o.kind, "spec.minMember", fmt.Sprintf("read as a gang: a PodGroup of minCount minMember, which the pods labelled %s join (scheduler-plugins' Coscheduling)", label), first)
	}
	if v.Spec.ScheduleTimeoutSeconds != nil {
		k.ws.Add(o.kind, "spec.scheduleTimeoutSeconds", "not modelled: the gang waits until it can be placed whole (Coscheduling gives up after the timeout, then tries again)", first)
	}
	if len(v.Spec.MinResources) > 0 {
		if _, name, err := parseResourceList(v.Spec.MinResources, schema.ResourcesOfContainer); err != nil {
			return o.fail(nil, "spec.minResources."+name, err)
		}
		k.ws.Add(o.kind, "spec.minResources", "not modelled: Coscheduling's early check of the cluster's free resources is left out; the gang is placed, or not, by its pods' requests", first)
	}
	f.PodGroups = append(f.PodGroups, s)
	return nil
}
