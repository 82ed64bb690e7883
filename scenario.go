package gangsim

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/placement"
	"github.com/gangsim/gangsim/podgroup"
)

// ErrScenario is wrapped by every scenario loading error.
var ErrScenario = errors.New("invalid scenario")

// The scenario file schema (SCENARIO.md). Field tags are the file's names;
// decodeStrict rejects anything else.
type scenarioFile struct {
	Config             *configSpec         `yaml:"config"`
	PriorityClasses    []priorityClassSpec `yaml:"priorityClasses"`
	Nodes              []nodeSpec          `yaml:"nodes"`
	CompositePodGroups []compositeSpec     `yaml:"compositePodGroups"`
	PodGroups          []podGroupSpec      `yaml:"podGroups"`
	Budgets            []budgetSpec        `yaml:"podDisruptionBudgets"`
	Pods               []podSpec           `yaml:"pods"`
	Events             []eventSpec         `yaml:"events"`
}

type configSpec struct {
	ScoringStrategy *struct {
		Type      string         `yaml:"type"`
		Resources []weightedSpec `yaml:"resources"`
	} `yaml:"scoringStrategy"`
	PlacementScore []weightedSpec `yaml:"placementScore"`
	// TerminationGracePeriod extends SCENARIO.md: how long a preemption
	// victim keeps its node ("30s" by default).
	TerminationGracePeriod *string `yaml:"terminationGracePeriod"`
	// PercentageOfNodesToScore extends SCENARIO.md: kube-scheduler's knob
	// (0 adaptive, 100 every node).
	PercentageOfNodesToScore *int32 `yaml:"percentageOfNodesToScore"`
}

type weightedSpec struct {
	Name   string `yaml:"name"`
	Weight int64  `yaml:"weight"`
}

type priorityClassSpec struct {
	Name             string `yaml:"name"`
	Value            int32  `yaml:"value"`
	PreemptionPolicy string `yaml:"preemptionPolicy"`
	GlobalDefault    bool   `yaml:"globalDefault"`
}

type nodeSpec struct {
	Name          string            `yaml:"name"`
	Labels        map[string]string `yaml:"labels"`
	Allocatable   map[string]string `yaml:"allocatable"`
	Taints        []taintSpec       `yaml:"taints"`
	Unschedulable bool              `yaml:"unschedulable"`
	Count         *int              `yaml:"count"`
}

type taintSpec struct {
	Key    string `yaml:"key"`
	Value  string `yaml:"value"`
	Effect string `yaml:"effect"`
}

type groupCommon struct {
	Name              string `yaml:"name"`
	Parent            string `yaml:"parent"`
	TopologyKey       string `yaml:"topologyKey"`
	Priority          *int32 `yaml:"priority"`
	PriorityClassName string `yaml:"priorityClassName"`
	PreemptionPolicy  string `yaml:"preemptionPolicy"`
	DisruptionMode    string `yaml:"disruptionMode"`
}

type compositeSpec struct {
	groupCommon   `yaml:",inline"`
	MinGroupCount *int32 `yaml:"minGroupCount"`
}

type podGroupSpec struct {
	groupCommon `yaml:",inline"`
	MinCount    *int32 `yaml:"minCount"`
}

type budgetSpec struct {
	Name           string            `yaml:"name"`
	Namespace      string            `yaml:"namespace"`
	Selector       map[string]string `yaml:"selector"`
	MinAvailable   *string           `yaml:"minAvailable"`
	MaxUnavailable *string           `yaml:"maxUnavailable"`
}

type podSpec struct {
	Name              string            `yaml:"name"`
	Namespace         string            `yaml:"namespace"`
	Labels            map[string]string `yaml:"labels"`
	Requests          map[string]string `yaml:"requests"`
	Priority          *int32            `yaml:"priority"`
	PriorityClassName string            `yaml:"priorityClassName"`
	PreemptionPolicy  string            `yaml:"preemptionPolicy"`
	SchedulerName     string            `yaml:"schedulerName"`
	PodGroup          string            `yaml:"podGroup"`
	NodeName          string            `yaml:"nodeName"`
	NodeSelector      map[string]string `yaml:"nodeSelector"`
	Affinity          *affinitySpec     `yaml:"affinity"`
	Tolerations       []tolerationSpec  `yaml:"tolerations"`
	At                string            `yaml:"at"`
	Duration          string            `yaml:"duration"`
	Count             *int              `yaml:"count"`
}

// affinitySpec is the Kubernetes shape of required node affinity.
type affinitySpec struct {
	NodeAffinity *struct {
		Required *struct {
			Terms []struct {
				MatchExpressions []struct {
					Key      string   `yaml:"key"`
					Operator string   `yaml:"operator"`
					Values   []string `yaml:"values"`
				} `yaml:"matchExpressions"`
			} `yaml:"nodeSelectorTerms"`
		} `yaml:"requiredDuringSchedulingIgnoredDuringExecution"`
	} `yaml:"nodeAffinity"`
}

