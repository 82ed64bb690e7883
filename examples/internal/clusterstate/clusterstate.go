// Package clusterstate writes the state of a Kueue-run cluster caught in
// the middle of a day, as kubectl prints it (a JSON List): nodes in two
// pools (CPU and GPU), Kueue's flavors, ClusterQueues in a cohort and
// their LocalQueues, the running Jobs with their pods on their nodes and
// their admitted Workloads, and the pending Jobs, suspended, with their
// Workloads waiting. examples/cluster-state is its command; the
// capacity-planning benchmarks of "when will it start?" run on it.
package clusterstate

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Params are the generator's settings.
type Params struct {
	Nodes, Running, Pending, Queues int
	// GPUNodes and GPUJobs are the shares of the nodes that are GPU
	// nodes (8 GPUs each) and of the Jobs that ask for GPUs.
	GPUNodes, GPUJobs float64
	MaxPods           int // most pods a Job runs
	Seed              uint64
	Durations         bool    // write run times (gangsim.io/duration)
	Load              float64 // share of each pool the running Jobs fill, at most
}

// Defaults are the sizes "when will it start?" is measured at: 1,000
// nodes, 5,000 running Jobs, 1,000 pending.
func Defaults() Params {
	return Params{Nodes: 1000, Running: 5000, Pending: 1000, Queues: 10, GPUNodes: 0.25, GPUJobs: 0.05, MaxPods: 3, Seed: 1, Durations: true, Load: 0.8}
}

// Check says what is wrong with p, or nil.
func (p Params) Check() error {
	switch {
	case p.Nodes < 1 || p.Running < 0 || p.Pending < 0 || p.Queues < 1 || p.MaxPods < 1:
		return fmt.Errorf("clusterstate: nodes, queues and most pods must be positive, running and pending not negative")
	case p.GPUNodes < 0 || p.GPUNodes > 1 || p.GPUJobs < 0 || p.GPUJobs > 1 || p.Load <= 0 || p.Load > 1:
		return fmt.Errorf("clusterstate: the GPU shares lie in [0, 1], the load in (0, 1]")
	}
	return nil
}

// JSON is the cluster's state as kubectl prints it (indented by indent:
// "" for one line).
func JSON(p Params, indent string) ([]byte, error) {
	if err := p.Check(); err != nil {
		return nil, err
	}
	if indent == "" {
		return json.Marshal(generate(p))
	}
	return json.MarshalIndent(generate(p), "", indent)
}

type obj = map[string]any

// The node shapes of the two pools.
const (
	cpuNodeCPU, cpuNodeMem = 64, 256 // cores, GiB
	gpuNodeCPU, gpuNodeMem = 64, 512
	gpuNodeGPU             = 8
)

// node is a node's capacity left, as the running pods are placed.
type node struct {
	name          string
	gpu           bool
	cpu, mem, dev int
}

// jobShape is a Job's pods: how many, and each one's request.
type jobShape struct {
	gpu           bool
	pods          int
	cpu, mem, dev int
}

func generate(p Params) obj {
	rng := rand.New(rand.NewPCG(p.Seed, 0x5eed))
	var items []any
	var nodes []*node
	gpuNodes := int(math.Round(float64(p.Nodes) * p.GPUNodes))
	for i := range p.Nodes {
		n := &node{name: fmt.Sprintf("node-%04d", i), cpu: cpuNodeCPU, mem: cpuNodeMem}
		pool := "cpu"
		if i < gpuNodes {
			n.gpu, n.cpu, n.mem, n.dev, pool = true, gpuNodeCPU, gpuNodeMem, gpuNodeGPU, "gpu"
		}
		nodes = append(nodes, n)
		alloc := obj{"cpu": fmt.Sprint(n.cpu), "memory": fmt.Sprintf("%dGi", n.mem), "pods": "110"}
		if n.gpu {
			alloc["nvidia.com/gpu"] = fmt.Sprint(n.dev)
		}
		items = append(items, obj{"apiVersion": "v1", "kind": "Node",
			"metadata": obj{"name": n.name, "labels": obj{"kubernetes.io/hostname": n.name, "pool": pool,
				"topology.kubernetes.io/zone": fmt.Sprintf("zone-%d", i%3)}},
			"status": obj{"allocatable": alloc, "capacity": alloc}})
	}
	items = append(items, kueueObjects(p, gpuNodes)...)
	// running Jobs, first fit from a random node of their pool, until
	// the load is reached
	capCPU := (p.Nodes - gpuNodes) * cpuNodeCPU // the CPU pool's cores
	capGPU := gpuNodes * gpuNodeGPU
	usedCPU, usedGPU := 0, 0
	for i, placed := 0, 0; placed < p.Running && i < 4*p.Running; i++ {
		s := shape(rng, p, gpuNodes > 0)
		if s.gpu && float64(usedGPU+s.pods*s.dev) > p.Load*float64(capGPU) ||
			!s.gpu && float64(usedCPU+s.pods*s.cpu) > p.Load*float64(capCPU) {
			continue
		}
		on := place(rng, nodes, s)
		if on == nil {
			continue
		}
		placed++
		if s.gpu {
			usedGPU += s.pods * s.dev
		} else {
			usedCPU += s.pods * s.cpu
		}
		name := fmt.Sprintf("run-%05d", i)
		q := rng.IntN(p.Queues)
		items = append(items, job(name, q, s, false, p.Durations, rng))
		for k, n := range on {
			items = append(items, pod(name, q, k, n, s, p.Durations, rng))
		}
		items = append(items, workload(name, q, s, true))
	}
	for i := range p.Pending {
		s := shape(rng, p, gpuNodes > 0)
		name := fmt.Sprintf("wait-%05d", i)
		q := rng.IntN(p.Queues)
		items = append(items, job(name, q, s, true, p.Durations, rng), workload(name, q, s, false))
	}
	return obj{"apiVersion": "v1", "kind": "List", "items": items}
}

