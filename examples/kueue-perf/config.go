package main

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gangsim/gangsim/cluster"
)

// configs holds Kueue's two performance configurations, copied value for
// value from its repository (doc.go says where).
//
//go:embed configs/*.yaml
var configs embed.FS

// builtIn names the embedded configurations, as -config takes them:
// Kueue's three, and gangsim's fair-sharing day (doc.go, "A fair-sharing
// day").
var builtIn = []string{"baseline", "large-scale", "tas", "fair-day"}

// errConfig is a configuration the tool refuses; the message names the
// file and the field.
var errConfig = errors.New("kueue-perf: invalid config")

// config is Kueue's generator configuration: cohort sets, each of queue
// sets, each of workload sets, each of workload templates. The field
// names are the YAML keys of Kueue's generator.
type config struct {
	Cohorts []cohortSet `yaml:"cohorts"`
	// ResourceFlavor names the one flavor every ClusterQueue uses; Kueue
	// calls it "rf" when the file gives none. With a topology, its nodes
	// carry the label nodeLabel=tas and it names the Topology (tas.go).
	ResourceFlavor *struct {
		Name         string `yaml:"name"`
		NodeLabel    string `yaml:"nodeLabel"`
		TopologyName string `yaml:"topologyName"`
	} `yaml:"resourceFlavor"`
	// Topology is Kueue's TAS variant: the levels of the nodes it makes
	// (tas.go).
	Topology *topologyConfig `yaml:"topology"`
	// FairSharing is a gangsim extension, not in Kueue's format: Kueue's
	// Configuration gets a fairSharing section with these preemption
	// strategies (none: Kueue's default pair).
	FairSharing *struct {
		PreemptionStrategies []string `yaml:"preemptionStrategies"`
	} `yaml:"fairSharing"`
}

type cohortSet struct {
	ClassName  string      `yaml:"className"`
	Count      int         `yaml:"count"`
	QueuesSets []queuesSet `yaml:"queuesSets"`
	// ParentName and FairWeight are gangsim extensions: the set's cohorts
	// become Cohort objects under a root Cohort of that name, with that
	// fair-sharing weight.
	ParentName string   `yaml:"parentName"`
	FairWeight quantity `yaml:"fairWeight"`
}

type queuesSet struct {
	ClassName           string         `yaml:"className"`
	Count               int            `yaml:"count"`
	NominalQuota        quantity       `yaml:"nominalQuota"`
	BorrowingLimit      quantity       `yaml:"borrowingLimit"`
	ReclaimWithinCohort string         `yaml:"reclaimWithinCohort"`
	WithinClusterQueue  string         `yaml:"withinClusterQueue"`
	WorkloadsSets       []workloadsSet `yaml:"workloadsSets"`
	// FairWeight is a gangsim extension: the ClusterQueues' fair-sharing
	// weight.
	FairWeight quantity `yaml:"fairWeight"`
}

type workloadsSet struct {
	Count              int        `yaml:"count"`
	CreationIntervalMs int64      `yaml:"creationIntervalMs"`
	Workloads          []template `yaml:"workloads"`
}

type template struct {
	ClassName string   `yaml:"className"`
	RuntimeMs int64    `yaml:"runtimeMs"`
	Priority  int64    `yaml:"priority"`
	Request   quantity `yaml:"request"`
	// The TAS fields of Kueue's generator (tas.go): the pods of a
	// workload (1 when 0), and its topology constraint (required,
	// preferred, or balanced: slices of sliceSize pods in a tasLevel
	// domain each).
	PodCount      int    `yaml:"podCount"`
	TASConstraint string `yaml:"tasConstraint"`
	TASLevel      string `yaml:"tasLevel"`
	SliceSize     int    `yaml:"sliceSize"`
}

// quantity is a Kubernetes quantity written as a YAML string or number
// (Kueue's loader takes `nominalQuota: 20` and `"20"` alike).
type quantity string

func (q *quantity) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: a quantity must be a string or a number", n.Line)
	}
	*q = quantity(n.Value)
	return nil
}

// loadConfig reads -config: a built-in name or a file.
func loadConfig(name string) (*config, string, error) {
	for _, b := range builtIn {
		if name == b {
			data, err := configs.ReadFile("configs/" + b + ".yaml")
			if err != nil {
				return nil, "", err
			}
			c, err := parseConfig(b+".yaml", data)
			return c, b, err
		}
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, "", fmt.Errorf("%w: -config: not baseline, large-scale, tas, fair-day or a file that can be read: %w", errConfig, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfigSize+1))
	if err != nil {
		return nil, "", fmt.Errorf("%w: %w", errConfig, err)
	}
	if len(data) > maxConfigSize {
		return nil, "", fmt.Errorf("%w: %s: larger than %d MiB", errConfig, cluster.Printable(name), maxConfigSize>>20)
	}
	c, err := parseConfig(name, data)
	return c, name, err
}

