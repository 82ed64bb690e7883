package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/gangsim/gangsim/scenario/kube"
)

// One fuzz target per parser of the Kubernetes kinds (docs/testing.md):
// FuzzKubeObjects takes any object, so that its mutations seldom reach
// deep into one kind's fields; these start from the samples of one family
// of kinds, found by their API version among the files of testdata/kube
// and FuzzKubeObjects' seeds, and check what it checks (checkKubeInput).

// FuzzKueueObjects: Kueue's kinds (ResourceFlavor, ClusterQueue,
// LocalQueue, Cohort, WorkloadPriorityClass, Topology, Workload; its
// AdmissionChecks are skipped), v1beta2 and v1beta1. What loads passes
// the kueue package's validation again.
func FuzzKueueObjects(f *testing.F) {
	fuzzKinds(f, `kueue\.x-k8s\.io/v1beta[12]`, checkKueueValid,
		"apiVersion: kueue.x-k8s.io/v1beta2\nkind: AdmissionCheck\nmetadata: {name: prov}\n"+
			"spec: {controllerName: kueue.x-k8s.io/provisioning-request, parameters: {apiGroup: kueue.x-k8s.io, kind: ProvisioningRequestConfig, name: c}}\n"+
			"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f}\nspec: {nodeLabels: {rack: a}, topologyName: t, nodeTaints: [{key: k, value: v, effect: NoSchedule}], "+
			"tolerations: [{key: k, operator: Equal, value: v, effect: NoSchedule, tolerationSeconds: 5}]}\n"+
			"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\nmetadata: {name: t}\nspec: {levels: [{nodeLabel: rack}, {nodeLabel: kubernetes.io/hostname}]}\n"+
			"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {name: root}\nspec: {fairSharing: {weight: \"2\"}}\n"+
			"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {name: team}\nspec: {parentName: root, resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: 2, lendingLimit: 3}]}]}]}\n"+
			"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\nspec: {cohortName: team, queueingStrategy: StrictFIFO, namespaceSelector: {matchLabels: {a: b}}, stopPolicy: None,\n"+
			"  flavorFungibility: {whenCanBorrow: TryNextFlavor, whenCanPreempt: TryNextFlavor, preference: BorrowingOverPreemption},\n"+
			"  preemption: {reclaimWithinCohort: Any, withinClusterQueue: LowerPriority, borrowWithinCohort: {policy: LowerPriority, maxPriorityThreshold: 100}},\n"+
			"  admissionChecksStrategy: {admissionChecks: [{name: prov, onFlavors: [f]}]}, fairSharing: {weight: 500m},\n"+
			"  resourceGroups: [{coveredResources: [cpu, memory], flavors: [{name: f, resources: [{name: cpu, nominalQuota: 4, borrowingLimit: 1}, {name: memory, nominalQuota: 8Gi}]}]}]}\n"+
			"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata: {name: high}\nvalue: 1000\ndescription: d\n"+
			"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lq, namespace: a}\nspec: {clusterQueue: cq, stopPolicy: Hold}\n"+
			"status: {fairSharing: {admissionFairSharingStatus: {consumedResources: {cpu: \"3\"}}}}\n",
		"apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: cq}\nspec: {cohort: all, admissionChecks: [prov], flavorFungibility: {whenCanBorrow: Borrow, whenCanPreempt: Preempt},\n"+
			"  resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: \"9\", lendingLimit: 500m}]}]}]}\n"+
			"---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: f}\n"+
			"---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata: {name: lq}\nspec: {clusterQueue: cq}\n"+
			"---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: j, labels: {kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/priority-class: high}}\n"+
			"spec: {parallelism: 2, completions: 2, template: {metadata: {annotations: {gangsim.io/duration: 1m}}, spec: {containers: [{name: c, resources: {requests: {cpu: 1}}}]}}}\n"+
			"---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: WorkloadPriorityClass\nmetadata: {name: high}\nvalue: 10\n"+
			"---\napiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: \"2\"}}\n")
}

