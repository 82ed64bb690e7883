package cluster

import (
	"fmt"
	"slices"
)

// Affinity is a pod's affinity, in the shape of Kubernetes' core/v1
// Affinity: node affinity, and affinity and anti-affinity to other pods.
type Affinity struct {
	NodeAffinity    *NodeAffinity
	PodAffinity     *PodAffinity
	PodAntiAffinity *PodAffinity
}

// PodAffinity holds inter-pod affinity (or anti-affinity) terms: required
// ones filter nodes, preferred ones add to their scores.
type PodAffinity struct {
	Required  []PodAffinityTerm
	Preferred []WeightedPodAffinityTerm
}

// PodAffinityTerm selects pods (by labels, in some namespaces) whose
// topology domain (the value of TopologyKey on their node) the pod wants
// to share, or to avoid.
//
// The pods considered are those in Namespaces, or in namespaces whose
// labels NamespaceSelector matches; with neither, the pod's own namespace.
// MatchLabelKeys and MismatchLabelKeys name labels of the pod itself whose
// values are added to LabelSelector (key In value, key NotIn value) when
// the pod is admitted, as the Kubernetes API server does.
type PodAffinityTerm struct {
	LabelSelector     *LabelSelector
	Namespaces        []string
	NamespaceSelector *LabelSelector
	TopologyKey       string
	MatchLabelKeys    []string
	MismatchLabelKeys []string
}

// WeightedPodAffinityTerm is a preferred term with its weight (1..100).
type WeightedPodAffinityTerm struct {
	Weight int32
	Term   PodAffinityTerm
}

// The actions of a topology spread constraint that a domain's skew
// violates.
const (
	DoNotSchedule  = "DoNotSchedule"
	ScheduleAnyway = "ScheduleAnyway"
)

// The node inclusion policies of a topology spread constraint.
const (
	PolicyHonor  = "Honor"
	PolicyIgnore = "Ignore"
)

// TopologySpreadConstraint asks for the pods LabelSelector selects to be
// spread over the domains of TopologyKey with a skew of at most MaxSkew:
// DoNotSchedule filters, ScheduleAnyway scores. Nil optional fields take
// Kubernetes' defaults: MinDomains 1, NodeAffinityPolicy Honor,
// NodeTaintsPolicy Ignore.
type TopologySpreadConstraint struct {
	MaxSkew            int32
	TopologyKey        string
	WhenUnsatisfiable  string
	LabelSelector      *LabelSelector
	MinDomains         *int32
	NodeAffinityPolicy string // "" means Honor
	NodeTaintsPolicy   string // "" means Ignore
	MatchLabelKeys     []string
}

// Owner is the controller a pod belongs to, as far as scheduling cares:
// PodTopologySpread's default constraints select the pods of the same
// ReplicaSet or StatefulSet.
type Owner struct {
	Kind     string // "ReplicaSet", "StatefulSet", "ReplicationController", "Job", ...
	Name     string
	Selector *LabelSelector
}

// validate returns the field at fault and what is wrong, or "" and "".
func (a *Affinity) validate() (field, detail string) {
	if a.NodeAffinity != nil {
		if f, d := a.NodeAffinity.validate(); d != "" {
			return JoinField("nodeAffinity", f), d
		}
	}
	for _, pa := range []struct {
		name string
		a    *PodAffinity
	}{{"podAffinity", a.PodAffinity}, {"podAntiAffinity", a.PodAntiAffinity}} {
		if pa.a == nil {
			continue
		}
		if f, d := pa.a.validate(); d != "" {
			return JoinField(pa.name, f), d
		}
	}
	return "", ""
}

func (a *PodAffinity) validate() (field, detail string) {
	for i := range a.Required {
		if f, d := a.Required[i].validate(); d != "" {
			return JoinField(fmt.Sprintf("requiredDuringSchedulingIgnoredDuringExecution[%d]", i), f), d
		}
	}
	for i, w := range a.Preferred {
		where, field, detail := preferredWeight(i, w.Weight)
		if detail != "" {
			return field, detail
		}
		if f, d := w.Term.validate(); d != "" {
			return JoinField(where+".podAffinityTerm", f), d
		}
	}
	return "", ""
}

