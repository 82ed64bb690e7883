package admission

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/gangsimtest"
	"github.com/gangsim/gangsim/podgroup"
)

// classes returns a set with "high" (1000, Never) and "low" (10), and
// "standard" (100) as the global default when withDefault.
func classes(t *testing.T, withDefault bool) *cluster.PriorityClasses {
	t.Helper()
	var pcs cluster.PriorityClasses
	require.NoError(t, pcs.Add(cluster.PriorityClass{Name: "high", Value: 1000, PreemptionPolicy: cluster.PreemptNever}))
	require.NoError(t, pcs.Add(cluster.PriorityClass{Name: "low", Value: 10}))
	if withDefault {
		require.NoError(t, pcs.Add(cluster.PriorityClass{Name: "standard", Value: 100, GlobalDefault: true}))
	}
	return &pcs
}

// Each rule of PodPriority, in the order it applies, as the API server's
// Priority admission plugin resolves a pod's priority.
func TestPodPriority(t *testing.T) {
	pod := gangsimtest.MakePod
	gang := &podgroup.PodGroup{Name: "g", Priority: new(int32(50)), PreemptionPolicy: cluster.PreemptNever}
	tests := []struct {
		name      string
		pod       cluster.Pod
		group     *podgroup.PodGroup
		noDefault bool
		prio      int32
		policy    cluster.PreemptionPolicy
		err       string
	}{
		{name: "1: the class's value and policy", pod: pod("p").PriorityClass("high").Obj(), prio: 1000, policy: cluster.PreemptNever},
		{name: "1: the pod's own policy over the class's", pod: pod("p").PriorityClass("high").PreemptionPolicy(cluster.PreemptLowerPriority).Obj(),
			prio: 1000, policy: cluster.PreemptLowerPriority},
		{name: "1: an explicit priority equal to the class's", pod: pod("p").PriorityClass("low").Priority(10).Obj(), prio: 10, policy: cluster.PreemptLowerPriority},
		{name: "1: an explicit priority that differs", pod: pod("p").PriorityClass("low").Priority(11).Obj(),
			err: `gangsim: admission pod default/p: priority: 11 differs from 10, the value of priority class "low"`},
		{name: "1: an unknown class", pod: pod("p").Namespace("team").PriorityClass("nope").Obj(),
			err: `gangsim: admission pod team/p: priorityClassName: priority class "nope" is not defined`},
		{name: "1: the class over the group's", pod: pod("p").Group("g").PriorityClass("low").Obj(), group: gang, prio: 10, policy: cluster.PreemptLowerPriority},
		{name: "2: an explicit priority", pod: pod("p").Priority(7).Obj(), prio: 7, policy: cluster.PreemptLowerPriority},
		{name: "2: an explicit priority over the group's", pod: pod("p").Group("g").Priority(7).Obj(), group: gang, prio: 7, policy: cluster.PreemptLowerPriority},
		{name: "3: the group's priority and policy", pod: pod("p").Group("g").Obj(), group: gang, prio: 50, policy: cluster.PreemptNever},
		{name: "3: the pod's own policy over the group's", pod: pod("p").Group("g").PreemptionPolicy(cluster.PreemptLowerPriority).Obj(), group: gang,
			prio: 50, policy: cluster.PreemptLowerPriority},
		{name: "4: the global default", pod: pod("p").Obj(), prio: 100, policy: cluster.PreemptLowerPriority},
		{name: "4: a member whose group is not known yet", pod: pod("p").Group("g").Obj(), prio: 100, policy: cluster.PreemptLowerPriority},
		{name: "5: no default class", pod: pod("p").Obj(), noDefault: true, prio: 0, policy: cluster.PreemptLowerPriority},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prio, policy, err := PodPriority(classes(t, !tt.noDefault), &tt.pod, tt.group)
			if tt.err != "" {
				require.ErrorIs(t, err, ErrAdmission)
				require.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.prio, prio)
			require.Equal(t, tt.policy, policy)
		})
	}
}

