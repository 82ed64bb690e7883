package schema

import "github.com/gangsim/gangsim/controllers"

// Controller is a workload controller the Kubernetes importer found: a
// Job, a ReplicaSet (a Deployment's made by the importer, or one of the
// inputs), a StatefulSet or a DaemonSet. The importer expands the pods it
// has at time 0 into the file's pods; the scenario's runner then keeps
// its pods going by the same rules (package controllers). It is not
// part of the file format: the importer writes it, the builder reads it.
type Controller struct {
	Kind      string // a controllers.Kind...: Job, ReplicaSet, StatefulSet, DaemonSet, or a PodSet's kind
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
	Job          *controllers.Job // a Job's rules, and what its pods of the inputs did
	// Parent, Of, Role and Exclusive place a workload under a parent (a
	// JobSet, an MPIJob, a PyTorchJob), as controllers.Workload has them;
	// a parent has no template.
	Parent    *controllers.Parent
	Of        *controllers.Parent
	Role      string
	Exclusive string
	// KeepRunning: its pods run until they are deleted unless their
	// template gives a run time (an MPIJob's workers, which serve ssh):
	// the run's default run time is not theirs.
	KeepRunning bool
	// Set is the rules of a LeaderWorkerSet, RayCluster or Volcano Job:
	// its members and their restarts; its templates are SetTemplates,
	// entries the builder converts as it converts Template (Set.Templates
	// is left nil). Template is the first of them.
	Set          *controllers.PodSet
	SetTemplates []Pod
	// After and Stops link the workload to another of its namespace
	// (controllers.Workload): a RayJob's submitter and its RayCluster.
	After, Stops *controllers.WorkloadRef
	// Queue is the LocalQueue its object's kueue.x-k8s.io/queue-name
	// label names ("" when Kueue does not manage it), PriorityClass its
	// kueue.x-k8s.io/priority-class label (a WorkloadPriorityClass), and
	// MinCount a Job's kueue.x-k8s.io/job-min-parallelism annotation (0:
	// none). Set on the top workload of an object only.
	Queue, PriorityClass string
	MinCount             int32
	// KueueOf names the object Kueue's workload is made for when it is
	// not this one: a RayJob's (its cluster and its submitter Job are one
	// workload); "" for none.
	KueueOf string
}

// PodLabels are the labels of the pod named name the controller makes
// with index (a Job's completion index or a StatefulSet's ordinal; -1 for
// none), as controllers.PodLabels gives them.
func (c *Controller) PodLabels(name string, index int) map[string]string {
	return controllers.PodLabels(c.Kind, c.Template.Labels, c.Job != nil && c.Job.Indexed, name, index)
}
