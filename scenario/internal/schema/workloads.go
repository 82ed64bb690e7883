package schema

import "go.yaml.in/yaml/v3"

// Workload is one entry of the workloads list: a template standing for
// many pods, or many PodGroups with their pods (docs/scenario-format.md,
// "Workload templates").
type Workload struct {
	Line     int     `yaml:"-"`
	Name     string  `yaml:"name"`
	Replicas *int    `yaml:"replicas"`
	Seed     *uint64 `yaml:"seed"`
	// Arrival and Duration are a mapping, or for Duration a plain time
	// (a fixed run time); the builder decodes them as Arrival and RunTime
	// once it knows which.
	Arrival  *yaml.Node     `yaml:"arrival"`
	Duration *yaml.Node     `yaml:"duration"`
	Sizes    []Size         `yaml:"sizes"`
	Pod      *Pod           `yaml:"pod"`
	Group    *GroupTemplate `yaml:"group"`
}

// Size is one size choice: requests replacing the template's (per
// resource), and for group workloads the pods per group and minCount.
type Size struct {
	Line     int               `yaml:"-"`
	Weight   *int              `yaml:"weight"`
	Requests map[string]string `yaml:"requests"`
	Pods     *int              `yaml:"pods"`
	MinCount *int32            `yaml:"minCount"`
}

// GroupTemplate is a PodGroup entry without its name, plus the number of
// pods each group has.
type GroupTemplate struct {
	PodGroup `yaml:",inline"`
	Pods     *int `yaml:"pods"`
}

// Arrival is a workload's arrival process: exactly one of every (a fixed
// interval), rate (a Poisson process: "12/h") and at (a list).
type Arrival struct {
	Line  int      `yaml:"-"`
	Start string   `yaml:"start"`
	Every string   `yaml:"every"`
	Rate  string   `yaml:"rate"`
	At    []string `yaml:"at"`
}

// RunTime is a run-time distribution: exactly one of fixed, exponential
// (its mean) and logNormal, with an optional cap.
type RunTime struct {
	Line        int        `yaml:"-"`
	Fixed       string     `yaml:"fixed"`
	Exponential string     `yaml:"exponential"`
	LogNormal   *LogNormal `yaml:"logNormal"`
	Max         string     `yaml:"max"`
}

// LogNormal is a log-normal distribution by its median and the standard
// deviation of its logarithm.
type LogNormal struct {
	Median string  `yaml:"median"`
	Sigma  float64 `yaml:"sigma"`
}
