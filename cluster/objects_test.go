package cluster

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNodeValidate(t *testing.T) {
	tests := []struct {
		name    string
		n       *nodeBuilder
		mention string // "" means valid
	}{
		{"valid", node("n1").cpu(4).gpus(1).taint("k", "v", TaintNoSchedule).taint("k", "", TaintPreferNoSchedule).taint("x", "", TaintNoExecute), ""},
		{"no name", node(""), "name: must not be empty"},
		{"negative cpu", node("n1").cpu(-1), `"n1": allocatable`},
		{"negative extended", node("n1").gpus(-1), "negative"},
		{"taint without key", node("n1").taint("k", "v", TaintNoSchedule).taint("", "v", TaintNoSchedule), `"n1": taints[1].key: must not be empty`},
		{"taint without effect", node("n1").taint("k", "v", ""), `taints[0].effect: ""`},
		{"taint with unknown effect", node("n1").taint("k", "v", "NoWay"), `taints[0].effect: "NoWay"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := tt.n.obj()
			err := n.Validate()
			if tt.mention == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrInvalidNode)
			assert.Contains(t, err.Error(), tt.mention)
		})
	}
}

func TestPodValidate(t *testing.T) {
	exists := Toleration{Operator: TolerationExists}
	tests := []struct {
		name    string
		p       *podBuilder
		mention string // "" means valid
	}{
		{"valid", pod("p").milli(1).gpus(1).tolerate(exists).affinity(req("zone", SelectorIn, "a")).policy(PreemptNever), ""},
		{"every operator", pod("p").affinity(req("a", SelectorIn, "x"), req("b", SelectorNotIn, "y"), req("c", SelectorExists),
			req("d", SelectorDoesNotExist), req("e", SelectorGt, "1"), req("f", SelectorLt, "-3")), ""},
		{"no name", pod(""), "name: must not be empty"},
		{"negative cpu", pod("p").ns("ns").milli(-1), "ns/p: requests"},
		{"negative extended", pod("p").gpus(-1), "negative"},
		{"requests pods", pod("p").requests(NewResources(0, 0, 1)), "requests.pods"},
		{"unknown policy", pod("p").policy("Maybe"), `preemptionPolicy: "Maybe"`},
		{"Equal without key", pod("p").tolerate(exists).tolerate(Toleration{Value: "v"}), "tolerations[1].key: must not be empty, which only operator Exists allows"},
		{"Exists with value", pod("p").tolerate(Toleration{Key: "k", Operator: TolerationExists, Value: "v"}), "must be empty with operator Exists"},
		{"unknown toleration operator", pod("p").tolerate(Toleration{Key: "k", Operator: "Gt"}), `operator: "Gt"`},
		{"unknown toleration effect", pod("p").tolerate(Toleration{Key: "k", Effect: "Never"}), `effect: "Never"`},
		{"affinity with no terms", pod("p").rawAffinity(&NodeAffinity{Required: []SelectorTerm{}}), "nodeSelectorTerms: must have at least one term"},
		{"no required terms at all is fine", pod("p").rawAffinity(&NodeAffinity{}), ""},
		{"term with no expressions", pod("p").affinity(req("a", SelectorExists)).affinity(), "nodeSelectorTerms[1].matchExpressions: must not be empty"},
		{"empty key", pod("p").affinity(req("", SelectorExists)), "nodeSelectorTerms[0].matchExpressions[0].key: must not be empty"},
		{"preferred weight", pod("p").rawAffinity(&NodeAffinity{Preferred: []PreferredSchedulingTerm{{Weight: 0, Preference: SelectorTerm{MatchExpressions: []SelectorRequirement{req("a", SelectorExists)}}}}}), "preferredDuringSchedulingIgnoredDuringExecution[0].weight: 0 is not in 1..100"},
		{"a field that is no node name", pod("p").rawAffinity(&NodeAffinity{Required: []SelectorTerm{{MatchFields: []SelectorRequirement{req("metadata.uid", SelectorIn, "x")}}}}), `matchFields[0].key: "metadata.uid" is not metadata.name`},
		{"In without values", pod("p").affinity(req("a", SelectorExists), req("b", SelectorIn)), "matchExpressions[1].values: operator In needs values"},
		{"NotIn without values", pod("p").affinity(req("b", SelectorNotIn)), "operator NotIn needs values"},
		{"Exists with values", pod("p").affinity(req("b", SelectorExists, "x")), "operator Exists takes no values"},
		{"DoesNotExist with values", pod("p").affinity(req("b", SelectorDoesNotExist, "x")), "operator DoesNotExist takes no values"},
		{"Gt with two values", pod("p").affinity(req("b", SelectorGt, "1", "2")), "operator Gt needs exactly one value"},
		{"Lt with no value", pod("p").affinity(req("b", SelectorLt)), "operator Lt needs exactly one value"},
		{"Gt not an integer", pod("p").affinity(req("b", SelectorGt, "1.5")), `integer value, got "1.5"`},
		{"unknown operator", pod("p").affinity(req("b", "Near", "x")), `operator: "Near"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.p.obj()
			err := p.Validate()
			if tt.mention == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrInvalidPod)
			assert.Contains(t, err.Error(), tt.mention)
			if p.Name != "" {
				assert.Contains(t, err.Error(), string(p.Key()), "the error names the pod")
			}
		})
	}
}

