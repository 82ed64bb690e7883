package kube

import (
	"maps"
	"slices"
	"strings"
)

// Clusters carry the keys of schedulers, queues and GPU sharers beside
// kube-scheduler: labels and annotations, and extended resources. What the
// importer does not read of them is warned, key by key, so that a planner
// knows which decisions the simulation leaves out.

// foreignNote is what the importer says of the keys that start with
// prefix (the whole key when it ends without '/' or '_').
type foreignNote struct {
	prefix, detail string
}

// foreignKeyNotes, in order: the first matching prefix speaks. Keys the
// gang formats read (members.go, kueue.go) are not among them.
var foreignKeyNotes = []foreignNote{
	{"kueue.x-k8s.io/queue-name", "the inputs hold no Kueue object, so Kueue does not run: the pods are scheduled as if admitted at once"},
	{"kueue.x-k8s.io/priority-class", "the inputs hold no Kueue object, so Kueue does not run: the pods' own priority applies"},
	{"kueue.x-k8s.io/", "not modelled: ignored"},
	{"pod-group.scheduling.", "the lightweight Coscheduling labels are not read: a gang needs a PodGroup (scheduling.x-k8s.io/v1alpha1), or a Kueue pod group"},
	{"scheduling.x-k8s.io/", "not modelled, ignored"},
	{"gang.scheduling.koordinator.sh/", "Koordinator's gang annotations are not read: a gang needs a PodGroup"},
	{"scheduling.k8s.io/group-name", "Volcano's PodGroups are not read: the pod is scheduled on its own"},
	{"volcano.sh/", "Volcano's scheduling is not modelled: ignored"},
	{"hami.io/", "HAMi's GPU sharing (its scheduler extender and device plugin) is not modelled: ignored"},
	{"nvidia.com/use-gpu", "HAMi's choice of GPU types or devices is not modelled: ignored"},
	{"nvidia.com/nouse-gpu", "HAMi's choice of GPU types or devices is not modelled: ignored"},
	{"ALIYUN_COM_GPU_MEM_", "the assignment of the gpushare scheduler extender is not modelled: ignored"},
	{"koordinator.sh/gpu", "Koordinator's GPU sharing is not modelled: ignored"},
}

// kueueReads are the keys Kueue's integrations read when Kueue runs.
var kueueReads = map[string]bool{kueueQueueName: true, kueuePriorityClass: true, kueueMinParallel: true}

// kueuePodReads are the keys Kueue's pod integration alone reads: how a
// pod group ends.
var kueuePodReads = map[string]bool{kueueRetriable: true, kueueServing: true}

// gangKeys are the keys the gang formats read: never foreign.
var gangKeys = []string{pluginsLabel, legacyLabel, kueueGroupName, kueueTotalCount, kueueRequired, kueuePreferred, kueueUnconstrained}

// noteOf returns what is said of a key, or "".
func noteOf(key string) string {
	if slices.Contains(gangKeys, key) {
		return ""
	}
	for _, n := range foreignKeyNotes {
		if strings.HasPrefix(key, n.prefix) {
			return n.detail
		}
	}
	return ""
}

// anyNote reports whether some key of keys has a note.
func anyNote(keys map[string]string) bool {
	for key := range keys {
		if noteOf(key) != "" {
			return true
		}
	}
	return false
}

// foreignKeys warns about the labels and annotations of the metadata at
// path of o that other schedulers read.
func (k *kubeImport) foreignKeys(o *Object, path string, labels, annotations map[string]string) {
	if !anyNote(labels) && !anyNote(annotations) { // most objects: nothing to sort
		return
	}
	for _, set := range []struct {
		sub  string
		keys map[string]string
	}{{"labels", labels}, {"annotations", annotations}} {
		for _, key := range slices.Sorted(maps.Keys(set.keys)) {
			d := noteOf(key)
			if k.kueueOn && kueuePodReads[key] && o.kind == "Pod" {
				d = "" // Kueue's pod integration reads it
			} else if k.kueueOn && kueueReads[key] {
				if kueueJobKinds[o.kind] || o.kind == "Pod" {
					d = "" // Kueue's integration of the kind reads it
				} else {
					d = "Kueue's integration of " + o.kind + " is not modelled: its pods are scheduled as if admitted at once"
				}
			}
			if d != "" {
				k.ws.Add(o.kind, path+"."+set.sub+"["+key+"]", d, o.file+": "+o.ref())
			}
		}
	}
}

