package cluster

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDisruptionsAllowed(t *testing.T) {
	tests := []struct {
		name              string
		b                 *budgetBuilder
		healthy, expected int
		want              int
	}{
		{"minAvailable met with one to spare", pdb("b").min(count(2)), 3, 3, 1},
		{"minAvailable exactly met", pdb("b").min(count(3)), 3, 3, 0},
		{"minAvailable not met", pdb("b").min(count(5)), 3, 3, 0},
		{"minAvailable counts healthy, not expected", pdb("b").min(count(2)), 2, 4, 0},
		{"minAvailable zero", pdb("b").min(count(0)), 3, 3, 3},
		{"minAvailable 50% of 3 rounds up to 2", pdb("b").min(percent(50)), 3, 3, 1},
		{"minAvailable 100%", pdb("b").min(percent(100)), 4, 4, 0},
		{"minAvailable 0%", pdb("b").min(percent(0)), 4, 4, 4},
		{"minAvailable 34% of 3 rounds up to 2", pdb("b").min(percent(34)), 3, 3, 1},
		{"maxUnavailable 1", pdb("b").maxUnavailable(count(1)), 3, 3, 1},
		{"maxUnavailable 1, one already down", pdb("b").maxUnavailable(count(1)), 2, 3, 0},
		{"maxUnavailable 0", pdb("b").maxUnavailable(count(0)), 3, 3, 0},
		{"maxUnavailable 50% of 3 rounds up to 2", pdb("b").maxUnavailable(percent(50)), 3, 3, 2},
		{"maxUnavailable 100%", pdb("b").maxUnavailable(percent(100)), 3, 3, 3},
		// The controller clamps the desired healthy count at 0, so a
		// budget never allows more disruptions than there are healthy pods.
		{"maxUnavailable above the pod count", pdb("b").maxUnavailable(count(5)), 2, 2, 2},
		{"maxUnavailable with no pods", pdb("b").maxUnavailable(count(3)), 0, 0, 0},
		{"minAvailable with no pods", pdb("b").min(count(0)), 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.b.obj()
			got := b.DisruptionsAllowed(tt.healthy, tt.expected)
			assert.Equal(t, tt.want, got)
			assert.LessOrEqual(t, got, tt.healthy, "never more disruptions than healthy pods")
		})
	}
}

func TestBudgetValidate(t *testing.T) {
	tests := []struct {
		name    string
		b       *budgetBuilder
		mention string // "" means valid
	}{
		{"valid min", pdb("b").match("app", "web").min(count(1)), ""},
		{"valid max percent", pdb("b").match("app", "web").maxUnavailable(percent(100)), ""},
		{"no name", pdb("").match("app", "web").min(count(1)), "name: must not be empty"},
		{"empty selector", pdb("b").ns("prod").min(count(1)), "prod/b: selector: must not be empty"},
		{"neither set", pdb("b").match("app", "web"), "exactly one"},
		{"both set", pdb("b").match("app", "web").min(count(1)).maxUnavailable(count(1)), "exactly one"},
		{"negative min", pdb("b").match("app", "web").min(count(-1)), "minAvailable: -1 is out of range"},
		{"negative max", pdb("b").match("app", "web").maxUnavailable(count(-1)), "maxUnavailable: -1 is out of range"},
		{"percent above 100", pdb("b").match("app", "web").maxUnavailable(percent(101)), "maxUnavailable: 101% is out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.b.obj()
			err := b.Validate()
			if tt.mention == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrInvalidBudget)
			assert.Contains(t, err.Error(), tt.mention)
		})
	}
}

func TestBudgetMatches(t *testing.T) {
	b := pdb("b").match("app", "web").obj()
	prod := pdb("b").ns("prod").match("app", "web").match("tier", "fe").obj()
	empty := pdb("b").obj()
	tests := []struct {
		name string
		b    *PodDisruptionBudget
		p    *podBuilder
		want bool
	}{
		{"selector matches", &b, pod("p").label("app", "web").label("x", "y"), true},
		{"explicit default namespace", &b, pod("p").ns("default").label("app", "web"), true},
		{"value differs", &b, pod("p").label("app", "db"), false},
		{"key missing", &b, pod("p").label("tier", "fe"), false},
		{"no labels", &b, pod("p"), false},
		{"other namespace", &b, pod("p").ns("prod").label("app", "web"), false},
		{"budget namespace", &prod, pod("p").ns("prod").label("app", "web").label("tier", "fe"), true},
		{"budget namespace, partial labels", &prod, pod("p").ns("prod").label("app", "web"), false},
		{"budget namespace, default pod", &prod, pod("p").label("app", "web").label("tier", "fe"), false},
		{"empty selector matches nothing", &empty, pod("p").label("app", "web"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.p.obj()
			assert.Equal(t, tt.want, tt.b.Matches(&p))
		})
	}
}

func TestIntOrPercentString(t *testing.T) {
	assert.Equal(t, "3", count(3).String())
	assert.Equal(t, "50%", percent(50).String())
}

func allowed(t *testing.T, c *Cache) map[string]int {
	t.Helper()
	checkCache(t, c)
	out := map[string]int{}
	for b := range c.Budgets() {
		out[b.Budget.Key()] = b.Allowed
	}
	return out
}

