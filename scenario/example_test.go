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

// Load a scheduler's configuration that names an out-of-tree plugin as the
// command-line tools do: the plugin is left out of its profile, and a
// warning says so. Without the option the load fails at the plugin's entry.
func ExampleSkipUnknownPlugins() {
	config := []byte(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- plugins:
    multiPoint:
      enabled: [{name: Coscheduling}]
`)
	_, err := scenario.Parse("sched.yaml", config)
	fmt.Println(err != nil)
	sc, err := scenario.Parse("sched.yaml", config, scenario.SkipUnknownPlugins())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, w := range sc.Warnings {
		fmt.Println(w.Kind, w.Field)
	}
	// Output:
	// true
	// KubeSchedulerConfiguration plugin Coscheduling
}