// A group's priority: its class, its own, its parent's, the global
// default, 0; its policy is never its parent's.
func TestGroupPriority(t *testing.T) {
	parent := &podgroup.CompositePodGroup{Name: "c", Priority: new(int32(70))}
	tests := []struct {
		name      string
		priority  *int32
		class     string
		policy    cluster.PreemptionPolicy
		parent    *podgroup.CompositePodGroup
		noDefault bool
		prio      int32
		wantPol   cluster.PreemptionPolicy
		err       string
	}{
		{name: "the class's value and policy", class: "high", prio: 1000, wantPol: cluster.PreemptNever},
		{name: "the class over the parent's", class: "low", parent: parent, prio: 10, wantPol: cluster.PreemptLowerPriority},
		{name: "an explicit priority that differs from the class", class: "high", priority: new(int32(1)),
			err: `gangsim: admission pod group default/g: priority: 1 differs from 1000, the value of priority class "high"`},
		{name: "an unknown class", class: "nope", err: `gangsim: admission pod group default/g: priorityClassName: priority class "nope" is not defined`},
		{name: "an explicit priority over the parent's", priority: new(int32(5)), parent: parent, prio: 5, wantPol: cluster.PreemptLowerPriority},
		{name: "the parent's", parent: parent, policy: cluster.PreemptNever, prio: 70, wantPol: cluster.PreemptNever},
		{name: "the global default", prio: 100, wantPol: cluster.PreemptLowerPriority},
		{name: "no default class", noDefault: true, prio: 0, wantPol: cluster.PreemptLowerPriority},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prio, policy, err := GroupPriority(classes(t, !tt.noDefault), "pod group default/g", tt.priority, tt.class, tt.policy, tt.parent)
			if tt.err != "" {
				require.ErrorIs(t, err, ErrAdmission)
				require.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.prio, prio)
			require.Equal(t, tt.wantPol, policy)
		})
	}
}

// AdmitPod gives the pod as created: priority resolved, namespace
// defaulted, node cleared, label keys folded into the affinity selectors.
func TestAdmitPod(t *testing.T) {
	p := gangsimtest.MakePod("p").PriorityClass("high").NodeName("n").Label("app", "web").Obj()
	p.Affinity = &cluster.Affinity{PodAntiAffinity: &cluster.PodAffinity{Required: []cluster.PodAffinityTerm{{
		TopologyKey: "kubernetes.io/hostname", LabelSelector: &cluster.LabelSelector{}, MatchLabelKeys: []string{"app"}}}}}
	info, err := AdmitPod(classes(t, false), p, nil)
	require.NoError(t, err)
	got := info.Pod()
	require.Equal(t, int32(1000), *got.Priority)
	require.Equal(t, cluster.PreemptNever, got.PreemptionPolicy)
	require.Equal(t, cluster.DefaultNamespace, got.Namespace)
	require.Empty(t, got.NodeName, "the caller places the pod")
	require.Equal(t, p.WithLabelKeysApplied().Affinity, got.Affinity)
	require.NotEqual(t, p.Affinity, got.Affinity, "matchLabelKeys became a selector requirement")

	_, err = AdmitPod(classes(t, false), gangsimtest.MakePod("q").PriorityClass("nope").Obj(), nil)
	require.ErrorIs(t, err, ErrAdmission)
}

func TestInheritsGroupPriority(t *testing.T) {
	pod := gangsimtest.MakePod
	tests := []struct {
		name string
		pod  cluster.Pod
		want bool
	}{
		{"a member with no priority of its own", pod("p").Group("g").Obj(), true},
		{"a member with a class", pod("p").Group("g").PriorityClass("low").Obj(), false},
		{"a member with a priority", pod("p").Group("g").Priority(1).Obj(), false},
		{"no group", pod("p").Obj(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, InheritsGroupPriority(&tt.pod))
		})
	}
}
