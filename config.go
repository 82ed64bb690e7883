package gangsim

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gangsim/gangsim/cluster"
	fw "github.com/gangsim/gangsim/framework"
)

// ErrConfig is wrapped by every Config.Validate error.
var ErrConfig = errors.New("gangsim: invalid config")

// Config mirrors the KubeSchedulerConfiguration knobs the simulator
// models. Zero fields take kube-scheduler v1.37's defaults:
//
//   - Profiles: one profile, "default-scheduler", with the default plugins
//     (DefaultProfile). Pods pick a profile by their schedulerName; a pod
//     naming a scheduler no profile has stays pending, as another
//     scheduler's pods do.
//   - PercentageOfNodesToScore: 0, adaptive (50 - nodes/125 percent, at
//     least 5%, at least 100 nodes); 100 scores every feasible node. A
//     profile may override it.
//   - PodInitialBackoff 1s, PodMaxBackoff 10s, MaxUnschedulable 5m.
type Config struct {
	Profiles                 []Profile
	PercentageOfNodesToScore int32
	PodInitialBackoff        time.Duration
	PodMaxBackoff            time.Duration
	MaxUnschedulable         time.Duration
	// MaxCycles is a safety cap for a simulation that never settles: a
	// Run or RunUntil stops with ErrNoProgress after this many cycles at
	// one simulated instant, or this many evictions since the simulation
	// began (over every call). 0 means 100 per pod
	// and group known, at least 100,000. A busy cluster retrying its
	// pending pods for days, or a quiet one waiting for a far event, never
	// reaches it.
	MaxCycles int
	// TerminationGracePeriod is how long an evicted pod keeps its node
	// before it is gone (nil: 30s, the pod default; point to 0 for
	// immediate removal).
	TerminationGracePeriod *time.Duration
	// CheckInvariants runs Scheduler.CheckInvariants after every cycle and
	// timer, and CheckQuiescent when Run ends; a violation stops the run
	// with ErrInvariant. For tests: it costs a pass over the cluster each
	// time.
	CheckInvariants bool
}

// DefaultTerminationGracePeriod is the pod default of Kubernetes.
const DefaultTerminationGracePeriod = 30 * time.Second

func (c Config) gracePeriod() time.Duration {
	if c.TerminationGracePeriod == nil {
		return DefaultTerminationGracePeriod
	}
	return *c.TerminationGracePeriod
}

// clone returns c with its own profiles and pointers; plugin arguments are
// shared.
func (c Config) clone() Config {
	if c.TerminationGracePeriod != nil {
		c.TerminationGracePeriod = new(*c.TerminationGracePeriod)
	}
	c.Profiles = slices.Clone(c.Profiles)
	for i := range c.Profiles {
		p := &c.Profiles[i]
		if p.Plugins != nil {
			p.Plugins = new(p.Plugins.clone())
		}
		p.PluginConfig = slices.Clone(p.PluginConfig)
		if p.PercentageOfNodesToScore != nil {
			p.PercentageOfNodesToScore = new(*p.PercentageOfNodesToScore)
		}
	}
	return c
}

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	if len(c.Profiles) == 0 {
		c.Profiles = []Profile{DefaultProfile()}
	}
	if c.PodInitialBackoff == 0 {
		c.PodInitialBackoff = time.Second
	}
	if c.PodMaxBackoff == 0 {
		c.PodMaxBackoff = 10 * time.Second
	}
	if c.MaxUnschedulable == 0 {
		c.MaxUnschedulable = 5 * time.Minute
	}
	return c
}

// Validate reports the first invalid setting, naming the field. Plugin
// names and arguments are checked against the default registry; New
// checks them against the registry it is given.
func (c Config) Validate() error { return c.validate(DefaultRegistry()) }

func (c Config) validate(reg fw.Registry) error {
	c = c.WithDefaults()
	if c.PercentageOfNodesToScore < 0 || c.PercentageOfNodesToScore > 100 {
		return configError("percentageOfNodesToScore", "%d is not in 0..100", c.PercentageOfNodesToScore)
	}
	if c.PodInitialBackoff < 0 || c.PodMaxBackoff < c.PodInitialBackoff {
		return configError("podInitialBackoff", "%v and podMaxBackoff %v must satisfy 0 <= initial <= max", c.PodInitialBackoff, c.PodMaxBackoff)
	}
	if c.PodMaxBackoff > MaxSimulatedTime {
		return configError("podMaxBackoff", "%v is beyond the largest simulated time, %v", c.PodMaxBackoff, MaxSimulatedTime)
	}
	if c.TerminationGracePeriod != nil && (*c.TerminationGracePeriod < 0 || *c.TerminationGracePeriod > MaxSimulatedTime) {
		return configError("terminationGracePeriod", "%v is not in 0..%v", *c.TerminationGracePeriod, MaxSimulatedTime)
	}
	if c.MaxUnschedulable > MaxSimulatedTime {
		return configError("maxUnschedulable", "%v is beyond the largest simulated time, %v", c.MaxUnschedulable, MaxSimulatedTime)
	}
	if c.MaxCycles < 0 {
		return configError("maxCycles", "%d is negative", c.MaxCycles)
	}
	if c.MaxUnschedulable < 0 {
		return configError("maxUnschedulable", "%v is negative", c.MaxUnschedulable)
	}
	names := map[string]bool{}
	for i := range c.Profiles {
		p := &c.Profiles[i]
		where := fmt.Sprintf("profiles[%d]", i)
		name := p.schedulerName()
		if names[name] {
			return configError(where+".schedulerName", "%q is used by two profiles", name)
		}
		names[name] = true
		if _, err := resolveProfile(p, reg, where); err != nil {
			return err
		}
	}
	return nil
}

// configError returns a Config.Validate error about field.
func configError(field, format string, args ...any) error {
	return &cluster.FieldError{Sentinel: ErrConfig, Field: field, Detail: fmt.Sprintf(format, args...)}
}
