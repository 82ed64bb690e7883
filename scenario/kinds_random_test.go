package scenario

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gangsim/gangsim"
)

// TestRandomWorkloadKinds generates small random clusters (a few nodes,
// some in zones and racks, some with GPUs) and a random mix of the
// workload kinds the importer reads, written as Kubernetes objects: Jobs
// (Indexed or not, with backoff limits and deadlines), JobSets of several
// replicated jobs (success and failure policies, dependsOn, InOrder
// startup), LeaderWorkerSets (size, replicas, startup policy, Volcano's
// gang), TrainJobs with their runtimes (initializers, gangs), RayClusters
// and RayJobs with worker groups (gangs), MPIJobs (launcher, workers,
// gangs, clean-up policies), Volcano Jobs (tasks, minAvailable, maxRetry,
// policies), PodGroups whose pods arrive over time, StatefulSets and
// Deployments; random sizes, priorities, run times, some under a Kueue
// queue; and over time pods of high priority and nodes drained, removed
// and added, so that the controllers restart, replace and fail their
// pods. Each runs twice, and must load and run without error and without
// a scheduler invariant broken, give byte-identical results, and keep the
// rules of kinds_invariants_test.go: the pods each object makes are what
// its kind says, a gang binds all-or-nothing, no pod runs past its
// object's end, restarts stay within the kind's bounds, and the pods made
// stay within the limit of pods.
//
// go test runs 300 seeds; GANGSIM_LONG=1 runs 10,000 (GANGSIM_SEEDS,
// GANGSIM_FIRST_SEED and GANGSIM_DUMP as for TestRandomKueueScenarios). A
// failing seed's two files are written to a temporary directory, whose
// path the failure prints: go run ./examples/scenario <dir> replays it.
func TestRandomWorkloadKinds(t *testing.T) {
	randomSuite(t, "gangsim-random-kinds-", func(seed int, stats map[string]int) ([]File, func() error) {
		k := generateKindsScenario(uint64(seed))
		return k.files(), func() error { return checkRandomKindsScenario(k, stats) }
	})
}

// kindsScenario is one generated scenario: Kubernetes objects, a
// scenario file (nodes, priority classes, pods and events over time), what
// the generator knows of each workload object, and, when not 0, how many
// pods beyond those of the load the limit of pods leaves room for.
type kindsScenario struct {
	objects, cluster string
	objs             []*kindObject
	podRoom          int
}

func (k kindsScenario) files() []File {
	return []File{{Name: "objects.yaml", Data: []byte(k.objects)}, {Name: "cluster.yaml", Data: []byte(k.cluster)}}
}

// kindObject is what the generator knows of one workload object: the
// pods its kind makes, as its controller names and labels them.
type kindObject struct {
	kind, name string
	// selector is the labels (key, value) that mark the object's pods,
	// any of them
	selector [][2]string
	roles    []*podRole
	// initial is how many pods of its roles made at once the object has
	// at time 0; -1 when Kueue holds it
	initial int
	// gang is the PodGroup its pods join ("" for none; {0} stands for the
	// pod's first index, a LeaderWorkerSet's group), gangMin its minCount
	gang    string
	gangMin int
	// ends: once its controller says it finished, none of its pods (but
	// those of a role that keeps them) runs or is made
	ends bool
	// result is where the result lists it: "Job name" for Result.Jobs,
	// "<Kind> name" for Result.Workloads; "" for neither
	result string
	// backoff is the backoffLimit of a Job of the object, backoffJob (the
	// object itself when ""): a Job's, an MPIJob's launcher's, a RayJob's
	// submitter's; maxRestarts a JobSet's maxRestarts or a Volcano Job's
	// maxRetry; -1 when the kind has none
	backoff, maxRestarts int
	backoffJob           string
}

// podRole is one kind of pod an object makes: its names (each capture an
// index within its range), how many may be alive at once, their owner
// reference and labels.
type podRole struct {
	re *regexp.Regexp
	// ranges bound each capture: lo <= index < hi (hi 0: no bound)
	ranges [][2]int
	// slot is how many leading captures name one pod: at most one pod of
	// a slot is alive at a time
	slot int
	max  int
	// owner is the pods' owner reference, "Kind/name"; {0} stands for
	// the first capture, a trailing * for any suffix
	owner string
	// labels each equal a capture; fixed labels have fixed values
	labels map[string]int
	fixed  map[string]string
	// keeps: its pods may run on after the object ends (an MPIJob's
	// workers under cleanPodPolicy None)
	keeps bool
	// later: the controller makes its pods once others are ready (a
	// dependency, a startup order), which may be at time 0 too
	later bool
}

func role(re string, max int, owner string, ranges ...[2]int) *podRole {
	return &podRole{re: regexp.MustCompile(re), ranges: ranges, slot: len(ranges), max: max, owner: owner}
}

