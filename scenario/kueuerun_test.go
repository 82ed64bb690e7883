package scenario

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Kueue beside the scheduler, end to end: the tests give Kubernetes
// objects, run them, and read the result's Kueue workloads and events.

// kueueQueues is a ResourceFlavor "default" (or those given), a
// ClusterQueue cq of the cpu quota given, with the extra spec lines, and
// a LocalQueue lq in default.
func kueueQueues(cpu, spec string) string {
	return `apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
` + spec + `  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{name: cpu, nominalQuota: "` + cpu + `"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: default}
spec: {clusterQueue: cq}
`
}

// kueueJob is a Job of the queue lq: parallelism pods of cpu each, running
// d, with extra metadata lines.
func kueueJob(name string, parallelism int, cpu, d, meta string) string {
	return fmt.Sprintf(`---
apiVersion: batch/v1
kind: Job
metadata:
  name: %s
  labels: {kueue.x-k8s.io/queue-name: lq}
%sspec:
  parallelism: %d
  template:
    metadata: {annotations: {gangsim.io/duration: %s}}
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: "%s"}}}]
`, name, meta, parallelism, d, cpu)
}

func runKueue(t *testing.T, text string) *Result {
	t.Helper()
	sc, err := Parse("objects.yaml", []byte(text))
	require.NoError(t, err)
	res, err := sc.Run()
	require.NoError(t, err)
	return res
}

// kueueWorkload is the result's Kueue Workload of the owner named.
func kueueWorkload(t *testing.T, res *Result, owner string) WorkloadResult {
	t.Helper()
	for _, w := range res.Workloads {
		if w.Kind == "Workload" && w.Owner == owner {
			return w
		}
	}
	t.Fatalf("no Kueue workload of %s", owner)
	return WorkloadResult{}
}

// A queue of 4 cpu: Job a (3 pods of 1 cpu, 10 minutes) is admitted at
// once; Job b (2 pods) needs 5 > 4 and waits, set aside; when a finishes
// (10m) its quota is released, and the requeue batch a second later moves
// b back: admitted at 10m1s, it finishes 5 minutes later. b made no pod
// before its admission.
func TestKueueHoldsAJobForQuota(t *testing.T) {
	res := runKueue(t, kueueQueues("4", "")+kubeNodes(2, 2)+kueueJob("a", 3, "1", "10m", "")+kueueJob("b", 2, "1", "5m", ""))
	a, b := kueueWorkload(t, res, "Job a"), kueueWorkload(t, res, "Job b")
	require.Equal(t, "job-a-8077b", a.Name)
	require.Equal(t, "0s", a.WaitForQuota)
	require.Equal(t, "10m1s", b.WaitForQuota)
	require.Equal(t, "Finished", b.Status)
	require.Equal(t, "15m1s", res.Stats.SimulatedTime)
	for _, e := range res.KueueEvents {
		if e.Workload == "job-b-5f660" && e.Kind == "Pending" {
			require.Equal(t, "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 1 more needed", e.Message)
		}
	}
}

// A LimitRange's default request counts in the Workload: a Job whose
// container asks for nothing gets 1 cpu by default, so two pods need 2 of
// the queue's 1 cpu: it never fits (maximum 1).
func TestKueueCountsLimitRangeDefaults(t *testing.T) {
	lr := `---
apiVersion: v1
kind: LimitRange
metadata: {name: defaults, namespace: default}
spec: {limits: [{type: Container, defaultRequest: {cpu: "1"}, default: {cpu: "1"}}]}
`
	job := strings.Replace(kueueJob("a", 2, "1", "1m", ""), `resources: {requests: {cpu: "1"}}`, `resources: {}`, 1)
	res := runKueue(t, kueueQueues("1", "")+kubeNodes(2, 2)+lr+job)
	a := kueueWorkload(t, res, "Job a")
	require.False(t, *a.Admitted)
	require.Contains(t, a.Message, "current podset request (2) > maximum capacity (1)")
}