// parseConfig reads a generator configuration strictly (an unknown field
// is an error) and checks it; errors name the file and the field.
func parseConfig(file string, data []byte) (*config, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var c config
	if err := dec.Decode(&c); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: %s: empty file", errConfig, cluster.Printable(file))
		}
		return nil, fmt.Errorf("%w: %s: %v", errConfig, cluster.Printable(file), err)
	}
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", errConfig, cluster.Printable(file), err)
	}
	return &c, nil
}

// dnsLabel is a Kubernetes DNS label: a namespace's name, and so a
// ClusterQueue's here, since the generator names each namespace after its
// ClusterQueue.
var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// maxUserPriority is the highest value of a PriorityClass that is not a
// system one.
const maxUserPriority = 1_000_000_000

// maxConfigSize bounds a configuration file; Kueue's are a few hundred
// bytes.
const maxConfigSize = 16 << 20

// maxCount bounds every count so that the products stay far from
// overflow; gangsim's own limit (10,000,000 pods) comes first anyway.
const maxCount = 10_000_000

// maxQueues bounds the ClusterQueues (a hundred times large-scale's), each
// of which is a few hundred bytes of kueue.yaml.
const maxQueues = 100_000

func (c *config) check() error {
	if err := c.checkTopology(); err != nil {
		return err
	}
	if rf := c.ResourceFlavor; rf != nil {
		if !dnsLabel.MatchString(rf.Name) {
			return fmt.Errorf("resourceFlavor.name: %q is not a DNS label", cluster.Printable(rf.Name))
		}
	}
	if len(c.Cohorts) == 0 {
		return errors.New("cohorts: at least one cohort set is needed, as Kueue's loader requires")
	}
	if fs := c.FairSharing; fs != nil {
		for i, s := range fs.PreemptionStrategies {
			if s != "LessThanOrEqualToFinalShare" && s != "LessThanInitialShare" {
				return fmt.Errorf("fairSharing.preemptionStrategies[%d]: %q is not LessThanOrEqualToFinalShare or LessThanInitialShare", i, cluster.Printable(s))
			}
		}
	}
	made := map[string]bool{} // the cohorts' names, which no parent may take
	for _, cs := range c.Cohorts {
		if cs.Count > 0 && cs.Count <= maxCount {
			made[cs.ClassName+"-"] = true
		}
	}
	pods, queues := 0, 0
	for ci, cs := range c.Cohorts {
		at := fmt.Sprintf("cohorts[%d]", ci)
		if err := checkCount(at, cs.Count); err != nil {
			return err
		}
		if cs.ParentName != "" {
			if len(cs.ParentName) > 63 || !dnsLabel.MatchString(cs.ParentName) {
				return fmt.Errorf("%s.parentName: %q is not a DNS label", at, cluster.Printable(cs.ParentName))
			}
			for prefix := range made {
				if rest, ok := strings.CutPrefix(cs.ParentName, prefix); ok && rest != "" && strings.Trim(rest, "0123456789") == "" {
					return fmt.Errorf("%s.parentName: %q is the name of a cohort the configuration makes", at, cs.ParentName)
				}
			}
		}
		if err := checkWeight(at, cs.FairWeight); err != nil {
			return err
		}
		for qi, qs := range cs.QueuesSets {
			at := fmt.Sprintf("%s.queuesSets[%d]", at, qi)
			if err := checkCount(at, qs.Count); err != nil {
				return err
			}
			if n := float64(cs.Count)*float64(qs.Count) + float64(queues); n > maxQueues {
				return fmt.Errorf("%s.count: more than %d ClusterQueues in all", at, maxQueues)
			}
			queues += cs.Count * qs.Count
			if qs.Count > 0 && cs.Count > 0 {
				// The longest name the set makes: its last queue of its last cohort.
				name := cqName(qs.ClassName, qi, qs.Count-1, cohortName(cs.ClassName, cs.Count-1))
				if len(name) > 63 || !dnsLabel.MatchString(name) {
					return fmt.Errorf("%s.className: ClusterQueue and namespace %q would not be a DNS label (lower case letters, digits and '-', at most 63)", at, cluster.Printable(name))
				}
				if p := cluster.LabelValueProblem(qs.ClassName); p != "" {
					return fmt.Errorf("%s.className: %q is not a label value: %s", at, cluster.Printable(qs.ClassName), p)
				}
			}
			if qs.NominalQuota == "" {
				return fmt.Errorf("%s.nominalQuota: missing", at)
			}
			if _, err := cpu(qs.NominalQuota); err != nil {
				return fmt.Errorf("%s.nominalQuota: %v", at, err)
			}
			if qs.BorrowingLimit != "" {
				if _, err := cpu(qs.BorrowingLimit); err != nil {
					return fmt.Errorf("%s.borrowingLimit: %v", at, err)
				}
			}
			switch qs.ReclaimWithinCohort {
			case "", "Never", "LowerPriority", "Any":
			default:
				return fmt.Errorf("%s.reclaimWithinCohort: %q is not Never, LowerPriority or Any", at, cluster.Printable(qs.ReclaimWithinCohort))
			}
			switch qs.WithinClusterQueue {
			case "", "Never", "LowerPriority", "LowerOrNewerEqualPriority":
			default:
				return fmt.Errorf("%s.withinClusterQueue: %q is not Never, LowerPriority or LowerOrNewerEqualPriority", at, cluster.Printable(qs.WithinClusterQueue))
			}
			if err := checkWeight(at, qs.FairWeight); err != nil {
				return err
			}
			for wi, ws := range qs.WorkloadsSets {
				at := fmt.Sprintf("%s.workloadsSets[%d]", at, wi)
				if err := checkCount(at, ws.Count); err != nil {
					return err
				}
				if ws.CreationIntervalMs < 0 {
					return fmt.Errorf("%s.creationIntervalMs: %d is negative", at, ws.CreationIntervalMs)
				}
				// The last creation, (count × templates) intervals in, must stay within a hundred years.
				if last := float64(ws.Count) * float64(len(ws.Workloads)) * float64(ws.CreationIntervalMs); last > float64(maxTime.Milliseconds()) {
					return fmt.Errorf("%s.creationIntervalMs: the last workload would be created after a hundred years", at)
				}
				for ti, t := range ws.Workloads {
					at := fmt.Sprintf("%s.workloads[%d]", at, ti)
					if err := t.check(at); err != nil {
						return err
					}
					if err := c.checkTAS(&t, at); err != nil {
						return err
					}
				}
				perRound := 0.0 // the pods of one repetition of the set
				for ti := range ws.Workloads {
					perRound += float64(podsOf(&ws.Workloads[ti]))
				}
				n := float64(cs.Count) * float64(qs.Count) * float64(ws.Count) * perRound
				if n+float64(pods) > maxCount {
					return fmt.Errorf("%s.count: more than %d pods in all", at, maxCount)
				}
				pods += int(n)
			}
		}
	}
	return nil
}