type tolerationSpec struct {
	Key      string `yaml:"key"`
	Operator string `yaml:"operator"`
	Value    string `yaml:"value"`
	Effect   string `yaml:"effect"`
}

type eventSpec struct {
	At           string    `yaml:"at"`
	AddNode      *nodeSpec `yaml:"addNode"`
	CordonNode   string    `yaml:"cordonNode"`
	UncordonNode string    `yaml:"uncordonNode"`
	RemoveNode   string    `yaml:"removeNode"`
	DrainNode    string    `yaml:"drainNode"`
	DeletePod    string    `yaml:"deletePod"`
}

// EventKind is what a scenario event does.
type EventKind string

// The scenario events.
const (
	EventAddNode      EventKind = "addNode"
	EventCordonNode   EventKind = "cordonNode"
	EventUncordonNode EventKind = "uncordonNode"
	EventRemoveNode   EventKind = "removeNode"
	EventDrainNode    EventKind = "drainNode"
	EventDeletePod    EventKind = "deletePod"
)

// ScenarioPod is a pod of a scenario with its arrival time and run time.
type ScenarioPod struct {
	Pod      cluster.Pod
	At       time.Duration
	Duration time.Duration // 0: runs until deleted or evicted
}

// ScenarioEvent is a cluster change at a simulated time. Node is set for
// addNode; Name names the node or pod of the others.
type ScenarioEvent struct {
	At   time.Duration
	Kind EventKind
	Node *cluster.Node
	Name string
}

// Scenario is a loaded, validated scenario: a cluster, its workloads, the
// scheduler configuration and timed events. Pods and nodes are expanded
// (count) and listed in input order.
type Scenario struct {
	Name               string
	Config             Config
	PriorityClasses    []cluster.PriorityClass
	Nodes              []cluster.Node
	Budgets            []cluster.PodDisruptionBudget
	CompositePodGroups []podgroup.CompositePodGroup // parents before children
	PodGroups          []podgroup.PodGroup
	Pods               []ScenarioPod
	Events             []ScenarioEvent
}

// LoadScenario reads and validates a scenario file (YAML or JSON).
func LoadScenario(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrScenario, err)
	}
	return ParseScenario(path, data)
}

// ParseScenario validates a scenario given as YAML or JSON text; name
// (usually the file name) prefixes every error, which also names the
// object and field at fault.
func ParseScenario(name string, data []byte) (*Scenario, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrScenario, name, err)
	}
	var f scenarioFile
	if err := decodeStrict(&doc, &f); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrScenario, name, err)
	}
	b := builder{sc: &Scenario{Name: name}, nodeNames: map[string]bool{}, podNames: map[cluster.PodKey]bool{}, groupByKey: map[string]*podgroup.PodGroup{}}
	if err := b.build(&f); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrScenario, name, err)
	}
	return b.sc, nil
}

// builder turns the decoded file into a Scenario, checking references.
type builder struct {
	sc         *Scenario
	classes    cluster.PriorityClasses
	nodeNames  map[string]bool
	podNames   map[cluster.PodKey]bool
	groupByKey map[string]*podgroup.PodGroup
	forest     podgroup.Forest // checks the hierarchy while it is read
}

func (b *builder) build(f *scenarioFile) error {
	steps := []func(*scenarioFile) error{b.config, b.priorityClasses, b.nodes, b.groups, b.budgets, b.pods, b.events}
	for _, step := range steps {
		if err := step(f); err != nil {
			return err
		}
	}
	return nil
}

func (b *builder) config(f *scenarioFile) error {
	if f.Config == nil {
		return nil
	}
	if st := f.Config.ScoringStrategy; st != nil {
		b.sc.Config.ScoringStrategy.Type = placement.ScoringType(st.Type)
		for _, r := range st.Resources {
			b.sc.Config.ScoringStrategy.Resources = append(b.sc.Config.ScoringStrategy.Resources,
				placement.ResourceWeight{Name: cluster.ResourceName(r.Name), Weight: r.Weight})
		}
	}
	if p := f.Config.PercentageOfNodesToScore; p != nil {
		b.sc.Config.PercentageOfNodesToScore = *p
	}
	if g := f.Config.TerminationGracePeriod; g != nil {
		d, err := parseTime(*g)
		if err != nil {
			return fmt.Errorf("config.terminationGracePeriod: %v", err)
		}
		b.sc.Config.TerminationGracePeriod = &d
	}
	for _, p := range f.Config.PlacementScore {
		b.sc.Config.PlacementScorePlugins = append(b.sc.Config.PlacementScorePlugins, PluginWeight{Name: p.Name, Weight: p.Weight})
	}
	if err := b.sc.Config.Validate(); err != nil {
		return fmt.Errorf("config: %v", strings.TrimPrefix(err.Error(), ErrConfig.Error()+": "))
	}
	return nil
}

