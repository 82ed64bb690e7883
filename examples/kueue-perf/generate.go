package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The label keys of Kueue's performance runner (its generator.go).
const (
	queueNameLabel = "kueue.x-k8s.io/queue-name"
	classLabel     = "kueue.x-k8s.io/performance-scheduler-class"
)

// defaultFlavor is the ResourceFlavor's name when the configuration gives
// none, as in Kueue's loader.
const defaultFlavor = "rf"

// maxQuota bounds the quota of all ClusterQueues together, in millicores
// (a thousand billion cpu), so that the nodes' sizes stay far from
// overflow.
const maxQuota = 1_000_000_000_000_000

// maxTime is the longest time gangsim's format takes: a hundred years.
const maxTime = 876000 * time.Hour

// cohortName and cqName are the names Kueue's generator gives: the cohort
// "<class>-<index>", the ClusterQueue (and its namespace and LocalQueue)
// "<class>-<queue set index>-<queue index>-<cohort>".
func cohortName(class string, i int) string { return class + "-" + strconv.Itoa(i) }

func cqName(class string, set, i int, cohort string) string {
	return class + "-" + strconv.Itoa(set) + "-" + strconv.Itoa(i) + "-" + cohort
}

// queue is one ClusterQueue with its LocalQueue and namespace of one name.
type queue struct {
	name, cohort, class string
	set                 *queuesSet
}

// workload is one of Kueue's Workloads, here one pod.
type workload struct {
	at        int64 // creation, in milliseconds from the start
	namespace string
	name      string
	t         *template
}

// plan is what a configuration makes, in the order the files list it.
type plan struct {
	flavor    string
	queues    []queue
	cohorts   []cohortObject // Cohort objects (gangsim's extensions), parents first
	fair      []string       // fair sharing's strategies; nil: off (Kueue's perf run)
	fairOn    bool
	workloads []workload // by creation time; at equal times, in generation order
	nodes     int
	nodeCPU   int64 // millicores, a whole number of cores
	nodePods  int64
	// TAS (tas.go): the configuration's topology and flavor, the nodes
	// it makes and their memory
	cfg     *config
	topo    []topoNode
	nodeMem string
}

// cohortObject is a Cohort object: a root parent, or a cohort of a set
// with a parent or a weight.
type cohortObject struct {
	name, parent string
	weight       quantity
}

// options are the command line's changes to a configuration: the nodes
// that share the capacity, a scale (every workload set's count times it
// over the same span, every quota times it: the same load per cpu), and a
// seed (0: Kueue's fixed creation intervals; else each workload set's
// creations are a Poisson process of the same mean interval, drawn from
// that seed).
type options struct {
	nodes int
	scale float64
	seed  uint64
}

// makePlan expands a checked configuration. nodes is the number of nodes
// to share the capacity.
func makePlan(c *config, nodes int) (*plan, error) {
	return makePlanWith(c, options{nodes: nodes, scale: 1})
}

