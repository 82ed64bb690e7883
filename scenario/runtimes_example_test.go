package scenario_test

import (
	"fmt"

	"github.com/gangsim/gangsim/scenario"
)

// A Job from a manifest, with a default run time for its pods: the Job
// controller runs three pods at a time until five have succeeded.
func ExampleWithDefaultDuration() {
	runTime, err := scenario.ParseRunTime("30m") // or "{exponential: 20m, max: 2h}"
	if err != nil {
		fmt.Println(err)
		return
	}
	sc, err := scenario.Parse("job.yaml", []byte(`
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "4"}}}
- apiVersion: batch/v1
  kind: Job
  metadata: {name: etl}
  spec:
    completions: 5
    parallelism: 3
    template:
      spec:
        restartPolicy: Never
        containers: [{name: etl, resources: {requests: {cpu: "1"}}}]
`), scenario.WithDefaultDuration(runTime))
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
		fmt.Println(p.Name, p.Phase)
	}
	j := res.Jobs[0]
	fmt.Println(j.Name, j.Status, j.Succeeded, j.FinishedAt)
	// Output:
	// etl-0 Succeeded
	// etl-1 Succeeded
	// etl-2 Succeeded
	// etl-3 Succeeded
	// etl-4 Succeeded
	// etl Complete 5 1h0m0s
}