// A plain pod with the queue label waits behind Kueue's gate until it is
// admitted, and gets the flavor's node labels: of the two nodes, the one
// labelled pool=gpu takes it.
func TestKueuePodGetsItsFlavor(t *testing.T) {
	queues := strings.Replace(kueueQueues("4", ""), "metadata: {name: default}\n", "metadata: {name: default}\nspec: {nodeLabels: {rack: r1}}\n", 1)
	pod := `---
apiVersion: v1
kind: Pod
metadata: {name: p, labels: {kueue.x-k8s.io/queue-name: lq}}
spec: {containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]}
`
	res := runKueue(t, queues+kubeNodes(2, 1)+pod)
	require.Equal(t, "n1", res.Pods[0].Node, "rack r1 is n1's")
	w := kueueWorkload(t, res, "Pod p")
	require.Equal(t, map[string]string{"cpu": "default"}, w.PodSets[0].Flavors)
}

// withinClusterQueue LowerPriority: Job low (2 pods, 2 of 2 cpu, 10
// minutes) runs from 0s; at 10s a pod of priority 1000 (its class) asks
// for 1 cpu and preempts it: low's Job is suspended, its pods deleted (not
// failures), its quota released once they are gone (at once: no grace
// period); the cycle that preempted admitted nothing, so the next waits
// Kueue's back-off: 1 ms of cycle and 1 ms of back-off, and the pod is
// admitted at 10.002s; low, next, finds 1 cpu of its 2 at 10.003s; the pod
// runs a minute, to 1m10.002s, and the requeue batch a second after that
// release admits low again, which makes its pods again.
func TestKueuePreemptsAJob(t *testing.T) {
	objects := kueueQueues("2", "  preemption: {withinClusterQueue: LowerPriority}\n") + kubeNodes(2, 2) + kueueJob("low", 2, "1", "10m", "")
	pods := `priorityClasses: [{name: high, value: 1000}]
pods:
- {name: high, at: 10s, duration: 1m, priorityClassName: high, requests: {cpu: "1"}, labels: {kueue.x-k8s.io/queue-name: lq}}
`
	res := runObjectsAndPods(t, objects, pods)
	low, high := kueueWorkload(t, res, "Job low"), kueueWorkload(t, res, "Pod high")
	require.Equal(t, 1, low.Evictions)
	require.Equal(t, int32(1000), *high.Priority)
	var kinds []string
	for _, e := range res.KueueEvents {
		if e.Workload == low.Name {
			kinds = append(kinds, e.At+" "+e.Kind)
		}
		if e.Kind == "Evicted" && e.Workload == low.Name {
			require.Equal(t, "InClusterQueue", e.Preemption)
			require.Equal(t, high.Name, e.By)
		}
	}
	require.Equal(t, []string{"0s QuotaReserved", "10s Evicted", "10s QuotaReleased", "10s Requeued", "10.003s Pending", "1m11.002s QuotaReserved"}, kinds[:6])
	require.Equal(t, "Complete", res.Jobs[0].Status)
	require.Zero(t, res.Jobs[0].Failed, "a suspended Job's deleted pods are not failures")
}

// Partial admission: a Job of parallelism 4 with min-parallelism 2 in a
// queue of 3 cpu is admitted with the largest count that fits, 3 (the
// search halves 4-2: 3 fits), and runs 3 pods at once.
func TestKueueAdmitsAJobPartially(t *testing.T) {
	meta := "  annotations: {kueue.x-k8s.io/job-min-parallelism: \"2\"}\n"
	res := runKueue(t, kueueQueues("3", "")+kubeNodes(4, 4)+kueueJob("a", 4, "1", "1m", meta))
	a := kueueWorkload(t, res, "Job a")
	require.Equal(t, int32(3), a.PodSets[0].Count)
	require.Equal(t, 3, res.Stats.Scheduled, "parallelism 3: the Job completes after its first 3 pods (no completions)")
}