// FuzzKueueConfig: Kueue's Configuration (config.kueue.x-k8s.io, v1beta2
// and v1beta1), alone and with queues and a workload that it times; what
// loads passes the kueue package's validation again.
func FuzzKueueConfig(f *testing.F) {
	const queues = "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f}\n" +
		"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\nspec: {namespaceSelector: {}, admissionScope: {admissionMode: UsageBasedAdmissionFairSharing},\n" +
		"  resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: 2}]}]}]}\n" +
		"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lq}\nspec: {clusterQueue: cq}\n" +
		"---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: j, labels: {kueue.x-k8s.io/queue-name: lq}}\n" +
		"spec: {parallelism: 3, completions: 3, template: {metadata: {annotations: {gangsim.io/duration: 2m}}, spec: {containers: [{name: c, resources: {requests: {cpu: 1}}}]}}}\n" +
		"---\napiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: \"2\"}}\n"
	fuzzKinds(f, `config\.kueue\.x-k8s\.io/v1beta[12]`, checkKueueValid,
		"apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nmanageJobsWithoutQueueName: true\nclientConnection: {qps: 20, burst: 30}\n"+
			"waitForPodsReady: {timeout: 1m, blockAdmission: true, recoveryTimeout: 30s, requeuingStrategy: {timestamp: Creation, backoffLimitCount: 2, backoffBaseSeconds: 10, backoffMaxSeconds: 60}}\n"+
			"fairSharing: {preemptionStrategies: [LessThanOrEqualToFinalShare, LessThanInitialShare]}\n"+
			"admissionFairSharing: {usageHalfLifeTime: 10m, usageSamplingInterval: 1m, resourceWeights: {cpu: 2, memory: 0.5}}\n"+
			"featureGates: {AdmissionFairSharing: true}\n"+queues,
		"apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nwaitForPodsReady: {enable: true, timeout: 30s}\nfairSharing: {enable: true}\n"+queues,
		"apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfeatureGates: {DisableWaitForPodsReady: true}\nintegrations: {frameworks: [pod]}\n"+queues)
}

// FuzzJobSets: JobSets (jobset.x-k8s.io/v1alpha2).
func FuzzJobSets(f *testing.F) { fuzzKinds(f, `jobset\.x-k8s\.io/v1alpha2`, nil) }

// FuzzTrainJobs: TrainJobs and their runtimes (trainer.kubeflow.org).
func FuzzTrainJobs(f *testing.F) { fuzzKinds(f, `trainer\.kubeflow\.org/v1alpha1`, nil) }

// FuzzKubeflowJobs: MPIJobs and PyTorchJobs (kubeflow.org; its other
// jobs are skipped and counted).
func FuzzKubeflowJobs(f *testing.F) { fuzzKinds(f, `kubeflow\.org/v\w+`, nil) }

// FuzzLeaderWorkerSets: LeaderWorkerSets (leaderworkerset.x-k8s.io/v1).
func FuzzLeaderWorkerSets(f *testing.F) { fuzzKinds(f, `leaderworkerset\.x-k8s\.io/v1`, nil) }

// FuzzRay: RayClusters and RayJobs (ray.io/v1; RayServices are skipped
// and counted).
func FuzzRay(f *testing.F) { fuzzKinds(f, `ray\.io/v1`, nil) }

// FuzzVolcanoJobs: Volcano Jobs (batch.volcano.sh/v1alpha1).
func FuzzVolcanoJobs(f *testing.F) { fuzzKinds(f, `batch\.volcano\.sh/v1alpha1`, nil) }

// FuzzPodGroups: the gangs' kinds: scheduling.k8s.io's PodGroups,
// Workloads and CompositePodGroups of every version read,
// scheduler-plugins' PodGroups (and their older group's), and Volcano's
// PodGroups, which are skipped.
func FuzzPodGroups(f *testing.F) {
	fuzzKinds(f, `scheduling\.k8s\.io/v1(alpha|beta)\d|scheduling\.(x-k8s\.io|sigs\.k8s\.io)/v1alpha1|scheduling\.volcano\.sh/v1beta1`, nil,
		"apiVersion: scheduling.sigs.k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: g}\nspec: {minMember: 2, scheduleTimeoutSeconds: 30, minResources: {cpu: 2}}\n"+
			"---\napiVersion: v1\nkind: Pod\nmetadata: {name: p0, labels: {scheduling.x-k8s.io/pod-group: g}}\nspec: {containers: [{name: c, resources: {requests: {cpu: 1}}}]}\n"+
			"---\napiVersion: v1\nkind: Pod\nmetadata: {name: p1, labels: {scheduling.x-k8s.io/pod-group: g}}\nspec: {containers: [{name: c, resources: {requests: {cpu: 1}}}]}\n"+
			"---\napiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: \"2\"}}\n",
		"apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: v}\nspec: {minMember: 2, queue: default}\n")
}

// kindSeedFiles are the files of testdata/kube that seed the kinds'
// targets: the dumps, the bad files, the samples and the public manifests.
var kindSeedFiles = []string{"testdata/kube/*.json", "testdata/kube/*.yaml", "testdata/kube/bad/*.json", "testdata/kube/bad/*.yaml",
	"testdata/kube/samples/*.yaml", "testdata/kube/kueue/*.yaml", "testdata/kube/public/*/*.yaml", "testdata/kube/public-samples/*/*.yaml"}