// kindsGen writes one random scenario of workload kinds.
type kindsGen struct {
	r        *rand.Rand
	obj, cl  strings.Builder
	objs     []*kindObject
	gpus     bool     // some node has GPUs
	zones    bool     // nodes carry zone and rack labels
	kueue    bool     // Kueue's objects exist: some objects name its queue
	nodes    []string // node names at time 0
	filePods int      // the scenario file's pods
	// prio is the priority class of the object being made ("" none): all
	// its templates name it, as a gang of kube-scheduler v1.37 has one
	// priority, its members'
	prio string
}

func (g *kindsGen) pick(choices ...string) string { return choices[g.r.IntN(len(choices))] }
func (g *kindsGen) chance(n int) bool             { return g.r.IntN(n) == 0 }
func (g *kindsGen) o(format string, args ...any)  { fmt.Fprintf(&g.obj, format, args...) }
func (g *kindsGen) c(format string, args ...any)  { fmt.Fprintf(&g.cl, format, args...) }
func (g *kindsGen) between(lo, hi int) int        { return lo + g.r.IntN(hi-lo+1) }

// generateKindsScenario returns the scenario of one seed.
func generateKindsScenario(seed uint64) kindsScenario {
	g := &kindsGen{r: rand.New(rand.NewPCG(seed, 0x6b696e6473))}
	g.o("# random workload kinds, seed %d\n", seed)
	g.c("# random workload kinds, seed %d\n", seed)
	g.c("priorityClasses:\n  - {name: low, value: 10}\n  - {name: high, value: 1000}\n")
	g.genNodes()
	if g.chance(4) {
		g.genKueue()
	}
	makers := []func(int){g.genJob, g.genJobSet, g.genLWS, g.genTrainJob, g.genRayCluster, g.genRayJob, g.genMPIJob, g.genVolcanoJob, g.genPodGroup, g.genSet}
	for i := range g.between(1, 5) {
		g.prio = g.pick("", "", "low", "high")
		makers[g.r.IntN(len(makers))](i)
	}
	g.genLoad()
	k := kindsScenario{objects: g.obj.String(), cluster: g.cl.String(), objs: g.objs}
	if g.chance(5) {
		k.podRoom = g.r.IntN(12)
	}
	return k
}

// genNodes makes two to six nodes (some of several copies), in zones
// and racks or not, some with GPUs.
func (g *kindsGen) genNodes() {
	g.zones = !g.chance(3)
	g.c("nodes:\n")
	for i := range g.between(2, 6) {
		name := fmt.Sprintf("n%d", i)
		alloc := fmt.Sprintf("cpu: %d, memory: %dGi", []int{2, 4, 8}[g.r.IntN(3)], []int{8, 32}[g.r.IntN(2)])
		if g.chance(3) {
			g.gpus = true
			alloc += fmt.Sprintf(", nvidia.com/gpu: %d", []int{2, 4, 8}[g.r.IntN(3)])
		}
		line := fmt.Sprintf("  - {name: %s, allocatable: {%s}", name, alloc)
		if g.zones {
			zone := g.pick("z0", "z1")
			line += fmt.Sprintf(", labels: {topology.kubernetes.io/zone: %s, rack: %s-r%d}", zone, zone, g.r.IntN(2))
		}
		if g.chance(4) {
			count := g.between(2, 3)
			line += fmt.Sprintf(", count: %d", count)
			for c := range count {
				g.nodes = append(g.nodes, fmt.Sprintf("%s-%d", name, c))
			}
		} else {
			g.nodes = append(g.nodes, name)
		}
		g.c("%s}\n", line)
	}
}

// genKueue makes a flavor, a ClusterQueue of some quota and a LocalQueue
// lq in default, which some objects name.
func (g *kindsGen) genKueue() {
	g.kueue = true
	g.o("---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default-flavor}\n")
	g.o("---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\nspec:\n  namespaceSelector: {}\n"+
		"  preemption: {withinClusterQueue: %s}\n  resourceGroups:\n  - coveredResources: [cpu, memory, nvidia.com/gpu]\n    flavors:\n"+
		"    - name: default-flavor\n      resources:\n      - {name: cpu, nominalQuota: %d}\n      - {name: memory, nominalQuota: 64Gi}\n      - {name: nvidia.com/gpu, nominalQuota: %d}\n",
		g.pick("Never", "LowerPriority"), g.between(2, 12), g.between(0, 8))
	g.o("---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lq, namespace: default}\nspec: {clusterQueue: cq}\n")
}

// queued returns the metadata labels of an object of a kind Kueue
// manages: its queue, now and then, when Kueue runs.
func (g *kindsGen) queued() (string, bool) {
	if g.kueue && g.chance(2) {
		return "kueue.x-k8s.io/queue-name: lq", true
	}
	return "", false
}