func (b *podBuilder) requests(r Resources) *podBuilder {
	b.p.Requests = r
	return b
}

func (b *podBuilder) rawAffinity(a *NodeAffinity) *podBuilder {
	b.p.Affinity = &Affinity{NodeAffinity: a}
	return b
}

func TestTolerates(t *testing.T) {
	taint := Taint{Key: "gpu", Value: "a100", Effect: TaintNoSchedule}
	tests := []struct {
		name string
		tol  Toleration
		want bool
	}{
		{"Exists with empty key tolerates everything", Toleration{Operator: TolerationExists}, true},
		{"Exists with empty key, same effect", Toleration{Operator: TolerationExists, Effect: TaintNoSchedule}, true},
		{"Exists with empty key, other effect", Toleration{Operator: TolerationExists, Effect: TaintNoExecute}, false},
		{"Exists, same key", Toleration{Key: "gpu", Operator: TolerationExists}, true},
		{"Exists, other key", Toleration{Key: "disk", Operator: TolerationExists}, false},
		{"Equal, same value", Toleration{Key: "gpu", Operator: TolerationEqual, Value: "a100"}, true},
		{"empty operator means Equal", Toleration{Key: "gpu", Value: "a100"}, true},
		{"Equal, other value", Toleration{Key: "gpu", Operator: TolerationEqual, Value: "h100"}, false},
		{"Equal, empty value", Toleration{Key: "gpu", Operator: TolerationEqual}, false},
		{"Equal, same effect", Toleration{Key: "gpu", Value: "a100", Effect: TaintNoSchedule}, true},
		{"Equal, other effect", Toleration{Key: "gpu", Value: "a100", Effect: TaintPreferNoSchedule}, false},
		{"Equal, other key", Toleration{Key: "disk", Value: "a100"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.tol.Tolerates(&taint))
			other := Toleration{Key: "zzz", Value: "zzz"}
			assert.Equal(t, tt.want, TolerationsTolerate([]Toleration{other, tt.tol}, &taint))
		})
	}
	emptyValue := Taint{Key: "k", Effect: TaintNoExecute}
	assert.True(t, (&Toleration{Key: "k"}).Tolerates(&emptyValue), "Equal with both values empty")
	assert.False(t, TolerationsTolerate(nil, &taint))
}

