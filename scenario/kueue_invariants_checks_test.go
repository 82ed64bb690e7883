package scenario

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/kueue"
)

// The Kueue checkers of the random scenarios reject the histories they
// are there to catch: each is fed a fabricated history that breaks its
// invariant, and one that keeps it.

func amount(v int64) *int64 { return &v }

// checkedQueues is a Cohort co (of 1 cpu of its own when coQuota) of
// ClusterQueues a (2 cpu of flavor f, lending limit aLend when given) and
// b (2 cpu, borrowing limit 1), and a queue alone, solo (1 cpu).
func checkedQueues(coQuota bool, aLend *int64) *kueue.Objects {
	group := func(cpu int64, borrow, lend *int64) []kueue.ResourceGroup {
		return []kueue.ResourceGroup{{CoveredResources: []cluster.ResourceName{"cpu"}, Flavors: []kueue.FlavorQuotas{{Name: "f",
			Resources: []kueue.ResourceQuota{{Name: "cpu", NominalQuota: cpu, BorrowingLimit: borrow, LendingLimit: lend}}}}}}
	}
	co := kueue.Cohort{Name: "co"}
	if coQuota {
		co.ResourceGroups = group(1000, nil, nil)
	}
	return &kueue.Objects{
		ResourceFlavors: []kueue.ResourceFlavor{{Name: "f"}},
		Cohorts:         []kueue.Cohort{co},
		ClusterQueues: []kueue.ClusterQueue{
			{Name: "a", CohortName: "co", ResourceGroups: group(2000, nil, aLend)},
			{Name: "b", CohortName: "co", ResourceGroups: group(2000, amount(1000), nil)},
			{Name: "solo", ResourceGroups: group(1000, nil, nil)},
		},
	}
}

// reserve is an admission of pods of 1 cpu by a queue, counted from
// reserved, landing at at.
func reserve(at, reserved time.Duration, w, cq string, pods int32) kueue.Event {
	return kueue.Event{At: at, Reserved: reserved, Kind: kueue.QuotaReserved, Workload: w, ClusterQueue: cq,
		Admission: &kueue.Admission{ClusterQueue: cq, PodSets: []kueue.PodSetAssignment{{Name: "main", Count: pods,
			Flavors: map[cluster.ResourceName]string{"cpu": "f"}, Usage: cluster.ResourceList{"cpu": 1000 * int64(pods)}}}}}
}

func finish(at time.Duration, w string) kueue.Event {
	return kueue.Event{At: at, Kind: kueue.Finished, Workload: w}
}

func evict(at time.Duration, w, by string) kueue.Event {
	return kueue.Event{At: at, Kind: kueue.Evicted, Workload: w, By: by, Reason: "Preempted"}
}

func release(at time.Duration, w string) kueue.Event {
	return kueue.Event{At: at, Kind: kueue.QuotaReleased, Workload: w}
}

