package whatif_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/whatif"
)

// Hostile what-if inputs (issue 48).

// Adding 100,000 nodes like one names them n-0-new1 to n-0-new100000
// (TestNamerGoesOnFromItsLastName pins that each name costs one probe:
// they were each searched from new1, a quadratic walk).
func TestAddNodesLikeNamesInLinearTime(t *testing.T) {
	sc := parse(t, fivePods)
	out, err := whatif.Variant{Name: "add", Changes: []whatif.Change{whatif.AddNodesLike{Node: "n-0", Count: 100_000}}}.Apply(sc)
	require.NoError(t, err)
	require.Equal(t, "n-0-new100000", out.Nodes[len(out.Nodes)-1].Name)
}

// A search's Limit is at most MaxLimit, with an error that says so.
func TestSearchLimitHasAnUpperBound(t *testing.T) {
	_, err := whatif.FewestNodesToAdd(parse(t, fivePods), "n-0", whatif.Criteria{Limit: whatif.MaxLimit + 1}, whatif.Options{})
	require.ErrorIs(t, err, whatif.ErrChange)
	require.ErrorContains(t, err, fmt.Sprintf("limit %d is above %d", whatif.MaxLimit+1, whatif.MaxLimit))
}

// The smallest group max with a huge limit answers in the user's terms:
// the limit given, not a max the search made up on the way.
func TestSmallestGroupMaxHugeLimit(t *testing.T) {
	_, err := whatif.SmallestGroupMax(parse(t, burst), "cpu", whatif.Criteria{MaxWait: time.Second, Limit: 1_000_000_000}, whatif.Options{})
	require.ErrorIs(t, err, whatif.ErrChange)
	require.ErrorContains(t, err, "limit 1000000000 is above")
	require.NotContains(t, err.Error(), "131073")
}

// Criteria.Workload naming no workload of the run is an error: its waits
// were empty, so any MaxWait held, and the answer was wrong.
func TestWaitOfNoWorkload(t *testing.T) {
	_, err := whatif.FewestNodesToAdd(parse(t, fivePods), "n-0", whatif.Criteria{MaxWait: time.Second, Workload: "nope"}, whatif.Options{})
	require.ErrorIs(t, err, whatif.ErrChange)
	require.ErrorContains(t, err, `"nope"`)
}

// The smallest group max searches at most MaxLimit, the largest max a
// variant may set: a group whose default top (twice its max) is past it
// answers within MaxLimit, whether the criteria are met early or never.
func TestSmallestGroupMaxTopIsCapped(t *testing.T) {
	sc := parse(t, burst)
	sc.NodeGroups[0].Max = 60_000 // twice that is past MaxLimit
	a, err := whatif.SmallestGroupMax(sc, "cpu", whatif.Criteria{MaxWait: 5 * time.Minute}, whatif.Options{Workers: 2})
	require.NoError(t, err)
	require.True(t, a.Found, a.Reason)
	require.Equal(t, 8, a.Count)
	require.Equal(t, whatif.MaxLimit, a.Limit)

	// never met (a node takes 2m to come): every max up to the top tried
	a, err = whatif.SmallestGroupMax(sc, "cpu", whatif.Criteria{MaxWait: time.Second}, whatif.Options{Workers: 2})
	require.NoError(t, err)
	require.False(t, a.Found)
	require.Equal(t, whatif.MaxLimit, a.Limit)
	require.Contains(t, a.Reason, fmt.Sprintf("with max %d,", whatif.MaxLimit))
	require.NotEmpty(t, a.Runs)
	for _, r := range a.Runs {
		require.LessOrEqual(t, r.Count, whatif.MaxLimit)
	}
	require.Equal(t, whatif.MaxLimit, a.Runs[len(a.Runs)-1].Count)
}