func TestSelectorRequirementMatches(t *testing.T) {
	labels := map[string]string{"zone": "a", "cores": "16", "name": "x"}
	tests := []struct {
		r    SelectorRequirement
		want bool
	}{
		{req("zone", SelectorIn, "a", "b"), true},
		{req("zone", SelectorIn, "b", "c"), false},
		{req("absent", SelectorIn, "a"), false},
		{req("zone", SelectorNotIn, "b"), true},
		{req("zone", SelectorNotIn, "b", "a"), false},
		{req("absent", SelectorNotIn, "a"), true}, // NotIn matches a missing label
		{req("zone", SelectorExists), true},
		{req("absent", SelectorExists), false},
		{req("zone", SelectorDoesNotExist), false},
		{req("absent", SelectorDoesNotExist), true},
		{req("cores", SelectorGt, "8"), true},
		{req("cores", SelectorGt, "16"), false},
		{req("cores", SelectorGt, "32"), false},
		{req("cores", SelectorGt, "-1"), true},
		{req("cores", SelectorLt, "32"), true},
		{req("cores", SelectorLt, "16"), false},
		{req("cores", SelectorLt, "8"), false},
		{req("absent", SelectorGt, "1"), false},
		{req("absent", SelectorLt, "1"), false},
		{req("name", SelectorGt, "1"), false}, // label is not an integer
		{req("name", SelectorLt, "1"), false},
		{req("cores", SelectorGt, "x"), false},
		{req("cores", SelectorGt), false},
		{req("zone", "Near", "a"), false},
	}
	for _, tt := range tests {
		t.Run(tt.r.Key+"_"+string(tt.r.Operator), func(t *testing.T) {
			assert.Equal(t, tt.want, tt.r.Matches(labels), "%+v", tt.r)
		})
	}
}

func TestNodeAffinityMatches(t *testing.T) {
	labels := map[string]string{"zone": "a", "disk": "ssd"}
	terms := func(ts ...[]SelectorRequirement) *NodeAffinity {
		a := &NodeAffinity{}
		for _, reqs := range ts {
			a.Required = append(a.Required, SelectorTerm{MatchExpressions: reqs})
		}
		return a
	}
	zoneA, zoneB := req("zone", SelectorIn, "a"), req("zone", SelectorIn, "b")
	ssd := req("disk", SelectorIn, "ssd")
	tests := []struct {
		name string
		a    *NodeAffinity
		want bool
	}{
		{"one term, one requirement", terms([]SelectorRequirement{zoneA}), true},
		{"requirements are ANDed", terms([]SelectorRequirement{zoneA, ssd}), true},
		{"one failing requirement fails the term", terms([]SelectorRequirement{zoneB, ssd}), false},
		{"terms are ORed", terms([]SelectorRequirement{zoneB}, []SelectorRequirement{ssd}), true},
		{"no term matches", terms([]SelectorRequirement{zoneB}, []SelectorRequirement{req("disk", SelectorDoesNotExist)}), false},
		{"an empty term matches nothing", terms([]SelectorRequirement{}), false},
		{"no terms match nothing", &NodeAffinity{Required: []SelectorTerm{}}, false},
		{"no requirement matches everything", &NodeAffinity{}, true},
		{"a node name field", &NodeAffinity{Required: []SelectorTerm{{MatchFields: []SelectorRequirement{req(NodeNameField, SelectorIn, "n")}}}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.a.MatchesNode(&Node{Name: "n", Labels: labels}))
		})
	}
}

func TestMatchesSelector(t *testing.T) {
	labels := map[string]string{"a": "1", "b": "2"}
	assert.True(t, MatchesSelector(nil, labels))
	assert.True(t, MatchesSelector(nil, nil))
	assert.True(t, MatchesSelector(map[string]string{"a": "1"}, labels))
	assert.True(t, MatchesSelector(map[string]string{"a": "1", "b": "2"}, labels))
	assert.False(t, MatchesSelector(map[string]string{"a": "2"}, labels))
	assert.False(t, MatchesSelector(map[string]string{"c": ""}, labels), "a missing key does not equal the empty value")
	assert.False(t, MatchesSelector(map[string]string{"a": "1"}, nil))
}

