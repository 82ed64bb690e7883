package autoscaler

import (
	"fmt"
	"time"
)

// The cluster autoscaler's defaults (its flags' defaults, v1.3x).
const (
	DefaultScanInterval               = 10 * time.Second
	DefaultScaleDownUnneededTime      = 10 * time.Minute
	DefaultScaleDownDelayAfterAdd     = 10 * time.Minute
	DefaultScaleDownDelayAfterFailure = 3 * time.Minute
	DefaultUtilizationThreshold       = 0.5
	DefaultGPUUtilizationThreshold    = 0.5
	DefaultMaxNodeProvisionTime       = 15 * time.Minute
	DefaultExpander                   = "least-waste"
	// NodeGroupBackoff is how long a group whose nodes timed out is not
	// scaled up (--initial-node-group-backoff-duration).
	NodeGroupBackoff = 5 * time.Minute
	// MaxEmptyBulkDelete is how many empty nodes one scan removes
	// (--max-empty-bulk-delete); MaxDrainParallelism how many non-empty
	// ones (--max-drain-parallelism); NonEmptyCandidates how many
	// non-empty nodes one scan examines for removal
	// (--scale-down-non-empty-candidates-count).
	MaxEmptyBulkDelete  = 10
	MaxDrainParallelism = 1
	NonEmptyCandidates  = 30
)

// Expanders are the expanders Config.Expander may name.
var Expanders = []string{"least-waste", "most-pods", "price", "priority", "random"}

// WithDefaults returns c with every zero field set to its default.
// ScaleDownDelayAfterDelete stays 0: no delay after a deletion beyond
// the next scan, as the flag's 0 means.
func (c Config) WithDefaults() Config {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&c.ScanInterval, DefaultScanInterval)
	def(&c.ScaleDownUnneededTime, DefaultScaleDownUnneededTime)
	def(&c.ScaleDownDelayAfterAdd, DefaultScaleDownDelayAfterAdd)
	def(&c.ScaleDownDelayAfterFailure, DefaultScaleDownDelayAfterFailure)
	def(&c.MaxNodeProvisionTime, DefaultMaxNodeProvisionTime)
	if c.ScaleDownUtilizationThreshold == 0 {
		c.ScaleDownUtilizationThreshold = DefaultUtilizationThreshold
	}
	if c.ScaleDownGPUUtilizationThreshold == 0 {
		c.ScaleDownGPUUtilizationThreshold = DefaultGPUUtilizationThreshold
	}
	if c.Expander == "" {
		c.Expander = DefaultExpander
	}
	return c
}

// Validate rejects negative durations and limits, thresholds outside
// [0, 1] and unknown expanders, naming the field.
func (c Config) Validate() error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"scanInterval", c.ScanInterval}, {"scaleDownUnneededTime", c.ScaleDownUnneededTime},
		{"scaleDownDelayAfterAdd", c.ScaleDownDelayAfterAdd}, {"scaleDownDelayAfterDelete", c.ScaleDownDelayAfterDelete},
		{"scaleDownDelayAfterFailure", c.ScaleDownDelayAfterFailure}, {"maxNodeProvisionTime", c.MaxNodeProvisionTime}} {
		if d.v < 0 {
			return configErr("autoscaler", d.name, "%v is negative", d.v)
		}
	}
	if c.ScanInterval <= 0 {
		return configErr("autoscaler", "scanInterval", "must be positive")
	}
	for _, t := range []struct {
		name string
		v    float64
	}{{"scaleDownUtilizationThreshold", c.ScaleDownUtilizationThreshold}, {"scaleDownGpuUtilizationThreshold", c.ScaleDownGPUUtilizationThreshold}} {
		if t.v < 0 || t.v > 1 || t.v != t.v {
			return configErr("autoscaler", t.name, "%v is not between 0 and 1", t.v)
		}
	}
	if c.MaxNodesTotal < 0 || c.MaxCoresTotal < 0 || c.MaxMemoryTotal < 0 {
		return configErr("autoscaler", "limits", "maxNodesTotal, maxCoresTotal and maxMemoryTotal must not be negative")
	}
	known := false
	for _, e := range Expanders {
		known = known || e == c.Expander
	}
	if !known {
		return configErr("autoscaler", "expander", "%q is none of %v", c.Expander, Expanders)
	}
	if c.Expander == "priority" && len(c.Priorities) == 0 {
		return configErr("autoscaler", "priorities", "the priority expander needs a priority table")
	}
	return nil
}

// String renders the configuration for messages.
func (c Config) String() string {
	return fmt.Sprintf("scan %v, unneeded %v, delay after add %v, threshold %v, expander %s",
		c.ScanInterval, c.ScaleDownUnneededTime, c.ScaleDownDelayAfterAdd, c.ScaleDownUtilizationThreshold, c.Expander)
}
