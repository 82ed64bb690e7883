package kube

import (
	"fmt"
	"math"
	"time"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// defaultGracePeriodSeconds is the pod default of Kubernetes, which the
// simulator's terminationGracePeriod models for every pod.
const defaultGracePeriodSeconds = 30

// pod converts a Pod. Its phase decides its role: Running, or any pod
// with spec.nodeName, is bound at time 0; Pending arrives at time 0;
// Succeeded and Failed are over and left out.
func (k *kubeImport) pod(o *Object, v *kubePod, f *schema.File) error {
	if err := checkName(o, false); err != nil {
		return err
	}
	if finished(v) {
		return nil
	}
	switch v.Status.Phase {
	case "", "Pending", "Running", "Unknown":
	default:
		return o.failf(nil, "status.phase", "%q is not Pending, Running, Succeeded, Failed or Unknown", v.Status.Phase)
	}
	if v.Status.Phase == "Running" && v.Spec.NodeName == "" {
		return o.failf(nil, "spec.nodeName", "required: a Running pod is bound to a node")
	}
	src := newOrigin(o, kubePodFields)
	created, err := creationTime(o, &v.Metadata)
	if err != nil {
		return err
	}
	src.Created = created
	s, err := k.podEntry(o, src, o.name, v.Metadata.Labels, &v.Spec)
	if err != nil {
		return err
	}
	if s.Duration, err = runTimeOf(o, v.Metadata.Annotations, "metadata"); err != nil {
		return err
	}
	s.ResourceClaimStatuses = v.Status.ResourceClaimStatuses
	if ref := controllerOf(&v.Metadata); ref != nil {
		s.Controller = &cluster.Owner{Kind: ref.Kind, Name: ref.Name, Selector: k.selectors[kubeOwnerKey{o.namespace, ref.Kind, ref.Name}].Convert()}
	}
	if err := k.room(o, "metadata.name", 1); err != nil {
		return err
	}
	f.Pods = append(f.Pods, s)
	return nil
}

// creationTime reads metadata.creationTimestamp (zero when absent).
func creationTime(o *Object, m *kubeMeta) (time.Time, error) {
	if m.CreationTimestamp == nil {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, *m.CreationTimestamp)
	if err != nil {
		return time.Time{}, o.failf(nil, "metadata.creationTimestamp", "%q is not a time like 2025-01-31T12:00:00Z", *m.CreationTimestamp)
	}
	return t, nil
}

// podEntry makes a scenario pod entry from a pod spec: a Pod's own, or a
// workload's template (src.Spec says which, for the paths of errors and
// warnings). The entry arrives at time 0, bound when it names a node.
func (k *kubeImport) podEntry(o *Object, src *schema.Origin, name string, labels map[string]string, spec *kubePodSpec) (schema.Pod, error) {
	s := schema.Pod{Line: o.line, Name: name, Namespace: o.namespace, Labels: labels,
		Priority: spec.Priority, PriorityClassName: spec.PriorityClassName, PreemptionPolicy: spec.PreemptionPolicy,
		SchedulerName: spec.SchedulerName, NodeName: spec.NodeName, NodeSelector: spec.NodeSelector,
		Affinity: spec.Affinity, Tolerations: spec.Tolerations, TopologySpreadConstraints: spec.TopologySpreadConstraints,
		SchedulingGates: spec.SchedulingGates, Origin: src}
	if len(spec.Containers) == 0 {
		return s, o.failf(nil, src.Spec+".containers", "required: a pod has at least one container")
	}
	req, res, field, err := podRequests(spec, src.Spec)
	if err != nil {
		return s, o.fail(nil, field, err)
	}
	s.Requests, s.Resources = req, res
	if g := spec.SchedulingGroup; g != nil {
		if g.PodGroupName == "" {
			return s, o.failf(nil, src.Spec+".schedulingGroup.podGroupName", "required")
		}
		s.PodGroup = g.PodGroupName
	}
	if r := spec.WorkloadRef; r != nil {
		if err := k.workloadRef(o, src, r, &s); err != nil {
			return s, err
		}
	}
	if err := k.podClaims(o, spec, src.Spec, &s); err != nil {
		return s, err
	}
	first := o.file + ": " + o.ref()
	if d := spec.ActiveDeadlineSeconds; d != nil {
		// the API server takes a pod's from 1 to MaxInt32 (a Job's own
		// may be 0): 0 is refused, in a Pod and in every pod template
		if *d < 1 || *d > math.MaxInt32 {
			return s, o.failf(nil, src.Spec+".activeDeadlineSeconds", "Invalid value: %d: must be between 1 and %d, inclusive", *d, math.MaxInt32)
		}
		k.ws.Add(o.kind, src.Spec+".activeDeadlineSeconds", schema.NotModelled, first)
	}
	if p := spec.TerminationGracePeriodSeconds; p != nil && *p != defaultGracePeriodSeconds {
		k.ws.Add(o.kind, src.Spec+".terminationGracePeriodSeconds",
			fmt.Sprintf("not modelled per pod: every victim keeps its node for config.terminationGracePeriod (%ds by default)", defaultGracePeriodSeconds), first)
	}
	if spec.HostNetwork {
		k.ws.Add(o.kind, src.Spec+".hostNetwork", "not modelled: host ports are not checked", first)
	}
	return s, nil
}