// template is a pod template in flow style: a run time now and then,
// the object's priority class, a container asking for cpu (and a GPU
// now and then). container names the container; extra is added to the
// pod spec ("schedulerName: volcano, ").
func (g *kindsGen) template(container, extra string, duration bool) string {
	meta := "{}"
	if duration {
		meta = "{annotations: {gangsim.io/duration: " + g.pick("30s", "2m", "10m", "1h") + "}}"
	}
	res := "requests: {cpu: " + g.pick("250m", "500m", "1", "2")
	if g.gpus && g.chance(4) {
		res += ", nvidia.com/gpu: 1}, limits: {nvidia.com/gpu: 1"
	}
	if g.prio != "" {
		extra += "priorityClassName: " + g.prio + ", "
	}
	return fmt.Sprintf("{metadata: %s, spec: {%scontainers: [{name: %s, image: x, resources: {%s}}}]}}", meta, extra, container, res)
}

func (g *kindsGen) add(o *kindObject) *kindObject {
	g.objs = append(g.objs, o)
	return o
}

// genJob makes a batch Job: Indexed or not, completions (or a work
// queue), parallelism, a backoff limit, now and then a deadline.
func (g *kindsGen) genJob(i int) {
	name := fmt.Sprintf("job%d", i)
	par := g.between(1, 4)
	comp := 0 // a work queue
	if !g.chance(4) {
		comp = g.between(1, 6)
	}
	indexed := comp > 0 && g.chance(2)
	backoff := 6
	o := g.add(&kindObject{kind: "Job", name: name, selector: [][2]string{{"batch.kubernetes.io/job-name", name}}, ends: true,
		result: "Job " + name, backoff: -1, maxRestarts: -1, initial: par})
	if comp > 0 {
		o.initial = min(par, comp)
	}
	labels, q := g.queued()
	g.o("---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: %s, labels: {%s}}\nspec:\n  parallelism: %d\n", name, labels, par)
	if comp > 0 {
		g.o("  completions: %d\n", comp)
	}
	if indexed {
		g.o("  completionMode: Indexed\n")
		r := role(`^`+name+`-(\d+)-(\d+)$`, o.initial, "Job/"+name, [2]int{0, comp}, [2]int{})
		r.slot, r.labels = 1, map[string]int{"batch.kubernetes.io/job-completion-index": 0}
		o.roles = append(o.roles, r)
	} else {
		o.roles = append(o.roles, role(`^`+name+`-(\d+)$`, o.initial, "Job/"+name, [2]int{}))
	}
	if g.chance(2) {
		backoff = g.between(0, 3)
		g.o("  backoffLimit: %d\n", backoff)
	}
	o.backoff = backoff
	if g.chance(6) {
		d := g.pick("0", "60", "600")
		if d == "0" {
			o.initial = 0
		}
		g.o("  activeDeadlineSeconds: %s\n", d)
	}
	if q {
		o.initial = -1
	}
	g.o("  template: %s\n", g.template("c", "restartPolicy: "+g.pick("Never", "OnFailure")+", ", !g.chance(5)))
}

// genJobSet makes a JobSet of one to three replicated jobs, with
// InOrder startup or dependsOn, success and failure policies.
func (g *kindsGen) genJobSet(i int) {
	name := fmt.Sprintf("js%d", i)
	o := g.add(&kindObject{kind: "JobSet", name: name, selector: [][2]string{{"jobset.sigs.k8s.io/jobset-name", name}}, ends: true,
		result: "JobSet " + name, backoff: -1, maxRestarts: 0})
	labels, q := g.queued()
	n := g.between(1, 3)
	inOrder := n > 1 && g.chance(3)
	g.o("---\napiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: %s, labels: {%s}}\nspec:\n", name, labels)
	if inOrder {
		g.o("  startupPolicy: {startupPolicyOrder: InOrder}\n")
	}
	var rjs []string
	g.o("  replicatedJobs:\n")
	for j := range n {
		rj := fmt.Sprintf("r%d", j)
		rjs = append(rjs, rj)
		replicas, comp := g.between(1, 3), g.between(1, 3)
		par := g.between(1, comp)
		g.o("  - name: %s\n    replicas: %d\n", rj, replicas)
		atZero := !inOrder || j == 0
		if j > 0 && !inOrder && g.chance(2) {
			g.o("    dependsOn: [{name: r%d, status: %s}]\n", j-1, g.pick("Ready", "Complete"))
			atZero = false
		}
		if atZero {
			o.initial += replicas * par
		}
		g.o("    template:\n      spec:\n        parallelism: %d\n        completions: %d\n", par, comp)
		if g.chance(3) {
			g.o("        backoffLimit: %d\n", g.between(0, 2))
		}
		if g.chance(8) {
			g.o("        activeDeadlineSeconds: %d\n", []int{60, 300}[g.r.IntN(2)])
		}
		g.o("        template: %s\n", g.template("c", "restartPolicy: Never, ", !g.chance(6)))
		r := role(`^`+name+`-`+rj+`-(\d+)-(\d+)-(\d+)$`, replicas*par, "Job/"+name+"-"+rj+"-{0}", [2]int{0, replicas}, [2]int{0, comp}, [2]int{})
		r.slot = 2
		r.labels = map[string]int{"jobset.sigs.k8s.io/job-index": 0, "batch.kubernetes.io/job-completion-index": 1}
		r.fixed = map[string]string{"jobset.sigs.k8s.io/replicatedjob-name": rj}
		r.later = !atZero
		o.roles = append(o.roles, r)
	}
	if g.chance(2) {
		g.o("  successPolicy: {operator: %s, targetReplicatedJobs: [%s]}\n", g.pick("All", "Any"), rjs[g.r.IntN(len(rjs))])
	}
	if g.chance(2) {
		o.maxRestarts = g.between(0, 3)
		g.o("  failurePolicy:\n    maxRestarts: %d\n", o.maxRestarts)
		if g.chance(2) {
			g.o("    rules: [{name: r, action: %s, onJobFailureReasons: [%s]}]\n", g.pick("FailJobSet", "RestartJobSet"), g.pick("BackoffLimitExceeded", "DeadlineExceeded"))
		}
	}
	if q {
		o.initial = -1
	}
}

