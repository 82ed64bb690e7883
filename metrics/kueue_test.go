package metrics_test

import (
	"bytes"
	"cmp"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/kueue"
	"github.com/gangsim/gangsim/metrics"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

// kueueObjects are two ClusterQueues in one cohort, each with one
// LocalQueue: team-a has 4 cores of flavor on-demand, team-b 2.
func kueueObjects() *kueue.Objects {
	cq := func(name string, cores int64) kueue.ClusterQueue {
		return kueue.ClusterQueue{Name: name, CohortName: "pool", ResourceGroups: []kueue.ResourceGroup{{
			CoveredResources: []cluster.ResourceName{cluster.ResourceCPU},
			Flavors:          []kueue.FlavorQuotas{{Name: "on-demand", Resources: []kueue.ResourceQuota{{Name: cluster.ResourceCPU, NominalQuota: cores * 1000}}}},
		}}}
	}
	return &kueue.Objects{
		ResourceFlavors: []kueue.ResourceFlavor{{Name: "on-demand"}},
		ClusterQueues:   []kueue.ClusterQueue{cq("team-a", 4), cq("team-b", 2)},
		LocalQueues:     []kueue.LocalQueue{{Namespace: "default", Name: "a", ClusterQueue: "team-a"}, {Namespace: "research", Name: "b", ClusterQueue: "team-b"}},
	}
}

// reserved is a QuotaReserved event of one pod set using cores of
// on-demand.
func reserved(at time.Duration, wl, cq string, cores int64) kueue.Event {
	return kueue.Event{At: at, Kind: kueue.QuotaReserved, Workload: wl, ClusterQueue: cq, Admission: &kueue.Admission{ClusterQueue: cq,
		PodSets: []kueue.PodSetAssignment{{Name: "main", Count: int32(cores), Flavors: map[cluster.ResourceName]string{cluster.ResourceCPU: "on-demand"},
			Usage: cluster.ResourceList{cluster.ResourceCPU: cores * 1000}}}}}
}

func ev(at time.Duration, kind kueue.EventKind, wl string) kueue.Event {
	return kueue.Event{At: at, Kind: kind, Workload: wl}
}

// handMadeKueue is a run of an hour told by hand:
//
//	0    w1 made, admitted in team-a (3 cores); w2 made, does not fit
//	5m   w4 made in LocalQueue default/missing: in no queue
//	10m  w2 admitted in team-a (2 cores): 5 of 4 used, 1 borrowed
//	15m  w3 made in research/b, does not fit
//	20m  w2 evicted (InCohortReclamation by w3), released, requeued;
//	     w3 admitted in team-b (2 cores)
//	30m  w1 finishes; w2 admitted again (2 cores)
//	50m  w2 finishes
//	60m  the end: w3 holds 2 cores of team-b, w4 waits
//
// team-a: pending (inadmissible) 1 over [0,10m) and [20m,30m): mean
// 20/60; holding 1,2,1,1,0 over 10m,10m,10m,20m,10m: mean 60/60 = 1,
// peak 2; used 3,5,3,2,0 cores: (30+50+30+40)/60 = 2.5 cores, peak 5;
// borrowed 1 core over 10m: 1/6, peak 1; used over nominal 2.5/4.
// Time to admission: w1 0, w2 10m (its first). team-b: pending 5m/60m,
// holding 40m/60m, used 2 cores over 40m: 4/3 cores; w3 waited 5m.
// Overall time to admission 0, 10m, 5m; wait for quota adds w4's 55m.
// Waits for nodes: w1 1m, w2 never all bound, w3 30s.
func handMadeKueue() (*kueue.Objects, []kueue.Event, []metrics.KueueWorkload) {
	m := time.Minute
	events := []kueue.Event{
		ev(0, kueue.Created, "default/w1"), ev(0, kueue.Created, "default/w2"),
		reserved(0, "default/w1", "team-a", 3),
		{At: 0, Kind: kueue.Pending, Workload: "default/w2", Reason: "Pending", Message: "couldn't assign flavors"},
		ev(5*m, kueue.Created, "default/w4"),
		{At: 5 * m, Kind: kueue.Pending, Workload: "default/w4", Reason: "Inadmissible", Message: "LocalQueue missing doesn't exist"},
		reserved(10*m, "default/w2", "team-a", 2),
		ev(15*m, kueue.Created, "research/w3"),
		{At: 15 * m, Kind: kueue.Pending, Workload: "research/w3", Reason: "Pending", Message: "couldn't assign flavors"},
		{At: 20 * m, Kind: kueue.Evicted, Workload: "default/w2", ClusterQueue: "team-a", Reason: "Preempted", Preemption: "InCohortReclamation", By: "research/w3"},
		{At: 20 * m, Kind: kueue.QuotaReleased, Workload: "default/w2", ClusterQueue: "team-a"},
		{At: 20 * m, Kind: kueue.Requeued, Workload: "default/w2", Reason: "Preempted"},
		reserved(20*m, "research/w3", "team-b", 2),
		ev(30*m, kueue.Finished, "default/w1"),
		reserved(30*m, "default/w2", "team-a", 2),
		ev(50*m, kueue.Finished, "default/w2"),
	}
	workloads := []metrics.KueueWorkload{
		{Workload: "default/w1", LocalQueue: "a", WaitForNodes: m},
		{Workload: "default/w2", LocalQueue: "a", WaitForNodes: -1},
		{Workload: "default/w4", LocalQueue: "missing", WaitForNodes: -1},
		{Workload: "research/w3", LocalQueue: "b", WaitForNodes: 30 * time.Second},
	}
	return kueueObjects(), events, workloads
}

func handMadeKueueReport() *metrics.Report {
	rep := &metrics.Report{Name: "kueue", Start: 0, End: time.Hour}
	rep.AddKueue(handMadeKueue())
	return rep
}

func TestAddKueue(t *testing.T) {
	m := time.Minute
	k := handMadeKueueReport().Kueue
	require.NotNil(t, k)
	assert.Equal(t, 4, k.Workloads)
	assert.Equal(t, 3, k.Admitted)
	assert.Equal(t, 1, k.PendingAtEnd, "w4")
	assert.Equal(t, 1, k.NoQueue, "w4")
	assert.Equal(t, 1, k.Evictions)
	assert.Equal(t, metrics.Durations{Count: 3, Mean: 5 * m, P50: 5 * m, P90: 10 * m, P99: 10 * m, Max: 10 * m}, k.TimeToAdmission)
	assert.Equal(t, 4, k.WaitForQuota.Count)
	assert.Equal(t, 55*m, k.WaitForQuota.Max, "w4, from 5m to the end")
	assert.Equal(t, metrics.Durations{Count: 2, Mean: 45 * time.Second, P50: 30 * time.Second, P90: m, P99: m, Max: m}, k.WaitForNodes)

	require.Len(t, k.ClusterQueues, 2)
	a := k.ClusterQueues[0]
	assert.Equal(t, "team-a", a.Name)
	assert.Equal(t, "pool", a.Cohort)
	assert.Equal(t, 2, a.Workloads)
	assert.Equal(t, 2, a.Admitted)
	assert.InDelta(t, 20.0/60, a.Pending, 1e-9)
	assert.Equal(t, 1, a.PendingPeak)
	assert.InDelta(t, 1, a.Holding, 1e-9)
	assert.Equal(t, 2, a.HoldingPeak)
	assert.Equal(t, 0, a.PendingAtEnd)
	assert.Equal(t, 0, a.HoldingAtEnd)
	assert.Equal(t, metrics.Durations{Count: 2, Mean: 5 * m, P50: 0, P90: 10 * m, P99: 10 * m, Max: 10 * m}, a.TimeToAdmission)
	assert.Equal(t, a.TimeToAdmission, a.WaitForQuota, "both admitted")
	assert.Equal(t, metrics.Durations{Count: 1, Mean: m, P50: m, P90: m, P99: m, Max: m}, a.WaitForNodes)
	assert.Equal(t, []metrics.ReasonCount{{Reason: "InCohortReclamation", Count: 1}}, a.Evictions)
	require.Len(t, a.Quota, 1)
	q := a.Quota[0]
	assert.Equal(t, "on-demand", q.Flavor)
	assert.Equal(t, "cores", q.Unit)
	assert.InDelta(t, 4, q.Nominal, 1e-9)
	assert.InDelta(t, 2.5, q.Used, 1e-9)
	assert.InDelta(t, 5, q.UsedPeak, 1e-9)
	assert.InDelta(t, 1.0/6, q.Borrowed, 1e-9)
	assert.InDelta(t, 1, q.BorrowedPeak, 1e-9)
	assert.InDelta(t, 2.5/4, q.Utilization, 1e-9)

	b := k.ClusterQueues[1]
	assert.InDelta(t, 5.0/60, b.Pending, 1e-9)
	assert.InDelta(t, 40.0/60, b.Holding, 1e-9)
	assert.Equal(t, 1, b.HoldingAtEnd)
	assert.InDelta(t, 4.0/3, b.Quota[0].Used, 1e-9)
	assert.Zero(t, b.Quota[0].Borrowed)
	assert.Empty(t, b.Evictions, "the eviction is the victim's queue's")

	require.Len(t, k.LocalQueues, 2)
	la := k.LocalQueues[0]
	assert.Equal(t, "default/a", la.Name)
	assert.Equal(t, "team-a", la.ClusterQueue)
	assert.Equal(t, a.TimeToAdmission, la.TimeToAdmission)
	assert.Equal(t, a.Evictions, la.Evictions)
	require.Len(t, la.Quota, 1)
	assert.InDelta(t, 2.5, la.Quota[0].Used, 1e-9)
	assert.Zero(t, la.Quota[0].Nominal, "a LocalQueue has no quota of its own")
}

// TestKueuePendingSeries pins when a workload counts as pending active,
// pending inadmissible or admitted (holding quota), from small streams.
func TestKueuePendingSeries(t *testing.T) {
	m := time.Minute
	type pts = []metrics.Point
	for _, tc := range []struct {
		name                           string
		events                         []kueue.Event
		active, inadmissible, admitted pts
	}{{
		// made and admitted within one instant: never seen pending
		name:         "admitted at once",
		events:       []kueue.Event{ev(0, kueue.Created, "default/w"), reserved(0, "default/w", "team-a", 1)},
		active:       pts{{0, 0}},
		inadmissible: pts{{0, 0}},
		admitted:     pts{{0, 1}},
	}, {
		// a failed attempt (Kueue says why) makes it inadmissible
		name: "inadmissible after a failed attempt",
		events: []kueue.Event{ev(0, kueue.Created, "default/w"), {At: m, Kind: kueue.Pending, Workload: "default/w", Reason: "Pending"},
			reserved(2*m, "default/w", "team-a", 1)},
		active:       pts{{0, 1}, {m, 0}},
		inadmissible: pts{{0, 0}, {m, 1}, {2 * m, 0}},
		admitted:     pts{{0, 0}, {2 * m, 1}},
	}, {
		// evicted at 5m without ever having been refused: active again
		// until Kueue says why
		name: "requeued, never refused",
		events: []kueue.Event{ev(0, kueue.Created, "default/w"), reserved(0, "default/w", "team-a", 1),
			{At: 5 * m, Kind: kueue.Evicted, Workload: "default/w", ClusterQueue: "team-a", Reason: "Preempted", Preemption: "InClusterQueue"},
			{At: 5 * m, Kind: kueue.QuotaReleased, Workload: "default/w", ClusterQueue: "team-a"}, ev(5*m, kueue.Requeued, "default/w"),
			{At: 6 * m, Kind: kueue.Pending, Workload: "default/w", Reason: "Pending"}},
		active:       pts{{0, 0}, {5 * m, 1}, {6 * m, 0}},
		inadmissible: pts{{0, 0}, {6 * m, 1}},
		admitted:     pts{{0, 1}, {5 * m, 0}},
	}, {
		// refused before, so inadmissible straight after its requeue
		// (Kueue tells a reason only when it changes)
		name: "requeued, refused before",
		events: []kueue.Event{ev(0, kueue.Created, "default/w"), {At: 0, Kind: kueue.Pending, Workload: "default/w", Reason: "Pending"},
			reserved(m, "default/w", "team-a", 1),
			{At: 5 * m, Kind: kueue.Evicted, Workload: "default/w", ClusterQueue: "team-a", Reason: "Preempted"},
			{At: 5 * m, Kind: kueue.QuotaReleased, Workload: "default/w", ClusterQueue: "team-a"}, ev(5*m, kueue.Requeued, "default/w")},
		active:       pts{{0, 0}},
		inadmissible: pts{{0, 1}, {m, 0}, {5 * m, 1}},
		admitted:     pts{{0, 0}, {m, 1}, {5 * m, 0}},
	}, {
		// evicted holds its quota until released
		name: "evicted holds quota until released",
		events: []kueue.Event{ev(0, kueue.Created, "default/w"), reserved(0, "default/w", "team-a", 1),
			{At: 5 * m, Kind: kueue.Evicted, Workload: "default/w", ClusterQueue: "team-a", Reason: "Preempted"},
			{At: 7 * m, Kind: kueue.QuotaReleased, Workload: "default/w", ClusterQueue: "team-a"}, ev(7*m, kueue.Requeued, "default/w")},
		active:       pts{{0, 0}, {7 * m, 1}},
		inadmissible: pts{{0, 0}},
		admitted:     pts{{0, 1}, {7 * m, 0}},
	}, {
		name:         "deleted while pending",
		events:       []kueue.Event{ev(0, kueue.Created, "default/w"), ev(3*m, kueue.Finished, "default/w")},
		active:       pts{{0, 1}, {3 * m, 0}},
		inadmissible: pts{{0, 0}},
		admitted:     pts{{0, 0}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			rep := &metrics.Report{End: 10 * m}
			rep.AddKueue(kueueObjects(), tc.events, []metrics.KueueWorkload{{Workload: "default/w", LocalQueue: "a", WaitForNodes: -1}})
			for _, domain := range []string{"clusterqueue=team-a", "localqueue=default/a"} {
				for metric, want := range map[string]pts{metrics.SeriesKueuePendingActive: tc.active,
					metrics.SeriesKueuePendingInadmissible: tc.inadmissible, metrics.SeriesKueueHolding: tc.admitted} {
					s := rep.KueueSeries(domain, metric)
					require.Len(t, s, 1, "%s %s", domain, metric)
					assert.Equal(t, want, s[0].Points, "%s %s", domain, metric)
				}
			}
		})
	}
}

func TestKueueBorrowedSeries(t *testing.T) {
	m := time.Minute
	rep := handMadeKueueReport()
	used := rep.KueueSeries("clusterqueue=team-a", metrics.SeriesKueueUsed)
	borrowed := rep.KueueSeries("clusterqueue=team-a", metrics.SeriesKueueBorrowed)
	nominal := rep.KueueSeries("clusterqueue=team-a", metrics.SeriesKueueNominal)
	require.Len(t, used, 1)
	assert.Equal(t, "clusterqueue=team-a flavor=on-demand quota used cpu", used[0].Name)
	assert.Equal(t, []metrics.Point{{0, 3}, {10 * m, 5}, {20 * m, 3}, {30 * m, 2}, {50 * m, 0}}, used[0].Points)
	assert.Equal(t, []metrics.Point{{0, 0}, {10 * m, 1}, {20 * m, 0}}, borrowed[0].Points)
	assert.Equal(t, []metrics.Point{{0, 4}}, nominal[0].Points)
	assert.Empty(t, rep.KueueSeries("localqueue=default/a", metrics.SeriesKueueBorrowed), "a LocalQueue borrows nothing")
}

func TestAddKueueWithoutKueue(t *testing.T) {
	rep := &metrics.Report{End: time.Hour}
	rep.AddKueue(nil, nil, nil)
	rep.AddKueue(&kueue.Objects{}, nil, nil)
	assert.Nil(t, rep.Kueue)
	assert.Empty(t, rep.Series)
	var b bytes.Buffer
	require.NoError(t, rep.WriteTable(&b))
	assert.NotContains(t, b.String(), "KUEUE")
}

// TestKueueBusiest keeps the busiest queues, ties in the objects' order.
func TestKueueBusiest(t *testing.T) {
	qs := []metrics.KueueQueueSummary{{Name: "a", Pending: 1}, {Name: "b", Holding: 3}, {Name: "c", Pending: 1}, {Name: "d", Workloads: 2, Pending: 1}}
	var names []string
	for _, q := range metrics.Busiest(qs, 3) {
		names = append(names, q.Name)
	}
	assert.Equal(t, []string{"b", "d", "a"}, names)
}

// TestKueueGolden pins the table's Kueue part, the CSV of the series
// and the JSON's kueue section of the hand-made run (-update rewrites).
func TestKueueGolden(t *testing.T) {
	rep := handMadeKueueReport()
	var table, csv bytes.Buffer
	require.NoError(t, rep.WriteTable(&table))
	require.NoError(t, rep.WriteCSV(&csv))
	js, err := rep.JSON(false)
	require.NoError(t, err)
	for name, got := range map[string][]byte{"kueue-table.txt": table.Bytes(), "kueue-timeseries.csv": csv.Bytes(), "kueue-report.json": js} {
		path := filepath.Join("testdata", name)
		if *update {
			require.NoError(t, os.WriteFile(path, got, 0o644))
			continue
		}
		want, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), name)
	}
}

