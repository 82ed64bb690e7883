package scenario_test

import (
	"fmt"

	"github.com/gangsim/gangsim/scenario"
)

// A workload template stands for many pods: here two gangs of two pods
// arriving 10 minutes apart, and three service pods with drawn sizes.
func ExampleParse_workloads() {
	sc, err := scenario.Parse("templates.yaml", []byte(`
nodes: [{name: n, labels: {rack: r1}, allocatable: {cpu: "16"}, count: 2}]
workloads:
  - name: train
    replicas: 2
    arrival: {every: 10m}
    duration: {exponential: 1h}
    group: {minCount: 2, pods: 2, topologyKey: rack}
    pod: {requests: {cpu: "4"}}
  - name: web
    seed: 1
    replicas: 3
    sizes: [{weight: 1, requests: {cpu: "1"}}, {weight: 1, requests: {cpu: "2"}}]
    pod: {requests: {cpu: "1"}}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, g := range sc.PodGroups {
		fmt.Println("group", g.Name, "minCount", g.MinCount)
	}
	for _, p := range sc.Pods {
		fmt.Printf("%s group=%q at=%v cpu=%dm from %s\n", p.Pod.Name, p.Pod.PodGroup, p.At, p.Pod.Requests.MilliCPU, p.Source.Path)
	}
	// Output:
	// group train-0 minCount 2
	// group train-1 minCount 2
	// train-0-0 group="train-0" at=0s cpu=4000m from workloads[0] (train-0-0)
	// train-0-1 group="train-0" at=0s cpu=4000m from workloads[0] (train-0-1)
	// train-1-0 group="train-1" at=10m0s cpu=4000m from workloads[0] (train-1-0)
	// train-1-1 group="train-1" at=10m0s cpu=4000m from workloads[0] (train-1-1)
	// web-0 group="" at=0s cpu=2000m from workloads[1] (web-0)
	// web-1 group="" at=0s cpu=1000m from workloads[1] (web-1)
	// web-2 group="" at=0s cpu=2000m from workloads[1] (web-2)
}