// genLWS makes a LeaderWorkerSet: replicas groups of size pods, a
// startup policy, now and then Volcano's gang.
func (g *kindsGen) genLWS(i int) {
	name := fmt.Sprintf("lws%d", i)
	replicas, size := g.between(0, 3), g.between(1, 4)
	leaderReady := g.chance(3)
	volcano := g.chance(3)
	o := g.add(&kindObject{kind: "LeaderWorkerSet", name: name, selector: [][2]string{{"leaderworkerset.sigs.k8s.io/name", name}},
		result: "LeaderWorkerSet " + name, backoff: -1, maxRestarts: -1, initial: replicas * size})
	labels, q := g.queued()
	if leaderReady {
		o.initial = replicas
	}
	if q {
		o.initial = -1
	}
	extra := ""
	if volcano {
		extra = "schedulerName: volcano, "
		o.gang, o.gangMin = name+"-{0}-*", size
		if leaderReady {
			o.gangMin = 1
		}
	}
	leader := role(`^`+name+`-(\d+)$`, replicas, "StatefulSet/"+name, [2]int{0, replicas})
	leader.labels = map[string]int{"leaderworkerset.sigs.k8s.io/group-index": 0}
	worker := role(`^`+name+`-(\d+)-(\d+)$`, replicas*(size-1), "StatefulSet/"+name+"-{0}", [2]int{0, replicas}, [2]int{1, size})
	worker.labels = map[string]int{"leaderworkerset.sigs.k8s.io/group-index": 0, "leaderworkerset.sigs.k8s.io/worker-index": 1}
	worker.later = leaderReady
	o.roles = append(o.roles, leader, worker)
	g.o("---\napiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata: {name: %s, labels: {%s}}\nspec:\n  replicas: %d\n", name, labels, replicas)
	if leaderReady {
		g.o("  startupPolicy: LeaderReady\n")
	}
	g.o("  leaderWorkerTemplate:\n    size: %d\n", size)
	if g.chance(3) {
		g.o("    restartPolicy: %s\n", g.pick("None", "RecreateGroupOnPodRestart"))
	}
	if g.chance(2) {
		g.o("    leaderTemplate: %s\n", g.template("leader", extra, g.chance(3)))
	}
	g.o("    workerTemplate: %s\n", g.template("worker", extra, g.chance(3)))
}

