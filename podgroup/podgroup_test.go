package podgroup

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
)

func gang(min int32) *PodGroup { return &PodGroup{Name: "g", Policy: Gang, MinCount: min} }

func TestCheckQuorum(t *testing.T) {
	tests := []struct {
		name  string
		g     *PodGroup
		p     Progress
		want  Feasibility
		inMsg string
	}{
		{"gang met", gang(3), Progress{Remaining: 0, Scheduled: 3}, Feasible, ""},
		{"gang met with more to try", gang(3), Progress{Remaining: 2, Scheduled: 3}, Feasible, ""},
		{"gang waiting", gang(3), Progress{Remaining: 2, Scheduled: 1}, Wait, "minCount (3) is not yet satisfied: 1 scheduled, 2 remaining"},
		{"gang impossible", gang(3), Progress{Remaining: 1, Scheduled: 1}, Infeasible, "minCount (3) cannot be satisfied: 1 scheduled, 1 remaining"},
		{"basic needs one", &PodGroup{Name: "b"}, Progress{Remaining: 4, Scheduled: 0}, Wait, "minCount (1)"},
		{"basic with one", &PodGroup{Name: "b"}, Progress{Remaining: 0, Scheduled: 1}, Feasible, ""},
		{"basic with none left", &PodGroup{Name: "b"}, Progress{Remaining: 0, Scheduled: 0}, Infeasible, "cannot be satisfied"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, msg := tc.g.CheckQuorum(tc.p)
			require.Equal(t, tc.want, got)
			require.Contains(t, msg, tc.inMsg)
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		g    PodGroup
		err  string
	}{
		{"ok gang", PodGroup{Name: "g", Policy: Gang, MinCount: 2}, ""},
		{"ok basic", PodGroup{Name: "g"}, ""},
		{"no name", PodGroup{}, "name: must not be empty"},
		{"gang without minCount", PodGroup{Name: "g", Policy: Gang}, "default/g: minCount: 0 must be at least 1"},
		{"basic with minCount", PodGroup{Name: "g", MinCount: 2}, "minCount: is set on a basic group"},
		{"bad policy", PodGroup{Name: "g", PreemptionPolicy: "Sometimes"}, `preemptionPolicy: "Sometimes"`},
		{"bad disruption", PodGroup{Name: "g", DisruptionMode: "Some"}, `disruptionMode: "Some"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.g.Validate()
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrInvalid)
			require.Contains(t, err.Error(), tc.err)
		})
	}
}

func TestMembershipCounts(t *testing.T) {
	var m Membership
	m.Set("default/a", Unscheduled)
	m.Set("default/b", Unscheduled)
	m.Set("default/c", Bound)
	require.Equal(t, 3, m.Known())
	require.Equal(t, 1, m.Scheduled())
	m.Set("default/a", Assumed)
	require.Equal(t, 2, m.Scheduled())
	require.Equal(t, 1, m.Count(Unscheduled))
	m.Remove("default/c")
	m.Remove("default/missing")
	require.Equal(t, 2, m.Known())
	require.Equal(t, 1, m.Scheduled())
	var keys []cluster.PodKey
	for k := range m.Members() {
		keys = append(keys, k)
	}
	require.Equal(t, []cluster.PodKey{"default/a", "default/b"}, keys)
}

func TestConditionsNeverBackFromTrue(t *testing.T) {
	var cs Conditions
	require.True(t, cs.Set(Condition{Type: ConditionInitiallyScheduled, Status: ConditionFalse, Reason: ReasonUnschedulable, LastTransitionTime: 1}))
	require.True(t, cs.Set(Condition{Type: ConditionInitiallyScheduled, Status: ConditionFalse, Reason: ReasonSchedulerError, LastTransitionTime: 2}))
	c, _ := cs.Get(ConditionInitiallyScheduled)
	require.Equal(t, ReasonSchedulerError, c.Reason)
	require.EqualValues(t, 1, c.LastTransitionTime, "same status keeps the transition time")
	require.True(t, cs.Set(Condition{Type: ConditionInitiallyScheduled, Status: ConditionTrue, Reason: ReasonScheduled, LastTransitionTime: 3}))
	require.False(t, cs.Set(Condition{Type: ConditionInitiallyScheduled, Status: ConditionFalse, Reason: ReasonUnschedulable, LastTransitionTime: 4}))
	c, _ = cs.Get(ConditionInitiallyScheduled)
	require.Equal(t, ConditionTrue, c.Status)
	require.EqualValues(t, 3, c.LastTransitionTime)
	require.Len(t, cs, 1)
}
