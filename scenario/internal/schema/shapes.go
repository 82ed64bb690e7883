package schema

import (
	"github.com/gangsim/gangsim/cluster"
)

// Kubernetes-shaped parts of pods, with Kubernetes' field names: scenario
// files and Kubernetes objects share them, and Convert makes them the
// model's.

// Affinity is a pod's affinity.
type Affinity struct {
	NodeAffinity    *NodeAffinity `yaml:"nodeAffinity"`
	PodAffinity     *PodAffinity  `yaml:"podAffinity"`
	PodAntiAffinity *PodAffinity  `yaml:"podAntiAffinity"`
}

// NodeAffinity is a pod's node affinity.
type NodeAffinity struct {
	Required  *NodeSelector `yaml:"requiredDuringSchedulingIgnoredDuringExecution"`
	Preferred []struct {
		Weight     int32            `yaml:"weight"`
		Preference NodeSelectorTerm `yaml:"preference"`
	} `yaml:"preferredDuringSchedulingIgnoredDuringExecution"`
}

// NodeSelector is a required node affinity: any of its terms.
type NodeSelector struct {
	Terms []NodeSelectorTerm `yaml:"nodeSelectorTerms"`
}

// NodeSelectorTerm is one term of a node affinity.
type NodeSelectorTerm struct {
	MatchExpressions []Requirement `yaml:"matchExpressions"`
	MatchFields      []Requirement `yaml:"matchFields"`
}

// Requirement is a selector's requirement on a key.
type Requirement struct {
	Key      string   `yaml:"key"`
	Operator string   `yaml:"operator"`
	Values   []string `yaml:"values"`
}

// PodAffinity is a pod's affinity or anti-affinity to other pods.
type PodAffinity struct {
	Required  []PodAffinityTerm `yaml:"requiredDuringSchedulingIgnoredDuringExecution"`
	Preferred []struct {
		Weight int32           `yaml:"weight"`
		Term   PodAffinityTerm `yaml:"podAffinityTerm"`
	} `yaml:"preferredDuringSchedulingIgnoredDuringExecution"`
}

// PodAffinityTerm is one term of a pod affinity.
type PodAffinityTerm struct {
	LabelSelector     *LabelSelector `yaml:"labelSelector"`
	Namespaces        []string       `yaml:"namespaces"`
	NamespaceSelector *LabelSelector `yaml:"namespaceSelector"`
	TopologyKey       string         `yaml:"topologyKey"`
	MatchLabelKeys    []string       `yaml:"matchLabelKeys"`
	MismatchLabelKeys []string       `yaml:"mismatchLabelKeys"`
}

// LabelSelector is a Kubernetes label selector.
type LabelSelector struct {
	MatchLabels      map[string]string `yaml:"matchLabels"`
	MatchExpressions []Requirement     `yaml:"matchExpressions"`
}

// Spread is a topology spread constraint.
type Spread struct {
	MaxSkew            int32          `yaml:"maxSkew"`
	TopologyKey        string         `yaml:"topologyKey"`
	WhenUnsatisfiable  string         `yaml:"whenUnsatisfiable"`
	LabelSelector      *LabelSelector `yaml:"labelSelector"`
	MinDomains         *int32         `yaml:"minDomains"`
	NodeAffinityPolicy string         `yaml:"nodeAffinityPolicy"`
	NodeTaintsPolicy   string         `yaml:"nodeTaintsPolicy"`
	MatchLabelKeys     []string       `yaml:"matchLabelKeys"`
}

// Convert returns the selector in the model's terms; nil for nil.
func (s *LabelSelector) Convert() *cluster.LabelSelector {
	if s == nil {
		return nil
	}
	out := &cluster.LabelSelector{MatchLabels: s.MatchLabels}
	for _, r := range s.MatchExpressions {
		out.MatchExpressions = append(out.MatchExpressions, cluster.LabelRequirement{Key: r.Key, Operator: cluster.LabelOperator(r.Operator), Values: r.Values})
	}
	return out
}

func requirements(rs []Requirement) []cluster.SelectorRequirement {
	var out []cluster.SelectorRequirement
	for _, r := range rs {
		out = append(out, cluster.SelectorRequirement{Key: r.Key, Operator: cluster.SelectorOperator(r.Operator), Values: r.Values})
	}
	return out
}

// Convert returns the term in the model's terms.
func (t NodeSelectorTerm) Convert() cluster.SelectorTerm {
	return cluster.SelectorTerm{MatchExpressions: requirements(t.MatchExpressions), MatchFields: requirements(t.MatchFields)}
}

// Convert returns the affinity in the model's terms; nil for nil.
func (a *Affinity) Convert() *cluster.Affinity {
	if a == nil {
		return nil
	}
	out := &cluster.Affinity{PodAffinity: a.PodAffinity.Convert(), PodAntiAffinity: a.PodAntiAffinity.Convert()}
	if na := a.NodeAffinity; na != nil {
		out.NodeAffinity = &cluster.NodeAffinity{}
		if na.Required != nil {
			out.NodeAffinity.Required = []cluster.SelectorTerm{}
			for _, t := range na.Required.Terms {
				out.NodeAffinity.Required = append(out.NodeAffinity.Required, t.Convert())
			}
		}
		for _, p := range na.Preferred {
			out.NodeAffinity.Preferred = append(out.NodeAffinity.Preferred, cluster.PreferredSchedulingTerm{Weight: p.Weight, Preference: p.Preference.Convert()})
		}
	}
	return out
}

// Convert returns the pod affinity in the model's terms; nil for nil.
func (a *PodAffinity) Convert() *cluster.PodAffinity {
	if a == nil {
		return nil
	}
	out := &cluster.PodAffinity{}
	for _, t := range a.Required {
		out.Required = append(out.Required, t.Convert())
	}
	for _, w := range a.Preferred {
		out.Preferred = append(out.Preferred, cluster.WeightedPodAffinityTerm{Weight: w.Weight, Term: w.Term.Convert()})
	}
	return out
}

// Convert returns the term in the model's terms.
func (t PodAffinityTerm) Convert() cluster.PodAffinityTerm {
	return cluster.PodAffinityTerm{LabelSelector: t.LabelSelector.Convert(), Namespaces: t.Namespaces,
		NamespaceSelector: t.NamespaceSelector.Convert(), TopologyKey: t.TopologyKey,
		MatchLabelKeys: t.MatchLabelKeys, MismatchLabelKeys: t.MismatchLabelKeys}
}

// ConvertSpread returns spread constraints in the model's terms.
func ConvertSpread(cs []Spread) []cluster.TopologySpreadConstraint {
	var out []cluster.TopologySpreadConstraint
	for _, c := range cs {
		out = append(out, cluster.TopologySpreadConstraint{MaxSkew: c.MaxSkew, TopologyKey: c.TopologyKey,
			WhenUnsatisfiable: c.WhenUnsatisfiable, LabelSelector: c.LabelSelector.Convert(), MinDomains: c.MinDomains,
			NodeAffinityPolicy: c.NodeAffinityPolicy, NodeTaintsPolicy: c.NodeTaintsPolicy, MatchLabelKeys: c.MatchLabelKeys})
	}
	return out
}

// Convert returns the toleration in the model's terms.
func (t Toleration) Convert() cluster.Toleration {
	return cluster.Toleration{Key: t.Key, Operator: cluster.TolerationOperator(t.Operator), Value: t.Value, Effect: cluster.TaintEffect(t.Effect)}
}