// genTrainJob makes a TrainJob and its ClusterTrainingRuntime: a trainer
// of numNodes pods, now and then an initializer it depends on, or a gang
// of every pod.
func (g *kindsGen) genTrainJob(i int) {
	name := fmt.Sprintf("tj%d", i)
	nodes := g.between(1, 4)
	gang := g.chance(2)
	init := !gang && g.chance(2)
	o := g.add(&kindObject{kind: "TrainJob", name: name, selector: [][2]string{{"jobset.sigs.k8s.io/jobset-name", name}}, ends: true,
		result: "TrainJob " + name, backoff: -1, maxRestarts: 0, initial: nodes})
	labels, q := g.queued()
	g.o("---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata: {name: rt-%s}\nspec:\n  mlPolicy: {numNodes: 1, torch: {}}\n", name)
	if gang {
		g.o("  podGroupPolicy: {coscheduling: {scheduleTimeoutSeconds: 60}}\n")
		o.gang, o.gangMin = name, nodes
	}
	g.o("  template:\n    spec:\n      replicatedJobs:\n")
	if init {
		g.o("      - name: dataset-initializer\n        template:\n          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: dataset-initializer}}\n"+
			"          spec: {template: %s}\n", g.template("dataset-initializer", "restartPolicy: Never, ", true))
		r := role(`^`+name+`-dataset-initializer-(\d+)-(\d+)-(\d+)$`, 1, "Job/"+name+"-dataset-initializer-{0}", [2]int{0, 1}, [2]int{0, 1}, [2]int{})
		r.slot = 2
		o.roles = append(o.roles, r)
		o.initial = 1
	}
	g.o("      - name: node\n")
	if init {
		g.o("        dependsOn: [{name: dataset-initializer, status: Complete}]\n")
	}
	g.o("        template:\n          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}\n"+
		"          spec: {template: %s}\n", g.template("node", "restartPolicy: Never, ", !g.chance(4)))
	r := role(`^`+name+`-node-(\d+)-(\d+)-(\d+)$`, nodes, "Job/"+name+"-node-{0}", [2]int{0, 1}, [2]int{0, nodes}, [2]int{})
	r.slot = 2
	r.labels = map[string]int{"batch.kubernetes.io/job-completion-index": 1}
	r.later = init
	o.roles = append(o.roles, r)
	g.o("---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: %s, labels: {%s}}\nspec:\n  runtimeRef: {name: rt-%s}\n  trainer: {numNodes: %d", name, labels, name, nodes)
	if g.chance(2) {
		g.o(", resourcesPerNode: {requests: {cpu: %s}}", g.pick("500m", "1", "2"))
	}
	g.o("}\n")
	if q {
		o.initial = -1
	}
}

// rayCluster writes a RayCluster spec at indent (a head, one or two
// worker groups) and adds its roles to o, for the cluster named
// cluster; it returns the workers the cluster wants.
func (g *kindsGen) rayCluster(o *kindObject, cluster, indent string) int {
	g.o("%sheadGroupSpec: {rayStartParams: {}, template: %s}\n%sworkerGroupSpecs:\n", indent, g.template("ray-head", "", g.chance(4)), indent)
	head := role(`^`+cluster+`-head-(\d+)$`, 1, "RayCluster/"+cluster, [2]int{})
	head.fixed = map[string]string{"ray.io/node-type": "head", "ray.io/cluster": cluster}
	o.roles = append(o.roles, head)
	workers := 0
	for j := range g.between(1, 2) {
		group := fmt.Sprintf("g%d", j)
		replicas, hosts := g.between(0, 3), 1
		line := fmt.Sprintf("%s- {groupName: %s, replicas: %d, rayStartParams: {}", indent, group, replicas)
		want := replicas
		if g.chance(3) {
			lo, hi := g.between(0, 2), g.between(2, 4)
			want = min(max(replicas, lo), hi)
			line += fmt.Sprintf(", minReplicas: %d, maxReplicas: %d", lo, hi)
		}
		if g.chance(4) {
			hosts = 2
			line += ", numOfHosts: 2"
		}
		g.o("%s, template: %s}\n", line, g.template("ray-worker", "", g.chance(4)))
		workers += want * hosts
		r := role(`^`+cluster+`-`+group+`-worker-(\d+)$`, want*hosts, "RayCluster/"+cluster, [2]int{})
		r.fixed = map[string]string{"ray.io/node-type": "worker", "ray.io/group": group, "ray.io/cluster": cluster}
		o.roles = append(o.roles, r)
	}
	return workers
}

// genRayCluster makes a RayCluster, now and then KubeRay's gang.
func (g *kindsGen) genRayCluster(i int) {
	name := fmt.Sprintf("rc%d", i)
	o := g.add(&kindObject{kind: "RayCluster", name: name, selector: [][2]string{{"ray.io/cluster", name}},
		result: "RayCluster " + name, backoff: -1, maxRestarts: -1})
	labels, q := g.queued()
	gang := g.chance(2)
	if gang {
		labels = strings.TrimPrefix(labels+", ray.io/gang-scheduling-enabled: \"true\"", ", ")
	}
	g.o("---\napiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: %s, labels: {%s}}\nspec:\n", name, labels)
	workers := g.rayCluster(o, name, "  ")
	o.initial = 1 + workers
	if gang {
		o.gang, o.gangMin = name, workers+1
	}
	if q {
		o.initial = -1
	}
}