// apiVersionField finds the API version of each object of a seed, in
// YAML or JSON.
var apiVersionField = regexp.MustCompile(`"?apiVersion"?\s*:\s*"?([^"\s,}]+)`)

// fuzzKinds seeds f with the files of testdata/kube and the seeds of
// FuzzKubeObjects and more that hold an object of an API version that
// versions matches (a sample with the nodes.yaml of its folder, when it
// has one, so that its pods run), and fuzzes them with checkKubeInput and
// check.
func fuzzKinds(f *testing.F, versions string, check func(*testing.T, *Scenario), more ...string) {
	re := regexp.MustCompile(`^(` + versions + `)$`)
	holds := func(seed []byte) bool {
		return slices.ContainsFunc(apiVersionField.FindAllSubmatch(seed, -1), func(m [][]byte) bool { return re.Match(m[1]) })
	}
	seeds := 0
	for _, pattern := range kindSeedFiles {
		files, _ := filepath.Glob(pattern)
		for _, name := range files {
			data, err := os.ReadFile(name)
			if err != nil || !holds(data) {
				continue
			}
			if nodes, err := os.ReadFile(filepath.Join(filepath.Dir(name), "nodes.yaml")); err == nil && strings.HasSuffix(name, ".yaml") {
				data = slices.Concat(data, []byte("\n---\n"), nodes)
			}
			f.Add(data)
			seeds++
		}
	}
	for _, seed := range append(slices.Clip(kubeObjectSeeds), more...) {
		if holds([]byte(seed)) {
			f.Add([]byte(seed))
			seeds++
		}
	}
	if seeds < 2 {
		f.Fatalf("%d seeds of %s", seeds, versions)
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkKubeInput(t, data, check) })
}

// checkKubeInput is the check of the Kubernetes objects' targets: any
// input loads, or gives an error that wraps ErrScenario and names the
// file, and for an error about an object, the object and its field; it
// loads to the same scenario or error a second time (checkByItemAsWhole:
// item by item, when a List); what loads holds no more nodes and pods
// than the limits, passes check (when not nil), and runs as FuzzParse's
// scenarios do.
func checkKubeInput(t *testing.T, data []byte, check func(*testing.T, *Scenario)) {
	t.Helper()
	defer checkQuick(t, time.Now())
	sc, err := ParseFiles([]File{{Name: "fuzz", Data: data}}, fuzzLimits)
	checkByItemAsWhole(t, data, sc, err)
	if err != nil {
		checkLoadError(t, err, "fuzz")
		checkErrorsNameFields(t, data, err)
		return
	}
	if len(sc.Nodes) > fuzzLimitValues.Nodes || len(sc.Pods) > fuzzLimitValues.Pods {
		t.Fatalf("%d nodes and %d pods loaded, beyond the limits %+v", len(sc.Nodes), len(sc.Pods), fuzzLimitValues)
	}
	if check != nil {
		check(t, sc)
	}
	checkRuns(t, sc)
}

// checkErrorsNameFields requires each error of a load of the file "fuzz"
// to name it, and, when the file holds Kubernetes objects, each error
// about an object (its path starts with the object's kind, capitalised,
// and its name: "JobSet default/js") to name a field of the object after
// it (": spec.replicatedJobs"). A scenario file's paths are its own keys,
// which may be anything.
func checkErrorsNameFields(t *testing.T, data []byte, err error) {
	t.Helper()
	var doc yaml.Node
	objects := yaml.Unmarshal(data, &doc) == nil && len(doc.Content) > 0 && kube.IsDocument(&doc)
	errs := []error{err}
	var list *Errors
	if errors.As(err, &list) {
		errs = list.List
	}
	for _, e := range errs {
		var fe *FieldError
		if !errors.As(e, &fe) {
			continue
		}
		if fe.File != "fuzz" {
			t.Fatalf("the error names the file %q: %v", fe.File, e)
		}
		ref, field, _ := strings.Cut(fe.Path, ": ")
		if objects && ref != "" && ref[0] >= 'A' && ref[0] <= 'Z' && strings.Contains(ref, " ") && field == "" {
			t.Fatalf("the error names the object but no field: %v", e)
		}
	}
}

// checkKueueValid requires Kueue's objects and Configuration as loaded to
// pass the kueue package's validation again.
func checkKueueValid(t *testing.T, sc *Scenario) {
	t.Helper()
	if sc.Kueue == nil {
		return
	}
	if kind, name, err := sc.Kueue.Validate(); err != nil {
		t.Fatalf("the loaded %s %s is invalid: %v", kind, name, err)
	}
}
