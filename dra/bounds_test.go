package dra

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
)

// indexed is a device of a model with an int attribute "index".
func indexed(name, model string, index int64) cluster.Device {
	return cluster.Device{Name: name, Attributes: map[cluster.QualifiedName]cluster.DeviceAttribute{
		"model": str(model), "index": {IntValue: &index},
	}}
}

// distinctEight is a claim of eight one-device requests of model a whose
// devices must have distinct indexes, on a node of 28 devices of model a
// with seven indexes (four each) and, when extra, one of model b
// with an eighth index that no request selects.
func distinctEight(extra bool) *Input {
	var devs []cluster.Device
	for i := range 28 {
		devs = append(devs, indexed(fmt.Sprintf("a%d", i), "a", int64(i/4)))
	}
	if extra {
		devs = append(devs, indexed("b0", "b", 7))
	}
	var reqs []cluster.DeviceRequest
	for i := range 8 {
		reqs = append(reqs, exact(fmt.Sprintf("r%d", i), 1, "model=a"))
	}
	c := withConstraints(claim("c", reqs...), cluster.DeviceConstraint{DistinctAttribute: drv + "/index"})
	return &Input{Claims: []*cluster.ResourceClaim{c}, Classes: gpuClass, Slices: []*cluster.ResourceSlice{nodeSlice("s", "n1", devs...)},
		Node: node("n1"), Selectors: &eqSelector{}, Features: DefaultFeatures()}
}

// Eight requests that must take distinct values of an attribute with
// seven values (among the devices they could take, and one more no
// request selects) make an exponential search: it stops at its step
// budget, with ErrTimeout, and the node is rejected, as kube's filter
// timeout rejects it. Issue 48.
func TestDistinctAttributeSearchIsBounded(t *testing.T) {
	start := time.Now()
	_, ok, err := Allocate(distinctEight(true))
	require.False(t, ok)
	require.EqualError(t, err, "timed out trying to allocate devices")
	t.Logf("default budget spent in %v", time.Since(start))
}

// Fewer distinct values of the attribute among the node's devices than
// requests the constraint covers: the node is refused before any search
// (one step would not even be allowed). Issue 48.
func TestDistinctAttributeWithTooFewValuesIsRefusedAtOnce(t *testing.T) {
	in := distinctEight(false)
	in.MaxSteps = 1
	res, ok, err := Allocate(in)
	require.NoError(t, err)
	require.False(t, ok)
	require.Nil(t, res)

	// with an eighth value the search runs, and the budget stops it
	in = distinctEight(true)
	in.MaxSteps = 1000
	_, ok, err = Allocate(in)
	require.ErrorIs(t, err, ErrTimeout)
	require.False(t, ok)

	// a request the constraint does not cover does not count
	in = distinctEight(false)
	c := in.Claims[0]
	c.Spec.Constraints[0].Requests = []string{"r0", "r1", "r2"}
	in.MaxSteps = 1000
	res, ok, err = Allocate(in)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "r0=a0 r1=a4 r2=a8 r3=a1 r4=a2 r5=a3 r6=a5 r7=a6", picked(res))
}

// The budget of a filter timeout, and the search's steps are counted so
// that a budget just big enough finds what an unbounded search finds.
func TestStepsFor(t *testing.T) {
	require.Equal(t, int64(10_000_000), StepsFor(DefaultFilterTimeout))
	require.Equal(t, int64(1), StepsFor(time.Nanosecond))
	require.Equal(t, int64(-1), StepsFor(0))
	require.Equal(t, int64(-1), StepsFor(-time.Second))
	require.Positive(t, StepsFor(time.Duration(1<<63-1)))

	in := distinctEight(false)
	in.Claims[0].Spec.Constraints = nil
	in.MaxSteps = 36 // request i looks at the i devices taken before its own: 1+2+...+8
	res, ok, err := Allocate(in)
	require.NoError(t, err)
	require.True(t, ok)
	require.Len(t, res[0].Devices, 8)
	in.MaxSteps = 35
	_, _, err = Allocate(in)
	require.ErrorIs(t, err, ErrTimeout)
}

