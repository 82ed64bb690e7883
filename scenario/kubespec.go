package scenario

import (
	"github.com/gangsim/gangsim/cluster"
)

// Kubernetes-shaped parts of pods, with Kubernetes' field names: scenario
// files and Kubernetes objects share them.

type affinitySpec struct {
	NodeAffinity    *nodeAffinitySpec `yaml:"nodeAffinity"`
	PodAffinity     *podAffinitySpec  `yaml:"podAffinity"`
	PodAntiAffinity *podAffinitySpec  `yaml:"podAntiAffinity"`
}

type nodeAffinitySpec struct {
	Required *struct {
		Terms []nodeSelectorTermSpec `yaml:"nodeSelectorTerms"`
	} `yaml:"requiredDuringSchedulingIgnoredDuringExecution"`
	Preferred []struct {
		Weight     int32                `yaml:"weight"`
		Preference nodeSelectorTermSpec `yaml:"preference"`
	} `yaml:"preferredDuringSchedulingIgnoredDuringExecution"`
}

type nodeSelectorTermSpec struct {
	MatchExpressions []requirementSpec `yaml:"matchExpressions"`
	MatchFields      []requirementSpec `yaml:"matchFields"`
}

type requirementSpec struct {
	Key      string   `yaml:"key"`
	Operator string   `yaml:"operator"`
	Values   []string `yaml:"values"`
}

type podAffinitySpec struct {
	Required  []podAffinityTermSpec `yaml:"requiredDuringSchedulingIgnoredDuringExecution"`
	Preferred []struct {
		Weight int32               `yaml:"weight"`
		Term   podAffinityTermSpec `yaml:"podAffinityTerm"`
	} `yaml:"preferredDuringSchedulingIgnoredDuringExecution"`
}

type podAffinityTermSpec struct {
	LabelSelector     *labelSelectorSpec `yaml:"labelSelector"`
	Namespaces        []string           `yaml:"namespaces"`
	NamespaceSelector *labelSelectorSpec `yaml:"namespaceSelector"`
	TopologyKey       string             `yaml:"topologyKey"`
	MatchLabelKeys    []string           `yaml:"matchLabelKeys"`
	MismatchLabelKeys []string           `yaml:"mismatchLabelKeys"`
}

type labelSelectorSpec struct {
	MatchLabels      map[string]string `yaml:"matchLabels"`
	MatchExpressions []requirementSpec `yaml:"matchExpressions"`
}

type spreadSpec struct {
	MaxSkew            int32              `yaml:"maxSkew"`
	TopologyKey        string             `yaml:"topologyKey"`
	WhenUnsatisfiable  string             `yaml:"whenUnsatisfiable"`
	LabelSelector      *labelSelectorSpec `yaml:"labelSelector"`
	MinDomains         *int32             `yaml:"minDomains"`
	NodeAffinityPolicy string             `yaml:"nodeAffinityPolicy"`
	NodeTaintsPolicy   string             `yaml:"nodeTaintsPolicy"`
	MatchLabelKeys     []string           `yaml:"matchLabelKeys"`
}

func (s *labelSelectorSpec) convert() *cluster.LabelSelector {
	if s == nil {
		return nil
	}
	out := &cluster.LabelSelector{MatchLabels: s.MatchLabels}
	for _, r := range s.MatchExpressions {
		out.MatchExpressions = append(out.MatchExpressions, cluster.LabelRequirement{Key: r.Key, Operator: cluster.LabelOperator(r.Operator), Values: r.Values})
	}
	return out
}

func requirements(rs []requirementSpec) []cluster.SelectorRequirement {
	var out []cluster.SelectorRequirement
	for _, r := range rs {
		out = append(out, cluster.SelectorRequirement{Key: r.Key, Operator: cluster.SelectorOperator(r.Operator), Values: r.Values})
	}
	return out
}

func (t nodeSelectorTermSpec) convert() cluster.SelectorTerm {
	return cluster.SelectorTerm{MatchExpressions: requirements(t.MatchExpressions), MatchFields: requirements(t.MatchFields)}
}

func (a *affinitySpec) convert() *cluster.Affinity {
	if a == nil {
		return nil
	}
	out := &cluster.Affinity{PodAffinity: a.PodAffinity.convert(), PodAntiAffinity: a.PodAntiAffinity.convert()}
	if na := a.NodeAffinity; na != nil {
		out.NodeAffinity = &cluster.NodeAffinity{}
		if na.Required != nil {
			out.NodeAffinity.Required = []cluster.SelectorTerm{}
			for _, t := range na.Required.Terms {
				out.NodeAffinity.Required = append(out.NodeAffinity.Required, t.convert())
			}
		}
		for _, p := range na.Preferred {
			out.NodeAffinity.Preferred = append(out.NodeAffinity.Preferred, cluster.PreferredSchedulingTerm{Weight: p.Weight, Preference: p.Preference.convert()})
		}
	}
	return out
}

func (a *podAffinitySpec) convert() *cluster.PodAffinity {
	if a == nil {
		return nil
	}
	out := &cluster.PodAffinity{}
	for _, t := range a.Required {
		out.Required = append(out.Required, t.convert())
	}
	for _, w := range a.Preferred {
		out.Preferred = append(out.Preferred, cluster.WeightedPodAffinityTerm{Weight: w.Weight, Term: w.Term.convert()})
	}
	return out
}

func (t podAffinityTermSpec) convert() cluster.PodAffinityTerm {
	return cluster.PodAffinityTerm{LabelSelector: t.LabelSelector.convert(), Namespaces: t.Namespaces,
		NamespaceSelector: t.NamespaceSelector.convert(), TopologyKey: t.TopologyKey,
		MatchLabelKeys: t.MatchLabelKeys, MismatchLabelKeys: t.MismatchLabelKeys}
}

func convertSpread(cs []spreadSpec) []cluster.TopologySpreadConstraint {
	var out []cluster.TopologySpreadConstraint
	for _, c := range cs {
		out = append(out, cluster.TopologySpreadConstraint{MaxSkew: c.MaxSkew, TopologyKey: c.TopologyKey,
			WhenUnsatisfiable: c.WhenUnsatisfiable, LabelSelector: c.LabelSelector.convert(), MinDomains: c.MinDomains,
			NodeAffinityPolicy: c.NodeAffinityPolicy, NodeTaintsPolicy: c.NodeTaintsPolicy, MatchLabelKeys: c.MatchLabelKeys})
	}
	return out
}
