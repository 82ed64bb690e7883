package whatif_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gangsim/gangsim/scenario"
	"github.com/gangsim/gangsim/whatif"
)

// How many racks like r1 must be added so that three rack-bound training
// gangs are placed? Each gang of four 4-GPU pods needs 16 GPUs of one
// rack, and a rack has 16: two racks more.
func ExampleFewestDomainsToAdd() {
	sc, err := scenario.Parse("racks.yaml", []byte(`
nodes: [{name: r1, labels: {rack: r1}, allocatable: {cpu: "64", nvidia.com/gpu: "8"}, count: 2}]
workloads:
  - name: train
    replicas: 3
    group: {minCount: 4, pods: 4, topologyKey: rack}
    pod: {requests: {cpu: "1", nvidia.com/gpu: "4"}}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	a, err := whatif.FewestDomainsToAdd(sc, "rack", "r1", whatif.Criteria{}, whatif.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.Question)
	fmt.Println(a.CountKey, a.Count)
	for _, r := range a.Runs {
		fmt.Printf("  %d added: ok=%v, %d pods pending\n", r.Count, r.OK, r.PendingAtEnd)
	}
	// Output:
	// fewest racks like r1 (rack=r1) to add so that every pod is placed
	// racksToAdd 2
	//   0 added: ok=false, 8 pods pending
	//   1 added: ok=false, 4 pods pending
	//   2 added: ok=true, 0 pods pending
}

// Compare variants side by side.
func ExampleCompare() {
	sc, _ := scenario.Parse("small.yaml", []byte(`
nodes: [{name: n, allocatable: {cpu: "4"}, count: 2}]
pods: [{name: p, requests: {cpu: "3"}, count: 3}]
`))
	var vs []whatif.Variant
	for _, spec := range []string{"base", "add:n-0:1"} {
		v, _ := whatif.ParseVariant(spec)
		vs = append(vs, v)
	}
	c, _ := whatif.Compare(sc, vs, whatif.Options{})
	for _, v := range c.Variants {
		fmt.Printf("%s: %d of %d pods placed on %d nodes\n", v.Variant, v.Summary.PodsPlaced, v.Summary.Pods, v.Summary.Nodes)
	}
	// Output:
	// base: 2 of 3 pods placed on 2 nodes
	// add:n-0:1: 3 of 3 pods placed on 3 nodes
}

// FuzzMerge: any input merges or gives an ErrSweep (or a reading error),
// never a panic.
func FuzzMerge(f *testing.F) {
	f.Add(`{"index":0,"count":1,"scenario":"s","variant":"base","summary":{"nodes":1}}`)
	f.Add("{\"index\":1,\"count\":2}\n{\"index\":0,\"count\":2}\n")
	f.Add("not json")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := whatif.Merge(strings.NewReader(s))
		if err == nil && len(c.Variants) == 0 {
			t.Fatal("a merge without variants")
		}
	})
}

// No count of nodes like n-0 places a pod asking for more than such a
// node has: the answer names it, with the scheduler's reason.
func ExampleAnswer_noFit() {
	sc, err := scenario.Parse("small.yaml", []byte(`
nodes: [{name: n, allocatable: {cpu: "4"}, count: 2}]
pods: [{name: big, requests: {cpu: "6"}}, {name: p, requests: {cpu: "3"}, count: 3}]
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	a, err := whatif.FewestNodesToAdd(sc, "n-0", whatif.Criteria{Limit: 4}, whatif.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.Found, a.Reason)
	for _, g := range a.NoFit {
		fmt.Println(g.Pods, g.Reason, g.First)
	}
	// Output:
	// false with 4 added, 1 pod is still pending (big); none of them fits an empty node like n-0
	// 1 Insufficient cpu [big]
}

// A sweep's inputs travel in ConfigMaps of at most 1 MiB of data each; a
// file larger than that goes compressed.
func ExampleJobSpec_ConfigMaps() {
	spec := whatif.JobSpec{Name: "sweep", Image: "registry.example/capacity-planning:v1", Completions: 2, MountPath: "/scenarios",
		Files: []whatif.JobFile{
			{Name: "nodes.json", Data: make([]byte, 700<<10)},
			{Name: "pods.json", Data: make([]byte, 700<<10)},
			{Name: "dump.json", Data: make([]byte, 5<<20)}, // zeros: they compress to almost nothing
		}}
	names, err := spec.ConfigMaps()
	fmt.Println(names, err)
	// Output:
	// [sweep-scenarios sweep-scenarios-2] <nil>
}