// waitForPodsReady: a Job whose pods cannot all be placed (3 pods of 2
// cpu on two nodes of 2 cpu: 2 fit) is evicted when the timeout (1 minute
// here) passes, and queued again after the back-off (60 s); nothing else
// can change, so the run stops once only its timers are left.
func TestKueueEvictsWorkloadsWhosePodsAreNotReady(t *testing.T) {
	conf := "---\napiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nwaitForPodsReady: {timeout: 1m}\n"
	res := runKueue(t, kueueQueues("10", "")+kubeNodes(2, 2)+conf+kueueJob("a", 3, "2", "10m", ""))
	a := kueueWorkload(t, res, "Job a")
	require.GreaterOrEqual(t, a.Evictions, 1)
	var reasons []string
	for _, e := range res.KueueEvents {
		if e.Kind == "Evicted" {
			reasons = append(reasons, e.Reason)
		}
	}
	require.Equal(t, "PodsReadyTimeout", reasons[0])
	require.Empty(t, a.WaitForNodes, "its pods were never all bound")
}

// The same inputs give the same bytes.
func TestKueueRunsAreTheSame(t *testing.T) {
	text := kueueQueues("3", "  preemption: {withinClusterQueue: LowerPriority}\n") + kubeNodes(3, 3) +
		kueueJob("a", 2, "1", "3m", "") + kueueJob("b", 2, "1", "2m", "") + kueueJob("c", 1, "1", "1m", "")
	var outs []string
	for range 2 {
		res := runKueue(t, text)
		var b bytes.Buffer
		require.NoError(t, res.WriteJSON(&b))
		outs = append(outs, b.String())
	}
	require.Equal(t, outs[0], outs[1])
	require.Contains(t, outs[0], `"kueueEvents"`)
}

// reclaimablePods: Job a (parallelism 2, completions 3, 1 cpu a pod, 1
// minute) holds 2 of the queue's 3 cpu; b (2 pods) waits. At 1m a's first
// two pods succeed: one completion is left, so one pod of its admission
// will not be made again and Kueue releases its quota: 1 cpu in use, b
// fits, and the requeue batch a second later admits it (1m1s), a minute
// before a ends.
func TestKueueReclaimsAFinishingJobsQuota(t *testing.T) {
	a := strings.Replace(kueueJob("a", 2, "1", "1m", ""), "  parallelism: 2\n", "  parallelism: 2\n  completions: 3\n", 1)
	res := runKueue(t, kueueQueues("3", "")+kubeNodes(2, 2)+a+kueueJob("b", 2, "1", "1m", ""))
	require.Equal(t, "1m1s", kueueWorkload(t, res, "Job b").WaitForQuota)
	require.Equal(t, "Complete", res.Jobs[0].Status)
}

// kueueRay is a RayCluster of the queue lq: a head of 1 cpu and a worker
// group w of the replicas given, of 1 cpu each.
func kueueRay(name string, replicas int) string {
	return fmt.Sprintf(`---
apiVersion: ray.io/v1
kind: RayCluster
metadata:
  name: %s
  labels: {kueue.x-k8s.io/queue-name: lq}
spec:
  headGroupSpec:
    rayStartParams: {}
    template: {spec: {containers: [{name: h, image: x, resources: {requests: {cpu: "1"}}}]}}
  workerGroupSpecs:
  - groupName: w
    replicas: %d
    rayStartParams: {}
    template: {spec: {containers: [{name: w, image: x, resources: {requests: {cpu: "1"}}}]}}
`, name, replicas)
}

