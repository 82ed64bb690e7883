package kueue

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gangsim/gangsim/cluster"
)

// Workload is what Kueue admits: a job's pods as pod sets, in a
// LocalQueue, with one priority. The job integrations make one per job
// (a Job, a JobSet, a pod group, ...); the admission engine reads it and
// never changes it.
type Workload struct {
	Namespace, Name string
	// Queue is the LocalQueue named by the kueue.x-k8s.io/queue-name
	// label, in the workload's namespace.
	Queue string
	// Priority is the workload's priority: its WorkloadPriorityClass's
	// value when it names one, else its pods' PriorityClass's, else 0.
	// PriorityClass names the class it came from ("" for none).
	Priority      int32
	PriorityClass string
	// Created is when the workload was made: its queue order.
	Created time.Duration
	PodSets []PodSet
}

// Key is the workload's namespace/name.
func (w *Workload) Key() string { return w.Namespace + "/" + w.Name }

// PodSet is a group of identical pods of a workload: how many, the
// fewest Kueue may admit (partial admission), what each pod asks for,
// and the scheduling terms that decide which flavors it may use.
type PodSet struct {
	Name  string
	Count int32
	// MinCount is the fewest pods Kueue may admit when the whole count
	// does not fit (a Job's kueue.x-k8s.io/job-min-parallelism); 0 when
	// the pod set is admitted whole.
	MinCount int32
	// Requests are each pod's requests as Kueue counts them: the pod's
	// effective requests (its containers', init containers' and overhead),
	// limits standing for missing requests.
	Requests cluster.ResourceList
	// NodeSelector, Affinity and Tolerations are the pods' own: a flavor
	// whose node labels they exclude, or whose taints they do not
	// tolerate, is not tried.
	NodeSelector map[string]string
	Affinity     *cluster.NodeAffinity
	Tolerations  []cluster.Toleration
	// Topology is its topology request (TAS), nil for none.
	Topology *TopologyRequest
}

// minCount is the fewest pods of the pod set Kueue may admit.
func (ps *PodSet) minCount() int32 {
	if ps.MinCount > 0 && ps.MinCount < ps.Count {
		return ps.MinCount
	}
	return ps.Count
}

// shape is the workload's equivalence class, Kueue's scheduling hash:
// its priority and the pod sets' names, counts, requests and scheduling
// terms. Two workloads of one shape fit or do not fit alike, so a
// BestEffortFIFO queue parks the whole class when one of it does not.
func (w *Workload) shape() string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(int(w.Priority)))
	for i := range w.PodSets {
		ps := &w.PodSets[i]
		fmt.Fprintf(&b, "|%s/%d/%d/", ps.Name, ps.Count, ps.MinCount)
		for _, r := range slices.Sorted(maps.Keys(ps.Requests)) {
			fmt.Fprintf(&b, "%s=%d,", r, ps.Requests[r])
		}
		b.WriteString("/")
		for _, k := range slices.Sorted(maps.Keys(ps.NodeSelector)) {
			fmt.Fprintf(&b, "%s=%s,", k, ps.NodeSelector[k])
		}
		fmt.Fprintf(&b, "/%v/%v", ps.Affinity, ps.Tolerations)
		if ps.Topology != nil {
			fmt.Fprintf(&b, "/%+v", *ps.Topology)
		}
	}
	return b.String()
}

// PodSetAssignment is what Kueue admitted of a pod set: how many pods,
// and the flavor of each resource they ask for.
type PodSetAssignment struct {
	Name    string
	Count   int32
	Flavors map[cluster.ResourceName]string
	// Usage is the pod set's total, count times each pod's requests.
	Usage cluster.ResourceList
	// TopologyAssignment is where its pods go (TAS), nil when its flavor
	// is not a TAS flavor.
	TopologyAssignment *TopologyAssignment
}

// Admission is a workload's quota reservation: its ClusterQueue and what
// each pod set got.
type Admission struct {
	ClusterQueue string
	PodSets      []PodSetAssignment
}

// Flavor is the one flavor of the pod set's resources (the first
// resource's, by name, when they got several), "" when it asks for none
// the queue covers.
func (a *Admission) Flavor(podSet string) string {
	for _, ps := range a.PodSets {
		if ps.Name == podSet {
			for _, r := range slices.Sorted(maps.Keys(ps.Flavors)) {
				return ps.Flavors[r]
			}
		}
	}
	return ""
}

// WorkloadName is the name Kueue gives the Workload of an object of kind
// (lower case) in API group, named owner: "<kind>-<owner>-<hash>", cut to
// 253 characters, the hash being the first five hex digits of a SHA-1 of
// the kind, group, name and UID. Kubernetes' UID is random, so the hash
// here is taken with an empty UID: the name is Kueue's in form, and the
// same in every run.
func WorkloadName(kind, group, owner string) string {
	h := sha1.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n", kindTitle(kind), group, owner)
	prefix := kind + "-" + owner
	if len(prefix) > 253-6 {
		prefix = prefix[:253-6]
	}
	return prefix + "-" + hex.EncodeToString(h.Sum(nil))[:5]
}

// kindTitle is a kind as its API names it: "Pod", "Job", "JobSet".
func kindTitle(kind string) string {
	switch kind {
	case "jobset":
		return "JobSet"
	case "mpijob":
		return "MPIJob"
	case "pytorchjob":
		return "PyTorchJob"
	case "trainjob":
		return "TrainJob"
	case "raycluster":
		return "RayCluster"
	case "rayjob":
		return "RayJob"
	case "leaderworkerset":
		return "LeaderWorkerSet"
	}
	if kind == "" {
		return ""
	}
	return strings.ToUpper(kind[:1]) + kind[1:]
}