// genRayJob makes a RayJob of its own cluster and a submitter that runs
// once the cluster is up, now and then shutting the cluster down after.
func (g *kindsGen) genRayJob(i int) {
	name := fmt.Sprintf("rj%d", i)
	cluster := name + "-0"
	// the submitter's pods carry its name, the cluster's the cluster's
	o := g.add(&kindObject{kind: "RayJob", name: name, selector: [][2]string{{"ray.io/originated-from-cr-name", name}, {"ray.io/cluster", cluster}},
		result: "Job " + name, backoff: -1, maxRestarts: -1}) // its submitter Job
	labels, q := g.queued()
	shutdown := g.chance(2)
	o.ends = shutdown
	g.o("---\napiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: %s, labels: {%s}}\nspec:\n  shutdownAfterJobFinishes: %v\n  entrypoint: python x.py\n", name, labels, shutdown)
	g.o("  submitterPodTemplate: %s\n", g.template("submitter", "restartPolicy: Never, ", true))
	o.backoff = 2 // KubeRay's default
	if g.chance(2) {
		o.backoff = g.between(0, 3)
		g.o("  submitterConfig: {backoffLimit: %d}\n", o.backoff)
	}
	g.o("  rayClusterSpec:\n")
	workers := g.rayCluster(o, cluster, "    ")
	o.initial = 1 + workers
	submitter := role(`^`+name+`-(\d+)$`, 1, "Job/"+name, [2]int{})
	submitter.later = true
	o.roles = append(o.roles, submitter)
	if q {
		o.initial = -1
	}
}

// genMPIJob makes an MPIJob: a launcher and workers, a launcher creation
// policy, a clean-up policy, now and then a gang.
func (g *kindsGen) genMPIJob(i int) {
	name := fmt.Sprintf("mpi%d", i)
	workers := g.between(1, 4)
	o := g.add(&kindObject{kind: "MPIJob", name: name, selector: [][2]string{{"training.kubeflow.org/job-name", name}}, ends: true,
		result: "MPIJob " + name, backoff: -1, maxRestarts: -1, initial: workers + 1})
	labels, q := g.queued()
	clean := g.pick("", "None", "Running", "All")
	g.o("---\napiVersion: kubeflow.org/v2beta1\nkind: MPIJob\nmetadata: {name: %s, labels: {%s}}\nspec:\n", name, labels)
	if g.chance(3) {
		g.o("  launcherCreationPolicy: WaitForWorkersReady\n")
		o.initial = workers
	}
	var run []string
	if clean != "" {
		run = append(run, "cleanPodPolicy: "+clean)
	}
	o.backoffJob, o.backoff = name+"-launcher", 6 // the launcher Job's, the Job's default
	if g.chance(2) {
		o.backoff = g.between(0, 3)
		run = append(run, fmt.Sprintf("backoffLimit: %d", o.backoff))
	}
	if g.chance(3) {
		m := g.between(1, workers+1)
		run = append(run, fmt.Sprintf("schedulingPolicy: {minAvailable: %d}", m))
		o.gang, o.gangMin = name, m
	}
	if len(run) > 0 {
		g.o("  runPolicy: {%s}\n", strings.Join(run, ", "))
	}
	g.o("  mpiReplicaSpecs:\n    Launcher: {replicas: 1, template: %s}\n    Worker: {replicas: %d, template: %s}\n",
		g.template("launcher", "", !g.chance(5)), workers, g.template("worker", "", false))
	launcher := role(`^`+name+`-launcher-(\d+)$`, 1, "Job/"+name+"-launcher", [2]int{})
	worker := role(`^`+name+`-worker-(\d+)$`, workers, "MPIJob/"+name, [2]int{0, workers})
	worker.keeps = clean == "" || clean == "None"
	launcher.later = o.initial == workers
	o.roles = append(o.roles, launcher, worker)
	if q {
		o.initial = -1
	}
}

// genVolcanoJob makes a Volcano Job of one to three tasks, its gang of
// minAvailable, maxRetry and policies.
func (g *kindsGen) genVolcanoJob(i int) {
	name := fmt.Sprintf("vj%d", i)
	o := g.add(&kindObject{kind: "VolcanoJob", name: name, selector: [][2]string{{"volcano.sh/job-name", name}}, ends: true,
		result: "Job.batch.volcano.sh " + name, backoff: -1, maxRestarts: 3})
	var tasks []string
	total := 0
	for j := range g.between(1, 3) {
		task := fmt.Sprintf("t%d", j)
		replicas := g.between(1, 3)
		total += replicas
		line := fmt.Sprintf("  - {name: %s, replicas: %d, template: %s", task, replicas, g.template("c", "restartPolicy: Never, ", !g.chance(6)))
		if g.chance(4) {
			line += ", policies: [{event: " + g.pick("PodEvicted", "TaskCompleted") + ", action: " + g.pick("RestartTask", "RestartJob", "CompleteJob", "AbortJob") + "}]"
		}
		tasks = append(tasks, line+"}")
		r := role(`^`+name+`-`+task+`-(\d+)$`, replicas, "Job/"+name, [2]int{0, replicas})
		r.labels = map[string]int{"volcano.sh/task-index": 0}
		r.fixed = map[string]string{"volcano.sh/task-spec": task}
		o.roles = append(o.roles, r)
	}
	o.initial = total
	o.gang, o.gangMin = name+"-0", g.between(1, total)
	g.o("---\napiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: %s}\nspec:\n  minAvailable: %d\n", name, o.gangMin)
	if g.chance(2) {
		o.maxRestarts = g.between(1, 4)
		g.o("  maxRetry: %d\n", o.maxRestarts)
	}
	if g.chance(3) {
		g.o("  policies: [{event: PodEvicted, action: %s}]\n", g.pick("RestartJob", "RestartTask", "RestartPod", "AbortJob"))
	}
	g.o("  tasks:\n%s\n", strings.Join(tasks, "\n"))
}

