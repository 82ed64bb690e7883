package whatif_test

import (
	"fmt"
	"time"

	"github.com/gangsim/gangsim/scenario"
	"github.com/gangsim/gangsim/whatif"
)

// How many GPUs of nominal quota does team-a need so that nine in ten of
// its workloads are admitted within 30 minutes? Twelve one-GPU pods of an
// hour each arrive at once; with N GPUs of quota they are admitted N at a
// time, an hour apart. The p90 of twelve times is the eleventh, so the
// eleventh pod must be admitted at once: 11 GPUs. With no quota nothing is
// admitted, and the twelve wait to the end. Kueue's quota, not the node
// (16 GPUs), is what they wait for.
func ExampleSmallestNominalQuota() {
	text := `apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: gpu}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: team-a}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, nvidia.com/gpu]
    flavors: [{name: gpu, resources: [{name: cpu, nominalQuota: "64"}, {name: nvidia.com/gpu, nominalQuota: "4"}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: a, namespace: default}
spec: {clusterQueue: team-a}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "64", memory: 512Gi, nvidia.com/gpu: "16", pods: "110"}}
`
	for i := range 12 {
		text += fmt.Sprintf(`---
apiVersion: v1
kind: Pod
metadata: {name: nb-%d, labels: {kueue.x-k8s.io/queue-name: a}, annotations: {gangsim.io/duration: 1h}}
spec: {containers: [{name: c, image: x, resources: {requests: {cpu: "1", nvidia.com/gpu: "1"}, limits: {nvidia.com/gpu: "1"}}}]}
`, i)
	}
	sc, err := scenario.ParseFiles([]scenario.File{{Name: "team-a.yaml", Data: []byte(text)}})
	if err != nil {
		fmt.Println(err)
		return
	}
	q := whatif.QuotaQuestion{ClusterQueue: "team-a", Flavor: "gpu", Resource: "nvidia.com/gpu", Max: 16}
	a, err := whatif.SmallestNominalQuota(sc, q, whatif.Criteria{MaxWait: 30 * time.Minute, Quantile: 0.9}, whatif.Options{Workers: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.Variant.Name)
	for _, r := range a.Runs {
		fmt.Printf("  %2d GPUs: ok=%v, %d waiting at the end, p90 time to admission %v\n", r.Count, r.OK, r.WorkloadsPending, r.Wait.Round(time.Minute))
	}
	// Output:
	// quota:team-a:gpu:nvidia.com/gpu:nominalQuota=11
	//    0 GPUs: ok=false, 12 waiting at the end, p90 time to admission 0s
	//    1 GPUs: ok=false, 0 waiting at the end, p90 time to admission 10h0m0s
	//    2 GPUs: ok=false, 0 waiting at the end, p90 time to admission 5h0m0s
	//    4 GPUs: ok=false, 0 waiting at the end, p90 time to admission 2h0m0s
	//    8 GPUs: ok=false, 0 waiting at the end, p90 time to admission 1h0m0s
	//   16 GPUs: ok=true, 0 waiting at the end, p90 time to admission 0s
	//   12 GPUs: ok=true, 0 waiting at the end, p90 time to admission 0s
	//   10 GPUs: ok=false, 0 waiting at the end, p90 time to admission 1h0m0s
	//   11 GPUs: ok=true, 0 waiting at the end, p90 time to admission 0s
}
