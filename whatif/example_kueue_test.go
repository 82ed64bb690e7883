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

// Classic preemption against fair sharing, one command: team-c (no quota
// of its own) borrows the cohort's 8 cores (team-a's 4 and team-b's 4,
// which sends nothing) at 0 with eight 1-hour pods; team-a sends six at
// 10m. Classic preemption reclaims team-a's
// nominal 4 cores from team-c, and team-a's last two wait for team-c's
// pods to end at 1h (50m, and the second Kueue takes to requeue them;
// mean time to admission 2 × 50m / 6 = 16m40s). Fair
// sharing preempts while team-a's share after admission stays at most
// team-c's: team-a ends borrowing 2 of team-c's cores, team-c keeps 2,
// and all six are admitted at once.
func ExampleCompare_fairSharing() {
	objs := `apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
`
	for _, q := range []struct{ name, quota string }{{"team-a", "4"}, {"team-b", "4"}, {"team-c", "0"}} {
		objs += fmt.Sprintf(`---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: %[1]s}
spec:
  cohortName: pool
  namespaceSelector: {}
  preemption: {reclaimWithinCohort: Any}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default, resources: [{name: cpu, nominalQuota: "%[2]s"}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: %[1]s, namespace: default}
spec: {clusterQueue: %[1]s}
`, q.name, q.quota)
	}
	work := `nodes: [{name: n, allocatable: {cpu: "16", memory: 64Gi}}]
workloads:
  - {name: c, replicas: 8, arrival: {at: [0s, 0s, 0s, 0s, 0s, 0s, 0s, 0s]}, duration: {fixed: 1h},
     pod: {labels: {kueue.x-k8s.io/queue-name: team-c}, requests: {cpu: "1"}}}
  - {name: a, replicas: 6, arrival: {at: [10m, 10m, 10m, 10m, 10m, 10m]}, duration: {fixed: 1h},
     pod: {labels: {kueue.x-k8s.io/queue-name: team-a}, requests: {cpu: "1"}}}
`
	sc, err := scenario.ParseFiles([]scenario.File{{Name: "kueue.yaml", Data: []byte(objs)}, {Name: "work.yaml", Data: []byte(work)}})
	if err != nil {
		fmt.Println(err)
		return
	}
	var variants []whatif.Variant
	for _, spec := range []string{"fairsharing:off", "fairsharing:on"} {
		v, err := whatif.ParseVariant(spec)
		if err != nil {
			fmt.Println(err)
			return
		}
		variants = append(variants, v)
	}
	c, err := whatif.Compare(sc, variants, whatif.Options{Workers: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range c.Variants {
		a := v.Summary.Kueue.ClusterQueues[0]
		fmt.Printf("%s: team-a time to admission mean %v, max %v; ", v.Variant, durs(a.TimeToAdmission.Mean), durs(a.TimeToAdmission.Max))
		for _, p := range v.Summary.Kueue.Preemptions {
			fmt.Printf("%d of %s preempted for %s\n", p.Count, p.Victim, p.Preemptor)
		}
	}
	// Output:
	// fairsharing:off: team-a time to admission mean 16m40s, max 50m1s; 4 of team-c preempted for team-a
	// fairsharing:on: team-a time to admission mean 0s, max 0s; 6 of team-c preempted for team-a
}

func durs(s float64) time.Duration { return time.Duration(s * float64(time.Second)).Round(time.Second) }