// kueueObjects are the flavors, the cohort's ClusterQueues (each an equal
// share of each pool as nominal quota, borrowing the rest) and their
// LocalQueues.
func kueueObjects(p Params, gpuNodes int) []any {
	cpuNodes := p.Nodes - gpuNodes
	items := []any{
		obj{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": obj{"name": "cpu-pool"},
			"spec": obj{"nodeLabels": obj{"pool": "cpu"}}},
		obj{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": obj{"name": "gpu-pool"},
			"spec": obj{"nodeLabels": obj{"pool": "gpu"}}},
	}
	share := func(total int) string { return fmt.Sprint(total / p.Queues) }
	for q := range p.Queues {
		name := fmt.Sprintf("team-%02d", q)
		flavors := []any{obj{"name": "cpu-pool", "resources": []any{
			obj{"name": "cpu", "nominalQuota": share(cpuNodes * cpuNodeCPU)},
			obj{"name": "memory", "nominalQuota": share(cpuNodes*cpuNodeMem) + "Gi"},
			obj{"name": "nvidia.com/gpu", "nominalQuota": "0"}}}}
		if gpuNodes > 0 {
			flavors = append(flavors, obj{"name": "gpu-pool", "resources": []any{
				obj{"name": "cpu", "nominalQuota": share(gpuNodes * gpuNodeCPU)},
				obj{"name": "memory", "nominalQuota": share(gpuNodes*gpuNodeMem) + "Gi"},
				obj{"name": "nvidia.com/gpu", "nominalQuota": share(gpuNodes * gpuNodeGPU)}}})
		}
		items = append(items,
			obj{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": obj{"name": name},
				"spec": obj{"cohortName": "all", "namespaceSelector": obj{}, "queueingStrategy": "BestEffortFIFO",
					"preemption":     obj{"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"},
					"resourceGroups": []any{obj{"coveredResources": []any{"cpu", "memory", "nvidia.com/gpu"}, "flavors": flavors}}}},
			obj{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": obj{"name": name, "namespace": name},
				"spec": obj{"clusterQueue": name}},
			obj{"apiVersion": "v1", "kind": "Namespace", "metadata": obj{"name": name}})
	}
	return items
}

// shape draws a Job: GPU with the pool's share, 1 to maxPods pods.
func shape(rng *rand.Rand, p Params, gpus bool) jobShape {
	s := jobShape{pods: 1 + rng.IntN(p.MaxPods)}
	if gpus && rng.Float64() < p.GPUJobs {
		s.gpu, s.dev = true, []int{1, 2, 4, 8}[rng.IntN(4)]
		s.cpu, s.mem = s.dev*4, s.dev*32
		return s
	}
	s.cpu = []int{1, 2, 4, 8}[rng.IntN(4)]
	s.mem = s.cpu * 4
	return s
}

