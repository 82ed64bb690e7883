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
	// scaled up after its first timeout (--initial-node-group-backoff-duration);
	// each further timeout doubles it, up to MaxNodeGroupBackoff
	// (--max-node-group-backoff-duration). A node of the group that
	// arrives, or NodeGroupBackoffReset without a timeout
	// (--node-group-backoff-reset-timeout), starts it over.
	NodeGroupBackoff      = 5 * time.Minute
	MaxNodeGroupBackoff   = 30 * time.Minute
	NodeGroupBackoffReset = 3 * time.Hour
	// MinScanInterval is the shortest scan interval Validate takes. The
	// cluster autoscaler's loop never runs faster than its own work takes
	// (a second or more on a real cluster); in simulated time a scan
	// costs nothing, and an interval of nanoseconds would make a run
	// crawl through billions of scans.
	MinScanInterval = time.Second
	// DefaultMaxNodesPerScaleUp bounds the nodes one scale-up asks for
	// (--max-nodes-per-scaleup).
	DefaultMaxNodesPerScaleUp = 1000
	// DefaultMaxBinpackingChecks bounds the work of one group's estimate
	// in one scan: the pod-on-node checks it may make before it stops
	// adding nodes. It stands for --max-nodegroup-binpacking-duration
	// (10s), counted rather than timed so that a run repeats byte for
	// byte; at tens of microseconds a check, 10s is some 300,000.
	DefaultMaxBinpackingChecks = 300_000
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
	if c.MaxNodesPerScaleUp == 0 {
		c.MaxNodesPerScaleUp = DefaultMaxNodesPerScaleUp
	}
	if c.MaxBinpackingChecks == 0 {
		c.MaxBinpackingChecks = DefaultMaxBinpackingChecks
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
	if c.ScanInterval < MinScanInterval {
		return configErr("autoscaler", "scanInterval", "%v is below %v, the shortest scan interval taken", c.ScanInterval, MinScanInterval)
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
	if c.MaxNodesPerScaleUp < 0 {
		return configErr("autoscaler", "maxNodesPerScaleUp", "%d is negative", c.MaxNodesPerScaleUp)
	}
	if c.MaxBinpackingChecks < 0 {
		return configErr("autoscaler", "maxBinpackingChecks", "%d is negative", c.MaxBinpackingChecks)
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
