package controllers

import (
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/gangsim/gangsim/cluster"
)

// The kinds of workload the Manager runs a controller for, as a pod's
// owner reference names them (cluster.Owner.Kind).
const (
	KindJob         = "Job"
	KindReplicaSet  = "ReplicaSet"
	KindStatefulSet = "StatefulSet"
	KindDaemonSet   = "DaemonSet"
	// the kinds whose controller keeps a PodSet
	KindLeaderWorkerSet = "LeaderWorkerSet"
	KindRayCluster      = "RayCluster"
	KindVolcanoJob      = "Job.batch.volcano.sh" // Volcano's Job, told apart from Kubernetes' by its API group
)

// The labels Kubernetes' controllers give the pods they make, by pod.
const (
	JobCompletionIndexLabel = "batch.kubernetes.io/job-completion-index"
	StatefulSetPodNameLabel = "statefulset.kubernetes.io/pod-name"
	PodIndexLabel           = "apps.kubernetes.io/pod-index"
)

// Workload is a workload object whose controller the Manager runs: a Job,
// a ReplicaSet (a Deployment's, or one of its own), a StatefulSet or a
// DaemonSet; or a parent (a JobSet, an MPIJob, a PyTorchJob) and its
// children, its Jobs and replicas (owners.go). The Manager reads it and
// never changes it.
type Workload struct {
	Kind      string // KindJob, KindReplicaSet, KindStatefulSet, KindDaemonSet; a parent's (and its replicas') KindJobSet, KindMPIJob, KindPyTorchJob
	Namespace string
	Name      string // as its pods' owner reference names it: a Deployment's ReplicaSet is <deployment>-<hash>
	// Template is every pod the controller makes, before its name and the
	// labels of the pod itself (PodLabels); its maps are shared by those
	// pods, read-only.
	Template cluster.Pod
	// RunTime is how long the pod key runs once bound, made for the n-th
	// time under that name (0 first: a StatefulSet makes web-0 again);
	// nil, or 0, for a pod that runs until it is deleted or evicted.
	RunTime func(key cluster.PodKey, n int) time.Duration
	// Replicas is a ReplicaSet's or StatefulSet's replica count;
	// OrdinalStart a StatefulSet's first ordinal.
	Replicas     int
	OrdinalStart int
	// Job is a Job's spec and what its pods did before the run; nil for
	// the other kinds.
	Job *Job
	// Parent is the rules of a parent (a JobSet, an MPIJob, a PyTorchJob:
	// owners.go), which makes no pod itself: the workloads after it whose
	// Of is the same Parent are its children. Role is a child's role (its
	// replicated job, its replica type). A child with a Job runs it; one
	// without keeps Replicas pods named <name>-<role>-<index>.
	Parent *Parent
	Of     *Parent
	Role   string
	// Exclusive is the topology key of a child Job's exclusive placement
	// (JobSet's exclusive-topology annotation, read by its pod webhook):
	// its pod of index 0 gets affinity to its own Job's pods and
	// anti-affinity to other Jobs', and the others wait for it and are
	// pinned to its domain. Its template's labels hold the Job's
	// jobset.sigs.k8s.io/job-key.
	Exclusive string
	// Set is the list of pods a LeaderWorkerSet, RayCluster or Volcano Job
	// keeps, and its rules; nil for the other kinds.
	Set *PodSet
	// After names a workload of the same Manager and namespace whose pods
	// must all be bound before this one makes any (a RayJob's submitter
	// waits for its RayCluster); Stops one whose pods the Manager deletes,
	// and whose controller it stops, when this Job finishes (a RayJob's
	// shutdownAfterJobFinishes). Nil for none.
	After, Stops *WorkloadRef
	// Pods are the workload's pods the caller adds to the Scheduler at
	// time 0, or before the controller first acts: the controller counts
	// them as its own, with their completion index or ordinal (from their
	// labels, or a StatefulSet's from their names) and a DaemonSet's with
	// their node. Read-only.
	Pods []*cluster.Pod
}

// service reports whether the controller keeps its pods running (a
// ReplicaSet, StatefulSet or DaemonSet), rather than running them to
// completion (a Job, a parent's child, a finite PodSet).
func (w *Workload) service() bool {
	return w.Job == nil && w.Of == nil && w.Parent == nil && (w.Set == nil || !w.Set.Finite)
}

