package scenario

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/podgroup"
)

// admitted is what admission decided for one pod.
type admitted struct {
	priority int32
	policy   cluster.PreemptionPolicy
}

// TestAdmissionIsTheSameThroughFilesAndGo runs each case twice: as a
// scenario file, and as the same objects given to the Scheduler from Go.
// Both must resolve the same priority and preemption policy for the pod
// "p", or fail with the same error.
func TestAdmissionIsTheSameThroughFilesAndGo(t *testing.T) {
	classes := []cluster.PriorityClass{{Name: "high", Value: 1000, PreemptionPolicy: cluster.PreemptNever}}
	withDefault := append(classes, cluster.PriorityClass{Name: "base", Value: 50, GlobalDefault: true})
	tests := []struct {
		name       string
		yaml       string
		classes    []cluster.PriorityClass
		composites []podgroup.CompositePodGroup
		groups     []podgroup.PodGroup
		pod        cluster.Pod
		want       admitted
		wantErr    string
	}{
		{name: "class value and policy",
			yaml: "pods: [{name: p, priorityClassName: high}]", classes: classes,
			pod: cluster.Pod{Name: "p", PriorityClassName: "high"}, want: admitted{1000, cluster.PreemptNever}},
		{name: "explicit priority",
			yaml: "pods: [{name: p, priority: 5}]", classes: withDefault,
			pod: cluster.Pod{Name: "p", Priority: new(int32(5))}, want: admitted{5, cluster.PreemptLowerPriority}},
		{name: "class and equal priority",
			yaml: "pods: [{name: p, priority: 1000, priorityClassName: high}]", classes: classes,
			pod: cluster.Pod{Name: "p", Priority: new(int32(1000)), PriorityClassName: "high"}, want: admitted{1000, cluster.PreemptNever}},
		{name: "own policy wins over the class's",
			yaml: "pods: [{name: p, priorityClassName: high, preemptionPolicy: PreemptLowerPriority}]", classes: classes,
			pod: cluster.Pod{Name: "p", PriorityClassName: "high", PreemptionPolicy: cluster.PreemptLowerPriority}, want: admitted{1000, cluster.PreemptLowerPriority}},
		{name: "the group's priority and policy",
			yaml: "podGroups: [{name: g, priority: 7, preemptionPolicy: Never}]\npods: [{name: p, podGroup: g}]", classes: withDefault,
			groups: []podgroup.PodGroup{{Name: "g", Priority: new(int32(7)), PreemptionPolicy: cluster.PreemptNever}},
			pod:    cluster.Pod{Name: "p", PodGroup: "g"}, want: admitted{7, cluster.PreemptNever}},
		{name: "the group's class",
			yaml: "podGroups: [{name: g, priorityClassName: high}]\npods: [{name: p, podGroup: g}]", classes: classes,
			groups: []podgroup.PodGroup{{Name: "g", PriorityClassName: "high"}},
			pod:    cluster.Pod{Name: "p", PodGroup: "g"}, want: admitted{1000, cluster.PreemptNever}},
		{name: "global default through the group",
			yaml: "podGroups: [{name: g}]\npods: [{name: p, podGroup: g}]", classes: withDefault,
			groups: []podgroup.PodGroup{{Name: "g"}},
			pod:    cluster.Pod{Name: "p", PodGroup: "g"}, want: admitted{50, cluster.PreemptLowerPriority}},
		{name: "global default for a lone pod",
			yaml: "pods: [{name: p}]", classes: withDefault,
			pod: cluster.Pod{Name: "p"}, want: admitted{50, cluster.PreemptLowerPriority}},
		{name: "nothing: 0",
			yaml: "pods: [{name: p}]", classes: classes,
			pod: cluster.Pod{Name: "p"}, want: admitted{0, cluster.PreemptLowerPriority}},
		{name: "a group takes its parent's priority",
			yaml:       "compositePodGroups: [{name: c, priority: 9}]\npodGroups: [{name: g, parent: c}]\npods: [{name: p, podGroup: g}]",
			composites: []podgroup.CompositePodGroup{{Name: "c", Priority: new(int32(9))}},
			groups:     []podgroup.PodGroup{{Name: "g", Parent: "c"}},
			pod:        cluster.Pod{Name: "p", PodGroup: "g"}, want: admitted{9, cluster.PreemptLowerPriority}},
		{name: "a priority that contradicts the class",
			yaml: "pods: [{name: p, priority: 3, priorityClassName: high}]", classes: classes,
			pod: cluster.Pod{Name: "p", Priority: new(int32(3)), PriorityClassName: "high"}, wantErr: `priority: 3 differs from 1000, the value of priority class "high"`},
		{name: "an unknown class",
			yaml: "pods: [{name: p, priorityClassName: gold}]", classes: classes,
			pod: cluster.Pod{Name: "p", PriorityClassName: "gold"}, wantErr: `priorityClassName: priority class "gold" is not defined`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fromFile, fileErr := admitFromFile(t, tt.yaml, tt.classes)
			fromGo, goErr := admitFromGo(t, tt.classes, tt.composites, tt.groups, tt.pod)
			if tt.wantErr != "" {
				require.ErrorIs(t, fileErr, gangsim.ErrAdmission)
				require.ErrorIs(t, goErr, gangsim.ErrAdmission)
				require.Contains(t, fileErr.Error(), tt.wantErr)
				require.Contains(t, goErr.Error(), tt.wantErr)
				return
			}
			require.NoError(t, fileErr)
			require.NoError(t, goErr)
			require.Equal(t, tt.want, fromFile, "from the file")
			require.Equal(t, tt.want, fromGo, "from Go")
		})
	}
}