func (b *builder) priorityClasses(f *scenarioFile) error {
	for i, s := range f.PriorityClasses {
		pc := cluster.PriorityClass{Name: s.Name, Value: s.Value, GlobalDefault: s.GlobalDefault, PreemptionPolicy: cluster.PreemptionPolicy(s.PreemptionPolicy)}
		if err := b.classes.Add(pc); err != nil {
			return fmt.Errorf("priorityClasses[%d] (%s): %v", i, s.Name, err)
		}
		b.sc.PriorityClasses = append(b.sc.PriorityClasses, pc)
	}
	return nil
}

func (b *builder) nodes(f *scenarioFile) error {
	for i := range f.Nodes {
		nodes, err := b.expandNode(&f.Nodes[i], fmt.Sprintf("nodes[%d]", i))
		if err != nil {
			return err
		}
		b.sc.Nodes = append(b.sc.Nodes, nodes...)
	}
	// nodes added by events may be named by later events and pods too
	for i, e := range f.Events {
		if e.AddNode != nil {
			if _, err := b.expandNode(e.AddNode, fmt.Sprintf("events[%d].addNode", i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// expandNode converts a node spec, expanding count, and registers names.
func (b *builder) expandNode(s *nodeSpec, where string) ([]cluster.Node, error) {
	where = fmt.Sprintf("%s (%s)", where, s.Name)
	if s.Name == "" {
		return nil, fmt.Errorf("%s: name: required", where)
	}
	alloc, err := cluster.ParseResources(s.Allocatable)
	if err != nil {
		return nil, fmt.Errorf("%s: allocatable: %v", where, err)
	}
	if _, ok := s.Allocatable[string(cluster.ResourcePods)]; !ok {
		alloc.Pods = defaultPodsPerNode
	}
	n := cluster.Node{Name: s.Name, Labels: s.Labels, Allocatable: alloc, Unschedulable: s.Unschedulable}
	for _, t := range s.Taints {
		n.Taints = append(n.Taints, cluster.Taint{Key: t.Key, Value: t.Value, Effect: cluster.TaintEffect(t.Effect)})
	}
	names, err := expandNames(s.Name, s.Count, where)
	if err != nil {
		return nil, err
	}
	out := make([]cluster.Node, 0, len(names))
	for _, name := range names {
		c := n.Clone()
		c.Name = name
		if err := c.Validate(); err != nil {
			return nil, fmt.Errorf("%s: %v", where, strings.TrimPrefix(err.Error(), cluster.ErrInvalidNode.Error()+" "))
		}
		if b.nodeNames[name] {
			return nil, fmt.Errorf("%s: name: node %q is defined twice", where, name)
		}
		b.nodeNames[name] = true
		out = append(out, c)
	}
	return out, nil
}

// defaultPodsPerNode is the kubelet's default maxPods, used when a node
// does not state its pod capacity.
const defaultPodsPerNode = 110

// maxCount bounds one entry's count, so that a typo cannot exhaust memory.
const maxCount = 1_000_000

// expandNames applies count: name-0 .. name-(count-1), or just name.
func expandNames(name string, count *int, where string) ([]string, error) {
	if count == nil {
		return []string{name}, nil
	}
	if *count < 1 || *count > maxCount {
		return nil, fmt.Errorf("%s: count: %d is not in 1..%d", where, *count, maxCount)
	}
	names := make([]string, *count)
	for i := range names {
		names[i] = name + "-" + strconv.Itoa(i)
	}
	return names, nil
}

func (b *builder) budgets(f *scenarioFile) error {
	for i, s := range f.Budgets {
		where := fmt.Sprintf("podDisruptionBudgets[%d] (%s)", i, s.Name)
		pdb := cluster.PodDisruptionBudget{Name: s.Name, Namespace: s.Namespace, Selector: s.Selector}
		var err error
		if pdb.MinAvailable, err = parseIntOrPercent(s.MinAvailable); err != nil {
			return fmt.Errorf("%s: minAvailable: %v", where, err)
		}
		if pdb.MaxUnavailable, err = parseIntOrPercent(s.MaxUnavailable); err != nil {
			return fmt.Errorf("%s: maxUnavailable: %v", where, err)
		}
		if err := pdb.Validate(); err != nil {
			return fmt.Errorf("%s: %v", where, err)
		}
		b.sc.Budgets = append(b.sc.Budgets, pdb)
	}
	return nil
}

func parseIntOrPercent(s *string) (*cluster.IntOrPercent, error) {
	if s == nil {
		return nil, nil
	}
	text, pct := strings.CutSuffix(*s, "%")
	v, err := strconv.ParseInt(text, 10, 32)
	if err != nil || v < 0 {
		return nil, fmt.Errorf("%q is not a count or a percentage", *s)
	}
	return &cluster.IntOrPercent{Value: int32(v), Percent: pct}, nil
}
