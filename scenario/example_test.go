package scenario_test

import (
	"fmt"

	"github.com/gangsim/gangsim/scenario"
)

// Run a scenario from Go and read its typed result, as a policy test does.
func ExampleParse() {
	sc, err := scenario.Parse("inline.yaml", []byte(`
nodes:
  - {name: rack-a, labels: {rack: a}, allocatable: {cpu: "4"}, count: 2}
  - {name: rack-b, labels: {rack: b}, allocatable: {cpu: "2"}, count: 2}
podGroups:
  - {name: train, minCount: 4, topologyKey: rack}
pods:
  - {name: worker, requests: {cpu: "2"}, podGroup: train, count: 4}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := sc.Run()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range res.Pods {
		fmt.Println(p.Name, p.Node, p.Phase)
	}
	fmt.Println(res.PodGroups[0].Conditions[0].Status)
	// Output:
	// worker-0 rack-a-0 Bound
	// worker-1 rack-a-1 Bound
	// worker-2 rack-a-0 Bound
	// worker-3 rack-a-1 Bound
	// True
}
