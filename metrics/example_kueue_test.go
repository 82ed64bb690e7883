package metrics_test

import (
	"fmt"
	"time"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/kueue"
	"github.com/gangsim/gangsim/metrics"
)

// A ClusterQueue of 4 cores and two workloads of 3: the second waits for
// the first to finish, 20 minutes, holding no quota meanwhile.
func ExampleReport_AddKueue() {
	objs := &kueue.Objects{
		ResourceFlavors: []kueue.ResourceFlavor{{Name: "default"}},
		ClusterQueues: []kueue.ClusterQueue{{Name: "team", ResourceGroups: []kueue.ResourceGroup{{
			CoveredResources: []cluster.ResourceName{cluster.ResourceCPU},
			Flavors:          []kueue.FlavorQuotas{{Name: "default", Resources: []kueue.ResourceQuota{{Name: cluster.ResourceCPU, NominalQuota: 4000}}}},
		}}}},
		LocalQueues: []kueue.LocalQueue{{Namespace: "default", Name: "team", ClusterQueue: "team"}},
	}
	admit := func(at time.Duration, w string) kueue.Event {
		return kueue.Event{At: at, Kind: kueue.QuotaReserved, Workload: w, ClusterQueue: "team", Admission: &kueue.Admission{ClusterQueue: "team",
			PodSets: []kueue.PodSetAssignment{{Name: "main", Count: 3, Flavors: map[cluster.ResourceName]string{cluster.ResourceCPU: "default"},
				Usage: cluster.ResourceList{cluster.ResourceCPU: 3000}}}}}
	}
	m := time.Minute
	events := []kueue.Event{
		{Kind: kueue.Created, Workload: "default/a"}, {Kind: kueue.Created, Workload: "default/b"},
		admit(0, "default/a"),
		{Kind: kueue.Pending, Workload: "default/b", Reason: "Pending", Message: "couldn't assign flavors to pod set main: insufficient unused quota"},
		{At: 20 * m, Kind: kueue.Finished, Workload: "default/a"},
		admit(20*m, "default/b"),
		{At: 40 * m, Kind: kueue.Finished, Workload: "default/b"},
	}
	rep := &metrics.Report{End: 40 * m}
	rep.AddKueue(objs, events, []metrics.KueueWorkload{
		{Workload: "default/a", LocalQueue: "team", WaitForNodes: 0},
		{Workload: "default/b", LocalQueue: "team", WaitForNodes: -1},
	})
	q := rep.Kueue.ClusterQueues[0]
	fmt.Printf("%s: %d workloads, mean pending %.2f, time to admission mean %v, max %v\n",
		q.Name, q.Workloads, q.Pending, q.TimeToAdmission.Mean, q.TimeToAdmission.Max)
	u := q.Quota[0]
	fmt.Printf("%s %s: %.0f of %.0f %s used on average (%.0f%%), peak %.0f\n", u.Flavor, u.Resource, u.Used, u.Nominal, u.Unit, 100*u.Utilization, u.UsedPeak)
	s := rep.KueueSeries("clusterqueue=team", metrics.SeriesKueuePendingInadmissible)[0]
	fmt.Println(s.Name, s.Points)
	// Output:
	// team: 2 workloads, mean pending 0.50, time to admission mean 10m0s, max 20m0s
	// default cpu: 3 of 4 cores used on average (75%), peak 3
	// clusterqueue=team pending inadmissible [{0s 1} {20m0s 0}]
}

// Who preempted whom: team-b's workload b1 preempts two of team-a's
// (reclaiming its quota), then one of its own for b2. Each ClusterQueue
// counts its workloads preempted and those preempted for it, and the
// pairs say between which queues.
func ExampleKueueSummary_PreemptionsBetween() {
	objs := &kueue.Objects{
		ClusterQueues: []kueue.ClusterQueue{{Name: "team-a", CohortName: "pool"}, {Name: "team-b", CohortName: "pool"}},
		LocalQueues:   []kueue.LocalQueue{{Namespace: "a", Name: "q", ClusterQueue: "team-a"}, {Namespace: "b", Name: "q", ClusterQueue: "team-b"}},
	}
	preempt := func(victim, cq, reason, by string) kueue.Event {
		return kueue.Event{At: time.Minute, Kind: kueue.Evicted, Workload: victim, ClusterQueue: cq, Reason: "Preempted", Preemption: reason, By: by}
	}
	var events []kueue.Event
	var wls []metrics.KueueWorkload
	for _, w := range []string{"a/a1", "a/a2", "b/b0", "b/b1", "b/b2"} {
		events = append(events, kueue.Event{Kind: kueue.Created, Workload: w})
		wls = append(wls, metrics.KueueWorkload{Workload: w, LocalQueue: "q", WaitForNodes: -1})
	}
	events = append(events, preempt("a/a1", "team-a", "InCohortReclamation", "b/b1"), preempt("a/a2", "team-a", "InCohortReclamation", "b/b1"),
		preempt("b/b0", "team-b", "InClusterQueue", "b/b2"))
	rep := &metrics.Report{End: time.Hour}
	rep.AddKueue(objs, events, wls)
	for _, q := range rep.Kueue.ClusterQueues {
		fmt.Printf("%s: %d preempted, %d preempted for it\n", q.Name, q.Preempted, q.Preempting)
	}
	for _, p := range rep.Kueue.Preemptions {
		fmt.Printf("%s -> %s: %d\n", p.Preemptor, p.Victim, p.Count)
	}
	fmt.Println(rep.Kueue.PreemptionsBetween("team-a", "team-b"))
	// Output:
	// team-a: 2 preempted, 0 preempted for it
	// team-b: 1 preempted, 3 preempted for it
	// team-b -> team-a: 2
	// team-b -> team-b: 1
	// 0
}