// manyQueues is n ClusterQueues cq-00... with a LocalQueue each
// (ns-00/lq...), one workload each: queue i's is made at n-1-i minutes,
// waits i seconds and holds 1 core to the hour's end, so the later
// queues are the busier.
func manyQueues(n int) (*kueue.Objects, []kueue.Event, []metrics.KueueWorkload) {
	objs := &kueue.Objects{ResourceFlavors: []kueue.ResourceFlavor{{Name: "f"}}}
	var events []kueue.Event
	var wls []metrics.KueueWorkload
	for i := range n {
		cq, ns := fmt.Sprintf("cq-%02d", i), fmt.Sprintf("ns-%02d", i)
		objs.ClusterQueues = append(objs.ClusterQueues, kueue.ClusterQueue{Name: cq, ResourceGroups: []kueue.ResourceGroup{{
			CoveredResources: []cluster.ResourceName{cluster.ResourceCPU},
			Flavors:          []kueue.FlavorQuotas{{Name: "f", Resources: []kueue.ResourceQuota{{Name: cluster.ResourceCPU, NominalQuota: 1000}}}}}}})
		objs.LocalQueues = append(objs.LocalQueues, kueue.LocalQueue{Namespace: ns, Name: "lq", ClusterQueue: cq})
		wl := ns + "/w"
		events = append(events, ev(time.Duration(n-1-i)*time.Minute, kueue.Created, wl))
		wls = append(wls, metrics.KueueWorkload{Workload: wl, LocalQueue: "lq", WaitForNodes: -1})
	}
	for i := range n {
		cq, wl := fmt.Sprintf("cq-%02d", i), fmt.Sprintf("ns-%02d/w", i)
		e := reserved(time.Duration(n-1-i)*time.Minute+time.Duration(i)*time.Second, wl, cq, 1)
		e.Admission.PodSets[0].Flavors[cluster.ResourceCPU] = "f"
		events = append(events, e)
	}
	slices.SortStableFunc(events, func(a, b kueue.Event) int { return cmp.Compare(a.At, b.At) })
	return objs, events, wls
}