// place puts a Job's pods on nodes of its pool, first fit from a random
// node; nil when they do not all fit (nothing is taken then).
func place(rng *rand.Rand, nodes []*node, s jobShape) []*node {
	var out []*node
	start := rng.IntN(len(nodes))
	for k := 0; k < len(nodes) && len(out) < s.pods; k++ {
		n := nodes[(start+k)%len(nodes)]
		for n.gpu == s.gpu && n.cpu >= s.cpu && n.mem >= s.mem && n.dev >= s.dev && len(out) < s.pods {
			n.cpu, n.mem, n.dev = n.cpu-s.cpu, n.mem-s.mem, n.dev-s.dev
			out = append(out, n)
		}
	}
	if len(out) < s.pods {
		for _, n := range out {
			n.cpu, n.mem, n.dev = n.cpu+s.cpu, n.mem+s.mem, n.dev+s.dev
		}
		return nil
	}
	return out
}

// runTime draws a run time: log-normal around 40 minutes, 1 minute to
// a day.
func runTime(rng *rand.Rand) string {
	d := time.Duration(math.Exp(math.Log(float64(40*time.Minute))+rng.NormFloat64()) / float64(time.Minute) * float64(time.Minute))
	d = min(max(d, time.Minute), 24*time.Hour).Round(time.Second)
	return d.String()
}

func requests(s jobShape) obj {
	r := obj{"cpu": fmt.Sprint(s.cpu), "memory": fmt.Sprintf("%dGi", s.mem)}
	if s.dev > 0 {
		r["nvidia.com/gpu"] = fmt.Sprint(s.dev)
	}
	return r
}

func flavorOf(s jobShape) string {
	if s.gpu {
		return "gpu-pool"
	}
	return "cpu-pool"
}

func podSpec(s jobShape) obj {
	return obj{"restartPolicy": "Never", "containers": []any{obj{"name": "main", "image": "trainer",
		"resources": obj{"requests": requests(s), "limits": requests(s)}}}}
}

func job(name string, q int, s jobShape, suspended, durations bool, rng *rand.Rand) obj {
	ns := fmt.Sprintf("team-%02d", q)
	tmpl := obj{"spec": podSpec(s)}
	if suspended && durations {
		tmpl["metadata"] = obj{"annotations": obj{"gangsim.io/duration": runTime(rng)}}
	}
	if !suspended { // Kueue wrote the flavor's labels into the template when it admitted it
		spec := podSpec(s)
		spec["nodeSelector"] = obj{"pool": map[bool]string{true: "gpu", false: "cpu"}[s.gpu]}
		tmpl["spec"] = spec
	}
	return obj{"apiVersion": "batch/v1", "kind": "Job",
		"metadata": obj{"name": name, "namespace": ns, "uid": "uid-" + name,
			"labels": obj{"kueue.x-k8s.io/queue-name": ns}},
		"spec": obj{"parallelism": s.pods, "completions": s.pods, "suspend": suspended, "template": tmpl}}
}

func pod(job string, q, k int, n *node, s jobShape, durations bool, rng *rand.Rand) obj {
	meta := obj{"name": fmt.Sprintf("%s-%d", job, k), "namespace": fmt.Sprintf("team-%02d", q),
		"labels":          obj{"batch.kubernetes.io/job-name": job},
		"ownerReferences": []any{obj{"apiVersion": "batch/v1", "kind": "Job", "name": job, "uid": "uid-" + job, "controller": true}}}
	if durations {
		meta["annotations"] = obj{"gangsim.io/duration": runTime(rng)}
	}
	spec := podSpec(s)
	spec["nodeName"] = n.name
	spec["nodeSelector"] = obj{"pool": map[bool]string{true: "gpu", false: "cpu"}[s.gpu]}
	return obj{"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": obj{"phase": "Running"}}
}

func workload(name string, q int, s jobShape, admitted bool) obj {
	ns := fmt.Sprintf("team-%02d", q)
	w := obj{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
		"metadata": obj{"name": "job-" + name, "namespace": ns,
			"ownerReferences": []any{obj{"apiVersion": "batch/v1", "kind": "Job", "name": name, "uid": "uid-" + name, "controller": true}}},
		"spec": obj{"queueName": ns, "podSets": []any{obj{"name": "main", "count": s.pods, "template": obj{"spec": podSpec(s)}}}}}
	if admitted {
		w["status"] = obj{"conditions": []any{obj{"type": "QuotaReserved", "status": "True"}, obj{"type": "Admitted", "status": "True"}},
			"admission": obj{"clusterQueue": ns, "podSetAssignments": []any{obj{"name": "main", "count": s.pods,
				"flavors": obj{"cpu": flavorOf(s), "memory": flavorOf(s), "nvidia.com/gpu": flavorOf(s)}}}}}
	}
	return w
}
