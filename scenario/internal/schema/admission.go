package schema

// LimitRange is an entry of limitRanges: a v1 LimitRange, its spec's
// fields beside its name.
type LimitRange struct {
	Line      int              `yaml:"-"`
	Name      string           `yaml:"name"`
	Namespace string           `yaml:"namespace"`
	Limits    []LimitRangeItem `yaml:"limits"`
	Origin    *Origin          `yaml:"-"`
}

// LimitRangeItem is an item of a LimitRange's limits.
type LimitRangeItem struct {
	Type                 string            `yaml:"type"`
	Max                  map[string]string `yaml:"max"`
	Min                  map[string]string `yaml:"min"`
	Default              map[string]string `yaml:"default"`
	DefaultRequest       map[string]string `yaml:"defaultRequest"`
	MaxLimitRequestRatio map[string]string `yaml:"maxLimitRequestRatio"`
}

// ResourceQuota is an entry of resourceQuotas: a v1 ResourceQuota, its
// spec's fields beside its name.
type ResourceQuota struct {
	Line          int               `yaml:"-"`
	Name          string            `yaml:"name"`
	Namespace     string            `yaml:"namespace"`
	Hard          map[string]string `yaml:"hard"`
	Scopes        []string          `yaml:"scopes"`
	ScopeSelector *ScopeSelector    `yaml:"scopeSelector"`
	Origin        *Origin           `yaml:"-"`
}

// ScopeSelector is a quota's scopeSelector.
type ScopeSelector struct {
	MatchExpressions []ScopeRequirement `yaml:"matchExpressions"`
}

// ScopeRequirement is an entry of a scope selector's matchExpressions.
type ScopeRequirement struct {
	ScopeName string   `yaml:"scopeName"`
	Operator  string   `yaml:"operator"`
	Values    []string `yaml:"values"`
}