func (t template) check(at string) error {
	if !dnsLabel.MatchString(t.ClassName) || len(t.ClassName) > 40 {
		return fmt.Errorf("%s.className: %q must be a DNS label of at most 40 characters: it begins each workload's name", at, cluster.Printable(t.ClassName))
	}
	if t.RuntimeMs <= 0 {
		return fmt.Errorf("%s.runtimeMs: %d: must be at least 1 (gangsim's pods take a run time of 0 as none: they would never end)", at, t.RuntimeMs)
	}
	if t.RuntimeMs > maxTime.Milliseconds() {
		return fmt.Errorf("%s.runtimeMs: %d is beyond a hundred years", at, t.RuntimeMs)
	}
	if t.Priority < math.MinInt32 || t.Priority > maxUserPriority {
		return fmt.Errorf("%s.priority: %d is outside the range of a PriorityClass that is not a system one (-2147483648 to 1000000000)", at, t.Priority)
	}
	if t.Request == "" {
		return fmt.Errorf("%s.request: missing", at)
	}
	if _, err := cpu(t.Request); err != nil {
		return fmt.Errorf("%s.request: %v", at, err)
	}
	if t.PodCount < 0 || t.PodCount > maxPodCount {
		return fmt.Errorf("%s.podCount: %d: from 0 (one pod) to %d", at, t.PodCount, maxPodCount)
	}
	return nil
}

// checkWeight checks a fair-sharing weight: a quantity of at least 0, at
// most a million.
func checkWeight(at string, w quantity) error {
	if w == "" {
		return nil
	}
	m, err := cpu(w)
	if err != nil {
		return fmt.Errorf("%s.fairWeight: %v", at, err)
	}
	if m > 1_000_000_000 {
		return fmt.Errorf("%s.fairWeight: %s is more than a million", at, cluster.Printable(string(w)))
	}
	return nil
}

func checkCount(at string, n int) error {
	if n < 0 {
		return fmt.Errorf("%s.count: %d is negative", at, n)
	}
	if n > maxCount {
		return fmt.Errorf("%s.count: %d is more than %d", at, n, maxCount)
	}
	return nil
}

// cpu reads a quantity of cpu in millicores, refusing a negative one.
func cpu(q quantity) (int64, error) {
	m, err := cluster.ParseResourceQuantity(cluster.ResourceCPU, string(q))
	if err != nil {
		return 0, errors.New(strings.TrimPrefix(err.Error(), cluster.ErrQuantity.Error()+": "))
	}
	if m < 0 {
		return 0, fmt.Errorf("%q is negative", cluster.Printable(string(q)))
	}
	return m, nil
}