func makePlanWith(c *config, o options) (*plan, error) {
	p := &plan{flavor: defaultFlavor, nodes: o.nodes, cfg: c}
	if c.ResourceFlavor != nil {
		p.flavor = c.ResourceFlavor.Name
	}
	if c.FairSharing != nil {
		p.fairOn, p.fair = true, c.FairSharing.PreemptionStrategies
	}
	scaled := o.scale != 1
	if scaled {
		// a copy, every count and quota scaled, checked again
		c = c.scaled(o.scale)
		if err := c.check(); err != nil {
			return nil, fmt.Errorf("%w: -scale %g: %v", errConfig, o.scale, err)
		}
	}
	seen := map[string]bool{}
	parents := map[string]bool{}
	var quota, maxRequest int64
	for _, cs := range c.Cohorts {
		if cs.ParentName != "" && !parents[cs.ParentName] {
			parents[cs.ParentName] = true
			p.cohorts = append(p.cohorts, cohortObject{name: cs.ParentName})
		}
	}
	for _, cs := range c.Cohorts {
		for ci := range cs.Count {
			cohort := cohortName(cs.ClassName, ci)
			if cs.ParentName != "" || cs.FairWeight != "" {
				p.cohorts = append(p.cohorts, cohortObject{name: cohort, parent: cs.ParentName, weight: cs.FairWeight})
			}
			for qi := range cs.QueuesSets {
				qs := &cs.QueuesSets[qi]
				for i := range qs.Count {
					name := cqName(qs.ClassName, qi, i, cohort)
					if seen[name] {
						return nil, fmt.Errorf("%w: ClusterQueue %s is made twice (two cohort sets of one className make the same names, and Kueue would refuse the second)", errConfig, name)
					}
					seen[name] = true
					p.queues = append(p.queues, queue{name: name, cohort: cohort, class: qs.ClassName, set: qs})
					q, _ := cpu(qs.NominalQuota)
					quota = min(quota+min(q, maxQuota+1), maxQuota+1) // never overflows
					for wi := range qs.WorkloadsSets {
						ws := &qs.WorkloadsSets[wi]
						var rng *rand.Rand
						if o.seed != 0 {
							rng = rand.New(rand.NewPCG(o.seed, uint64(len(p.queues))<<20|uint64(wi)))
						}
						k, at := int64(0), 0.0
						for si := range ws.Count {
							for ti := range ws.Workloads {
								t := &ws.Workloads[ti]
								k++
								// Kueue's generator waits one interval before each creation.
								created := k * ws.CreationIntervalMs
								if rng != nil {
									at += rng.ExpFloat64() * float64(ws.CreationIntervalMs)
									created = int64(math.Min(at, float64(maxTime.Milliseconds())))
								}
								p.workloads = append(p.workloads, workload{
									at:        created,
									namespace: name,
									name:      t.ClassName + "-" + strconv.Itoa(wi) + "-" + strconv.Itoa(si) + "-" + strconv.Itoa(ti),
									t:         t,
								})
								r, _ := cpu(t.Request)
								maxRequest = max(maxRequest, r)
							}
						}
					}
				}
			}
		}
	}
	if quota > maxQuota {
		return nil, fmt.Errorf("%w: the ClusterQueues' nominal quotas add up to more than %d cpu, more than nodes can be made for", errConfig, maxQuota/1000)
	}
	slices.SortStableFunc(p.workloads, func(a, b workload) int { return cmp.Compare(a.at, b.at) })
	if c.Topology != nil {
		// Kueue's nodes: the topology's, of its last level's capacity
		last := c.Topology.Levels[len(c.Topology.Levels)-1]
		p.topo = p.topologyNodes(c)
		p.nodes = len(p.topo)
		p.nodeCPU, _ = cpu(cmpOr(last.Capacity.CPU, "96"))
		p.nodeMem = string(cmpOr(last.Capacity.Memory, "256Gi"))
		p.nodePods = 110
		return p, nil
	}
	// Twice the quota of all ClusterQueues, the most Kueue can admit at
	// once, so that nodes never hold a pod back; at least the largest request.
	perNode := max((2*quota+int64(o.nodes)-1)/int64(o.nodes), maxRequest)
	p.nodeCPU = (perNode + 999) / 1000 * 1000
	p.nodePods = max(110, (int64(len(p.workloads))+int64(o.nodes)-1)/int64(o.nodes))
	return p, nil
}

func cmpOr(q, d quantity) quantity {
	if q == "" {
		return d
	}
	return q
}

// scaled is a copy of the configuration with every workload set's count
// times f over the same span (the interval divided by f) and every quota
// times f, in millicores.
func (c *config) scaled(f float64) *config {
	out := *c
	out.Cohorts = slices.Clone(c.Cohorts)
	times := func(q quantity) quantity {
		if q == "" {
			return q
		}
		m, _ := cpu(q)
		return quantity(strconv.FormatInt(int64(math.Round(float64(m)*f)), 10) + "m")
	}
	for i := range out.Cohorts {
		cs := &out.Cohorts[i]
		cs.QueuesSets = slices.Clone(cs.QueuesSets)
		for j := range cs.QueuesSets {
			qs := &cs.QueuesSets[j]
			qs.NominalQuota, qs.BorrowingLimit = times(qs.NominalQuota), times(qs.BorrowingLimit)
			qs.WorkloadsSets = slices.Clone(qs.WorkloadsSets)
			for k := range qs.WorkloadsSets {
				ws := &qs.WorkloadsSets[k]
				if ws.Count > 0 {
					ws.Count = max(1, int(math.Round(float64(ws.Count)*f)))
				}
				ws.CreationIntervalMs = int64(math.Round(float64(ws.CreationIntervalMs) / f))
			}
		}
	}
	return &out
}

