package scenario

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/kueue"
)

// tasCluster is a Topology of racks and hosts, a TAS flavor "tas" over
// the nodes labelled pool=tas, a ClusterQueue cq of 100 cpu and a
// LocalQueue lq, and the nodes: rack r1 holds n1 and n2, rack r2 holds
// n3, each of 2 cpu.
func tasCluster() string {
	var b strings.Builder
	b.WriteString(`apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: default}
spec:
  levels: [{nodeLabel: cloud.com/rack}, {nodeLabel: kubernetes.io/hostname}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: tas}
spec: {nodeLabels: {pool: tas}, topologyName: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: tas
      resources: [{name: cpu, nominalQuota: "100"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: default}
spec: {clusterQueue: cq}
`)
	for _, n := range [][2]string{{"n1", "r1"}, {"n2", "r1"}, {"n3", "r2"}} {
		fmt.Fprintf(&b, `---
apiVersion: v1
kind: Node
metadata: {name: %s, labels: {pool: tas, cloud.com/rack: %s, kubernetes.io/hostname: %s}}
status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}
`, n[0], n[1], n[0])
	}
	return b.String()
}

// tasGroup is a Kueue pod group of n pods of 1 cpu, running d, with the
// topology annotation given.
func tasGroup(name string, n int, d, annotation string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `---
apiVersion: v1
kind: Pod
metadata:
  name: %s-%d
  labels: {kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/pod-group-name: %s}
  annotations: {kueue.x-k8s.io/pod-group-total-count: "%d", gangsim.io/duration: %s, %s}
spec:
  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
`, name, i, name, n, d, annotation)
	}
	return b.String()
}

func podNodes(res *Result) map[string]string {
	out := map[string]string{}
	for _, p := range res.Pods {
		out[p.Name] = p.Node
	}
	return out
}

// A group of 3 pods requiring one rack: r1 holds 4 (n1 2, n2 2), r2 2,
// so Kueue chooses r1; in it n1 takes 2 and n2 the last (best fit), and
// the pods, by name, are steered there: a-0 and a-1 on n1, a-2 on n2.
// The importer makes the group a PodGroup of topology key
// cloud.com/rack as well, and the scheduler's PodGroup cycle places it
// within the nodes Kueue chose. A second group b of 3 (rack required)
// then fits no rack (r1 has 1 left, r2 2) and waits with Kueue's
// message until a is done.
func TestKueueTASRequiredRackEndToEnd(t *testing.T) {
	res := runKueue(t, tasCluster()+tasGroup("a", 3, "10s", "kueue.x-k8s.io/podset-required-topology: cloud.com/rack")+
		tasGroup("b", 3, "10s", "kueue.x-k8s.io/podset-required-topology: cloud.com/rack"))
	nodes := podNodes(res)
	require.Equal(t, "n1", nodes["a-0"])
	require.Equal(t, "n1", nodes["a-1"])
	require.Equal(t, "n2", nodes["a-2"])
	// b: after a, r1 again (the only rack of 3)
	require.Equal(t, "n1", nodes["b-0"])
	require.Equal(t, "n2", nodes["b-2"])
	wa := kueueWorkload(t, res, "Pod group a")
	wb := kueueWorkload(t, res, "Pod group b")
	// b, inadmissible, is moved back to its queue one requeue batch (1 s)
	// after a finishes at 10 s
	require.Equal(t, []string{"0s", "11s"}, []string{wa.AdmittedAt, wb.AdmittedAt})
	var msgs []string
	for _, e := range res.KueueEvents {
		if e.Kind == "Pending" && strings.Contains(e.Workload, "pod-b-") {
			msgs = append(msgs, e.Message)
		}
	}
	require.Contains(t, msgs, "couldn't assign flavors to pod set "+wb.PodSets[0].Name+`: topology "default" allows to fit only 2 out of 3 pod(s). Total nodes: 3; excluded: resource "cpu": 1`)
}