// A RayCluster naming a queue is held suspended until Kueue admits it: its
// workload has the pod sets head (1) and w (its replicas). In a queue of 4
// cpu, a (1 + 2 = 3 cpu) is admitted at once and its 3 pods run; b (1 + 1
// = 2 cpu) needs 5 > 4 and waits (a RayCluster never finishes), making no
// pod.
func TestKueueHoldsARayCluster(t *testing.T) {
	res := runKueue(t, kueueQueues("4", "")+kubeNodes(3, 3)+kueueRay("a", 2)+kueueRay("b", 1))
	a, b := kueueWorkload(t, res, "RayCluster a"), kueueWorkload(t, res, "RayCluster b")
	require.True(t, *a.Admitted)
	require.Equal(t, []WorkloadPodSetResult{{Name: "head", Count: 1, Flavors: map[string]string{"cpu": "default"}},
		{Name: "w", Count: 2, Flavors: map[string]string{"cpu": "default"}}}, a.PodSets)
	require.Equal(t, "0s", a.WaitForNodes)
	require.False(t, *b.Admitted)
	require.Equal(t, []WorkloadPodSetResult{{Name: "head", Count: 1}, {Name: "w", Count: 1}}, b.PodSets)
	require.Contains(t, b.Message, "insufficient unused quota for cpu in flavor default, 1 more needed")
	var bound []string
	for _, p := range res.Pods {
		if p.Node != "" {
			bound = append(bound, p.Name)
		}
	}
	require.Equal(t, []string{"a-head-0", "a-w-worker-0", "a-w-worker-1"}, bound)
}

// kueueLWS is a LeaderWorkerSet of the queue lq: replicas groups of size
// pods of 1 cpu, with a leader template when leader.
func kueueLWS(name string, replicas, size int, leader bool) string {
	tmpl := `{spec: {containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]}}`
	lead := ""
	if leader {
		lead = "    leaderTemplate: " + tmpl + "\n"
	}
	return fmt.Sprintf(`---
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: %s
  labels: {kueue.x-k8s.io/queue-name: lq}
spec:
  replicas: %d
  leaderWorkerTemplate:
    size: %d
%s    workerTemplate: %s
`, name, replicas, size, lead, tmpl)
}

// Kueue admits each group of a LeaderWorkerSet as a workload of its own,
// <lws>-<index>, of the pod sets leader (1) and worker (size - 1): in a
// queue of 4 cpu, groups 0 and 1 (2 cpu each) are admitted, group 2 waits
// (6 > 4), its pods made by the LeaderWorkerSet's controller held behind
// Kueue's gate, with the labels of their pod group.
func TestKueueAdmitsLeaderWorkerSetGroups(t *testing.T) {
	res := runKueue(t, kueueQueues("4", "")+kubeNodes(3, 3)+kueueLWS("a", 3, 2, true))
	var names []string
	var admitted []bool
	for _, w := range res.Workloads {
		if w.Kind == "Workload" {
			names, admitted = append(names, w.Name), append(admitted, *w.Admitted)
		}
	}
	require.Equal(t, []string{"leaderworkerset-a-0-b6553", "leaderworkerset-a-1-4caba", "leaderworkerset-a-2-25f97"}, names)
	require.Equal(t, []bool{true, true, false}, admitted)
	g0 := res.Workloads[slicesIndex(res.Workloads, names[0])]
	require.Equal(t, []WorkloadPodSetResult{{Name: "leader", Count: 1, Flavors: map[string]string{"cpu": "default"}},
		{Name: "worker", Count: 1, Flavors: map[string]string{"cpu": "default"}}}, g0.PodSets)
	nodes := map[string]string{}
	for _, p := range res.Pods {
		nodes[p.Name] = p.Node
	}
	require.Equal(t, map[string]string{"a-0": nodes["a-0"], "a-0-1": nodes["a-0-1"], "a-1": nodes["a-1"], "a-1-1": nodes["a-1-1"], "a-2": "", "a-2-1": ""}, nodes)
	for _, n := range []string{"a-0", "a-0-1", "a-1", "a-1-1"} {
		require.NotEmpty(t, nodes[n], n)
	}
}

