package scenario_test

import (
	"fmt"

	"github.com/gangsim/gangsim/scenario"
)

// A dump of Kueue Workloads, without the jobs that made them: each pod set
// makes its pods, and a required topology places the pod set in one
// domain, all or nothing. Rack a has room for 3 of the 4 workers, so the
// gang goes to rack b.
func ExampleParse_kueueWorkload() {
	sc, err := scenario.Parse("dump.yaml", []byte(`
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: a1, labels: {rack: a}}, status: {allocatable: {cpu: "2"}}}
- {apiVersion: v1, kind: Node, metadata: {name: a2, labels: {rack: a}}, status: {allocatable: {cpu: "1"}}}
- {apiVersion: v1, kind: Node, metadata: {name: b1, labels: {rack: b}}, status: {allocatable: {cpu: "2"}}}
- {apiVersion: v1, kind: Node, metadata: {name: b2, labels: {rack: b}}, status: {allocatable: {cpu: "2"}}}
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: Workload
  metadata: {name: train}
  spec:
    queueName: team
    podSets:
    - name: workers
      count: 4
      topologyRequest: {required: rack}
      template:
        spec:
          containers: [{name: c, image: trainer, resources: {requests: {cpu: "1"}}}]
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
	fmt.Println(res.PodGroups[0].Name)
	// Output:
	// train-workers-0 b1 Bound
	// train-workers-1 b2 Bound
	// train-workers-2 b1 Bound
	// train-workers-3 b2 Bound
	// workload-train-workers
}