func TestCacheBudgets(t *testing.T) {
	c := NewCache()
	require.NoError(t, c.AddNode(node("n1").cpu(8).obj()))
	web := func(name string) *podBuilder { return pod(name).label("app", "web") }
	for _, name := range []string{"w1", "w2", "w3"} {
		require.NoError(t, c.AddPod(web(name).on("n1").obj()))
	}
	require.NoError(t, c.AssumePod(web("w4").info(), "n1"))
	require.NoError(t, c.AddPod(web("w5").on("n1").obj()))
	require.NoError(t, c.EvictPod("default/w5", time.Second))
	require.NoError(t, c.AddPod(web("other-ns").ns("prod").on("n1").obj()))
	require.NoError(t, c.AddPod(pod("unlabelled").on("n1").obj()))

	// Counts cover the pods already cached: healthy 3 (bound), expected 4
	// (bound + assumed); the terminating pod and non-matching pods are out.
	require.NoError(t, c.AddBudget(pdb("min2").match("app", "web").min(count(2)).obj()))
	require.NoError(t, c.AddBudget(pdb("half").match("app", "web").maxUnavailable(percent(50)).obj()))
	require.NoError(t, c.AddBudget(pdb("prod").ns("prod").match("app", "web").min(count(0)).obj()))
	assert.Equal(t, map[string]int{"default/min2": 1, "default/half": 1, "prod/prod": 1}, allowed(t, c))

	var keys []string
	for b := range c.Budgets() {
		keys = append(keys, b.Budget.Key())
	}
	assert.Equal(t, []string{"default/half", "default/min2", "prod/prod"}, keys, "key order")

	steps := []struct {
		name string
		op   func() error
		want map[string]int
	}{
		{"binding makes the assumed pod healthy", func() error { return c.FinishBinding("default/w4", time.Second) },
			map[string]int{"default/min2": 2, "default/half": 2, "prod/prod": 1}},
		// 3 healthy of 3 expected: half allows ceil(1.5) = 2.
		{"an evicted pod is not healthy", func() error { return c.EvictPod("default/w1", time.Second) },
			map[string]int{"default/min2": 1, "default/half": 2, "prod/prod": 1}},
		{"removing the terminating pod changes nothing", func() error { _, err := c.RemovePod("default/w1"); return err },
			map[string]int{"default/min2": 1, "default/half": 2, "prod/prod": 1}},
		{"a new pod counts", func() error { return c.AddPod(web("w6").on("n1").obj()) },
			map[string]int{"default/min2": 2, "default/half": 2, "prod/prod": 1}},
		{"removing a budget", func() error { return c.RemoveBudget("default/half") },
			map[string]int{"default/min2": 2, "prod/prod": 1}},
		{"removing the node takes its pods", func() error { _, err := c.RemoveNode("n1"); return err },
			map[string]int{"default/min2": 0, "prod/prod": 0}},
	}
	for _, st := range steps {
		require.NoError(t, st.op(), st.name)
		assert.Equal(t, st.want, allowed(t, c), st.name)
	}
}

func TestCacheBudgetVersion(t *testing.T) {
	c := fixture(t)
	v := c.budgetVersion
	require.NoError(t, c.AddPod(pod("x").on("n1").obj()))
	assert.Equal(t, v, c.budgetVersion, "no budget, no change")
	require.NoError(t, c.AddBudget(pdb("b").match("app", "web").min(count(1)).obj()))
	assert.Greater(t, c.budgetVersion, v)
	v = c.budgetVersion
	require.NoError(t, c.AddPod(pod("y").on("n1").label("app", "db").obj()))
	assert.Equal(t, v, c.budgetVersion, "a pod the budget does not cover")
	require.NoError(t, c.AddPod(pod("z").on("n1").label("app", "web").obj()))
	assert.Greater(t, c.budgetVersion, v, "a covered pod changes the counts")
}

// A budget's label probe is the matchLabels entry of least key, whatever
// the map's order, and none without matchLabels; the cache's statuses
// carry it.
func TestBudgetLabelProbe(t *testing.T) {
	for _, tc := range []struct {
		sel      *LabelSelector
		key, val string
	}{
		{nil, "", ""},
		{&LabelSelector{}, "", ""},
		{&LabelSelector{MatchExpressions: []LabelRequirement{{Key: "a", Operator: LabelExists}}}, "", ""},
		{&LabelSelector{MatchLabels: map[string]string{"tier": "web", "app": "a", "team": "x"}}, "app", "a"},
		{&LabelSelector{MatchLabels: map[string]string{"z": "1"}}, "z", "1"},
	} {
		for range 20 { // map order varies run to run
			key, val, ok := NewBudgetStatus(&PodDisruptionBudget{Selector: tc.sel}, 1).LabelProbe()
			require.Equal(t, [2]string{tc.key, tc.val}, [2]string{key, val})
			require.Equal(t, tc.key != "", ok)
		}
	}
	c := NewCache()
	require.NoError(t, c.AddBudget(PodDisruptionBudget{Namespace: "default", Name: "b", Selector: &LabelSelector{MatchLabels: map[string]string{"tier": "web", "app": "a"}}, MinAvailable: &IntOrPercent{Value: 1}}))
	for st := range c.Budgets() {
		key, val, ok := st.LabelProbe()
		require.True(t, ok)
		require.Equal(t, [2]string{"app", "a"}, [2]string{key, val})
	}
}