// Without a leader template a group is one pod set main of size pods.
func TestKueueLeaderWorkerSetWithoutLeaderTemplate(t *testing.T) {
	res := runKueue(t, kueueQueues("4", "")+kubeNodes(2, 2)+kueueLWS("b", 1, 3, false))
	w := kueueWorkload(t, res, "LeaderWorkerSet b")
	require.Equal(t, []WorkloadPodSetResult{{Name: "main", Count: 3, Flavors: map[string]string{"cpu": "default"}}}, w.PodSets)
	require.Equal(t, 3, res.Stats.Scheduled)
}

func slicesIndex(ws []WorkloadResult, name string) int {
	for i, w := range ws {
		if w.Name == name {
			return i
		}
	}
	return -1
}

// withinClusterQueue LowerPriority: a LeaderWorkerSet of two groups of 2
// pods (1 cpu each) fills the queue's 4 cpu from 0s; at 10s a pod of
// priority 1000 asks for 2 cpu and preempts one group: Kueue deletes its
// pods, the LeaderWorkerSet's controller makes them again behind Kueue's
// gate, and the group's quota is released once its pods are gone; it is
// admitted again after the pod's minute, and its pods bound again.
func TestKueuePreemptsALeaderWorkerSetGroup(t *testing.T) {
	objects := kueueQueues("4", "  preemption: {withinClusterQueue: LowerPriority}\n") + kubeNodes(3, 3) + kueueLWS("a", 2, 2, false)
	pods := `priorityClasses: [{name: high, value: 1000}]
pods:
- {name: high, at: 10s, duration: 1m, priorityClassName: high, requests: {cpu: "2"}, labels: {kueue.x-k8s.io/queue-name: lq}}
`
	res := runObjectsAndPods(t, objects, pods)
	var got []string
	for _, e := range res.KueueEvents {
		if e.Workload == "leaderworkerset-a-1-4caba" {
			got = append(got, e.At+" "+e.Kind)
		}
	}
	// the second group, admitted last (1 ms of cycle later), is preempted
	require.Equal(t, []string{"1ms QuotaReserved", "10s Evicted", "10s QuotaReleased", "10s Requeued", "10.003s Pending", "1m11.002s QuotaReserved"}, got)
	require.Zero(t, res.Workloads[slicesIndex(res.Workloads, "leaderworkerset-a-0-b6553")].Evictions)
	require.Equal(t, 1, res.Workloads[slicesIndex(res.Workloads, "leaderworkerset-a-1-4caba")].Evictions)
	for _, p := range res.Pods {
		require.NotEmpty(t, p.Node, "%s is bound again once its group is admitted", p.Name)
	}
	require.Equal(t, "1m11.003s", res.Stats.SimulatedTime)
}

// kueueDumped is a Workload of a dump in the queue lq: one pod set main
// of count pods of 1 cpu running d; admitted with the flavor default of
// ClusterQueue cq when admitted.
func kueueDumped(name string, count int, d string, admitted bool) string {
	status := ""
	if admitted {
		status = "status:\n  conditions: [{type: QuotaReserved, status: \"True\"}, {type: Admitted, status: \"True\"}]\n" +
			"  admission:\n    clusterQueue: cq\n    podSetAssignments: [{name: main, flavors: {cpu: default}, count: " + fmt.Sprint(count) + "}]\n"
	}
	return fmt.Sprintf(`---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: %s, namespace: default}
spec:
  queueName: lq
  podSets:
  - name: main
    count: %d
    template:
      metadata: {annotations: {gangsim.io/duration: %s}}
      spec:
        containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
%s`, name, count, d, status)
}