// genPodGroup makes a PodGroup (a gang now and then) whose pods, in the
// scenario file, arrive over time.
func (g *kindsGen) genPodGroup(i int) {
	name := fmt.Sprintf("pg%d", i)
	n := g.between(1, 4)
	o := g.add(&kindObject{kind: "PodGroup", name: name, backoff: -1, maxRestarts: -1})
	policy := "basic: {}"
	if g.chance(2) {
		o.gang, o.gangMin = name, g.between(1, n)
		policy = fmt.Sprintf("gang: {minCount: %d}", o.gangMin)
	}
	prio := ""
	if g.prio != "" {
		prio = ", priorityClassName: " + g.prio
	}
	g.o("---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: %s}\nspec: {schedulingPolicy: {%s}%s}\n", name, policy, prio)
	o.roles = append(o.roles, role(`^`+name+`-p(\d+)$`, n, "", [2]int{0, n}))
	o.selector = [][2]string{{"group", name}}
	at := time.Duration(g.r.IntN(10)) * time.Minute
	if at == 0 {
		o.initial = n
	}
	for p := range n {
		g.filePod(fmt.Sprintf("{name: %s-p%d, podGroup: %s, labels: {group: %s}%s, requests: {cpu: %s}, at: %v, duration: %s}",
			name, p, name, name, prio, g.pick("250m", "500m", "1"), at, g.pick("1m", "10m")))
	}
}

// filePod adds a pod to the scenario file's list.
func (g *kindsGen) filePod(entry string) {
	if g.filePods == 0 {
		g.c("pods:\n")
	}
	g.filePods++
	g.c("  - %s\n", entry)
}

// genSet makes a StatefulSet or a Deployment.
func (g *kindsGen) genSet(i int) {
	replicas := g.between(0, 4)
	if g.chance(2) {
		name := fmt.Sprintf("ss%d", i)
		o := g.add(&kindObject{kind: "StatefulSet", name: name, selector: [][2]string{{"app", name}}, backoff: -1, maxRestarts: -1, initial: replicas})
		o.roles = append(o.roles, role(`^`+name+`-(\d+)$`, replicas, "StatefulSet/"+name, [2]int{0, replicas}))
		g.o("---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: %s}\nspec:\n  replicas: %d\n  podManagementPolicy: Parallel\n  serviceName: %s\n", name, replicas, name)
	} else {
		name := fmt.Sprintf("dep%d", i)
		o := g.add(&kindObject{kind: "Deployment", name: name, selector: [][2]string{{"app", name}}, backoff: -1, maxRestarts: -1, initial: replicas})
		o.roles = append(o.roles, role(`^`+name+`-[0-9a-z]+-(\d+)$`, replicas, "ReplicaSet/"+name+"-*", [2]int{}))
		g.o("---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: %s}\nspec:\n  replicas: %d\n", name, replicas)
	}
	name := g.objs[len(g.objs)-1].name
	tmpl := g.template("c", "", g.chance(3))
	tmpl = strings.Replace(tmpl, "{metadata: {", "{metadata: {labels: {app: "+name+"}, ", 1)
	tmpl = strings.Replace(tmpl, "{metadata: {labels: {app: "+name+"}, }", "{metadata: {labels: {app: "+name+"}}", 1)
	g.o("  selector: {matchLabels: {app: %s}}\n  template: %s\n", name, tmpl)
}