// Preferred: 3 pods preferring a rack, when each rack holds 2 after a
// non-Kueue pod on n1: Kueue climbs to the top and spreads them, r1 and
// r2 (best fit for the last).
func TestKueueTASPreferredEndToEnd(t *testing.T) {
	other := `---
apiVersion: v1
kind: Pod
metadata: {name: other}
spec:
  nodeName: n1
  containers: [{name: c, image: x, resources: {requests: {cpu: "2"}}}]
`
	res := runKueue(t, tasCluster()+other+tasGroup("a", 3, "10s", "kueue.x-k8s.io/podset-preferred-topology: cloud.com/rack"))
	nodes := podNodes(res)
	// r1 holds 2 (n2), r2 holds 2 (n3): no rack holds 3; r1 first (values), 2 there, the last on n3
	require.Equal(t, "n2", nodes["a-0"])
	require.Equal(t, "n2", nodes["a-1"])
	require.Equal(t, "n3", nodes["a-2"])
}

// The annotations as Kueue's webhook checks them.
func TestKueueTopologyAnnotations(t *testing.T) {
	for _, c := range []struct {
		name string
		ann  map[string]string
		want *kueue.TopologyRequest
		err  string
	}{
		{"none", map[string]string{"other": "x"}, nil, ""},
		{"required", map[string]string{tasRequired: "rack"}, &kueue.TopologyRequest{Required: "rack"}, ""},
		{"preferred", map[string]string{tasPreferred: "rack"}, &kueue.TopologyRequest{Preferred: "rack"}, ""},
		{"unconstrained", map[string]string{tasUnconstrained: "true"}, &kueue.TopologyRequest{Unconstrained: true}, ""},
		{"slices", map[string]string{tasSliceRequired: "rack", tasSliceSize: "2"}, &kueue.TopologyRequest{SliceRequired: "rack", SliceSize: 2}, ""},
		{"two", map[string]string{tasRequired: "rack", tasPreferred: "rack"}, nil, "must not contain more than one topology annotation"},
		{"empty level", map[string]string{tasRequired: ""}, nil, "must name a level"},
		{"bad bool", map[string]string{tasUnconstrained: "yes"}, nil, "must be a boolean value"},
		{"size alone", map[string]string{tasSliceSize: "2"}, nil, "must be given together"},
		{"size 0", map[string]string{tasSliceRequired: "rack", tasSliceSize: "0"}, nil, "a whole number of at least 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := kueueTopology(c.ann)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
}

// FuzzKueueTopology: any annotations give a request or an error, never a
// panic, and a request's slice size is at least 1 when slices are asked.
func FuzzKueueTopology(f *testing.F) {
	f.Add("rack", "", "", "rack", "2")
	f.Add("", "host", "true", "", "")
	f.Fuzz(func(t *testing.T, req, pref, unc, slice, size string) {
		ann := map[string]string{}
		for k, v := range map[string]string{tasRequired: req, tasPreferred: pref, tasUnconstrained: unc, tasSliceRequired: slice, tasSliceSize: size} {
			if v != "" {
				ann[k] = v
			}
		}
		got, err := kueueTopology(ann)
		if err == nil && got != nil && got.SliceRequired != "" && got.SliceSize < 1 {
			t.Fatalf("slice size %d", got.SliceSize)
		}
	})
}

// Kueue's TAS sample (testdata/kube/samples/kueue-tas.yaml): an Indexed
// Job of six pods of 1 cpu requiring a rack; rack a holds 4 (a-0, a-1: 2
// cpu each), rack b 8 (b-0, b-1: 4 each). Kueue chooses rack b, b-0 for
// 4 pods and b-1 for the last 2 (best fit); the Job's pods, made once
// it is admitted, are steered by their completion index: 0-3 on b-0, 4
// and 5 on b-1. The importer's gang (the Job's pods in one rack) agrees.
func TestKueueTASJobEndToEnd(t *testing.T) {
	sc, err := Load("testdata/kube/samples/kueue-tas.yaml")
	require.NoError(t, err)
	res, err := sc.Run()
	require.NoError(t, err)
	nodes := podNodes(res)
	for i, want := range []string{"b-0", "b-0", "b-0", "b-0", "b-1", "b-1"} {
		require.Equal(t, want, nodes[fmt.Sprintf("allreduce-%d-0", i)], "pod %d", i)
	}
	w := kueueWorkload(t, res, "Job allreduce")
	require.Equal(t, "kubernetes.io/hostname=b-0:4 kubernetes.io/hostname=b-1:2", w.PodSets[0].Topology)
}

// An Indexed Job of 3 pods requiring a rack in tasCluster: Kueue chooses
// r1 (4 pods of room against r2's 2), n1 for 2 pods and n2 for the last;
// by completion index, pods 0 and 1 go to n1 and pod 2 to n2, where the
// scheduler alone would spread them (n1, n2, then n1 or n3).
func TestKueueTASIndexedJobSteered(t *testing.T) {
	job := `---
apiVersion: batch/v1
kind: Job
metadata:
  name: j
  labels: {kueue.x-k8s.io/queue-name: lq}
spec:
  parallelism: 3
  completions: 3
  completionMode: Indexed
  template:
    metadata:
      annotations: {kueue.x-k8s.io/podset-required-topology: cloud.com/rack, gangsim.io/duration: 10s}
    spec:
      restartPolicy: Never
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
`
	res := runKueue(t, tasCluster()+job)
	nodes := podNodes(res)
	require.Equal(t, []string{"n1", "n1", "n2"}, []string{nodes["j-0-0"], nodes["j-1-0"], nodes["j-2-0"]}, "%v", nodes)
	require.Equal(t, "kubernetes.io/hostname=n1:2 kubernetes.io/hostname=n2:1", kueueWorkload(t, res, "Job j").PodSets[0].Topology)
}

// A JobSet of one replicated job of 3 pods requiring a rack, in
// tasCluster: its child Job's pods are steered as a Job's are (n1 for 2,
// n2 for 1), the pod set being the replicated job's.
func TestKueueTASJobSetSteered(t *testing.T) {
	js := `---
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: js
  labels: {kueue.x-k8s.io/queue-name: lq}
spec:
  replicatedJobs:
  - name: w
    template:
      spec:
        parallelism: 3
        completions: 3
        completionMode: Indexed
        template:
          metadata:
            annotations: {kueue.x-k8s.io/podset-required-topology: cloud.com/rack, gangsim.io/duration: 10s}
          spec:
            restartPolicy: Never
            containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
`
	res := runKueue(t, tasCluster()+js)
	w := kueueWorkload(t, res, "JobSet js")
	require.Equal(t, "kubernetes.io/hostname=n1:2 kubernetes.io/hostname=n2:1", w.PodSets[0].Topology)
	count := map[string]int{}
	for _, p := range res.Pods {
		count[p.Node]++
	}
	require.Equal(t, map[string]int{"n1": 2, "n2": 1}, count)
}

// Room freed outside Kueue: pods not of Kueue fill n1 and n2 (rack r1)
// until 5 s, and n3 (r2) until 100 s. A group of 3 requiring a rack fits
// no rack, and waits, inadmissible; when the pods of r1 end at 5 s,
// Kueue's TAS cache has the inadmissible workloads requeued (one batch,
// 1 s): it is admitted at 6 s, in r1.
func TestKueueTASRoomFreedByOtherPods(t *testing.T) {
	blocker := func(name, node, d string) string {
		return fmt.Sprintf(`---
apiVersion: v1
kind: Pod
metadata: {name: %s, annotations: {gangsim.io/duration: %s}}
spec:
  nodeName: %s
  containers: [{name: c, image: x, resources: {requests: {cpu: "2"}}}]
`, name, d, node)
	}
	res := runKueue(t, tasCluster()+blocker("b1", "n1", "5s")+blocker("b2", "n2", "5s")+blocker("b3", "n3", "100s")+
		tasGroup("a", 3, "10s", "kueue.x-k8s.io/podset-required-topology: cloud.com/rack"))
	w := kueueWorkload(t, res, "Pod group a")
	require.Equal(t, "6s", w.AdmittedAt)
	nodes := podNodes(res)
	require.Equal(t, []string{"n1", "n1", "n2"}, []string{nodes["a-0"], nodes["a-1"], nodes["a-2"]})
}
