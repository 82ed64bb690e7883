package main

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gangsim/gangsim/cluster"
)

// Kueue's TAS configuration (configs/tas.yaml, Kueue's
// test/performance/scheduler/configs/tas/generator.yaml): a Topology of
// levels, each `count` domains under each domain of the level above, the
// last level's domains being nodes of the capacity it gives (96 cpu and
// 256Gi by default, 110 pods), as Kueue's
// runner/generator/topology_generator.go makes them: the node
// "node-b0-r2-n15" has the label <level nodeLabel>=<level name>-<index>
// for each level and <resourceFlavor nodeLabel>=tas. A workload of
// podCount pods is a Kueue pod group of that many pods
// (kueue.x-k8s.io/pod-group-name, pod-group-total-count), its pods named
// <workload>-<index>, carrying the topology annotation of its
// tasConstraint: required and preferred name tasLevel,
// kueue.x-k8s.io/podset-required-topology or -preferred-topology;
// balanced is a slice request, podset-slice-required-topology tasLevel
// with podset-slice-size sliceSize (Kueue's generator writes it so).
//
// One difference is chosen: Kueue's generator sets the lowest level's
// label (kubernetes.io/hostname in the tas configuration) to
// "<level name>-<index>", the same in every rack, so ten nodes share a
// hostname and Kueue's TAS cache makes them one leaf; here each node's
// hostname is its own name, as on a real cluster, so that the pods Kueue
// places on a host go to that one node.

// maxPodCount bounds a workload's pods.
const maxPodCount = 10_000

// maxNodes bounds the nodes a topology makes.
const maxNodes = 100_000

// topologyConfig is the topology section of Kueue's generator.
type topologyConfig struct {
	Name   string          `yaml:"name"`
	Levels []topologyLevel `yaml:"levels"`
}

type topologyLevel struct {
	Name      string `yaml:"name"`
	Count     int    `yaml:"count"`
	NodeLabel string `yaml:"nodeLabel"`
	Capacity  struct {
		CPU    quantity `yaml:"cpu"`
		Memory quantity `yaml:"memory"`
	} `yaml:"capacity"`
}

const hostnameLabel = "kubernetes.io/hostname"

// checkTopology checks the topology and the flavor's TAS fields as
// Kueue's generator and webhooks take them.
func (c *config) checkTopology() error {
	rf := c.ResourceFlavor
	t := c.Topology
	if t == nil {
		if rf != nil && (rf.NodeLabel != "" || rf.TopologyName != "") {
			return errors.New("resourceFlavor: nodeLabel and topologyName need a topology section")
		}
		return nil
	}
	if !dnsLabel.MatchString(t.Name) {
		return fmt.Errorf("topology.name: %q is not a DNS label", cluster.Printable(t.Name))
	}
	if len(t.Levels) < 2 || len(t.Levels) > 16 {
		return fmt.Errorf("topology.levels: %d levels: from 2 (Kueue's generator needs a node level) to 16", len(t.Levels))
	}
	nodes := 1.0
	seen := map[string]bool{}
	for i, l := range t.Levels {
		at := fmt.Sprintf("topology.levels[%d]", i)
		if l.Count < 1 {
			return fmt.Errorf("%s.count: %d: at least 1", at, l.Count)
		}
		nodes *= float64(l.Count)
		if nodes > maxNodes {
			return fmt.Errorf("%s.count: more than %d nodes in all", at, maxNodes)
		}
		if p := cluster.LabelKeyProblem(l.NodeLabel); p != "" {
			return fmt.Errorf("%s.nodeLabel: %q: %s", at, cluster.Printable(l.NodeLabel), p)
		}
		if seen[l.NodeLabel] {
			return fmt.Errorf("%s.nodeLabel: %q is the label of an earlier level", at, l.NodeLabel)
		}
		seen[l.NodeLabel] = true
		if !dnsLabel.MatchString(l.Name) || len(l.Name) > 40 {
			return fmt.Errorf("%s.name: %q must be a DNS label of at most 40 characters (it names the level's domains)", at, cluster.Printable(l.Name))
		}
		if l.NodeLabel == hostnameLabel && i != len(t.Levels)-1 {
			return fmt.Errorf("%s.nodeLabel: %s must be the last level, as Kueue's Topology requires", at, hostnameLabel)
		}
	}
	last := t.Levels[len(t.Levels)-1]
	for _, q := range []struct {
		field string
		v     quantity
		r     cluster.ResourceName
	}{{"cpu", last.Capacity.CPU, cluster.ResourceCPU}, {"memory", last.Capacity.Memory, cluster.ResourceMemory}} {
		if q.v == "" {
			continue
		}
		if v, err := cluster.ParseResourceQuantity(q.r, string(q.v)); err != nil || v <= 0 {
			return fmt.Errorf("topology.levels[%d].capacity.%s: %q is not a positive quantity", len(t.Levels)-1, q.field, cluster.Printable(string(q.v)))
		}
	}
	if rf == nil || rf.TopologyName != t.Name {
		return fmt.Errorf("resourceFlavor.topologyName: must name the topology %q", t.Name)
	}
	if p := cluster.LabelKeyProblem(rf.NodeLabel); p != "" {
		return fmt.Errorf("resourceFlavor.nodeLabel: %q: %s (Kueue's generator requires it with a topology)", cluster.Printable(rf.NodeLabel), p)
	}
	if seen[rf.NodeLabel] {
		return fmt.Errorf("resourceFlavor.nodeLabel: %q is a level's label", rf.NodeLabel)
	}
	return nil
}