// admitFromFile loads the scenario (with the classes prepended) and runs
// its pods' arrivals.
func admitFromFile(t *testing.T, text string, classes []cluster.PriorityClass) (admitted, error) {
	var b strings.Builder
	b.WriteString("priorityClasses:\n")
	for _, pc := range classes {
		b.WriteString("  - {name: " + pc.Name + ", value: " + strconv.Itoa(int(pc.Value)))
		if pc.GlobalDefault {
			b.WriteString(", globalDefault: true")
		}
		if pc.PreemptionPolicy != "" {
			b.WriteString(", preemptionPolicy: " + string(pc.PreemptionPolicy))
		}
		b.WriteString("}\n")
	}
	b.WriteString(text + "\n")
	sc, err := Parse("admission.yaml", []byte(b.String()))
	if err != nil {
		return admitted{}, err
	}
	s, err := sc.NewScheduler()
	require.NoError(t, err)
	for _, p := range sc.Pods {
		if err := s.AddPod(p.Pod, 0); err != nil {
			return admitted{}, err
		}
	}
	return podAdmission(t, s), nil
}

func admitFromGo(t *testing.T, classes []cluster.PriorityClass, composites []podgroup.CompositePodGroup, groups []podgroup.PodGroup, pod cluster.Pod) (admitted, error) {
	s, err := gangsim.New(gangsim.Config{})
	require.NoError(t, err)
	for _, pc := range classes {
		require.NoError(t, s.AddPriorityClass(pc))
	}
	for _, c := range composites {
		require.NoError(t, s.AddCompositePodGroup(c))
	}
	for _, g := range groups {
		require.NoError(t, s.AddPodGroup(g))
	}
	if err := s.AddPod(pod, 0); err != nil {
		return admitted{}, err
	}
	return podAdmission(t, s), nil
}

func podAdmission(t *testing.T, s *gangsim.Scheduler) admitted {
	st, ok := s.Pod(cluster.MakePodKey("", "p"))
	require.True(t, ok)
	return admitted{st.Priority, st.PreemptionPolicy}
}

// TestAdmissionOfAPodBeforeItsGroup: through the Go API a pod may name its
// group before the group exists; once the group is added, the pending pod
// takes the group's priority, as a file (where groups come first) gives it.
func TestAdmissionOfAPodBeforeItsGroup(t *testing.T) {
	s, err := gangsim.New(gangsim.Config{})
	require.NoError(t, err)
	require.NoError(t, s.AddPod(cluster.Pod{Name: "p", PodGroup: "g"}, 0))
	require.NoError(t, s.AddPodGroup(podgroup.PodGroup{Name: "g", Priority: new(int32(7))}))
	st, _ := s.Pod(cluster.MakePodKey("", "p"))
	require.Equal(t, int32(7), st.Priority)
}
