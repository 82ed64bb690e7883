package metrics

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/gangsim/gangsim/cluster"
)

// WorkloadWait is the wait of one workload's pods (see Workload): the
// pods it scheduled and their waits, and its pods pending at the end.
type WorkloadWait struct {
	Workload string
	Wait     Durations
	// Pending counts its pods pending at End, which have no wait yet.
	Pending int
}

// Workload names the workload a pod belongs to, for the waits by
// workload: its controller as "Kind/name" ("Job/train",
// "StatefulSet/db"), a Deployment's ReplicaSet as its Deployment
// ("Deployment/web", not "ReplicaSet/web-5d4f9": the ReplicaSet's name is
// the Deployment's and the hash its pods carry in pod-template-hash),
// a pod of a workload that runs others as that workload, by the label its
// controller gives every pod it makes ("JobSet/train" for the pods of
// the JobSet's Jobs, "LeaderWorkerSet/vllm" for both of a group's
// StatefulSets, "RayCluster/", "MPIJob/", "PyTorchJob/", a Volcano Job's
// "Job.batch.volcano.sh/"), else its PodGroup's name, else its own
// name. A PodGroup's
// or a pod's name ending in a number the scenario gave its copies (a
// workload's replicas web-0, web-1, its gangs train-0, train-1, a count's
// copies) counts without it, so that a scenario workload is one workload;
// a controller's name is taken as it is. Outside the default namespace
// the namespace comes first ("team-a/Job/train").
func Workload(p *cluster.Pod) string {
	var name string
	switch top, ok := topWorkload(p); {
	case ok:
		name = top
	case p.Owner != nil && p.Owner.Name != "":
		name = p.Owner.Kind + "/" + p.Owner.Name
		if d, ok := deploymentOf(p); ok {
			name = "Deployment/" + d
		}
	case p.PodGroup != "":
		name = withoutCopyNumber(p.PodGroup)
	default:
		name = withoutCopyNumber(p.Name)
	}
	if p.Namespace != "" && p.Namespace != cluster.DefaultNamespace {
		return p.Namespace + "/" + name
	}
	return name
}

// workloadLabels are the labels by which the controllers of workloads
// that run others (or the operators that make their pods) name the
// workload on every pod they make, with the workload's kind.
var workloadLabels = []struct{ label, kind string }{
	{"jobset.sigs.k8s.io/jobset-name", "JobSet"},
	{"leaderworkerset.sigs.k8s.io/name", "LeaderWorkerSet"},
	{"ray.io/cluster", "RayCluster"},
	{"volcano.sh/job-name", "Job.batch.volcano.sh"},
}

// kubeflowOperators are the Kubeflow operators' kinds by the
// operator-name label they give their pods (training.kubeflow.org/).
var kubeflowOperators = map[string]string{"mpi-operator": "MPIJob", "pytorchjob-controller": "PyTorchJob"}

// topWorkload is the workload that runs others a pod belongs to, as
// "Kind/name", by the labels its controller gives it.
func topWorkload(p *cluster.Pod) (string, bool) {
	for _, w := range workloadLabels {
		if v := p.Labels[w.label]; v != "" {
			return w.kind + "/" + v, true
		}
	}
	if kind := kubeflowOperators[p.Labels["training.kubeflow.org/operator-name"]]; kind != "" {
		if v := p.Labels["training.kubeflow.org/job-name"]; v != "" {
			return kind + "/" + v, true
		}
	}
	return "", false
}

// deploymentOf is the Deployment whose ReplicaSet owns p: a ReplicaSet
// named <deployment>-<hash>, the hash the pod's pod-template-hash label
// gives, as the Deployment controller names them.
func deploymentOf(p *cluster.Pod) (string, bool) {
	hash := p.Labels["pod-template-hash"]
	if p.Owner.Kind != "ReplicaSet" || hash == "" {
		return "", false
	}
	d, ok := strings.CutSuffix(p.Owner.Name, "-"+hash)
	return d, ok && d != ""
}

// withoutCopyNumber drops a final "-N" (digits) from a name: "web-12"
// is "web"; "web", "web-" and "12" are kept.
func withoutCopyNumber(name string) string {
	i := strings.LastIndexByte(name, '-')
	if i <= 0 || i == len(name)-1 {
		return name
	}
	for _, c := range name[i+1:] {
		if c < '0' || c > '9' {
			return name
		}
	}
	return name[:i]
}

// workloadWaits summarises the waits and the pending pods by workload,
// in name order.
func (r *Recorder) workloadWaits() []WorkloadWait {
	waits := map[string][]time.Duration{}
	for _, s := range r.waits {
		waits[s.workload] = append(waits[s.workload], s.wait)
	}
	pending := map[string]int{}
	for _, p := range r.pods {
		if p.pending {
			pending[p.workload]++
		}
	}
	names := make([]string, 0, len(waits)+len(pending))
	for w := range waits {
		names = append(names, w)
	}
	for w := range pending {
		if _, ok := waits[w]; !ok {
			names = append(names, w)
		}
	}
	slices.Sort(names)
	out := make([]WorkloadWait, len(names))
	for i, w := range names {
		out[i] = WorkloadWait{Workload: w, Wait: Summarize(waits[w]), Pending: pending[w]}
	}
	return out
}

// WorstWaits returns the report's waits by workload, those with pending
// pods first (most first), then by mean wait, then by p99, longest
// first; ties by name.
func (rep *Report) WorstWaits() []WorkloadWait {
	out := slices.Clone(rep.Pods.WaitByWorkload)
	slices.SortFunc(out, func(a, b WorkloadWait) int {
		return cmp.Or(cmp.Compare(b.Pending, a.Pending), cmp.Compare(b.Wait.Mean, a.Wait.Mean),
			cmp.Compare(b.Wait.P99, a.Wait.P99), cmp.Compare(a.Workload, b.Workload))
	})
	return out
}
