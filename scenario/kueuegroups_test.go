package scenario

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
)

// A scenario file's Kueue pod group: the name is the label
// kueue.x-k8s.io/pod-group-name, the total count the annotation
// kueue.x-k8s.io/pod-group-total-count, as Kueue reads them. A count
// missing, given as a label only, or not a whole number from 1 is refused
// at load time, naming the file, the entry and the field; pods of one
// group that disagree on it too.
func TestKueueGroupTotalCountIsAnAnnotation(t *testing.T) {
	const queue = "kueue.x-k8s.io/queue-name: lq"
	const group = "kueue.x-k8s.io/pod-group-name: trio"
	pod := func(name, labels, annotations string) string {
		s := "  - {name: " + name + ", count: 3, requests: {cpu: \"1\"}, labels: {" + labels + "}"
		if annotations != "" {
			s += ", annotations: {" + annotations + "}"
		}
		return s + "}\n"
	}
	field := "pods.yaml: line 2: pods[0] (p).annotations[kueue.x-k8s.io/pod-group-total-count]: "
	for _, tc := range []struct {
		name, pods, err string
	}{
		{"the annotation", pod("p", queue+", "+group, `kueue.x-k8s.io/pod-group-total-count: "3"`), ""},
		{"a label only", pod("p", queue+", "+group+`, kueue.x-k8s.io/pod-group-total-count: "3"`, ""),
			field + `Required value: a pod of the Kueue pod group "trio" (labels[kueue.x-k8s.io/pod-group-name]) gives its group's total count as this annotation, as Kueue reads it; ` +
				`it is given as a label ("3"), which Kueue does not read: move it to annotations`},
		{"none", pod("p", queue+", "+group, ""), field + "Required value"},
		{"none, on a pod of no queue: not Kueue's", pod("p", group, ""), ""},
		{"zero", pod("p", queue+", "+group, `kueue.x-k8s.io/pod-group-total-count: "0"`),
			field + `Invalid value: "0": group total count should be a whole number greater than zero`},
		{"not a number", pod("p", queue+", "+group, `kueue.x-k8s.io/pod-group-total-count: "three"`), field + `Invalid value: "three"`},
		{"negative", pod("p", queue+", "+group, `kueue.x-k8s.io/pod-group-total-count: "-3"`), field + `Invalid value: "-3"`},
		{"beyond int64", pod("p", queue+", "+group, `kueue.x-k8s.io/pod-group-total-count: "99999999999999999999"`), field + "Invalid value"},
		{"more than any input may hold", pod("p", queue+", "+group, `kueue.x-k8s.io/pod-group-total-count: "4294967298"`),
			field + "4294967298 is more than the 10,000,000 pods all inputs may hold"},
		{"two entries of one group disagree",
			pod("p", queue+", "+group, `kueue.x-k8s.io/pod-group-total-count: "6"`) + pod("q", queue+", "+group, `kueue.x-k8s.io/pod-group-total-count: "4"`),
			"pods.yaml: line 3: pods[1] (q).annotations[kueue.x-k8s.io/pod-group-total-count]: 4, where pods.yaml: pods[0] (p) of the same pod group gives 6"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseFiles([]File{{Name: "objects.yaml", Data: []byte(kueueQueues("8", ""))}, {Name: "pods.yaml", Data: []byte("pods:\n" + tc.pods)}})
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.err)
		})
	}
}

// The count read from the annotation makes the group: three pods of a
// group of 3, one Workload of 3 pods admitted whole.
func TestKueueGroupOfTheAnnotationsCount(t *testing.T) {
	pods := "pods:\n  - {name: p, count: 3, duration: 1m, requests: {cpu: \"1\"}, labels: {kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/pod-group-name: trio}, " +
		"annotations: {kueue.x-k8s.io/pod-group-total-count: \"3\"}}\n"
	res := runObjectsAndPods(t, kueueQueues("8", "")+kubeNodes(2, 2), pods)
	w := kueueWorkload(t, res, "Pod group trio")
	require.Len(t, w.PodSets, 1)
	require.Equal(t, int32(3), w.PodSets[0].Count)
	require.Equal(t, "Finished", w.Status)
}

// kueuePlainPods are a node of 2 cpu, a queue of 8 cpu and a priority
// class high; pods: the scenario's pods.
func kueuePlainPods(t *testing.T, pods string) *Result {
	t.Helper()
	return runObjectsAndPods(t, kueueQueues("8", "")+kubeNodes(1, 1), "priorityClasses: [{name: high, value: 1000}]\npods:\n"+pods)
}