// Mode All looks at every device it must take, and each look is a step
// of the budget, as each candidate of an exact count is: a claim needs
// exactly as many steps as the devices it looks at, and one step fewer
// stops it with ErrTimeout instead of an allocation past its budget.
func TestModeAllSpendsTheBudget(t *testing.T) {
	tests := []struct {
		name   string
		claims []*cluster.ResourceClaim
		want   string
		steps  int64
	}{
		{name: "every device", claims: []*cluster.ResourceClaim{claim("c", allOf("gpu"))},
			want: "gpu=g0 gpu=g1 gpu=g2 gpu=g3 gpu=g4 gpu=g5 gpu=g6 gpu=g7", steps: 8},
		{name: "after an exact count", claims: []*cluster.ResourceClaim{claim("c", exact("one", 1, "model=a100"), allOf("all", "model=h100"))},
			want: "one=g0 all=g2 all=g5", steps: 1 + 2},
		{name: "two claims", claims: []*cluster.ResourceClaim{claim("c1", allOf("gpu", "model=h100")), claim("c2", allOf("gpu", "model=a100"))},
			want: "gpu=g2 gpu=g5; gpu=g0 gpu=g1 gpu=g3 gpu=g4 gpu=g6 gpu=g7", steps: 2 + 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := &Input{Claims: tt.claims, Classes: gpuClass, Slices: []*cluster.ResourceSlice{eightGPUs()},
				Node: node("n1"), Selectors: &eqSelector{}, Features: DefaultFeatures(), MaxSteps: tt.steps}
			res, ok, err := Allocate(in)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, tt.want, picked(res))

			in.MaxSteps = tt.steps - 1
			res, ok, err = Allocate(in)
			require.ErrorIs(t, err, ErrTimeout)
			require.False(t, ok)
			require.Nil(t, res)
		})
	}
}

// When nothing can be allocated and a pool the node reaches is invalid,
// the answer is ErrInvalidPools however the allocator finds out that
// nothing fits: by searching every combination, or before any search,
// because a distinctAttribute constraint covers more requests than the
// node's devices have values. Without the invalid pool the same claims
// simply do not fit; with it, claims that fit still allocate.
func TestInvalidPoolsWinWhenNothingFits(t *testing.T) {
	// pool "bad" names device x0 twice: invalid, it offers no device
	bad := func() []*cluster.ResourceSlice {
		var out []*cluster.ResourceSlice
		for _, name := range []string{"bad-a", "bad-b"} {
			s := nodeSlice(name, "n1", gpu("x0", "a100", "r9"))
			s.Pool = cluster.ResourcePool{Name: "bad", Generation: 1, SliceCount: 2}
			out = append(out, s)
		}
		return out
	}
	good := nodeSlice("good", "n1", gpu("g0", "a100", "r0"), gpu("g1", "h100", "r0"), gpu("g2", "h100", "r1"))
	tests := []struct {
		name  string
		claim *cluster.ResourceClaim
		fits  bool
	}{
		{name: "distinct values fewer than requests, refused before the search",
			claim: withConstraints(claim("c", exact("a", 1, "model=a100"), exact("b", 1, "model=a100"), exact("h", 1, "model=h100")),
				cluster.DeviceConstraint{DistinctAttribute: drv + "/model"})},
		{name: "no combination matches, found by the search",
			claim: withConstraints(claim("c", exact("a", 1, "model=a100"), exact("h", 1, "model=h100"), exact("h2", 1, "model=h100")),
				cluster.DeviceConstraint{MatchAttribute: drv + "/pcieRoot"})},
		{name: "a claim that fits", claim: withConstraints(claim("c", exact("a", 1, "model=a100"), exact("h", 1, "model=h100")),
			cluster.DeviceConstraint{DistinctAttribute: drv + "/model"}), fits: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			allocate := func(slices []*cluster.ResourceSlice) (bool, error) {
				_, ok, err := Allocate(&Input{Claims: []*cluster.ResourceClaim{tt.claim}, Classes: gpuClass, Slices: slices,
					Node: node("n1"), Selectors: &eqSelector{}, Features: DefaultFeatures()})
				return ok, err
			}
			ok, err := allocate([]*cluster.ResourceSlice{good})
			require.NoError(t, err)
			require.Equal(t, tt.fits, ok)

			ok, err = allocate(append(bad(), good))
			require.Equal(t, tt.fits, ok)
			if tt.fits {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrInvalidPools)
		})
	}
}
