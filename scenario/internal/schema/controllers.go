package schema

import (
	"maps"
	"strconv"
	"time"
)

// Controller is a workload controller the Kubernetes importer found: a
// Job, a ReplicaSet (a Deployment's made by the importer, or one of the
// inputs), a StatefulSet or a DaemonSet. The importer expands the pods it
// has at time 0 into the file's pods; the scenario's runner then keeps
// its pods going by the same rules (scenario/controllers.go). It is not
// part of the file format: the importer writes it, the builder reads it.
type Controller struct {
	Kind      string // Job, ReplicaSet, StatefulSet or DaemonSet
	Namespace string
	Name      string
	Object    string // the object it comes from, as messages name it: "Deployment shop/web"
	File      string
	Line      int
	// Template is the entry every pod it makes copies, without a name;
	// its labels hold the controller's own (pod-template-hash, job-name),
	// and Duration the template's run-time annotation.
	Template Pod
	// Replicas is a ReplicaSet's or StatefulSet's replica count;
	// OrdinalStart a StatefulSet's first ordinal.
	Replicas     int
	OrdinalStart int
	Job          *Job // a Job's rules
}

// Job is what the Job controller follows, as the importer read it and
// counted the pods of the inputs.
type Job struct {
	Completions  *int32 // nil: the work queue, done at its first success
	Parallelism  int32
	Indexed      bool
	BackoffLimit int32
	// ActiveDeadline is spec.activeDeadlineSeconds (0: none): the Job
	// fails when it has been running that long.
	ActiveDeadline time.Duration
	// ReplaceFailedOnly is podReplacementPolicy Failed: a pod being
	// deleted is replaced, and counted as failed, only once it is gone.
	ReplaceFailedOnly bool
	Suspended         bool
	// Succeeded and Failed count the pods of the inputs that finished;
	// SucceededIndexes are, for an Indexed Job, the indexes they completed.
	Succeeded        int
	Failed           int
	SucceededIndexes []int
}

// The labels Kubernetes' controllers give the pods they make, by pod.
const (
	JobCompletionIndexLabel = "batch.kubernetes.io/job-completion-index"
	StatefulSetPodNameLabel = "statefulset.kubernetes.io/pod-name"
	PodIndexLabel           = "apps.kubernetes.io/pod-index"
)

// WantActive is how many pods the Job wants running, with succeeded pods
// done and the rest of its state aside (kube's manageJob): parallelism
// pods, never more than the completions left; without completions,
// parallelism until the first success, and from then on no new pod.
func (j *Job) WantActive(succeeded, active int) int {
	par := int(j.Parallelism)
	if j.Completions == nil {
		if succeeded > 0 {
			return active
		}
		return par
	}
	return max(0, min(par, int(*j.Completions)-succeeded))
}

// PendingIndexes returns, in increasing order, the first n indexes of an
// Indexed Job below its completions that are neither done nor taken (a pod
// of the index is active), as kube's firstPendingIndexes picks them.
func (j *Job) PendingIndexes(n int, done, taken func(int) bool) []int {
	var out []int
	for i := 0; j.Completions != nil && i < int(*j.Completions) && len(out) < n; i++ {
		if !done(i) && !taken(i) {
			out = append(out, i)
		}
	}
	return out
}

// PodLabels are the labels of the pod named name the controller makes
// with index (a Job's completion index or a StatefulSet's ordinal; -1 for
// none): its template's, and those of the pod itself. The map is new when
// the pod has labels of its own, else the template's (read-only).
func (c *Controller) PodLabels(name string, index int) map[string]string {
	var own map[string]string
	switch {
	case c.Kind == "Job" && c.Job != nil && c.Job.Indexed && index >= 0:
		own = map[string]string{JobCompletionIndexLabel: strconv.Itoa(index)}
	case c.Kind == "StatefulSet":
		own = map[string]string{StatefulSetPodNameLabel: name, PodIndexLabel: strconv.Itoa(index)}
	}
	if own == nil {
		return c.Template.Labels
	}
	out := maps.Clone(c.Template.Labels)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, own)
	return out
}

// JobPodName names a Job's pod: <job>-<k> for the k-th pod of a
// NonIndexed Job, <job>-<index>-<k> for the k-th pod of an index, where
// Kubernetes adds a random suffix to the prefixes <job>- and
// <job>-<index>-.
func JobPodName(job string, indexed bool, index, k int) string {
	if indexed {
		return job + "-" + strconv.Itoa(index) + "-" + strconv.Itoa(k)
	}
	return job + "-" + strconv.Itoa(k)
}