// A bare pod the scheduler preempts is deleted, as Kubernetes deletes a
// victim, and nothing makes it again: Kueue's Workload of a plain pod
// finishes with it and its quota is released. Here Kueue's pod low (2
// cpu, no end) runs from 0s; at 10s a pod of no queue and priority high
// preempts it; low leaves its node at 40s, after its grace period of 30
// s, is deleted then, and does not come back.
func TestKueuePlainPodPreemptedIsGone(t *testing.T) {
	res := kueuePlainPods(t, `  - {name: low, requests: {cpu: "2"}, labels: {kueue.x-k8s.io/queue-name: lq}}
  - {name: high, at: 10s, priorityClassName: high, requests: {cpu: "2"}}
`)
	w := kueueWorkload(t, res, "Pod low")
	require.Equal(t, "Finished", w.Status)
	for _, p := range res.Pods {
		if p.Name == "low" {
			require.Equal(t, gangsim.PhaseDeleted, p.Phase)
		}
	}
	var kinds []string
	for _, e := range res.KueueEvents {
		if e.Workload == w.Name {
			kinds = append(kinds, e.At+" "+e.Kind)
		}
	}
	require.Equal(t, []string{"0s QuotaReserved", "40s Finished"}, kinds)
}

// A pod group that loses a pod to the scheduler's preemption ends as
// Kueue's pod integration says: a batch group waits, admitted, for a
// replacement no one makes (its quota held); one with
// retriable-in-group "false" finishes once its other pods have ended; a
// serving group never finishes.
func TestKueueGroupLosingAPod(t *testing.T) {
	for _, tc := range []struct {
		name, annotations, status, reason string
	}{
		{"a batch group waits for a replacement", "", "Admitted", "WaitingForReplacementPods"},
		{"a group not retriable finishes", `, kueue.x-k8s.io/retriable-in-group: "false"`, "Finished", ""},
		{"a serving group never finishes", `, kueue.x-k8s.io/pod-group-serving: "true"`, "Admitted", "WaitingForReplacementPods"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// g-0 and g-1 of 1 cpu share the node; high (1 cpu) preempts
			// one of them at 10s; the other succeeds at 1m
			res := kueuePlainPods(t, `  - {name: g, count: 2, duration: 1m, requests: {cpu: "1"}, labels: {kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/pod-group-name: g}, annotations: {kueue.x-k8s.io/pod-group-total-count: "2"`+tc.annotations+`}}
  - {name: high, at: 10s, priorityClassName: high, requests: {cpu: "1"}}
`)
			w := kueueWorkload(t, res, "Pod group g")
			require.Equal(t, tc.status, w.Status)
			require.Equal(t, tc.reason, w.Reason)
			require.Equal(t, 1, res.Stats.Evictions)
			phases := map[gangsim.Phase]int{}
			for _, p := range res.Pods {
				if strings.HasPrefix(p.Name, "g-") {
					phases[p.Phase]++
				}
			}
			require.Equal(t, map[gangsim.Phase]int{gangsim.PhaseDeleted: 1, gangsim.PhaseSucceeded: 1}, phases)
		})
	}
}

// The loop the random suite found (seed 1822): a Job whose pods never
// all fit is admitted, preempts a plain pod of the same queue, times out
// (waitForPodsReady), is evicted and admitted again after its back-off;
// the plain pod, requeued, took its node back each time, for ever. Now
// the preempted pod is gone and the run ends by itself: the Job's timers
// alone are left.
func TestKueueWaitForPodsReadyLoopOfAPlainPodEnds(t *testing.T) {
	k := generateKueueScenario(1822)
	sc, err := ParseFiles(k.files())
	require.NoError(t, err)
	n := 0
	res, err := sc.RunUntil(func(e gangsim.Event) bool { n++; return e.At > 48*time.Hour || n > 30_000 })
	require.NoError(t, err)
	require.Empty(t, res.Stopped)
}

// FuzzKueueGroupOf: any labels and annotations give a group or an error
// naming the total count's annotation, never a panic; a group's count is
// the annotation's whole number, from 1 to the pods the inputs may hold.
func FuzzKueueGroupOf(f *testing.F) {
	for _, seed := range []struct{ group, count, countLabel, retriable string }{
		{"trio", "3", "", ""}, {"trio", "", "3", ""}, {"trio", "0", "", "false"}, {"g", "99999999999999999999", "", ""},
		{"g", "-1", "", ""}, {"g", " 2", "", "true"}, {"", "2", "", ""}, {"g", "+4", "", ""}, {"g", "0x10", "", ""},
	} {
		f.Add(seed.group, seed.count, seed.countLabel, seed.retriable)
	}
	f.Fuzz(func(t *testing.T, group, count, countLabel, retriable string) {
		labels := map[string]string{kueueQueueLabel: "lq", kueueGroupLabel: group}
		if countLabel != "" {
			labels[kueueTotalCount] = countLabel
		}
		ann := map[string]string{kueueRetriable: retriable}
		if count != "" {
			ann[kueueTotalCount] = count
		}
		const maxPods = 1000
		g, field, err := kueueGroupOf(labels, ann, maxPods)
		if err != nil {
			require.Equal(t, "annotations["+kueueTotalCount+"]", field)
			return
		}
		if group == "" {
			require.Equal(t, groupMeta{}, g)
			return
		}
		require.GreaterOrEqual(t, g.total, 1)
		require.LessOrEqual(t, g.total, maxPods)
		require.Equal(t, retriable == "false", g.unretriable)
	})
}
