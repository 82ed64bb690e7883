package cluster

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Pods equal but for their names and start times have one shape; any other
// difference, however deep, gives another.
func TestPodShape(t *testing.T) {
	base := func() Pod {
		return Pod{Namespace: "ml", Name: "a", Labels: map[string]string{"app": "x", "tier": "web"},
			Requests: NewResources(500, 1<<30, 0, gpu(1)), Priority: new(int32(5)),
			Affinity: &Affinity{PodAntiAffinity: &PodAffinity{Required: []PodAffinityTerm{{
				LabelSelector: &LabelSelector{MatchLabels: map[string]string{"app": "x"}}, TopologyKey: "zone"}}}},
			Tolerations: []Toleration{{Key: "gpu", Operator: TolerationExists}}}
	}
	p := base()
	same := base()
	same.Name, same.StartTime = "b", 42
	same.ResourceClaimStatuses = []PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: "b-gpu"}} // its own claim, as the name
	require.Equal(t, p.Shape(), same.Shape())
	require.NotEmpty(t, p.Shape())

	for name, change := range map[string]func(*Pod){
		"namespace":       func(q *Pod) { q.Namespace = "web" },
		"a label":         func(q *Pod) { q.Labels = map[string]string{"app": "x", "tier": "db"} },
		"labels nil":      func(q *Pod) { q.Labels = nil },
		"cpu":             func(q *Pod) { q.Requests = NewResources(600, 1<<30, 0, gpu(1)) },
		"extended":        func(q *Pod) { q.Requests = NewResources(500, 1<<30, 0, gpu(2)) },
		"priority":        func(q *Pod) { q.Priority = new(int32(6)) },
		"no priority":     func(q *Pod) { q.Priority = nil },
		"deep selector":   func(q *Pod) { q.Affinity.PodAntiAffinity.Required[0].LabelSelector.MatchLabels["app"] = "y" },
		"topology key":    func(q *Pod) { q.Affinity.PodAntiAffinity.Required[0].TopologyKey = "host" },
		"toleration":      func(q *Pod) { q.Tolerations[0].Effect = TaintNoSchedule },
		"node name":       func(q *Pod) { q.NodeName = "n1" },
		"pod group":       func(q *Pod) { q.PodGroup = "g" },
		"preemption":      func(q *Pod) { q.PreemptionPolicy = PreemptNever },
		"scheduler name":  func(q *Pod) { q.SchedulerName = "other" },
		"string boundary": func(q *Pod) { q.Labels = map[string]string{"app": "xtier", "": "web"} },
		"owner":           func(q *Pod) { q.Owner = &Owner{Kind: "Job", Name: "j"} },
		"node selector":   func(q *Pod) { q.NodeSelector = map[string]string{"disk": "ssd"} },
		"priority class":  func(q *Pod) { q.PriorityClassName = "high" },
		"spread": func(q *Pod) {
			q.TopologySpreadConstraints = []TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone"}}
		},
		"empty tolerations": func(q *Pod) { q.Tolerations = []Toleration{} },
		"a claim entry":     func(q *Pod) { q.ResourceClaims = []PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: "one"}} },
	} {
		q := base()
		change(&q)
		require.NotEqual(t, p.Shape(), q.Shape(), name)
	}
}