// TestKueueManyQueues: above 30 queues the table shows the 30 busiest
// and says so; the JSON has them all.
func TestKueueManyQueues(t *testing.T) {
	rep := &metrics.Report{Name: "many", End: time.Hour}
	rep.AddKueue(manyQueues(35))
	require.Len(t, rep.Kueue.ClusterQueues, 35)
	// queue i has a workload, pending or admitted, from n-1-i minutes
	// on: cq-34 the longest, cq-00 the shortest
	shown := metrics.ShownQueues(rep.Kueue.ClusterQueues)
	require.Len(t, shown, 30)
	assert.Equal(t, "cq-34", shown[0].Name)
	assert.Equal(t, "cq-05", shown[29].Name)
	assert.Equal(t, "cq-00", rep.Kueue.ClusterQueues[0].Name, "the report's queues are not reordered")
	assert.Equal(t, 2*time.Second, rep.Kueue.ClusterQueues[2].TimeToAdmission.Max)
	var b bytes.Buffer
	require.NoError(t, rep.WriteTable(&b))
	assert.Contains(t, b.String(), "(the 30 busiest of 35 ClusterQueues; all in the JSON report)")
	assert.Contains(t, b.String(), "(the 30 busiest of 35 LocalQueues; all in the JSON report)")
	js, err := rep.JSON(false)
	require.NoError(t, err)
	assert.Contains(t, string(js), `"name": "cq-34"`)
}

// BenchmarkAddKueue reads the events of 1000 queues of one workload each.
func BenchmarkAddKueue(b *testing.B) {
	objs, events, wls := manyQueues(1000)
	for b.Loop() {
		rep := &metrics.Report{End: 2 * time.Hour}
		rep.AddKueue(objs, events, wls)
	}
}