// checkTAS checks a template's TAS fields against the topology.
func (c *config) checkTAS(t *template, at string) error {
	if t.TASConstraint == "" && t.TASLevel == "" && t.SliceSize == 0 {
		return nil
	}
	if c.Topology == nil {
		return fmt.Errorf("%s: tasConstraint, tasLevel and sliceSize need a topology section", at)
	}
	switch t.TASConstraint {
	case "required", "preferred", "balanced":
	default:
		return fmt.Errorf("%s.tasConstraint: %q is not required, preferred or balanced", at, cluster.Printable(t.TASConstraint))
	}
	if !slices.ContainsFunc(c.Topology.Levels, func(l topologyLevel) bool { return l.NodeLabel == t.TASLevel }) {
		return fmt.Errorf("%s.tasLevel: %q is not the nodeLabel of a topology level", at, cluster.Printable(t.TASLevel))
	}
	if t.TASConstraint != "balanced" && t.SliceSize != 0 {
		return fmt.Errorf("%s.sliceSize: only for tasConstraint balanced", at)
	}
	if t.TASConstraint == "balanced" && (t.SliceSize < 1 || t.SliceSize > podsOf(t)) {
		return fmt.Errorf("%s.sliceSize: %d: from 1 to the workload's %d pods", at, t.SliceSize, podsOf(t))
	}
	return nil
}

// pods is a template's pods: podCount, 1 when 0.
func podsOf(t *template) int { return max(1, t.PodCount) }

// topologyNodes are the nodes of the topology, in Kueue's generation
// order: name and labels.
func (p *plan) topologyNodes(c *config) []topoNode {
	t := c.Topology
	var out []topoNode
	var walk func(level int, values []string)
	walk = func(level int, values []string) {
		if level == len(t.Levels) {
			var name strings.Builder
			name.WriteString("node")
			labels := map[string]string{c.ResourceFlavor.NodeLabel: "tas"}
			for i, v := range values {
				name.WriteString("-" + v[:1] + v[strings.LastIndexByte(v, '-')+1:])
				labels[t.Levels[i].NodeLabel] = v
			}
			if t.Levels[len(t.Levels)-1].NodeLabel == hostnameLabel {
				labels[hostnameLabel] = name.String() // its own, not the level's shared value (above)
			}
			out = append(out, topoNode{name: name.String(), labels: labels})
			return
		}
		for i := range t.Levels[level].Count {
			walk(level+1, append(slices.Clip(values), t.Levels[level].Name+"-"+strconv.Itoa(i)))
		}
	}
	walk(0, nil)
	return out
}

type topoNode struct {
	name   string
	labels map[string]string
}

// tasAnnotations are the topology annotations of a template's pods.
func tasAnnotations(t *template) map[string]string {
	switch t.TASConstraint {
	case "required":
		return map[string]string{"kueue.x-k8s.io/podset-required-topology": t.TASLevel}
	case "preferred":
		return map[string]string{"kueue.x-k8s.io/podset-preferred-topology": t.TASLevel}
	case "balanced":
		return map[string]string{"kueue.x-k8s.io/podset-slice-required-topology": t.TASLevel, "kueue.x-k8s.io/podset-slice-size": strconv.Itoa(t.SliceSize)}
	}
	return nil
}
