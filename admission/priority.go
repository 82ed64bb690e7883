package admission

import (
	"errors"
	"fmt"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/podgroup"
)

// ErrAdmission is wrapped by every error priority admission gives: a
// priority class that does not exist, a priority that contradicts its
// class. Its text is the one the scheduler always gave, which users' error
// messages and the root's ErrAdmission keep.
var ErrAdmission = errors.New("gangsim: admission")

// PodPriority resolves the priority and preemption policy admission gives
// a pod; the scheduler applies exactly this, and file loaders call it to
// report problems before a run. The rules, first match wins:
//
//  1. PriorityClassName names a class: its value (an explicit Priority
//     must then equal it) and, unless the pod sets its own, its
//     preemption policy;
//  2. an explicit Priority;
//  3. a member of a PodGroup: the group's priority and, unless the pod
//     sets its own, the group's preemption policy (group is the pod's
//     group as admitted, or nil when it is not known);
//  4. the global default class, if there is one;
//  5. 0 and PreemptLowerPriority.
func PodPriority(classes *cluster.PriorityClasses, p *cluster.Pod, group *podgroup.PodGroup) (int32, cluster.PreemptionPolicy, error) {
	switch {
	case p.PriorityClassName != "" || p.Priority == nil && group == nil:
		// named for the errors; made only here, since most pods give their priority
		return classPriority(classes, "pod "+string(p.Key()), p.PriorityClassName, p.Priority, p.PreemptionPolicy)
	case p.Priority != nil:
		return *p.Priority, orDefault(p.PreemptionPolicy, cluster.PreemptLowerPriority), nil
	}
	return group.EffectivePriority(), orDefault(p.PreemptionPolicy, group.EffectivePreemptionPolicy()), nil
}

// GroupPriority resolves the priority and preemption policy admission gives
// a PodGroup or CompositePodGroup, given as its fields: the class's value
// (an explicit priority must equal it), else the explicit priority, else
// the parent composite's priority (parent nil: a root), else the global
// default class, else 0. The preemption policy is the group's own, else its
// class's, else PreemptLowerPriority. obj names the group in errors.
func GroupPriority(classes *cluster.PriorityClasses, obj string, priority *int32, className string, policy cluster.PreemptionPolicy, parent *podgroup.CompositePodGroup) (int32, cluster.PreemptionPolicy, error) {
	switch {
	case className != "" || priority == nil && parent == nil:
		return classPriority(classes, obj, className, priority, policy)
	case priority != nil:
		return *priority, orDefault(policy, cluster.PreemptLowerPriority), nil
	}
	return parent.EffectivePriority(), orDefault(policy, cluster.PreemptLowerPriority), nil
}

// classPriority resolves className ("" for the global default) and checks
// an explicit priority against it.
func classPriority(classes *cluster.PriorityClasses, obj, className string, priority *int32, policy cluster.PreemptionPolicy) (int32, cluster.PreemptionPolicy, error) {
	value, classPolicy, err := classes.Resolve(className)
	if err != nil {
		return 0, "", &cluster.FieldError{Sentinel: ErrAdmission, Object: obj, Field: "priorityClassName",
			Detail: fmt.Sprintf("priority class %q is not defined", className)}
	}
	if priority != nil && *priority != value {
		return 0, "", &cluster.FieldError{Sentinel: ErrAdmission, Object: obj, Field: "priority",
			Detail: fmt.Sprintf("%d differs from %d, the value of priority class %q", *priority, value, className)}
	}
	return value, orDefault(policy, classPolicy), nil
}

func orDefault(p, def cluster.PreemptionPolicy) cluster.PreemptionPolicy {
	if p == "" {
		return def
	}
	return p
}

// AdmitPod returns the pod as the API server creates it, LimitRanger and
// ResourceQuota aside: its priority and preemption policy resolved
// (PodPriority), its namespace defaulted, nodeName cleared (the caller
// places it), the affinity terms' matchLabelKeys and mismatchLabelKeys
// folded into their selectors. group is its PodGroup when the group is
// known. The result shares p's maps and slices, which the caller hands
// over.
func AdmitPod(classes *cluster.PriorityClasses, p cluster.Pod, group *podgroup.PodGroup) (*cluster.PodInfo, error) {
	if err := admit(classes, &p, group); err != nil {
		return nil, err
	}
	return cluster.NewPodInfoShared(p), nil
}

// AdmitSharedPod is AdmitPod for a pod the caller holds read-only and
// handed over, wrapped in info (cluster.NewPodInfoOf): when admission
// leaves the pod as it is (its priority given and equal to the resolved
// one, its preemption policy the resolved one or its default, its
// namespace and no node named, no label keys to fold), the result is info
// itself, what the caller learnt of it kept (its validation,
// PodInfo.Validate); otherwise a copy, as AdmitPod's. The pod is never
// changed.
func AdmitSharedPod(classes *cluster.PriorityClasses, info *cluster.PodInfo, group *podgroup.PodGroup) (*cluster.PodInfo, error) {
	p := info.Pod()
	q := *p
	if err := admit(classes, &q, group); err != nil {
		return nil, err
	}
	if admittedAsIs(p, &q) {
		return info, nil
	}
	return cluster.NewPodInfoShared(q), nil
}

// admit applies admission to p (see AdmitPod).
func admit(classes *cluster.PriorityClasses, p *cluster.Pod, group *podgroup.PodGroup) error {
	prio, policy, err := PodPriority(classes, p, group)
	if err != nil {
		return err
	}
	p.Priority, p.PreemptionPolicy, p.NodeName = &prio, policy, ""
	if p.Namespace == "" {
		p.Namespace = cluster.DefaultNamespace
	}
	*p = p.WithLabelKeysApplied() // as the API server does at creation
	return nil
}

// admittedAsIs reports whether the admitted form of in, adm, reads the
// same as in through every accessor the scheduler uses: the fields
// admission sets agree (the preemption policy as its effective value,
// which is how it is read), and the terms admission rewrites are in's own.
func admittedAsIs(in, adm *cluster.Pod) bool {
	return in.Priority != nil && *in.Priority == *adm.Priority &&
		in.EffectivePreemptionPolicy() == adm.PreemptionPolicy &&
		in.Namespace == adm.Namespace && in.NodeName == adm.NodeName &&
		in.Affinity == adm.Affinity
}

// InheritsGroupPriority reports whether admission takes p's priority from
// its group (rule 3 of PodPriority): a pod that arrives before its group
// is admitted again when the group is created.
func InheritsGroupPriority(p *cluster.Pod) bool {
	return p.PodGroup != "" && p.Priority == nil && p.PriorityClassName == ""
}