// gpuShareResources are the extended resources of GPU sharers, and what
// the simulator does with them: kube-scheduler counts them as any extended
// resource, and so does the simulator; the sharer's own placement is not
// modelled.
var gpuShareResources = map[string]string{
	"aliyun.com/gpu-mem": "GPU memory shared by Aliyun gpushare: counted as one amount over all of a node's GPUs; " +
		"the gpushare extender's check that it fits on one GPU is not modelled",
	"aliyun.com/gpu-count": "a node's GPU count for Aliyun gpushare: counted as an extended resource",
	"nvidia.com/gpumem": "a share of one GPU's memory (HAMi): HAMi's scheduler extender, which places shares, is not modelled; " +
		"a node offers it only if its allocatable lists it, beside the nvidia.com/gpu count kube-scheduler checks",
	"nvidia.com/gpumem-percentage": "a share of one GPU's memory (HAMi): HAMi's scheduler extender, which places shares, is not modelled; " +
		"a node offers it only if its allocatable lists it",
	"nvidia.com/gpucores": "a share of one GPU's cores (HAMi): HAMi's scheduler extender, which places shares, is not modelled; " +
		"a node offers it only if its allocatable lists it",
	"nvidia.com/gpu.shared": "a time-sliced share of a GPU (NVIDIA's device plugin): counted as kube-scheduler counts it; " +
		"what the sharers cost each other is not modelled",
	"volcano.sh/vgpu-memory":  "a share of a GPU (Volcano vGPU): Volcano's placement of shares is not modelled; counted as an extended resource",
	"volcano.sh/vgpu-number":  "a share of a GPU (Volcano vGPU): Volcano's placement of shares is not modelled; counted as an extended resource",
	"volcano.sh/vgpu-cores":   "a share of a GPU (Volcano vGPU): Volcano's placement of shares is not modelled; counted as an extended resource",
	"koordinator.sh/gpu-core": "a share of a GPU (Koordinator): Koordinator's placement of shares is not modelled; counted as an extended resource",
	"koordinator.sh/gpu-memory": "a share of a GPU (Koordinator): Koordinator's placement of shares is not modelled; " +
		"counted as an extended resource",
	"koordinator.sh/gpu-memory-ratio": "a share of a GPU (Koordinator): Koordinator's placement of shares is not modelled; " +
		"counted as an extended resource",
	"koordinator.sh/gpu-shared": "a share of a GPU (Koordinator): Koordinator's placement of shares is not modelled; counted as an extended resource",
}

// gpuShares warns about the GPU shares a pod requests.
func (k *kubeImport) gpuShares(m *member) {
	s := m.pod()
	for name := range s.Requests {
		if _, ok := gpuShareResources[name]; !ok {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(s.Requests)) {
			if d, ok := gpuShareResources[name]; ok {
				k.ws.Add(m.o.kind, s.Origin.Spec+".containers[].resources["+name+"]", d, m.first())
			}
		}
		return
	}
}

// gpuSharingLabels are the node labels that say a node's GPUs are shared
// in time (time-slicing, MPS): its GPU count is then a count of shares.
var gpuSharingLabels = []string{"nvidia.com/gpu.replicas", "nvidia.com/gpu.sharing-strategy",
	"cloud.google.com/gke-gpu-sharing-strategy", "cloud.google.com/gke-max-shared-clients-per-gpu"}

// nodeShares warns about the GPU sharing of the nodes.
func (k *kubeImport) nodeShares() {
	for _, d := range k.objs {
		v, ok := d.v.(*kubeNode)
		if !ok {
			continue
		}
		first := d.o.file + ": " + d.o.ref()
		for _, l := range gpuSharingLabels {
			if _, ok := v.Metadata.Labels[l]; ok {
				k.ws.Add(d.o.kind, "metadata.labels["+l+"]", "GPUs shared in time (time-slicing or MPS): the node's GPU count is one of shares, "+
					"scheduled as kube-scheduler schedules it; what the sharers cost each other is not modelled", first)
			}
		}
		alloc := v.Status.Allocatable
		if alloc == nil {
			alloc = v.Status.Capacity
		}
		for _, name := range slices.Sorted(maps.Keys(alloc)) {
			if det, ok := gpuShareResources[name]; ok {
				k.ws.Add(d.o.kind, "status.allocatable["+name+"]", det, first)
			}
		}
		k.foreignKeys(d.o, "metadata", nil, v.Metadata.Annotations)
	}
}