func TestCloneIsDeep(t *testing.T) {
	p := pod("p").label("app", "web").gpus(1).tolerate(Toleration{Key: "k", Value: "v"}).
		affinity(req("zone", SelectorIn, "a")).obj()
	p.NodeSelector = map[string]string{"disk": "ssd"}
	orig := p.Clone()
	cp := p.Clone()
	cp.Labels["app"] = "db"
	cp.NodeSelector["disk"] = "hdd"
	cp.Tolerations[0].Value = "w"
	cp.Requests.scalars[0].Value = 7
	cp.Affinity.NodeAffinity.Required[0].MatchExpressions[0].Values[0] = "b"
	cp.Affinity.NodeAffinity.Required[0].MatchExpressions[0].Key = "rack"
	assert.Equal(t, orig, p)

	n := node("n").gpus(1).label("zone", "a").taint("k", "v", TaintNoSchedule).obj()
	origN := n.Clone()
	cn := n.Clone()
	cn.Labels["zone"] = "b"
	cn.Taints[0].Value = "w"
	cn.Allocatable.scalars[0].Value = 7
	assert.Equal(t, origN, n)
}

func TestPodDefaultsAndKeys(t *testing.T) {
	assert.Equal(t, PodKey("default/p"), MakePodKey("", "p"))
	assert.Equal(t, PodKey("ns/p"), MakePodKey("ns", "p"))
	p := pod("p").obj()
	assert.Equal(t, PreemptLowerPriority, p.EffectivePreemptionPolicy())
	assert.Equal(t, DefaultSchedulerName, p.EffectiveSchedulerName())
	p.PreemptionPolicy, p.SchedulerName = PreemptNever, "other"
	assert.Equal(t, PreemptNever, p.EffectivePreemptionPolicy())
	assert.Equal(t, "other", p.EffectiveSchedulerName())
}

func TestNewPodInfo(t *testing.T) {
	p := pod("p").ns("ns").milli(250).gpus(2).label("app", "web").obj()
	p.Priority = new(int32(7))
	pi := NewPodInfo(p)
	p.Labels["app"] = "db"
	p.Requests.scalars[0].Value = 9
	assert.Equal(t, PodKey("ns/p"), pi.Key())
	assert.Equal(t, NewResources(250, 0, 1, gpu(2)), pi.Request(), "requests plus one pod")
	assert.Equal(t, NewResources(250, 0, 1, gpu(2)), *pi.RequestRef())
	cpu, mem := pi.NonZeroRequests()
	assert.Equal(t, [2]int64{250, DefaultMemoryRequest}, [2]int64{cpu, mem})
	assert.Equal(t, PodPending, pi.State())
	assert.Equal(t, int32(7), pi.Priority())
	assert.Equal(t, "web", pi.Pod().Labels["app"], "NewPodInfo copies the pod")
}

// WithLabelKeysApplied folds matchLabelKeys into a copy of the affinity
// and leaves the pod it was given as it was; a pod without such keys comes
// back as it is, sharing its affinity.
func TestWithLabelKeysApplied(t *testing.T) {
	term := func(keys ...string) PodAffinityTerm {
		return PodAffinityTerm{TopologyKey: "zone", LabelSelector: &LabelSelector{MatchLabels: map[string]string{"app": "a"}}, MatchLabelKeys: keys}
	}
	plain := Pod{Name: "p", Labels: map[string]string{"app": "a", "rev": "7"},
		Affinity: &Affinity{PodAffinity: &PodAffinity{Required: []PodAffinityTerm{term()}}}}
	require.Same(t, plain.Affinity, plain.WithLabelKeysApplied().Affinity)

	keyed := plain
	keyed.Affinity = &Affinity{PodAntiAffinity: &PodAffinity{Preferred: []WeightedPodAffinityTerm{{Weight: 1, Term: term("rev")}}}}
	before := keyed.Clone()
	got := keyed.WithLabelKeysApplied()
	require.Equal(t, before, keyed, "the pod given is unchanged")
	applied := got.Affinity.PodAntiAffinity.Preferred[0].Term
	require.Empty(t, applied.MatchLabelKeys)
	require.Equal(t, []LabelRequirement{{Key: "rev", Operator: LabelIn, Values: []string{"7"}}}, applied.LabelSelector.MatchExpressions)
	require.Equal(t, map[string]string{"app": "a"}, applied.LabelSelector.MatchLabels)
}
