package schema

import "go.yaml.in/yaml/v3"

// NodeGroup is an entry of nodeGroups: a set of identical nodes the
// cluster autoscaler adds and removes (docs/scenario-format.md, "Node
// groups and the autoscaler").
type NodeGroup struct {
	Line     int           `yaml:"-"`
	Name     string        `yaml:"name"`
	Template *NodeTemplate `yaml:"template"`
	Min      *int          `yaml:"min"`
	Max      *int          `yaml:"max"`
	// ProvisioningDelay is a plain time or a distribution written as a
	// workload's duration (RunTime); the builder decodes it once it knows
	// which.
	ProvisioningDelay *yaml.Node `yaml:"provisioningDelay"`
	PricePerHour      *float64   `yaml:"pricePerHour"`
	RackSize          *int       `yaml:"rackSize"`
	RackLabel         string     `yaml:"rackLabel"`
	Zone              string     `yaml:"zone"`
}

// NodeTemplate is the node every new node of a group copies: a node entry
// without its name and count, and the ResourceSlices each new node
// publishes (without their node).
type NodeTemplate struct {
	Line        int               `yaml:"-"`
	Labels      map[string]string `yaml:"labels"`
	Allocatable map[string]string `yaml:"allocatable"`
	Taints      []Taint           `yaml:"taints"`
	Devices     []ResourceSlice   `yaml:"devices"`
}

// Autoscaler is the file's autoscaler section: the cluster autoscaler's
// flags, camel-cased, each optional (absent: the flag's default).
type Autoscaler struct {
	Line                             int      `yaml:"-"`
	ScanInterval                     string   `yaml:"scanInterval"`
	ScaleDownUnneededTime            string   `yaml:"scaleDownUnneededTime"`
	ScaleDownDelayAfterAdd           string   `yaml:"scaleDownDelayAfterAdd"`
	ScaleDownDelayAfterDelete        string   `yaml:"scaleDownDelayAfterDelete"`
	ScaleDownDelayAfterFailure       string   `yaml:"scaleDownDelayAfterFailure"`
	ScaleDownUtilizationThreshold    *float64 `yaml:"scaleDownUtilizationThreshold"`
	ScaleDownGPUUtilizationThreshold *float64 `yaml:"scaleDownGpuUtilizationThreshold"`
	MaxNodeProvisionTime             string   `yaml:"maxNodeProvisionTime"`
	Expander                         string   `yaml:"expander"`
	// Priorities is the priority expander's table: a priority (an
	// integer, written as a key) to regular expressions over group names.
	Priorities       map[string][]string `yaml:"priorities"`
	MaxNodesTotal    *int                `yaml:"maxNodesTotal"`
	MaxCoresTotal    *int64              `yaml:"maxCoresTotal"`
	MaxMemoryTotal   string              `yaml:"maxMemoryTotal"`
	ScaleDownEnabled *bool               `yaml:"scaleDownEnabled"`
	// MaxNodesPerScaleUp is --max-nodes-per-scaleup; MaxBinpackingChecks
	// the counted stand-in for --max-nodegroup-binpacking-duration.
	MaxNodesPerScaleUp  *int `yaml:"maxNodesPerScaleUp"`
	MaxBinpackingChecks *int `yaml:"maxBinpackingChecks"`
	// Seed seeds the draws of provisioning delays and the random expander.
	Seed *uint64 `yaml:"seed"`
}