// writeKueue writes the Kubernetes objects: Kueue's Configuration, the
// ResourceFlavor, and per ClusterQueue its namespace and LocalQueue.
func (p *plan) writeKueue(w io.Writer) error {
	b := bufio.NewWriter(w)
	if p.fairOn || len(p.cohorts) > 0 {
		p.writeFairHead(b)
	} else {
		fmt.Fprintf(b, `# Kueue's objects of a performance configuration, written by examples/kueue-perf.
# Kueue's perf run starts its scheduler with an empty Configuration: no
# waitForPodsReady (which Kueue's v1beta2 defaults would turn on: the gate
# DisableWaitForPodsReady turns it off), no fair sharing; its API client is
# limited to 50 queries a second in bursts of 100. The pod integration
# makes each pod of workloads.json a Workload of its own.
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
clientConnection: {qps: 50, burst: 100}
featureGates: {DisableWaitForPodsReady: true}
integrations:
  frameworks: [pod]
`)
	}
	if t := p.cfg.Topology; t != nil {
		fmt.Fprintf(b, "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\nmetadata:\n  name: %s\nspec:\n  levels:\n", t.Name)
		for _, l := range t.Levels {
			fmt.Fprintf(b, "  - nodeLabel: %s\n", l.NodeLabel)
		}
	}
	fmt.Fprintf(b, "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata:\n  name: %s\n", p.flavor)
	if t := p.cfg.Topology; t != nil {
		fmt.Fprintf(b, "spec:\n  nodeLabels: {%s: tas}\n  topologyName: %s\n", p.cfg.ResourceFlavor.NodeLabel, t.Name)
	}
	for _, c := range p.cohorts {
		fmt.Fprintf(b, "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata:\n  name: %s\n", c.name)
		if c.parent != "" || c.weight != "" {
			b.WriteString("spec:\n")
		}
		if c.parent != "" {
			fmt.Fprintf(b, "  parentName: %s\n", c.parent)
		}
		if c.weight != "" {
			fmt.Fprintf(b, "  fairSharing: {weight: %s}\n", strconv.Quote(string(c.weight)))
		}
	}
	for _, q := range p.queues {
		fmt.Fprintf(b, `---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: %s
  labels:
    %s: %s
spec:
  cohortName: %s
  namespaceSelector: {}
  queueingStrategy: BestEffortFIFO
  flavorFungibility:
    whenCanBorrow: MayStopSearch
    whenCanPreempt: TryNextFlavor
`, q.name, classLabel, q.class, q.cohort)
		if q.set.ReclaimWithinCohort != "" || q.set.WithinClusterQueue != "" {
			b.WriteString("  preemption:\n")
			if q.set.ReclaimWithinCohort != "" {
				fmt.Fprintf(b, "    reclaimWithinCohort: %s\n", q.set.ReclaimWithinCohort)
			}
			if q.set.WithinClusterQueue != "" {
				fmt.Fprintf(b, "    withinClusterQueue: %s\n", q.set.WithinClusterQueue)
			}
		}
		fmt.Fprintf(b, `  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: %s
      resources:
      - name: cpu
        nominalQuota: %s
`, p.flavor, strconv.Quote(string(q.set.NominalQuota)))
		if q.set.BorrowingLimit != "" {
			fmt.Fprintf(b, "        borrowingLimit: %s\n", strconv.Quote(string(q.set.BorrowingLimit)))
		}
		if q.set.FairWeight != "" {
			fmt.Fprintf(b, "  fairSharing: {weight: %s}\n", strconv.Quote(string(q.set.FairWeight)))
		}
		fmt.Fprintf(b, `---
apiVersion: v1
kind: Namespace
metadata:
  name: %s
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: %s
  namespace: %s
spec:
  clusterQueue: %s
`, q.name, q.name, q.name, q.name)
	}
	return b.Flush()
}

// writeFairHead writes the Configuration and the ResourceFlavor of a
// configuration using gangsim's extensions: Kueue's perf run's
// Configuration, with fair sharing when asked.
func (p *plan) writeFairHead(b *bufio.Writer) {
	fair := ""
	if p.fairOn {
		fair = "fairSharing: {}\n"
		if len(p.fair) > 0 {
			fair = "fairSharing: {preemptionStrategies: [" + strings.Join(p.fair, ", ") + "]}\n"
		}
	}
	fmt.Fprintf(b, `# Kueue's objects of a configuration using gangsim's extensions (fair
# sharing, parent cohorts, weights), written by examples/kueue-perf.
# The Configuration is Kueue's perf run's (no waitForPodsReady, an API
# client limited to 50 queries a second in bursts of 100, the pod
# integration), with fair sharing when the configuration asks for it.
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
clientConnection: {qps: 50, burst: 100}
featureGates: {DisableWaitForPodsReady: true}
integrations:
  frameworks: [pod]
%s`, fair)
}