// runTime is the run time of the workload's pod key, made for the n-th
// time.
func (w *Workload) runTime(key cluster.PodKey, n int) time.Duration {
	if w.RunTime == nil {
		return 0
	}
	return w.RunTime(key, n)
}

// PodLabels are the labels of the pod named name the controller makes
// with index (a Job's completion index or a StatefulSet's ordinal; -1 for
// none): its template's, and those of the pod itself. The map is new when
// the pod has labels of its own, else the template's (read-only).
func (w *Workload) PodLabels(name string, index int) map[string]string {
	return PodLabels(w.Kind, w.Template.Labels, w.Job != nil && w.Job.Indexed, name, index)
}

// PodLabels are the labels of the pod named name that a controller of
// kind makes from a template with labels template, with index (-1 for
// none); indexed tells whether a Job is Indexed. An importer that expands
// a workload into its first pods labels them the way its controller will
// label the pods it makes while running.
func PodLabels(kind string, template map[string]string, indexed bool, name string, index int) map[string]string {
	var own map[string]string
	switch {
	case kind == KindJob && indexed && index >= 0:
		own = map[string]string{JobCompletionIndexLabel: strconv.Itoa(index)}
	case kind == KindStatefulSet:
		own = map[string]string{StatefulSetPodNameLabel: name, PodIndexLabel: strconv.Itoa(index)}
	}
	if own == nil {
		return template
	}
	out := maps.Clone(template)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, own)
	return out
}

// pod makes the workload's pod named name, with index (a Job's
// completion index, a StatefulSet's ordinal; -1 for none) and, for a
// DaemonSet, the node it is pinned to. Its maps are the template's or its
// own, read-only.
func (w *Workload) pod(name string, index int, node string) cluster.Pod {
	if w.Set != nil && index >= 0 && index < len(w.Set.Members) {
		return w.Set.MemberPod(index, name, "")
	}
	p := w.Template
	p.Name = name
	p.Labels = w.PodLabels(name, index)
	if node != "" {
		p.Affinity = pinnedTo(p.Affinity, node)
	}
	return p
}

// pinnedTo returns a copy of a whose required node affinity is one term
// matching the node's name, as the DaemonSet controller pins its pods.
func pinnedTo(a *cluster.Affinity, node string) *cluster.Affinity {
	var out cluster.Affinity
	if a != nil {
		out = *a
	}
	var na cluster.NodeAffinity
	if out.NodeAffinity != nil {
		na = *out.NodeAffinity
	}
	na.Required = []cluster.SelectorTerm{{MatchFields: []cluster.SelectorRequirement{
		{Key: cluster.NodeNameField, Operator: cluster.SelectorIn, Values: []string{node}}}}}
	out.NodeAffinity = &na
	return &out
}

// daemonNode is the node a DaemonSet's pod runs on: the one it is bound
// to, or the one its node affinity pins it to.
func daemonNode(p *cluster.Pod) string {
	if p.NodeName != "" {
		return p.NodeName
	}
	if p.Affinity == nil || p.Affinity.NodeAffinity == nil {
		return ""
	}
	for _, t := range p.Affinity.NodeAffinity.Required {
		for _, r := range t.MatchFields {
			if r.Key == cluster.NodeNameField && r.Operator == cluster.SelectorIn && len(r.Values) == 1 {
				return r.Values[0]
			}
		}
	}
	return ""
}

// podIndex is a pod's completion index (a Job's) or ordinal (a
// StatefulSet's), from its label, or for a StatefulSet (and a parent's
// replica) from its name; -1 when it has none.
func (w *Workload) podIndex(p *cluster.Pod) int {
	if w.Set != nil {
		return w.Set.MemberIndex(p.Name)
	}
	label := JobCompletionIndexLabel
	if w.Kind == KindStatefulSet {
		label = PodIndexLabel
	}
	if v, ok := p.Labels[label]; ok {
		if i, err := strconv.Atoi(v); err == nil && i >= 0 {
			return i
		}
	}
	prefix := w.Name + "-"
	if w.Of != nil && w.Job == nil {
		prefix += w.Role + "-" // a parent's replica: <name>-<role>-<index>
	}
	if w.Kind == KindStatefulSet || w.Of != nil && w.Job == nil {
		if rest, ok := strings.CutPrefix(p.Name, prefix); ok {
			if i, err := strconv.Atoi(rest); err == nil && i >= 0 {
				return i
			}
		}
	}
	return -1
}