// The Workloads of a dump, with Kueue running: w1, admitted (3 of the
// queue's 4 cpu), holds its quota from time 0 and its pods run at once;
// w2 (2 cpu) is pending: it queues at time 0 and waits (5 > 4), its pods
// behind Kueue's gate, until w1's pods finish at 10m; the requeue batch a
// second later admits it, and its pods run 5 minutes, to 15m1s.
func TestKueueRunsADumpsWorkloads(t *testing.T) {
	res := runKueue(t, kueueQueues("4", "")+kubeNodes(3, 3)+kueueDumped("w1", 3, "10m", true)+kueueDumped("w2", 2, "5m", false))
	w1, w2 := kueueWorkload(t, res, "Workload w1"), kueueWorkload(t, res, "Workload w2")
	require.Equal(t, "w1", w1.Name)
	require.Equal(t, "0s", w1.WaitForQuota)
	require.Equal(t, "Finished", w1.Status)
	require.Equal(t, "10m1s", w2.WaitForQuota)
	require.Equal(t, "Finished", w2.Status)
	require.Equal(t, []WorkloadPodSetResult{{Name: "main", Count: 2, Flavors: map[string]string{"cpu": "default"}}}, w2.PodSets)
	require.Equal(t, "15m1s", res.Stats.SimulatedTime)
	var kinds []string
	for _, e := range res.KueueEvents {
		if e.Workload == "w1" {
			kinds = append(kinds, e.At+" "+e.Kind)
		}
	}
	require.Equal(t, []string{"0s QuotaReserved", "10m0s Finished"}, kinds)

	sc, err := Parse("objects.yaml", []byte(kueueQueues("4", "")+kueueDumped("w1", 3, "10m", true)+kueueDumped("w2", 2, "5m", false)))
	require.NoError(t, err)
	var warned []string
	for _, w := range sc.Warnings {
		if w.Kind == "Workload" {
			warned = append(warned, w.Field)
		}
	}
	require.Equal(t, []string{"spec.queueName", "status.admission"}, warned, "what Kueue does with each, and nothing said unmodelled")
}

// A dump's admitted Workload whose admission Kueue could not have made is
// an error naming the Workload and the field, or what is wrong with it.
func TestKueueDumpedAdmissionErrors(t *testing.T) {
	admitted := kueueDumped("w", 1, "1m", true)
	for _, tt := range []struct{ name, text, want string }{
		{"no ClusterQueue", strings.Replace(admitted, "clusterQueue: cq", "clusterQueue: \"\"", 1), "Workload default/w: status.admission.clusterQueue: Required value"},
		{"unknown pod set", strings.Replace(admitted, "{name: main, flavors", "{name: other, flavors", 1), `status.admission.podSetAssignments[0].name: "other" names no pod set of spec.podSets`},
		{"negative count", strings.Replace(admitted, "count: 1}", "count: -1}", 1), "status.admission.podSetAssignments[0].count: Invalid value: -1"},
		{"unknown ClusterQueue", strings.Replace(admitted, "clusterQueue: cq", "clusterQueue: other", 1), `objects.yaml: Workload default/w: status.admission: workload default/w: admitted by ClusterQueue "other", which does not exist`},
		{"flavor not of its queue", strings.Replace(admitted, "{cpu: default}", "{cpu: spot}", 1), `flavor "spot" of cpu is not a flavor of ClusterQueue cq`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := Parse("objects.yaml", []byte(kueueQueues("4", "")+kubeNodes(1, 1)+tt.text))
			if err == nil {
				_, err = sc.Run()
			}
			require.ErrorContains(t, err, tt.want)
		})
	}
}

// kueueRayJob is a RayJob of the queue lq: a head and a worker group w of
// one worker, and a submitter running d, each of 1 cpu.
func kueueRayJob(name, d string) string {
	tmpl := `{spec: {containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]}}`
	return fmt.Sprintf(`---
apiVersion: ray.io/v1
kind: RayJob
metadata:
  name: %s
  labels: {kueue.x-k8s.io/queue-name: lq}
spec:
  shutdownAfterJobFinishes: true
  submitterPodTemplate: {metadata: {annotations: {gangsim.io/duration: %s}}, spec: {restartPolicy: Never, containers: [{name: s, image: x, resources: {requests: {cpu: "1"}}}]}}
  rayClusterSpec:
    headGroupSpec: {rayStartParams: {}, template: %s}
    workerGroupSpecs: [{groupName: w, replicas: 1, rayStartParams: {}, template: %s}]
`, name, d, tmpl, tmpl)
}