// genLoad makes what happens over time: pods of high priority that
// preempt the workloads' pods, nodes drained, removed and added.
func (g *kindsGen) genLoad() {
	for i := range g.r.IntN(4) {
		g.filePod(fmt.Sprintf("{name: burst%d, priorityClassName: high, requests: {cpu: %s}, at: %v, duration: %s}",
			i, g.pick("1", "2", "4"), time.Duration(g.between(1, 20))*30*time.Second, g.pick("1m", "10m")))
	}
	n := g.r.IntN(4)
	if n == 0 {
		return
	}
	g.c("events:\n")
	present := append([]string(nil), g.nodes...)
	at := time.Duration(0)
	for e := range n {
		at += time.Duration(g.between(1, 8)) * 30 * time.Second
		switch k := g.r.IntN(4); {
		case k == 0 || len(present) < 2:
			name := fmt.Sprintf("extra%d", e)
			line := fmt.Sprintf("  - {at: %v, addNode: {name: %s, allocatable: {cpu: %s, memory: 32Gi}", at, name, g.pick("4", "8"))
			if g.zones {
				line += ", labels: {topology.kubernetes.io/zone: z0, rack: z0-r0}"
			}
			g.c("%s}}\n", line)
			present = append(present, name)
		case k == 1:
			j := g.r.IntN(len(present))
			g.c("  - {at: %v, removeNode: %s}\n", at, present[j])
			present = append(present[:j], present[j+1:]...)
		default:
			g.c("  - {at: %v, drainNode: %s}\n", at, present[g.r.IntN(len(present))])
		}
	}
}

// checkRandomKindsScenario loads a generated scenario, runs it twice
// with the checker on, compares the runs and checks the first against the
// rules of each object's kind.
func checkRandomKindsScenario(k kindsScenario, stats map[string]int) error {
	sc, err := ParseFiles(k.files())
	if err != nil {
		return fmt.Errorf("a generated scenario does not load: %w", err)
	}
	limit := DefaultLimits().Pods
	if k.podRoom > 0 {
		// a limit the load keeps (it counts the pods an object makes in
		// all, not only those of time 0), with little room for the run
		for limit = len(sc.Pods) + k.podRoom; ; limit += 4 {
			sc, err = ParseFiles(k.files(), WithLimits(Limits{Pods: limit}))
			if err == nil {
				break
			}
			if !strings.Contains(err.Error(), "go past the limit of") {
				return fmt.Errorf("a generated scenario does not load within %d pods: %w", limit, err)
			}
		}
	}
	sc.Config.CheckInvariants = true
	sc.Config.MaxCycles = 5_000
	// everything a generated scenario starts is over within a day; a run
	// that goes on is a loop, stopped at two days
	const horizon = 48 * time.Hour
	first, tr, err := runTraced(sc, horizon)
	if errors.Is(err, ErrPodLimit) {
		stats["podLimit"]++
		return checkPodLimit(tr, limit)
	}
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	if first.Stopped != "" {
		if err := endlessPreemption(first); err != nil {
			return err
		}
		stats["endless"]++
		return checkKinds(k.objs, tr, first) // its rules hold as far as it went
	}
	second, _, err := runTraced(sc, horizon)
	if err != nil {
		return fmt.Errorf("second run: %w", err)
	}
	a, err := first.JSON()
	if err != nil {
		return err
	}
	b, _ := second.JSON()
	if string(a) != string(b) {
		return fmt.Errorf("two runs differ:\n%s\n---\n%s", a, b)
	}
	if err := checkPodLimit(tr, limit); err != nil {
		return err
	}
	if err := checkKinds(k.objs, tr, first); err != nil {
		return err
	}
	for _, o := range k.objs {
		stats[o.kind]++
		if _, _, ok := finished(o, first, tr.last); ok && o.ends {
			stats["ended"+o.kind]++
		}
		if o.gang != "" {
			stats["gangs"]++
		}
	}
	stats["pods"] += len(tr.pods)
	stats["evictions"] += first.Stats.Evictions
	for _, w := range first.Workloads {
		stats["restarts"] += w.Restarts
		stats[w.Status]++
	}
	for _, j := range first.Jobs {
		stats["Job"+j.Status]++
	}
	if first.Kueue != nil {
		stats["kueueRuns"]++
	}
	return nil
}

// endlessPreemption accepts a run stopped at the horizon (or by the
// cap of events) only as the preemption that never ends of a pod with a
// run time by the services' pods of higher priority: each restart of a
// LeaderWorkerSet's group, say, preempts the batch pod again before its
// run time is over, as in a cluster. The last hours of the run must hold
// such evictions.
func endlessPreemption(res *Result) error {
	end, _ := time.ParseDuration(res.Stats.SimulatedTime)
	for _, e := range res.Evictions {
		if at, _ := time.ParseDuration(e.At); e.By != "" && at > end-6*time.Hour {
			return nil
		}
	}
	return fmt.Errorf("run stopped, and not by preemptions that never end: %s", res.Stopped)
}

// runTraced runs sc until it ends (or past horizon, or 30,000 events),
// tracing its pods.
func runTraced(sc *Scenario, horizon time.Duration) (*Result, *podTraces, error) {
	tr := newPodTraces()
	n := 0
	res, err := sc.RunUntil(func(e gangsim.Event) bool { n++; return e.At > horizon || n > 30_000 }, gangsim.WithObserver(tr.see))
	tr.end()
	return res, tr, err
}