func (t *PodAffinityTerm) validate() (field, detail string) {
	if t.TopologyKey == "" {
		return "topologyKey", "must not be empty"
	}
	if f, d := t.LabelSelector.validate(); d != "" {
		return JoinField("labelSelector", f), d
	}
	if f, d := t.NamespaceSelector.validate(); d != "" {
		return JoinField("namespaceSelector", f), d
	}
	for i, k := range t.MatchLabelKeys {
		if k == "" {
			return fmt.Sprintf("matchLabelKeys[%d]", i), "must not be empty"
		}
		if slices.Contains(t.MismatchLabelKeys, k) {
			return fmt.Sprintf("matchLabelKeys[%d]", i), fmt.Sprintf("%q is also in mismatchLabelKeys", k)
		}
	}
	for i, k := range t.MismatchLabelKeys {
		if k == "" {
			return fmt.Sprintf("mismatchLabelKeys[%d]", i), "must not be empty"
		}
	}
	return "", ""
}

// ValidateSpread checks topology spread constraints as Kubernetes' API
// validation does; it returns the field at fault (under name) and what is
// wrong, or "" and "".
func ValidateSpread(name string, cs []TopologySpreadConstraint) (field, detail string) {
	type pair struct{ key, action string }
	seen := map[pair]bool{}
	for i, c := range cs {
		where := fmt.Sprintf("%s[%d]", name, i)
		switch {
		case c.MaxSkew < 1:
			return where + ".maxSkew", fmt.Sprintf("%d must be at least 1", c.MaxSkew)
		case c.TopologyKey == "":
			return where + ".topologyKey", "must not be empty"
		case c.WhenUnsatisfiable != DoNotSchedule && c.WhenUnsatisfiable != ScheduleAnyway:
			return where + ".whenUnsatisfiable", fmt.Sprintf("%q is not DoNotSchedule or ScheduleAnyway", c.WhenUnsatisfiable)
		case c.MinDomains != nil && *c.MinDomains < 1:
			return where + ".minDomains", fmt.Sprintf("%d must be at least 1", *c.MinDomains)
		case c.MinDomains != nil && c.WhenUnsatisfiable != DoNotSchedule:
			return where + ".minDomains", "is allowed only with whenUnsatisfiable DoNotSchedule"
		case c.NodeAffinityPolicy != "" && c.NodeAffinityPolicy != PolicyHonor && c.NodeAffinityPolicy != PolicyIgnore:
			return where + ".nodeAffinityPolicy", fmt.Sprintf("%q is not Honor or Ignore", c.NodeAffinityPolicy)
		case c.NodeTaintsPolicy != "" && c.NodeTaintsPolicy != PolicyHonor && c.NodeTaintsPolicy != PolicyIgnore:
			return where + ".nodeTaintsPolicy", fmt.Sprintf("%q is not Honor or Ignore", c.NodeTaintsPolicy)
		}
		if seen[pair{c.TopologyKey, c.WhenUnsatisfiable}] {
			return where, fmt.Sprintf("topologyKey %q with whenUnsatisfiable %s is given twice", c.TopologyKey, c.WhenUnsatisfiable)
		}
		seen[pair{c.TopologyKey, c.WhenUnsatisfiable}] = true
		if f, d := c.LabelSelector.validate(); d != "" {
			return JoinField(where+".labelSelector", f), d
		}
		for j, k := range c.MatchLabelKeys {
			if k == "" {
				return fmt.Sprintf("%s.matchLabelKeys[%d]", where, j), "must not be empty"
			}
		}
	}
	return "", ""
}

func (a *Affinity) clone() *Affinity {
	if a == nil {
		return nil
	}
	return &Affinity{NodeAffinity: a.NodeAffinity.clone(), PodAffinity: a.PodAffinity.clone(), PodAntiAffinity: a.PodAntiAffinity.clone()}
}