// A RayJob naming a queue is one workload, rayjob-<name>-<hash>: the pod
// sets head, w (its cluster's) and submitter (its Job's). Kueue holds the
// cluster and the submitter Job suspended until it admits the RayJob: in
// a queue of 3 cpu, a (3 cpu) runs from 0s, its submitter made once its
// cluster's pods are bound and running 5 minutes; b waits (6 > 3) until a
// finishes at 5m, when its submitter Job completes (and stops its
// cluster); the requeue batch a second later admits b, whose submitter
// completes 5 minutes on, at 10m1s.
func TestKueueHoldsARayJob(t *testing.T) {
	res := runKueue(t, kueueQueues("3", "")+kubeNodes(3, 3)+kueueRayJob("a", "5m")+kueueRayJob("b", "5m"))
	var got []string
	for _, e := range res.KueueEvents {
		got = append(got, e.At+" "+e.Workload+" "+e.Kind)
	}
	require.Equal(t, []string{"0s rayjob-a-8963b QuotaReserved", "1ms rayjob-b-cc134 Pending", "5m0s rayjob-a-8963b Finished",
		"5m1s rayjob-b-cc134 QuotaReserved", "10m1s rayjob-b-cc134 Finished"}, got)
	b := kueueWorkload(t, res, "RayJob b")
	require.Equal(t, []WorkloadPodSetResult{{Name: "head", Count: 1, Flavors: map[string]string{"cpu": "default"}},
		{Name: "w", Count: 1, Flavors: map[string]string{"cpu": "default"}}, {Name: "submitter", Count: 1, Flavors: map[string]string{"cpu": "default"}}}, b.PodSets)
	require.Equal(t, "5m1s", b.WaitForQuota)
	require.Equal(t, "10m1s", res.Stats.SimulatedTime)
}

// A dump shows a RayCluster or RayJob Kueue holds with spec.suspend:
// true; with Kueue running it is Kueue's as any, admitted and resumed.
func TestKueueResumesASuspendedRayClusterOfADump(t *testing.T) {
	rc := strings.Replace(kueueRay("a", 1), "spec:\n  headGroupSpec", "spec:\n  suspend: true\n  headGroupSpec", 1)
	rj := strings.Replace(kueueRayJob("j", "1m"), "spec:\n  shutdownAfterJobFinishes", "spec:\n  suspend: true\n  shutdownAfterJobFinishes", 1)
	res := runKueue(t, kueueQueues("5", "")+kubeNodes(3, 3)+rc+rj)
	require.True(t, *kueueWorkload(t, res, "RayCluster a").Admitted)
	require.Equal(t, "Finished", kueueWorkload(t, res, "RayJob j").Status)
	bound := 0
	for _, p := range res.Pods {
		if strings.HasPrefix(p.Name, "a-") && p.Node != "" {
			bound++
		}
	}
	require.Equal(t, 2, bound)
}