// The scenario file's entries, with the format's field names.
type scenarioPod struct {
	Name              string            `json:"name"`
	Namespace         string            `json:"namespace"`
	Labels            map[string]string `json:"labels"`
	Requests          map[string]string `json:"requests"`
	PriorityClassName string            `json:"priorityClassName"`
	At                string            `json:"at"`
	Duration          string            `json:"duration"`
	Annotations       map[string]string `json:"annotations,omitempty"`
}

type priorityClass struct {
	Name  string `json:"name"`
	Value int64  `json:"value"`
}

type node struct {
	Name        string            `json:"name"`
	Count       int               `json:"count,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Allocatable map[string]string `json:"allocatable"`
}

// A Kueue pod group's name (a label) and total count (an annotation).
const (
	podGroupLabel = "kueue.x-k8s.io/pod-group-name"
	podGroupCount = "kueue.x-k8s.io/pod-group-total-count"
)

// writeNodes writes the nodes: -nodes alike, or a topology's, one a line.
func (p *plan) writeNodes(b *bufio.Writer) {
	if p.topo == nil {
		line, _ := json.Marshal(node{Name: "node", Count: p.nodes, Allocatable: map[string]string{
			"cpu":  strconv.FormatInt(p.nodeCPU/1000, 10),
			"pods": strconv.FormatInt(p.nodePods, 10),
		}})
		b.Write(line)
		return
	}
	alloc := map[string]string{"cpu": strconv.FormatInt(p.nodeCPU/1000, 10), "memory": p.nodeMem, "pods": strconv.FormatInt(p.nodePods, 10)}
	for i, n := range p.topo {
		if i > 0 {
			b.WriteString(",\n")
		}
		line, _ := json.Marshal(node{Name: n.name, Labels: n.labels, Allocatable: alloc})
		b.Write(line)
	}
}

// priorityClassName names the PriorityClass of a priority: priority-50,
// priority-minus-5.
func priorityClassName(v int64) string {
	if v < 0 {
		return "priority-minus-" + strconv.FormatInt(-v, 10)
	}
	return "priority-" + strconv.FormatInt(v, 10)
}

// writeScenario writes the scenario file: the nodes, a PriorityClass per
// priority, and one pod per workload, one a line, by creation time.
func (p *plan) writeScenario(w io.Writer) error {
	b := bufio.NewWriter(w)
	var values []int64
	for _, wl := range p.workloads {
		values = append(values, wl.t.Priority)
	}
	slices.Sort(values)
	values = slices.Compact(values)
	b.WriteString("{\n\"config\": {\"terminationGracePeriod\": \"0s\"},\n\"priorityClasses\": [")
	for i, v := range values {
		if i > 0 {
			b.WriteString(",")
		}
		line, _ := json.Marshal(priorityClass{Name: priorityClassName(v), Value: v})
		b.WriteString("\n")
		b.Write(line)
	}
	b.WriteString("\n],\n\"nodes\": [\n")
	p.writeNodes(b)
	b.WriteString("\n],\n\"pods\": [")
	first := true
	for _, wl := range p.workloads {
		n := podsOf(wl.t)
		for k := range n {
			if !first {
				b.WriteString(",")
			}
			first = false
			sp := scenarioPod{
				Name:              wl.name,
				Namespace:         wl.namespace,
				Labels:            map[string]string{queueNameLabel: wl.namespace, classLabel: wl.t.ClassName},
				Requests:          map[string]string{"cpu": string(wl.t.Request)},
				PriorityClassName: priorityClassName(wl.t.Priority),
				At:                ms(wl.at),
				Duration:          ms(wl.t.RuntimeMs),
				Annotations:       tasAnnotations(wl.t),
			}
			if n > 1 { // a Kueue pod group, one Workload
				sp.Name = wl.name + "-" + strconv.Itoa(k)
				sp.Labels[podGroupLabel] = wl.name
				ann := maps.Clone(sp.Annotations) // Kueue reads the count as an annotation
				if ann == nil {
					ann = map[string]string{}
				}
				ann[podGroupCount] = strconv.Itoa(n)
				sp.Annotations = ann
			}
			line, err := json.Marshal(sp)
			if err != nil {
				return err
			}
			b.WriteString("\n")
			b.Write(line)
		}
	}
	b.WriteString("\n]\n}\n")
	return b.Flush()
}

// ms writes milliseconds as a Go duration: 1200 is 1.2s.
func ms(n int64) string { return (time.Duration(n) * time.Millisecond).String() }