func TestKueueQuotaCheckerCatchesOverflows(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		name   string
		objs   *kueue.Objects
		events []kueue.Event
		err    string // "" when the history keeps the quota
	}{
		{"the cohort's total", checkedQueues(false, nil),
			[]kueue.Event{reserve(0, 0, "d/x", "a", 3), reserve(s, s, "d/y", "b", 2)},
			"1s: Cohort co uses 5000 of cpu in flavor f, more than its subtree quota (4000)"},
		{"within the total, one after the other", checkedQueues(false, nil),
			[]kueue.Event{reserve(0, 0, "d/x", "a", 3), finish(s, "d/x"), reserve(s, s, "d/y", "b", 2)}, ""},
		{"a cohort's own quota counts", checkedQueues(true, nil),
			[]kueue.Event{reserve(0, 0, "d/x", "a", 3), reserve(s, s, "d/y", "b", 2)}, ""},
		{"a borrowing limit", checkedQueues(true, nil),
			[]kueue.Event{reserve(0, 0, "d/y", "b", 4)},
			"0s: ClusterQueue b uses 4000 of cpu in flavor f, more than its subtree quota 2000 plus its borrowing limit 1000 (3000)"},
		{"a lending limit", checkedQueues(false, amount(500)),
			[]kueue.Event{reserve(0, 0, "d/y", "b", 3)},
			"0s: Cohort co uses 3000 of cpu in flavor f, more than its subtree quota (2500)"},
		{"a lending limit, lent", checkedQueues(false, amount(1000)),
			[]kueue.Event{reserve(0, 0, "d/y", "b", 3)}, ""},
		{"a queue alone", checkedQueues(false, nil),
			[]kueue.Event{reserve(0, 0, "d/x", "solo", 1), reserve(2*s, 2*s, "d/y", "solo", 1)},
			"2s: ClusterQueue solo uses 2000 of cpu in flavor f, more than its subtree quota (1000)"},
		{"an evicted workload holds its quota until released", checkedQueues(false, nil),
			[]kueue.Event{reserve(0, 0, "d/x", "a", 4), evict(s, "d/x", "d/y"), reserve(s, s, "d/y", "b", 1), release(2*s, "d/x")},
			"1s: Cohort co uses 5000"},
		{"released first", checkedQueues(false, nil),
			[]kueue.Event{reserve(0, 0, "d/x", "a", 4), evict(s, "d/x", "d/y"), release(2*s, "d/x"), reserve(2*s, 2*s, "d/y", "b", 1)}, ""},
		{"counted from the cycle that reserved it, before its write landed", checkedQueues(false, nil),
			[]kueue.Event{reserve(0, 0, "d/x", "a", 4), finish(2*s, "d/x"), reserve(3*s, s, "d/y", "b", 1)},
			"1s: Cohort co uses 5000"},
		{"a flavor the queue has no quota of", checkedQueues(false, nil),
			[]kueue.Event{func() kueue.Event {
				e := reserve(0, 0, "d/x", "a", 1)
				e.Admission.PodSets[0].Flavors["cpu"] = "g"
				return e
			}()},
			"0s: d/x admitted with cpu of flavor g, which ClusterQueue a has no quota of"},
		{"admitted twice", checkedQueues(false, nil),
			[]kueue.Event{reserve(0, 0, "d/x", "a", 1), reserve(s, s, "d/x", "a", 1)},
			"1s: d/x admitted by a while it holds quota of a since 0s"},
		{"released while admitted", checkedQueues(false, nil),
			[]kueue.Event{reserve(0, 0, "d/x", "a", 1), release(s, "d/x")},
			"1s: d/x released while not evicted"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := checkKueueQuota(c.objs, c.events)
			if c.err == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, c.err)
		})
	}
}

func TestKueueCountCheckerCatchesCountsOutOfBounds(t *testing.T) {
	bounds := map[string]countBounds{"d/x": {min: 2, max: 4}, "d/y": {min: 3, max: 3}}
	require.NoError(t, checkKueueCounts([]kueue.Event{reserve(0, 0, "d/x", "a", 2), reserve(0, 0, "d/x", "a", 4), reserve(0, 0, "d/y", "a", 3)}, bounds))
	require.ErrorContains(t, checkKueueCounts([]kueue.Event{reserve(0, 0, "d/x", "a", 1)}, bounds), "d/x admitted with 1 pods, outside its minCount 2 and count 4")
	require.ErrorContains(t, checkKueueCounts([]kueue.Event{reserve(0, 0, "d/x", "a", 5)}, bounds), "d/x admitted with 5 pods, outside its minCount 2 and count 4")
	require.ErrorContains(t, checkKueueCounts([]kueue.Event{reserve(0, 0, "d/y", "a", 2)}, bounds), "d/y admitted with 2 pods, outside its minCount 3 and count 3")
	require.ErrorContains(t, checkKueueCounts([]kueue.Event{reserve(0, 0, "d/z", "a", 2)}, bounds), "unknown bounds")
}

func TestKueueFlipFlopCheckerCatchesPingPong(t *testing.T) {
	s := time.Second
	pingPong := []kueue.Event{
		reserve(0, 0, "d/other", "c", 1),
		reserve(0, 0, "d/b", "b", 2),
		evict(s, "d/b", "d/a"), release(s, "d/b"), reserve(2*s, 2*s, "d/a", "a", 2),
		evict(3*s, "d/a", "d/b"), release(3*s, "d/a"), reserve(4*s, 4*s, "d/b", "b", 2),
	}
	require.ErrorContains(t, checkKueueFlipFlop(pingPong, nil),
		"flip-flop: d/a preempted d/b at 1s, and d/b preempted it back at 3s, the other workloads holding the same quota (d/other@c)")
	// the rest of the cluster changed in between: not counted
	changed := append(append(append([]kueue.Event{}, pingPong[:5]...), finish(2*s, "d/other")), pingPong[5:]...)
	require.NoError(t, checkKueueFlipFlop(changed, nil))
	// the same direction twice is no flip-flop
	again := append(append([]kueue.Event{}, pingPong[:5]...), evict(3*s, "d/b", "d/a"))
	require.NoError(t, checkKueueFlipFlop(again, nil))
	// b may be admitted partially: its reversal is not counted
	require.NoError(t, checkKueueFlipFlop(pingPong, map[string]bool{"d/b": true}))
}