func (a *PodAffinity) clone() *PodAffinity {
	if a == nil {
		return nil
	}
	cp := &PodAffinity{}
	for _, t := range a.Required {
		cp.Required = append(cp.Required, t.clone())
	}
	for _, w := range a.Preferred {
		cp.Preferred = append(cp.Preferred, WeightedPodAffinityTerm{Weight: w.Weight, Term: w.Term.clone()})
	}
	return cp
}

func (t PodAffinityTerm) clone() PodAffinityTerm {
	t.LabelSelector = t.LabelSelector.Clone()
	t.NamespaceSelector = t.NamespaceSelector.Clone()
	t.Namespaces = slices.Clone(t.Namespaces)
	t.MatchLabelKeys = slices.Clone(t.MatchLabelKeys)
	t.MismatchLabelKeys = slices.Clone(t.MismatchLabelKeys)
	return t
}

func cloneSpread(cs []TopologySpreadConstraint) []TopologySpreadConstraint {
	if cs == nil {
		return nil
	}
	out := make([]TopologySpreadConstraint, len(cs))
	for i, c := range cs {
		c.LabelSelector = c.LabelSelector.Clone()
		if c.MinDomains != nil {
			c.MinDomains = new(*c.MinDomains)
		}
		c.MatchLabelKeys = slices.Clone(c.MatchLabelKeys)
		out[i] = c
	}
	return out
}

// ApplyMatchLabelKeys rewrites the pod's affinity terms as the Kubernetes
// API server does at creation: each matchLabelKeys key the pod carries adds
// "key In (value)" to the term's selector, each mismatchLabelKeys key
// "key NotIn (value)"; keys the pod lacks are ignored, and a nil selector
// stays nil. The keys are then cleared, so applying twice changes nothing.
func (p *Pod) ApplyMatchLabelKeys() {
	if p.Affinity == nil {
		return
	}
	for _, pa := range []*PodAffinity{p.Affinity.PodAffinity, p.Affinity.PodAntiAffinity} {
		if pa == nil {
			continue
		}
		for i := range pa.Required {
			p.rewriteTerm(&pa.Required[i])
		}
		for i := range pa.Preferred {
			p.rewriteTerm(&pa.Preferred[i].Term)
		}
	}
}

// WithLabelKeysApplied returns p with ApplyMatchLabelKeys applied to a
// copy of its affinity, sharing everything else with p; p itself when no
// term has such keys (the usual case), so that a pod handed over is not
// copied for nothing.
func (p Pod) WithLabelKeysApplied() Pod {
	if !p.Affinity.hasLabelKeys() {
		return p
	}
	p.Affinity = p.Affinity.clone()
	p.ApplyMatchLabelKeys()
	return p
}

func (a *Affinity) hasLabelKeys() bool {
	if a == nil {
		return false
	}
	for _, pa := range []*PodAffinity{a.PodAffinity, a.PodAntiAffinity} {
		if pa == nil {
			continue
		}
		for i := range pa.Required {
			if len(pa.Required[i].MatchLabelKeys)+len(pa.Required[i].MismatchLabelKeys) > 0 {
				return true
			}
		}
		for i := range pa.Preferred {
			if len(pa.Preferred[i].Term.MatchLabelKeys)+len(pa.Preferred[i].Term.MismatchLabelKeys) > 0 {
				return true
			}
		}
	}
	return false
}

func (p *Pod) rewriteTerm(t *PodAffinityTerm) {
	for _, k := range t.MatchLabelKeys {
		if v, ok := p.Labels[k]; ok {
			t.LabelSelector = t.LabelSelector.With(LabelRequirement{Key: k, Operator: LabelIn, Values: []string{v}})
		}
	}
	for _, k := range t.MismatchLabelKeys {
		if v, ok := p.Labels[k]; ok {
			t.LabelSelector = t.LabelSelector.With(LabelRequirement{Key: k, Operator: LabelNotIn, Values: []string{v}})
		}
	}
	t.MatchLabelKeys, t.MismatchLabelKeys = nil, nil
}