// withinClusterQueue LowerPriority: a RayJob (3 of the queue's 3 cpu,
// submitter running 10 minutes) is preempted at 10s by a pod of priority
// 1000: Kueue suspends it, its cluster's pods and its submitter's are
// deleted, its quota released once they are all gone; the pod runs a
// minute, and the RayJob, admitted again, makes its cluster and its
// submitter again, which runs its 10 minutes.
func TestKueuePreemptsARayJob(t *testing.T) {
	objects := kueueQueues("3", "  preemption: {withinClusterQueue: LowerPriority}\n") + kubeNodes(3, 3) + kueueRayJob("low", "10m")
	pods := `priorityClasses: [{name: high, value: 1000}]
pods:
- {name: high, at: 10s, duration: 1m, priorityClassName: high, requests: {cpu: "1"}, labels: {kueue.x-k8s.io/queue-name: lq}}
`
	res := runObjectsAndPods(t, objects, pods)
	var got []string
	for _, e := range res.KueueEvents {
		if e.Workload == "rayjob-low-cf51e" {
			got = append(got, e.At+" "+e.Kind)
		}
	}
	require.Equal(t, []string{"0s QuotaReserved", "10s Evicted", "10s QuotaReleased", "10s Requeued", "10.003s Pending",
		"1m11.002s QuotaReserved", "11m11.002s Finished"}, got)
	nodes := map[string]string{}
	for _, p := range res.Pods {
		nodes[p.Name] = p.Node
	}
	require.NotEmpty(t, nodes["low-1"], "the submitter made again")
	require.Contains(t, nodes, "low-0-head-1", "the cluster made again")
	require.Equal(t, "Complete", res.Jobs[0].Status)
	require.Zero(t, res.Jobs[0].Failed, "the suspended submitter's deleted pod is no failure")
}

// Kueue's clientConnection is checked as its Configuration's validation
// does: a rate of 0 or less, or a burst below 1, is an error naming the
// field; the limit given paces the admissions (checked in kueue).
func TestKueueClientConnectionErrors(t *testing.T) {
	for field, body := range map[string]string{
		"clientConnection.qps":   "clientConnection: {qps: 0}",
		"clientConnection.burst": "clientConnection: {qps: 5, burst: 0}",
	} {
		_, err := Parse("c.yaml", []byte("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"+body+"\n"))
		require.ErrorContains(t, err, field)
		require.ErrorContains(t, err, "c.yaml")
	}
	sc, err := Parse("c.yaml", []byte("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nclientConnection: {qps: 50, burst: 100}\n"))
	require.NoError(t, err)
	require.Equal(t, float32(50), *sc.Kueue.Configuration.ClientQPS)
	require.Equal(t, int32(100), *sc.Kueue.Configuration.ClientBurst)
}

// The Configuration's client limit paces Kueue's writes: at 1 a second
// with bursts of 1, three pods of one queue are admitted in three cycles
// (0s, 1ms, 2ms), and their admissions land a second apart: 0s, 1s, 2s;
// the cache counted each at its cycle (reserved).
func TestKueueClientLimitPacesAdmissions(t *testing.T) {
	conf := "---\napiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nclientConnection: {qps: 1, burst: 1}\n"
	var pods strings.Builder
	for _, n := range []string{"a", "b", "c"} {
		fmt.Fprintf(&pods, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s, labels: {kueue.x-k8s.io/queue-name: lq}}\n"+
			"spec: {containers: [{name: c, image: x, resources: {requests: {cpu: \"100m\"}}}]}\n", n)
	}
	res := runKueue(t, kueueQueues("4", "")+kubeNodes(1, 1)+conf+pods.String())
	var got []string
	for _, e := range res.KueueEvents {
		if e.Kind == "QuotaReserved" {
			got = append(got, e.At+" reserved "+e.Reserved)
		}
	}
	require.Equal(t, []string{"0s reserved ", "1s reserved 1ms", "2s reserved 2ms"}, got)
}

// runObjectsAndPods runs Kubernetes objects and a scenario file of pods,
// each in a file of its own, merged into one simulation.
func runObjectsAndPods(t *testing.T, objects, pods string) *Result {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "objects.yaml"), []byte(objects), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pods.yaml"), []byte(pods), 0o644))
	sc, err := LoadFiles([]string{filepath.Join(dir, "objects.yaml"), filepath.Join(dir, "pods.yaml")})
	require.NoError(t, err)
	res, err := sc.Run()
	require.NoError(t, err)
	return res
}
